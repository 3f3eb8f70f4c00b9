/* The event log (spec 2.5, 3.3.2): entries between the head the driver
 * keeps and the tail the unit advances, decoded into faults (device id,
 * domain, address, direction, the event code as the reason) and consumed
 * by writing the head back. An overflow stops the log (3.4.13
 * EventOverflow): it is reported and the log restarted empty. New
 * events interrupt through the MSI capability of the unit's own PCI
 * function (Control.EventIntEn), stamped like VT-d's fault event. */
#include <stdio.h>

#include "core/base/cpu.h"
#include "core/base/macros.h"
#include "core/base/platform.h"
#include "driver.h"

const char *amdvi_event_name(unsigned code)
{
	static const char *const text[] = {
		[AMDVI_EVT_ILLEGAL_DEV_TABLE_ENTRY] = "ILLEGAL_DEV_TABLE_ENTRY",
		[AMDVI_EVT_IO_PAGE_FAULT] = "IO_PAGE_FAULT",
		[AMDVI_EVT_DEV_TAB_HARDWARE_ERROR] = "DEV_TAB_HARDWARE_ERROR",
		[AMDVI_EVT_PAGE_TAB_HARDWARE_ERROR] = "PAGE_TAB_HARDWARE_ERROR",
		[AMDVI_EVT_ILLEGAL_COMMAND_ERROR] = "ILLEGAL_COMMAND_ERROR",
		[AMDVI_EVT_COMMAND_HARDWARE_ERROR] = "COMMAND_HARDWARE_ERROR",
		[AMDVI_EVT_IOTLB_INV_TIMEOUT] = "IOTLB_INV_TIMEOUT",
		[AMDVI_EVT_INVALID_DEVICE_REQUEST] = "INVALID_DEVICE_REQUEST",
		[AMDVI_EVT_INVALID_PPR_REQUEST] = "INVALID_PPR_REQUEST",
		[AMDVI_EVT_EVENT_COUNTER_ZERO] = "EVENT_COUNTER_ZERO",
	};
	return code < ARRAY_SIZE(text) && text[code] ? text[code] : "event code not known to iommon";
}

bool amdvi_op_fault_pending(struct iommu *io)
{
	struct amdvi *a = container_of(io, struct amdvi, io);
	uint64_t tail = amdvi_r64(a, AMDVI_REG_EVTLOG_TAIL);
	return tail != ~0ull && (tail & AMDVI_PTR_MASK) != a->evt_head;
}

/* Events that name the device (2.5.2-2.5.10; the command errors name the
 * command's address instead). */
static bool names_device(unsigned code)
{
	return code != AMDVI_EVT_ILLEGAL_COMMAND_ERROR && code != AMDVI_EVT_COMMAND_HARDWARE_ERROR &&
	       code != AMDVI_EVT_EVENT_COUNTER_ZERO;
}

static struct iommu_fault decode(uint64_t lo, uint64_t hi, char *why, size_t n)
{
	unsigned code = amdvi_evt_code(lo);
	bool dev = names_device(code);
	bool translation = code == AMDVI_EVT_IO_PAGE_FAULT || code == AMDVI_EVT_ILLEGAL_DEV_TABLE_ENTRY;
	struct iommu_fault f = { .kind = IOMMU_FAULT_OTHER,
				 .sid = dev ? amdvi_evt_devid(lo) : 0,
				 .reason = code,
				 .read = !(lo & AMDVI_EVT_RW),
				 .addr = translation ? hi & ~0xfffull : hi,
				 .sid_known = dev,
				 .addr_known = true,
				 .dir_known = translation,
				 .t_seen = rdtsc() };
	if (code == AMDVI_EVT_IO_PAGE_FAULT && (lo & AMDVI_EVT_I)) {
		/* a blocked interrupt (2.5.3, I=1): RZ a reserved bit or an
		 * encoding refused; PR=0 an entry with RemapEn=0; PR=1 the table
		 * was there but the index past IntTabLen (the model's reading) */
		bool present = lo & AMDVI_EVT_PR, rz = lo & AMDVI_EVT_RZ;
		f.kind = rz ? IOMMU_FAULT_IR_OTHER : present ? IOMMU_FAULT_IR_INDEX : IOMMU_FAULT_IR_NOT_PRESENT;
		f.dir_known = false;
		snprintf(why, n, "IO_PAGE_FAULT for an interrupt: %s",
			 rz	   ? "reserved bits set"
			 : present ? "index past the table"
				   : "entry not remapped");
	} else if (code == AMDVI_EVT_IO_PAGE_FAULT) {
		bool present = lo & AMDVI_EVT_PR, denied = lo & AMDVI_EVT_PE, write = lo & AMDVI_EVT_RW;
		f.kind = present && denied && write ? IOMMU_FAULT_WRITE_DENIED : IOMMU_FAULT_NOT_PRESENT;
		snprintf(why, n, "IO_PAGE_FAULT in domain %u: %s%s", amdvi_evt_domain(lo),
			 !present ? "not present"
			 : denied ? "permission denied"
				  : "refused",
			 lo & AMDVI_EVT_RZ ? ", reserved bit set" : "");
	} else {
		snprintf(why, n, "%s", amdvi_event_name(code));
	}
	f.why = why;
	return f;
}

/* After an overflow the unit logs nothing more until the log is restarted
 * (3.3.2): off, pointers to zero, EventOverflow cleared, on again. */
static void restart_log(struct amdvi *a)
{
	uint64_t ctrl = amdvi_r64(a, AMDVI_REG_CONTROL);
	amdvi_w64(a, AMDVI_REG_CONTROL, ctrl & ~AMDVI_CTRL_EVENT_LOG_EN);
	amdvi_w64(a, AMDVI_REG_EVTLOG_HEAD, 0);
	amdvi_w64(a, AMDVI_REG_EVTLOG_TAIL, 0);
	amdvi_w64(a, AMDVI_REG_STATUS, AMDVI_STATUS_EVENT_OVERFLOW);
	a->evt_head = 0;
	amdvi_w64(a, AMDVI_REG_CONTROL, ctrl);
}

size_t amdvi_op_faults(struct iommu *io, struct iommu_fault *out, size_t max, bool *overflow)
{
	static char why[8][80]; /* the records' words, valid until they are read again */
	struct amdvi *a = container_of(io, struct amdvi, io);
	*overflow = false;
	if (!io->taken)
		return 0;
	uint64_t tail = amdvi_r64(a, AMDVI_REG_EVTLOG_TAIL), status = amdvi_r64(a, AMDVI_REG_STATUS);
	if (tail == ~0ull || status == ~0ull)
		return 0;
	tail &= AMDVI_PTR_MASK;
	if (tail >= AMDVI_RING_BYTES) { /* beyond the log we gave it */
		a->events_dropped++;
		tail = a->evt_head;
		*overflow = true;
	}
	size_t n = 0;
	while (a->evt_head != tail) {
		volatile const uint64_t *e = a->evtlog + a->evt_head / 8;
		uint64_t lo = e[0], hi = e[1];
		if (n < max)
			out[n] = decode(lo, hi, why[n % 8], sizeof(why[0])), n++;
		else
			*overflow = true;
		a->evt_head = (a->evt_head + AMDVI_EVT_SIZE) % AMDVI_RING_BYTES;
	}
	amdvi_w64(a, AMDVI_REG_EVTLOG_HEAD, a->evt_head);
	/* the next event may interrupt again once EventLogInt is clear */
	if (status & AMDVI_STATUS_EVENT_LOG_INT)
		amdvi_w64(a, AMDVI_REG_STATUS, AMDVI_STATUS_EVENT_LOG_INT);
	if (status & AMDVI_STATUS_EVENT_OVERFLOW) {
		*overflow = true;
		restart_log(a);
	}
	return n;
}

static void unit_irq(void *ctx)
{
	struct amdvi *a = ctx;
	a->io.irq_tsc = rdtsc();
	a->io.irq_count++;
}

void amdvi_irq_setup(struct amdvi *a)
{
	a->vector = -1;
	a->io.irq = false;
	const char *why = "the unit's PCI function and its MSI capability are not reachable";
	if (a->found.msi_valid && platform->irq_install)
		a->vector = platform->irq_install(unit_irq, a, &a->apic_id, &why);
	else if (!platform->irq_install)
		why = "the platform installs no interrupt handlers";
	if (a->vector < 0) {
		printf("    %s: no event-log interrupt (%s); events are polled\n", a->io.name, why ? why : "?");
		return;
	}
	/* one message (MME 0), physical destination, fixed delivery */
	amdvi_msi_write(a, (a->found.msi_ctrl & ~0x70) | AMDVI_MSI_CTRL_EN, AMDVI_MSI_ADDR(a->apic_id), 0,
			(uint16_t)a->vector);
	amdvi_w64(a, AMDVI_REG_CONTROL, amdvi_r64(a, AMDVI_REG_CONTROL) | AMDVI_CTRL_EVENT_INT_EN);
	a->io.irq = true;
}

void amdvi_irq_teardown(struct amdvi *a)
{
	if (a->vector < 0)
		return;
	amdvi_w64(a, AMDVI_REG_CONTROL,
		  amdvi_r64(a, AMDVI_REG_CONTROL) & ~(AMDVI_CTRL_EVENT_INT_EN | AMDVI_CTRL_COM_WAIT_INT_EN));
	amdvi_msi_write(a, a->found.msi_ctrl & ~AMDVI_MSI_CTRL_EN, a->found.msi_lo, a->found.msi_hi, a->found.msi_data);
	if (platform->irq_remove) {
		/* a message already on its way still finds its handler */
		platform->stall_us(1000);
		platform->irq_remove(a->vector);
	}
	a->vector = -1;
	a->io.irq = false;
}
