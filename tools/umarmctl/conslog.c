// SPDX-License-Identifier: GPL-2.0-or-later
/* umarmctl - manage User-Mode Linux instances
 *
 * conslog.c - the console log, and the markers in it and in mconsole notifications
 */

#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/socket.h>
#include <sys/stat.h>

#include "sup.h"
#include "disk.h"
#include "log.h"
#include "mconsole.h"
#include "text.h"
#include "util.h"

static const char *default_ready[] = { "UMARM_BOOT_OK",
					"UMARM_MULTI_USER_OK" };

/**
 * conslog_open() - open console.log for appending, with a header line
 * @s:		supervisor
 *
 * Without it the guest still runs: the console is just not kept.
 */
void conslog_open(struct sup *s)
{
	char path[PATH_LEN], when[64], hdr[256];
	time_t t = time(NULL);
	struct stat st;

	inst_path(s->in, path, 0, CONSOLE_LOG);
	s->log_fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC,
			 0640);
	if (s->log_fd < 0)
		return;
	if (!fstat(s->log_fd, &st))
		s->log_size = st.st_size;
	strftime(when, sizeof(when), "%Y-%m-%d %H:%M:%S", localtime(&t));
	snprintf(hdr, sizeof(hdr), "-- umarmctl: %s started %s --\n",
		 s->in->name, when);
	log_console(s, hdr, strlen(hdr));
}

/**
 * log_console() - append console output to console.log, rotating it
 * @s:		supervisor
 * @buf:	data
 * @n:		length
 */
void log_console(struct sup *s, const char *buf, size_t n)
{
	char path[PATH_LEN], old[PATH_LEN];

	if (s->log_fd < 0)
		return;
	if (s->log_size + n > CONSOLE_LOG_MAX) {
		inst_path(s->in, path, 0, CONSOLE_LOG);
		inst_path(s->in, old, 0, CONSOLE_LOG ".1");
		close(s->log_fd);
		rename(path, old);
		s->log_fd = open(path, O_WRONLY | O_CREAT | O_APPEND |
				 O_CLOEXEC, 0640);
		s->log_size = 0;
		if (s->log_fd < 0)
			return;
	}
	if (!write_all(s->log_fd, buf, n))
		s->log_size += n;
}

/**
 * check_disk_markers() - a disk UML cannot open, named before the panic
 * @s:		supervisor
 * @line:	one console line, NUL-terminated
 *
 * Without a root disk the guest panics ("Unable to mount root fs"), which
 * says nothing of why: the line before it does.
 */
static void check_disk_markers(struct sup *s, const char *line)
{
	const char *p;
	char msg[384];

	if (*s->fail)
		return;
	/* arch/um/os-Linux/file.c os_lock_file(): another UML has a disk */
	p = strstr(line, "file already locked by pid ");
	if (p) {
		int pid = atoi(p + strlen("file already locked by pid "));

		disk_owner_msg(s->in, pid, msg, sizeof(msg));
		fail_boot(s, EX_STATE, msg);
	}
	/* arch/um/drivers/ubd_kern.c backing_file_mismatch(): the base
	 * image changed (a rebuilt, copied or touched file) after the
	 * copy-on-write overlay was made over it
	 */
	if (strstr(line, "mismatch (") && strstr(line, "of COW header vs")) {
		p = strstr(line, "] ");	/* after the printk time */
		snprintf(msg, sizeof(msg),
			 "%s: a disk's base image changed after its copy-on-write overlay was made (%.90s); put the base back as it was, or remove the overlay (its changes are lost)",
			 s->in->name, p ? p + 2 : line);
		fail_boot(s, EX_BOOT, msg);
	}
}

/**
 * check_marker() - look for readiness and failure markers in a line
 * @s:		supervisor
 * @line:	one console line, NUL-terminated
 */
void check_marker(struct sup *s, const char *line)
{
	int i;

	if (!s->ready) {
		if (s->c->nready) {
			for (i = 0; i < s->c->nready; i++)
				if (strcmp(s->c->ready[i], "mconsole") &&
				    strstr(line, s->c->ready[i]))
					set_ready(s, "console marker");
		} else {
			for (i = 0; i < (int)ARRAY_SIZE(default_ready); i++)
				if (strstr(line, default_ready[i]))
					set_ready(s, "console marker");
		}
	}
	check_disk_markers(s, line);
	if (strstr(line, "Kernel panic - not syncing") && !*s->fail) {
		char msg[384];

		snprintf(msg, sizeof(msg),
			 "%s: guest kernel panic: %.200s; see 'umarmctl logs %s'",
			 s->in->name, line, s->in->name);
		fail_boot(s, EX_BOOT, msg);
	}
}

/**
 * console_in() - handle output from the guest console
 * @s:		supervisor
 *
 * Return: 0, or -EPIPE once UML closed the console
 */
int console_in(struct sup *s)
{
	char buf[8192];
	ssize_t n;
	int i;

	n = read(s->cons_fd, buf, sizeof(buf));
	if (n < 0)
		return errno == EAGAIN || errno == EINTR ? 0 : -EPIPE;
	if (!n)
		return -EPIPE;

	log_console(s, buf, n);
	for (i = 0; i < MAX_CLIENTS; i++) {
		struct client *c = &s->cl[i];

		/* A client that can't keep up loses output, not the guest */
		if (c->fd >= 0 && c->console)
			send(c->fd, buf, n, MSG_DONTWAIT | MSG_NOSIGNAL);
	}
	for (i = 0; i < n; i++) {
		if (buf[i] == '\n' || s->linelen == sizeof(s->line) - 1) {
			s->line[s->linelen] = 0;
			check_marker(s, s->line);
			s->linelen = 0;
			continue;
		}
		if (buf[i] != '\r')
			s->line[s->linelen++] = buf[i];
	}
	return 0;
}

/**
 * console_pending() - read what the console has written so far
 * @s:		supervisor
 *
 * The panic notification can overtake the console lines before it, and
 * those say why (a disk that did not open): they go first.
 */
static void console_pending(struct sup *s)
{
	struct pollfd p = { .fd = s->cons_fd, .events = POLLIN };

	while (s->cons_fd >= 0 && poll(&p, 1, 0) > 0 && console_in(s) == 0)
		;
}

/**
 * notify_in() - handle a datagram from UML's mconsole notifier
 * @s:		supervisor
 */
void notify_in(struct sup *s)
{
	char buf[sizeof(struct mc_notify)], text[MC_MAX_DATA + 1];
	const char *data;
	uint32_t type;
	size_t len;
	ssize_t n;
	int i;

	n = recv(s->notify_fd, buf, sizeof(buf), MSG_DONTWAIT);
	if (n <= 0 || mc_parse_notify(buf, n, &type, &data, &len))
		return;
	memcpy(text, data, len);
	text[len] = 0;
	if (len && text[len - 1] == '\n')
		text[len - 1] = 0;
	/* guest text (/proc/mconsole, panic): one line, no escapes */
	text_clean(text, 0);

	switch (type) {
	case MC_NOTIFY_SOCKET:
		snprintf(s->st.mconsole, sizeof(s->st.mconsole), "%s", text);
		publish(s, NULL);
		/* a second one: the kernel re-executed itself (a reboot) */
		if (s->mc_seen++)
			kernel_reexec(s);
		for (i = 0; i < s->c->nready; i++)
			if (!strcmp(s->c->ready[i], "mconsole"))
				set_ready(s, "mconsole");
		break;
	case MC_NOTIFY_PANIC:
		snprintf(s->st.exit, sizeof(s->st.exit), "panic: %.100s",
			 text);
		console_pending(s);
		check_marker(s, "Kernel panic - not syncing");
		break;
	case MC_NOTIFY_USER:
		if (!strcmp(text, "ready"))
			set_ready(s, "/proc/mconsole");
		else
			check_marker(s, text);
		break;
	}
}
