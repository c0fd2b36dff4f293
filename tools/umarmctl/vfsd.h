/* SPDX-License-Identifier: GPL-2.0-or-later
 * umarmctl - manage User-Mode Linux instances
 *
 * vfsd.h - virtio-fs shares: virtiofsd over vhost-user
 */

#ifndef UMARM_VFSD_H
#define UMARM_VFSD_H

#include <stddef.h>
#include <sys/types.h>

#include "conf.h"
#include "paths.h"

#define VFSD_MAX	16	/* virtio-fs shares of one instance */

/**
 * struct vfsd - the virtiofsd of one share
 * @name:	share name, the virtio-fs tag
 * @host:	shared directory
 * @ro:		--readonly
 * @sock:	its vhost-user socket
 * @pid:	its pid, 0 if the slot is free
 * @plat:	virtio-uml platform device id
 */
struct vfsd {
	char name[CONF_SHARE_NAME_MAX + 1];
	char host[CONF_VALUE_MAX];
	int ro;
	char sock[PATH_LEN];
	pid_t pid;
	unsigned int plat;
};

struct sup;

int vfsd_start_all(struct sup *s);
int vfsd_uml_arg(const struct vfsd *v, char *buf, size_t len);
int vfsd_hot(struct sup *s, const struct conf *c, int i, int add,
	     char *why, size_t len);
void vfsd_reaped(struct sup *s, pid_t pid);
void vfsd_stop(struct vfsd *v);
void vfsd_stop_all(struct sup *s);

#endif /* UMARM_VFSD_H */
