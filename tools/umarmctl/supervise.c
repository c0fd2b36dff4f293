// SPDX-License-Identifier: GPL-2.0-or-later
/* umarmctl - manage User-Mode Linux instances
 *
 * supervise.c - run one instance: UML, passt, console, readiness
 *
 * "umarmctl run NAME" is the supervisor: the main process of
 * umarm@NAME.service under systemd, or the daemon "umarmctl start" forks
 * without it.  It holds LOCK_RUN for its whole life, starts passt and the
 * UML kernel (in its own process group, killed if we die), and then serves
 * one poll() loop:
 *
 * - the console: UML's con0 is one end of a socketpair; everything the
 *   guest prints is appended to STATEDIR/NAME/console.log, scanned for the
 *   readiness markers, and copied to attached "umarmctl console" clients;
 * - mconsole notifications (mconsole=notify:RUNDIR/NAME/notify): the
 *   mconsole socket path, guest panics, and /proc/mconsole writes;
 * - the control socket RUNDIR/NAME/control, a line protocol for the other
 *   umarmctl verbs: console, stop, kill, pause, resume, type TEXT;
 * - the network relay, when passt runs in --fd mode;
 * - hot-plugged interfaces ("umarmctl net add"): a passt --vhost-user
 *   each, plugged with mconsole "config virtio_uml.device=SOCK:1:ID",
 *   listed in RUNDIR/NAME/net and stopped with the instance;
 * - signals, through a signalfd: SIGTERM/SIGINT start a clean stop
 *   (mconsole "cad", then "halt" after stop-timeout, then SIGKILL),
 *   SIGCHLD reaps UML and passt.
 *
 * Readiness ("READY=1" to systemd, "READY" on the pipe to "umarmctl start")
 * is declared when a marker from 'ready =' (default UMARM_BOOT_OK or
 * UMARM_MULTI_USER_OK) shows up on the console or through /proc/mconsole,
 * or, for 'ready = mconsole', as soon as the mconsole socket is up.
 */

#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>

#include "supervise.h"
#include "sysacct.h"
#include "child.h"
#include "disk.h"
#include "host.h"
#include "lock.h"
#include "log.h"
#include "mconsole.h"
#include "net.h"
#include "nif.h"
#include "sdnotify.h"
#include "state.h"
#include "text.h"
#include "rmtree.h"
#include "util.h"

#define MAX_CLIENTS		16
#define MAX_UML_ARGS		(64 + CONF_MAX_DISKS)
#define CONSOLE_LOG_MAX		(4 << 20)	/* rotate to console.log.1 */
#define HALT_TIMEOUT_MS		5000
#define KILL_TIMEOUT_MS		5000
#define MC_TIMEOUT_MS		2000
/* systemd's timeouts get this much beyond ours: reaping, writing state */
#define EXTEND_MARGIN_MS	5000
#define LINE_MAX_SCAN		512

static const char *default_ready[] = { "UMARM_BOOT_OK",
					"UMARM_MULTI_USER_OK" };

/**
 * struct client - a connection on the control socket
 * @fd:		socket, -1 if the slot is free
 * @console:	attached to the console (raw bytes both ways)
 * @buf:	partial command line
 * @len:	bytes in @buf
 */
struct client {
	int fd;
	int console;
	char buf[1024];
	size_t len;
};

enum stop_phase {
	STOP_NONE,
	STOP_CAD,	/* mconsole cad sent, waiting stop-timeout */
	STOP_HALT,	/* mconsole halt sent */
	STOP_KILL,	/* SIGKILL sent */
};

/**
 * struct hotplug - an interface added by "umarmctl net add"
 * @used:	slot in use
 * @plat:	virtio-uml platform device id given to the guest
 * @n:		its passt (vhost-user)
 * @ports:	its forwards, as in the net file
 */
struct hotplug {
	int used;
	unsigned int plat;
	struct net n;
	char ports[NIF_PORTS_LEN];
};

/**
 * struct sup - supervisor state
 */
struct sup {
	const struct inst *in;
	const struct conf *c;
	struct state st;
	char state_path[PATH_LEN];
	int ready_fd;
	int sigfd, notify_fd, listen_fd, cons_fd, log_fd;
	int exec_fd;
	size_t log_size;
	struct net net;
	struct hotplug hp[NIF_MAX];
	unsigned int next_plat;
	struct client cl[MAX_CLIENTS];
	pid_t uml;
	int uml_status;
	int uml_done;
	int ready;
	uint64_t t0;
	uint64_t ready_deadline;
	enum stop_phase stop;
	uint64_t stop_deadline;
	int paused;
	int mc_seen;
	char line[LINE_MAX_SCAN];
	size_t linelen;
	char fail[384];
	int exit_code;
};

static int mc(struct sup *s, const char *cmd, char *reply, size_t len);

/**
 * publish() - write the runtime state file
 * @s:		supervisor
 * @status:	new status, or NULL to keep it
 */
static void publish(struct sup *s, const char *status)
{
	if (status)
		snprintf(s->st.status, sizeof(s->st.status), "%s", status);
	if (state_write(s->state_path, &s->st))
		warn("%s: cannot write %s: %s", s->in->name, s->state_path,
		     strerror(errno));
}

/**
 * publish_nif() - write the runtime net file: the interfaces and passts
 * @s:		supervisor
 */
static void publish_nif(struct sup *s)
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
static void hotplug_stop(struct sup *s, unsigned int id)
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
static void hotplug_add(struct sup *s, const char *args, char *reply,
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
	snprintf(sock, sizeof(sock), "net%u.sock", id);
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
 * notify_extend() - tell systemd how long the current phase may still take
 * @ms:		milliseconds from now, our own deadline included
 * @what:	the rest of the message ("READY=1", "STOPPING=1", ...)
 *
 * The unit's TimeoutStartSec= and TimeoutStopSec= are fixed, while
 * ready-timeout and stop-timeout come from the instance's configuration:
 * EXTEND_TIMEOUT_USEC= (systemd 236) makes systemd wait as long as the
 * configuration says (it never shortens the unit's own timeout).  One
 * message per phase is enough: our deadline is fixed when it is sent.
 */
static void notify_extend(uint64_t ms, const char *what)
{
	char msg[160];

	snprintf(msg, sizeof(msg), "%s\nEXTEND_TIMEOUT_USEC=%llu", what,
		 (unsigned long long)(ms + EXTEND_MARGIN_MS) * 1000);
	sd_notify_msg(msg);
}

/**
 * tell_starter() - report the outcome of the start to "umarmctl start"
 * @s:		supervisor
 * @ok:		booted
 * @code:	exit code for the starter if not @ok
 * @msg:	failure message if not @ok
 */
static void tell_starter(struct sup *s, int ok, int code, const char *msg)
{
	char buf[600];

	if (s->ready_fd < 0)
		return;
	if (ok)
		snprintf(buf, sizeof(buf), "READY\n");
	else
		snprintf(buf, sizeof(buf), "FAIL %d %s\n", code, msg);
	write_all(s->ready_fd, buf, strlen(buf));
	close(s->ready_fd);
	s->ready_fd = -1;
}

/**
 * set_ready() - the guest has booted
 * @s:		supervisor
 * @how:	what told us, for the log
 */
static void set_ready(struct sup *s, const char *how)
{
	char msg[160];
	uint64_t ms;

	if (s->ready)
		return;
	s->ready = 1;
	s->st.ready = now_ms();
	ms = boot_ms() - s->t0;
	publish(s, "running");
	snprintf(msg, sizeof(msg),
		 "READY=1\nSTATUS=Guest booted in %llu.%03llus (%s)",
		 (unsigned long long)ms / 1000,
		 (unsigned long long)ms % 1000, how);
	sd_notify_msg(msg);
	dbg("%s: ready after %llu ms (%s)", s->in->name,
	    (unsigned long long)ms, how);
	tell_starter(s, 1, 0, NULL);
}

/**
 * fail_boot() - the guest did not boot: tell the starter, stop the kernel
 * @s:		supervisor
 * @code:	exit code
 * @msg:	what went wrong
 */
static void fail_boot(struct sup *s, int code, const char *msg)
{
	char clean[sizeof(s->fail)];

	/* a console line of the guest's: no escapes to the user's terminal */
	snprintf(clean, sizeof(clean), "%s", msg);
	text_clean(clean, 0);
	if (!*s->fail) {
		snprintf(s->fail, sizeof(s->fail), "%s", clean);
		s->exit_code = code;
	}
	err("%s", clean);
	tell_starter(s, 0, code, clean);
}

/**
 * log_console() - append console output to console.log, rotating it
 * @s:		supervisor
 * @buf:	data
 * @n:		length
 */
static void log_console(struct sup *s, const char *buf, size_t n)
{
	char path[PATH_LEN], old[PATH_LEN];

	if (s->log_fd < 0)
		return;
	if (s->log_size + n > CONSOLE_LOG_MAX) {
		inst_path(s->in, path, 0, CONSOLE_LOG);
		inst_path(s->in, old, 0, CONSOLE_LOG ".1");
		close(s->log_fd);
		rename(path, old);
		s->log_fd = open(path, O_WRONLY | O_CREAT | O_APPEND |
				 O_CLOEXEC, 0640);
		s->log_size = 0;
		if (s->log_fd < 0)
			return;
	}
	if (!write_all(s->log_fd, buf, n))
		s->log_size += n;
}

/**
 * check_marker() - look for readiness and failure markers in a line
 * @s:		supervisor
 * @line:	one console line, NUL-terminated
 */
static void check_marker(struct sup *s, const char *line)
{
	const char *p;
	int i;

	if (!s->ready) {
		if (s->c->nready) {
			for (i = 0; i < s->c->nready; i++)
				if (strcmp(s->c->ready[i], "mconsole") &&
				    strstr(line, s->c->ready[i]))
					set_ready(s, "console marker");
		} else {
			for (i = 0; i < (int)ARRAY_SIZE(default_ready); i++)
				if (strstr(line, default_ready[i]))
					set_ready(s, "console marker");
		}
	}
	/* arch/um/os-Linux/file.c os_lock_file(): another UML has a disk */
	p = strstr(line, "file already locked by pid ");
	if (p && !*s->fail) {
		char msg[384];
		int pid = atoi(p + strlen("file already locked by pid "));

		disk_owner_msg(s->in, pid, msg, sizeof(msg));
		fail_boot(s, EX_STATE, msg);
	}
	if (strstr(line, "Kernel panic - not syncing") && !*s->fail) {
		char msg[384];

		snprintf(msg, sizeof(msg),
			 "%s: guest kernel panic: %.200s; see 'umarmctl logs %s'",
			 s->in->name, line, s->in->name);
		fail_boot(s, EX_BOOT, msg);
	}
}

/**
 * console_in() - handle output from the guest console
 * @s:		supervisor
 *
 * Return: 0, or -EPIPE once UML closed the console
 */
static int console_in(struct sup *s)
{
	char buf[8192];
	ssize_t n;
	int i;

	n = read(s->cons_fd, buf, sizeof(buf));
	if (n < 0)
		return errno == EAGAIN || errno == EINTR ? 0 : -EPIPE;
	if (!n)
		return -EPIPE;

	log_console(s, buf, n);
	for (i = 0; i < MAX_CLIENTS; i++) {
		struct client *c = &s->cl[i];

		/* A client that can't keep up loses output, not the guest */
		if (c->fd >= 0 && c->console)
			send(c->fd, buf, n, MSG_DONTWAIT | MSG_NOSIGNAL);
	}
	for (i = 0; i < n; i++) {
		if (buf[i] == '\n' || s->linelen == sizeof(s->line) - 1) {
			s->line[s->linelen] = 0;
			check_marker(s, s->line);
			s->linelen = 0;
			continue;
		}
		if (buf[i] != '\r')
			s->line[s->linelen++] = buf[i];
	}
	return 0;
}

/**
 * notify_in() - handle a datagram from UML's mconsole notifier
 * @s:		supervisor
 */
static void notify_in(struct sup *s)
{
	char buf[sizeof(struct mc_notify)], text[MC_MAX_DATA + 1];
	const char *data;
	uint32_t type;
	size_t len;
	ssize_t n;
	int i;

	n = recv(s->notify_fd, buf, sizeof(buf), MSG_DONTWAIT);
	if (n <= 0 || mc_parse_notify(buf, n, &type, &data, &len))
		return;
	memcpy(text, data, len);
	text[len] = 0;
	if (len && text[len - 1] == '\n')
		text[len - 1] = 0;
	/* guest text (/proc/mconsole, panic): one line, no escapes */
	text_clean(text, 0);

	switch (type) {
	case MC_NOTIFY_SOCKET:
		snprintf(s->st.mconsole, sizeof(s->st.mconsole), "%s", text);
		publish(s, NULL);
		/* A second notification means the kernel re-executed itself
		 * (UML's reboot).  While stopping, that is the guest's init
		 * answering ctrl-alt-del with a reboot (systemd's default
		 * ctrl-alt-del.target): its shutdown is done, so halt the
		 * fresh kernel before it boots any further.
		 */
		if (s->mc_seen && s->stop == STOP_NONE) {
			unsigned int j;

			/* the new kernel has none of the hot-plugged ones */
			for (j = 1; j < NIF_MAX; j++)
				hotplug_stop(s, j);
			publish_nif(s);
		}
		if (s->mc_seen++ && s->stop == STOP_CAD) {
			dbg("%s: guest rebooted on ctrl-alt-del: halting",
			    s->in->name);
			if (!mc(s, "halt", NULL, 0)) {
				s->stop = STOP_HALT;
				s->stop_deadline = boot_ms() + HALT_TIMEOUT_MS;
			}
		}
		for (i = 0; i < s->c->nready; i++)
			if (!strcmp(s->c->ready[i], "mconsole"))
				set_ready(s, "mconsole");
		break;
	case MC_NOTIFY_PANIC:
		snprintf(s->st.exit, sizeof(s->st.exit), "panic: %.100s",
			 text);
		check_marker(s, "Kernel panic - not syncing");
		break;
	case MC_NOTIFY_USER:
		if (!strcmp(text, "ready"))
			set_ready(s, "/proc/mconsole");
		else
			check_marker(s, text);
		break;
	}
}

/**
 * mc() - send an mconsole command to our UML
 * @s:		supervisor
 * @cmd:	command
 * @reply:	reply text, may be NULL
 * @len:	size of @reply
 *
 * Return: 0 if UML accepted it, negative errno or -EIO
 */
static int mc(struct sup *s, const char *cmd, char *reply, size_t len)
{
	char tmp[MC_MAX_DATA];
	int e, rc;

	if (!*s->st.mconsole)
		return -ENOTCONN;
	if (!reply) {
		reply = tmp;
		len = sizeof(tmp);
	}
	rc = mc_command(s->st.mconsole, cmd, reply, len, MC_TIMEOUT_MS, &e);
	if (rc)
		return rc;
	return e ? -EIO : 0;
}

/**
 * stop_start() - begin (or escalate) stopping the guest
 * @s:		supervisor
 * @hard:	skip the clean shutdown
 */
static void stop_start(struct sup *s, int hard)
{
	if (s->uml_done)
		return;
	if (s->stop == STOP_NONE) {
		/* the longest way: cad, halt, SIGKILL */
		notify_extend(s->c->stop_timeout * 1000ULL + HALT_TIMEOUT_MS +
			      KILL_TIMEOUT_MS,
			      "STOPPING=1\nSTATUS=Shutting down the guest");
		publish(s, "stopping");
		if (!s->ready)
			tell_starter(s, 0, EX_BOOT, "stopped while booting");
	}
	if (s->paused) {
		mc(s, "go", NULL, 0);
		s->paused = 0;
	}
	if (!hard && s->stop == STOP_NONE && !mc(s, "cad", NULL, 0)) {
		s->stop = STOP_CAD;
		s->stop_deadline = boot_ms() + s->c->stop_timeout * 1000ULL;
		return;
	}
	if (!hard && s->stop <= STOP_CAD) {
		/* The guest ignored ctrl-alt-del: flush and remount its
		 * file systems read-only through magic SysRq before halting.
		 */
		mc(s, "sysrq s", NULL, 0);
		mc(s, "sysrq u", NULL, 0);
	}
	if (!hard && s->stop <= STOP_CAD && !mc(s, "halt", NULL, 0)) {
		s->stop = STOP_HALT;
		s->stop_deadline = boot_ms() + HALT_TIMEOUT_MS;
		return;
	}
	if (s->stop < STOP_KILL) {
		/* UML's own SIGTERM handler would also kill its helpers,
		 * but a wedged kernel may not run it: SIGKILL the group.
		 */
		kill(-s->uml, SIGKILL);
		s->stop = STOP_KILL;
		s->stop_deadline = boot_ms() + KILL_TIMEOUT_MS;
	}
}

/**
 * client_line() - execute one control command
 * @s:		supervisor
 * @c:		client
 * @line:	command, NUL-terminated, without newline
 */
static void client_line(struct sup *s, struct client *c, const char *line)
{
	const char *ok = "OK\n";
	char reply[600];

	if (!strcmp(line, "console")) {
		c->console = 1;
	} else if (!strcmp(line, "stop")) {
		stop_start(s, 0);
	} else if (!strcmp(line, "kill")) {
		stop_start(s, 1);
	} else if (!strcmp(line, "pause") || !strcmp(line, "resume")) {
		int p = line[0] == 'p';
		int rc = mc(s, p ? "stop" : "go", NULL, 0);

		if (rc) {
			snprintf(reply, sizeof(reply), "ERR mconsole: %s\n",
				 strerror(-rc));
			ok = reply;
		} else {
			s->paused = p;
			publish(s, p ? "paused" : (s->ready ? "running"
							    : "booting"));
		}
	} else if (!strncmp(line, "type ", 5)) {
		char buf[sizeof(c->buf) + 2];
		size_t n = strlen(line + 5);

		if (s->paused) {
			ok = "ERR instance is paused\n";
		} else {
			/* ^U first: drop whatever half line sits there */
			buf[0] = 0x15;
			memcpy(buf + 1, line + 5, n);
			buf[n + 1] = '\n';
			write_all(s->exec_fd >= 0 ? s->exec_fd : s->cons_fd,
				  buf, n + 2);
		}
	} else if (!strcmp(line, "net-add") || !strncmp(line, "net-add ", 8)) {
		hotplug_add(s, line + 7, reply, sizeof(reply));
		ok = reply;
	} else if (!strncmp(line, "net-rm ", 7)) {
		unsigned int id;

		if (nif_id_parse(line + 7, &id) || !id || !s->hp[id].used) {
			snprintf(reply, sizeof(reply),
				 "ERR no hot-plugged interface '%s'\n",
				 line + 7);
			ok = reply;
		} else {
			hotplug_stop(s, id);
			publish_nif(s);
		}
	} else if (!strcmp(line, "ping")) {
		ok = "OK\n";
	} else {
		ok = "ERR unknown request\n";
	}
	send(c->fd, ok, strlen(ok), MSG_NOSIGNAL);
}

/**
 * client_in() - handle data from a control client
 * @s:		supervisor
 * @c:		client
 */
static void client_in(struct sup *s, struct client *c)
{
	ssize_t n;
	char *nl;

	if (c->console) {
		char buf[4096];

		n = recv(c->fd, buf, sizeof(buf), MSG_DONTWAIT);
		if (n > 0 && !s->paused)
			write_all(s->cons_fd, buf, n);
		if (n == 0 || (n < 0 && errno != EAGAIN && errno != EINTR)) {
			close(c->fd);
			c->fd = -1;
		}
		return;
	}
	n = recv(c->fd, c->buf + c->len, sizeof(c->buf) - 1 - c->len,
		 MSG_DONTWAIT);
	if (n <= 0) {
		if (n == 0 || (errno != EAGAIN && errno != EINTR)) {
			close(c->fd);
			c->fd = -1;
		}
		return;
	}
	c->len += n;
	c->buf[c->len] = 0;
	while (!c->console && (nl = strchr(c->buf, '\n'))) {
		size_t used = nl - c->buf + 1;

		*nl = 0;
		client_line(s, c, c->buf);
		memmove(c->buf, c->buf + used, c->len - used + 1);
		c->len -= used;
	}
	if (c->console && c->len) {
		write_all(s->cons_fd, c->buf, c->len);
		c->len = 0;
	}
	if (c->len == sizeof(c->buf) - 1) {
		close(c->fd);
		c->fd = -1;
	}
}

/**
 * accept_client() - accept a control connection
 * @s:		supervisor
 */
static void accept_client(struct sup *s)
{
	int fd = accept4(s->listen_fd, NULL, NULL,
			 SOCK_CLOEXEC | SOCK_NONBLOCK);
	int i;

	if (fd < 0)
		return;
	for (i = 0; i < MAX_CLIENTS; i++) {
		if (s->cl[i].fd < 0) {
			memset(&s->cl[i], 0, sizeof(s->cl[i]));
			s->cl[i].fd = fd;
			return;
		}
	}
	send(fd, "ERR too many clients\n", 21, MSG_NOSIGNAL);
	close(fd);
}

/**
 * reap() - collect exited children
 * @s:		supervisor
 */
static void reap(struct sup *s)
{
	int status;
	pid_t pid;

	while ((pid = waitpid(-1, &status, WNOHANG)) > 0) {
		if (pid == s->uml) {
			s->uml_done = 1;
			s->uml_status = status;
		} else if (pid == s->net.passt) {
			warn("%s: passt exited (status %d): the guest has no network now; see %s/passt.log",
			     s->in->name, status, s->in->state);
			s->net.passt = 0;
			s->st.passt = 0;
			publish(s, NULL);
			publish_nif(s);
		} else {
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
	}
}

/**
 * signal_in() - handle a signal from the signalfd
 * @s:		supervisor
 */
static void signal_in(struct sup *s)
{
	struct signalfd_siginfo si;

	while (read(s->sigfd, &si, sizeof(si)) == sizeof(si)) {
		switch (si.ssi_signo) {
		case SIGCHLD:
			reap(s);
			break;
		case SIGTERM:
		case SIGINT:
		case SIGHUP:
			/* a second signal while stopping escalates */
			stop_start(s, s->stop != STOP_NONE);
			break;
		}
	}
}

/**
 * listen_unix() - create a listening stream socket
 * @path:	where to bind it
 *
 * Return: socket, negative errno on failure
 */
static int listen_unix(const char *path)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	int fd;

	if (strlen(path) >= sizeof(sa.sun_path))
		return -ENAMETOOLONG;
	strcpy(sa.sun_path, path);
	unlink(path);
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (fd < 0)
		return -errno;
	if (bind(fd, (struct sockaddr *)&sa, sizeof(sa)) || listen(fd, 8)) {
		int rc = -errno;

		close(fd);
		return rc;
	}
	return fd;
}

/**
 * build_argv() - the UML kernel command line
 * @s:		supervisor
 * @kernel:	kernel path
 * @argv:	output vector, MAX_UML_ARGS entries
 * @store:	storage for the strings
 * @size:	size of @store
 *
 * Return: number of arguments, negative errno on failure
 */
static int build_argv(struct sup *s, const char *kernel, char **argv,
		      char *store, size_t size)
{
	const struct inst *in = s->in;
	const struct conf *c = s->c;
	char mem[32], dhcp[32], *tok, *save, cmdline[CONF_VALUE_MAX];
	size_t o = 0;
	int argc = 0, i, r;

#define ADD(...) do {							\
		int _n = snprintf(store + o, size - o, __VA_ARGS__);	\
		if (_n < 0 || (size_t)_n >= size - o ||			\
		    argc >= MAX_UML_ARGS - 1)				\
			return -E2BIG;					\
		argv[argc++] = store + o;				\
		o += _n + 1;						\
	} while (0)

	ADD("%s", kernel);
	format_size(c->memory, mem, sizeof(mem));
	ADD("mem=%s", mem);
	for (i = 0; i < CONF_MAX_DISKS; i++) {
		char f[PATH_LEN], b[PATH_LEN];

		if (!c->disk[i].set)
			continue;
		disk_abs(in, c->disk[i].file, f);
		if (*c->disk[i].base) {
			disk_abs(in, c->disk[i].base, b);
			ADD("ubd%d=%s,%s", i, f, b);
		} else {
			ADD("ubd%d=%s", i, f);
		}
	}
	ADD("root=/dev/ubda");
	/* umid only names UML's directory (and xterm titles); keep the
	 * mconsole path within sun_path, else fall back to a short umid.
	 */
	if (strlen(in->run) + 1 + strlen(in->name) + sizeof("/mconsole") <=
	    SUN_PATH_MAX)
		ADD("umid=%s", in->name);
	else
		ADD("umid=uml");
	ADD("uml_dir=%s/", in->run);
	ADD("mconsole=notify:%s/%s", in->run, NOTIFY_SOCK);
	ADD("con=null");
	ADD("ssl=null");
	ADD("con0=fd:0,fd:1");
	if (s->exec_fd >= 0) {
		/* systemd-debug-generator: a root shell on tty9 = con9 */
		ADD("con9=fd:4");
		ADD("systemd.debug_shell");
	}
	/* UML's hostfs= roots every hostfs mount of the guest at the
	 * exchange directory (not a boundary on its own: see umarmctl(1),
	 * ISOLATION); the image's init mounts its "/" on /host.  UML cuts
	 * the value at the first ',', which would root it higher up.
	 */
	if (strchr(in->state, ',')) {
		err("%s: the state directory %s contains a ',', which UML's hostfs= cannot take: move it (XDG_STATE_HOME, UMARM_STATE_DIR)",
		    in->name, in->state);
		return -EINVAL;
	}
	ADD("hostfs=%s/%s", in->state, EXCHANGE_DIR);
	ADD("umarm.hostfs=/");
	ADD("umarm.name=%s", in->name);
	if (c->cpus > 1)
		ADD("ncpus=%u", c->cpus);
	r = net_uml_arg(&s->net, store + o, size - o, dhcp, sizeof(dhcp));
	if (r < 0)
		return r;
	if (r > 0) {
		argv[argc++] = store + o;
		o += strlen(store + o) + 1;
		ADD("%s", dhcp);
	}
	snprintf(cmdline, sizeof(cmdline), "%s", c->cmdline);
	for (tok = strtok_r(cmdline, " \t", &save); tok;
	     tok = strtok_r(NULL, " \t", &save))
		ADD("%s", tok);
#undef ADD
	argv[argc] = NULL;
	return argc;
}

/**
 * spawn_uml() - start the kernel
 * @s:		supervisor
 * @argv:	command line
 * @cons:	UML's end of the console socketpair
 * @exec:	UML's end of the exec channel socketpair, or -1
 *
 * Return: 0 on success, negative errno on failure
 */
static int spawn_uml(struct sup *s, char **argv, int cons, int exec)
{
	pid_t self = getpid(), pid = fork();

	if (pid < 0)
		return -errno;
	if (!pid) {
		/* Own process group: a terminal's ^C reaches us, not UML */
		setpgid(0, 0);
		/* SIGKILL, not SIGTERM: UML's SIGTERM handler (last_ditch_exit
		 * -> uml_cleanup -> free_irq) can spin for ever in
		 * __synchronize_hardirq when it interrupted the console's
		 * interrupt handler (seen on x86_64 7.2, 1 in 3 kill -9s of
		 * the supervisor).  Nothing is lost: without its supervisor
		 * the guest has no console, and the next start cleans up
		 * after a SIGKILLed kernel anyway.
		 */
		child_signals_reset();
		child_die_with(self, SIGKILL);
		dup2(cons, 0);
		dup2(cons, 1);
		dup2(cons, 2);
		if (s->net.uml_fd >= 0) {
			dup2(s->net.uml_fd, 3);
			set_cloexec(3, 0);
		}
		if (exec >= 0) {
			dup2(exec, 4);
			set_cloexec(4, 0);
		}
		if (chdir(s->in->state))
			_exit(126);
		execv(argv[0], argv);
		dprintf(2, "umarmctl: exec %s: %s\n", argv[0],
			strerror(errno));
		_exit(127);
	}
	setpgid(pid, pid);
	s->uml = pid;
	return 0;
}

/**
 * loop() - the event loop, until UML has exited
 * @s:		supervisor
 */
static void loop(struct sup *s)
{
	while (!s->uml_done) {
		struct pollfd p[8 + MAX_CLIENTS];
		int n = 0, i, timeout = -1, cons_i = -1, nf_i, ls_i, ufd_i = -1;
		int pfd_i = -1, cl_i[MAX_CLIENTS], ex_i = -1;
		uint64_t now = boot_ms(), deadline = 0;

		if (!s->ready)
			deadline = s->ready_deadline;
		if (s->stop != STOP_NONE)
			deadline = s->stop_deadline;
		if (deadline)
			timeout = deadline > now ? (int)(deadline - now) : 0;

		p[n++] = (struct pollfd){ .fd = s->sigfd, .events = POLLIN };
		nf_i = n;
		p[n++] = (struct pollfd){ .fd = s->notify_fd,
					  .events = POLLIN };
		ls_i = n;
		p[n++] = (struct pollfd){ .fd = s->listen_fd,
					  .events = POLLIN };
		if (s->exec_fd >= 0) {
			ex_i = n;
			p[n++] = (struct pollfd){ .fd = s->exec_fd,
						  .events = POLLIN };
		}
		if (s->cons_fd >= 0) {
			cons_i = n;
			p[n++] = (struct pollfd){ .fd = s->cons_fd,
						  .events = POLLIN };
		}
		if (s->net.ufd >= 0 && s->net.passt) {
			ufd_i = n;
			/* backpressure: stop reading UML while passt lags */
			p[n++] = (struct pollfd){ .fd = s->net.ufd,
				.events = s->net.outlen ? 0 : POLLIN };
			pfd_i = n;
			p[n++] = (struct pollfd){ .fd = s->net.pfd,
				.events = POLLIN |
					  (s->net.outlen ? POLLOUT : 0) };
		}
		for (i = 0; i < MAX_CLIENTS; i++) {
			cl_i[i] = -1;
			if (s->cl[i].fd < 0)
				continue;
			cl_i[i] = n;
			p[n++] = (struct pollfd){ .fd = s->cl[i].fd,
						  .events = POLLIN };
		}

		if (poll(p, n, timeout) < 0 && errno != EINTR)
			break;

		if (p[0].revents)
			signal_in(s);
		if (p[nf_i].revents)
			notify_in(s);
		if (p[ls_i].revents)
			accept_client(s);
		if (ex_i >= 0 && p[ex_i].revents) {
			char junk[4096];

			/* the debug shell's echo and prompts: not needed */
			if (read(s->exec_fd, junk, sizeof(junk)) == 0) {
				close(s->exec_fd);
				s->exec_fd = -1;
			}
		}
		if (cons_i >= 0 && p[cons_i].revents &&
		    console_in(s) == -EPIPE) {
			close(s->cons_fd);
			s->cons_fd = -1;
		}
		if (ufd_i >= 0) {
			if (p[ufd_i].revents & POLLIN)
				net_from_uml(&s->net);
			if (p[pfd_i].revents & POLLOUT)
				net_flush_passt(&s->net);
			if (p[pfd_i].revents & (POLLIN | POLLHUP) &&
			    net_from_passt(&s->net) == -EPROTO)
				warn("%s: bad frame length from passt",
				     s->in->name);
		}
		for (i = 0; i < MAX_CLIENTS; i++)
			if (cl_i[i] >= 0 && p[cl_i[i]].revents &&
			    s->cl[i].fd >= 0)
				client_in(s, &s->cl[i]);

		now = boot_ms();
		if (!s->ready && s->stop == STOP_NONE &&
		    now >= s->ready_deadline) {
			char msg[384];

			snprintf(msg, sizeof(msg),
				 "%s: guest did not report booted within %us (ready-timeout); see 'umarmctl logs %s'",
				 s->in->name, s->c->ready_timeout,
				 s->in->name);
			fail_boot(s, EX_TIMEOUT, msg);
			/* nothing booted to shut down cleanly */
			stop_start(s, 1);
		} else if (s->stop != STOP_NONE && now >= s->stop_deadline) {
			stop_start(s, s->stop == STOP_HALT);
		}
		if (*s->fail && s->stop == STOP_NONE)
			stop_start(s, 0);
	}
	/* drain the last console output */
	while (s->cons_fd >= 0 && console_in(s) == 0) {
		struct pollfd p = { .fd = s->cons_fd, .events = POLLIN };

		if (poll(&p, 1, 0) <= 0)
			break;
	}
}

/**
 * exit_text() - describe how UML ended
 * @s:		supervisor
 * @buf:	output
 * @len:	size of @buf
 */
static void exit_text(struct sup *s, char *buf, size_t len)
{
	int st = s->uml_status;

	if (WIFEXITED(st))
		snprintf(buf, len, "exit code %d", WEXITSTATUS(st));
	else if (WIFSIGNALED(st))
		snprintf(buf, len, "killed by signal %d (%s)", WTERMSIG(st),
			 strsignal(WTERMSIG(st)));
	else
		snprintf(buf, len, "status %d", st);
}

/**
 * reap_orphans() - kill kernel processes left over by a previous run
 * @in:		instance, whose supervisor is known not to run
 *
 * UML's helpers (the ubd I/O thread, stubs) are separate processes that
 * share the kernel's descriptor table, so they keep its disk locks after
 * the kernel process itself was SIGKILLed by someone else.  Any process
 * whose command line carries this instance's "uml_dir=RUNDIR/NAME/" is
 * such a leftover once LOCK_RUN is free; so is a passt serving a socket
 * in RUNDIR/NAME/ (its watcher, see net_spawn_vhost_user(), stops it
 * when the supervisor is SIGKILLed, unless that was killed too).
 *
 * Return: number of processes killed
 */
int reap_orphans(const struct inst *in)
{
	char want[PATH_LEN + 16], sock[PATH_LEN + 2];
	struct dirent *de;
	int n = 0;
	DIR *d;

	if (pathf(want, "uml_dir=%s/", in->run) || pathf(sock, "%s/", in->run))
		return 0;
	d = opendir("/proc");
	while (d && (de = readdir(d))) {
		char path[64], *cmd, *p;
		pid_t pid = atoi(de->d_name);
		ssize_t len;

		if (pid <= 1 || pid == getpid())
			continue;
		snprintf(path, sizeof(path), "/proc/%d/cmdline", (int)pid);
		len = read_file(path, &cmd, 1 << 16);
		if (len <= 0)
			continue;
		for (p = cmd; p < cmd + len; p += strlen(p) + 1) {
			char *next = p + strlen(p) + 1;

			if (!strcmp(p, want) ||
			    (!strcmp(cmd, "passt") && !strcmp(p, "--socket") &&
			     next < cmd + len &&
			     !strncmp(next, sock, strlen(sock)))) {
				kill(pid, SIGKILL);
				n++;
				break;
			}
		}
		free(cmd);
	}
	if (d)
		closedir(d);
	if (n) {
		warn("%s: killed %d process%s (UML, passt) left over by a previous run",
		     in->name, n, n == 1 ? "" : "es");
		/* let the kernel drop their locks */
		sleep_ms(100);
	}
	return n;
}

/**
 * supervise() - run an instance until its kernel exits
 * @in:		instance
 * @c:		its configuration (validated)
 * @ready_fd:	pipe to "umarmctl start", or -1
 *
 * Return: exit code for umarmctl: 0 if the guest ran and stopped cleanly
 */
int supervise(const struct inst *in, const struct conf *c, int ready_fd)
{
	char kernel[PATH_LEN], path[PATH_LEN], prefix[96], *argv[MAX_UML_ARGS];
	char *store = NULL, how[96];
	int runlock, sp[2], ex[2] = { -1, -1 }, rc, i;
	sigset_t mask;
	struct sup *s;

	snprintf(prefix, sizeof(prefix), "umarmctl[%s]", in->name);
	log_set_prefix(prefix);
	/* root.cow, logs, sockets: the owner's alone (also under systemd) */
	umask(077);

	s = calloc(1, sizeof(*s));
	if (!s)
		return EX_FAIL;
	s->in = in;
	s->c = c;
	s->ready_fd = ready_fd;
	s->sigfd = s->notify_fd = s->listen_fd = s->cons_fd = s->log_fd = -1;
	s->exec_fd = -1;
	s->net.ufd = s->net.pfd = s->net.uml_fd = -1;
	for (i = 0; i < MAX_CLIENTS; i++)
		s->cl[i].fd = -1;

	/* root without systemd: as the unit would run it (sysacct.c) */
	if (sysacct_drop(in)) {
		fail_boot(s, EX_FAIL, "cannot drop root for the system account");
		free(s);
		return EX_FAIL;
	}

	runlock = lock_take(in, LOCK_RUN, 1, 2000);
	if (runlock < 0) {
		snprintf(how, sizeof(how), "%s: already running", in->name);
		fail_boot(s, EX_STATE, how);
		free(s);
		return EX_STATE;
	}

	reap_orphans(in);
	if (kernel_check(in->name, c, kernel) ||
	    flavour_check(in->name, *c->flavour ? c->flavour
					       : host_default_flavour())) {
		tell_starter(s, 0, EX_HOST, "host check failed");
		rc = EX_HOST;
		goto out_lock;
	}
	if (disk_check(in, c, 1)) {
		tell_starter(s, 0, EX_STATE, "disk check failed");
		rc = EX_STATE;
		goto out_lock;
	}

	/* Runtime directory: ours alone; stale files of a crash go */
	/* Under systemd it is the unit's RuntimeDirectory=, maybe a mount
	 * point: empty it rather than replace it.
	 */
	rc = mkdir_p(in->sc->rundir, in->sc->user ? 0700 : 0755);
	if (!rc && mkdir(in->run, 0700) && errno != EEXIST)
		rc = -errno;
	if (!rc) {
		rm_contents(in->run);
		chmod(in->run, 0700);
	}
	if (rc) {
		err("%s: cannot create %s: %s", in->name, in->run,
		    strerror(-rc));
		tell_starter(s, 0, EX_FAIL, "cannot create runtime directory");
		rc = EX_FAIL;
		goto out_lock;
	}
	inst_path(in, path, 0, EXCHANGE_DIR);
	mkdir_p(path, 0700);
	pathf(path, "%s/%s/jobs", in->state, EXCHANGE_DIR);
	rm_rf(path);
	mkdir_p(path, 0700);
	inst_path(in, s->state_path, 1, STATE_FILE);

	sigemptyset(&mask);
	sigaddset(&mask, SIGCHLD);
	sigaddset(&mask, SIGTERM);
	sigaddset(&mask, SIGINT);
	sigaddset(&mask, SIGHUP);
	sigprocmask(SIG_BLOCK, &mask, NULL);
	signal(SIGPIPE, SIG_IGN);
	s->sigfd = signalfd(-1, &mask, SFD_CLOEXEC | SFD_NONBLOCK);

	inst_path(in, path, 1, NOTIFY_SOCK);
	s->notify_fd = mc_bind_notify(path);
	inst_path(in, path, 1, CONTROL_SOCK);
	s->listen_fd = listen_unix(path);
	if (s->sigfd < 0 || s->notify_fd < 0 || s->listen_fd < 0 ||
	    socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sp)) {
		err("%s: cannot create sockets in %s: %s", in->name, in->run,
		    strerror(errno));
		tell_starter(s, 0, EX_FAIL, "cannot create sockets");
		rc = EX_FAIL;
		goto out;
	}
	s->cons_fd = sp[0];
	set_nonblock(s->cons_fd);
	if (c->exec == EXEC_DEBUG_SHELL &&
	    !socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, ex)) {
		s->exec_fd = ex[0];
		set_nonblock(s->exec_fd);
	}

	inst_path(in, path, 0, CONSOLE_LOG);
	s->log_fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC,
			 0640);
	if (s->log_fd >= 0) {
		struct stat st;
		char hdr[256];
		time_t t = time(NULL);

		if (!fstat(s->log_fd, &st))
			s->log_size = st.st_size;
		strftime(how, sizeof(how), "%Y-%m-%d %H:%M:%S", localtime(&t));
		snprintf(hdr, sizeof(hdr), "-- umarmctl: %s started %s --\n",
			 in->name, how);
		log_console(s, hdr, strlen(hdr));
	}

	s->st.supervisor = getpid();
	snprintf(s->st.net, sizeof(s->st.net), "none");
	publish(s, "starting");

	if (net_start(&s->net, in, c, kernel)) {
		close(sp[1]);
		tell_starter(s, 0, EX_FAIL, *s->net.why ? s->net.why :
			     "network setup failed");
		rc = EX_FAIL;
		goto out;
	}
	s->st.passt = s->net.passt;
	snprintf(s->st.net, sizeof(s->st.net), "%s",
		 net_backend_name(&s->net));
	/* virtio-uml.0 is the configured vhost-user interface, if any */
	s->next_plat = 1;
	publish_nif(s);

	store = malloc(65536);
	rc = store ? build_argv(s, kernel, argv, store, 65536) : -ENOMEM;
	if (rc < 0) {
		close(sp[1]);
		if (rc != -EINVAL)
			err("%s: kernel command line too long", in->name);
		tell_starter(s, 0, EX_CONFIG, rc == -EINVAL ?
			     "bad state directory" : "kernel command line too long");
		rc = EX_CONFIG;
		goto out;
	}
	if (log_verbose) {
		for (i = 0; argv[i]; i++)
			fprintf(stderr, "%s%s", i ? " " : "umarmctl: exec ",
				argv[i]);
		fputc('\n', stderr);
	}

	s->t0 = boot_ms();
	s->ready_deadline = s->t0 + c->ready_timeout * 1000ULL;
	s->st.started = now_ms();
	rc = spawn_uml(s, argv, sp[1], ex[1]);
	close(sp[1]);
	if (ex[1] >= 0)
		close(ex[1]);
	if (s->net.uml_fd >= 0) {
		close(s->net.uml_fd);
		s->net.uml_fd = -1;
	}
	if (rc) {
		err("%s: cannot start %s: %s", in->name, kernel,
		    strerror(-rc));
		tell_starter(s, 0, EX_FAIL, "fork failed");
		rc = EX_FAIL;
		goto out;
	}
	s->st.uml = s->uml;
	publish(s, "booting");
	/* a guest that never boots is SIGKILLed at ready_deadline */
	notify_extend(s->ready_deadline > boot_ms() ?
		      s->ready_deadline - boot_ms() + KILL_TIMEOUT_MS :
		      KILL_TIMEOUT_MS, "STATUS=Booting the guest");

	loop(s);
	/* helpers of a kernel killed from outside would keep its disks */
	kill(-s->uml, SIGKILL);

	exit_text(s, how, sizeof(how));
	if (!s->ready && !*s->fail) {
		char msg[384];

		snprintf(msg, sizeof(msg),
			 "%s: kernel exited before the guest booted (%s); see 'umarmctl logs %s'",
			 in->name, how, in->name);
		fail_boot(s, EX_BOOT, msg);
	}
	if (*s->fail) {
		rc = s->exit_code;
		snprintf(s->st.exit, sizeof(s->st.exit), "%.127s", s->fail);
		snprintf(s->st.status, sizeof(s->st.status), "failed");
	} else if (s->stop != STOP_NONE || (WIFEXITED(s->uml_status) &&
					   !WEXITSTATUS(s->uml_status))) {
		/* stopped by us, or the guest powered itself off */
		rc = 0;
		snprintf(s->st.exit, sizeof(s->st.exit), "%s", how);
		snprintf(s->st.status, sizeof(s->st.status), "stopped");
	} else {
		rc = EX_FAIL;
		snprintf(s->st.exit, sizeof(s->st.exit), "%s", how);
		snprintf(s->st.status, sizeof(s->st.status), "failed");
	}
	info("%s (%s)", s->st.status, how);

out:
	net_stop(&s->net);
	for (i = 1; i < NIF_MAX; i++)
		hotplug_stop(s, i);
	if (s->uml > 0 && !s->uml_done) {
		kill(-s->uml, SIGKILL);
		waitpid(s->uml, NULL, 0);
	}
	for (i = 0; i < MAX_CLIENTS; i++)
		if (s->cl[i].fd >= 0)
			close(s->cl[i].fd);
	if (s->log_fd >= 0)
		close(s->log_fd);
	if (s->exec_fd >= 0)
		close(s->exec_fd);
	if (!*s->st.status || !strcmp(s->st.status, "starting"))
		snprintf(s->st.status, sizeof(s->st.status), "failed");
	s->st.passt = 0;
	inst_path(in, path, 0, LAST_FILE);
	state_write(path, &s->st);
	rm_contents(in->run);
	rmdir(in->run);
	tell_starter(s, 0, rc ? rc : EX_BOOT, "stopped");
	free(store);
out_lock:
	lock_release(runlock);
	free(s);
	return rc;
}

/**
 * ctl_connect() - connect to the control socket of a running instance
 * @in:		instance
 *
 * Return: socket, negative errno on failure
 */
int ctl_connect(const struct inst *in)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	char path[PATH_LEN];
	int fd;

	inst_path(in, path, 1, CONTROL_SOCK);
	if (strlen(path) >= sizeof(sa.sun_path))
		return -ENAMETOOLONG;
	strcpy(sa.sun_path, path);
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	if (connect(fd, (struct sockaddr *)&sa, sizeof(sa))) {
		int rc = -errno;

		close(fd);
		return rc;
	}
	return fd;
}

/**
 * ctl_request() - send one control request and read its one-line reply
 * @in:		instance
 * @req:	request, without newline
 * @reply:	reply line, without newline
 * @len:	size of @reply
 *
 * Return: 0 on "OK" (what follows "OK " in @reply), -EIO on "ERR ..."
 *	   (text in @reply), negative errno
 */
int ctl_request(const struct inst *in, const char *req, char *reply,
		size_t len)
{
	char buf[1100];
	size_t o = 0;
	int fd, rc;

	if (len)
		*reply = 0;
	fd = ctl_connect(in);
	if (fd < 0)
		return fd;
	snprintf(buf, sizeof(buf), "%s\n", req);
	rc = write_all(fd, buf, strlen(buf));
	while (!rc && o < sizeof(buf) - 1) {
		struct pollfd p = { .fd = fd, .events = POLLIN };
		ssize_t n;

		if (poll(&p, 1, 10000) <= 0) {
			rc = -ETIMEDOUT;
			break;
		}
		n = read(fd, buf + o, sizeof(buf) - 1 - o);
		if (n <= 0) {
			rc = -ECONNRESET;
			break;
		}
		o += n;
		buf[o] = 0;
		if (strchr(buf, '\n'))
			break;
	}
	close(fd);
	if (rc)
		return rc;
	buf[strcspn(buf, "\n")] = 0;
	if (!strcmp(buf, "OK"))
		return 0;
	if (!strncmp(buf, "OK ", 3)) {
		if (len)
			snprintf(reply, len, "%s", buf + 3);
		return 0;
	}
	if (len)
		snprintf(reply, len, "%s", strncmp(buf, "ERR ", 4) ? buf
								   : buf + 4);
	return -EIO;
}
