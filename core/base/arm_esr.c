#include "arm_esr.h"

#include <stdarg.h>
#include <stdio.h>

static const char *const ec_names[64] = {
	[0x00] = "undefined instruction (unknown reason)",
	[0x01] = "trapped WFI or WFE",
	[0x07] = "trapped SIMD or floating-point access",
	[0x0e] = "illegal execution state",
	[0x15] = "SVC",
	[0x16] = "HVC",
	[0x17] = "SMC",
	[0x18] = "trapped MSR, MRS or system instruction",
	[0x19] = "trapped SVE access",
	[0x20] = "instruction abort from a lower exception level",
	[0x21] = "instruction abort",
	[0x22] = "PC alignment fault",
	[0x24] = "data abort from a lower exception level",
	[0x25] = "data abort",
	[0x26] = "SP alignment fault",
	[0x2c] = "trapped floating-point exception",
	[0x2f] = "SError",
	[0x30] = "breakpoint from a lower exception level",
	[0x31] = "breakpoint",
	[0x32] = "software step from a lower exception level",
	[0x33] = "software step",
	[0x34] = "watchpoint from a lower exception level",
	[0x35] = "watchpoint",
	[0x3c] = "BRK instruction",
};

static const char *const fault_names[] = {
	[ESR_FAULT_NONE] = "",
	[ESR_FAULT_ADDRESS_SIZE] = "address size fault",
	[ESR_FAULT_TRANSLATION] = "translation fault",
	[ESR_FAULT_ACCESS_FLAG] = "access flag fault",
	[ESR_FAULT_PERMISSION] = "permission fault",
	/* what an MMIO access nothing answers gives on Arm servers */
	[ESR_FAULT_EXTERNAL] = "synchronous external abort (the access was answered with an error)",
	[ESR_FAULT_EXTERNAL_WALK] = "synchronous external abort on the translation table walk",
	[ESR_FAULT_ECC] = "synchronous parity or ECC error",
	[ESR_FAULT_ECC_WALK] = "parity or ECC error on the translation table walk",
	[ESR_FAULT_ALIGNMENT] = "alignment fault",
	[ESR_FAULT_TLB_CONFLICT] = "TLB conflict abort",
	[ESR_FAULT_ATOMIC_UPDATE] = "unsupported atomic hardware update",
	[ESR_FAULT_OTHER] = "fault status",
};

/* SError's asynchronous error type (AET) */
static const char *const aet_names[8] = { "uncontainable", "unrecoverable", "restartable", "recoverable",
					  "AET 4",	   "AET 5",	    "corrected",   "AET 7" };

/* DFSC/IFSC ("ISS encoding for an exception from a Data Abort"): faults
 * by level are 0b0000LL address size, 0b0001LL translation, 0b0010LL
 * access flag, 0b0011LL permission. */
static void fault_status(unsigned fsc, struct esr_decoded *d)
{
	static const enum esr_fault by_level[4] = { ESR_FAULT_ADDRESS_SIZE, ESR_FAULT_TRANSLATION,
						    ESR_FAULT_ACCESS_FLAG, ESR_FAULT_PERMISSION };
	d->fsc = fsc;
	d->level = -1;
	if (fsc < 0x10) {
		d->fault = by_level[fsc >> 2];
		d->level = (int)(fsc & 3);
	} else if (fsc == 0x10) {
		d->fault = ESR_FAULT_EXTERNAL;
	} else if (fsc >= 0x14 && fsc <= 0x17) {
		d->fault = ESR_FAULT_EXTERNAL_WALK;
		d->level = (int)(fsc & 3);
	} else if (fsc == 0x18) {
		d->fault = ESR_FAULT_ECC;
	} else if (fsc >= 0x1c && fsc <= 0x1f) {
		d->fault = ESR_FAULT_ECC_WALK;
		d->level = (int)(fsc & 3);
	} else if (fsc == 0x21) {
		d->fault = ESR_FAULT_ALIGNMENT;
	} else if (fsc == 0x30) {
		d->fault = ESR_FAULT_TLB_CONFLICT;
	} else if (fsc == 0x31) {
		d->fault = ESR_FAULT_ATOMIC_UPDATE;
	} else {
		d->fault = ESR_FAULT_OTHER;
	}
}

void esr_decode(uint32_t esr, struct esr_decoded *d)
{
	uint32_t iss = ESR_ISS(esr);
	*d = (struct esr_decoded){ .ec = ESR_EC(esr), .level = -1 };
	switch (d->ec) {
	case ESR_EC_DABT_LOWER:
	case ESR_EC_DABT:
		d->data = true;
		d->write = (iss & ESR_ISS_WNR) != 0;
		/* fall through */
	case ESR_EC_IABT_LOWER:
	case ESR_EC_IABT:
		d->abort = true;
		d->far_valid = !(iss & ESR_ISS_FNV);
		d->s1ptw = (iss & ESR_ISS_S1PTW) != 0;
		fault_status(ESR_ISS_FSC(iss), d);
		break;
	case ESR_EC_SERROR:
		d->aet_valid = !(iss & ESR_ISS_IDS);
		d->aet = ESR_ISS_AET(iss);
		break;
	}
}

static void append(char *out, size_t cap, size_t *n, const char *fmt, ...) __attribute__((format(printf, 4, 5)));
static void append(char *out, size_t cap, size_t *n, const char *fmt, ...)
{
	if (*n + 1 >= cap)
		return;
	va_list ap;
	va_start(ap, fmt);
	int k = vsnprintf(out + *n, cap - *n, fmt, ap);
	va_end(ap);
	if (k > 0)
		*n = *n + (size_t)k < cap ? *n + (size_t)k : cap - 1;
}

size_t esr_describe(uint32_t esr, uint64_t far, char *out, size_t cap)
{
	struct esr_decoded d;
	esr_decode(esr, &d);
	size_t n = 0;
	if (cap)
		out[0] = '\0';
	append(out, cap, &n, "EC 0x%02x %s", d.ec, ec_names[d.ec] ? ec_names[d.ec] : "(not worded here)");
	if (d.abort) {
		append(out, cap, &n, ", %s", fault_names[d.fault]);
		if (d.fault == ESR_FAULT_OTHER)
			append(out, cap, &n, " 0x%02x", d.fsc);
		if (d.level >= 0)
			append(out, cap, &n, ", level %d", d.level);
		if (d.data)
			append(out, cap, &n, d.write ? ", writing" : ", reading");
		if (d.far_valid)
			append(out, cap, &n, " at FAR 0x%llx", (unsigned long long)far);
		else
			append(out, cap, &n, ", FAR not valid");
		if (d.s1ptw)
			append(out, cap, &n, " (on a stage-1 table walk)");
	}
	if (d.aet_valid)
		append(out, cap, &n, " (an error reported after the access, e.g. a write nothing decoded: %s)",
		       aet_names[d.aet]);
	return n;
}
