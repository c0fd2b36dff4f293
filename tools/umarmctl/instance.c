// SPDX-License-Identifier: GPL-2.0-or-later
/* umarmctl - manage User-Mode Linux instances
 *
 * instance.c - create, rm, rename, clone, list, status, config, check
 */

#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include "cmd.h"
#include "disk.h"
#include "host.h"
#include "image.h"
#include "lock.h"
#include "log.h"
#include "sdnotify.h"
#include "state.h"
#include "supervise.h"
#include "text.h"
#include "rmtree.h"
#include "util.h"

#define ROOT_COW	"root.cow"
#define ROOT_IMG	"root.img"

/**
 * conf_load() - read and validate the configuration of an instance
 * @in:		instance
 * @c:		parsed configuration
 *
 * Return: 0 on success, EX_NOINST or EX_CONFIG (message printed)
 */
int conf_load(const struct inst *in, struct conf *c)
{
	struct conf_error e = { 0 };
	char *text;
	ssize_t n;

	conf_defaults(c);
	n = read_file(in->conf, &text, CONF_MAX_SIZE);
	if (n == -ENOENT) {
		err("%s: no such instance (no %s); see 'umarmctl list'%s",
		    in->name, in->conf,
		    in->sc->user && !getuid() ? ", or try --system" :
		    !in->sc->user ? ", or try --user" : "");
		return EX_NOINST;
	}
	if (n < 0) {
		err("%s: cannot read %s: %s", in->name, in->conf,
		    strerror(-n));
		return n == -EFBIG ? EX_CONFIG : EX_FAIL;
	}
	if (conf_parse(c, text, n, &e)) {
		if (e.line)
			err("%s: %s:%d: %s; fix the file (see umarm.conf(5))",
			    in->name, in->conf, e.line, e.msg);
		else
			err("%s: %s: %s; fix the file (see umarm.conf(5))",
			    in->name, in->conf, e.msg);
		free(text);
		return EX_CONFIG;
	}
	free(text);
	return 0;
}

/**
 * conf_save() - atomically write the configuration of an instance
 * @in:		instance
 * @c:		configuration
 *
 * Return: 0 on success, EX_FAIL (message printed)
 */
int conf_save(const struct inst *in, const struct conf *c)
{
	char buf[CONF_MAX_SIZE], dir[PATH_LEN];
	int n, rc;

	n = conf_format(c, buf, sizeof(buf));
	if (n < 0) {
		err("%s: configuration too large", in->name);
		return EX_FAIL;
	}
	/* System instances may run under their own account, which reads
	 * its configuration; a user's are the user's alone.
	 */
	pathf(dir, "%s/instances", in->sc->confdir);
	rc = mkdir_p(dir, in->sc->user ? 0700 : 0755);
	if (!rc)
		rc = write_file_atomic(in->conf, buf, n,
				       in->sc->user ? 0600 : 0644);
	if (rc) {
		err("%s: cannot write %s: %s", in->name, in->conf,
		    strerror(-rc));
		return EX_FAIL;
	}
	return 0;
}

/**
 * inst_open() - validate a name, and load its configuration
 * @x:		global options
 * @name:	instance name
 * @in:		instance paths
 * @c:		configuration, or NULL not to load it
 *
 * Return: 0 on success, an exit code otherwise (message printed)
 */
int inst_open(struct ctx *x, const char *name, struct inst *in,
	      struct conf *c)
{
	if (inst_init(in, &x->sc, name))
		return EX_USAGE;
	return c ? conf_load(in, c) : (inst_exists(in) ? 0 : EX_NOINST);
}

/**
 * unit_installed() - whether umarm@.service is installed for a manager
 * @user:	user manager
 *
 * Return: 1 if found
 */
static int unit_installed(int user)
{
	static const char *sys[] = { "/etc/systemd/system",
				     "/usr/lib/systemd/system",
				     "/lib/systemd/system" };
	static const char *usr[] = { "/etc/systemd/user",
				     "/usr/lib/systemd/user" };
	const char **d = user ? usr : sys;
	size_t n = user ? ARRAY_SIZE(usr) : ARRAY_SIZE(sys), i;
	char p[PATH_LEN];

	for (i = 0; i < n; i++)
		if (!pathf(p, "%s/umarm@.service", d[i]) && !access(p, R_OK))
			return 1;
	return 0;
}

/**
 * use_systemd() - whether start/stop go through the service manager
 * @x:		global options
 *
 * Yes when systemd is running, the unit is installed, and (for per-user
 * instances) the user manager is reachable; never with --no-systemd, and
 * never when the directories are overridden (tests).
 *
 * Return: 1 or 0
 */
int use_systemd(struct ctx *x)
{
	const char *rt = getenv("XDG_RUNTIME_DIR");
	char p[PATH_LEN];

	if (x->no_systemd || !under_systemd() ||
	    getenv("UMARM_STATE_DIR") || !unit_installed(x->sc.user))
		return 0;
	if (!x->sc.user)
		return !getuid();
	return rt && !pathf(p, "%s/systemd/private", rt) && !access(p, F_OK);
}

/**
 * systemctl() - run "systemctl [--user] VERB umarm@NAME.service"
 * @x:		global options
 * @verb:	systemctl verb
 * @name:	instance name
 *
 * Return: exit code of systemctl, or EX_FAIL
 */
int systemctl(struct ctx *x, const char *verb, const char *name)
{
	char unit[NAME_MAX_LEN + 32];
	int st;
	pid_t pid;

	snprintf(unit, sizeof(unit), "umarm@%s.service", name);
	pid = fork();
	if (pid < 0)
		return EX_FAIL;
	if (!pid) {
		if (x->sc.user)
			execlp("systemctl", "systemctl", "--user", verb, unit,
			       (char *)NULL);
		else
			execlp("systemctl", "systemctl", verb, unit,
			       (char *)NULL);
		_exit(127);
	}
	if (waitpid(pid, &st, 0) < 0 || !WIFEXITED(st))
		return EX_FAIL;
	return WEXITSTATUS(st);
}

/**
 * root_from_base() - make a private root image from a base image
 * @in:		instance
 * @base:	base image
 * @size:	size of the private image (>= base size)
 *
 * Sparse copy, then grow the file and the ext4 filesystem in it
 * (resize2fs from e2fsprogs, if installed; otherwise the guest sees the
 * old filesystem size until resized inside).
 *
 * Return: 0 on success, negative errno (message printed)
 */
static int root_from_base(const struct inst *in, const char *base,
			  uint64_t size)
{
	char path[PATH_LEN];
	struct stat st;
	int rc;

	inst_path(in, path, 0, ROOT_IMG);
	unlink(path);
	if (stat(base, &st))
		return -errno;
	if ((uint64_t)st.st_size > size) {
		char b[32];

		format_size(st.st_size, b, sizeof(b));
		err("%s: --disk is smaller than the base image (%s bytes)",
		    in->name, b);
		return -EINVAL;
	}
	info("%s: copying %s into a private %llu MiB root disk...",
	     in->name, base, (unsigned long long)(size >> 20));
	rc = copy_file_sparse(base, path, 0600, 0);
	if (!rc && truncate(path, size))
		rc = -errno;
	if (rc) {
		err("%s: cannot create %s: %s", in->name, path, strerror(-rc));
		unlink(path);
		return rc;
	}
	if ((uint64_t)st.st_size < size && !access("/sbin/resize2fs", X_OK)) {
		char *fsck[] = { "/sbin/e2fsck", "-fp", path, NULL };
		char *grow[] = { "/sbin/resize2fs", path, NULL };

		/* e2fsck's "fixed something" (1) is no reason to stop */
		run_argv(fsck);
		if (run_argv(grow))
			warn("%s: resize2fs could not grow the filesystem in %s; the extra space stays unused",
			     in->name, path);
	}
	return 0;
}

/**
 * image_defaults() - settings that depend on what the image runs
 * @c:		configuration being created
 * @base:	base image path
 *
 * The minimal and musl images (images/minimal/init.c) run umarm.run=PATH
 * and power off: give them a shell on the console, which is also what
 * exec types into, and their root file system read-write ("rw": their
 * init remounts nothing, and the disk is the instance's own overlay).
 * The debian image runs systemd, whose console has a login prompt: exec
 * uses systemd's debug shell on tty9 instead.
 */
static void image_defaults(struct conf *c, const char *base)
{
	const char *b = strrchr(base, '/') ? strrchr(base, '/') + 1 : base;

	if ((!strncmp(b, "minimal", 7) || !strncmp(b, "musl", 4)) &&
	    !*c->cmdline)
		snprintf(c->cmdline, sizeof(c->cmdline), "rw umarm.run=/bin/sh");
	if (!strncmp(b, "debian", 6))
		c->exec = EXEC_DEBUG_SHELL;
}

/**
 * cmd_create() - umarmctl create NAME [options]
 * @x:		global options
 * @argc:	arguments after the verb
 * @argv:	arguments
 *
 * The configuration file is written last: it is the commit point, so an
 * interrupted create leaves no half instance behind (just a state
 * directory that the next create of that name reuses).
 *
 * Return: exit code
 */
int cmd_create(struct ctx *x, int argc, char **argv)
{
	static const struct option opts[] = {
		{ "image", required_argument, NULL, 'i' },
		{ "flavour", required_argument, NULL, 'f' },
		{ "flavor", required_argument, NULL, 'f' },
		{ "mem", required_argument, NULL, 'm' },
		{ "memory", required_argument, NULL, 'm' },
		{ "cpus", required_argument, NULL, 'c' },
		{ "disk", required_argument, NULL, 'd' },
		{ "network", required_argument, NULL, 'n' },
		{ "port", required_argument, NULL, 'p' },
		{ "kernel", required_argument, NULL, 'k' },
		{ "cmdline", required_argument, NULL, 'C' },
		{ "ready", required_argument, NULL, 'r' },
		{ 0 },
	};
	const char *image = "minimal", *disk = NULL, *fl = NULL;
	char base[PATH_LEN], buf[PATH_LEN + 64];
	struct conf_error e;
	struct inst in;
	struct conf c;
	uint64_t dsize = 0;
	int o, lock, rc;

	conf_defaults(&c);
	/* getopt wants a program name first: that is the verb's slot */
	argc++;
	argv--;
	optind = 0;
	while ((o = getopt_long(argc, argv, "i:f:m:c:d:n:p:k:C:r:", opts,
				NULL)) != -1) {
		const char *key;

		switch (o) {
		case 'i': image = optarg; continue;
		case 'd': disk = optarg; continue;
		case 'f': key = "flavour"; fl = optarg; break;
		case 'm': key = "memory"; break;
		case 'c': key = "cpus"; break;
		case 'n': key = "network"; break;
		case 'p': key = "port"; break;
		case 'k': key = "kernel"; break;
		case 'C': key = "cmdline"; break;
		case 'r': key = "ready"; break;
		default:
			return EX_USAGE;
		}
		/* Reuse the parser: same validation and messages as files */
		snprintf(buf, sizeof(buf), "%s = %s\ndisk0 = x\n", key, optarg);
		if (conf_parse(&c, buf, strlen(buf), &e)) {
			err("--%s: %s", key, e.msg);
			return EX_USAGE;
		}
		c.disk[0].set = 0;
	}
	if (optind != argc - 1) {
		err("usage: umarmctl create NAME [--image debian|minimal|musl|FILE] [--flavour 4k|16k] [--mem SIZE] [--cpus N] [--disk SIZE]");
		return EX_USAGE;
	}
	if (inst_init(&in, &x->sc, argv[optind]))
		return EX_USAGE;
	if (disk && (parse_size(disk, &dsize) || dsize < (16ULL << 20))) {
		err("--disk: '%s' is not a size of at least 16M", disk);
		return EX_USAGE;
	}
	if (!fl) {
		fl = host_default_flavour();
		if (!fl) {
			err("%s: host page size %ld has no matching flavour (4k, 16k)",
			    in.name, sysconf(_SC_PAGESIZE));
			return EX_HOST;
		}
		strcpy(c.flavour, fl);
	}
	if (flavour_check(in.name, c.flavour))
		return EX_HOST;

	rc = inst_mkdir_state(&in);
	if (rc) {
		err("%s: cannot create %s: %s", in.name, in.state,
		    strerror(-rc));
		return EX_FAIL;
	}
	lock = lock_ops(&in);
	if (lock < 0)
		return EX_STATE;
	if (inst_exists(&in)) {
		err("%s: instance already exists (%s); 'umarmctl rm %s' first or pick another name",
		    in.name, in.conf, in.name);
		rc = EX_STATE;
		goto out;
	}
	if (image_resolve(image, base)) {
		rc = EX_FAIL;
		goto out;
	}
	snprintf(c.image, sizeof(c.image), "%s", image);
	image_defaults(&c, base);
	if (dsize) {
		if (root_from_base(&in, base, dsize)) {
			rc = EX_FAIL;
			goto out;
		}
		conf_disk_parse(ROOT_IMG, &c.disk[0]);
	} else {
		/* UML creates the overlay at first boot */
		inst_path(&in, buf, 0, ROOT_COW);
		unlink(buf);
		snprintf(buf, sizeof(buf), "%s,%s", ROOT_COW, base);
		if (conf_disk_parse(buf, &c.disk[0])) {
			err("%s: base image path contains ','", in.name);
			rc = EX_FAIL;
			goto out;
		}
	}
	rc = conf_save(&in, &c);
	if (!rc)
		info("%s: created (%s, flavour %s, base %s)", in.name,
		     x->sc.user ? "per-user" : "system", c.flavour, base);
out:
	lock_release(lock);
	return rc;
}

/**
 * cmd_rm() - umarmctl rm NAME... [--force]
 * @x:		global options
 * @argc:	arguments after the verb
 * @argv:	arguments
 *
 * Return: exit code
 */
int cmd_rm(struct ctx *x, int argc, char **argv)
{
	int i, force = 0, rc = 0, n = 0;

	for (i = 0; i < argc; i++)
		if (!strcmp(argv[i], "-f") || !strcmp(argv[i], "--force"))
			force = 1;
	for (i = 0; i < argc; i++) {
		struct inst in;
		int lock, run, r;

		if (argv[i][0] == '-')
			continue;
		n++;
		if (inst_init(&in, &x->sc, argv[i])) {
			rc = EX_USAGE;
			continue;
		}
		if (access(in.state, F_OK) && !inst_exists(&in)) {
			err("%s: no such instance", in.name);
			rc = EX_NOINST;
			continue;
		}
		inst_mkdir_state(&in);
		if (force && inst_running(&in)) {
			char *args[] = { in.name, NULL };

			cmd_kill(x, 1, args);
		}
		lock = lock_ops(&in);
		if (lock < 0) {
			rc = EX_STATE;
			continue;
		}
		/* Hold the run lock so that nobody starts it meanwhile */
		run = lock_take(&in, LOCK_RUN, 1, 0);
		if (run < 0) {
			err("%s: is running; 'umarmctl stop %s' first, or rm --force",
			    in.name, in.name);
			lock_release(lock);
			rc = EX_STATE;
			continue;
		}
		/* Config first: the instance is gone once it is */
		if (unlink(in.conf) && errno != ENOENT) {
			err("%s: cannot remove %s: %s", in.name, in.conf,
			    strerror(errno));
			rc = EX_FAIL;
		} else {
			fsync_dir_of(in.conf);
			/* the lock files go while we hold them: a waiter
			 * finds them gone (lock_valid() in lock.c)
			 */
			r = rm_rf(in.state);
			if (r) {
				err("%s: cannot remove %s: %s", in.name,
				    in.state, strerror(-r));
				rc = EX_FAIL;
			}
		}
		lock_release(run);
		lock_release(lock);
	}
	if (!n) {
		err("usage: umarmctl rm NAME... [--force]");
		return EX_USAGE;
	}
	return rc;
}

/**
 * relocate() - rewrite disk paths that pointed into the old state dir
 * @c:		configuration
 * @from:	old state directory
 * @to:		new state directory
 */
static void relocate(struct conf *c, const char *from, const char *to)
{
	size_t n = strlen(from);
	int i;

	for (i = 0; i < CONF_MAX_DISKS; i++) {
		char *f[2] = { c->disk[i].file, c->disk[i].base };
		int j;

		for (j = 0; j < 2; j++) {
			char tmp[CONF_VALUE_MAX];

			if (strncmp(f[j], from, n) || f[j][n] != '/')
				continue;
			snprintf(tmp, sizeof(tmp), "%s%s", to, f[j] + n);
			strcpy(f[j], tmp);
		}
	}
}

/**
 * two_names() - open NAME (stopped, locked) and validate NEWNAME
 * @x:		global options
 * @argc:	argument count
 * @argv:	NAME NEWNAME
 * @a:		old instance
 * @b:		new instance
 * @c:		configuration of @a
 * @locks:	three slots: the ops and run locks of @a taken here, and
 *		-1 for the ops lock of @b (taken by clone; rename moves
 *		@a's to @b)
 * @verb:	for messages
 *
 * Return: 0, or an exit code (locks released)
 */
static int two_names(struct ctx *x, int argc, char **argv, struct inst *a,
		     struct inst *b, struct conf *c, int *locks,
		     const char *verb)
{
	int rc;

	locks[0] = locks[1] = locks[2] = -1;
	if (argc != 2) {
		err("usage: umarmctl %s NAME NEWNAME", verb);
		return EX_USAGE;
	}
	rc = inst_open(x, argv[0], a, c);
	if (rc)
		return rc;
	if (inst_init(b, &x->sc, argv[1]))
		return EX_USAGE;
	if (inst_exists(b) || !access(b->state, F_OK)) {
		err("%s: '%s' already exists", a->name, b->name);
		return EX_STATE;
	}
	locks[0] = lock_ops(a);
	if (locks[0] < 0)
		return EX_STATE;
	locks[1] = lock_take(a, LOCK_RUN, 1, 0);
	if (locks[1] < 0) {
		err("%s: is running; 'umarmctl stop %s' first", a->name,
		    a->name);
		lock_release(locks[0]);
		return EX_STATE;
	}
	return 0;
}

/**
 * cmd_rename() - umarmctl rename NAME NEWNAME
 * @x:		global options
 * @argc:	arguments after the verb
 * @argv:	arguments
 *
 * Order for crash safety: move the state directory, write the new
 * configuration, remove the old one.  A crash in between leaves the old
 * configuration pointing at a missing directory (reported by start) or two
 * configurations, never lost disks.
 *
 * Return: exit code
 */
int cmd_rename(struct ctx *x, int argc, char **argv)
{
	struct inst a, b;
	struct conf c;
	int locks[3], rc;

	rc = two_names(x, argc, argv, &a, &b, &c, locks, "rename");
	if (rc)
		return rc;
	/* Never over a directory made meanwhile (even empty: a create of
	 * NEWNAME in progress).  Our locks move with the directory: from
	 * now on they are NEWNAME's (see lock.c).
	 */
	rc = renameat2(AT_FDCWD, a.state, AT_FDCWD, b.state, RENAME_NOREPLACE);
	/* file systems without it (EINVAL): check, then rename */
	if (rc && errno == EINVAL)
		rc = !access(b.state, F_OK) ? (errno = EEXIST, -1) :
		     rename(a.state, b.state);
	if (rc) {
		int e = errno;

		if (e == EEXIST)
			err("%s: '%s' already exists", a.name, b.name);
		else
			err("%s: cannot rename %s to %s: %s", a.name, a.state,
			    b.state, strerror(e));
		rc = e == EEXIST ? EX_STATE : EX_FAIL;
		goto out;
	}
	fsync_dir_of(b.state);
	relocate(&c, a.state, b.state);
	rc = conf_save(&b, &c);
	if (!rc && unlink(a.conf))
		warn("%s: cannot remove %s: %s", a.name, a.conf,
		     strerror(errno));
	if (use_systemd(x))
		info("%s: if it was enabled, run 'umarmctl enable %s'",
		     b.name, b.name);
out:
	lock_release(locks[1]);
	lock_release(locks[0]);
	return rc;
}

/**
 * cmd_clone() - umarmctl clone NAME NEWNAME
 * @x:		global options
 * @argc:	arguments after the verb
 * @argv:	arguments
 *
 * Copies the disks in the state directory (sparse), keeps shared base
 * images shared, writes the new configuration last.
 *
 * Return: exit code
 */
int cmd_clone(struct ctx *x, int argc, char **argv)
{
	struct inst a, b;
	struct conf c;
	int locks[3], rc, i;

	rc = two_names(x, argc, argv, &a, &b, &c, locks, "clone");
	if (rc)
		return rc;
	/* NEWNAME is ours if we make its directory, and locked by us
	 * before anything goes in (another create or clone of it waits,
	 * then finds it exists)
	 */
	if (mkdir(b.state, 0700)) {
		err("%s: cannot create %s: %s", a.name, b.state,
		    errno == EEXIST ? "another command made it meanwhile" :
		    strerror(errno));
		rc = EX_STATE;
		goto out;
	}
	locks[2] = lock_ops(&b);
	if (locks[2] < 0 || inst_exists(&b)) {
		err("%s: '%s' was created meanwhile", a.name, b.name);
		rc = EX_STATE;
		goto out;
	}
	for (i = 0; !rc && i < CONF_MAX_DISKS; i++) {
		char f[PATH_LEN], g[PATH_LEN];
		const char *file = c.disk[i].file;

		if (!c.disk[i].set)
			continue;
		disk_abs(&a, file, f);
		if (path_inside(a.state, f, g) != 1)
			continue;	/* outside the instance: shared */
		if (access(f, F_OK))
			continue;	/* overlay not created yet */
		if (*file == '/') {
			relocate(&c, a.state, b.state);
			disk_abs(&b, c.disk[i].file, g);
		} else {
			disk_abs(&b, file, g);
		}
		/* the instance's account controls its directory */
		rc = copy_file_sparse(f, g, 0600, O_NOFOLLOW);
		if (rc)
			err("%s: cannot copy %s to %s: %s", a.name, f, g,
			    strerror(-rc));
	}
	if (!rc)
		rc = conf_save(&b, &c);
	else
		rm_rf(b.state);	/* lock files too: see lock.c */
	rc = rc ? EX_FAIL : 0;
out:
	lock_release(locks[2]);
	lock_release(locks[1]);
	lock_release(locks[0]);
	return rc;
}

/**
 * json_str() - print a JSON string literal on stdout
 * @s:		string, any bytes (see json_put())
 */
void json_str(const char *s)
{
	json_put(stdout, s);
}

/**
 * struct row - what list and status show about one instance
 */
struct row {
	char name[NAME_MAX_LEN + 1];
	int running;
	struct state st;
	struct state last;
	struct conf c;
	int conf_ok;
	int unknown;
};

/**
 * row_load() - gather the facts about an instance
 * @in:		instance
 * @r:		row to fill
 *
 * Another user's instance may be unreadable (mode 0700): its state is
 * "unknown" (@r->unknown holds the errno), never a guess of "stopped".
 */
static void row_load(const struct inst *in, struct row *r)
{
	char path[PATH_LEN];
	int run;

	memset(r, 0, sizeof(*r));
	snprintf(r->name, sizeof(r->name), "%s", in->name);
	log_mute = 1;
	r->conf_ok = !conf_load(in, &r->c);
	log_mute = 0;
	run = inst_running(in);
	if (run < 0) {
		r->unknown = -run;
		snprintf(r->st.status, sizeof(r->st.status), "unknown");
		return;
	}
	r->running = run;
	inst_path(in, path, 1, STATE_FILE);
	if (r->running)
		state_read(path, &r->st);
	inst_path(in, path, 0, LAST_FILE);
	state_read(path, &r->last);
	if (!r->running) {
		struct state dead;

		/* a runtime state without a live supervisor: it was killed */
		inst_path(in, path, 1, STATE_FILE);
		if (!state_read(path, &dead) && *dead.status) {
			snprintf(r->last.status, sizeof(r->last.status),
				 "failed");
			snprintf(r->last.exit, sizeof(r->last.exit),
				 "supervisor (pid %d) died while %s",
				 (int)dead.supervisor, dead.status);
		}
	}
	if (!r->running)
		snprintf(r->st.status, sizeof(r->st.status), "%s",
			 r->conf_ok ? "stopped" : "broken");
	else if (!*r->st.status)
		snprintf(r->st.status, sizeof(r->st.status), "starting");
}

/**
 * print_uptime() - format a duration since a wall-clock time
 * @since_ms:	start, ms since the epoch
 * @buf:	output
 * @len:	size of @buf
 */
static void print_uptime(uint64_t since_ms, char *buf, size_t len)
{
	uint64_t s = since_ms ? (now_ms() - since_ms) / 1000 : 0;

	if (!since_ms)
		snprintf(buf, len, "-");
	else if (s < 120)
		snprintf(buf, len, "%llus", (unsigned long long)s);
	else if (s < 7200)
		snprintf(buf, len, "%llumin", (unsigned long long)s / 60);
	else if (s < 172800)
		snprintf(buf, len, "%lluh", (unsigned long long)s / 3600);
	else
		snprintf(buf, len, "%llud", (unsigned long long)s / 86400);
}

/**
 * row_json() - print one instance as a JSON object
 * @x:		global options
 * @r:		row
 */
static void row_json(struct ctx *x, const struct row *r)
{
	printf("{\"name\":");
	json_str(r->name);
	printf(",\"scope\":\"%s\",\"state\":", x->sc.user ? "user" : "system");
	json_str(r->st.status);
	printf(",\"flavour\":");
	json_str(r->conf_ok ? r->c.flavour : "");
	printf(",\"memory\":%llu,\"cpus\":%u,\"network\":",
	       (unsigned long long)(r->conf_ok ? r->c.memory : 0),
	       r->conf_ok ? r->c.cpus : 0);
	json_str(r->running ? r->st.net : r->conf_ok ? conf_net_name(&r->c)
						     : "");
	printf(",\"image\":");
	json_str(r->conf_ok ? r->c.image : "");
	printf(",\"pid\":%d,\"kernel_pid\":%d,\"started_ms\":%llu,\"ready_ms\":%llu",
	       r->running ? (int)r->st.supervisor : 0,
	       r->running ? (int)r->st.uml : 0,
	       (unsigned long long)(r->running ? r->st.started : 0),
	       (unsigned long long)(r->running ? r->st.ready : 0));
	printf(",\"last_exit\":");
	json_str(r->last.exit);
	printf("}");
}

/**
 * cmd_list() - umarmctl list [--json]
 * @x:		global options
 * @argc:	arguments after the verb
 * @argv:	arguments
 *
 * Return: exit code
 */
int cmd_list(struct ctx *x, int argc, char **argv)
{
	char dir[PATH_LEN], **names = NULL;
	struct dirent *de;
	int n = 0, i, first = 1;
	DIR *d;

	for (i = 0; i < argc; i++)
		if (!strcmp(argv[i], "--json") || !strcmp(argv[i], "-o") ||
		    !strcmp(argv[i], "json"))
			x->json = 1;
	pathf(dir, "%s/instances", x->sc.confdir);
	d = opendir(dir);
	while (d && (de = readdir(d))) {
		size_t l = strlen(de->d_name);
		char **nn;

		if (l < 6 || strcmp(de->d_name + l - 5, ".conf") ||
		    de->d_name[0] == '.')
			continue;
		nn = realloc(names, (n + 1) * sizeof(*names));
		if (!nn)
			break;
		names = nn;
		names[n] = xstrdup(de->d_name);
		names[n++][l - 5] = 0;
	}
	if (d)
		closedir(d);
	/* a handful of names: insertion sort */
	for (i = 1; i < n; i++) {
		int j = i;

		while (j > 0 && strcmp(names[j - 1], names[j]) > 0) {
			char *t = names[j];

			names[j] = names[j - 1];
			names[--j] = t;
		}
	}

	if (x->json)
		printf("[");
	else if (n)
		printf("%-20s %-9s %-7s %-7s %-6s %-8s %-7s %s\n", "NAME",
		       "STATE", "FLAVOUR", "MEMORY", "CPUS", "NETWORK", "UPTIME",
		       "IMAGE");
	for (i = 0; i < n; i++) {
		struct inst in;
		struct row r;
		char mem[32], up[32];

		if (inst_init(&in, &x->sc, names[i]))
			continue;
		row_load(&in, &r);
		if (x->json) {
			if (!first)
				printf(",");
			row_json(x, &r);
			first = 0;
			continue;
		}
		format_size(r.conf_ok ? r.c.memory : 0, mem, sizeof(mem));
		print_uptime(r.running ? r.st.started : 0, up, sizeof(up));
		printf("%-20s %-9s %-7s %-7s %-6u %-8s %-7s %s\n", r.name,
		       r.st.status, r.conf_ok ? r.c.flavour : "-",
		       r.conf_ok ? mem : "-", r.conf_ok ? r.c.cpus : 0,
		       r.running ? r.st.net :
		       r.conf_ok ? conf_net_name(&r.c) : "-", up,
		       r.conf_ok ? r.c.image : "-");
	}
	if (x->json)
		printf("]\n");
	else if (!n)
		fprintf(stderr, "No %s instances. Create one with 'umarmctl create NAME'.\n",
			x->sc.user ? "per-user" : "system");
	else
		printf("\n%d instance%s listed.\n", n, n == 1 ? "" : "s");
	for (i = 0; i < n; i++)
		free(names[i]);
	free(names);
	return 0;
}

/**
 * cmd_status() - umarmctl status NAME... [--json]
 * @x:		global options
 * @argc:	arguments after the verb
 * @argv:	arguments
 *
 * Return: 0 if all named instances are running, EX_STATE if one is not
 *	   (like "systemctl status" returning 3), EX_FAIL if we cannot tell
 *	   (another user's), other exit codes on error
 */
int cmd_status(struct ctx *x, int argc, char **argv)
{
	int i, rc = 0, n = 0, d;

	for (i = 0; i < argc; i++)
		if (!strcmp(argv[i], "--json"))
			x->json = 1;
	if (x->json)
		printf("[");
	for (i = 0; i < argc; i++) {
		char k[PATH_LEN], mem[32], up[32], when[64];
		struct inst in;
		struct row r;
		time_t t;

		if (argv[i][0] == '-')
			continue;
		if (inst_init(&in, &x->sc, argv[i])) {
			rc = EX_USAGE;
			continue;
		}
		if (!inst_exists(&in)) {
			err("%s: no such instance; see 'umarmctl list'",
			    in.name);
			rc = EX_NOINST;
			continue;
		}
		row_load(&in, &r);
		if (x->json) {
			if (n++)
				printf(",");
			row_json(x, &r);
			if (!r.running && !rc)
				rc = r.unknown ? EX_FAIL : EX_STATE;
			continue;
		}
		if (n++)
			printf("\n");
		printf("%s (%s instance) - %s\n", r.name,
		       x->sc.user ? "per-user" : "system", r.st.status);
		if (r.unknown)
			printf("         Note: cannot tell whether it runs: %s: %s (ask its owner, or root)\n",
			       in.state, strerror(r.unknown));
		if (r.running) {
			t = r.st.started / 1000;
			strftime(when, sizeof(when), "%Y-%m-%d %H:%M:%S",
				 localtime(&t));
			print_uptime(r.st.started, up, sizeof(up));
			printf("        Since: %s (%s ago)", when, up);
			if (r.st.ready)
				printf("; booted in %.2fs",
				       (r.st.ready - r.st.started) / 1000.0);
			printf("\n   Supervisor: %d   Kernel pid: %d%s\n",
			       (int)r.st.supervisor, (int)r.st.uml,
			       use_systemd(x) ? "   (umarm@ unit)" : "");
			if (*r.st.mconsole)
				printf("     Mconsole: %s\n", r.st.mconsole);
		} else if (*r.last.status) {
			printf("     Last run: %s (%s)\n", r.last.status,
			       r.last.exit);
		}
		if (r.conf_ok) {
			kernel_path(&r.c, k);
			format_size(r.c.memory, mem, sizeof(mem));
			printf("      Flavour: %s   Memory: %s   CPUs: %u\n",
			       r.c.flavour, mem, r.c.cpus);
			printf("       Kernel: %s\n", k);
			for (d = 0; d < CONF_MAX_DISKS; d++) {
				if (!r.c.disk[d].set)
					continue;
				printf("        disk%d: %s%s%s\n", d,
				       r.c.disk[d].file,
				       *r.c.disk[d].base ? " over " : "",
				       r.c.disk[d].base);
			}
			printf("      Network: %s", conf_net_name(&r.c));
			if (r.running && r.c.net != NET_NONE)
				printf(" (%s)", r.st.net);
			for (d = 0; d < r.c.nports; d++)
				printf("%s%s%u:%u", d ? ", " : "; ports ",
				       r.c.port[d].udp ? "udp:" : "",
				       r.c.port[d].host, r.c.port[d].guest);
			printf("\n");
		}
		printf("       Config: %s\n        State: %s\n", in.conf,
		       in.state);
		if (!r.running && !rc)
			rc = r.unknown ? EX_FAIL : EX_STATE;
	}
	if (x->json)
		printf("]\n");
	if (!n && !rc) {
		err("usage: umarmctl status NAME...");
		return EX_USAGE;
	}
	return rc;
}

/**
 * cmd_config() - umarmctl config NAME: print the effective configuration
 * @x:		global options
 * @argc:	arguments after the verb
 * @argv:	arguments
 *
 * Return: exit code
 */
int cmd_config(struct ctx *x, int argc, char **argv)
{
	static char buf[CONF_MAX_SIZE];
	struct inst in;
	struct conf c;
	int rc;

	if (argc != 1) {
		err("usage: umarmctl config NAME");
		return EX_USAGE;
	}
	rc = inst_open(x, argv[0], &in, &c);
	if (rc)
		return rc;
	if (conf_format(&c, buf, sizeof(buf)) < 0)
		return EX_FAIL;
	printf("# %s\n%s", in.conf, buf);
	return 0;
}

/**
 * cmd_check() - umarmctl check [NAME]: can this host run (this) instance?
 * @x:		global options
 * @argc:	arguments after the verb
 * @argv:	arguments
 *
 * Return: 0 if everything needed is there, EX_HOST otherwise
 */
int cmd_check(struct ctx *x, int argc, char **argv)
{
	int fails = host_check(1);
	char k[PATH_LEN];

	if (argc >= 1) {
		struct inst in;
		struct conf c;
		int rc = inst_open(x, argv[0], &in, &c);

		if (rc)
			return rc;
		if (flavour_check(in.name, c.flavour))
			fails++;
		if (kernel_check(in.name, &c, k))
			fails++;
		if (disk_check(&in, &c, 1))
			fails++;
		printf("%-5s %-22s %s\n", fails ? "FAIL" : "ok", in.name,
		       fails ? "cannot start (see above)" : "can start");
	}
	return fails ? EX_HOST : 0;
}
