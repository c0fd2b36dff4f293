/* SPDX-License-Identifier: GPL-2.0-or-later
 * umarmctl - manage User-Mode Linux instances
 *
 * nif.h - network interfaces of a running instance: the runtime "net" file
 */

#ifndef UMARM_NIF_H
#define UMARM_NIF_H

#include <stddef.h>
#include <sys/types.h>

#include "conf.h"
#include "paths.h"

#define NIF_MAX		8	/* net0 (from boot) and net1..net7 */
#define NIF_PORTS_LEN	512

/**
 * struct nif - one network interface of a running instance
 * @id:		N of netN: 0 is the one from boot, hot-plugged ones count up
 * @backend:	"vhost-user" or "relay"
 * @passt:	pid of its passt, 0 if it exited
 * @plat:	virtio-uml platform device id in the guest, -1 for the relay
 * @hotplug:	added with "umarmctl net add" (not from the configuration)
 * @ports:	forwards, comma-separated "[tcp:|udp:][ADDR:]HOST:GUEST",
 *		empty for none
 * @sock:	vhost-user socket, empty for the relay
 */
struct nif {
	unsigned int id;
	char backend[16];
	pid_t passt;
	int plat;
	int hotplug;
	char ports[NIF_PORTS_LEN];
	char sock[PATH_LEN];
};

int nif_format(const struct nif *n, char *buf, size_t len);
int nif_parse(const char *line, struct nif *n);
int nif_ports_parse(const char *list, struct conf_port *p, int max);
int nif_id_parse(const char *s, unsigned int *id);
int nif_ports_format(const struct conf_port *p, int n, char *buf,
		     size_t len);

#endif /* UMARM_NIF_H */
