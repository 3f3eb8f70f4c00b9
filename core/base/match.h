/* Matching names as a person types them: shell-style patterns (`run
 * vtd.translate*`) and the distance between two names, for a typo's
 * "did you mean". */
#ifndef IOMMON_MATCH_H
#define IOMMON_MATCH_H

#include <stdbool.h>

/* Whether `p` holds a pattern character: '*', '?' or '['. */
bool match_is_pattern(const char *p);

/* Does `s` match the pattern `p` whole? '*' any run of characters, '?'
 * one, "[abc]", "[a-z]" and "[!x]" one of (or not of) a set; a '[' with
 * no ']' is itself. */
bool match_glob(const char *p, const char *s);

/* The Levenshtein distance (insertions, deletions, substitutions), for
 * names of at most MATCH_NAME_MAX characters (longer: the longer length). */
#define MATCH_NAME_MAX 63
unsigned match_distance(const char *a, const char *b);

#endif
