// SPDX-License-Identifier: GPL-2.0-or-later
/* umarmctl - manage User-Mode Linux instances
 *
 * confjson.c - an instance's configuration as JSON, for "config -o json"
 *		and "share list -o json"
 *
 * The same conventions as list and status (show.c): numbers are numbers,
 * sizes in bytes, strings go through json_str() (any byte the file holds
 * comes out as valid JSON), and what the file leaves unset is null.
 */

#include <stdio.h>

#include "conf.h"
#include "confjson.h"
#include "text.h"

/**
 * json_str_or_null() - a string, or null where it is empty (unset)
 * @s:		the value
 */
static void json_str_or_null(const char *s)
{
	if (*s)
		json_str(s);
	else
		printf("null");
}

/**
 * conf_share_json() - one share as a JSON object
 * @c:		configuration
 * @i:		index of the share
 */
void conf_share_json(const struct conf *c, int i)
{
	const struct conf_share *sh = &c->share[i];

	printf("{\"name\":");
	json_str(conf_str(c, sh->name));
	printf(",\"host\":");
	json_str(conf_str(c, sh->host));
	printf(",\"guest\":");
	json_str(conf_str(c, sh->guest));
	printf(",\"ro\":%s,\"transport\":\"%s\"}", sh->ro ? "true" : "false",
	       conf_share_fs_name(sh->fs));
}

/**
 * disks_json() - the "disks" member: one object per ubd device in use
 * @c:		configuration
 *
 * The file as the configuration names it (relative to the state
 * directory, or absolute); "base" is the image a copy-on-write overlay
 * is over, null for a plain image.
 */
static void disks_json(const struct conf *c)
{
	int d, n = 0;

	printf(",\"disks\":[");
	for (d = 0; d < CONF_MAX_DISKS; d++) {
		if (!c->disk[d].set)
			continue;
		printf("%s{\"disk\":%d,\"device\":\"/dev/ubd%c\",\"file\":",
		       n++ ? "," : "", d, 'a' + d);
		json_str(c->disk[d].file);
		printf(",\"base\":");
		json_str_or_null(c->disk[d].base);
		printf("}");
	}
	printf("]");
}

/**
 * ports_json() - the "ports" member: forwarded ports
 * @c:		configuration
 */
static void ports_json(const struct conf *c)
{
	int i;

	printf(",\"ports\":[");
	for (i = 0; i < c->nports; i++) {
		const struct conf_port *p = &c->port[i];

		printf("%s{\"protocol\":\"%s\",\"address\":", i ? "," : "",
		       p->udp ? "udp" : "tcp");
		json_str_or_null(p->addr);
		printf(",\"host\":%u,\"guest\":%u}", p->host, p->guest);
	}
	printf("]");
}

/**
 * strings_json() - a member that is an array of strings
 * @key:	its name
 * @v:		the strings, each @stride bytes from the last
 * @stride:	size of one
 * @n:		how many
 */
static void strings_json(const char *key, const char *v, size_t stride,
			 int n)
{
	int i;

	printf(",\"%s\":[", key);
	for (i = 0; i < n; i++, v += stride) {
		if (i)
			putchar(',');
		json_str(v);
	}
	printf("]");
}

/**
 * conf_json() - a configuration as one JSON object, with a newline
 * @c:		configuration
 * @name:	the instance's name
 * @file:	its configuration file
 * @flavour:	the flavour it runs with (conf_flavour(): the host's
 *		default where the file names none), NULL for null
 *
 * The keys of umarm.conf(5), '-' as '_'; "network_backend" and "exec"
 * as the file spells them.
 */
void conf_json(const struct conf *c, const char *name, const char *file,
	       const char *flavour)
{
	static const char *netb[] = { "auto", "vhost-user", "relay" };
	static const char *exec[] = { "none", "console", "debug-shell" };
	int i;

	printf("{\"name\":");
	json_str(name);
	printf(",\"file\":");
	json_str(file);
	printf(",\"image\":");
	json_str_or_null(c->image);
	printf(",\"flavour\":");
	json_str_or_null(flavour ? flavour : "");
	printf(",\"memory\":%llu,\"cpus\":%u,\"kernel\":",
	       (unsigned long long)c->memory, c->cpus);
	json_str_or_null(c->kernel);
	disks_json(c);
	printf(",\"network\":\"%s\",\"network_backend\":\"%s\"",
	       conf_net_name(c), netb[c->net_backend]);
	ports_json(c);
	strings_json("ready", c->ready[0], sizeof(c->ready[0]), c->nready);
	printf(",\"ready_timeout\":%u,\"stop_timeout\":%u,\"cmdline\":",
	       c->ready_timeout, c->stop_timeout);
	json_str_or_null(c->cmdline);
	strings_json("usb", c->usb[0], sizeof(c->usb[0]), c->nusb);
	printf(",\"exec\":\"%s\",\"shares\":[", exec[c->exec]);
	for (i = 0; i < c->nshares; i++) {
		if (i)
			putchar(',');
		conf_share_json(c, i);
	}
	printf("]}\n");
}
