/* `firmware`: the UEFI services and protocols the monitor uses, as the
 * firmware under it offers them (platform->firmware_services), each
 * missing one with what the monitor does without it; and one record
 * (info, what firmware-services) naming each by its key, for a lab to
 * tell one firmware's gaps from another's. */
#include "firmware.h"

#include <stdio.h>

#include "core/base/json.h"
#include "core/base/platform.h"
#include "core/base/wrap.h"
#include "results.h"

#define MAX_SERVICES 24

static size_t count_absent(const struct platform_service *s, size_t n)
{
	size_t k = 0;
	for (size_t i = 0; i < n; i++)
		k += !s[i].present;
	return k;
}

bool firmware_print(void)
{
	if (!platform->firmware_services) {
		printf("  not under firmware (%s): no UEFI service to probe\n", platform->name);
		return false;
	}
	struct platform_service s[MAX_SERVICES];
	size_t n = platform->firmware_services(s, MAX_SERVICES), missing = 0;
	char buf[RECORD_MAX];
	struct json j;
	record_begin(&j, buf, sizeof(buf), "info");
	json_str(&j, "what", "firmware-services");
	json_str(&j, "firmware", platform->name);
	printf("  %s\n", platform->name);
	for (size_t i = 0; i < n; i++) {
		printf("  %-46s %s%s%s%s\n", s[i].name,
		       s[i].present  ? "yes"
		       : s[i].needed ? "NO"
				     : "no, not needed here",
		       s[i].detail[0] ? " (" : "", s[i].detail, s[i].detail[0] ? ")" : "");
		if (!s[i].present && s[i].needed) {
			missing++;
			printf("      ");
			table_wrapf(6, "without it: %s", s[i].without);
		}
		json_bool(&j, s[i].key, s[i].present);
	}
	json_u64(&j, "missing", missing);
	record_emit(&j);
	printf("  %zu of %zu present; %zu needed here missing\n", n - count_absent(s, n), n, missing);
	return true;
}
