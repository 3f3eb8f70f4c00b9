/* The operator's stop (Ctrl-C or Esc at the console) and the keys typed
 * meanwhile, set aside for the prompt (report.h). */
#include "runner.h"

#include <stdio.h>

#include "core/base/platform.h"

static struct {
	bool stop, said;
	unsigned char ahead[64];
	unsigned head, tail; /* typed ahead, in order */
} keys;

bool runner_stop_requested(void)
{
	/* with the set-aside buffer full, the rest stays where it is (a
	 * script piped in is not to lose its lines) */
	for (int i = 0; i < 16 && !keys.stop && keys.tail - keys.head < sizeof(keys.ahead); i++) {
		int c = platform->getc();
		if (c < 0)
			break;
		if (c == 0x03 || c == 0x1b)
			keys.stop = true;
		else
			keys.ahead[keys.tail++ % sizeof(keys.ahead)] = (unsigned char)c;
	}
	if (keys.stop && !keys.said) {
		keys.said = true;
		printf("  stop requested: the current test ends early, the rest are skipped\n");
	}
	return keys.stop;
}

bool runner_stop_typed_now(void)
{
	bool now = false;
	for (int i = 0; i < 16 && !now && keys.tail - keys.head < sizeof(keys.ahead); i++) {
		int c = platform->getc();
		if (c < 0)
			break;
		if (c == 0x03 || c == 0x1b)
			now = keys.stop = true;
		else
			keys.ahead[keys.tail++ % sizeof(keys.ahead)] = (unsigned char)c;
	}
	return now;
}

bool test_stopped(struct test_ctx *t)
{
	if (!runner_stop_requested())
		return false;
	if (!t->skipped && !t->failures) {
		snprintf(t->detail, sizeof(t->detail), "stopped by the operator");
		t->reason = SKIP_STOPPED;
	}
	t->skipped = true;
	return true;
}

int runner_getc(void)
{
	if (keys.head != keys.tail)
		return keys.ahead[keys.head++ % sizeof(keys.ahead)];
	return platform->getc();
}

void runner_stop_clear(void)
{
	keys.stop = keys.said = false;
}
