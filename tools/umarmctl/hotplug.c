// SPDX-License-Identifier: GPL-2.0-or-later
/* umarmctl - manage User-Mode Linux instances
 *
 * hotplug.c - network interfaces hot-plugged into a running instance (net add)
 */

#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>

#include "sup.h"
#include "helpers.h"
#include "log.h"
#include "mconsole.h"
#include "util.h"

/**
 * publish_nif() - write the runtime net file: the interfaces and passts
 * @s:		supervisor
 */
void publish_nif(struct sup *s)
{
	char buf[NIF_MAX * (PATH_LEN + NIF_PORTS_LEN + 128)], path[PATH_LEN];
	size_t o = 0;
	unsigned int i;

	for (i = 0; i < NIF_MAX; i++) {
		const struct net *n = i ? &s->hp[i].n : &s->net;
		struct nif f = { .id = i };

		if (i ? !s->hp[i].used : n->backend < 0)
			continue;
		snprintf(f.backend, sizeof(f.backend), "%s",
			 net_backend_name(n));
		f.passt = n->passt;
		f.plat = n->backend == NETB_VHOST_USER ?
			 (int)(i ? s->hp[i].plat : 0) : -1;
		f.hotplug = !!i;
		if (i)
			snprintf(f.ports, sizeof(f.ports), "%s",
				 s->hp[i].ports);
		else
			nif_ports_format(s->c->port, s->c->nports, f.ports,
					 sizeof(f.ports));
		snprintf(f.sock, sizeof(f.sock), "%s", n->sock);
		if (!nif_format(&f, buf + o, sizeof(buf) - o))
			o += strlen(buf + o);
	}
	inst_path(s->in, path, 1, NIF_FILE);
	if (write_file_atomic(path, buf, o, 0600))
		warn("%s: cannot write %s: %s", s->in->name, path,
		     strerror(errno));
}

/**
 * hotplug_stop() - stop the passt of a hot-plugged interface, forget it
 * @s:		supervisor
 * @id:		interface, 1 to NIF_MAX - 1
 */
void hotplug_stop(struct sup *s, unsigned int id)
{
	if (!s->hp[id].used)
		return;
	net_stop(&s->hp[id].n);
	memset(&s->hp[id], 0, sizeof(s->hp[id]));
}

/**
 * hotplug_add() - control request "net-add [PORT...]"
 * @s:		supervisor
 * @args:	forwards for the new passt, blank or comma separated
 * @reply:	"OK netN virtio-uml.ID PID" or "ERR why", with newline
 * @len:	size of @reply
 *
 * Starts a passt --vhost-user on RUNDIR/NAME/netN.sock and plugs it with
 * mconsole.  The loop waits here for passt's socket (milliseconds, at
 * most PASST_SOCK_WAIT_MS) and for UML's answer.  Platform ids are never
 * reused within a run: the guest keeps an unbound device of a removed
 * interface registered.
 */
void hotplug_add(struct sup *s, const char *args, char *reply,
			size_t len)
{
	struct conf_port ports[CONF_MAX_PORTS];
	char sock[32], cmd[MC_MAX_DATA], out[MC_MAX_DATA];
	unsigned int id;
	struct hotplug *h;
	int np, rc;

	if (!*s->st.mconsole || s->stop != STOP_NONE || s->uml_done) {
		snprintf(reply, len, "ERR the guest is %s\n", s->st.status);
		return;
	}
	if (s->paused) {
		snprintf(reply, len, "ERR the guest is paused: resume it\n");
		return;
	}
	/* our passt, not the client's: UMARM_PASST as we were started */
	if (!passt_has_vhost_user()) {
		snprintf(reply, len, "ERR %.400s (the supervisor's passt) has no --vhost-user; restart the instance with a newer passt (UMARM_PASST)\n",
			 passt_bin());
		return;
	}
	np = nif_ports_parse(args, ports, CONF_MAX_PORTS);
	if (np < 0) {
		snprintf(reply, len, "ERR bad forward in '%s'\n", args);
		return;
	}
	for (id = 1; id < NIF_MAX && s->hp[id].used; id++)
		;
	if (id == NIF_MAX) {
		snprintf(reply, len, "ERR all %d interfaces are in use\n",
			 NIF_MAX - 1);
		return;
	}
	h = &s->hp[id];
	memset(h, 0, sizeof(*h));
	snprintf(sock, sizeof(sock), HOTPLUG_SOCK, id);
	if (net_spawn_vhost_user(&h->n, s->in, sock, ports, np, 1)) {
		snprintf(reply, len, "ERR %s\n",
			 *h->n.why ? h->n.why : "passt did not start");
		memset(h, 0, sizeof(*h));
		return;
	}
	h->plat = s->next_plat++;
	nif_ports_format(ports, np, h->ports, sizeof(h->ports));
	rc = snprintf(cmd, sizeof(cmd), "config virtio_uml.device=%s:1:%u",
		      h->n.sock, h->plat);
	rc = rc < 0 || (size_t)rc >= sizeof(cmd) ? -ENAMETOOLONG :
	     mc(s, cmd, out, sizeof(out));
	if (rc) {
		snprintf(reply, len, "ERR mconsole '%.60s...': %s\n", cmd,
			 rc == -EIO && *out ? out : strerror(-rc));
		net_stop(&h->n);
		memset(h, 0, sizeof(*h));
		return;
	}
	h->used = 1;
	publish_nif(s);
	snprintf(reply, len, "OK net%u virtio-uml.%u %d\n", id, h->plat,
		 (int)h->n.passt);
}

/**
 * hotplug_stop_all() - stop every hot-plugged interface's passt
 * @s:		supervisor
 *
 * At the end of a run, and when the kernel re-executed itself (a guest
 * reboot): the new kernel has none of the devices they served.
 */
void hotplug_stop_all(struct sup *s)
{
	unsigned int i;

	for (i = 1; i < NIF_MAX; i++)
		hotplug_stop(s, i);
}

/**
 * hotplug_reaped() - a child exited: if it was a hot-plugged passt, say so
 * @s:		supervisor
 * @pid:	the child
 * @status:	its wait status
 *
 * The interface stays listed (dead) until "net rm": the guest still has
 * the device.
 */
void hotplug_reaped(struct sup *s, pid_t pid, int status)
{
	unsigned int i;

	for (i = 1; i < NIF_MAX; i++) {
		if (!s->hp[i].used || pid != s->hp[i].n.passt)
			continue;
		/* --one-off: the guest let go of it (net rm) */
		if (WIFEXITED(status) && !WEXITSTATUS(status))
			dbg("%s: passt of net%u exited: the guest closed its socket",
			    s->in->name, i);
		else
			warn("%s: passt of net%u exited (status %d): that interface is dead; 'umarmctl net rm %s net%u'",
			     s->in->name, i, status, s->in->name, i);
		s->hp[i].n.passt = 0;
		publish_nif(s);
	}
}
