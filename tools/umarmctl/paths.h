/* SPDX-License-Identifier: GPL-2.0-or-later
 * umarmctl - manage User-Mode Linux instances
 *
 * paths.h - where system and per-user instances live
 */

#ifndef UMARM_PATHS_H
#define UMARM_PATHS_H

#include "util.h"
#include "name.h"

/* sizeof(((struct sockaddr_un *)0)->sun_path) */
#define SUN_PATH_MAX	108

/*
 * Every name in an instance's directories (struct inst below: CONF, STATE,
 * RUN), so that a reader finds them in one place.
 */
#define INSTANCES_DIR	"instances"	/* CONFDIR/instances/NAME.conf */
/* STATE: persistent */
#define LOCK_OPS	".lock"		/* held while changing an instance */
#define LOCK_RUN	".run.lock"	/* held by the supervisor while up */
#define LAST_FILE	"last-run"	/* how the last run ended */
#define AUTOSTART_FILE	"autostart"	/* started by "umarmctl autostart" */
#define ROOT_IMG	"root.img"	/* a private root disk */
#define ROOT_COW	"root.cow"	/* or an overlay on a base image */
#define CONSOLE_LOG	"console.log"	/* the guest's console (and .1) */
#define SUPERVISOR_LOG	"supervisor.log" /* a daemon supervisor's stderr */
#define PASST_LOG	"passt.log"
#define VFSD_LOG	"virtiofsd.log"
#define EXCHANGE_DIR	"exchange"	/* hostfs-shared, GUEST_EXCHANGE */
#define JOBS_DIR	"jobs"		/* exchange/jobs: exec's jobs */
#define SHARES_DIR	"shares"	/* STATE/shares on exchange/shares */
#define SHARES_TABLE	"table"		/* shares/table: what the guest mounts */
#define GUEST_EXCHANGE	"/host"		/* the exchange directory in the guest */
/* RUN: while it runs (and UML's own directory, named by its umid) */
#define CONTROL_SOCK	"control"	/* the supervisor's (ctl.c) */
#define NOTIFY_SOCK	"notify"	/* UML's mconsole notifications */
#define STATE_FILE	"state"		/* what the supervisor publishes */
#define NIF_FILE	"net"		/* its network interfaces (nif.c) */
#define PASST_SOCK	"passt.sock"	/* vhost-user of the interface net0 */
#define HOTPLUG_SOCK	"net%u.sock"	/* of a hot-plugged netN */
#define VFSD_SOCK	"fs-%s.sock"	/* of a virtio-fs share NAME */

/**
 * struct scope - system (root) or per-user (XDG) set of instances
 * @user:	per-user instances
 * @confdir:	/etc/umarm or $XDG_CONFIG_HOME/umarm
 * @statedir:	/var/lib/umarm or $XDG_STATE_HOME/umarm
 * @rundir:	/run/umarm or $XDG_RUNTIME_DIR/umarm
 */
struct scope {
	int user;
	char confdir[PATH_LEN];
	char statedir[PATH_LEN];
	char rundir[PATH_LEN];
};

/**
 * struct inst - paths of one instance
 * @sc:		scope it belongs to
 * @name:	validated name
 * @conf:	configuration file: CONFDIR/instances/NAME.conf
 * @state:	persistent directory: STATEDIR/NAME (disks, logs, locks)
 * @run:	runtime directory: RUNDIR/NAME (sockets, runtime state)
 */
struct inst {
	const struct scope *sc;
	char name[NAME_MAX_LEN + 1];
	char conf[PATH_LEN];
	char state[PATH_LEN];
	char run[PATH_LEN];
};

/**
 * struct fs_id - a file system identity to return to, see inst_fs_owner()
 * @uid:	previous fsuid
 * @gid:	previous fsgid
 * @set:	whether it was changed
 */
struct fs_id {
	uid_t uid;
	gid_t gid;
	int set;
};

int scope_init(struct scope *sc, int user);
int inst_init(struct inst *in, const struct scope *sc, const char *name);
int inst_path(const struct inst *in, char *buf, int run, const char *file);
int inst_exists(const struct inst *in);
int inst_state_missing(const struct inst *in);
void inst_fs_owner(const struct inst *in, struct fs_id *saved);
void inst_fs_restore(const struct fs_id *saved);
int path_inside(const char *dir, const char *path, char *real);
void inst_tighten(const struct inst *in);
int inst_mkdir_state(const struct inst *in);

#endif /* UMARM_PATHS_H */
