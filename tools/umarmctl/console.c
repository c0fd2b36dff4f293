// SPDX-License-Identifier: GPL-2.0-or-later
/* umarmctl - manage User-Mode Linux instances
 *
 * console.c - console attach and console log
 */

#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <termios.h>
#include <unistd.h>
#include <sys/socket.h>
#include <sys/stat.h>

#include "cmd.h"
#include "lock.h"
#include "log.h"
#include "supervise.h"
#include "text.h"
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

/**
 * cmd_console() - umarmctl console NAME
 * @x:		global options
 * @argc:	arguments after the verb
 * @argv:	arguments
 *
 * Return: exit code
 */
int cmd_console(struct ctx *x, int argc, char **argv)
{
	struct inst in;
	int rc;

	if (argc != 1) {
		err("usage: umarmctl console NAME");
		return EX_USAGE;
	}
	rc = inst_open(x, argv[0], &in, NULL);
	if (rc == EX_NOINST)
		err("%s: no such instance", argv[0]);
	if (rc)
		return rc;
	if (!inst_running(&in)) {
		err("%s: not running; 'umarmctl start %s --attach'", in.name,
		    in.name);
		return EX_STATE;
	}
	return console_attach(&in, 0);
}

/**
 * tail_offset() - offset where the last @lines lines of a file begin
 * @fd:		file
 * @size:	its size
 * @lines:	how many lines
 *
 * Return: byte offset
 */
static off_t tail_offset(int fd, off_t size, long lines)
{
	char buf[4096];
	off_t pos = size;
	long seen = 0;

	while (pos > 0) {
		size_t chunk = pos > (off_t)sizeof(buf) ? sizeof(buf) : (size_t)pos;
		ssize_t n, i;

		pos -= chunk;
		n = pread(fd, buf, chunk, pos);
		if (n <= 0)
			return 0;
		for (i = n - 1; i >= 0; i--) {
			if (buf[i] != '\n' || pos + i == size - 1)
				continue;
			if (++seen == lines)
				return pos + i + 1;
		}
	}
	return 0;
}

/* Console output held back until its line is complete, for term_filter() */
#define LOGS_LINE_MAX	8192

/**
 * logs_out() - write console log bytes to stdout
 * @pend:	bytes not written yet, 2 * LOGS_LINE_MAX bytes of room
 * @len:	how many, updated
 * @flush:	write an incomplete last line too
 *
 * To a terminal, the guest's output goes through term_filter(), whole
 * lines at a time: a guest must not send the user's terminal escape
 * sequences other than colours.  To a file or a pipe it is copied as is.
 */
static void logs_out(char *pend, size_t *len, int flush)
{
	static char clean[2 * LOGS_LINE_MAX];
	size_t n = *len;

	if (isatty(1)) {
		while (n && pend[n - 1] != '\n' && !flush &&
		       *len - n < LOGS_LINE_MAX)
			n--;
		if (!n && !flush && *len < LOGS_LINE_MAX)
			return;
		if (!n)
			n = *len;
		write_all(1, clean, term_filter(pend, n, clean));
	} else {
		write_all(1, pend, n);
	}
	memmove(pend, pend + n, *len - n);
	*len -= n;
}

/**
 * cmd_logs() - umarmctl logs NAME [-n LINES] [-f]: the console log
 * @x:		global options
 * @argc:	arguments after the verb
 * @argv:	arguments
 *
 * Return: exit code
 */
int cmd_logs(struct ctx *x, int argc, char **argv)
{
	const char *name = NULL;
	unsigned long lines = 0;
	static char buf[2 * LOGS_LINE_MAX];
	char path[PATH_LEN];
	size_t pending = 0;
	struct inst in;
	int i, follow = 0, fd, rc;
	off_t off = 0;
	struct stat st;

	for (i = 0; i < argc; i++) {
		if (!strcmp(argv[i], "-f") || !strcmp(argv[i], "--follow"))
			follow = 1;
		else if ((!strcmp(argv[i], "-n") ||
			  !strcmp(argv[i], "--lines")) && i + 1 < argc)
			parse_uint(argv[++i], 1000000000, &lines);
		else if (argv[i][0] != '-' && !name)
			name = argv[i];
		else {
			err("usage: umarmctl logs NAME [-n LINES] [-f]");
			return EX_USAGE;
		}
	}
	if (!name) {
		err("usage: umarmctl logs NAME [-n LINES] [-f]");
		return EX_USAGE;
	}
	rc = inst_open(x, name, &in, NULL);
	if (rc == EX_NOINST)
		err("%s: no such instance", name);
	if (rc)
		return rc;
	inst_path(&in, path, 0, CONSOLE_LOG);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		err("%s: no console log yet (%s): it was never started", in.name,
		    path);
		return EX_STATE;
	}
	if (lines && !fstat(fd, &st))
		off = tail_offset(fd, st.st_size, lines);
	for (;;) {
		ssize_t n = pread(fd, buf + pending, LOGS_LINE_MAX, off);

		if (n > 0) {
			pending += n;
			logs_out(buf, &pending, 0);
			off += n;
			continue;
		}
		logs_out(buf, &pending, 1);
		if (!follow)
			break;
		/* rotated? start over on the new file */
		if (!stat(path, &st) && st.st_size < off) {
			close(fd);
			fd = open(path, O_RDONLY | O_CLOEXEC);
			if (fd < 0)
				break;
			off = 0;
			continue;
		}
		sleep_ms(200);
	}
	if (fd >= 0)
		close(fd);
	return 0;
}
