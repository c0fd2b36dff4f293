// SPDX-License-Identifier: GPL-2.0-or-later
/* umarmctl - manage User-Mode Linux instances
 *
 * state.c - unit tests of what stands between the guest (or another local
 *	     user) and the host's files: state files, guest text, paths,
 *	     copies, locks
 *
 * Prints "PASS name" or "FAIL name: why" per case, "SKIP name: why" for a
 * case this host cannot run, and "N passed, N failed"; exits 1 on any
 * failure.
 */

#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include "state.h"
#include "text.h"
#include "util.h"

static int failures, passes;

#define CHECK(name, cond, ...) do {					\
		if (cond) {						\
			passes++;					\
			printf("PASS %s\n", name);			\
		} else {						\
			failures++;					\
			printf("FAIL %s: ", name);			\
			printf(__VA_ARGS__);				\
			printf("\n");					\
		}							\
	} while (0)

/* A scratch directory for the whole run */
static char tmp[64];

/**
 * json_of() - what json_put() prints for a string
 * @s:		input
 * @out:	output buffer
 * @len:	size of @out
 */
static void json_of(const char *s, char *out, size_t len)
{
	FILE *f = fmemopen(out, len, "w");

	json_put(f, s);
	fclose(f);
}

/**
 * test_guest_text() - guest text cannot add state lines or escapes
 */
static void test_guest_text(void)
{
	struct state w = { .supervisor = 42 }, r;
	char path[PATH_LEN], *buf, js[256], t[64];
	ssize_t n;
	int lines = 0, i;

	snprintf(w.status, sizeof(w.status), "stopped");
	snprintf(w.exit, sizeof(w.exit),
		 "panic: x\nstatus=running\nsupervisor=1\x1b]0;pwned\x07");
	pathf(path, "%s/state", tmp);
	CHECK("state.write", !state_write(path, &w), "failed");
	n = read_file(path, &buf, 8192);
	for (i = 0; i < n; i++)
		lines += buf[i] == '\n';
	CHECK("state.lines", n > 0 && lines == 9, "%d lines:\n%s", lines,
	      n > 0 ? buf : "");
	free(buf);
	CHECK("state.read", !state_read(path, &r), "failed");
	CHECK("state.status_kept", !strcmp(r.status, "stopped") &&
	      r.supervisor == 42, "status '%s' supervisor %d", r.status,
	      (int)r.supervisor);
	CHECK("state.exit_clean", !strchr(r.exit, '\n') &&
	      !strchr(r.exit, '\x1b') && !strchr(r.exit, '\x07'),
	      "exit '%s'", r.exit);

	/* an old file with raw escapes: cleaned when read */
	write_file_atomic(path, "status=failed\nexit=\x1b[2J\xc2\x9b" "31m\n",
			  strlen("status=failed\nexit=\x1b[2J\xc2\x9b" "31m\n"),
			  0600);
	state_read(path, &r);
	CHECK("state.read_cleans", !strcmp(r.exit, "?[2J??31m"), "exit '%s'",
	      r.exit);

	snprintf(t, sizeof(t), "caf\xc3\xa9 \xe2\x82\xac ok");
	text_clean(t, 0);
	CHECK("text.utf8_kept", !strcmp(t, "caf\xc3\xa9 \xe2\x82\xac ok"),
	      "'%s'", t);
	snprintf(t, sizeof(t), "a\xff\xc0\xafz\xed\xa0\x80\x7f\tb\nc");
	text_clean(t, TEXT_KEEP_NL);
	CHECK("text.bad_bytes", !strcmp(t, "a???z????\tb\nc"), "'%s'", t);

	json_of("q\"b\\\x1b\xc2\x9b\xff\xc3\xa9", js, sizeof(js));
	CHECK("json.escapes",
	      !strcmp(js, "\"q\\\"b\\\\\\u001b\\u009b\\ufffd\xc3\xa9\""),
	      "got %s", js);
	json_of("\xf4\x90\x80\x80\xe0\x80\xaf", js, sizeof(js));
	CHECK("json.invalid_utf8", !strcmp(js,
	      "\"\\ufffd\\ufffd\\ufffd\\ufffd\\ufffd\\ufffd\\ufffd\""),
	      "got %s", js);
}

/**
 * main() - run the tests in a scratch directory
 *
 * Return: 0 if all passed, 1 otherwise
 */
int main(void)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	snprintf(tmp, sizeof(tmp), "/tmp/umarm-unit-state.XXXXXX");
	if (!mkdtemp(tmp)) {
		perror("mkdtemp");
		return 1;
	}
	test_guest_text();
	rm_rf(tmp);
	printf("%d passed, %d failed\n", passes, failures);
	return failures ? 1 : 0;
}
