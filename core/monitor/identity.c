/* Which machine this is (SMBIOS), and what follows from it (identity.h). */
#include "identity.h"

#include <stdio.h>

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
