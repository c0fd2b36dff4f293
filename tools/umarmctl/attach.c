// SPDX-License-Identifier: GPL-2.0-or-later
/* umarmctl - manage User-Mode Linux instances
 *
 * attach.c - connect the terminal to a running guest's console
 */

#define _GNU_SOURCE
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <termios.h>
#include <unistd.h>
#include <sys/socket.h>

#include "inst.h"
#include "ctl.h"
#include "log.h"
#include "util.h"

#define ESCAPE_CHAR	0x1d	/* ^] pressed three times within a second */
#define ESCAPE_COUNT	3
#define ESCAPE_WINDOW	1000
/* after stdin ends (scripted input), keep printing until idle this long */
#define DRAIN_IDLE_MS	1000

/* An attached console, as the steps of console_attach() share it */
struct attach {
	const struct inst *in;
	int fd;			/* the console, through the supervisor */
	int tty;		/* stdin is a terminal */
	int in_open;		/* stdin has not ended */
	int esc;		/* ^] pressed so many times in a row */
	uint64_t esc_t;		/* boot_ms() of the last ^] */
	uint64_t last;		/* of the last output, or stdin's end */
};

/**
 * console_open() - ask the supervisor for the console stream
 * @in:		instance
 * @fd:		the stream, on success
 *
 * Return: 0 on success, EX_STATE if not running, EX_FAIL if refused
 *	   (message printed)
 */
static int console_open(const struct inst *in, int *fd)
{
	char ok[3];

	*fd = ctl_connect(in);
	if (*fd == -ENOENT || *fd == -ECONNREFUSED) {
		err("%s: not running (no console at %s/%s)", in->name, in->run,
		    CONTROL_SOCK);
		return EX_STATE;
	}
	if (*fd < 0) {
		err("%s: no console: %s", in->name, ctl_why(*fd, ""));
		return EX_STATE;
	}
	if (write_all(*fd, "console\n", 8)) {
		close(*fd);
		return EX_FAIL;
	}
	/* The "OK\n" reply arrives first on the stream; skip it */
	if (recv(*fd, ok, 3, MSG_WAITALL) != 3 || memcmp(ok, "OK\n", 3)) {
		err("%s: the supervisor refused the console", in->name);
		close(*fd);
		return EX_FAIL;
	}
	return 0;
}

/**
 * escape_pressed() - whether the user typed the escape to detach
 * @a:		console
 * @buf:	what the user typed
 * @len:	length of @buf
 *
 * Return: 1 if ^] came the third time within a second, in @buf
 */
static int escape_pressed(struct attach *a, const char *buf, ssize_t len)
{
	ssize_t i;

	for (i = 0; a->tty && i < len; i++) {
		if (buf[i] != ESCAPE_CHAR) {
			a->esc = 0;
			continue;
		}
		if (!a->esc || boot_ms() - a->esc_t > ESCAPE_WINDOW)
			a->esc = 0;
		a->esc_t = boot_ms();
		if (++a->esc == ESCAPE_COUNT)
			return 1;
	}
	return 0;
}

/**
 * from_guest() - copy what the console printed to stdout
 * @a:		console
 *
 * Return: 0, or 1 if the console closed (the instance stopped)
 */
static int from_guest(struct attach *a)
{
	char buf[4096];
	ssize_t r = read(a->fd, buf, sizeof(buf));

	if (r <= 0) {
		if (a->tty)
			fprintf(stderr, "\r\n");
		info("%s: console closed (instance stopped)", a->in->name);
		return 1;
	}
	write_all(1, buf, r);
	a->last = boot_ms();
	return 0;
}

/**
 * from_user() - send what the user typed to the console
 * @a:		console
 *
 * The buffer that holds the escape is not sent.
 *
 * Return: 0, 1 if the user detached, -1 if the console is gone
 */
static int from_user(struct attach *a)
{
	char buf[4096];
	ssize_t r = read(0, buf, sizeof(buf));

	if (r <= 0) {
		a->in_open = 0;
		a->last = boot_ms();
		return 0;
	}
	if (escape_pressed(a, buf, r))
		return 1;
	return write_all(a->fd, buf, r) ? -1 : 0;
}

/**
 * attach_loop() - copy both ways until the console closes or we detach
 * @a:		console
 *
 * Once stdin ends, output is shown until DRAIN_IDLE_MS of silence.
 *
 * Return: 1 if the user detached, 0 otherwise
 */
static int attach_loop(struct attach *a)
{
	for (;;) {
		struct pollfd p[2] = { { .fd = a->fd, .events = POLLIN },
				       { .fd = 0, .events = POLLIN } };
		int n = poll(p, a->in_open ? 2 : 1,
			     a->in_open ? -1 : DRAIN_IDLE_MS);
		int r;

		if (n < 0 && errno == EINTR)
			continue;
		if (n == 0 && !a->in_open &&
		    boot_ms() - a->last >= DRAIN_IDLE_MS)
			return 0;
		if (p[0].revents && from_guest(a))
			return 0;
		if (a->in_open && p[1].revents) {
			r = from_user(a);
			if (r)
				return r > 0;
		}
	}
}

/**
 * console_attach() - connect the terminal to the guest console
 * @in:		instance (running)
 * @quiet_banner: don't print the "connected" line
 *
 * The terminal is put in raw mode; ^] three times within a second
 * detaches (machinectl's convention).  With stdin not a terminal, its
 * contents are sent, then output is shown until a second of silence.
 *
 * Return: exit code
 */
int console_attach(const struct inst *in, int quiet_banner)
{
	struct attach a = { .in = in, .tty = isatty(0), .in_open = 1,
			    .last = boot_ms() };
	struct termios old, raw;
	int rc;

	rc = console_open(in, &a.fd);
	if (rc)
		return rc;
	if (a.tty) {
		if (!quiet_banner)
			fprintf(stderr,
				"Connected to %s. Press ^] three times within 1s to disconnect.\r\n",
				in->name);
		tcgetattr(0, &old);
		raw = old;
		cfmakeraw(&raw);
		tcsetattr(0, TCSANOW, &raw);
	}
	if (attach_loop(&a) && a.tty)
		fprintf(stderr, "\r\nDisconnected from %s.\r\n", in->name);
	if (a.tty)
		tcsetattr(0, TCSANOW, &old);
	close(a.fd);
	return 0;
}
