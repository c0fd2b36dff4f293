// SPDX-License-Identifier: GPL-2.0-or-later
/* umarmctl - manage User-Mode Linux instances
 *
 * helpers.c - the programs umarmctl starts beside the kernel, as this
 *	       host has them: which passt and virtiofsd, whether passt
 *	       knows vhost-user, how AppArmor confines it
 *
 * The supervisor runs them (net.c, vfsd.c); the verbs and "check" ask
 * these questions before (netcmd.c, host.c), without the supervisor's
 * headers.
 *
 * AppArmor: Debian's passt comes with an enforcing profile (usr.bin.passt)
 * that lets passt create files only under /tmp and $HOME, not in the
 * instances' runtime directories where umarmctl puts its sockets.  Like
 * libvirt, umarmctl ships its own profile for the passt it starts,
 * /etc/apparmor.d/umarm-passt (apparmor/umarm-passt), and asks for it
 * on exec, as aa_change_onexec(2) does; without AppArmor, or without that
 * profile loaded, passt runs as it would anyway.
 */

#define _GNU_SOURCE
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sched.h>
#include <sys/wait.h>

#include "helpers.h"
#include "util.h"

/**
 * passt_bin() - the passt to run
 *
 * Return: $UMARM_PASST if set (a passt built from source, for tests or a
 *	   host whose packaged passt is too old), else /usr/bin/passt
 */
const char *passt_bin(void)
{
	const char *e = getenv("UMARM_PASST");

	return e && *e ? e : PASST_BIN;
}

/**
 * passt_has_vhost_user() - whether the installed passt knows --vhost-user
 *
 * Looks for the option string in the binary rather than running it:
 * passt's --help goes to syslog when not on a terminal.
 *
 * Return: 1 if supported, 0 if not (or no passt)
 */
int passt_has_vhost_user(void)
{
	static const char needle[] = "vhost-user";
	char buf[65536 + sizeof(needle)];
	size_t keep = 0;
	int fd, found = 0;
	ssize_t n;

	fd = open(passt_bin(), O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	while (!found && (n = read(fd, buf + keep, 65536)) > 0) {
		size_t len = keep + n;

		found = !!memmem(buf, len, needle, sizeof(needle) - 1);
		keep = len < sizeof(needle) ? len : sizeof(needle) - 1;
		memmove(buf, buf + len - keep, keep);
	}
	close(fd);
	return found;
}

/**
 * passt_userns_ok() - can passt make the user namespace it isolates itself in?
 *
 * passt always enters a user namespace of its own (isolate_user() in its
 * isolation.c) and dies if unshare(CLONE_NEWUSER) fails.  Hosts that refuse
 * one: a chroot (unshare(2) gives EPERM when the root is not the mount
 * namespace's; Debian-on-Android setups and autopkgtest's unshare testbed
 * are chroots), user.max_user_namespaces = 0, kernel.unprivileged_userns_clone
 * = 0, or a container policy.  Asking a forked child, which is single-threaded
 * as unshare(CLONE_NEWUSER) needs, tells before passt is started and its log
 * is the only clue.
 *
 * Return: 0 if a child could, negative errno of its failure otherwise
 */
int passt_userns_ok(void)
{
	int status;
	pid_t pid = fork();

	if (pid < 0)
		return -errno;
	if (!pid)
		_exit(unshare(CLONE_NEWUSER) ? errno : 0);
	if (waitpid(pid, &status, 0) < 0)
		return -errno;
	if (!WIFEXITED(status))
		return -EPERM;
	return -WEXITSTATUS(status);
}

/**
 * apparmor_enabled() - whether the running kernel enforces AppArmor
 *
 * Return: 1 if enabled, 0 if not (not built in, or not in lsm=)
 */
int apparmor_enabled(void)
{
	char *t;
	int r;

	r = read_file("/sys/module/apparmor/parameters/enabled", &t, 64) > 0 &&
	    *t == 'Y';
	free(t);
	return r;
}

/**
 * aa_change_onexec() - run the next program we exec under an AppArmor profile
 * @profile:	profile name
 *
 * What libapparmor's aa_change_onexec() does: write "exec PROFILE" to
 * /proc/self/attr/apparmor/exec, or on kernels before 5.8, which lack
 * that directory, to /proc/self/attr/exec (then AppArmor's, as the caller
 * checked that AppArmor is enabled).
 *
 * Return: 0 on success, negative errno: -ENOENT if the profile is not
 *	   loaded, -EACCES or -EPERM if our own confinement forbids it
 */
static int aa_change_onexec(const char *profile)
{
	static const char *const attr[] = {
		"/proc/self/attr/apparmor/exec", "/proc/self/attr/exec",
	};
	char cmd[128];
	size_t i;
	int len;

	len = snprintf(cmd, sizeof(cmd), "exec %s", profile);
	if (len < 0 || (size_t)len >= sizeof(cmd))
		return -ENAMETOOLONG;
	for (i = 0; i < ARRAY_SIZE(attr); i++) {
		int fd = open(attr[i], O_WRONLY | O_CLOEXEC), e;
		ssize_t w;

		if (fd < 0) {
			if (errno == ENOENT)
				continue;
			return -errno;
		}
		w = write(fd, cmd, len);
		e = errno;
		close(fd);
		if (w == len)
			return 0;
		return w < 0 ? -e : -EIO;
	}
	return -ENOENT;
}

/**
 * aa_listed() - whether a profile is loaded, from AppArmor's policy directory
 * @profile:	profile name
 *
 * Asking for a profile that is not loaded costs a line "apparmor=DENIED
 * operation=change_onexec info=label not found" in the kernel log, on
 * every start of an instance where AppArmor is enabled but umarm-passt
 * is not loaded (Debian's kernels without the apparmor package), so look
 * first.  The directory (also readable without privileges) has an entry
 * NAME.N per loaded profile.
 *
 * Return: 1 if listed, 0 if not, -1 if unknown (no securityfs, old kernel)
 */
static int aa_listed(const char *profile)
{
	DIR *d = opendir("/sys/kernel/security/apparmor/policy/profiles");
	size_t len = strlen(profile);
	struct dirent *e;
	int found = 0;

	if (!d)
		return -1;
	while (!found && (e = readdir(d)))
		found = !strncmp(e->d_name, profile, len) &&
			e->d_name[len] == '.' &&
			isdigit((unsigned char)e->d_name[len + 1]);
	closedir(d);
	return found;
}

/**
 * aa_probe() - whether this process may run its next program under a profile
 * @profile:	profile name
 *
 * Asks for the change in a child that exits with the result, so that
 * nothing changes for this process; works without privileges.
 *
 * Return: 0 if it may, negative errno if not (-ENOENT: not loaded)
 */
static int aa_probe(const char *profile)
{
	int st;
	pid_t pid;

	if (!aa_listed(profile))
		return -ENOENT;
	pid = fork();
	if (pid < 0)
		return -errno;
	if (!pid)
		_exit(-aa_change_onexec(profile) & 0xff);
	if (waitpid(pid, &st, 0) != pid || !WIFEXITED(st))
		return -ECHILD;
	return -WEXITSTATUS(st);
}

/**
 * passt_apparmor() - how AppArmor confines the passt umarmctl starts
 *
 * Debian's usr.bin.passt names its profile "passt".
 *
 * Return: 1 if passt runs under umarm-passt; 0 if it runs unconfined
 *	   (AppArmor not enabled, or no profile for passt loaded); negative
 *	   errno if passt's own profile holds it because umarm-passt cannot
 *	   be used (-ENOENT: not loaded)
 */
int passt_apparmor(void)
{
	int rc;

	if (!apparmor_enabled())
		return 0;
	rc = aa_probe(AA_PROFILE);
	if (!rc)
		return 1;
	return aa_probe("passt") ? 0 : rc;
}

/**
 * passt_confine() - in passt's child, before exec: ask for our profile
 *
 * Our profile is for the packaged passt; a failure (no AppArmor, profile
 * not loaded) leaves passt as it was.
 */
void passt_confine(void)
{
	if (!strcmp(passt_bin(), PASST_BIN) && apparmor_enabled() &&
	    aa_listed(AA_PROFILE))
		aa_change_onexec(AA_PROFILE);
}

/**
 * vfsd_bin() - the virtiofsd to run: UMARM_VIRTIOFSD or Debian's
 */
const char *vfsd_bin(void)
{
	const char *b = getenv("UMARM_VIRTIOFSD");

	return b && *b ? b : "/usr/libexec/virtiofsd";
}
