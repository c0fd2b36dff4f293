// SPDX-License-Identifier: GPL-2.0-or-later
/* umarmctl - manage User-Mode Linux instances
 *
 * sdnotify.c - systemd readiness notification, without libsystemd
 *
 * The sd_notify(3) protocol is one datagram of "KEY=VALUE\n" lines to the
 * AF_UNIX socket named by $NOTIFY_SOCKET ('@' prefix: abstract namespace).
 */

#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>

#include "sdnotify.h"

/**
 * sd_notify_msg() - send a notification to the service manager, if any
 * @msg:	e.g. "READY=1\nSTATUS=Guest booted"
 *
 * Return: 1 if sent, 0 if not running under a notify-capable manager,
 *	   negative errno on failure
 */
int sd_notify_msg(const char *msg)
{
	const char *path = getenv("NOTIFY_SOCKET");
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	socklen_t len;
	int fd, rc = 1;

	if (!path || (*path != '/' && *path != '@'))
		return 0;
	if (strlen(path) >= sizeof(sa.sun_path))
		return -ENAMETOOLONG;
	strcpy(sa.sun_path, path);
	len = offsetof(struct sockaddr_un, sun_path) + strlen(path);
	if (*path == '@')
		sa.sun_path[0] = 0;
	else
		len++;

	fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	if (sendto(fd, msg, strlen(msg), MSG_NOSIGNAL,
		   (struct sockaddr *)&sa, len) < 0)
		rc = -errno;
	close(fd);
	return rc;
}

/**
 * under_systemd() - whether systemd is the running service manager
 *
 * Same test as sd_booted(3).
 *
 * Return: 1 if /run/systemd/system exists, 0 otherwise
 */
int under_systemd(void)
{
	struct stat st;

	return !lstat("/run/systemd/system", &st) && S_ISDIR(st.st_mode);
}
