/* SPDX-License-Identifier: GPL-2.0-or-later
 * umarmctl - manage User-Mode Linux instances
 *
 * sup.h - the supervisor's state, shared by its parts (not by the verbs)
 *
 * supervise.c sets an instance up and tears it down, loop.c runs the
 * event loop and the stop state machine, control.c serves the control
 * socket, conslog.c the console log and its markers, hotplug.c the
 * hot-plugged interfaces, umlcmd.c builds and spawns the kernel's command
 * line, sharens.c and vfsd.c the shares.  Only supervise.h and ctl.h are for the rest of umarmctl.
 */

#ifndef UMARM_SUP_H
#define UMARM_SUP_H

#include <stdint.h>
#include <sys/types.h>

#include "conf.h"
#include "net.h"
#include "nif.h"
#include "paths.h"
#include "state.h"
#include "vfsd.h"

#define MAX_CLIENTS		16
#define MAX_UML_ARGS		(64 + CONF_MAX_DISKS + VFSD_MAX)
#define UML_ARGS_STORE		65536	/* bytes for their strings */
#define CONSOLE_LOG_MAX		(4 << 20)	/* rotate to console.log.1 */
#define HALT_TIMEOUT_MS		5000
#define KILL_TIMEOUT_MS		5000
#define MC_TIMEOUT_MS		2000
/* systemd's timeouts get this much beyond ours: reaping, writing state */
#define EXTEND_MARGIN_MS	5000
#define LINE_MAX_SCAN		512


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
 * @in:		instance
 * @c:		its configuration
 * @st:		what the runtime state file says (publish())
 * @state_path:	that file, RUNDIR/NAME/state
 * @ready_fd:	pipe to "umarmctl start", -1 once told or under systemd
 * @sigfd:	signalfd: SIGCHLD, SIGTERM, SIGINT, SIGHUP
 * @notify_fd:	mconsole notifications from UML
 * @listen_fd:	control socket
 * @cons_fd:	our end of the console socketpair, -1 once UML closed it
 * @log_fd:	console.log
 * @exec_fd:	our end of the debug shell's channel (exec), or -1
 * @log_size:	bytes in console.log, for rotation
 * @net:	the configured interface's passt (and relay)
 * @hp:		hot-plugged interfaces, by id (0 unused)
 * @next_plat:	next virtio-uml platform device id, never reused in a run
 * @vfs:	virtiofsds of the virtio-fs shares (vfsd.c)
 * @cl:		control clients
 * @uml:	kernel pid (and process group)
 * @uml_status:	its wait status, once @uml_done
 * @uml_done:	the kernel has been reaped
 * @ready:	the guest has booted
 * @t0:		boot_ms() when the current boot began: the kernel spawned,
 *		mconsole "reboot" sent, or (the guest's own reboot) the new
 *		kernel's first word
 * @ready_deadline: boot_ms() by which it must have booted
 * @stop:	where the stop state machine is (loop.c)
 * @stop_deadline: boot_ms() at which it escalates
 * @rebooting:	mconsole "reboot" sent, the new kernel not up yet
 * @paused:	mconsole "stop" in effect
 * @mc_seen:	mconsole socket notifications so far (2nd: a reboot)
 * @line:	console line being assembled, for the markers
 * @linelen:	bytes in @line
 * @fail:	why the start failed, for last-run and the starter
 * @exit_code:	exit code that goes with @fail
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
	struct vfsd vfs[VFSD_MAX];
	struct client cl[MAX_CLIENTS];
	pid_t uml;
	int uml_status;
	int uml_done;
	int ready;
	uint64_t t0;
	uint64_t ready_deadline;
	enum stop_phase stop;
	uint64_t stop_deadline;
	int rebooting;
	int paused;
	int mc_seen;
	char line[LINE_MAX_SCAN];
	size_t linelen;
	char fail[384];
	int exit_code;
};

/* supervise.c */
void publish(struct sup *s, const char *status);
void notify_extend(uint64_t ms, const char *what);
void tell_starter(struct sup *s, int ok, int code, const char *msg);
void set_ready(struct sup *s, const char *how);
void fail_boot(struct sup *s, int code, const char *msg);
int mc(struct sup *s, const char *cmd, char *reply, size_t len);

/* loop.c */
void loop(struct sup *s);
void stop_start(struct sup *s, int hard);
int reboot_start(struct sup *s);
void kernel_reexec(struct sup *s);

/* control.c */
int listen_unix(const char *path);
void accept_client(struct sup *s);
void client_in(struct sup *s, struct client *c);

/* conslog.c */
void conslog_open(struct sup *s);
void log_console(struct sup *s, const char *buf, size_t n);
void check_marker(struct sup *s, const char *line);
int console_in(struct sup *s);
void notify_in(struct sup *s);

/* hotplug.c */
void publish_nif(struct sup *s);
void hotplug_add(struct sup *s, const char *args, char *reply, size_t len);
void hotplug_stop(struct sup *s, unsigned int id);
void hotplug_stop_all(struct sup *s);
void hotplug_reaped(struct sup *s, pid_t pid, int status);

/* umlcmd.c */
int build_argv(struct sup *s, const char *kernel, char **argv, char *store,
	       size_t size);
int spawn_uml(struct sup *s, char **argv, int cons, int exec);
void exit_text(struct sup *s, char *buf, size_t len);

#endif /* UMARM_SUP_H */
