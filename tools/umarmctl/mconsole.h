/* SPDX-License-Identifier: GPL-2.0-or-later
 * umarmctl - manage User-Mode Linux instances
 *
 * mconsole.h - client of UML's management console
 */

#ifndef UMARM_MCONSOLE_H
#define UMARM_MCONSOLE_H

#include <stddef.h>
#include <stdint.h>

/* From arch/um/drivers/mconsole.h (Linux 7.2), host byte order */
#define MC_MAGIC	0xcafebabe
#define MC_VERSION	2
#define MC_MAX_DATA	512

enum mc_notify_type {
	MC_NOTIFY_SOCKET	= 0,	/* mconsole is up: data = its path */
	MC_NOTIFY_PANIC		= 1,	/* data = panic message */
	MC_NOTIFY_HANG		= 2,
	MC_NOTIFY_USER		= 3,	/* guest wrote to /proc/mconsole */
};

struct mc_request {
	uint32_t magic;
	uint32_t version;
	uint32_t len;
	char data[MC_MAX_DATA];
};

struct mc_reply {
	uint32_t err;
	uint32_t more;
	uint32_t len;
	char data[MC_MAX_DATA];
};

struct mc_notify {
	uint32_t magic;
	uint32_t version;
	uint32_t type;
	uint32_t len;
	char data[MC_MAX_DATA];
};

#define MC_REPLY_HDR	12	/* err, more, len */
#define MC_NOTIFY_HDR	16	/* magic, version, type, len */

int mc_build_request(struct mc_request *req, const char *cmd);
int mc_parse_reply(const void *buf, size_t n, uint32_t *err, uint32_t *more,
		   const char **data, size_t *len);
int mc_parse_notify(const void *buf, size_t n, uint32_t *type,
		    const char **data, size_t *len);
int mc_command(const char *sock, const char *cmd, char *out, size_t outlen,
	       int timeout_ms, int *uml_err);
int mc_bind_notify(const char *path);

#endif /* UMARM_MCONSOLE_H */
