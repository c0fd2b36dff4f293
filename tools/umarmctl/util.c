// SPDX-License-Identifier: GPL-2.0-or-later
/* umarmctl - manage User-Mode Linux instances
 *
 * util.c - small helpers: files, sizes, strings, time
 */

#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <spawn.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <sys/wait.h>

#include "util.h"
#include "log.h"

/**
 * xstrdup() - strdup() that aborts on allocation failure
 * @s:		string to copy
 *
 * Return: copy of @s, to be freed by the caller
 */
char *xstrdup(const char *s)
{
	char *p = strdup(s);

	if (!p) {
		err("out of memory");
		exit(EX_FAIL);
	}
	return p;
}

/**
 * xasprintf() - asprintf() that aborts on allocation failure
 * @fmt:	printf() format
 *
 * Return: formatted string, to be freed by the caller
 */
char *xasprintf(const char *fmt, ...)
{
	va_list ap;
	char *p;
	int n;

	va_start(ap, fmt);
	n = vasprintf(&p, fmt, ap);
	va_end(ap);
	if (n < 0) {
		err("out of memory");
		exit(EX_FAIL);
	}
	return p;
}

/**
 * pathf() - format a path into a PATH_LEN buffer
 * @buf:	buffer of PATH_LEN bytes
 * @fmt:	printf() format
 *
 * Return: 0 on success, -ENAMETOOLONG if it doesn't fit
 */
int pathf(char *buf, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(buf, PATH_LEN, fmt, ap);
	va_end(ap);
	if (n < 0 || n >= PATH_LEN) {
		buf[0] = 0;
		return -ENAMETOOLONG;
	}
	return 0;
}

/**
 * write_all() - write a whole buffer, retrying short writes and EINTR
 * @fd:		file descriptor
 * @buf:	data
 * @len:	length of @buf
 *
 * Return: 0 on success, negative errno on failure
 */
int write_all(int fd, const void *buf, size_t len)
{
	const char *p = buf;

	while (len) {
		ssize_t n = write(fd, p, len);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		p += n;
		len -= n;
	}
	return 0;
}

/**
 * fsync_dir_of() - fsync() the directory containing @path
 * @path:	file whose directory entry must reach the disk
 *
 * Return: 0 on success, negative errno on failure
 */
int fsync_dir_of(const char *path)
{
	char dir[PATH_LEN];
	int fd, rc = 0;

	if (pathf(dir, "%s", path))
		return -ENAMETOOLONG;
	fd = open(dirname(dir), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (fsync(fd) && errno != EINVAL)
		rc = -errno;
	close(fd);
	return rc;
}

/**
 * write_file_atomic() - replace a file so readers see old or new, never half
 * @path:	destination
 * @buf:	new contents
 * @len:	length of @buf
 * @mode:	permissions of the new file
 *
 * Writes a temporary file with a unique name (mkostemp()) next to @path,
 * fsync()s it, rename()s it over @path and fsync()s the directory: a crash
 * (or kill -9) at any point leaves either the complete old or the
 * complete new file, plus at worst a stale ".NAME.XXXXXX"; two writers at
 * once each rename a complete file of their own (the last one wins).
 *
 * Return: 0 on success, negative errno on failure
 */
int write_file_atomic(const char *path, const void *buf, size_t len,
		      mode_t mode)
{
	char tmp[PATH_LEN], d[PATH_LEN], b[PATH_LEN];
	int fd, rc;

	if (pathf(d, "%s", path) || pathf(b, "%s", path))
		return -ENAMETOOLONG;
	if (pathf(tmp, "%s/.%s.XXXXXX", dirname(d), basename(b)))
		return -ENAMETOOLONG;

	/* created 0600, whatever the umask; @mode once complete */
	fd = mkostemp(tmp, O_CLOEXEC);
	if (fd < 0)
		return -errno;
	rc = write_all(fd, buf, len);
	if (!rc && fchmod(fd, mode))
		rc = -errno;
	if (!rc && fsync(fd))
		rc = -errno;
	if (close(fd) && !rc)
		rc = -errno;
	if (!rc && rename(tmp, path))
		rc = -errno;
	if (rc) {
		unlink(tmp);
		return rc;
	}
	return fsync_dir_of(path);
}

/**
 * read_file() - read a whole (small) file
 * @path:	file to read
 * @buf:	set to a NUL-terminated, malloc()ed buffer
 * @max:	refuse files larger than this
 *
 * Return: length read, negative errno on failure (-EFBIG if too large)
 */
ssize_t read_file(const char *path, char **buf, size_t max)
{
	size_t len = 0, size = 4096;
	char *p;
	int fd;

	*buf = NULL;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	p = malloc(size + 1);
	if (!p) {
		close(fd);
		return -ENOMEM;
	}
	for (;;) {
		ssize_t n;

		if (len == size) {
			char *q;

			if (size >= max) {
				free(p);
				close(fd);
				return -EFBIG;
			}
			size *= 2;
			q = realloc(p, size + 1);
			if (!q) {
				free(p);
				close(fd);
				return -ENOMEM;
			}
			p = q;
		}
		n = read(fd, p + len, size - len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			int e = -errno;

			free(p);
			close(fd);
			return e;
		}
		if (!n)
			break;
		len += n;
	}
	close(fd);
	if (len > max) {
		free(p);
		return -EFBIG;
	}
	p[len] = 0;
	*buf = p;
	return len;
}

/**
 * mkdir_mode() - create a directory with exactly @mode, umask or not
 * @path:	directory
 * @mode:	its permissions
 *
 * The supervisor runs with umask 077, but the shared parents of system
 * instances (/var/lib/umarm, /run/umarm) must stay 0755 for instances
 * that run under their own account.
 *
 * Return: 0 if created or already there, -1 with errno set otherwise
 */
static int mkdir_mode(const char *path, mode_t mode)
{
	if (mkdir(path, mode))
		return errno == EEXIST ? 0 : -1;
	return chmod(path, mode);
}

/**
 * mkdir_p() - create a directory and its missing parents
 * @path:	directory
 * @mode:	permissions of the directories created (not masked by umask)
 *
 * Return: 0 on success (also if it existed), negative errno on failure
 */
int mkdir_p(const char *path, mode_t mode)
{
	char tmp[PATH_LEN];
	char *p;

	if (pathf(tmp, "%s", path))
		return -ENAMETOOLONG;
	for (p = tmp + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = 0;
		if (mkdir_mode(tmp, mode))
			return -errno;
		*p = '/';
	}
	if (mkdir_mode(tmp, mode))
		return -errno;
	return 0;
}

/**
 * pwrite_all() - write a whole buffer at an offset
 * @fd:		file descriptor
 * @buf:	data
 * @len:	length of @buf
 * @off:	file offset
 *
 * A full file system makes pwrite() return a short count, without errno:
 * the next call reports ENOSPC (or writes nothing, which is the same).
 *
 * Return: 0 on success, negative errno on failure
 */
static int pwrite_all(int fd, const char *buf, size_t len, off_t off)
{
	while (len) {
		ssize_t n = pwrite(fd, buf, len, off);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		if (!n)
			return -ENOSPC;
		buf += n;
		len -= n;
		off += n;
	}
	return 0;
}

/**
 * copy_file_sparse() - copy a disk image, keeping holes as holes
 * @src:	source file, a regular file
 * @dst:	destination, created exclusively (must not exist)
 * @mode:	permissions of @dst
 * @src_flags:	O_NOFOLLOW where @src lies in a directory someone else
 *		controls (a disk of an instance running under its own
 *		account: root must not copy what a symbolic link there names)
 *
 * Uses SEEK_DATA/SEEK_HOLE (Linux 3.1) to skip holes; a multi-GiB sparse
 * image with little data copies in moments.  A FIFO or device as @src is
 * refused without blocking.
 *
 * Return: 0 on success, negative errno on failure (@dst removed)
 */
int copy_file_sparse(const char *src, const char *dst, mode_t mode,
		     int src_flags)
{
	static char buf[1 << 16];
	int in, out, rc = 0;
	struct stat st;
	off_t data = 0, hole;

	in = open(src, O_RDONLY | O_NONBLOCK | O_CLOEXEC | src_flags);
	if (in < 0)
		return -errno;
	if (fstat(in, &st) || !S_ISREG(st.st_mode)) {
		rc = S_ISREG(st.st_mode) ? -errno : -EINVAL;
		close(in);
		return rc;
	}
	out = open(dst, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, mode);
	if (out < 0) {
		rc = -errno;
		close(in);
		return rc;
	}
	while (data < st.st_size) {
		data = lseek(in, data, SEEK_DATA);
		if (data < 0) {
			if (errno != ENXIO)
				rc = -errno;
			break;
		}
		hole = lseek(in, data, SEEK_HOLE);
		if (hole < 0) {
			rc = -errno;
			break;
		}
		while (data < hole) {
			size_t chunk = hole - data > (off_t)sizeof(buf) ?
				       sizeof(buf) : (size_t)(hole - data);
			ssize_t n = pread(in, buf, chunk, data);

			if (n <= 0) {
				rc = n ? -errno : -EIO;
				goto out;
			}
			rc = pwrite_all(out, buf, n, data);
			if (rc)
				goto out;
			data += n;
		}
	}
out:
	if (!rc && ftruncate(out, st.st_size))
		rc = -errno;
	if (!rc && fsync(out))
		rc = -errno;
	close(out);
	close(in);
	if (rc)
		unlink(dst);
	return rc;
}

/**
 * parse_size() - parse a size such as "256M", "4G", "1048576"
 * @s:		string; suffixes K, M, G, T (powers of 1024), optional "iB"/"B"
 * @out:	parsed size in bytes
 *
 * Return: 0 on success, -EINVAL on syntax error, -ERANGE on overflow
 */
int parse_size(const char *s, uint64_t *out)
{
	unsigned long long v;
	unsigned int shift = 0;
	char *end;

	if (!*s || *s == '-' || *s == '+' || *s == ' ')
		return -EINVAL;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno || end == s)
		return errno == ERANGE ? -ERANGE : -EINVAL;
	switch (*end) {
	case 'k': case 'K': shift = 10; end++; break;
	case 'm': case 'M': shift = 20; end++; break;
	case 'g': case 'G': shift = 30; end++; break;
	case 't': case 'T': shift = 40; end++; break;
	}
	if (shift && !strcmp(end, "iB"))
		end += 2;
	else if (*end == 'B')
		end++;
	if (*end)
		return -EINVAL;
	if (shift && v > (UINT64_MAX >> shift))
		return -ERANGE;
	*out = (uint64_t)v << shift;
	return 0;
}

/**
 * format_size() - print a size the way parse_size() reads it back
 * @v:		size in bytes
 * @buf:	output
 * @len:	size of @buf
 */
void format_size(uint64_t v, char *buf, size_t len)
{
	static const char units[] = "KMGT";
	int i = -1;

	while (i < 3 && v && !(v & 1023)) {
		v >>= 10;
		i++;
	}
	if (i < 0)
		snprintf(buf, len, "%llu", (unsigned long long)v);
	else
		snprintf(buf, len, "%llu%c", (unsigned long long)v, units[i]);
}

/**
 * parse_uint() - parse a decimal unsigned integer with an upper bound
 * @s:		string
 * @max:	largest acceptable value
 * @out:	parsed value
 *
 * Return: 0 on success, -EINVAL or -ERANGE on failure
 */
int parse_uint(const char *s, unsigned long max, unsigned long *out)
{
	unsigned long v;
	char *end;

	if (*s < '0' || *s > '9')
		return -EINVAL;
	errno = 0;
	v = strtoul(s, &end, 10);
	if (*end)
		return -EINVAL;
	if (errno || v > max)
		return -ERANGE;
	*out = v;
	return 0;
}

/**
 * sh_quote() - quote a string for a POSIX shell, with single quotes
 * @in:		string
 * @out:	output buffer
 * @len:	size of @out
 *
 * Return: 0 on success, -ENOSPC if @out is too small
 */
int sh_quote(const char *in, char *out, size_t len)
{
	size_t o = 0;

#define PUT(c) do { if (o + 1 >= len) return -ENOSPC; out[o++] = (c); } \
	       while (0)
	PUT('\'');
	for (; *in; in++) {
		if (*in == '\'') {
			PUT('\''); PUT('\\'); PUT('\''); PUT('\'');
		} else {
			PUT(*in);
		}
	}
	PUT('\'');
#undef PUT
	out[o] = 0;
	return 0;
}

/**
 * spawn_argv() - start a program with an argv, no shell in between
 * @argv:	program (looked up in $PATH) and arguments, NULL-terminated
 * @out:	set to the read end of a pipe from its stdout; NULL to send
 *		its stdout and stderr to /dev/null
 *
 * Paths from configurations and the environment go to programs as
 * arguments, never through "sh -c": no quoting to get wrong.
 *
 * Return: pid, negative errno on failure
 */
pid_t spawn_argv(char *const argv[], int *out)
{
	extern char **environ;
	posix_spawn_file_actions_t fa;
	int p[2] = { -1, -1 }, rc;
	pid_t pid;

	if (out && pipe2(p, O_CLOEXEC))
		return -errno;
	posix_spawn_file_actions_init(&fa);
	if (out) {
		posix_spawn_file_actions_adddup2(&fa, p[1], 1);
	} else {
		posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY,
						 0);
		posix_spawn_file_actions_adddup2(&fa, 1, 2);
	}
	rc = posix_spawnp(&pid, argv[0], &fa, NULL, argv, environ);
	posix_spawn_file_actions_destroy(&fa);
	if (out) {
		close(p[1]);
		if (rc)
			close(p[0]);
		else
			*out = p[0];
	}
	return rc ? -rc : pid;
}

/**
 * run_argv() - run a program quietly and wait for it
 * @argv:	program and arguments, NULL-terminated
 *
 * Return: its exit status (0 to 255), 128 + signal, or -1 if it could not
 *	   be started
 */
int run_argv(char *const argv[])
{
	pid_t pid = spawn_argv(argv, NULL);
	int st;

	if (pid < 0)
		return -1;
	while (waitpid(pid, &st, 0) < 0)
		if (errno != EINTR)
			return -1;
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

/**
 * busid_check() - whether a string is a USB bus id, e.g. "1-2" or "3-1.4.2"
 * @s:		string from the command line
 *
 * Bus ids go into usbip's arguments and into a script run in the guest:
 * only BUS-PORT(.PORT)* in decimal passes.
 *
 * Return: 0 if valid, -EINVAL otherwise
 */
int busid_check(const char *s)
{
	int digits = 0, dash = 0;

	if (strlen(s) > 31)
		return -EINVAL;
	for (; *s; s++) {
		if (*s >= '0' && *s <= '9') {
			digits++;
			continue;
		}
		if (!digits || (*s == '-' && dash) || (*s == '.' && !dash) ||
		    (*s != '-' && *s != '.'))
			return -EINVAL;
		dash |= *s == '-';
		digits = 0;
	}
	return digits && dash ? 0 : -EINVAL;
}

/**
 * close_from() - close every file descriptor from @lowfd up
 * @lowfd:	first descriptor to close
 *
 * A daemon must not keep its caller's descriptors: a pipe it holds never
 * sees EOF ("umarmctl start | tee" would hang), a file it holds stays
 * busy.  close_range() is supported since kernel version 5.9; before,
 * close what /proc/self/fd lists, or every number up to the limit.
 */
void close_from(int lowfd)
{
	long max = sysconf(_SC_OPEN_MAX), fd;
	struct dirent *de;
	DIR *d;

#ifdef SYS_close_range
	if (!syscall(SYS_close_range, (unsigned int)lowfd, ~0U, 0))
		return;
#endif
	d = opendir("/proc/self/fd");
	if (d) {
		while ((de = readdir(d))) {
			fd = atol(de->d_name);
			if (fd >= lowfd && fd != dirfd(d))
				close(fd);
		}
		closedir(d);
		return;
	}
	for (fd = lowfd; fd < (max > 0 ? max : 1024); fd++)
		close(fd);
}

/**
 * now_ms() - wall clock time
 *
 * Return: milliseconds since the epoch
 */
uint64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (uint64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/**
 * boot_ms() - monotonic time, for timeouts
 *
 * Return: milliseconds on CLOCK_MONOTONIC
 */
uint64_t boot_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/**
 * sleep_ms() - sleep, restarting after signals
 * @ms:		milliseconds
 */
void sleep_ms(unsigned int ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
}

/**
 * set_cloexec() - set or clear FD_CLOEXEC
 * @fd:		file descriptor
 * @on:		non-zero to set
 *
 * Return: 0 on success, negative errno on failure
 */
int set_cloexec(int fd, int on)
{
	int fl = fcntl(fd, F_GETFD);

	if (fl < 0)
		return -errno;
	fl = on ? fl | FD_CLOEXEC : fl & ~FD_CLOEXEC;
	return fcntl(fd, F_SETFD, fl) ? -errno : 0;
}

/**
 * bind_unix() - a non-blocking AF_UNIX socket bound at @path
 * @path:	where to bind it; a stale socket there is removed first
 * @type:	SOCK_STREAM (control socket) or SOCK_DGRAM (mconsole notify)
 *
 * Return: socket, negative errno on failure
 */
int bind_unix(const char *path, int type)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	int fd;

	if (strlen(path) >= sizeof(sa.sun_path))
		return -ENAMETOOLONG;
	strcpy(sa.sun_path, path);
	unlink(path);
	fd = socket(AF_UNIX, type | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (fd < 0)
		return -errno;
	if (bind(fd, (struct sockaddr *)&sa, sizeof(sa))) {
		int rc = -errno;

		close(fd);
		return rc;
	}
	return fd;
}

/**
 * set_nonblock() - set O_NONBLOCK
 * @fd:		file descriptor
 *
 * Return: 0 on success, negative errno on failure
 */
int set_nonblock(int fd)
{
	int fl = fcntl(fd, F_GETFL);

	if (fl < 0)
		return -errno;
	return fcntl(fd, F_SETFL, fl | O_NONBLOCK) ? -errno : 0;
}
