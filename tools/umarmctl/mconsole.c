// SPDX-License-Identifier: GPL-2.0-or-later
/* umarmctl - manage User-Mode Linux instances
 *
 * mconsole.c - client of UML's management console
 *
 * The protocol (arch/um/drivers/mconsole.h, mconsole_user.c): an AF_UNIX
 * datagram socket at UML_DIR/UMID/mconsole.  A request is a fixed 524-byte
 * struct mc_request (magic 0xcafebabe, version 2, len < 512, the command
 * text); UML answers with sendto() to the address the request came from, so
 * the client must have a bound address: Linux autobind (bind() with only the
 * family) gives it an abstract one.  A reply is a 12-byte header (err, more,
 * len) plus len bytes; more != 0 means another datagram follows; err is only
 * meaningful on the first one.  Everything is host-endian: UML and its
 * client always share the host.
 *
 * With mconsole=notify:PATH on the kernel command line, UML sends
 * struct mc_notify datagrams to PATH: MC_NOTIFY_SOCKET once the mconsole
 * socket is up (our first readiness signal, it carries the socket path),
 * MC_NOTIFY_PANIC, and MC_NOTIFY_USER whenever the guest writes to
 * /proc/mconsole.
 */

#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/socket.h>
#include <sys/un.h>

#include "mconsole.h"
#include "util.h"

/**
 * mc_build_request() - fill a request datagram
 * @req:	request to fill
 * @cmd:	command, e.g. "cad", "config ubd1=disk.img"
 *
 * Return: number of bytes to send, -E2BIG if @cmd is too long (UML rejects
 *	   len >= MC_MAX_DATA with "Request too large")
 */
int mc_build_request(struct mc_request *req, const char *cmd)
{
	size_t len = strlen(cmd);

	if (len >= MC_MAX_DATA)
		return -E2BIG;
	memset(req, 0, sizeof(*req));
	req->magic = MC_MAGIC;
	req->version = MC_VERSION;
	req->len = len;
	memcpy(req->data, cmd, len);
	/* UML reads the fixed-size struct and uses len */
	return sizeof(*req);
}

/**
 * mc_parse_reply() - validate one reply datagram
 * @buf:	datagram
 * @n:		its length
 * @err:	UML's error flag
 * @more:	non-zero if more datagrams follow
 * @data:	reply text (not NUL-terminated)
 * @len:	length of @data
 *
 * Return: 0 on success, -EPROTO for a malformed datagram
 */
int mc_parse_reply(const void *buf, size_t n, uint32_t *err, uint32_t *more,
		   const char **data, size_t *len)
{
	const struct mc_reply *r = buf;

	if (n < MC_REPLY_HDR)
		return -EPROTO;
	if (r->len > MC_MAX_DATA || r->len > n - MC_REPLY_HDR)
		return -EPROTO;
	*err = r->err;
	*more = r->more;
	*data = r->data;
	*len = r->len;
	/* UML counts the terminating NUL in len: drop it */
	if (*len && (*data)[*len - 1] == 0)
		(*len)--;
	return 0;
}

/**
 * mc_parse_notify() - validate one notification datagram
 * @buf:	datagram
 * @n:		its length
 * @type:	enum mc_notify_type
 * @data:	payload (not NUL-terminated)
 * @len:	length of @data
 *
 * Return: 0 on success, -EPROTO for a malformed datagram
 */
int mc_parse_notify(const void *buf, size_t n, uint32_t *type,
		    const char **data, size_t *len)
{
	const struct mc_notify *m = buf;

	if (n < MC_NOTIFY_HDR || m->magic != MC_MAGIC ||
	    m->version != MC_VERSION)
		return -EPROTO;
	if (m->len > MC_MAX_DATA || m->len > n - MC_NOTIFY_HDR)
		return -EPROTO;
	*type = m->type;
	*data = m->data;
	*len = m->len;
	if (*len && (*data)[*len - 1] == 0)
		(*len)--;
	return 0;
}

/**
 * sun_set() - fill a sockaddr_un, working around the 108-byte sun_path
 * @sa:		address to fill
 * @path:	socket path
 * @dirfd:	set to a directory fd to close afterwards, or -1
 *
 * A path too long for sun_path is reached through /proc/self/fd/N/NAME,
 * with N an O_PATH descriptor of its directory.
 *
 * Return: address length, negative errno on failure
 */
static int sun_set(struct sockaddr_un *sa, const char *path, int *dirfd)
{
	char d[PATH_LEN], b[PATH_LEN];

	*dirfd = -1;
	memset(sa, 0, sizeof(*sa));
	sa->sun_family = AF_UNIX;
	if (strlen(path) < sizeof(sa->sun_path)) {
		strcpy(sa->sun_path, path);
		return sizeof(*sa);
	}
	if (pathf(d, "%s", path) || pathf(b, "%s", path))
		return -ENAMETOOLONG;
	*dirfd = open(dirname(d), O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (*dirfd < 0)
		return -errno;
	if (snprintf(sa->sun_path, sizeof(sa->sun_path), "/proc/self/fd/%d/%s",
		     *dirfd, basename(b)) >= (int)sizeof(sa->sun_path)) {
		close(*dirfd);
		*dirfd = -1;
		return -ENAMETOOLONG;
	}
	return sizeof(*sa);
}

/**
 * mc_command() - send one command and collect the whole reply
 * @sock:	path of the mconsole socket
 * @cmd:	command text
 * @out:	reply text, NUL-terminated, truncated to @outlen
 * @outlen:	size of @out
 * @timeout_ms:	how long to wait for each datagram
 * @uml_err:	set to UML's error flag (non-zero: command failed)
 *
 * Return: 0 on success (see @uml_err), -ETIMEDOUT if UML didn't answer,
 *	   -ECONNREFUSED/-ENOENT if nothing listens, other negative errno
 */
int mc_command(const char *sock, const char *cmd, char *out, size_t outlen,
	       int timeout_ms, int *uml_err)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	struct mc_request req;
	size_t o = 0;
	int fd, dirfd, n, rc = 0, first = 1;
	socklen_t salen;

	if (outlen)
		*out = 0;
	*uml_err = 0;
	n = mc_build_request(&req, cmd);
	if (n < 0)
		return n;

	fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	/* Autobind: UML needs an address to reply to (sa_family only) */
	if (bind(fd, (struct sockaddr *)&sa, sizeof(sa_family_t))) {
		rc = -errno;
		goto out;
	}
	rc = sun_set(&sa, sock, &dirfd);
	if (rc < 0)
		goto out;
	salen = rc;
	rc = connect(fd, (struct sockaddr *)&sa, salen) ? -errno : 0;
	if (dirfd >= 0)
		close(dirfd);
	if (rc)
		goto out;
	if (send(fd, &req, n, 0) != n) {
		rc = -errno;
		goto out;
	}

	for (;;) {
		struct pollfd pfd = { .fd = fd, .events = POLLIN };
		char buf[sizeof(struct mc_reply)];
		uint32_t e, more;
		const char *data;
		size_t len;
		ssize_t r;

		r = poll(&pfd, 1, timeout_ms);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0) {
			rc = r ? -errno : -ETIMEDOUT;
			break;
		}
		r = recv(fd, buf, sizeof(buf), 0);
		if (r < 0) {
			rc = -errno;
			break;
		}
		if (mc_parse_reply(buf, r, &e, &more, &data, &len)) {
			rc = -EPROTO;
			break;
		}
		if (first)
			*uml_err = e;
		first = 0;
		if (outlen && o < outlen - 1) {
			size_t c = len < outlen - 1 - o ? len : outlen - 1 - o;

			memcpy(out + o, data, c);
			o += c;
			out[o] = 0;
		}
		if (!more)
			break;
	}
out:
	close(fd);
	return rc;
}

/**
 * mc_bind_notify() - create the socket UML sends notifications to
 * @path:	where to bind it (passed to UML as mconsole=notify:PATH)
 *
 * Return: socket, negative errno on failure
 */
int mc_bind_notify(const char *path)
{
	return bind_unix(path, SOCK_DGRAM);
}
