/* CPU exceptions on aarch64: not caught by the monitor in this build. The
 * firmware's own handler (EDK2's DefaultExceptionHandler: a register dump
 * on the console, then a halt) takes them, with whatever the monitor had
 * taken over left as it was. Catching them and leaving through the crash
 * path (as boot/exceptions.c does on x86-64) is the PL011/exceptions part
 * of issue 14, which replaces this file. */
#include <stdio.h>

#include "../boot.h"

bool exceptions_install(void)
{
	static bool said;
	if (!said)
		printf("warning: CPU exceptions are left to the firmware on aarch64 in this build (it halts)\n");
	said = true;
	return false;
}

void exceptions_remove(void) {}
