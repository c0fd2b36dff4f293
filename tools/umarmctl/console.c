// SPDX-License-Identifier: GPL-2.0-or-later
/* umarmctl - manage User-Mode Linux instances
 *
 * console.c - verbs: console, logs, exec, shell (the engines: attach.c,
 *		exec.c)
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
#include "text.h"
#include "util.h"
#include "verbs.h"


/**
 * console_verb() - attach to a named instance's console
 * @x:		global options
 * @name:	instance name
 *
 * Return: exit code
 */
static int console_verb(struct ctx *x, const char *name)
{
	struct inst in;
	int rc;

	rc = inst_open(x, name, &in, NULL);
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
 * cmd_console() - umarmctl console NAME
 * @x:		global options
 * @argc:	arguments after the verb
 * @argv:	arguments
 *
 * Return: exit code
 */
int cmd_console(struct ctx *x, int argc, char **argv)
{
	if (argc != 1)
		return usage_error("console");
	return console_verb(x, argv[0]);
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
			  !strcmp(argv[i], "--lines")) && i + 1 < argc) {
			if (parse_uint(argv[++i], 1000000000, &lines)) {
				err("-n: '%s' is not a number of lines (0 for all)",
				    argv[i]);
				return EX_USAGE;
			}
		} else if (argv[i][0] != '-' && !name) {
			name = argv[i];
		} else {
			return usage_error("logs");
		}
	}
	if (!name)
		return usage_error("logs");
	rc = inst_open(x, name, &in, NULL);
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

/**
 * exec_usage() - a bad exec command line: the usage, and exec's own status
 * @verb:	"exec" or "shell"
 *
 * exec passes the guest command's status on, so 2 could be the command's
 * own; like ssh, every failure of umarmctl itself, a bad command line too,
 * is 255 (issue 19, item 4), as the verb table says (verb_bad_usage()).
 *
 * Return: EX_EXEC
 */
static int exec_usage(const char *verb)
{
	usage_error(verb);
	return verb_bad_usage(verb_find(verb));
}

/**
 * exec_verb() - parse "NAME [--timeout SEC] [--] CMD [ARG...]", run it
 * @x:		global options
 * @argc:	arguments after the verb
 * @argv:	arguments
 * @verb:	"exec" or "shell", for the usage message
 *
 * Return: the guest command's exit status; EX_EXEC (255) if umarmctl
 *	   failed to run it, or for a bad command line (nothing ran)
 */
static int exec_verb(struct ctx *x, int argc, char **argv, const char *verb)
{
	unsigned long timeout = 0;
	struct inst in;
	int i = 1, rc;

	while (i < argc && argv[i][0] == '-' && strcmp(argv[i], "--")) {
		if ((strcmp(argv[i], "--timeout") && strcmp(argv[i], "-t")) ||
		    i + 1 >= argc)
			return exec_usage(verb);
		if (parse_uint(argv[i + 1], 86400, &timeout)) {
			err("--timeout: '%s' is not a number of seconds (0 to 86400, 0 for none)",
			    tty_str(argv[i + 1]));
			return verb_bad_usage(verb_find(verb));
		}
		i += 2;
	}
	if (i < argc && !strcmp(argv[i], "--"))
		i++;
	if (argc < 1 || i >= argc)
		return exec_usage(verb);
	rc = inst_open(x, argv[0], &in, NULL);
	if (rc)
		return EX_EXEC;
	return exec_in_guest(&in, argv + i, argc - i, !isatty(0), timeout);
}

/**
 * cmd_exec() - umarmctl exec NAME [--timeout SEC] [--] CMD [ARG...]
 * @x:		global options
 * @argc:	arguments after the verb
 * @argv:	arguments
 *
 * Return: see exec_verb()
 */
int cmd_exec(struct ctx *x, int argc, char **argv)
{
	return exec_verb(x, argc, argv, "exec");
}

/**
 * cmd_shell() - umarmctl shell NAME [-- CMD...]
 * @x:		global options
 * @argc:	arguments after the verb
 * @argv:	arguments
 *
 * Without a command, the console (where the guest's shell is); with one,
 * the same as exec.
 *
 * Return: exit code
 */
int cmd_shell(struct ctx *x, int argc, char **argv)
{
	if (!argc)
		return usage_error("shell");
	if (argc == 1)
		return console_verb(x, argv[0]);
	return exec_verb(x, argc, argv, "shell");
}
