// SPDX-License-Identifier: GPL-2.0-or-later
/* umarmctl - manage User-Mode Linux instances
 *
 * vfsd.c - virtio-fs shares: one virtiofsd per share, over vhost-user
 *
 * A share with 'virtiofs' in its line is served by Debian's virtiofsd
 * (package virtiofsd, /usr/libexec/virtiofsd; UMARM_VIRTIOFSD names
 * another), unprivileged ("--sandbox none": it runs as the instance's
 * account and sees what that account sees; as root "--sandbox chroot"),
 * with extended attributes (--xattr: what virtio-fs is chosen for, with
 * POSIX modes), on RUNDIR/NAME/fs-SHARE.sock.  The device's tag (what the
 * guest mounts) is SHARE, which virtiofsd itself advertises (--tag):
 * virtio_uml reads the device's configuration from the backend
 * (VHOST_USER_GET_CONFIG), where QEMU would fill it in itself; without it
 * the tag reads empty and every mount fails with EINVAL.  The kernel gets it as a virtio_uml
 * device, virtio id 26 (VIRTIO_ID_FS), from the command line at boot
 * ("virtio_uml.device=SOCK:26:ID") or through mconsole "config" when
 * "share add" hot-plugs it, like "net add" does; the guest mounts
 * "-t virtiofs SHARE GUESTDIR".  The guest's kernel needs CONFIG_FUSE_FS
 * and CONFIG_VIRTIO_FS.
 *
 * virtiofsd serves one connection and exits when the kernel closes it;
 * a guest reboot (UML re-executes itself) closes it: the supervisor
 * starts it again for the new kernel, which connects at boot.
 */

#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include "nosetid.h"
#include "sup.h"
#include "child.h"
#include "helpers.h"
#include "host.h"
#include "log.h"
#include "mconsole.h"
#include "net.h"
#include "util.h"
#include "vfsd.h"

#define VIRTIO_ID_FS		26
#define VFSD_SOCK_WAIT_MS	5000

/**
 * vfsd_spawn() - start one virtiofsd and wait for its socket
 * @s:		supervisor
 * @v:		the share's slot: @name, @host and @ro set; @sock, @pid set
 *
 * Return: 0, or negative errno (message printed)
 */
static int vfsd_spawn(struct sup *s, struct vfsd *v)
{
	char sock[PATH_LEN + 16], dir[PATH_LEN + 16], log[PATH_LEN];
	char tag[sizeof(v->name) + 8];
	char *argv[] = { "virtiofsd", sock, dir, tag,
			 geteuid() ? "--sandbox=none" : "--sandbox=chroot",
			 "--xattr", v->ro ? "--readonly" : NULL, NULL };
	uint64_t deadline = boot_ms() + VFSD_SOCK_WAIT_MS;
	pid_t self = getpid();
	struct stat st;
	int fd;

	pathf(v->sock, "%s/" VFSD_SOCK, s->in->run, v->name);
	unlink(v->sock);
	snprintf(sock, sizeof(sock), "--socket-path=%s", v->sock);
	snprintf(dir, sizeof(dir), "--shared-dir=%s", v->host);
	snprintf(tag, sizeof(tag), "--tag=%s", v->name);
	inst_path(s->in, log, 0, VFSD_LOG);
	v->pid = fork();
	if (v->pid < 0)
		return -errno;
	if (!v->pid) {
		child_signals_reset();
		child_die_with(self, SIGTERM);
		fd = open(log, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0600);
		if (fd >= 0) {
			dup2(fd, 1);
			dup2(fd, 2);
		}
		child_umask_restore();
		nosetid_or_exit();
		execv(vfsd_bin(), argv);
		dprintf(2, "umarmctl: exec %s: %s\n", vfsd_bin(),
			strerror(errno));
		_exit(127);
	}
	/* bound is not enough: a connection before listen() is refused */
	while (stat(v->sock, &st) || !S_ISSOCK(st.st_mode) ||
	       !sock_listening(v->sock)) {
		if (waitpid(v->pid, NULL, WNOHANG) == v->pid ||
		    boot_ms() > deadline) {
			err("%s: share %s: virtiofsd did not start; see %s",
			    s->in->name, v->name, log);
			vfsd_stop(v);
			return -EIO;
		}
		sleep_ms(10);
	}
	return 0;
}

/**
 * vfsd_stop() - stop a share's virtiofsd, forget it
 * @v:		its slot
 */
void vfsd_stop(struct vfsd *v)
{
	if (v->pid > 0) {
		kill(v->pid, SIGTERM);
		waitpid(v->pid, NULL, 0);
	}
	if (*v->sock)
		unlink(v->sock);
	memset(v, 0, sizeof(*v));
}

/**
 * vfsd_slot() - a free slot for a share, filled from the configuration
 * @s:		supervisor
 * @c:		configuration
 * @i:		the share
 *
 * Return: the slot, NULL if all VFSD_MAX are taken
 */
static struct vfsd *vfsd_slot(struct sup *s, const struct conf *c, int i)
{
	const struct conf_share *sh = &c->share[i];
	int j;

	for (j = 0; j < VFSD_MAX && s->vfs[j].pid; j++)
		;
	if (j == VFSD_MAX)
		return NULL;
	snprintf(s->vfs[j].name, sizeof(s->vfs[j].name), "%s",
		 conf_str(c, sh->name));
	snprintf(s->vfs[j].host, sizeof(s->vfs[j].host), "%s",
		 conf_str(c, sh->host));
	s->vfs[j].ro = sh->ro;
	return &s->vfs[j];
}

/**
 * vfsd_start_all() - at start: a virtiofsd for every virtio-fs share
 * @s:		supervisor, whose next_plat is set
 *
 * Return: 0, or negative errno (message printed)
 */
int vfsd_start_all(struct sup *s)
{
	int i, rc;

	for (i = 0; i < s->c->nshares; i++) {
		struct vfsd *v;

		if (s->c->share[i].fs != SHARE_VIRTIOFS)
			continue;
		v = vfsd_slot(s, s->c, i);
		if (!v) {
			err("%s: more than %d virtio-fs shares", s->in->name,
			    VFSD_MAX);
			return -ENOSPC;
		}
		rc = vfsd_spawn(s, v);
		if (rc)
			return rc;
		v->plat = s->next_plat++;
	}
	return 0;
}

/**
 * vfsd_uml_arg() - the command line's device for a slot, if in use
 * @v:		slot
 * @buf:	output
 * @len:	size of @buf
 *
 * Return: 1 if written, 0 for a free slot
 */
int vfsd_uml_arg(const struct vfsd *v, char *buf, size_t len)
{
	if (!v->pid)
		return 0;
	snprintf(buf, len, "virtio_uml.device=%s:%d:%u", v->sock,
		 VIRTIO_ID_FS, v->plat);
	return 1;
}

/**
 * vfsd_hot() - hot-plug or unplug a virtio-fs share of a running kernel
 * @s:		supervisor
 * @c:		configuration with the share
 * @i:		its index
 * @add:	plug (1) or unplug (0)
 * @why:	what failed, for the reply
 * @len:	size of @why
 *
 * Return: 0, or negative errno with @why set
 */
int vfsd_hot(struct sup *s, const struct conf *c, int i, int add,
	     char *why, size_t len)
{
	char cmd[PATH_LEN + 64], out[MC_MAX_DATA];
	struct vfsd *v = NULL;
	int j, rc;

	for (j = 0; j < VFSD_MAX && !v; j++)
		if (s->vfs[j].pid &&
		    !strcmp(s->vfs[j].name, conf_str(c, c->share[i].name)))
			v = &s->vfs[j];
	if (!add) {
		if (!v)
			return 0;
		snprintf(cmd, sizeof(cmd), "remove virtio_uml.device=%u",
			 v->plat);
		mc(s, cmd, out, sizeof(out));
		vfsd_stop(v);
		return 0;
	}
	v = vfsd_slot(s, c, i);
	if (!v) {
		snprintf(why, len, "more than %d virtio-fs shares", VFSD_MAX);
		return -ENOSPC;
	}
	rc = vfsd_spawn(s, v);
	if (rc) {
		snprintf(why, len, "virtiofsd did not start (virtiofsd.log)");
		return rc;
	}
	v->plat = s->next_plat++;
	snprintf(cmd, sizeof(cmd), "config virtio_uml.device=%s:%d:%u",
		 v->sock, VIRTIO_ID_FS, v->plat);
	rc = mc(s, cmd, out, sizeof(out));
	if (rc) {
		snprintf(why, len, "mconsole config: %s",
			 rc == -EIO && *out ? out : strerror(-rc));
		vfsd_stop(v);
	}
	return rc;
}

/**
 * vfsd_reaped() - a child exited: if it was a virtiofsd, start it again
 * @s:		supervisor
 * @pid:	the child
 *
 * The kernel closed its socket: the guest rebooted (the new kernel
 * connects again at boot) or the instance stops (then it stays down).
 */
void vfsd_reaped(struct sup *s, pid_t pid)
{
	int j;

	for (j = 0; j < VFSD_MAX; j++) {
		struct vfsd *v = &s->vfs[j];

		if (v->pid != pid)
			continue;
		v->pid = 0;
		if (s->stop != STOP_NONE || s->uml_done || vfsd_spawn(s, v))
			memset(v, 0, sizeof(*v));
	}
}

/**
 * vfsd_stop_all() - at the end of a run: stop every virtiofsd
 * @s:		supervisor
 */
void vfsd_stop_all(struct sup *s)
{
	int j;

	for (j = 0; j < VFSD_MAX; j++)
		vfsd_stop(&s->vfs[j]);
}
