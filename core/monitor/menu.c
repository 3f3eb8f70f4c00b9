/* The console prompt: the line reader (echo, Backspace, Ctrl-U, Ctrl-C
 * cancelling the line, no control or non-ASCII characters), the numbered
 * menu and its loop. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/base/macros.h"
#include "core/base/timing.h"
#include "monitor_state.h"

static int wait_key(void)
{
	for (;;) {
		int c = runner_getc();
		if (c >= 0)
			return c;
		platform->idle_us(10000);
	}
}

int monitor_read_line(char *buf, unsigned size)
{
	/* Typed characters beyond the buffer are counted, not kept: the buffer
	 * always holds a prefix of the line, so Backspace can bring a line that
	 * was too long back within it. The first character that is not
	 * printable ASCII spoils the line until it is erased. */
	size_t typed = 0, bad_at = 0; /* bad_at: 1-based column of the first bad character */
	int bad = 0;
	for (;;) {
		int c = wait_key();
		if (c == '\r' || c == '\n') {
			printf("\n");
			break;
		}
		if (c == 0x03) { /* ^C: the line is dropped, as a shell drops it */
			printf("^C\n");
			buf[0] = '\0';
			return 0;
		}
		if (c == 0x08 || c == 0x7f) { /* backspace, delete */
			if (typed) {
				typed--;
				printf("\b \b");
			}
		} else if (c == 0x15) { /* ^U: kill the line */
			while (typed) {
				typed--;
				printf("\b \b");
			}
		} else {
			if (c == '\t')
				c = ' ';
			bool ok = c >= 0x20 && c < 0x7f;
			if (!ok && (!bad_at || bad_at > typed)) {
				bad_at = typed + 1;
				bad = c;
			}
			if (typed + 1 < size)
				buf[typed] = (char)c;
			typed++;
			putchar(ok ? c : '?');
		}
		if (bad_at > typed)
			bad_at = 0;
		fflush(stdout);
	}
	if (typed + 1 > size) {
		buf[0] = '\0';
		cmd_error("line longer than %u characters: not run", size - 1);
		return -1;
	}
	if (bad_at) {
		buf[0] = '\0';
		if (bad >= 0x80)
			cmd_error("character not ASCII at column %zu: not run", bad_at);
		else
			cmd_error("control character 0x%02x at column %zu: not run", (unsigned)bad, bad_at);
		return -1;
	}
	buf[typed] = '\0';
	return (int)typed;
}

static const struct {
	const char *command, *what;
} menu[] = {
	{ "run default", "run the default plan" },
	{ "run all", "run every test" },
	{ "list", "show the test catalogue" },
	{ "results", "show this session's results" },
	{ "show", "show the settings" },
	{ "save", "save results to the boot volume" },
	{ "info", "platform and counter" },
	{ "help", "all commands" },
	{ "exit firmware", "return to the firmware" },
};

#define NMENU (ARRAY_SIZE(menu))

void monitor_print_menu(void)
{
	printf("\niommon %s - IOMMU test monitor (%s)\n", IOMMON_VERSION, timing.platform);
	for (size_t i = 0; i < NMENU; i++)
		printf("  %zu  %-16s %s\n", i + 1, menu[i].command, menu[i].what);
	printf("Type a number, or any command ('help' lists them).\n");
}

void monitor_menu_loop(void)
{
	monitor_print_menu();
	for (;;) {
		static char line[SCRIPT_LINE_MAX + 1];
		printf("iommon> ");
		fflush(stdout);
		if (monitor_read_line(line, sizeof(line)) < 0)
			continue;
		char *p = line;
		while (*p == ' ')
			p++;
		char *end;
		unsigned long item = strtoul(p, &end, 10);
		while (*end == ' ')
			end++;
		if (p[0] >= '0' && p[0] <= '9' && *end == '\0') {
			if (item < 1 || item > NMENU) {
				cmd_error("no menu item %lu (1-%zu)", item, NMENU);
				continue;
			}
			printf("> %s\n", menu[item - 1].command);
			monitor_exec_line(menu[item - 1].command, NULL);
		} else if (*p) {
			monitor_exec_line(p, NULL);
		} else {
			monitor_print_menu();
		}
	}
}
