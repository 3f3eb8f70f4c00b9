#include "script.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static struct {
	const struct script_env *env;
	bool unattended;
	const char *where; /* where the command being run came from, or NULL */
} sc;

void script_init(const struct script_env *env)
{
	sc.env = env;
}

bool script_unattended(void)
{
	return sc.unattended;
}

void cmd_error(const char *fmt, ...)
{
	va_list ap;
	printf("error: %s%s", sc.where ? sc.where : "", sc.where ? ": " : "");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
}

static void plan_error(void)
{
	if (sc.unattended && sc.env && sc.env->plan_error)
		sc.env->plan_error();
}

/* ---- what a line may hold ------------------------------------------------ */

/* Length of the well-formed UTF-8 sequence at s (RFC 3629: no overlong
 * forms, no surrogates, nothing above U+10FFFF), or 0. */
static size_t utf8_seq(const unsigned char *s, size_t n)
{
	unsigned char c = s[0];
	size_t len;
	unsigned char lo = 0x80, hi = 0xbf; /* the second byte's range */
	if (c >= 0xc2 && c <= 0xdf)
		len = 2;
	else if (c >= 0xe0 && c <= 0xef)
		len = 3, lo = c == 0xe0 ? 0xa0 : 0x80, hi = c == 0xed ? 0x9f : 0xbf;
	else if (c >= 0xf0 && c <= 0xf4)
		len = 4, lo = c == 0xf0 ? 0x90 : 0x80, hi = c == 0xf4 ? 0x8f : 0xbf;
	else
		return 0;
	if (n < len || s[1] < lo || s[1] > hi)
		return 0;
	for (size_t i = 2; i < len; i++)
		if ((s[i] & 0xc0) != 0x80)
			return 0;
	return len;
}

const char *script_line_fault(const char *line, size_t len, char *why, size_t n)
{
	const unsigned char *s = (const unsigned char *)line;
	bool quoted = false, comment = false;
	for (size_t i = 0; i < len; i++) {
		unsigned char c = s[i];
		if (c == 0) {
			snprintf(why, n, "NUL byte at column %zu", i + 1);
			return why;
		}
		if ((c < 0x20 && c != '\t') || c == 0x7f) {
			snprintf(why, n, "control character 0x%02x at column %zu", c, i + 1);
			return why;
		}
		if (c >= 0x80) {
			size_t k = utf8_seq(s + i, len - i);
			if (!k) {
				snprintf(why, n, "invalid UTF-8 (byte 0x%02x) at column %zu", c, i + 1);
				return why;
			}
			if (!comment) {
				snprintf(why, n, "character not ASCII at column %zu (outside a comment)", i + 1);
				return why;
			}
			i += k - 1;
			continue;
		}
		if (c == '"')
			quoted = !quoted;
		else if (c == '#' && !quoted)
			comment = true;
	}
	return NULL;
}

/* ---- splitting ----------------------------------------------------------- */

/* Splits one command into words; double quotes group words. Returns the
 * number of words, or -1 with *why set. */
static int split_words(char *s, char **argv, const char **why)
{
	int argc = 0;
	for (;;) {
		while (*s == ' ' || *s == '\t')
			s++;
		if (!*s)
			return argc;
		if (argc == SCRIPT_MAX_WORDS) {
			*why = "too many words";
			return -1;
		}
		if (*s == '"') {
			argv[argc++] = ++s;
			while (*s && *s != '"')
				s++;
			if (!*s) {
				*why = "unterminated quote";
				return -1;
			}
		} else {
			argv[argc++] = s;
			while (*s && *s != ' ' && *s != '\t')
				s++;
		}
		if (*s)
			*s++ = '\0';
	}
}

static enum cmd_status exec_one(char *cmd, const char *where)
{
	char *argv[SCRIPT_MAX_WORDS];
	const char *why = NULL;
	while (*cmd == ' ' || *cmd == '\t')
		cmd++;
	if (where && *cmd)
		printf("%s> %s\n", where, cmd); /* what a script ran, in the log */
	int argc = split_words(cmd, argv, &why);
	enum cmd_status st;
	if (argc == 0)
		return CMD_OK;
	if (argc < 0) {
		cmd_error("%s", why);
		st = CMD_ERROR;
	} else {
		const struct command *c = sc.env ? sc.env->find(argv[0]) : NULL;
		if (!c) {
			cmd_error("unknown command '%s' (try 'help')", argv[0]);
			st = CMD_ERROR;
		} else {
			st = c->fn(argc, argv);
		}
	}
	if (st == CMD_ERROR)
		plan_error();
	return st;
}

static enum cmd_status exec_line(const char *line, size_t len, const char *where)
{
	char buf[SCRIPT_LINE_MAX + 1], why[96];
	if (len > SCRIPT_LINE_MAX) {
		cmd_error("line longer than %d characters: not run", SCRIPT_LINE_MAX);
		plan_error();
		return CMD_ERROR;
	}
	if (script_line_fault(line, len, why, sizeof(why))) {
		cmd_error("%s: not run", why);
		plan_error();
		return CMD_ERROR;
	}
	memcpy(buf, line, len);
	buf[len] = '\0';
	/* '#' outside quotes starts a comment; ';' outside quotes ends a command */
	enum cmd_status worst = CMD_OK;
	bool quoted = false;
	char *start = buf;
	for (char *p = buf;; p++) {
		if (*p == '"')
			quoted = !quoted;
		bool end = *p == '\0' || (!quoted && (*p == ';' || *p == '#'));
		if (!end)
			continue;
		char c = *p;
		*p = '\0';
		enum cmd_status st = exec_one(start, where);
		if (st == CMD_MENU)
			return st;
		if (st == CMD_ERROR)
			worst = st;
		if (c != ';')
			break;
		start = p + 1;
	}
	return worst;
}

enum cmd_status script_exec_line(const char *line, size_t len, const char *where)
{
	const char *outer = sc.where;
	sc.where = where;
	enum cmd_status st = exec_line(line, len, where);
	sc.where = outer;
	return st;
}

/* ---- scripts in pieces ----------------------------------------------------- */

void script_begin(struct script *s, const char *name)
{
	memset(s, 0, sizeof(*s));
	s->name = name;
	s->worst = CMD_OK;
	s->was_unattended = sc.unattended;
	sc.unattended = true;
}

static void end_line(struct script *s)
{
	char where[64];
	s->lineno++;
	snprintf(where, sizeof(where), "%s:%lu", s->name, s->lineno);
	/* the bytes past the buffer are only counted: script_exec_line refuses the line by its length */
	enum cmd_status st = script_exec_line(s->line, s->len, where);
	s->len = 0;
	if (st == CMD_MENU)
		s->stopped = true;
	if (st != CMD_OK)
		s->worst = st;
}

static void put_byte(struct script *s, unsigned char c)
{
	bool crlf = s->after_cr && c == '\n';
	s->after_cr = c == '\r';
	if (crlf)
		return;
	if (c == '\r' || c == '\n') {
		end_line(s);
		return;
	}
	if (s->len < SCRIPT_LINE_MAX)
		s->line[s->len] = (char)c;
	if (s->len <= SCRIPT_LINE_MAX)
		s->len++; /* one past the limit is enough to refuse the line */
}

static void put_head(struct script *s)
{
	static const unsigned char bom[3] = { 0xef, 0xbb, 0xbf };
	s->head_done = true;
	if (s->nhead == 3 && memcmp(s->head, bom, 3) == 0)
		return;
	for (size_t i = 0; i < s->nhead && !s->stopped; i++)
		put_byte(s, s->head[i]);
}

bool script_feed(struct script *s, const void *buf, size_t n)
{
	const unsigned char *p = buf;
	for (size_t i = 0; i < n && !s->stopped; i++) {
		if (!s->head_done) {
			s->head[s->nhead++] = p[i];
			if (s->nhead == sizeof(s->head))
				put_head(s);
			continue;
		}
		put_byte(s, p[i]);
	}
	return !s->stopped;
}

enum cmd_status script_end(struct script *s, const char *cut)
{
	if (!s->head_done)
		put_head(s);
	if (!s->stopped && cut) {
		char where[64];
		snprintf(where, sizeof(where), "%s:%lu", s->name, s->lineno + 1);
		const char *outer = sc.where;
		sc.where = where;
		cmd_error("%s: the rest of %s is not run", cut, s->name);
		sc.where = outer;
		plan_error();
		s->worst = CMD_ERROR;
	} else if (!s->stopped && s->len) {
		end_line(s); /* the last line, with no end of its own */
	}
	sc.unattended = s->was_unattended;
	return s->worst;
}

enum cmd_status script_run(const void *buf, size_t n, const char *name)
{
	static struct script s; /* a line buffer too big for a firmware stack; scripts do not nest */
	script_begin(&s, name);
	script_feed(&s, buf, n);
	return script_end(&s, NULL);
}

/* ---- load options ------------------------------------------------------------ */

/* The first word, s[i..w), is `image`'s file name without its .efi (FAT
 * names are not case-sensitive): the shell finds the image either way. */
static bool names_image(const uint16_t *s, size_t i, size_t w, const char *image)
{
	size_t len = image ? strlen(image) : 0;
	if (len >= 4 && image[len - 4] == '.' && (image[len - 3] | 0x20) == 'e' && (image[len - 2] | 0x20) == 'f' &&
	    (image[len - 1] | 0x20) == 'i')
		len -= 4;
	if (len == 0 || w - i != len)
		return false;
	for (size_t k = 0; k < len; k++) {
		uint16_t a = s[i + k], b = (unsigned char)image[k];
		if (a != b && !(a < 0x80 && (a | 0x20) == (b | 0x20) && (a | 0x20) >= 'a' && (a | 0x20) <= 'z'))
			return false;
	}
	return true;
}

const char *load_options_text(const uint16_t *s, size_t n, const char *image, char **text)
{
	static char why[128];
	*text = NULL;
	size_t end = 0;
	while (end < n && s[end])
		end++; /* a NUL ends the string the shell or boot entry gives */
	size_t i = end > 0 && s[0] == 0xfeff ? 1 : 0;
	for (size_t k = i; k < end; k++) {
		if ((s[k] < 0x20 && s[k] != '\t') || s[k] >= 0x7f) {
			snprintf(why, sizeof(why),
				 "load options are not plain ASCII text (0x%04x at %zu of %zu characters): ignored",
				 s[k], k + 1, end);
			return why;
		}
	}
	while (i < end && (s[i] == ' ' || s[i] == '\t'))
		i++;
	/* the first word names the image when the UEFI shell started us */
	size_t w = i;
	bool path = false;
	while (w < end && s[w] != ' ' && s[w] != '\t')
		path |= s[w++] == '\\';
	bool efi = w - i >= 4 && s[w - 4] == '.' && (s[w - 3] | 0x20) == 'e' && (s[w - 2] | 0x20) == 'f' &&
		   (s[w - 1] | 0x20) == 'i';
	if (efi || path || names_image(s, i, w, image))
		i = w;
	while (i < end && (s[i] == ' ' || s[i] == '\t'))
		i++;
	if (i == end)
		return NULL;
	char *t = malloc(end - i + 1);
	if (!t) {
		snprintf(why, sizeof(why), "load options of %zu characters: out of memory: ignored", end);
		return why;
	}
	for (size_t k = 0; k < end - i; k++)
		t[k] = (char)s[i + k];
	t[end - i] = '\0';
	*text = t;
	return NULL;
}
