// SPDX-License-Identifier: GPL-2.0-or-later
/* umarmctl - manage User-Mode Linux instances
 *
 * diskcmd.c - disk add/rm/resize/list and port-forward
 *
 * Disks added to a running instance are hot-plugged with mconsole
 * "config ubdN=FILE" and removed with "remove ubdN" (the guest must not
 * have them mounted).  Resizing needs the instance stopped: UML reads the
 * size at open, and a COW overlay always has its base's size.
 */

#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

#include "cmd.h"
#include "disk.h"
#include "lock.h"
#include "log.h"
#include "mconsole.h"
#include "state.h"
#include "text.h"
#include "util.h"

/**
 * mc_running() - send an mconsole command to a running instance
 * @in:		instance
 * @cmd:	command
 * @out:	reply
 * @len:	size of @out
 *
 * Return: 0 on success, -ENOTCONN if not running, -EIO if UML refused
 */
static int mc_running(const struct inst *in, const char *cmd, char *out,
		      size_t len)
{
	char path[PATH_LEN];
	struct state st;
	int e, rc;

	inst_path(in, path, 1, STATE_FILE);
	if (!inst_running(in) || state_read(path, &st) || !*st.mconsole)
		return -ENOTCONN;
	rc = mc_command(st.mconsole, cmd, out, len, 5000, &e);
	/* UML's reply is printed: no terminal escapes from the guest */
	if (len)
		text_clean(out, 0);
	return rc ? rc : e ? -EIO : 0;
}

/**
 * disk_number_error() - a disk number that is not one: say which it was
 * @s:		what was given
 *
 * Return: EX_USAGE
 */
static int disk_number_error(const char *s)
{
	err("N: '%s' is not a disk number: 0 to %d, as 'disk list' shows them (diskN)",
	    s, CONF_MAX_DISKS - 1);
	return EX_USAGE;
}

/**
 * disk_add() - umarmctl disk add NAME SIZE [--file FILE]
 * @x:		global options
 * @argc:	arguments after "add"
 * @argv:	arguments
 *
 * Return: exit code
 */
static int disk_add(struct ctx *x, int argc, char **argv)
{
	char file[64], path[PATH_LEN], cmd[PATH_LEN + 32], out[512];
	struct fs_id fsid;
	struct inst in;
	struct conf c;
	uint64_t size;
	int rc, lock, n;

	if (argc != 2)
		return usage_error("disk");
	if (parse_size(argv[1], &size) || size < 1048576) {
		err("SIZE: '%s' is not a size of at least 1M (e.g. 1G)",
		    argv[1]);
		return EX_USAGE;
	}
	rc = inst_open(x, argv[0], &in, &c);
	if (rc)
		return rc;
	lock = lock_ops(&in);
	if (lock < 0)
		return EX_STATE;
	rc = conf_load(&in, &c);
	if (rc)
		goto out;
	for (n = 1; n < CONF_MAX_DISKS && c.disk[n].set; n++)
		;
	if (n == CONF_MAX_DISKS) {
		err("%s: all %d disks are in use", in.name, CONF_MAX_DISKS);
		rc = EX_STATE;
		goto out;
	}
	snprintf(file, sizeof(file), "disk%d.img", n);
	inst_path(&in, path, 0, file);
	/* the instance's account must open it read-write when hot-plugged */
	inst_fs_owner(&in, &fsid);
	rc = disk_create(path, size);
	inst_fs_restore(&fsid);
	if (rc) {
		err("%s: cannot create %s: %s", in.name, path, strerror(-rc));
		rc = EX_FAIL;
		goto out;
	}
	conf_disk_parse(file, &c.disk[n]);
	rc = conf_save(&in, &c);
	if (rc) {
		unlink(path);
		goto out;
	}
	snprintf(cmd, sizeof(cmd), "config ubd%d=%s", n, path);
	rc = mc_running(&in, cmd, out, sizeof(out));
	if (rc == -ENOTCONN)
		printf("disk%d %s (attached at next start)\n", n, path);
	else if (rc)
		warn("%s: hot-plug failed (%s); disk%d is attached at next start",
		     in.name, *out ? out : strerror(-rc), n);
	else
		printf("disk%d %s (hot-plugged as /dev/ubd%c)\n", n, path,
		       'a' + n);
	rc = 0;
out:
	lock_release(lock);
	return rc;
}

/**
 * disk_unlink() - delete a removed disk's image if the instance owns it
 * @in:		instance
 * @n:		disk number, for messages
 * @path:	image, as the configuration named it (made absolute)
 *
 * Only files in the state directory are the instance's: an image named
 * by an absolute path elsewhere, or by "../" out of the state directory,
 * may be anybody's, and stays.
 */
static void disk_unlink(const struct inst *in, unsigned long n,
			const char *path)
{
	char real[PATH_LEN];
	int r = path_inside(in->state, path, real);

	if (r < 0 && r != -ENOENT)
		warn("%s: kept %s: %s", in->name, path, strerror(-r));
	else if (!r)
		info("%s: kept %s: it is not in %s; delete it yourself if nothing else uses it",
		     in->name, path, in->state);
	else if (r > 0 && unlink(real) && errno != ENOENT)
		warn("%s: cannot delete %s (disk%lu): %s", in->name, real, n,
		     strerror(errno));
}

/**
 * disk_rm() - umarmctl disk rm NAME N [--keep]
 * @x:		global options
 * @argc:	arguments after "rm"
 * @argv:	arguments
 *
 * Return: exit code
 */
static int disk_rm(struct ctx *x, int argc, char **argv)
{
	char path[PATH_LEN], cmd[32], out[512];
	unsigned long n;
	struct inst in;
	struct conf c;
	int rc, lock, keep = argc == 3 && !strcmp(argv[2], "--keep");

	if (argc != 2 && !keep)
		return usage_error("disk");
	if (parse_uint(argv[1], CONF_MAX_DISKS - 1, &n))
		return disk_number_error(argv[1]);
	if (!n) {
		err("disk0 is the root disk; it cannot be removed");
		return EX_USAGE;
	}
	rc = inst_open(x, argv[0], &in, &c);
	if (rc)
		return rc;
	lock = lock_ops(&in);
	if (lock < 0)
		return EX_STATE;
	rc = conf_load(&in, &c);
	if (rc)
		goto out;
	if (!c.disk[n].set) {
		err("%s: has no disk%lu", in.name, n);
		rc = EX_USAGE;
		goto out;
	}
	snprintf(cmd, sizeof(cmd), "remove ubd%lu", n);
	rc = mc_running(&in, cmd, out, sizeof(out));
	if (rc && rc != -ENOTCONN) {
		err("%s: the guest refused to release disk%lu (%s): unmount it first",
		    in.name, n, *out ? out : strerror(-rc));
		rc = EX_STATE;
		goto out;
	}
	disk_abs(&in, c.disk[n].file, path);
	memset(&c.disk[n], 0, sizeof(c.disk[n]));
	rc = conf_save(&in, &c);
	if (!rc && !keep)
		disk_unlink(&in, n, path);
out:
	lock_release(lock);
	return rc;
}

/**
 * grow_file() - make a disk image at least @size bytes, never smaller
 * @path:	image
 * @size:	new size
 * @st:		its status before, for messages
 *
 * The image lies in the instance's directory, which an instance running
 * under its own account controls: a symbolic link or FIFO put there must
 * not make root truncate or block on something else.
 *
 * Return: 0, -EFBIG if the image is larger than @size, or negative errno
 */
static int grow_file(const char *path, uint64_t size, struct stat *st)
{
	int fd = open(path, O_WRONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	int rc = 0;

	if (fd < 0)
		return -errno;
	if (fstat(fd, st))
		rc = -errno;
	else if (!S_ISREG(st->st_mode))
		rc = -EINVAL;
	else if ((uint64_t)st->st_size > size)
		rc = -EFBIG;
	else if (ftruncate(fd, size))
		rc = -errno;
	close(fd);
	return rc;
}

/**
 * disk_resize() - umarmctl disk resize NAME N SIZE
 * @x:		global options
 * @argc:	arguments after "resize"
 * @argv:	arguments
 *
 * Return: exit code
 */
static int disk_resize(struct ctx *x, int argc, char **argv)
{
	char path[PATH_LEN];
	unsigned long n;
	struct inst in;
	struct conf c;
	struct stat st;
	uint64_t size;
	int rc, lock, run;

	if (argc != 3)
		return usage_error("disk");
	if (parse_uint(argv[1], CONF_MAX_DISKS - 1, &n))
		return disk_number_error(argv[1]);
	if (parse_size(argv[2], &size)) {
		err("SIZE: '%s' is not a size (e.g. 8G)", argv[2]);
		return EX_USAGE;
	}
	rc = inst_open(x, argv[0], &in, &c);
	if (rc)
		return rc;
	if (!c.disk[n].set) {
		err("%s: has no disk%lu", in.name, n);
		return EX_USAGE;
	}
	if (*c.disk[n].base) {
		err("%s: disk%lu is a copy-on-write overlay over %s and has its size; recreate with 'umarmctl create --disk SIZE' for a private, resizable root disk",
		    in.name, n, c.disk[n].base);
		return EX_STATE;
	}
	lock = lock_ops(&in);
	if (lock < 0)
		return EX_STATE;
	run = lock_take(&in, LOCK_RUN, 1, 0);
	if (run < 0) {
		err("%s: is running; stop it to resize disk%lu", in.name, n);
		lock_release(lock);
		return EX_STATE;
	}
	disk_abs(&in, c.disk[n].file, path);
	rc = grow_file(path, size, &st);
	if (rc == -EFBIG) {
		err("%s: disk%lu can only grow (now %lld bytes)", in.name, n,
		    (long long)st.st_size);
		rc = EX_USAGE;
	} else if (rc) {
		err("%s: cannot resize %s: %s", in.name, path, strerror(-rc));
		rc = EX_FAIL;
	} else {
		info("%s: %s is now %llu bytes; grow the filesystem inside (resize2fs /dev/ubd%c)",
		     in.name, path, (unsigned long long)size, (int)('a' + n));
	}
	lock_release(run);
	lock_release(lock);
	return rc;
}

/**
 * disk_list_json() - one disk of "disk list -o json" as an object
 * @c:		configuration
 * @i:		the disk
 * @path:	its file, absolute
 * @st:		its stat(), NULL if it failed: "bytes" is null, unknown
 *
 * "bytes" is what the file takes on the host, as in the table; "base"
 * the image an overlay is over, null for a plain image.
 */
static void disk_list_json(const struct conf *c, int i, const char *path,
			   const struct stat *st)
{
	printf("{\"disk\":%d,\"device\":\"/dev/ubd%c\",\"bytes\":", i,
	       'a' + i);
	if (st)
		printf("%lld", (long long)st->st_blocks * 512);
	else
		printf("null");
	printf(",\"file\":");
	json_str(path);
	printf(",\"base\":");
	if (*c->disk[i].base)
		json_str(c->disk[i].base);
	else
		printf("null");
	putchar('}');
}

/**
 * disk_list() - umarmctl disk list NAME [-o json]
 * @x:		global options
 * @name:	instance
 *
 * Return: exit code
 */
static int disk_list(struct ctx *x, const char *name)
{
	struct inst in;
	struct conf c;
	int rc = inst_open(x, name, &in, &c), i, n = 0;

	if (rc)
		return rc;
	if (x->json)
		putchar('[');
	for (i = 0; i < CONF_MAX_DISKS; i++) {
		char p[PATH_LEN];
		struct stat st;
		int unknown;

		if (!c.disk[i].set)
			continue;
		disk_abs(&in, c.disk[i].file, p);
		unknown = stat(p, &st);
		if (x->json) {
			if (n++)
				putchar(',');
			disk_list_json(&c, i, p, unknown ? NULL : &st);
			continue;
		}
		printf("disk%-2d /dev/ubd%c %12lld %s%s%s\n", i, 'a' + i,
		       unknown ? 0LL : (long long)st.st_blocks * 512, tty_str(p),
		       *c.disk[i].base ? " over " : "", tty_str(c.disk[i].base));
	}
	if (x->json)
		printf("]\n");
	return 0;
}

/**
 * cmd_disk() - umarmctl disk add|rm|resize|list ...
 * @x:		global options
 * @argc:	arguments after the verb
 * @argv:	arguments
 *
 * Return: exit code
 */
int cmd_disk(struct ctx *x, int argc, char **argv)
{
	if (argc >= 1 && !strcmp(argv[0], "add"))
		return disk_add(x, argc - 1, argv + 1);
	if (argc >= 1 && (!strcmp(argv[0], "rm") ||
			  !strcmp(argv[0], "remove")))
		return disk_rm(x, argc - 1, argv + 1);
	if (argc >= 1 && !strcmp(argv[0], "resize"))
		return disk_resize(x, argc - 1, argv + 1);
	if (argc == 2 && !strcmp(argv[0], "list"))
		return disk_list(x, argv[1]);
	return usage_error("disk");
}

/**
 * cmd_port_forward() - umarmctl port-forward NAME SPEC [--remove]
 * @x:		global options
 * @argc:	arguments after the verb
 * @argv:	arguments
 *
 * Adds (or removes) a 'port =' line; passt reads its forwards at start,
 * so a running instance gets it at the next start.
 *
 * Return: exit code
 */
int cmd_port_forward(struct ctx *x, int argc, char **argv)
{
	int rm = argc == 3 && !strcmp(argv[2], "--remove");
	struct conf_port p;
	struct inst in;
	struct conf c;
	int rc, lock, i;

	if (argc == 1) {
		rc = inst_open(x, argv[0], &in, &c);
		if (rc)
			return rc;
		for (i = 0; i < c.nports; i++)
			printf("%s %s%s%u -> %u\n", c.port[i].udp ? "udp" : "tcp",
			       c.port[i].addr, *c.port[i].addr ? ":" : "",
			       c.port[i].host, c.port[i].guest);
		return 0;
	}
	if (argc != 2 && !rm)
		return usage_error("port-forward");
	if (conf_port_parse(argv[1], &p)) {
		err("'%s' is not a port forward: [tcp:|udp:][ADDR:]HOST:GUEST, e.g. 8080:80",
		    argv[1]);
		return EX_USAGE;
	}
	rc = inst_open(x, argv[0], &in, &c);
	if (rc)
		return rc;
	lock = lock_ops(&in);
	if (lock < 0)
		return EX_STATE;
	rc = conf_load(&in, &c);
	if (rc)
		goto out;
	for (i = 0; i < c.nports; i++)
		if (c.port[i].udp == p.udp && c.port[i].host == p.host &&
		    !strcmp(c.port[i].addr, p.addr))
			break;
	if (rm) {
		if (i == c.nports) {
			err("%s: no such forward", in.name);
			rc = EX_USAGE;
			goto out;
		}
		memmove(&c.port[i], &c.port[i + 1],
			(c.nports - i - 1) * sizeof(p));
		c.nports--;
	} else {
		if (i < c.nports) {
			c.port[i] = p;
		} else if (c.nports == CONF_MAX_PORTS) {
			err("%s: too many forwards", in.name);
			rc = EX_USAGE;
			goto out;
		} else {
			c.port[c.nports++] = p;
		}
		if (c.net == NET_NONE) {
			c.net = NET_PASST;
			info("%s: network set to passt", in.name);
		}
	}
	rc = conf_save(&in, &c);
	if (!rc && inst_running(&in))
		info("%s: takes effect at the next start ('umarmctl restart %s')",
		     in.name, in.name);
out:
	lock_release(lock);
	return rc;
}
