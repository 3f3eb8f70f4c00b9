/* Which machine the monitor runs on, from SMBIOS, and what follows from
 * it: the plan iommon-<product>.cfg before iommon.cfg (one stick serves a
 * mixed rack), and results in a folder named by the serial number, else
 * the product. */
#ifndef IOMMON_IDENTITY_H
#define IOMMON_IDENTITY_H

#include "core/tables/smbios.h"

struct identity {
	struct smbios smbios;
	char config[16 + SMBIOS_NAME_MAX]; /* the plan's file, or "options" */
	char config_why[120];		   /* why that file */
};

/* Reads SMBIOS through the platform (its problems printed), sets the
 * results folder, and picks the plan file. */
void identity_read(struct identity *id);

/* The `platform` info record's SMBIOS fields, under the names the README
 * gives: the version word, and every field once the table was walked. */
struct json;
void identity_json(struct json *j, const struct smbios *s);

#endif
