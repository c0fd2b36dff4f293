// SPDX-License-Identifier: GPL-2.0-or-later
/* umarmctl - manage User-Mode Linux instances
 *
 * host.c - what the host offers: page size, kernels, images, checks
 */

#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <linux/magic.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/ptrace.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/vfs.h>
#include <sys/wait.h>

#include "helpers.h"
#include "host.h"
#include "hostseccomp.h"
#include "log.h"
#include "sdnotify.h"
#include "text.h"
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
 * cpus_warn() - warn where an instance has more CPUs than the host
 * @name:	instance name, for the message
 * @conf:	its configuration file, for the message
 * @c:		its configuration
 *
 * Each guest CPU is a host thread that spins while it waits for another
 * (a spinlock, a stub it stops): with more of them than host CPUs, the
 * one they wait for may get no host CPU for whole time slices, and the
 * guest crawls (the smp gate with 4 CPUs on a 2-CPU host timed out).  A
 * warning, not a refusal: a host's online CPUs change.
 */
void cpus_warn(const char *name, const char *conf, const struct conf *c)
{
	long host = sysconf(_SC_NPROCESSORS_ONLN);

	if (host > 0 && c->cpus > host)
		warn("%s: cpus = %u is more than this host's %ld online CPUs: guest CPUs that wait for each other get too little host time and the guest may crawl; set 'cpus = %ld' or fewer in %s",
		     name, c->cpus, host, host, conf);
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
 * kernel_config_opt() - how the kernel has an option, from its config
 * @kernel:	kernel path
 * @opt:	option without CONFIG_, e.g. "VIRTIO_NET"
 *
 * The configuration is next to the kernel: "config" in a package's
 * flavour directory (/usr/lib/uml/linux-uml-arm64/FLAVOUR/), ".config" in
 * a kernel/build.sh output directory.
 *
 * Return: 'y' built in, 'm' a module, 'n' not configured, 0 if unknown
 */
int kernel_config_opt(const char *kernel, const char *opt)
{
	static const char *names[] = { "config", ".config" };
	const char *slash = strrchr(kernel, '/');
	size_t i, dlen = slash ? (size_t)(slash - kernel) + 1 : 0;
	char key[80];
	int klen;

	klen = snprintf(key, sizeof(key), "\nCONFIG_%s=", opt);
	if (klen < 0 || (size_t)klen >= sizeof(key))
		return 0;
	for (i = 0; i < ARRAY_SIZE(names); i++) {
		char path[PATH_LEN], *t, *v;
		int r;

		if (dlen + strlen(names[i]) >= sizeof(path))
			continue;
		memcpy(path, kernel, dlen);
		strcpy(path + dlen, names[i]);
		if (read_file(path, &t, 1 << 22) <= 0)
			continue;
		v = strstr(t, key);
		r = !v ? 'n' : v[klen] == 'y' ? 'y' : v[klen] == 'm' ? 'm' : 'n';
		free(t);
		return r;
	}
	return 0;
}

/**
 * kernel_virtio_net() - how the kernel has virtio_net, from its config
 * @kernel:	kernel path
 *
 * Return: 'y' built in, 'm' a module, 'n' not configured, 0 if unknown
 */
int kernel_virtio_net(const char *kernel)
{
	return kernel_config_opt(kernel, "VIRTIO_NET");
}

/**
 * vfsd_usable() - whether a virtio-fs share can work for an instance
 * @name:	instance name, for the messages
 * @c:		its configuration (for the kernel)
 *
 * Return: 0, or an exit code (message printed, naming the fix)
 */
int vfsd_usable(const char *name, const struct conf *c)
{
	char kernel[PATH_LEN];
	struct stat st;
	int fs;

	if (stat(vfsd_bin(), &st) || !S_ISREG(st.st_mode) ||
	    access(vfsd_bin(), X_OK)) {
		err("%s: %s is missing: apt install virtiofsd (Debian 13 or later; Debian 12 has none), set UMARM_VIRTIOFSD, or share with --transport hostfs",
		    name, vfsd_bin());
		return EX_HOST;
	}
	if (kernel_path(c, kernel))
		return 0;
	fs = kernel_config_opt(kernel, "VIRTIO_FS");
	if (fs == 'n' || kernel_config_opt(kernel, "VIRTIO_UML") == 'n') {
		err("%s: the kernel %s has no %s, so the guest cannot mount virtio-fs: share with --transport hostfs",
		    name, kernel, fs == 'n' ? "CONFIG_VIRTIO_FS" :
		    "CONFIG_VIRTIO_UML");
		return EX_HOST;
	}
	if (fs == 'm')
		info("%s: virtiofs is a module of this kernel: the guest must load it (modprobe virtiofs)",
		     name);
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
	if (!statfs("/dev/shm", &sf) && sf.f_type == TMPFS_MAGIC)
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

/* host_check()'s report: -1 for lines, else JSON objects printed so far */
static int check_json = -1;

/**
 * check_vline() - print one line of host_check()'s report
 * @level:	"ok", "FAIL", "warn" or "info"
 * @what:	what was checked
 * @fmt:	what was found, printf-style
 * @ap:		its arguments
 */
static void check_vline(const char *level, const char *what, const char *fmt,
			va_list ap)
{
	char found[2 * PATH_LEN];

	if (check_json < 0) {
		printf("%-5s %-22s ", level, what);
		vprintf(fmt, ap);
		putchar('\n');
		return;
	}
	vsnprintf(found, sizeof(found), fmt, ap);
	printf("%s{\"level\":\"%s\",\"check\":", check_json++ ? "," : "",
	       level);
	json_str(what);
	printf(",\"found\":");
	json_str(found);
	putchar('}');
}

/**
 * host_check_json() - host_check() prints JSON objects, not lines
 *
 * One {"level", "check", "found"} object per line of the report, with a
 * comma between them: the caller prints the array around them.
 */
void host_check_json(void)
{
	check_json = 0;
}

/**
 * check_line() - print a line that counts as no failure: ok, warn or info
 * @level:	"ok", "warn" or "info"
 * @what:	what was checked
 * @fmt:	what was found, printf-style
 */
static void __attribute__((format(printf, 3, 4)))
check_line(const char *level, const char *what, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	check_vline(level, what, fmt, ap);
	va_end(ap);
}

/**
 * check_must() - report a check that the host must pass
 * @ok:		whether it passed
 * @verbose:	print it even if it passed
 * @what:	what was checked
 * @fmt:	what was found, printf-style
 *
 * Return: 1 if it failed, 0 if it passed
 */
static int __attribute__((format(printf, 4, 5)))
check_must(int ok, int verbose, const char *what, const char *fmt, ...)
{
	va_list ap;

	if (!ok || verbose) {
		va_start(ap, fmt);
		check_vline(ok ? "ok" : "FAIL", what, fmt, ap);
		va_end(ap);
	}
	return !ok;
}

/**
 * check_kernel() - a flavour for this page size, and its kernel
 * @verbose:	print every check, not only failures
 * @k:		the kernel's path, PATH_LEN bytes, for check_passt()
 *
 * Return: number of failed checks
 */
static int check_kernel(int verbose, char *k)
{
	const char *fl = host_default_flavour();
	struct conf c;
	int fails, rc;

	fails = check_must(!!fl, verbose, "host page size", "%ld bytes%s",
			   sysconf(_SC_PAGESIZE),
			   fl ? "" : ": no flavour runs on this host (4k/16k only)");
	if (fl && verbose)
		check_line("ok", "default flavour", "%s", fl);

	conf_defaults(&c);
	if (fl)
		strcpy(c.flavour, fl);
	kernel_path(&c, k);
	rc = access(k, X_OK) ? -errno : 0;
	fails += check_must(!rc, verbose, "kernel", "%s%s%s%s%s%s", k,
			    rc ? ": " : "", rc ? strerror(-rc) : "",
			    rc ? "; install linux-uml-arm64-" : "",
			    rc ? (fl ? fl : "16k") : "",
			    rc ? ", or set 'kernel = PATH' in an instance's configuration or UMARM_KERNEL" : "");
	return fails;
}

/**
 * check_sandbox() - what UML's processes need of the host kernel
 * @verbose:	print every check, not only failures
 *
 * ptrace and seccomp filters are required; SECCOMP mode's user
 * notifications are not (seccomp=off, the default, does without them).
 *
 * Return: number of failed checks
 */
static int check_sandbox(int verbose)
{
	const char *why;
	int fails, rc;

	rc = ptrace_ok();
	fails = check_must(!rc, verbose, "ptrace", "%s", rc ? "cannot trace children (container policy or yama ptrace_scope=3?)" : "children can be traced");
	rc = seccomp_filter_ok();
	fails += check_must(!rc, verbose, "seccomp", "filters %s%s%s",
			    rc ? "unavailable: " : "available",
			    rc ? strerror(-rc) : " (every mode's stubs install one)",
			    rc ? NO_SECCOMP_FILTER : "");
	why = seccomp_mode_ok();
	if (why)
		check_line("warn", "seccomp mode", "SECCOMP mode unavailable (needs Linux 5.9 user notifications; %s): seccomp=auto runs ptrace mode, seccomp=on refuses to boot",
			   why);
	else if (verbose)
		check_line("ok", "seccomp mode", "%s",
			   "user notifications available (seccomp=on|auto can run SECCOMP mode)");
	return fails;
}

/**
 * check_apparmor() - whether Debian's passt profile lets passt serve us
 * @verbose:	print every check, not only warnings
 *
 * Debian's passt profile keeps passt out of our runtime directories,
 * unless our profile umarm-passt is loaded.
 */
static void check_apparmor(int verbose)
{
	int aa = passt_apparmor();

	if (aa < 0)
		check_line("warn", "apparmor", "passt's own profile confines it, and profile umarm-passt is %s: passt cannot create instances' sockets; as root: apparmor_parser -r /etc/apparmor.d/umarm-passt",
			   aa == -ENOENT ? "not loaded" : strerror(-aa));
	else if (verbose)
		check_line(aa ? "ok" : "info", "apparmor", "%s",
			   aa ? "passt runs under profile umarm-passt" :
			   apparmor_enabled() ? "enabled, no profile for passt loaded: passt runs unconfined" :
			   "not enabled");
}

/**
 * check_passt() - passt, which only network = passt needs: warnings only
 * @verbose:	print every check, not only warnings
 * @k:		the kernel, whose virtio_net decides the backend
 */
static void check_passt(int verbose, const char *k)
{
	int vn, rc;

	if (access(passt_bin(), X_OK)) {
		check_line("warn", "passt", "%s",
			   "not installed: network = passt will not work (apt install passt)");
		return;
	}
	rc = passt_userns_ok();
	if (rc) {
		check_line("warn", "passt", "unshare(CLONE_NEWUSER): %s%s: network = passt will not work; create instances with --network none",
			   strerror(-rc), PASST_NO_USERNS);
		return;
	}
	if (verbose) {
		vn = kernel_virtio_net(k);
		check_line("ok", "passt", "%s %s", passt_bin(),
			   !passt_has_vhost_user() ?
			   "(no --vhost-user: umarmctl relays frames to the vector driver; no 'net add')" :
			   vn && vn != 'y' ?
			   "(vhost-user, but the kernel's virtio_net is a module: 'auto' relays to the vector driver)" :
			   "(vhost-user: the guest uses virtio_net)");
	}
	if (!strcmp(passt_bin(), PASST_BIN))
		check_apparmor(verbose);
}

/**
 * check_memfile_fs() - warn when guest memory would be a file on a disk
 * @td:		the directory UML puts its memory file in (uml_tmpdir())
 * @verbose:	print the line when all is well too
 *
 * On a disk (Termux's $PREFIX/tmp on a phone, a TMPDIR under $HOME) the
 * host writes guest memory back to storage: first touches of guest memory
 * cost more (tests/perf/README.md) and a phone's flash wears.  Not a
 * failure: the guest runs.
 */
static void check_memfile_fs(const char *td, int verbose)
{
	struct statfs sf;

	if (statfs(td, &sf))
		return;
	if (sf.f_type == TMPFS_MAGIC || sf.f_type == HUGETLBFS_MAGIC) {
		if (verbose)
			check_line("ok", "memory file", "%s is in memory", td);
		return;
	}
	check_line("warn", "memory file", "%s is not a tmpfs: guest memory is written back to the disk (slower; flash wear); set TMPDIR to an exec-able tmpfs such as /dev/shm",
		   td);
}

/**
 * host_check() - report whether this host can run UML instances
 * @verbose:	print every check, not only failures
 *
 * Return: number of failed checks
 */
int host_check(int verbose)
{
	const char *td = uml_tmpdir();
	char k[PATH_LEN];
	int fails, rc;

	fails = check_kernel(verbose, k);
	fails += check_sandbox(verbose);
	rc = tmpdir_exec_ok(td);
	fails += check_must(!rc, verbose, "exec-able TMPDIR", "%s%s%s", td,
			    rc ? ": " : "",
			    rc ? (rc == -EPERM ? "mounted noexec: set TMPDIR to an exec-able directory"
					    : strerror(-rc)) : "");
	if (!rc)
		check_memfile_fs(td, verbose);
	check_passt(verbose, k);
	if (verbose)
		check_line("info", "service manager", "%s", under_systemd() ?
			   "systemd: start/stop go through umarm@NAME.service" :
			   "none: umarmctl supervises instances itself");
	return fails;
}
