#include "diag.h"

#include <stdarg.h>
#include <stdio.h>

void diag_add(struct diag *d, enum diag_level level, const char *fmt, ...)
{
	if (level == DIAG_ERROR)
		d->errors++;
	else
		d->warnings++;
	if (d->n == DIAG_MAX)
		return;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(d->msg[d->n].text, sizeof(d->msg[d->n].text), fmt, ap);
	va_end(ap);
	d->msg[d->n].level = level;
	d->n++;
}
