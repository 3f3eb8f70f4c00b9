/* The output contract on the console (DESIGN.md "Output contract"): only
 * record lines start with `{`. Whatever a platform prints on its console
 * sinks passes through contract_write first, on the machine and on the
 * host alike; a human line that would start with `{` gets a space before
 * it. */
#ifndef IOMMON_CONTRACT_H
#define IOMMON_CONTRACT_H

#include <stdbool.h>
#include <stddef.h>

/* True while a record line is being printed (record_emit,
 * core/monitor/results.c): only then may a line start with '{'. */
extern volatile bool output_record_line;

/* Hands buf to sink, with a space written before each '{' that would open
 * a line while no record is being printed. Lines run across calls. */
void contract_write(const char *buf, size_t n, void (*sink)(const char *buf, size_t n));

#endif
