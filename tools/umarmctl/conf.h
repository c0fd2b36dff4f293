/* SPDX-License-Identifier: GPL-2.0-or-later
 * umarmctl - manage User-Mode Linux instances
 *
 * conf.h - instance configuration, see umarm.conf(5)
 */

#ifndef UMARM_CONF_H
#define UMARM_CONF_H

#include <stddef.h>
#include <stdint.h>

#include "util.h"

#define CONF_MAX_DISKS		16	/* ubda..ubdp: UML's MAX_DEV */
#define CONF_MAX_PORTS		32
#define CONF_MAX_READY		4
#define CONF_MAX_USB		8
#define CONF_MAX_SIZE		(64 * 1024)
#define CONF_LINE_MAX		4096
#define CONF_VALUE_MAX		1024

enum conf_net {
	NET_NONE,
	NET_PASST,
};

enum conf_net_backend {
	NETB_AUTO,		/* vhost-user if passt has it, else relay */
	NETB_VHOST_USER,
	NETB_RELAY,
};

enum conf_exec {
	EXEC_NONE,
	EXEC_CONSOLE,		/* a root shell runs on the console (con0) */
	EXEC_DEBUG_SHELL,	/* systemd's debug shell on tty9 (con9) */
};

/**
 * struct conf_disk - one ubd device
 * @file:	image (or COW overlay) file, relative to the state directory
 * @base:	backing file of a COW overlay, empty for a plain image
 * @set:	slot in use
 */
struct conf_disk {
	char file[CONF_VALUE_MAX];
	char base[CONF_VALUE_MAX];
	int set;
};

/**
 * struct conf_port - a forwarded port, host side to guest side
 * @udp:	UDP instead of TCP
 * @addr:	host address to bind, empty for any
 * @host:	host port
 * @guest:	guest port
 */
struct conf_port {
	int udp;
	char addr[64];
	unsigned int host;
	unsigned int guest;
};

/**
 * struct conf - parsed instance configuration
 */
struct conf {
	char image[CONF_VALUE_MAX];
	char flavour[8];
	uint64_t memory;
	unsigned int cpus;
	char kernel[CONF_VALUE_MAX];
	struct conf_disk disk[CONF_MAX_DISKS];
	enum conf_net net;
	enum conf_net_backend net_backend;
	struct conf_port port[CONF_MAX_PORTS];
	int nports;
	char ready[CONF_MAX_READY][128];
	int nready;
	unsigned int ready_timeout;
	unsigned int stop_timeout;
	char cmdline[CONF_VALUE_MAX];
	char usb[CONF_MAX_USB][32];
	int nusb;
	enum conf_exec exec;
};

/**
 * struct conf_error - where and why parsing failed
 * @line:	1-based line number, 0 if not line-specific
 * @msg:	what is wrong
 */
struct conf_error {
	int line;
	char msg[256];
};

void conf_defaults(struct conf *c);
int conf_parse(struct conf *c, const char *text, size_t len,
	       struct conf_error *e);
int conf_format(const struct conf *c, char *buf, size_t len);
int conf_port_parse(const char *s, struct conf_port *p);
int conf_disk_parse(const char *s, struct conf_disk *d);
const char *conf_net_name(const struct conf *c);

#endif /* UMARM_CONF_H */
