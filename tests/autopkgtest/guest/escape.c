// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * escape.c - a guest program that tries to make the host run its syscalls
 *
 * Usage: escape HOSTDIR SECONDS   (or no arguments: both are read from
 *        /host/escape.conf, one per line, as the gate passes them)
 *
 * HOSTDIR is an absolute path that exists on the host but not in the guest.
 * For SECONDS the program loops raw mkdirat() and openat(O_CREAT) calls of
 * HOSTDIR/NAME whose first argument (x0 on arm64, rdi on x86_64) is each of
 * the kernel's restart codes -ERESTARTSYS (-512), -ERESTARTNOINTR (-513),
 * -ERESTARTNOHAND (-514) and -ERESTART_RESTARTBLOCK (-516).  In the guest
 * every call must fail with ENOENT (HOSTDIR is not there).  If the host ever
 * runs one of them itself, as an arm64 host did when it restarted the
 * "syscall" of a ptrace-mode stub that it had not been told to forget, the
 * file or directory appears in HOSTDIR on the host, where the gate looks.
 * Any *at() call ignores its dirfd for an absolute path, which is what makes
 * such a restart a full escape.
 *
 * Prints ESCAPE_GUEST_OK calls=N when every call failed with ENOENT, else
 * ESCAPE_FAIL and why (exit status 1).  Whether the host ran any of them is
 * for the gate to see in HOSTDIR.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

static const long restart_codes[] = { -512, -513, -514, -516 };

/* read_conf() - HOSTDIR and SECONDS from /host/escape.conf */
static int read_conf(char *dir, size_t len, long *seconds)
{
	FILE *f = fopen("/host/escape.conf", "r");
	char line[32];

	if (!f || !fgets(dir, (int)len, f) || !fgets(line, sizeof(line), f)) {
		printf("ESCAPE_FAIL cannot read /host/escape.conf: %s\n",
		       strerror(errno));
		return -1;
	}
	fclose(f);
	dir[strcspn(dir, "\n")] = '\0';
	*seconds = atol(line);
	return 0;
}

/* now() - seconds on the monotonic clock */
static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/*
 * one_call() - one raw syscall NR of HOSTDIR/NAME with dirfd CODE; the
 * result must be -1/ENOENT.  Returns 1 for ENOENT, 0 otherwise.
 */
static int one_call(long nr, long code, const char *dir, const char *what)
{
	char path[512];
	long ret;

	snprintf(path, sizeof(path), "%s/%s%ld", dir, what, code);
	if (nr == SYS_mkdirat)
		ret = syscall(SYS_mkdirat, code, path, 0700);
	else
		ret = syscall(SYS_openat, code, path, O_CREAT | O_WRONLY, 0600);
	if (ret >= 0) {
		printf("ESCAPE_FAIL %s(%ld, %s) succeeded in the guest\n",
		       what, code, path);
		exit(1);
	}
	return errno == ENOENT;
}

int main(int argc, char **argv)
{
	char dir[256];
	long seconds, calls = 0, enoent = 0;
	unsigned int i;
	double end;

	if (argc == 3) {
		snprintf(dir, sizeof(dir), "%s", argv[1]);
		seconds = atol(argv[2]);
	} else if (read_conf(dir, sizeof(dir), &seconds)) {
		return 1;
	}
	if (dir[0] != '/' || seconds <= 0) {
		printf("ESCAPE_FAIL usage: escape /ABSOLUTE/HOSTDIR SECONDS\n");
		return 1;
	}
	if (access(dir, F_OK) == 0) {
		printf("ESCAPE_FAIL %s exists in the guest: the test proves nothing\n",
		       dir);
		return 1;
	}
	printf("escape: raw mkdirat/openat of %s/* with x0 = -512, -513, -514, -516 for %ld s\n",
	       dir, seconds);
	fflush(stdout);

	end = now() + seconds;
	while (now() < end) {
		for (i = 0; i < sizeof(restart_codes) / sizeof(restart_codes[0]); i++) {
			enoent += one_call(SYS_mkdirat, restart_codes[i], dir, "mkdirat");
			enoent += one_call(SYS_openat, restart_codes[i], dir, "openat");
			calls += 2;
		}
	}
	if (calls != enoent) {
		printf("ESCAPE_FAIL calls=%ld failed with another error than ENOENT: %ld\n",
		       calls, calls - enoent);
		return 1;
	}
	printf("ESCAPE_GUEST_OK calls=%ld\n", calls);
	return 0;
}
