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
	int fd, tty = isatty(0), esc = 0, in_open = 1, rc = 0;
	struct termios old, raw;
	uint64_t esc_t = 0, last = boot_ms();
	char buf[4096];

	fd = ctl_connect(in);
	if (fd < 0) {
		err("%s: not running (no console at %s/%s)", in->name, in->run,
		    CONTROL_SOCK);
		return EX_STATE;
	}
	if (write_all(fd, "console\n", 8)) {
		close(fd);
		return EX_FAIL;
	}
	/* The "OK\n" reply arrives first on the stream; skip it */
	{
		char ok[3];

		if (recv(fd, ok, 3, MSG_WAITALL) != 3 || memcmp(ok, "OK\n", 3)) {
			err("%s: the supervisor refused the console", in->name);
			close(fd);
			return EX_FAIL;
		}
	}
	if (tty) {
		if (!quiet_banner)
			fprintf(stderr,
				"Connected to %s. Press ^] three times within 1s to disconnect.\r\n",
				in->name);
		tcgetattr(0, &old);
		raw = old;
		cfmakeraw(&raw);
		tcsetattr(0, TCSANOW, &raw);
	}
	for (;;) {
		struct pollfd p[2] = { { .fd = fd, .events = POLLIN },
				       { .fd = 0, .events = POLLIN } };
		int n = poll(p, in_open ? 2 : 1,
			     in_open ? -1 : DRAIN_IDLE_MS);
		ssize_t r;

		if (n < 0 && errno == EINTR)
			continue;
		if (n == 0 && !in_open &&
		    boot_ms() - last >= DRAIN_IDLE_MS)
			break;
		if (p[0].revents) {
			r = read(fd, buf, sizeof(buf));
			if (r <= 0) {
				if (tty)
					fprintf(stderr, "\r\n");
				info("%s: console closed (instance stopped)",
				     in->name);
				break;
			}
			write_all(1, buf, r);
			last = boot_ms();
		}
		if (in_open && p[1].revents) {
			ssize_t i;

			r = read(0, buf, sizeof(buf));
			if (r <= 0) {
				in_open = 0;
				last = boot_ms();
				continue;
			}
			for (i = 0; tty && i < r; i++) {
				if (buf[i] != ESCAPE_CHAR) {
					esc = 0;
					continue;
				}
				if (!esc || boot_ms() - esc_t > ESCAPE_WINDOW)
					esc = 0;
				esc_t = boot_ms();
				if (++esc == ESCAPE_COUNT)
					goto detach;
			}
			if (write_all(fd, buf, r))
				break;
		}
	}
	goto out;
detach:
	if (tty)
		fprintf(stderr, "\r\nDisconnected from %s.\r\n", in->name);
out:
	if (tty)
		tcsetattr(0, TCSANOW, &old);
	close(fd);
	return rc;
}
