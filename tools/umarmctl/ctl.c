// SPDX-License-Identifier: GPL-2.0-or-later
/* umarmctl - manage User-Mode Linux instances
 *
 * ctl.c - the client side of an instance's control socket
 */

#define _GNU_SOURCE
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/socket.h>
#include <sys/un.h>

#include "ctl.h"
#include "util.h"

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
