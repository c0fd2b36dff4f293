// SPDX-License-Identifier: GPL-2.0-or-later
/* umarmctl - manage User-Mode Linux instances
 *
 * control.c - the supervisor's side of the control socket: each request
 *	       to the part of the supervisor it is for
 */

#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/socket.h>
#include <sys/un.h>

#include "sup.h"
#include "conffile.h"
#include "sharens.h"
#include "log.h"
#include "nif.h"
#include "util.h"

/**
 * listen_unix() - create a listening stream socket
 * @path:	where to bind it
 *
 * Return: socket, negative errno on failure
 */
int listen_unix(const char *path)
{
	int fd = bind_unix(path, SOCK_STREAM);

	if (fd < 0)
		return fd;
	if (listen(fd, 8)) {
		int rc = -errno;

		close(fd);
		return rc;
	}
	return fd;
}

/**
 * share_is_vfsd() - whether a share is virtio-fs: from the configuration
 *		     for an add, from the running virtiofsds for a remove
 * @s:		supervisor
 * @c:		configuration
 * @i:		the share
 *
 * Return: 1 if it is
 */
static int share_is_vfsd(const struct sup *s, const struct conf *c, int i)
{
	int j;

	if (c->share[i].fs == SHARE_VIRTIOFS)
		return 1;
	for (j = 0; j < VFSD_MAX; j++)
		if (s->vfs[j].pid &&
		    !strcmp(s->vfs[j].name, conf_str(c, c->share[i].name)))
			return 1;
	return 0;
}

/**
 * share_request() - control requests "share-add NAME", "share-rm NAME"
 * @s:		supervisor
 * @line:	the request
 * @reply:	"OK" or "ERR why", with newline
 * @len:	size of @reply
 *
 * The client saved the configuration first ("share add" keeps the share
 * in it, "share rm" has dropped it): for an add it is read again here,
 * for a remove the share is looked up in what it was at start or added.
 * The table follows the configuration, so that a guest reboot mounts
 * the same shares.  hostfs shares are sharens.c's, virtio-fs ones
 * vfsd.c's.
 */
static void share_request(struct sup *s, const char *line, char *reply,
			  size_t len)
{
	int add = !strncmp(line, "share-add ", 10), i, rc;
	const char *name = line + (add ? 10 : 9);
	struct conf *c = malloc(sizeof(*c));
	char why[400] = "";

	if (!c || conf_load(s->in, c)) {
		snprintf(reply, len, "ERR cannot read the configuration\n");
		free(c);
		return;
	}
	i = conf_share_find(c, name);
	if (add && i < 0) {
		snprintf(reply, len, "ERR no share '%.64s' in the configuration\n",
			 name);
	} else if (!add && i >= 0) {
		snprintf(reply, len, "ERR share '%.64s' is still in the configuration\n",
			 name);
	} else {
		if (!add) {
			/* a placeholder: the mount point is all that counts */
			const char *unused;

			conf_share_add(c, name, "/", "/unused", 0,
				       SHARE_HOSTFS, &unused);
			i = c->nshares - 1;
		}
		rc = share_is_vfsd(s, c, i) ?
		     vfsd_hot(s, c, i, add, why, sizeof(why)) :
		     shares_hot(s, c, i, add, why, sizeof(why));
		if (!add)
			conf_share_del(c, i);
		if (rc)
			snprintf(reply, len, "ERR %s\n", why);
		else if (shares_table(s->in, c))
			snprintf(reply, len, "ERR cannot write the share table\n");
		else
			snprintf(reply, len, "OK\n");
	}
	free(c);
}

/**
 * client_line() - execute one control command
 * @s:		supervisor
 * @c:		client
 * @line:	command, NUL-terminated, without newline
 */
static void client_line(struct sup *s, struct client *c, const char *line)
{
	const char *ok = "OK\n";
	char reply[600];

	if (!strcmp(line, "console")) {
		c->console = 1;
	} else if (!strcmp(line, "stop")) {
		stop_start(s, 0);
	} else if (!strcmp(line, "kill")) {
		stop_start(s, 1);
	} else if (!strcmp(line, "reboot")) {
		if (reboot_start(s)) {
			snprintf(reply, sizeof(reply),
				 "ERR the guest is %s: wait, or 'umarmctl restart %s'\n",
				 s->st.status, s->in->name);
			ok = reply;
		}
	} else if (!strcmp(line, "pause") || !strcmp(line, "resume")) {
		int p = line[0] == 'p';
		int rc = mc(s, p ? "stop" : "go", NULL, 0);

		if (rc) {
			snprintf(reply, sizeof(reply), "ERR mconsole: %s\n",
				 strerror(-rc));
			ok = reply;
		} else {
			s->paused = p;
			publish(s, p ? "paused" : (s->ready ? "running"
							    : "booting"));
		}
	} else if (!strncmp(line, "type ", 5)) {
		char buf[sizeof(c->buf) + 2];
		size_t n = strlen(line + 5);

		if (s->paused) {
			ok = "ERR instance is paused\n";
		} else {
			/* ^U first: drop whatever half line sits there */
			buf[0] = 0x15;
			memcpy(buf + 1, line + 5, n);
			buf[n + 1] = '\n';
			write_all(s->exec_fd >= 0 ? s->exec_fd : s->cons_fd,
				  buf, n + 2);
		}
	} else if (!strcmp(line, "net-add") || !strncmp(line, "net-add ", 8)) {
		hotplug_add(s, line + 7, reply, sizeof(reply));
		ok = reply;
	} else if (!strncmp(line, "net-rm ", 7)) {
		unsigned int id;

		if (nif_id_parse(line + 7, &id) || !id || !s->hp[id].used) {
			snprintf(reply, sizeof(reply),
				 "ERR no hot-plugged interface '%s'\n",
				 line + 7);
			ok = reply;
		} else {
			hotplug_stop(s, id);
			publish_nif(s);
		}
	} else if (!strncmp(line, "share-add ", 10) ||
		   !strncmp(line, "share-rm ", 9)) {
		share_request(s, line, reply, sizeof(reply));
		ok = reply;
	} else if (!strcmp(line, "ping")) {
		ok = "OK\n";
	} else {
		ok = "ERR unknown request\n";
	}
	send(c->fd, ok, strlen(ok), MSG_NOSIGNAL);
}

/**
 * client_in() - handle data from a control client
 * @s:		supervisor
 * @c:		client
 */
void client_in(struct sup *s, struct client *c)
{
	ssize_t n;
	char *nl;

	if (c->console) {
		char buf[4096];

		n = recv(c->fd, buf, sizeof(buf), MSG_DONTWAIT);
		if (n > 0 && !s->paused)
			write_all(s->cons_fd, buf, n);
		if (n == 0 || (n < 0 && errno != EAGAIN && errno != EINTR)) {
			close(c->fd);
			c->fd = -1;
		}
		return;
	}
	n = recv(c->fd, c->buf + c->len, sizeof(c->buf) - 1 - c->len,
		 MSG_DONTWAIT);
	if (n <= 0) {
		if (n == 0 || (errno != EAGAIN && errno != EINTR)) {
			close(c->fd);
			c->fd = -1;
		}
		return;
	}
	c->len += n;
	c->buf[c->len] = 0;
	while (!c->console && (nl = strchr(c->buf, '\n'))) {
		size_t used = nl - c->buf + 1;

		*nl = 0;
		client_line(s, c, c->buf);
		memmove(c->buf, c->buf + used, c->len - used + 1);
		c->len -= used;
	}
	if (c->console && c->len) {
		write_all(s->cons_fd, c->buf, c->len);
		c->len = 0;
	}
	if (c->len == sizeof(c->buf) - 1) {
		close(c->fd);
		c->fd = -1;
	}
}

/**
 * accept_client() - accept a control connection
 * @s:		supervisor
 */
void accept_client(struct sup *s)
{
	int fd = accept4(s->listen_fd, NULL, NULL,
			 SOCK_CLOEXEC | SOCK_NONBLOCK);
	int i;

	if (fd < 0)
		return;
	for (i = 0; i < MAX_CLIENTS; i++) {
		if (s->cl[i].fd < 0) {
			memset(&s->cl[i], 0, sizeof(s->cl[i]));
			s->cl[i].fd = fd;
			return;
		}
	}
	send(fd, "ERR too many clients\n", 21, MSG_NOSIGNAL);
	close(fd);
}
