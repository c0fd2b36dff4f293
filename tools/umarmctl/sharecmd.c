// SPDX-License-Identifier: GPL-2.0-or-later
/* umarmctl - manage User-Mode Linux instances
 *
 * sharecmd.c - share add/rm/list: host directories offered to the guest
 *
 * A share is a 'share =' line of the configuration (umarm.conf(5)): the
 * image's init mounts every share at boot, from the table the supervisor
 * writes (sharens.c).  On a running instance "share add" also asks the
 * supervisor to make the host side ("share-add": a bind mount in the
 * kernel's namespace for hostfs, a virtiofsd hot-plugged through mconsole
 * for virtio-fs) and then mounts it in the guest through the exec channel,
 * as "net rm" unbinds there; "share rm" does the same backwards.
 */

#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

#include "cmd.h"
#include "confjson.h"
#include "ctl.h"
#include "host.h"
#include "lock.h"
#include "log.h"
#include "sysacct.h"
#include "text.h"
#include "util.h"

#define SHARE_GUEST_TIMEOUT_S	60

/**
 * struct share_args - what "share add" was given
 * @inst:	instance name
 * @host:	host directory, as typed
 * @guest:	guest directory, NULL for /mnt/SHARE
 * @name:	--name, NULL to derive it from @host
 * @ro:		--ro
 * @fs:		--transport
 */
struct share_args {
	const char *inst, *host, *guest, *name;
	int ro;
	enum conf_share_fs fs;
};

/**
 * add_args() - parse "NAME HOSTDIR [GUESTDIR] [--ro] [--name SHARE]
 *		[--transport hostfs|virtiofs]"
 * @argc:	arguments after "add"
 * @argv:	arguments
 * @a:		parsed
 *
 * Return: 0, or EX_USAGE (the usage, or what is wrong with a value, printed)
 */
static int add_args(int argc, char **argv, struct share_args *a)
{
	static const struct option opts[] = {
		{ "ro", no_argument, NULL, 'r' },
		{ "read-only", no_argument, NULL, 'r' },
		{ "name", required_argument, NULL, 'n' },
		{ "transport", required_argument, NULL, 't' },
		{ 0 },
	};
	int o;

	memset(a, 0, sizeof(*a));
	/* getopt wants a program name first: that is the verb's slot */
	argc++;
	argv--;
	optind = 0;
	while ((o = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		if (o == 'r') {
			a->ro = 1;
		} else if (o == 'n') {
			a->name = optarg;
		} else if (o == 't' && !strcmp(optarg, "virtiofs")) {
			a->fs = SHARE_VIRTIOFS;
		} else if (o == 't' && strcmp(optarg, "hostfs")) {
			err("--transport: '%s' is not a transport: use hostfs or virtiofs",
			    optarg);
			return EX_USAGE;
		} else if (o != 't') {
			return usage_error("share");
		}
	}
	if (argc - optind < 2 || argc - optind > 3)
		return usage_error("share");
	a->inst = argv[optind];
	a->host = argv[optind + 1];
	a->guest = argc - optind == 3 ? argv[optind + 2] : NULL;
	return 0;
}

/**
 * derive_name() - a share name from the host directory's last component
 * @c:		configuration, whose names it must not repeat
 * @host:	absolute host directory
 * @buf:	output, CONF_SHARE_NAME_MAX + 1
 *
 * Characters a name cannot hold become '_'; "-2", "-3" ... follow a name
 * that is taken.
 */
static void derive_name(const struct conf *c, const char *host, char *buf)
{
	char base[CONF_SHARE_NAME_MAX + 1], *b;
	const char *p = strrchr(host, '/');
	int n;

	snprintf(base, sizeof(base) - 3, "%s", p && p[1] ? p + 1 : "root");
	for (b = base; *b; b++)
		if (!strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.-", *b) ||
		    (b == base && (*b == '.' || *b == '-')))
			*b = '_';
	snprintf(buf, CONF_SHARE_NAME_MAX + 1, "%s", base);
	for (n = 2; conf_share_find(c, buf) >= 0 && n < 100000; n++)
		snprintf(buf, CONF_SHARE_NAME_MAX + 1, "%.26s-%d", base, n);
}

/**
 * mount_line() - the guest's shell command that mounts a share
 * @c:		configuration
 * @i:		the share
 * @guest:	its guest directory, quoted (sh_quote())
 * @line:	the command
 * @len:	size of @line
 *
 * nosuid,nodev: a host directory may hold setuid-root binaries or device
 * nodes, and they must not give a guest user guest root or devices (the
 * minimal image's init mounts shares MS_NOSUID too).
 *
 * hostfs takes the host path as its mount data.  busybox mount passes
 * the -o words it does not know as mount(2)'s data, which hostfs takes as
 * that path ("-o nosuid,nodev,/shares/NAME").  util-linux's mount uses
 * fsconfig(2) on new kernels, which hands hostfs each word as a parameter:
 * a bare path is refused there, "hostfs=/shares/NAME" is the parameter
 * (see the Debian image's umarm-hostfs).  So busybox mount where the
 * guest has it, as the boot-time scripts do, else mount with hostfs=.
 *
 * Return: 0, or -ENAMETOOLONG
 */
static int mount_line(const struct conf *c, int i, const char *guest,
		      char *line, size_t len)
{
	const struct conf_share *sh = &c->share[i];
	char opts[64 + CONF_SHARE_NAME_MAX], qbb[4 * sizeof(opts)];
	char qum[4 * sizeof(opts)], tag[4 * CONF_SHARE_NAME_MAX + 8];
	const char *name = conf_str(c, sh->name);
	int n;

	if (sh->fs == SHARE_VIRTIOFS) {
		if (sh_quote(name, tag, sizeof(tag)))
			return -ENAMETOOLONG;
		n = snprintf(line, len,
			     "mkdir -p %s && mount -t virtiofs -o %s %s %s",
			     guest, sh->ro ? "nosuid,nodev,ro" : "nosuid,nodev",
			     tag, guest);
		return n < 0 || (size_t)n >= len ? -ENAMETOOLONG : 0;
	}
	snprintf(opts, sizeof(opts), "nosuid,nodev,/%s/%s", SHARES_DIR, name);
	if (sh_quote(opts, qbb, sizeof(qbb)))
		return -ENAMETOOLONG;
	snprintf(opts, sizeof(opts), "nosuid,nodev,hostfs=/%s/%s", SHARES_DIR,
		 name);
	if (sh_quote(opts, qum, sizeof(qum)))
		return -ENAMETOOLONG;
	n = snprintf(line, len,
		     "mkdir -p %s && if command -v busybox >/dev/null 2>&1; "
		     "then busybox mount -t hostfs -o %s %s none %s; "
		     "else mount -t hostfs -o %s %s none %s; fi",
		     guest, qbb, sh->ro ? "-r" : "", guest, qum,
		     sh->ro ? "-r" : "", guest);
	return n < 0 || (size_t)n >= len ? -ENAMETOOLONG : 0;
}

/**
 * guest_mount() - mount (or unmount) a share in the running guest
 * @in:		instance
 * @c:		configuration
 * @i:		the share
 * @add:	mount (1) or unmount (0)
 *
 * Through the exec channel: every string of the command that comes from
 * the configuration is quoted (sh_quote()).
 *
 * Return: 0, or the exec's non-zero exit status
 */
static int guest_mount(const struct inst *in, const struct conf *c, int i,
		       int add)
{
	const struct conf_share *sh = &c->share[i];
	char guest[4 * CONF_VALUE_MAX], line[3 * sizeof(guest) + 512];
	char *sh_argv[] = { "sh", "-c", line };

	if (sh_quote(conf_str(c, sh->guest), guest, sizeof(guest)))
		return -ENAMETOOLONG;
	if (!add)
		snprintf(line, sizeof(line),
			 "umount %s 2>/dev/null || umount -l %s", guest,
			 guest);
	else if (mount_line(c, i, guest, line, sizeof(line)))
		return -ENAMETOOLONG;
	return exec_in_guest(in, sh_argv, 3, 0, SHARE_GUEST_TIMEOUT_S);
}

/**
 * unreadable() - say that a host directory cannot be shared, and the fix
 * @in:		instance
 * @host:	host directory
 * @who:	the account that runs the instance, NULL for the caller
 * @rc:		negative errno
 *
 * Return: -EACCES
 */
static int unreadable(const struct inst *in, const char *host,
		      const char *who, int rc)
{
	if (who)
		err("%s: %s: the account %s, which runs system instances, cannot read it (%s): give it read and search permission (e.g. setfacl -m u:%s:rx on it and search permission on its parents), or share another directory",
		    in->name, host, who, strerror(-rc), who);
	else
		err("%s: %s: you cannot read it (%s), and the instance runs as you: share a directory you can read and search, or get read and search permission on it",
		    in->name, host, strerror(-rc));
	return -EACCES;
}

/**
 * readable_check() - refuse a directory the instance could not read
 * @in:		instance
 * @host:	host directory, resolved
 *
 * Its kernel or virtiofsd reads the directory with the credentials of
 * whoever runs the instance: the caller, or the system instances'
 * account (sysacct_dir_access()).  Without read and search permission the
 * guest's mount would fail, or its files would, later and far from here.
 *
 * Return: 0, or -EACCES (message printed)
 */
static int readable_check(const struct inst *in, const char *host)
{
	const char *who;
	int rc = sysacct_dir_access(in, host, &who);

	return rc ? unreadable(in, host, who, rc) : 0;
}

/**
 * add_check() - refuse what cannot work, before the file changes
 * @in:		instance
 * @a:		arguments
 * @c:		its configuration
 * @host:	set to the host directory, resolved
 *
 * Return: 0, or an exit code (message printed)
 */
static int add_check(const struct inst *in, const struct share_args *a,
		     const struct conf *c, char *host)
{
	struct stat st;

	if (!realpath(a->host, host) || stat(host, &st)) {
		if (errno == EACCES && in->sc->user) {
			unreadable(in, a->host, NULL, -errno);
			return EX_USAGE;
		}
		err("%s: %s: %s%s", in->name, a->host, strerror(errno),
		    errno == ENOENT ? ": create the directory first" : "");
		return EX_USAGE;
	}
	if (!S_ISDIR(st.st_mode)) {
		err("%s: %s is not a directory: a share is a directory", in->name,
		    a->host);
		return EX_USAGE;
	}
	if (readable_check(in, host))
		return EX_USAGE;
	if (a->fs == SHARE_VIRTIOFS)
		return vfsd_usable(in->name, c);
	return 0;
}

/**
 * share_add() - umarmctl share add NAME HOSTDIR [GUESTDIR] [--ro] ...
 * @x:		global options
 * @argc:	arguments after "add"
 * @argv:	arguments
 *
 * Return: exit code
 */
static int share_add(struct ctx *x, int argc, char **argv)
{
	char host[PATH_MAX], name[CONF_SHARE_NAME_MAX + 1], guest[PATH_LEN];
	char req[64 + CONF_SHARE_NAME_MAX], reply[600];
	struct share_args a;
	const char *why = "";
	struct inst in;
	struct conf *c = malloc(sizeof(*c));
	int rc, lock = -1;

	if (!c)
		return EX_FAIL;
	rc = add_args(argc, argv, &a);
	if (rc) {
		free(c);
		return rc;
	}
	rc = inst_open(x, a.inst, &in, c);
	if (!rc)
		rc = add_check(&in, &a, c, host);
	if (!rc) {
		lock = lock_ops(&in);
		rc = lock < 0 ? EX_STATE : conf_load(&in, c);
	}
	if (rc)
		goto out;
	if (a.name)
		snprintf(name, sizeof(name), "%s", a.name);
	else
		derive_name(c, host, name);
	snprintf(guest, sizeof(guest), "%s", a.guest ? a.guest : "/mnt/");
	if (!a.guest)
		strncat(guest, name, sizeof(guest) - strlen(guest) - 1);
	if (conf_share_add(c, a.name ? a.name : name, host, guest, a.ro, a.fs,
			   &why)) {
		err("%s: share %s: %s", in.name, name, why);
		rc = EX_USAGE;
		goto out;
	}
	rc = conf_save(&in, c);
	if (rc || !inst_running(&in))
		goto done;
	snprintf(req, sizeof(req), "share-add %s", name);
	rc = ctl_request(&in, req, reply, sizeof(reply));
	if (rc) {
		err("%s: the host side of share %s failed: %s; not added",
		    in.name, name, ctl_why(rc, reply));
		conf_share_del(c, c->nshares - 1);
		conf_save(&in, c);
		rc = EX_FAIL;
		goto out;
	}
	if (guest_mount(&in, c, c->nshares - 1, 1)) {
		err("%s: share %s is ready on the host, but the guest did not mount it on %s: see the line above, or mount it there yourself (umarmctl(1), SHARES)",
		    in.name, name, guest);
		rc = EX_FAIL;
		goto out;
	}
done:
	if (!rc)
		printf("%s: %s on %s (%s, %s)%s\n", name, host, guest,
		       conf_share_fs_name(a.fs), a.ro ? "ro" : "rw",
		       inst_running(&in) ? "" : ", mounted at the next start");
out:
	if (lock >= 0)
		lock_release(lock);
	free(c);
	return rc;
}

/**
 * share_rm() - umarmctl share rm NAME SHARE|GUESTDIR
 * @x:		global options
 * @argc:	arguments after "rm"
 * @argv:	arguments
 *
 * Return: exit code
 */
static int share_rm(struct ctx *x, int argc, char **argv)
{
	struct conf *c = malloc(sizeof(*c));
	char req[64 + CONF_SHARE_NAME_MAX], name[CONF_SHARE_NAME_MAX + 1];
	char reply[600];
	int rc, lock = -1, i, running;
	struct inst in;

	if (!c)
		return EX_FAIL;
	if (argc != 2) {
		usage_error("share");
		free(c);
		return EX_USAGE;
	}
	rc = inst_open(x, argv[0], &in, c);
	if (!rc) {
		lock = lock_ops(&in);
		rc = lock < 0 ? EX_STATE : conf_load(&in, c);
	}
	if (rc)
		goto out;
	i = conf_share_find(c, argv[1]);
	for (int j = 0; i < 0 && j < c->nshares; j++)
		if (!strcmp(conf_str(c, c->share[j].guest), argv[1]))
			i = j;
	if (i < 0) {
		err("%s: no share '%s' ('umarmctl share list %s')", in.name,
		    argv[1], in.name);
		rc = EX_USAGE;
		goto out;
	}
	snprintf(name, sizeof(name), "%s", conf_str(c, c->share[i].name));
	running = inst_running(&in);
	if (running && guest_mount(&in, c, i, 0))
		warn("%s: the guest did not unmount %s", in.name,
		     conf_str(c, c->share[i].guest));
	conf_share_del(c, i);
	rc = conf_save(&in, c);
	if (rc || !running)
		goto done;
	snprintf(req, sizeof(req), "share-rm %s", name);
	rc = ctl_request(&in, req, reply, sizeof(reply));
	if (rc) {
		err("%s: share %s: the supervisor did not take it away: %s",
		    in.name, name, ctl_why(rc, reply));
		rc = EX_FAIL;
		goto out;
	}
done:
	if (!rc)
		printf("%s removed\n", name);
out:
	if (lock >= 0)
		lock_release(lock);
	free(c);
	return rc;
}

/**
 * share_list() - umarmctl share list NAME [-o json]
 * @x:		global options
 * @argc:	arguments after "list"
 * @argv:	arguments
 *
 * Return: exit code
 */
static int share_list(struct ctx *x, int argc, char **argv)
{
	struct conf *c = malloc(sizeof(*c));
	struct inst in;
	int rc, i;

	if (!c)
		return EX_FAIL;
	if (argc != 1) {
		usage_error("share");
		free(c);
		return EX_USAGE;
	}
	rc = inst_open(x, argv[0], &in, c);
	if (rc) {
		free(c);
		return rc;
	}
	if (x->json)
		putchar('[');
	else
		printf("%-16s %-9s %-3s %-24s %s\n", "SHARE", "TRANSPORT",
		       "RO", "GUEST", "HOST");
	for (i = 0; i < c->nshares; i++) {
		const struct conf_share *sh = &c->share[i];

		if (x->json) {
			if (i)
				putchar(',');
			conf_share_json(c, i);
		} else {
			printf("%-16s %-9s %-3s %-24s %s\n",
			       tty_str(conf_str(c, sh->name)),
			       conf_share_fs_name(sh->fs), sh->ro ? "ro" : "rw",
			       tty_str(conf_str(c, sh->guest)),
			       tty_str(conf_str(c, sh->host)));
		}
	}
	if (x->json)
		printf("]\n");
	free(c);
	return 0;
}

/**
 * cmd_share() - umarmctl share add|rm|list ...
 * @x:		global options
 * @argc:	arguments after the verb
 * @argv:	arguments
 *
 * Return: exit code
 */
int cmd_share(struct ctx *x, int argc, char **argv)
{
	if (argc >= 1 && !strcmp(argv[0], "add"))
		return share_add(x, argc - 1, argv + 1);
	if (argc >= 1 && (!strcmp(argv[0], "rm") ||
			  !strcmp(argv[0], "remove")))
		return share_rm(x, argc - 1, argv + 1);
	if (argc >= 1 && !strcmp(argv[0], "list"))
		return share_list(x, argc - 1, argv + 1);
	usage_error("share");
	return EX_USAGE;
}
