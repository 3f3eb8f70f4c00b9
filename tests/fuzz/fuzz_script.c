/* libFuzzer: scripts as the monitor reads them (core/monitor/script.c) — iommon.cfg
 * bytes, UEFI load options (UCS-2) and console lines — run against a
 * command table that only checks what it is handed.
 *
 * Claims: no crash or sanitizer report; no command ever receives a word
 * holding a control character or a byte outside ASCII, or more words than
 * SCRIPT_MAX_WORDS; a file fed in two pieces, cut anywhere, runs exactly the
 * commands (and makes exactly the errors) it runs when fed whole. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/base/macros.h"
#include "core/monitor/script.h"

static struct {
	uint64_t hash; /* of every command run, in order */
	unsigned commands, errors;
} trace;

static void mix(const void *p, size_t n)
{
	const unsigned char *b = p;
	for (size_t i = 0; i < n; i++)
		trace.hash = (trace.hash ^ b[i]) * 0x100000001b3ull; /* FNV-1a */
}

static enum cmd_status check_words(int argc, char **argv)
{
	if (argc < 1 || argc > SCRIPT_MAX_WORDS)
		abort();
	for (int i = 0; i < argc; i++) {
		size_t len = strlen(argv[i]);
		if (len > SCRIPT_LINE_MAX)
			abort();
		for (size_t k = 0; k < len; k++) {
			unsigned char c = (unsigned char)argv[i][k];
			if ((c < 0x20 && c != '\t') || c >= 0x7f)
				abort();
		}
		mix(argv[i], len + 1);
	}
	trace.commands++;
	if (strcmp(argv[0], "countdown") == 0 && argc > 1 && argv[1][0] == 'm')
		return CMD_MENU; /* a key at the countdown: the rest of the script does not run */
	return argv[argc - 1][0] == 'x' ? CMD_ERROR : CMD_OK; /* some commands fail, as bad values do */
}

static const struct command table[] = {
	{ "echo", "", "", check_words }, { "set", "", "", check_words },  { "run", "", "", check_words },
	{ "exit", "", "", check_words }, { "show", "", "", check_words }, { "countdown", "", "", check_words },
};

static const struct command *find(const char *name)
{
	for (size_t i = 0; i < ARRAY_SIZE(table); i++)
		if (strcmp(table[i].name, name) == 0)
			return &table[i];
	return NULL;
}

static void count_error(void)
{
	trace.errors++;
}

static const struct script_env env = { find, count_error };

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc, (void)argv;
	if (!freopen("/dev/null", "w", stdout)) /* the error lines are not what is tested */
		abort();
	static char out[1 << 20];
	setvbuf(stdout, out, _IOFBF, sizeof(out));
	script_init(&env);
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 2 || size > 4096) /* room for lines past the 1024-character limit; longer only repeats */
		return 0;
	uint8_t mode = data[0], at = data[1];
	data += 2, size -= 2;
	static struct script s;
	switch (mode % 3) {
	case 0: { /* a config file, whole and then in two pieces cut at `at` */
		memset(&trace, 0, sizeof(trace));
		script_run(data, size, "f.cfg");
		uint64_t hash = trace.hash;
		unsigned commands = trace.commands, errors = trace.errors;
		size_t cut = size ? (size_t)at * size / 255 : 0;
		memset(&trace, 0, sizeof(trace));
		script_begin(&s, "f.cfg");
		script_feed(&s, data, cut);
		script_feed(&s, data + cut, size - cut);
		script_end(&s, NULL);
		if (trace.hash != hash || trace.commands != commands || trace.errors != errors)
			abort();
		break;
	}
	case 1: { /* load options: UCS-2 code units, as the firmware hands them */
		size_t n = size / 2;
		uint16_t *u = malloc(n * sizeof(*u) + 1);
		for (size_t i = 0; i < n; i++)
			u[i] = (uint16_t)(data[2 * i] | data[2 * i + 1] << 8);
		char *text = NULL;
		const char *why = load_options_text(u, n, "iommon.efi", &text);
		if (why && text)
			abort();
		if (text) {
			for (const char *p = text; *p; p++)
				if ((*p < 0x20 && *p != '\t') || *p >= 0x7f)
					abort();
			script_run(text, strlen(text), "options");
		}
		free(text);
		free(u);
		break;
	}
	default: /* one console line */
		script_exec_line((const char *)data, size, NULL);
		break;
	}
	return 0;
}
