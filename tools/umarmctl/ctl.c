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
#include "lock.h"
#include "state.h"
#include "util.h"

/* How often to look for the control socket of a supervisor starting */
#define CTL_POLL_MS	50
/* How long a supervisor that runs its loop may take to answer */
#define CTL_REPLY_MS	10000

/**
 * ctl_connect_once() - connect to the control socket, if it listens now
 * @in:		instance
 *
 * Return: socket, negative errno on failure (-ENOENT, -ECONNREFUSED: no
 *	   supervisor listens there yet, or any more)
 */
static int ctl_connect_once(const struct inst *in)
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
 * ctl_connect() - connect to the control socket of a running instance
 * @in:		instance
 *
 * A supervisor makes its socket only after its host checks, which are
 * slow on a loaded host: "umarmctl start NAME; umarmctl stop NAME" must
 * not fail in between.  So while the supervisor lives (holds the run
 * lock), its socket is waited for, up to CTL_START_WAIT_MS.
 *
 * Return: socket; -ESRCH if the supervisor exited while we waited,
 *	   -ENOTCONN if it made no socket in time, another negative errno
 *	   (-ENOENT: not running)
 */
int ctl_connect(const struct inst *in)
{
	uint64_t deadline = boot_ms() + CTL_START_WAIT_MS;
	int fd, waited = 0;

	for (;;) {
		fd = ctl_connect_once(in);
		if (fd >= 0 || (fd != -ENOENT && fd != -ECONNREFUSED))
			return fd;
		if (inst_running(in) <= 0)
			return waited ? -ESRCH : fd;
		if (boot_ms() >= deadline)
			return -ENOTCONN;
		waited = 1;
		sleep_ms(CTL_POLL_MS);
	}
}

/**
 * sup_starting() - whether the supervisor has not reached its loop yet
 * @in:		instance
 *
 * It listens before it starts passt and the kernel, and answers once
 * its loop runs, when it publishes "booting".
 *
 * Return: 1 if it runs and published nothing yet, or "starting"
 */
static int sup_starting(const struct inst *in)
{
	char path[PATH_LEN];
	struct state st;

	if (inst_running(in) <= 0)
		return 0;
	inst_path(in, path, 1, STATE_FILE);
	return state_read(path, &st) || !strcmp(st.status, "starting");
}

/**
 * ctl_reply() - read the one-line reply to a request
 * @in:		instance
 * @fd:		the connection
 * @buf:	set to the reply, NUL-terminated
 * @size:	size of @buf
 *
 * A supervisor answers within CTL_REPLY_MS once its loop runs; while it
 * is still starting, up to CTL_START_WAIT_MS.
 *
 * Return: 0, -ETIMEDOUT, -ECONNRESET
 */
static int ctl_reply(const struct inst *in, int fd, char *buf, size_t size)
{
	uint64_t deadline = boot_ms() + CTL_START_WAIT_MS;
	size_t o = 0;

	buf[0] = 0;
	while (o < size - 1) {
		struct pollfd p = { .fd = fd, .events = POLLIN };
		ssize_t n;
		int r = poll(&p, 1, CTL_REPLY_MS);

		if (r == 0 && sup_starting(in) && boot_ms() < deadline)
			continue;
		if (r <= 0)
			return -ETIMEDOUT;
		n = read(fd, buf + o, size - 1 - o);
		if (n <= 0)
			return -ECONNRESET;
		o += n;
		buf[o] = 0;
		if (strchr(buf, '\n'))
			break;
	}
	return 0;
}

/**
 * ctl_why() - what a failed ctl_request() or ctl_connect() means
 * @rc:		what it returned
 * @reply:	the reply it filled, for -EIO
 *
 * Return: a text for the user (the supervisor's own, for -EIO)
 */
const char *ctl_why(int rc, const char *reply)
{
	static char why[120];

	switch (rc) {
	case -EIO:
		return reply;
	case -ESRCH:
		return "the supervisor exited before it answered";
	case -ENOTCONN:
		snprintf(why, sizeof(why),
			 "the supervisor, still starting, opened no control socket within %ds",
			 CTL_START_WAIT_MS / 1000);
		return why;
	case -ETIMEDOUT:
		snprintf(why, sizeof(why),
			 "the supervisor did not answer within %ds",
			 CTL_REPLY_MS / 1000);
		return why;
	}
	return strerror(-rc);
}

/**
 * ctl_request() - send one control request and read its one-line reply
 * @in:		instance
 * @req:	request, without newline
 * @reply:	reply line, without newline
 * @len:	size of @reply
 *
 * Return: 0 on "OK" (what follows "OK " in @reply), -EIO on "ERR ..."
 *	   (text in @reply), negative errno (as ctl_connect(), or
 *	   -ETIMEDOUT, -ECONNRESET); ctl_why() says what it means
 */
int ctl_request(const struct inst *in, const char *req, char *reply,
		size_t len)
{
	char buf[1100];
	int fd, rc;

	if (len)
		*reply = 0;
	fd = ctl_connect(in);
	if (fd < 0)
		return fd;
	snprintf(buf, sizeof(buf), "%s\n", req);
	rc = write_all(fd, buf, strlen(buf));
	if (!rc)
		rc = ctl_reply(in, fd, buf, sizeof(buf));
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
