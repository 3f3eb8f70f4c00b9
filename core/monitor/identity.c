/* Which machine this is (SMBIOS), and what follows from it (identity.h). */
#include "identity.h"

#include <stdio.h>

#include "core/base/json.h"
#include "core/base/platform.h"
#include "results.h"

static bool first_piece(void *ctx, const void *buf, size_t n)
{
	(void)ctx, (void)buf, (void)n;
	return false;
}

void identity_read(struct identity *id)
{
	smbios_read(&id->smbios, platform->smbios_entry ? platform->smbios_entry(3) : NULL,
		    platform->smbios_entry ? platform->smbios_entry(2) : NULL);
	for (size_t i = 0; i < id->smbios.diag.n; i++)
		printf("%s: %s\n", id->smbios.diag.msg[i].level == DIAG_ERROR ? "error" : "warning",
		       id->smbios.diag.msg[i].text);
	char product[SMBIOS_NAME_MAX + 1], serial[SMBIOS_NAME_MAX + 1];
	bool have_product = smbios_file_name(id->smbios.product, product, sizeof(product));
	if (smbios_file_name(id->smbios.serial, serial, sizeof(serial)))
		results_folder(serial);
	else if (have_product)
		results_folder(product);
	const char *opts = platform->load_options();
	snprintf(id->config, sizeof(id->config), "%s", opts && *opts ? "options" : "iommon.cfg");
	if (opts && *opts)
		return;
	if (!have_product) {
		snprintf(id->config_why, sizeof(id->config_why), "no usable SMBIOS product name");
		return;
	}
	char mine[sizeof(id->config)];
	snprintf(mine, sizeof(mine), "iommon-%s.cfg", product);
	bool absent = true;
	platform->file_stream(mine, first_piece, NULL, &absent);
	if (absent) {
		snprintf(id->config_why, sizeof(id->config_why), "no %s on the boot volume", mine);
		return;
	}
	snprintf(id->config, sizeof(id->config), "%s", mine);
	snprintf(id->config_why, sizeof(id->config_why), "this machine's, for SMBIOS product \"%s\"",
		 id->smbios.product);
}

void identity_json(struct json *j, const struct smbios *s)
{
	char v[16];
	smbios_version(s, v, sizeof(v));
	json_str(j, "smbios", v);
	if (!s->walked)
		return;
	json_str(j, "bios_vendor", s->bios_vendor);
	json_str(j, "bios_version", s->bios_version);
	json_str(j, "bios_date", s->bios_date);
	json_str(j, "system_manufacturer", s->manufacturer);
	json_str(j, "system_product", s->product);
	json_str(j, "system_serial", s->serial);
	json_str(j, "system_uuid", s->uuid);
	json_str(j, "board_manufacturer", s->board_manufacturer);
	json_str(j, "board_product", s->board_product);
	json_str(j, "board_serial", s->board_serial);
	json_str(j, "processor_version", s->processor_version);
	json_u64(j, "smbios_errors", s->diag.errors);
}
