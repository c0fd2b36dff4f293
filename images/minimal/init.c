// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * init.c - PID 1 of the linux-uml-arm64 test images
 *
 * A boot gate that does as little as possible: mount the pseudo file
 * systems, optionally mount a host directory through hostfs and configure
 * the network by DHCP, print one marker line with what the guest sees (it
 * is also umarmctl's readiness marker, hence after /host and the network),
 * optionally run one program, print its exit status, then power the
 * machine off.
 *
 * Console protocol (one line each, written with a single write(2)):
 *
 *	UMARM_NET if=<interface> addr=<IPv4 address, or none>
 *	UMARM_BOOT_OK uptime=<s> kernel=<release> machine=<m> pagesize=<bytes>
 *	UMARM_RUN_DONE rc=<exit status, or 128 + signal number>
 *	UMARM_INIT_ERROR <what failed>[: <strerror>]
 *	(a share that does not mount is an UMARM_INIT_ERROR too)
 *
 * Kernel command line options (read from /proc/cmdline):
 *
 *	umarm.hostfs=DIR	mount host directory DIR on /host (UML hostfs)
 *	umarm.shares=DIR	mount the shares that hostfs DIR/table lists
 *				(umarmctl share): "NAME hostfs|virtiofs
 *				ro|rw GUESTDIR" a line, hostfs DIR/NAME or
 *				the virtio-fs tag NAME on GUESTDIR
 *	umarm.net=dhcp[:IF]	configure IF (default: the first interface
 *				other than lo) with busybox udhcpc before
 *				running anything; udhcpc stays to renew the
 *				lease, or keeps asking in the background
 *	umarm.net=none		leave the network alone (the last umarm.net
 *				on the command line counts)
 *	umarm.run=PATH		run PATH with the console as stdio
 *
 * The kernel ignores dotted options it does not know (it takes them for
 * module parameters), so they reach neither init's argv nor its environment.
 *
 * Run as "init --test [PATH]" by a process other than PID 1, it only prints
 * the boot line and runs PATH, without mounting anything or powering off:
 * that is how the build checks a foreign-architecture init under qemu-user.
 *
 * Called as "usbip" (the image links /sbin/usbip to it), it is the guest
 * side of USB/IP instead: see usbip.c, linked into the same program.
 *
 * Builds with glibc and musl, statically, with no other dependency.
 */

#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <dirent.h>
#include <libgen.h>
#include <net/if.h>
#include <netinet/in.h>
#include <arpa/inet.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/reboot.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <unistd.h>

#define __printf(a, b)	__attribute__((format(printf, a, b)))
#define __noreturn	__attribute__((noreturn))
#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))

#define CONSOLE		"/dev/console"
#define HOSTFS_DIR	"/host"
#define SHARES_TMP	"/run/umarm-shares"
#define CMDLINE_MAX	4096
#define LINE_MAX_LEN	1024
#define EXIT_EXEC_FAILED	127
#define EXIT_SIGNAL_BASE	128
#define DHCP_LOG	"/run/udhcpc.log"
#define DHCP_SCRIPT	"/etc/udhcpc/default.script"

static char *const run_env[] = {
	"PATH=/bin:/sbin:/usr/bin:/usr/sbin",
	"HOME=/",
	"TERM=linux",
	NULL,
};

/**
 * say() - write one formatted line to standard output
 * @fmt:	printf format, without the trailing newline
 *
 * The line goes out in a single write(2) so that it does not interleave with
 * kernel messages on the console.
 */
static void __printf(1, 2) say(const char *fmt, ...)
{
	char line[LINE_MAX_LEN];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(line, sizeof(line) - 1, fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	if (n > (int)sizeof(line) - 2)
		n = sizeof(line) - 2;
	line[n++] = '\n';
	while (write(STDOUT_FILENO, line, n) < 0 && errno == EINTR)
		;
}

/**
 * fail() - print a UMARM_INIT_ERROR line
 * @what:	what failed, e.g. "mount /proc"
 * @err:	errno value to append as text, or 0 for none
 *
 * Return: -@err, so that callers can "return fail(...)".
 */
static int fail(const char *what, int err)
{
	if (err)
		say("UMARM_INIT_ERROR %s: %s", what, strerror(err));
	else
		say("UMARM_INIT_ERROR %s", what);
	return -err;
}

/**
 * is_mountpoint() - tell whether a directory is the root of a mount
 * @path:	directory to test
 *
 * Compares the device of @path with that of its parent, which is enough for
 * the top-level directories init mounts on.
 *
 * Return: 1 if it is, 0 if it is not or cannot be examined.
 */
static int is_mountpoint(const char *path)
{
	char parent[LINE_MAX_LEN];
	struct stat st, pst;

	if (snprintf(parent, sizeof(parent), "%s/..", path) >= (int)sizeof(parent))
		return 0;
	if (stat(path, &st) || stat(parent, &pst))
		return 0;
	return st.st_dev != pst.st_dev;
}

/**
 * mount_fs() - create a mount point if needed and mount a file system on it
 * @source:	mount source
 * @target:	directory to mount on
 * @type:	file system type
 * @data:	mount options, or NULL
 *
 * A target that is already a mount point is left alone: with
 * CONFIG_DEVTMPFS_MOUNT the kernel has mounted /dev before starting init.
 *
 * Return: 0 on success, negative errno on failure (already reported).
 */
static int mount_fs(const char *source, const char *target, const char *type,
		    const char *data)
{
	char what[LINE_MAX_LEN];

	if (mkdir(target, 0755) && errno != EEXIST) {
		snprintf(what, sizeof(what), "mkdir %s", target);
		return fail(what, errno);
	}
	if (is_mountpoint(target))
		return 0;
	if (mount(source, target, type, MS_NOSUID, data)) {
		snprintf(what, sizeof(what), "mount %s (%s) on %s",
			 source, type, target);
		return fail(what, errno);
	}
	return 0;
}

/**
 * console_setup() - make /dev/console standard input, output and error
 *
 * Return: 0 on success, negative errno if the console cannot be opened, in
 * which case the descriptors the kernel gave init are kept.
 */
static int console_setup(void)
{
	int fd, i;

	fd = open(CONSOLE, O_RDWR | O_NOCTTY);
	if (fd < 0)
		return fail("open " CONSOLE, errno);
	for (i = STDIN_FILENO; i <= STDERR_FILENO; i++)
		if (fd != i)
			dup2(fd, i);
	if (fd > STDERR_FILENO)
		close(fd);
	return 0;
}

/**
 * read_small_file() - read a small text file into a NUL-terminated buffer
 * @path:	file to read
 * @buf:	buffer
 * @size:	size of @buf, including room for the NUL
 *
 * A trailing newline is removed.
 *
 * Return: number of bytes kept, or negative errno.
 */
static int read_small_file(const char *path, char *buf, size_t size)
{
	size_t len = 0;
	ssize_t n;
	int fd;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	while (len < size - 1) {
		n = read(fd, buf + len, size - 1 - len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		len += n;
	}
	close(fd);
	while (len && buf[len - 1] == '\n')
		len--;
	buf[len] = '\0';
	return len;
}

/**
 * cmdline_get() - find the value of a key=value option on a command line
 * @cmdline:	kernel command line, space separated
 * @key:	option name without the '='
 * @val:	buffer for the value
 * @size:	size of @val
 *
 * Double quotes around a value (key="a b") are removed, as the kernel does.
 * The last occurrence wins, as with kernel parameters.
 *
 * Return: 1 if found, 0 if not.
 */
static int cmdline_get(const char *cmdline, const char *key, char *val,
		       size_t size)
{
	size_t klen = strlen(key);
	const char *p = cmdline;
	int found = 0;

	while (*p) {
		const char *end;
		size_t len;

		while (*p == ' ' || *p == '\t' || *p == '\n')
			p++;
		if (!strncmp(p, key, klen) && p[klen] == '=') {
			p += klen + 1;
			if (*p == '"') {
				p++;
				end = strchr(p, '"');
				if (!end)
					end = p + strlen(p);
			} else {
				end = p + strcspn(p, " \t\n");
			}
			len = end - p;
			if (len >= size)
				len = size - 1;
			memcpy(val, p, len);
			val[len] = '\0';
			found = 1;
			p = *end == '"' ? end + 1 : end;
			continue;
		}
		/* Skip this word, honouring quotes. */
		while (*p && *p != ' ' && *p != '\t' && *p != '\n') {
			if (*p++ == '"') {
				end = strchr(p, '"');
				p = end ? end + 1 : p + strlen(p);
			}
		}
	}
	return found;
}

/**
 * print_boot_ok() - print the UMARM_BOOT_OK line
 */
static void print_boot_ok(void)
{
	char uptime[64] = "?";
	struct utsname u;
	int n;

	n = read_small_file("/proc/uptime", uptime, sizeof(uptime));
	if (n < 0)
		fail("read /proc/uptime", -n);
	uptime[strcspn(uptime, " ")] = '\0';
	if (uname(&u)) {
		fail("uname", errno);
		snprintf(u.release, sizeof(u.release), "?");
		snprintf(u.machine, sizeof(u.machine), "?");
	}
	say("UMARM_BOOT_OK uptime=%s kernel=%s machine=%s pagesize=%d",
	    uptime, u.release, u.machine, getpagesize());
}

/**
 * run_program() - run a program on the console and wait for it
 * @path:	absolute path of the program
 *
 * The child gets a session of its own with the console as controlling
 * terminal (when it can have it), so that an interactive shell gets job
 * control. While waiting, init also reaps orphans re-parented to it.
 *
 * Return: exit status, 128 + signal number if it was killed, or
 * EXIT_EXEC_FAILED if it could not be started.
 */
static int run_program(const char *path)
{
	char *const argv[] = { (char *)path, NULL };
	char what[LINE_MAX_LEN];
	int status;
	pid_t pid, w;

	pid = fork();
	if (pid < 0) {
		fail("fork", errno);
		return EXIT_EXEC_FAILED;
	}
	if (pid == 0) {
		if (setsid() >= 0)
			ioctl(STDIN_FILENO, TIOCSCTTY, 0);
		execve(path, argv, run_env);
		snprintf(what, sizeof(what), "exec %s", path);
		fail(what, errno);
		_exit(EXIT_EXEC_FAILED);
	}
	for (;;) {
		w = waitpid(-1, &status, 0);
		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0) {
			fail("waitpid", errno);
			return EXIT_EXEC_FAILED;
		}
		if (w == pid)
			break;
	}
	if (WIFSIGNALED(status))
		return EXIT_SIGNAL_BASE + WTERMSIG(status);
	return WEXITSTATUS(status);
}

/**
 * first_interface() - name the first network interface other than lo
 * @name:	buffer of IFNAMSIZ bytes
 *
 * "First" in the order of their names, so that eth0 comes before eth1.
 *
 * Return: 0 if one was found, -ENODEV if there is none.
 */
static int first_interface(char *name)
{
	struct dirent *d;
	DIR *dir;

	name[0] = '\0';
	dir = opendir("/sys/class/net");
	if (!dir)
		return -ENODEV;
	while ((d = readdir(dir))) {
		if (d->d_name[0] == '.' || !strcmp(d->d_name, "lo") ||
		    strlen(d->d_name) >= IFNAMSIZ)
			continue;
		if (!name[0] || strcmp(d->d_name, name) < 0)
			snprintf(name, IFNAMSIZ, "%s", d->d_name);
	}
	closedir(dir);
	return name[0] ? 0 : -ENODEV;
}

/**
 * interface_address() - the IPv4 address of an interface, as text
 * @ifname:	interface
 * @buf:	buffer of INET_ADDRSTRLEN bytes; "none" if it has no address
 */
static void interface_address(const char *ifname, char *buf)
{
	struct ifreq ifr = { 0 };
	int fd;

	snprintf(buf, INET_ADDRSTRLEN, "none");
	fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return;
	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", ifname);
	if (!ioctl(fd, SIOCGIFADDR, &ifr))
		inet_ntop(AF_INET,
			  &((struct sockaddr_in *)&ifr.ifr_addr)->sin_addr,
			  buf, INET_ADDRSTRLEN);
	close(fd);
}

/**
 * net_dhcp() - configure an interface with busybox udhcpc
 * @spec:	value of umarm.net: "dhcp", "dhcp:IF" or "none"
 *
 * udhcpc asks for a lease in the foreground (5 tries, 1 s apart) and, once
 * it has one, configures the interface, default route and resolv.conf
 * through the image's event script and forks into the background to renew
 * it; without a lease it goes to the background too and keeps asking.
 * Either way init waits only for the foreground part, so that what runs
 * next (the console shell that umarmctl exec types into) finds the
 * network up when there is a DHCP server (passt is one).  udhcpc's output
 * goes to /run/udhcpc.log, not the console.
 */
static void net_dhcp(const char *spec)
{
	static const char *const paths[] = {
		"/sbin/udhcpc", "/bin/udhcpc", "/usr/sbin/udhcpc",
		"/usr/bin/udhcpc",
	};
	char ifname[IFNAMSIZ], addr[INET_ADDRSTRLEN], what[CMDLINE_MAX + 64];
	char *argv[] = { "udhcpc", "-i", ifname, "-b", "-t", "5", "-T", "1",
			 "-s", DHCP_SCRIPT, NULL };
	const char *path = NULL;
	int status, fd;
	size_t i;
	pid_t pid;

	if (!strcmp(spec, "none"))
		return;
	if (strncmp(spec, "dhcp", 4) || (spec[4] && spec[4] != ':')) {
		snprintf(what, sizeof(what),
			 "umarm.net=%s: not dhcp, dhcp:INTERFACE or none", spec);
		fail(what, 0);
		return;
	}
	if (spec[4] == ':') {
		if (!spec[5] || strlen(spec + 5) >= IFNAMSIZ) {
			snprintf(what, sizeof(what),
				 "umarm.net=%s: bad interface name", spec);
			fail(what, 0);
			return;
		}
		snprintf(ifname, sizeof(ifname), "%s", spec + 5);
	} else if (first_interface(ifname)) {
		fail("umarm.net=dhcp: the guest has no network interface", 0);
		return;
	}
	snprintf(what, sizeof(what), "/sys/class/net/%s", ifname);
	if (access(what, F_OK)) {
		snprintf(what, sizeof(what),
			 "umarm.net: the guest has no interface %s (a driver built as a module must be loaded first)",
			 ifname);
		fail(what, 0);
		return;
	}
	for (i = 0; i < ARRAY_SIZE(paths) && !path; i++)
		if (!access(paths[i], X_OK))
			path = paths[i];
	if (!path) {
		fail("umarm.net=dhcp: no udhcpc in the image", 0);
		return;
	}

	pid = fork();
	if (pid < 0) {
		fail("fork", errno);
		return;
	}
	if (pid == 0) {
		fd = open(DHCP_LOG, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC,
			  0644);
		if (fd >= 0) {
			dup2(fd, STDOUT_FILENO);
			dup2(fd, STDERR_FILENO);
		}
		execve(path, argv, run_env);
		snprintf(what, sizeof(what), "exec %s", path);
		fail(what, errno);
		_exit(EXIT_EXEC_FAILED);
	}
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	interface_address(ifname, addr);
	say("UMARM_NET if=%s addr=%s", ifname, addr);
}

/**
 * run_and_report() - run a program and print UMARM_RUN_DONE
 * @path:	absolute path of the program
 *
 * Return: the program's status as run_program() gives it.
 */
static int run_and_report(const char *path)
{
	int rc = run_program(path);

	say("UMARM_RUN_DONE rc=%d", rc);
	return rc;
}

/**
 * mkdir_parents() - mkdir -p
 * @path:	absolute directory, modified and restored
 *
 * Return: 0, or errno
 */
static int mkdir_parents(char *path)
{
	char *p;

	for (p = path + 1; ; p++) {
		if (*p && *p != '/')
			continue;
		char c = *p;

		*p = '\0';
		if (mkdir(path, 0755) && errno != EEXIST) {
			*p = c;
			return errno;
		}
		*p = c;
		if (!c)
			return 0;
	}
}

/**
 * mount_share() - mount one line of the share table
 * @dir:	hostfs directory of the shares (umarm.shares)
 * @line:	"NAME hostfs|virtiofs ro|rw GUESTDIR"
 */
static void mount_share(const char *dir, char *line)
{
	char name[64], fs[16], mode[4], guest[LINE_MAX_LEN], data[CMDLINE_MAX + 64];
	char what[2 * LINE_MAX_LEN];
	/* a host directory's set-ID programs or device nodes give no guest
	 * user guest root or a device
	 */
	unsigned long flags = MS_NOSUID | MS_NODEV;
	int rc;

	if (sscanf(line, "%63s %15s %3s %1023s", name, fs, mode, guest) != 4) {
		fail("share table: bad line", 0);
		return;
	}
	if (!strcmp(mode, "ro"))
		flags |= MS_RDONLY;
	snprintf(what, sizeof(what), "mount share %s on %s", name, guest);
	rc = mkdir_parents(guest);
	if (rc) {
		fail(what, rc);
		return;
	}
	snprintf(data, sizeof(data), "%s/%s", dir, name);
	if (!strcmp(fs, "virtiofs") ? mount(name, guest, "virtiofs", flags, NULL)
				    : mount("none", guest, "hostfs", flags, data))
		fail(what, errno);
}

/**
 * mount_shares() - mount every share of the table umarmctl wrote
 * @dir:	hostfs directory of the shares (umarm.shares)
 */
static void mount_shares(const char *dir)
{
	char line[LINE_MAX_LEN + 64];
	FILE *table;

	if (mount_fs("none", SHARES_TMP, "hostfs", dir))
		return;
	table = fopen(SHARES_TMP "/table", "re");
	while (table && fgets(line, sizeof(line), table))
		mount_share(dir, line);
	if (table)
		fclose(table);
	umount(SHARES_TMP);
	rmdir(SHARES_TMP);
}

/**
 * power_off() - flush file systems and power the machine off
 *
 * Falls back to halting if power-off returns; PID 1 must never return, as
 * the kernel would panic.
 */
static void __noreturn power_off(void)
{
	sync();
	reboot(RB_POWER_OFF);
	fail("reboot(RB_POWER_OFF)", errno);
	reboot(RB_HALT_SYSTEM);
	fail("reboot(RB_HALT_SYSTEM)", errno);
	for (;;)
		pause();
}

/**
 * test_mode() - boot line and program run without touching the system
 * @argc:	argument count of main()
 * @argv:	"init --test [PATH]"
 *
 * Return: exit status for main().
 */
static int test_mode(int argc, char **argv)
{
	print_boot_ok();
	if (argc > 2)
		return run_and_report(argv[2]) ? EXIT_FAILURE : EXIT_SUCCESS;
	return EXIT_SUCCESS;
}

int usbip_main(int argc, char **argv);

int main(int argc, char **argv)
{
	char cmdline[CMDLINE_MAX], val[CMDLINE_MAX], what[CMDLINE_MAX + 64];
	int n;

	if (argc > 0 && !strcmp(basename(argv[0]), "usbip"))
		return usbip_main(argc, argv);
	if (getpid() != 1) {
		if (argc > 1 && !strcmp(argv[1], "--test"))
			return test_mode(argc, argv);
		fail("not PID 1 (use --test [PATH] to try it out)", 0);
		return EXIT_FAILURE;
	}

	umask(022);
	if (chdir("/"))
		fail("chdir /", errno);
	mount_fs("proc", "/proc", "proc", NULL);
	mount_fs("sysfs", "/sys", "sysfs", NULL);
	mount_fs("devtmpfs", "/dev", "devtmpfs", "mode=0755");
	console_setup();
	mount_fs("tmpfs", "/tmp", "tmpfs", "mode=1777");
	mount_fs("tmpfs", "/run", "tmpfs", "mode=0755");

	n = read_small_file("/proc/cmdline", cmdline, sizeof(cmdline));
	if (n < 0) {
		fail("read /proc/cmdline", -n);
		cmdline[0] = '\0';
	}
	if (cmdline_get(cmdline, "umarm.hostfs", val, sizeof(val))) {
		if (mkdir(HOSTFS_DIR, 0755) && errno != EEXIST)
			fail("mkdir " HOSTFS_DIR, errno);
		if (mount("none", HOSTFS_DIR, "hostfs", MS_NOSUID | MS_NODEV,
			  val)) {
			snprintf(what, sizeof(what), "mount hostfs %s on %s",
				 val, HOSTFS_DIR);
			fail(what, errno);
		}
	}
	if (cmdline_get(cmdline, "umarm.shares", val, sizeof(val)))
		mount_shares(val);
	if (cmdline_get(cmdline, "umarm.net", val, sizeof(val)))
		net_dhcp(val);
	/* umarmctl's readiness marker: /host and the network are ready */
	print_boot_ok();
	if (cmdline_get(cmdline, "umarm.run", val, sizeof(val)))
		run_and_report(val);

	power_off();
}
