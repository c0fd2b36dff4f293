// SPDX-License-Identifier: GPL-2.0-or-later
/* umarmctl - manage User-Mode Linux instances
 *
 * host.c - what the host offers: page size, kernels, images, checks
 */

#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/ptrace.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/vfs.h>
#include <sys/wait.h>

#include "host.h"
#include "hostseccomp.h"
#include "log.h"
#include "net.h"
#include "sdnotify.h"
#include "util.h"

/**
 * kernel_dir() - where the packaged kernels are
 *
 * Return: $UMARM_KERNEL_DIR (the tests), else KERNEL_DIR
 */
static const char *kernel_dir(void)
{
	const char *d = getenv("UMARM_KERNEL_DIR");

	return d && *d ? d : KERNEL_DIR;
}

/**
 * flavour_installed() - whether a flavour's packaged kernel is there
 * @fl:		"4k" or "16k"
 *
 * Return: 1 if KERNEL_DIR/FLAVOUR/linux can be executed
 */
static int flavour_installed(const char *fl)
{
	char p[PATH_LEN];

	return !pathf(p, "%s/%s/linux", kernel_dir(), fl) && !access(p, X_OK);
}

/**
 * host_default_flavour() - the flavour an instance gets when none is set
 *
 * As umarm.conf(5) says: the host's page size; but 16k where only the 16k
 * kernel is installed, since it runs on 4K-page hosts too (a guest page
 * may be larger than the host's, not smaller).
 *
 * Return: "4k" or "16k", NULL if no flavour can run here (64K pages)
 */
const char *host_default_flavour(void)
{
	long ps = sysconf(_SC_PAGESIZE);

	if (ps == 4096)
		return !flavour_installed("4k") && flavour_installed("16k") ?
		       "16k" : "4k";
	if (ps == 16384)
		return "16k";
	return NULL;
}

/**
 * conf_flavour() - the flavour an instance boots
 * @c:		its configuration
 *
 * Return: 'flavour =' if set, else host_default_flavour(), "" if none
 */
const char *conf_flavour(const struct conf *c)
{
	const char *fl = host_default_flavour();

	return *c->flavour ? c->flavour : fl ? fl : "";
}

/**
 * flavour_page_size() - guest page size of a flavour
 * @flavour:	"4k" or "16k"
 *
 * Return: page size in bytes, 0 if unknown
 */
int flavour_page_size(const char *flavour)
{
	if (!strcmp(flavour, "4k"))
		return 4096;
	if (!strcmp(flavour, "16k"))
		return 16384;
	return 0;
}

/**
 * flavour_check() - refuse a flavour whose pages are smaller than the host's
 * @name:	instance name, for the message
 * @flavour:	"4k" or "16k"
 *
 * UML maps guest pages with host mmap(), which cannot map a 4K page on a
 * 16K-page host: the port measured a silent hang, so refuse early.
 *
 * Return: 0 if usable, -EINVAL otherwise (message printed)
 */
int flavour_check(const char *name, const char *flavour)
{
	long host = sysconf(_SC_PAGESIZE);
	int guest = flavour_page_size(flavour);

	if (!guest) {
		err("%s: unknown flavour '%s': use 4k or 16k", name, flavour);
		return -EINVAL;
	}
	if (guest < host) {
		err("%s: flavour %s (%d-byte pages) cannot run on this host with %ld-byte pages: use --flavour 16k or set 'flavour = 16k'",
		    name, flavour, guest, host);
		return -EINVAL;
	}
	return 0;
}

/**
 * kernel_path() - which UML kernel an instance boots
 * @c:		configuration
 * @buf:	output, PATH_LEN bytes
 *
 * Order: $UMARM_KERNEL, 'kernel =' of the configuration, then the packaged
 * KERNEL_DIR/FLAVOUR/linux (FLAVOUR as conf_flavour() says).
 *
 * Return: 0 on success, -ENAMETOOLONG
 */
int kernel_path(const struct conf *c, char *buf)
{
	const char *env = getenv("UMARM_KERNEL");
	const char *fl = *c->flavour ? c->flavour : host_default_flavour();

	if (env && *env)
		return pathf(buf, "%s", env);
	if (*c->kernel)
		return pathf(buf, "%s", c->kernel);
	return pathf(buf, "%s/%s/linux", kernel_dir(), fl ? fl : "16k");
}

/**
 * kernel_check() - find the kernel and make sure it can be executed
 * @name:	instance name, for messages
 * @c:		configuration
 * @buf:	set to the kernel path, PATH_LEN bytes
 *
 * Return: 0 if usable, negative errno otherwise (message printed)
 */
int kernel_check(const char *name, const struct conf *c, char *buf)
{
	if (kernel_path(c, buf)) {
		err("%s: kernel path too long", name);
		return -ENAMETOOLONG;
	}
	if (access(buf, X_OK)) {
		int e = errno;

		err("%s: UML kernel %s: %s; install linux-uml-arm64-%s, or set 'kernel = PATH' in the configuration or UMARM_KERNEL",
		    name, buf, strerror(e), *conf_flavour(c) ? conf_flavour(c)
							  : "16k");
		return -e;
	}
	return 0;
}

/**
 * tmpdir_exec_ok() - can UML map its memory file with PROT_EXEC?
 * @dir:	directory UML will use (its choose_tempdir() logic)
 *
 * Return: 0 if yes, negative errno otherwise
 */
static int tmpdir_exec_ok(const char *dir)
{
	void *p;
	int fd, rc = 0;

	fd = open(dir, O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
	if (fd < 0)
		return -errno;
	if (ftruncate(fd, 4096)) {
		rc = -errno;
		close(fd);
		return rc;
	}
	p = mmap(NULL, 4096, PROT_READ | PROT_WRITE | PROT_EXEC, MAP_PRIVATE,
		 fd, 0);
	if (p == MAP_FAILED)
		rc = -errno;
	else
		munmap(p, 4096);
	close(fd);
	return rc;
}

/**
 * uml_tmpdir() - the directory UML's choose_tempdir() would pick
 *
 * arch/um/os-Linux/mem.c: $TMPDIR, $TMP or $TEMP if set, else /dev/shm if
 * it is tmpfs, else /tmp.
 *
 * Return: directory path (static or from the environment)
 */
static const char *uml_tmpdir(void)
{
	static const char *vars[] = { "TMPDIR", "TMP", "TEMP" };
	struct statfs sf;
	size_t i;

	for (i = 0; i < ARRAY_SIZE(vars); i++) {
		const char *v = getenv(vars[i]);

		if (v && *v)
			return v;
	}
	/* TMPFS_MAGIC */
	if (!statfs("/dev/shm", &sf) && sf.f_type == 0x01021994)
		return "/dev/shm";
	return "/tmp";
}

/**
 * ptrace_ok() - can we trace a child? (UML's ptrace mode needs it)
 *
 * Return: 0 if a forked child could PTRACE_TRACEME and be continued
 */
static int ptrace_ok(void)
{
	int status;
	pid_t pid = fork();

	if (pid < 0)
		return -errno;
	if (!pid) {
		if (ptrace(PTRACE_TRACEME, 0, NULL, NULL))
			_exit(1);
		raise(SIGSTOP);
		_exit(0);
	}
	if (waitpid(pid, &status, 0) < 0)
		return -errno;
	if (WIFEXITED(status))
		return -EPERM;
	ptrace(PTRACE_CONT, pid, NULL, NULL);
	waitpid(pid, &status, 0);
	return WIFEXITED(status) && !WEXITSTATUS(status) ? 0 : -EPERM;
}

/**
 * host_check() - report whether this host can run UML instances
 * @verbose:	print every check, not only failures
 *
 * Return: number of failed checks
 */
int host_check(int verbose)
{
	const char *fl = host_default_flavour(), *td = uml_tmpdir(), *why;
	struct conf c;
	char k[PATH_LEN], v[96];
	int fails = 0, rc;

#define REPORT(ok, what, fmt, ...) do {					\
		if (!(ok))						\
			fails++;					\
		if (!(ok) || verbose)					\
			printf("%-5s %-22s " fmt "\n", (ok) ? "ok" : "FAIL",\
			       what, ##__VA_ARGS__);			\
	} while (0)

	REPORT(fl, "host page size", "%ld bytes%s", sysconf(_SC_PAGESIZE),
	       fl ? "" : ": no flavour runs on this host (4k/16k only)");
	if (fl)
		REPORT(1, "default flavour", "%s", fl);

	conf_defaults(&c);
	if (fl)
		strcpy(c.flavour, fl);
	kernel_path(&c, k);
	rc = access(k, X_OK) ? -errno : 0;
	REPORT(!rc, "kernel", "%s%s%s%s%s", k, rc ? ": " : "",
	       rc ? strerror(-rc) : "", rc ? "; install linux-uml-arm64-" : "",
	       rc ? (fl ? fl : "16k") : "");

	rc = ptrace_ok();
	REPORT(!rc, "ptrace", "%s", rc ? "cannot trace children (container policy or yama ptrace_scope=3?)" : "children can be traced");
	rc = seccomp_filter_ok();
	REPORT(!rc, "seccomp", "filters %s%s%s", rc ? "unavailable: " : "available",
	       rc ? strerror(-rc) : " (every mode's stubs install one)",
	       rc ? NO_SECCOMP_FILTER : "");
	/* optional: seccomp=off, the default, does without it */
	why = seccomp_mode_ok();
	if (why)
		printf("%-5s %-22s SECCOMP mode unavailable (needs Linux 5.9 user notifications; %s): seccomp=auto runs ptrace mode, seccomp=on refuses to boot\n",
		       "warn", "seccomp mode", why);
	else if (verbose)
		printf("%-5s %-22s %s\n", "ok", "seccomp mode",
		       "user notifications available (seccomp=on|auto can run SECCOMP mode)");

	rc = tmpdir_exec_ok(td);
	REPORT(!rc, "exec-able TMPDIR", "%s%s%s", td, rc ? ": " : "",
	       rc ? (rc == -EPERM ? "mounted noexec: set TMPDIR to an exec-able directory"
			       : strerror(-rc)) : "");

	rc = access(passt_bin(), X_OK) ? -errno : 0;
	if (rc) {
		/* optional: only network = passt needs it */
		printf("%-5s %-22s %s\n", "warn", "passt",
		       "not installed: network = passt will not work (apt install passt)");
	} else if (verbose) {
		int vn = kernel_virtio_net(k);

		printf("%-5s %-22s %s %s\n", "ok", "passt", passt_bin(),
		       !passt_has_vhost_user() ?
		       "(no --vhost-user: umarmctl relays frames to the vector driver; no 'net add')" :
		       vn && vn != 'y' ?
		       "(vhost-user, but the kernel's virtio_net is a module: 'auto' relays to the vector driver)" :
		       "(vhost-user: the guest uses virtio_net)");
	}
	/* Debian's passt profile keeps passt out of our runtime directories */
	if (!rc && !strcmp(passt_bin(), PASST_BIN)) {
		int aa = passt_apparmor();

		if (aa < 0)
			printf("%-5s %-22s passt's own profile confines it, and profile umarm-passt is %s: passt cannot create instances' sockets; as root: apparmor_parser -r /etc/apparmor.d/umarm-passt\n",
			       "warn", "apparmor",
			       aa == -ENOENT ? "not loaded" : strerror(-aa));
		else if (verbose)
			printf("%-5s %-22s %s\n", aa ? "ok" : "info", "apparmor",
			       aa ? "passt runs under profile umarm-passt" :
			       apparmor_enabled() ? "enabled, no profile for passt loaded: passt runs unconfined" :
			       "not enabled");
	}
	snprintf(v, sizeof(v), "%s", under_systemd() ?
		 "systemd: start/stop go through umarm@NAME.service" :
		 "none: umarmctl supervises instances itself");
	if (verbose)
		printf("%-5s %-22s %s\n", "info", "service manager", v);
#undef REPORT
	return fails;
}
