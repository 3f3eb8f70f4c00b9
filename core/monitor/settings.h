/* Settings: a table of keys with a default, a check and an apply step.
 * `set` and `show` are the only ways in and out. */
#ifndef IOMMON_SETTINGS_H
#define IOMMON_SETTINGS_H

#include <stdbool.h>
#include <stddef.h>

#include "core/base/number.h" /* the numbers a setting holds */

void settings_init(void);
/* NULL on success, else one line saying what was wrong. */
const char *setting_set(const char *key, const char *value);
const char *setting_get(const char *key); /* NULL for an unknown key */
long setting_long(const char *key);
bool setting_bool(const char *key);
/* Prints one key, or all when key is NULL; false for an unknown key. */
bool settings_show(const char *key);

/* Layers above core/ add their own keys (at boot, before any script). */
void setting_add(const char *key, const char *def, const char *help, const char *(*check)(const char *v),
		 const char *(*apply)(const char *v));

/* The check of an on/off key, for the layers that add one. */
const char *setting_check_on_off(const char *v);

/* Only the key's check, without applying it (fuzzing, tests): NULL, or
 * what `set` would say. */
const char *setting_check(const char *key, const char *value);
/* The i-th key, or NULL past the last. */
const char *setting_key(size_t i);

#endif
