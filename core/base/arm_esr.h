/* ESR_ELx, the Arm exception syndrome, decoded and in words (Arm ARM
 * D17.2, "ESR_EL1"/"ESR_EL2": EC in bits 31:26, IL in 25, ISS in 24:0).
 * Used by the aarch64 exception handler; plain data, so it is tested on
 * the host. */
#ifndef IOMMON_ARM_ESR_H
#define IOMMON_ARM_ESR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define ESR_EC(esr) (((esr) >> 26) & 0x3f)
#define ESR_ISS(esr) ((esr)&0x1ffffff)

/* Exception classes worded specially */
#define ESR_EC_UNKNOWN 0x00 /* what an undefined instruction gives */
#define ESR_EC_IABT_LOWER 0x20
#define ESR_EC_IABT 0x21
#define ESR_EC_DABT_LOWER 0x24
#define ESR_EC_DABT 0x25
#define ESR_EC_SERROR 0x2f

/* Data/instruction abort ISS (DFSC/IFSC in 5:0) */
#define ESR_ISS_FSC(iss) ((iss)&0x3f)
#define ESR_ISS_WNR (1u << 6)	/* data abort: a write */
#define ESR_ISS_S1PTW (1u << 7) /* on the stage-2 walk of a stage-1 table */
#define ESR_ISS_FNV (1u << 10)	/* FAR not valid */
/* SError ISS */
#define ESR_ISS_IDS (1u << 24) /* implementation-defined syndrome */
#define ESR_ISS_AET(iss) (((iss) >> 10) & 7)

enum esr_fault {
	ESR_FAULT_NONE, /* not an abort */
	ESR_FAULT_ADDRESS_SIZE,
	ESR_FAULT_TRANSLATION,
	ESR_FAULT_ACCESS_FLAG,
	ESR_FAULT_PERMISSION,
	ESR_FAULT_EXTERNAL,	 /* synchronous external abort: the access was answered with an error */
	ESR_FAULT_EXTERNAL_WALK, /* the same, on a translation table walk */
	ESR_FAULT_ECC,
	ESR_FAULT_ECC_WALK,
	ESR_FAULT_ALIGNMENT,
	ESR_FAULT_TLB_CONFLICT,
	ESR_FAULT_ATOMIC_UPDATE,
	ESR_FAULT_OTHER,
};

struct esr_decoded {
	unsigned ec;
	bool abort; /* data or instruction abort */
	bool data;  /* data abort (else instruction) */
	bool write; /* data abort by a store */
	bool far_valid;
	bool s1ptw;
	enum esr_fault fault;
	int level; /* translation table level of the fault, -1 when none */
	unsigned fsc;
	bool aet_valid; /* SError with an architected syndrome */
	unsigned aet;
};

void esr_decode(uint32_t esr, struct esr_decoded *d);
/* "EC 0x25 data abort, translation fault, level 3, reading at FAR 0x..."
 * into out; returns the characters written (at most cap - 1). */
size_t esr_describe(uint32_t esr, uint64_t far, char *out, size_t cap);

#endif
