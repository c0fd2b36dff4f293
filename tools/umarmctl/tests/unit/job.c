// SPDX-License-Identifier: GPL-2.0-or-later
/* umarmctl - manage User-Mode Linux instances
 *
 * job.c - unit tests of the integrity of exec jobs: SHA-256, and the job
 *	   line run by a real sh as the guest's root shell would (an intact
 *	   job runs, one changed after umarmctl wrote it is refused)
 *
 * Prints "PASS name" or "FAIL name: why" per case; exits 1 on any failure.
 */

#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

#include "job.h"
#include "sha256.h"
#include "rmtree.h"
#include "util.h"

#include "check.h"

/**
 * digest() - SHA-256 of a buffer, in hex
 * @buf:	data
 * @len:	length
 * @hex:	result
 */
static void digest(const void *buf, size_t len, char hex[SHA256_HEX_LEN])
{
	struct sha256 h;

	sha256_init(&h);
	sha256_update(&h, buf, len);
	sha256_hex(&h, hex);
}

/**
 * test_sha256() - FIPS 180-4 example vectors, and split updates
 */
static void test_sha256(void)
{
	static const char *two = "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq";
	char hex[SHA256_HEX_LEN], a[1001];
	struct sha256 h;
	int i;

	digest("", 0, hex);
	CHECK("sha256.empty", !strcmp(hex, "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"), "%s", hex);
	digest("abc", 3, hex);
	CHECK("sha256.abc", !strcmp(hex, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"), "%s", hex);
	digest(two, strlen(two), hex);
	CHECK("sha256.two_blocks", !strcmp(hex, "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"), "%s", hex);
	memset(a, 'a', sizeof(a));
	sha256_init(&h);
	for (i = 0; i < 1000; i++)
		sha256_update(&h, a, i % 2 ? 999 : 1001);
	sha256_hex(&h, hex);
	CHECK("sha256.million_a", !strcmp(hex, "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0"), "%s", hex);
}

/**
 * put() - write a file
 * @dir:	directory
 * @name:	file name
 * @text:	contents
 */
static void put(const char *dir, const char *name, const char *text)
{
	char path[PATH_LEN];
	FILE *f;

	pathf(path, "%s/%s", dir, name);
	f = fopen(path, "w");
	if (f) {
		fputs(text, f);
		fclose(f);
	}
}

/**
 * wait_file() - wait up to 5 s for a file, return its first line
 * @dir:	directory
 * @name:	file name
 * @buf:	first line
 * @len:	size of @buf
 *
 * Return: 1 if it appeared
 */
static int wait_file(const char *dir, const char *name, char *buf, size_t len)
{
	char path[PATH_LEN];
	int i;

	pathf(path, "%s/%s", dir, name);
	*buf = 0;
	for (i = 0; i < 500; i++) {
		FILE *f = fopen(path, "r");

		if (f) {
			if (!fgets(buf, len, f))
				*buf = 0;
			buf[strcspn(buf, "\n")] = 0;
			fclose(f);
			return 1;
		}
		usleep(10000);
	}
	return 0;
}

/**
 * run_job() - write a job as exec does and run its line with sh
 * @j:		job directory
 * @marker:	file the command creates when it runs
 * @stdin_text:	the job's standard input
 * @tamper:	what a guest user writes into "in" after the host hashed it,
 *		or NULL
 */
static void run_job(const char *j, const char *marker, const char *stdin_text,
		    const char *tamper)
{
	char *script = xasprintf("umask >&2; cat; echo ran > %s", marker);
	char *argv[] = { "sh", "-c", script };
	char line[JOB_LINE_MAX], *t;
	struct job_digests dg;
	size_t len;

	t = job_cmd_text(argv, 3, &len);
	put(j, "cmd", t);
	digest(t, len, dg.cmd);
	free(t);
	t = job_run_text(j);
	put(j, "run", t);
	digest(t, strlen(t), dg.run);
	free(t);
	put(j, "in", stdin_text);
	digest(stdin_text, strlen(stdin_text), dg.in);
	if (tamper)
		put(j, "in", tamper);
	free(script);
	if (!job_line(j, &dg, line, sizeof(line)) && system(line))
		printf("sh failed on: %s\n", line);
}

/**
 * test_job_line() - the guest side of a job, run by the host's sh
 * @base:	scratch directory
 */
static void test_job_line(const char *base)
{
	char j[PATH_LEN], marker[PATH_LEN], buf[256];
	struct job_digests dg;

	memset(&dg, 'a', sizeof(dg));
	dg.cmd[64] = dg.in[64] = dg.run[64] = 0;
	CHECK("job.line_fits",
	      !job_line("/host/jobs/4194304-19ad0b4e3c1-4294967295", &dg, buf,
			JOB_LINE_MAX), "longer than JOB_LINE_MAX");

	pathf(j, "%s/ok", base);
	pathf(marker, "%s/ok.ran", base);
	mkdir(j, 0700);
	run_job(j, marker, "from-stdin\n", NULL);
	CHECK("job.intact_runs", wait_file(j, "rc", buf, sizeof(buf)) &&
	      !strcmp(buf, "0") && !access(marker, F_OK), "rc '%s'", buf);
	wait_file(j, "out", buf, sizeof(buf));
	CHECK("job.intact_stdin", !strcmp(buf, "from-stdin"), "out '%s'", buf);
	/* main() set 022: the command has it, not the copies' 077 */
	wait_file(j, "err", buf, sizeof(buf));
	CHECK("job.umask", !strcmp(buf, "0022"), "umask '%s'", buf);

	pathf(j, "%s/changed", base);
	pathf(marker, "%s/changed.ran", base);
	mkdir(j, 0700);
	run_job(j, marker, "from-host\n", "from-guest-user\n");
	CHECK("job.changed_refused", wait_file(j, "refused", buf, sizeof(buf)) &&
	      !strcmp(buf, "digest"), "refused '%s'", buf);
	usleep(100000);
	CHECK("job.changed_not_run", access(marker, F_OK) &&
	      faccessat(AT_FDCWD, j, F_OK, 0) == 0, "the changed job ran");
}

/**
 * main() - run the job tests
 *
 * Return: 0 if all passed, 1 otherwise
 */
int main(void)
{
	char tmpl[] = "/tmp/umarm-unit-job.XXXXXX";
	char *base = mkdtemp(tmpl);

	setvbuf(stdout, NULL, _IOLBF, 0);
	umask(022);
	if (!base) {
		perror("mkdtemp");
		return 1;
	}
	test_sha256();
	test_job_line(base);
	rm_rf(base);
	printf("%d cases, %d failed\n", cases, failures);
	return failures ? 1 : 0;
}
