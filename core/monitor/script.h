/* Lines of commands, whether typed at the prompt, read from iommon.cfg or
 * given as UEFI load options: what a line may hold, how a script's bytes
 * become lines, and how a line splits into commands and words. It knows no
 * command itself: the monitor hands it the lookup.
 *
 * A line is at most SCRIPT_LINE_MAX characters of printable ASCII or tab;
 * characters outside ASCII (valid UTF-8) may appear only in a comment.
 * CR, LF and CRLF each end a line; a UTF-8 byte order mark at the start of a
 * script is skipped. A line that breaks a rule is one named error and none
 * of it runs; the lines after it still do. */
#ifndef IOMMON_SCRIPT_H
#define IOMMON_SCRIPT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define SCRIPT_LINE_MAX 1024 /* characters in a line, its end not counted */
#define SCRIPT_MAX_WORDS 16

enum cmd_status {
	CMD_OK,
	CMD_ERROR, /* bad command, key or value: reported, counted as a plan error in scripts */
	CMD_MENU,  /* stop the script and open the menu (countdown interrupted) */
};

struct command {
	const char *name;
	const char *usage;
	const char *summary;
	enum cmd_status (*fn)(int argc, char **argv);
	/* 'help <name>': what else a person needs, then "examples:" and one
	 * example a line, each indented as printed */
	const char *help;
};

/* What the script layer needs from the monitor. */
struct script_env {
	const struct command *(*find)(const char *name);
	void (*plan_error)(void); /* one error in an unattended script */
};

void script_init(const struct script_env *env);
/* True while a script runs (its results are saved, its errors counted). */
bool script_unattended(void);

/* One error line, prefixed with where the command came from. */
void cmd_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Runs one line of `len` bytes: several commands may be separated by ';',
 * '#' starts a comment. `where` names the source in error lines
 * ("iommon.cfg:3"), or NULL when typed at the prompt. */
enum cmd_status script_exec_line(const char *line, size_t len, const char *where);

/* What is wrong with a line of `len` bytes, or NULL: the first NUL,
 * control character, invalid UTF-8, or character outside ASCII that is
 * not in a comment, with its column (1-based, in bytes). */
const char *script_line_fault(const char *line, size_t len, char *why, size_t n);

/* A script read in pieces of any size (a file streamed from the disk). */
struct script {
	const char *name;
	char line[SCRIPT_LINE_MAX + 1];
	size_t len; /* bytes of the current line so far, beyond the buffer too */
	unsigned long lineno;
	unsigned char head[3]; /* the first bytes, until the BOM is decided */
	size_t nhead;
	bool head_done, after_cr, stopped, was_unattended;
	enum cmd_status worst;
};

void script_begin(struct script *s, const char *name);
/* Runs every line the piece completes; false once the script stopped
 * (CMD_MENU: the rest is not to run). */
bool script_feed(struct script *s, const void *buf, size_t n);
/* Runs the last line when it had no end, unless `cut` says why the input
 * stopped early (a read error): then that is one more error. Returns the
 * worst status of the script. */
enum cmd_status script_end(struct script *s, const char *cut);
/* The whole script in one buffer. */
enum cmd_status script_run(const void *buf, size_t n, const char *name);

/* UEFI load options (UCS-2, `n` code units) as a script: the first word is
 * dropped when it names the image (as the UEFI shell passes it: a path, a
 * name ending in .efi, or `image`'s file name typed without its .efi, in any
 * case; `image` may be NULL), a leading U+FEFF is skipped, and the rest is
 * kept whole in a malloc'd *text (NULL when nothing is left). Anything but
 * printable ASCII and tab (a boot entry's binary data) leaves *text NULL and
 * returns why it was ignored. */
const char *load_options_text(const uint16_t *s, size_t n, const char *image, char **text);

#endif
