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
#define CONF_MAX_SHARES		1024
#define CONF_SHARE_POOL		(256 * 1024)	/* their names and paths */
#define CONF_SHARE_NAME_MAX	32	/* virtio-fs tags take 36 bytes */
/* 1024 shares of long paths, and the rest */
#define CONF_MAX_SIZE		(CONF_SHARE_POOL + 64 * 1024)
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

enum conf_share_fs {
	SHARE_HOSTFS,		/* UML's hostfs, under the exchange directory */
	SHARE_VIRTIOFS,		/* virtiofsd over vhost-user (virtio_uml) */
};

/**
 * struct conf_share - a host directory offered to the guest
 * @name:	offset in share_pool: the share's name (its mount point
 *		under the exchange directory, its virtio-fs tag)
 * @host:	offset: absolute host directory
 * @guest:	offset: absolute guest directory it is mounted on
 * @ro:		read-only, on the host side too
 * @fs:		transport
 *
 * Offsets, not pointers, so that a struct conf stays a plain value.
 */
struct conf_share {
	unsigned int name, host, guest;
	int ro;
	enum conf_share_fs fs;
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
	struct conf_share share[CONF_MAX_SHARES];
	int nshares;
	char share_pool[CONF_SHARE_POOL];
	size_t share_pool_used;
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
int conf_share_add(struct conf *c, const char *name, const char *host,
		   const char *guest, int ro, enum conf_share_fs fs,
		   const char **why);
int conf_share_find(const struct conf *c, const char *name);
void conf_share_del(struct conf *c, int i);
const char *conf_share_fs_name(enum conf_share_fs fs);
int conf_hostfs_shares(const struct conf *c);

/**
 * conf_str() - a string of the share pool
 * @c:		configuration
 * @off:	offset, from struct conf_share
 *
 * Return: the string
 */
static inline const char *conf_str(const struct conf *c, unsigned int off)
{
	return c->share_pool + off;
}

#endif /* UMARM_CONF_H */
