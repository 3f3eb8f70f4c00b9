#include "verdict.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/base/macros.h"
#include "core/base/number.h"
#include "report.h"
#include "results.h"

#define TESTED_MAX 32
#define PENDING_MAX 32 /* price.models works on every model in one test */
#define REQUIRE_MAX 16

struct unit_seen {
	char backend[16], name[16];
	bool model;
	unsigned plan; /* the plan it was last tested in (plan.seq) */
};

enum require_kind { REQ_IOMMU, REQ_UNIT, REQ_DEVICE, REQ_NOTHING };

static struct {
	bool in_test;
	struct unit_seen pending[PENDING_MAX];
	size_t npending;
	long pending_dev[PENDING_MAX]; /* bdf_key of the test's devices */
	size_t npending_dev;
	struct unit_seen units[TESTED_MAX];
	size_t nunits;
	struct {
		long key;
		unsigned plan;
	} devices[TESTED_MAX];
	size_t ndevices;
	struct {
		unsigned seq; /* plans begun since boot: 0 before the first */
		struct tally base;
		unsigned errors_base;
	} plan;
	struct {
		enum require_kind kind;
		char arg[24];
		long dev; /* REQ_DEVICE: its bdf_key */
	} req[REQUIRE_MAX];
	size_t nreq;
	bool machine_known; /* verdict_machine_units was told */
	size_t found, refused;
	char tables[64];
} vs;

const char *plan_verdict_words(enum plan_verdict v)
{
	static const char *const w[] = { "pass", "fail", "plan could not run", "inconclusive" };
	return (unsigned)v < ARRAY_SIZE(w) ? w[v] : "?";
}

const char *plan_verdict_name(enum plan_verdict v)
{
	static const char *const w[] = { "pass", "fail", "error", "inconclusive" };
	return (unsigned)v < ARRAY_SIZE(w) ? w[v] : "?";
}

/* "0000:01:00.0" or "01:00.0" as one number; -1 with *why when it is
 * neither (parse_bdf_why's words) */
static long bdf_key(const char *s, const char **why)
{
	unsigned seg, bus, dev, fn;
	if ((*why = parse_bdf_why(s, &seg, &bus, &dev, &fn)) != NULL)
		return -1;
	return (long)seg << 16 | bus << 8 | dev << 3 | fn;
}

void tested_begin(void)
{
	vs.in_test = true;
	vs.npending = vs.npending_dev = 0;
}

void test_uses_unit(const char *backend, const char *name, bool model)
{
	if (!vs.in_test || vs.npending == PENDING_MAX)
		return;
	for (size_t i = 0; i < vs.npending; i++) /* a case that takes it again: once */
		if (strcmp(vs.pending[i].name, name ? name : "?") == 0 && vs.pending[i].model == model)
			return;
	struct unit_seen *u = &vs.pending[vs.npending++];
	snprintf(u->backend, sizeof(u->backend), "%s", backend ? backend : "?");
	snprintf(u->name, sizeof(u->name), "%s", name ? name : "?");
	u->model = model;
}

void tested_device(const char *bdf)
{
	const char *why;
	long k = bdf ? bdf_key(bdf, &why) : -1;
	for (size_t i = 0; k >= 0 && i < vs.npending_dev; i++)
		if (vs.pending_dev[i] == k)
			return;
	if (vs.in_test && k >= 0 && vs.npending_dev < PENDING_MAX)
		vs.pending_dev[vs.npending_dev++] = k;
}

void tested_end(enum verdict v)
{
	bool counts = v == VERDICT_PASS || v == VERDICT_FAIL || v == VERDICT_KNOWN;
	vs.in_test = false;
	for (size_t i = 0; counts && i < vs.npending; i++) {
		const struct unit_seen *p = &vs.pending[i];
		size_t j = 0;
		while (j < vs.nunits &&
		       !(strcmp(vs.units[j].name, p->name) == 0 && strcmp(vs.units[j].backend, p->backend) == 0 &&
			 vs.units[j].model == p->model))
			j++;
		if (j == vs.nunits && vs.nunits < TESTED_MAX)
			vs.units[vs.nunits++] = *p;
		if (j < vs.nunits)
			vs.units[j].plan = vs.plan.seq;
	}
	for (size_t i = 0; counts && i < vs.npending_dev; i++) {
		size_t j = 0;
		while (j < vs.ndevices && vs.devices[j].key != vs.pending_dev[i])
			j++;
		if (j == vs.ndevices && vs.ndevices < TESTED_MAX)
			vs.devices[vs.ndevices++].key = vs.pending_dev[i];
		if (j < vs.ndevices)
			vs.devices[j].plan = vs.plan.seq;
	}
	vs.npending = vs.npending_dev = 0;
}

void verdict_machine_units(size_t found, size_t refused, const char *tables)
{
	vs.machine_known = true;
	vs.found = found;
	vs.refused = refused;
	snprintf(vs.tables, sizeof(vs.tables), "%s", tables ? tables : "");
}

void require_clear(void)
{
	vs.nreq = 0;
}

bool require_add(int argc, char **argv, char *err, size_t cap)
{
	static const char usage[] = "usage: require iommu | unit KIND|NAME | device BDF | nothing | clear";
	if (argc == 1 && strcmp(argv[0], "clear") == 0) {
		require_clear();
		return true;
	}
	enum require_kind k;
	const char *arg = "";
	long dev = -1;
	if (argc == 1 && strcmp(argv[0], "iommu") == 0)
		k = REQ_IOMMU;
	else if (argc == 1 && strcmp(argv[0], "nothing") == 0)
		k = REQ_NOTHING;
	else if (argc == 2 && strcmp(argv[0], "unit") == 0)
		k = REQ_UNIT, arg = argv[1];
	else if (argc == 2 && strcmp(argv[0], "device") == 0) {
		k = REQ_DEVICE, arg = argv[1];
		const char *why;
		if ((dev = bdf_key(arg, &why)) < 0) {
			snprintf(err, cap, "require device '%.40s': %s", arg, why);
			return false;
		}
	} else {
		snprintf(err, cap, "%s", usage);
		return false;
	}
	if (strlen(arg) >= sizeof(vs.req[0].arg)) {
		snprintf(err, cap, "require %s '%.40s...': longer than %zu characters", argv[0], arg,
			 sizeof(vs.req[0].arg) - 1);
		return false;
	}
	for (size_t i = 0; i < vs.nreq; i++)
		if (vs.req[i].kind == k && strcmp(vs.req[i].arg, arg) == 0)
			return true; /* said twice: once is enough */
	if (vs.nreq == REQUIRE_MAX) {
		snprintf(err, cap, "require: at most %d requirements", REQUIRE_MAX);
		return false;
	}
	vs.req[vs.nreq].kind = k;
	snprintf(vs.req[vs.nreq].arg, sizeof(vs.req[0].arg), "%s", arg);
	vs.req[vs.nreq].dev = dev;
	vs.nreq++;
	return true;
}

void require_text(char *out, size_t cap)
{
	static const char *const words[] = { "iommu", "unit", "device", "nothing" };
	size_t k = 0;
	out[0] = 0;
	for (size_t i = 0; i < vs.nreq && k < cap; i++)
		k += (size_t)snprintf(out + k, cap - k, "%s%s%s%s", i ? "; " : "", words[vs.req[i].kind],
				      vs.req[i].arg[0] ? " " : "", vs.req[i].arg);
}

/* Was unit or device entry `plan` tested within the scope that begins
 * with plan `since` (0: since boot)? */
static bool in_scope(unsigned plan, unsigned since)
{
	return plan >= since;
}

/* The units tested in scope, "dmar0 (vtd), calgary0 (calgary, model)",
 * ending "and N more" where the rest would not fit whole */
static void units_text(char *out, size_t cap, unsigned since)
{
	size_t k = 0, more = 0;
	out[0] = 0;
	for (size_t i = 0; i < vs.nunits; i++) {
		if (!in_scope(vs.units[i].plan, since))
			continue;
		char one[48];
		int w = snprintf(one, sizeof(one), "%s%s (%s%s)", k ? ", " : "", vs.units[i].name, vs.units[i].backend,
				 vs.units[i].model ? ", model" : "");
		if (more || k + (size_t)w + 16 >= cap) /* room kept for ", and 99 more" */
			more++;
		else
			k += (size_t)snprintf(out + k, cap - k, "%s", one);
	}
	if (more)
		snprintf(out + k, cap - k, ", and %zu more", more);
	if (!out[0])
		snprintf(out, cap, "none");
}

/* Why no unit was tested, in the machine's terms */
static void no_unit_why(char *why, size_t cap, const char *lead)
{
	if (!vs.machine_known)
		snprintf(why, cap, "%s: no test that worked on a unit passed or failed", lead);
	else if (vs.found == 0)
		snprintf(why, cap, "%s: the machine has none (%s)", lead, vs.tables[0] ? vs.tables : "no table");
	else if (vs.refused == vs.found)
		snprintf(why, cap, "%s: %zu found (%s), every one refused", lead, vs.found, vs.tables);
	else
		snprintf(why, cap, "%s: %zu found (%s), no test that worked on one passed or failed", lead, vs.found,
			 vs.tables);
}

/* The first requirement unmet in scope, said in `why`; NULL when all are */
static const char *unmet(unsigned since, char *why, size_t cap)
{
	bool nothing = false;
	size_t units = 0, machine = 0, devices = 0;
	for (size_t i = 0; i < vs.nreq; i++)
		nothing |= vs.req[i].kind == REQ_NOTHING;
	for (size_t j = 0; j < vs.nunits; j++)
		if (in_scope(vs.units[j].plan, since))
			units++, machine += !vs.units[j].model;
	for (size_t j = 0; j < vs.ndevices; j++)
		devices += in_scope(vs.devices[j].plan, since);
	if (!nothing && units == 0) {
		no_unit_why(why, cap, "no IOMMU unit was tested");
		return why;
	}
	char seen[160];
	units_text(seen, sizeof(seen), since);
	for (size_t i = 0; i < vs.nreq; i++) {
		const char *arg = vs.req[i].arg;
		bool met = false;
		switch (vs.req[i].kind) {
		case REQ_NOTHING:
			continue;
		case REQ_IOMMU:
			if (machine)
				continue;
			if (units)
				snprintf(why, cap, "require iommu: none of the machine's units was tested (tested: %s)",
					 seen);
			else
				no_unit_why(why, cap, "require iommu: none of the machine's units was tested");
			return why;
		case REQ_UNIT:
			for (size_t j = 0; j < vs.nunits; j++)
				met |= in_scope(vs.units[j].plan, since) &&
				       (strcmp(vs.units[j].backend, arg) == 0 || strcmp(vs.units[j].name, arg) == 0);
			if (met)
				continue;
			snprintf(why, cap, "require unit %s: no %s unit was tested (tested: %s)", arg, arg, seen);
			return why;
		case REQ_DEVICE:
			for (size_t j = 0; j < vs.ndevices; j++)
				met |= in_scope(vs.devices[j].plan, since) && vs.devices[j].key == vs.req[i].dev;
			if (met)
				continue;
			snprintf(why, cap,
				 "require device %s: no test that used it passed or failed (%zu device%s did)", arg,
				 devices, devices == 1 ? "" : "s");
			return why;
		}
	}
	return NULL;
}

/* Tally `t` judged in scope: NULL, or why it is inconclusive */
static const char *judge(struct tally t, unsigned since, char *why, size_t cap)
{
	if (t.passed + t.failed + t.known == 0) {
		if (t.skipped)
			snprintf(why, cap, "nothing ran: every test that applies here skipped (%u)", t.skipped);
		else
			snprintf(why, cap, "nothing ran: no test applies here (%u not applicable)", t.na);
		return why;
	}
	return unmet(since, why, cap);
}

const char *verdict_inconclusive(struct tally t, char *why, size_t cap)
{
	return judge(t, vs.plan.seq, why, cap);
}

static enum plan_verdict verdict_of(struct tally t, unsigned errors, bool results_failed, unsigned since, char *why,
				    size_t cap)
{
	why[0] = 0;
	if (errors || results_failed)
		return PLAN_NOT_RUN;
	if (t.passed + t.failed + t.skipped + t.known + t.na == 0) {
		snprintf(why, cap, "no test was selected");
		return PLAN_NOT_RUN;
	}
	if (t.failed)
		return PLAN_FAIL;
	return judge(t, since, why, cap) ? PLAN_INCONCLUSIVE : PLAN_PASS;
}

enum plan_verdict session_verdict(struct tally t, unsigned plan_errors, bool results_failed, char *why, size_t cap)
{
	return verdict_of(t, plan_errors, results_failed, 0, why, cap);
}

void verdict_plan_begin(struct tally session, unsigned plan_errors)
{
	vs.plan.seq++;
	vs.plan.base = session;
	vs.plan.errors_base = plan_errors;
}

enum plan_verdict plan_verdict_now(struct tally session, unsigned plan_errors, bool results_failed, char *why,
				   size_t cap)
{
	return verdict_of(tally_add(session, vs.plan.base, -1), plan_errors - vs.plan.errors_base, results_failed,
			  vs.plan.seq, why, cap);
}

enum plan_verdict verdict_plan_end(const char *plan, struct tally session, unsigned plan_errors, bool results_failed)
{
	char why[DETAIL_MAX], units[160];
	enum plan_verdict v = plan_verdict_now(session, plan_errors, results_failed, why, sizeof(why));
	struct tally t = tally_add(session, vs.plan.base, -1);
	size_t devices = 0;
	for (size_t i = 0; i < vs.ndevices; i++)
		devices += in_scope(vs.devices[i].plan, vs.plan.seq);
	units_text(units, sizeof(units), vs.plan.seq);
	char buf[RECORD_MAX];
	struct json j;
	record_begin(&j, buf, sizeof(buf), "verdict");
	json_str(&j, "plan", plan);
	json_str(&j, "verdict", plan_verdict_name(v));
	if (why[0])
		json_str(&j, "why", why);
	else if (v == PLAN_NOT_RUN)
		json_str(&j, "why", plan_errors != vs.plan.errors_base ? "plan errors" : "results not saved whole");
	json_u64(&j, "passed", t.passed);
	json_u64(&j, "failed", t.failed);
	json_u64(&j, "skipped", t.skipped);
	json_u64(&j, "known", t.known);
	json_u64(&j, "not_applicable", t.na);
	json_str(&j, "units", units);
	json_u64(&j, "devices", devices);
	record_emit(&j);
	return v;
}
