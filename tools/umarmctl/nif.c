// SPDX-License-Identifier: GPL-2.0-or-later
/* umarmctl - manage User-Mode Linux instances
 *
 * nif.c - network interfaces of a running instance: the runtime "net" file
 *
 * The supervisor describes the interfaces it runs passt for in
 * RUNDIR/NAME/net, one line each, rewritten (write and rename) whenever
 * one is hot-plugged or removed:
 *
 *	ID BACKEND PASST DEVICE ORIGIN PORTS SOCKET
 *
 * e.g. "net1 vhost-user 4242 virtio-uml.1 hotplug tcp:8080:80
 * /run/umarm/a/net1.sock".  DEVICE is the guest's platform device
 * (/sys/bus/platform/devices/virtio-uml.N), "vec0" for the relay; PORTS
 * is comma-separated, "-" for none; SOCKET is the rest of the line, "-"
 * for the relay.
 */

#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nif.h"
#include "util.h"

/**
 * nif_format() - one line of the net file, with its newline
 * @n:		interface
 * @buf:	output
 * @len:	size of @buf
 *
 * Return: 0 on success, -ENOSPC if @buf is too small
 */
int nif_format(const struct nif *n, char *buf, size_t len)
{
	char dev[32];
	int r;

	if (n->plat >= 0)
		snprintf(dev, sizeof(dev), "virtio-uml.%d", n->plat);
	else
		snprintf(dev, sizeof(dev), "vec0");
	r = snprintf(buf, len, "net%u %s %d %s %s %s %s\n", n->id, n->backend,
		     (int)n->passt, dev, n->hotplug ? "hotplug" : "boot",
		     *n->ports ? n->ports : "-", *n->sock ? n->sock : "-");
	return r < 0 || (size_t)r >= len ? -ENOSPC : 0;
}

/**
 * nif_id_parse() - parse an interface name, "netN" or "N"
 * @s:		string
 * @id:		N
 *
 * Return: 0 on success, -EINVAL if not an interface of ours
 */
int nif_id_parse(const char *s, unsigned int *id)
{
	unsigned long v;

	if (!strncmp(s, "net", 3))
		s += 3;
	if (parse_uint(s, NIF_MAX - 1, &v))
		return -EINVAL;
	*id = v;
	return 0;
}

/**
 * nif_parse() - parse one line of the net file
 * @line:	line, with or without its newline
 * @n:		result
 *
 * Return: 0 on success, -EINVAL on a malformed line
 */
int nif_parse(const char *line, struct nif *n)
{
	char id[16], dev[32], origin[16], ports[NIF_PORTS_LEN];
	int pid, off = 0;
	size_t l;

	memset(n, 0, sizeof(*n));
	if (sscanf(line, "%15s %15s %d %31s %15s %511s %n", id, n->backend,
		   &pid, dev, origin, ports, &off) != 6 || !off)
		return -EINVAL;
	if (nif_id_parse(id, &n->id) || strncmp(id, "net", 3) || pid < 0)
		return -EINVAL;
	if (strcmp(n->backend, "vhost-user") && strcmp(n->backend, "relay"))
		return -EINVAL;
	n->passt = pid;
	if (!strcmp(dev, "vec0")) {
		n->plat = -1;
	} else {
		unsigned long v;

		if (strncmp(dev, "virtio-uml.", 11) ||
		    parse_uint(dev + 11, 1 << 20, &v))
			return -EINVAL;
		n->plat = v;
	}
	if (!strcmp(origin, "hotplug"))
		n->hotplug = 1;
	else if (strcmp(origin, "boot"))
		return -EINVAL;
	if (strcmp(ports, "-"))
		snprintf(n->ports, sizeof(n->ports), "%s", ports);
	l = strcspn(line + off, "\n");
	if (!l || l >= sizeof(n->sock))
		return -EINVAL;
	if (strncmp(line + off, "-", l)) {
		memcpy(n->sock, line + off, l);
		n->sock[l] = 0;
	}
	return 0;
}

/**
 * nif_ports_parse() - parse a list of forwards
 * @list:	"[tcp:|udp:][ADDR:]HOST:GUEST", separated by commas or blanks
 * @p:		parsed forwards
 * @max:	room in @p
 *
 * Return: number of forwards, -EINVAL on a bad one, -E2BIG if too many
 */
int nif_ports_parse(const char *list, struct conf_port *p, int max)
{
	char buf[NIF_PORTS_LEN], *tok, *save;
	int n = 0;

	if (strlen(list) >= sizeof(buf))
		return -E2BIG;
	strcpy(buf, list);
	for (tok = strtok_r(buf, ", \t", &save); tok;
	     tok = strtok_r(NULL, ", \t", &save)) {
		if (n == max)
			return -E2BIG;
		if (conf_port_parse(tok, &p[n]))
			return -EINVAL;
		n++;
	}
	return n;
}

/**
 * nif_ports_format() - format forwards for the net file
 * @p:		forwards
 * @n:		how many
 * @buf:	output, "tcp:8080:80,udp:127.0.0.1:53:53", empty for none
 * @len:	size of @buf
 *
 * Return: 0 on success, -ENOSPC if @buf is too small
 */
int nif_ports_format(const struct conf_port *p, int n, char *buf,
		     size_t len)
{
	size_t o = 0;
	int i, r;

	if (!len)
		return -ENOSPC;
	*buf = 0;
	for (i = 0; i < n; i++) {
		r = snprintf(buf + o, len - o, "%s%s:%s%s%u:%u", i ? "," : "",
			     p[i].udp ? "udp" : "tcp", p[i].addr,
			     *p[i].addr ? ":" : "", p[i].host, p[i].guest);
		if (r < 0 || (size_t)r >= len - o)
			return -ENOSPC;
		o += r;
	}
	return 0;
}
