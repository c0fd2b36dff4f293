// SPDX-License-Identifier: GPL-2.0-or-later
/* umarmctl - manage User-Mode Linux instances
 *
 * create.c - verb: create
 */

#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

#include "cmd.h"
#include "host.h"
#include "image.h"
#include "lock.h"
#include "log.h"
#include "util.h"


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

/* The debian-docker image's memory when --mem does not say */
#define DOCKER_MEMORY	(1ULL << 30)

/**
 * image_defaults() - settings that depend on what the image runs
 * @c:		configuration being created
 * @base:	base image path
 * @mem_given:	whether --mem said how much memory
 *
 * The minimal and musl images (images/minimal/init.c) run umarm.run=PATH
 * and power off: give them a shell on the console, which is also what
 * exec types into, and their root file system read-write ("rw": their
 * init remounts nothing, and the disk is the instance's own overlay).
 * The debian images run systemd, whose console has a login prompt: exec
 * uses systemd's debug shell on tty9 instead.  The debian-docker image
 * gets 1 GiB unless --mem says otherwise: dockerd and containerd take
 * about 150 MB beside systemd, and a container more.  Which image it is
 * comes from its label, else its name (image_kind()).
 */
static void image_defaults(struct conf *c, const char *base, int mem_given)
{
	const char *kind = image_kind(base);

	if (!kind)
		return;
	if ((!strcmp(kind, "minimal") || !strcmp(kind, "musl")) &&
	    !*c->cmdline)
		snprintf(c->cmdline, sizeof(c->cmdline), "rw umarm.run=/bin/sh");
	if (!strncmp(kind, "debian", 6))
		c->exec = EXEC_DEBUG_SHELL;
	if (!strcmp(kind, "debian-docker") && !mem_given)
		c->memory = DOCKER_MEMORY;
}

/* create's options: those that are keys of the file go to create_set() */
static const struct option create_opts[] = {
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

/* What create's options ask for, besides keys of the configuration */
struct create_args {
	const char *image;	/* base image, name or file */
	const char *disk;	/* size of a private root disk, or NULL */
	const char *flavour;	/* --flavour, or NULL for the host's */
	const char *mem;	/* --mem, or NULL for the image's default */
	const char *name;	/* the instance's */
};

/**
 * create_set() - apply an option that is a key of the configuration file
 * @c:		configuration being created
 * @key:	the key
 * @value:	the option's argument
 *
 * The option goes through the file's parser, so that it is validated
 * and explained as the same key in a file would be.
 *
 * Return: 0 on success, EX_USAGE (message printed)
 */
static int create_set(struct conf *c, const char *key, const char *value)
{
	char buf[PATH_LEN + 64];
	size_t kl = strlen(key);
	struct conf_error e;
	const char *m;

	/* "disk0 = x": the parser wants a root disk, dropped again below */
	snprintf(buf, sizeof(buf), "%s = %s\ndisk0 = x\n", key, value);
	if (!conf_parse(c, buf, strlen(buf), &e)) {
		c->disk[0].set = 0;
		return 0;
	}
	/* the parser's "memory: ..." would say the key twice */
	m = e.msg;
	if (!strncmp(m, key, kl) && !strncmp(m + kl, ": ", 2))
		m += kl + 2;
	err("--%s: %s", key, m);
	return EX_USAGE;
}

/**
 * create_options() - parse create's options
 * @argc:	arguments after the verb
 * @argv:	arguments
 * @c:		configuration, from conf_defaults(), the options applied
 * @a:		the options that are not keys of the configuration
 *
 * Return: 0, or an exit code after a usage error (message printed)
 */
static int create_options(int argc, char **argv, struct conf *c,
			  struct create_args *a)
{
	int o;

	/* getopt wants a program name first: that is the verb's slot */
	argc++;
	argv--;
	optind = 0;
	while ((o = getopt_long(argc, argv, "i:f:m:c:d:n:p:k:C:r:",
				create_opts, NULL)) != -1) {
		const char *key;

		switch (o) {
		case 'i': a->image = optarg; continue;
		case 'd': a->disk = optarg; continue;
		case 'f': key = "flavour"; a->flavour = optarg; break;
		case 'm': key = "memory"; a->mem = optarg; break;
		case 'c': key = "cpus"; break;
		case 'n': key = "network"; break;
		case 'p': key = "port"; break;
		case 'k': key = "kernel"; break;
		case 'C': key = "cmdline"; break;
		case 'r': key = "ready"; break;
		default:
			return EX_USAGE;
		}
		if (create_set(c, key, optarg))
			return EX_USAGE;
	}
	if (optind != argc - 1)
		return usage_error("create");
	a->name = argv[optind];
	return 0;
}

/**
 * create_flavour() - the flavour to create with: --flavour, else the host's
 * @in:		instance
 * @c:		configuration being created, its flavour set
 * @asked:	--flavour, already in @c, or NULL
 *
 * Return: 0, or EX_HOST if this host cannot run it (message printed)
 */
static int create_flavour(const struct inst *in, struct conf *c,
			  const char *asked)
{
	if (!asked) {
		asked = host_default_flavour();
		if (!asked) {
			err("%s: host page size %ld has no matching flavour (4k, 16k)",
			    in->name, sysconf(_SC_PAGESIZE));
			return EX_HOST;
		}
		snprintf(c->flavour, sizeof(c->flavour), "%s", asked);
	}
	if (flavour_check(in->name, c->flavour))
		return EX_HOST;
	return 0;
}

/**
 * create_root() - the root disk: a private copy of the base, or an overlay
 * @in:		instance
 * @c:		configuration being created, its disk0 set
 * @base:	base image path
 * @dsize:	size of a private copy, 0 for a copy-on-write overlay
 *
 * Return: 0 on success, -1 on failure (message printed)
 */
static int create_root(const struct inst *in, struct conf *c,
		       const char *base, uint64_t dsize)
{
	char buf[PATH_LEN + 64];

	if (dsize) {
		if (root_from_base(in, base, dsize))
			return -1;
		conf_disk_parse(ROOT_IMG, &c->disk[0]);
		return 0;
	}
	/* UML creates the overlay at first boot */
	inst_path(in, buf, 0, ROOT_COW);
	unlink(buf);
	snprintf(buf, sizeof(buf), "%s,%s", ROOT_COW, base);
	if (conf_disk_parse(buf, &c->disk[0])) {
		err("%s: base image path contains ','", in->name);
		return -1;
	}
	return 0;
}

/**
 * create_undo() - a create that failed leaves no directory behind
 * @in:		instance, whose configuration was not written
 *
 * Called with the lock held: its file goes (lock_take() of a waiting
 * command sees that and takes the path's anew), then the directory if
 * nothing else is in it; a directory that holds files was not ours alone.
 */
static void create_undo(const struct inst *in)
{
	char path[PATH_LEN];

	if (!inst_path(in, path, 0, LOCK_OPS))
		unlink(path);
	rmdir(in->state);
}

/**
 * cmd_create() - umarmctl create NAME [options]
 * @x:		global options
 * @argc:	arguments after the verb
 * @argv:	arguments
 *
 * The configuration file is written last: it is the commit point, so an
 * interrupted create leaves no half instance behind (just a state
 * directory that the next create of that name reuses); one that fails
 * removes its directory.
 *
 * Return: exit code
 */
int cmd_create(struct ctx *x, int argc, char **argv)
{
	struct create_args a = { .image = "minimal" };
	char base[PATH_LEN];
	struct inst in;
	struct conf c;
	uint64_t dsize = 0;
	int lock, rc;

	conf_defaults(&c);
	rc = create_options(argc, argv, &c, &a);
	if (rc)
		return rc;
	if (inst_init(&in, &x->sc, a.name))
		return EX_USAGE;
	if (a.disk && (parse_size(a.disk, &dsize) || dsize < (16ULL << 20))) {
		err("--disk: '%s' is not a size of at least 16M", a.disk);
		return EX_USAGE;
	}
	rc = create_flavour(&in, &c, a.flavour);
	if (rc)
		return rc;

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
	if (image_resolve(a.image, base)) {
		rc = EX_FAIL;
		goto out;
	}
	snprintf(c.image, sizeof(c.image), "%s", a.image);
	image_defaults(&c, base, a.mem != NULL);
	if (create_root(&in, &c, base, dsize)) {
		rc = EX_FAIL;
		goto out;
	}
	rc = conf_save(&in, &c);
	if (!rc)
		info("%s: created (%s, flavour %s, base %s)", in.name,
		     x->sc.user ? "per-user" : "system", c.flavour, base);
out:
	if (rc && !inst_exists(&in))
		create_undo(&in);
	lock_release(lock);
	return rc;
}
