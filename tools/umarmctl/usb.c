// SPDX-License-Identifier: GPL-2.0-or-later
/* umarmctl - manage User-Mode Linux instances
 *
 * usb.c - USB/IP: usb list, usb attach, usb detach
 *
 * The guest's vhci-hcd only takes a TCP socket created inside the guest
 * (vhci_sysfs.c: sockfd_lookup() in the writer's fd table), so the host
 * exports the device with usbip-host and usbipd (TCP 3240), and the guest
 * imports it over its passt network, where the default gateway reaches
 * the host.  The guest side runs through exec, so it needs the usbip tool
 * and vhci-hcd in the guest (kernel USBIP_VHCI_HCD, package usbip).
 */

#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/wait.h>

#include "cmd.h"
#include "log.h"
#include "util.h"

#define SYS_USB		"/sys/bus/usb/devices"
#define USBIP_PORT_HEX	"0CA8"		/* 3240 in /proc/net/tcp */

/**
 * sysattr() - read a one-line sysfs attribute of a USB device
 * @busid:	device, e.g. "1-2"
 * @attr:	attribute name
 * @buf:	value without newline ("" if missing)
 * @len:	size of @buf
 */
static void sysattr(const char *busid, const char *attr, char *buf,
		    size_t len)
{
	char path[PATH_LEN], *v;

	*buf = 0;
	pathf(path, "%s/%s/%s", SYS_USB, busid, attr);
	if (read_file(path, &v, 4096) <= 0)
		return;
	v[strcspn(v, "\n")] = 0;
	snprintf(buf, len, "%s", v);
	free(v);
}

/**
 * run() - run a host command, quietly unless it fails
 * @argv:	command
 *
 * Return: its exit status, 127 if it could not run
 */
static int run(char *const argv[])
{
	int st;
	pid_t pid = fork();

	if (pid < 0)
		return 127;
	if (!pid) {
		execvp(argv[0], argv);
		_exit(127);
	}
	if (waitpid(pid, &st, 0) < 0 || !WIFEXITED(st))
		return 127;
	return WEXITSTATUS(st);
}

/**
 * usbipd_listening() - whether something listens on TCP 3240
 *
 * Return: 1 if so
 */
static int usbipd_listening(void)
{
	static const char *files[] = { "/proc/net/tcp", "/proc/net/tcp6" };
	size_t i;

	for (i = 0; i < ARRAY_SIZE(files); i++) {
		char *t, *line, *save;
		int found = 0;

		if (read_file(files[i], &t, 1 << 22) <= 0)
			continue;
		/* "sl: local_address rem_address st ...": a local address
		 * ending in :0CA8 in state 0A (LISTEN), on the same line
		 */
		for (line = strtok_r(t, "\n", &save); line && !found;
		     line = strtok_r(NULL, "\n", &save)) {
			char local[64], st[8];

			found = sscanf(line, "%*s %63s %*s %7s", local, st) == 2 &&
				strlen(local) > 5 &&
				!strcmp(local + strlen(local) - 5,
					":" USBIP_PORT_HEX) &&
				!strcmp(st, "0A");
		}
		free(t);
		if (found)
			return 1;
	}
	return 0;
}

/**
 * usb_list() - print the host's USB devices
 *
 * Return: exit code
 */
static int usb_list(void)
{
	DIR *d = opendir(SYS_USB);
	struct dirent *de;
	int n = 0;

	if (!d) {
		printf("No USB devices (no %s).\n", SYS_USB);
		return 0;
	}
	while ((de = readdir(d))) {
		char vid[16], pid[16], prod[128], man[128], drv[PATH_LEN];
		char link[PATH_LEN];
		ssize_t l;

		if (de->d_name[0] == '.' || strchr(de->d_name, ':') ||
		    !strncmp(de->d_name, "usb", 3))
			continue;
		sysattr(de->d_name, "idVendor", vid, sizeof(vid));
		sysattr(de->d_name, "idProduct", pid, sizeof(pid));
		sysattr(de->d_name, "product", prod, sizeof(prod));
		sysattr(de->d_name, "manufacturer", man, sizeof(man));
		pathf(link, "%s/%s/driver", SYS_USB, de->d_name);
		l = readlink(link, drv, sizeof(drv) - 1);
		drv[l > 0 ? l : 0] = 0;
		if (!n++)
			printf("%-10s %-9s %-12s %s\n", "BUSID", "ID", "STATE",
			       "DEVICE");
		printf("%-10s %s:%s %-12s %s %s\n", de->d_name, vid, pid,
		       strstr(drv, "usbip-host") ? "exported" : "host",
		       man, prod);
	}
	closedir(d);
	if (!n)
		printf("No USB devices on this host.\n");
	return 0;
}

/**
 * usb_attach() - export a device and import it into a guest
 * @x:		global options
 * @name:	instance
 * @busid:	host bus id
 *
 * Return: exit code
 */
static int usb_attach(struct ctx *x, const char *name, const char *busid)
{
	char *modprobe[] = { "modprobe", "usbip-host", NULL };
	char *usbipd[] = { "usbipd", "-D", NULL };
	char *bind[] = { "usbip", "bind", "-b", (char *)busid, NULL };
	char script[512], drv[PATH_LEN], link[PATH_LEN], vid[16];
	char *cmd[] = { "sh", "-c", script };
	struct inst in;
	ssize_t l;
	int rc;

	rc = inst_open(x, name, &in, NULL);
	if (rc)
		return rc;
	sysattr(busid, "idVendor", vid, sizeof(vid));
	if (!*vid) {
		err("no USB device %s on this host; see 'umarmctl usb list'",
		    busid);
		return EX_USAGE;
	}
	if (getuid()) {
		err("exporting %s needs root on the host (usbip bind); run 'sudo usbip bind -b %s' and 'sudo usbipd -D', then retry",
		    busid, busid);
		return EX_HOST;
	}
	run(modprobe);
	if (!usbipd_listening() && run(usbipd)) {
		err("cannot start usbipd: apt install usbip");
		return EX_HOST;
	}
	pathf(link, "%s/%s/driver", SYS_USB, busid);
	l = readlink(link, drv, sizeof(drv) - 1);
	drv[l > 0 ? l : 0] = 0;
	if (!strstr(drv, "usbip-host") && run(bind)) {
		err("'usbip bind -b %s' failed", busid);
		return EX_HOST;
	}
	snprintf(script, sizeof(script),
		 "gw=$(ip route show default | awk '{print $3; exit}'); "
		 "[ -n \"$gw\" ] || { echo 'no default route in the guest: its network is down (minimal image: see /run/udhcpc.log; else configure DHCP on it)' >&2; exit 3; }; "
		 "modprobe vhci-hcd 2>/dev/null; "
		 "usbip attach -r \"$gw\" -b %s", busid);
	rc = exec_in_guest(&in, cmd, 3, 0, 60);
	if (rc)
		err("%s: the guest could not attach %s (status %d): it needs network = passt, vhci-hcd and the usbip tool",
		    in.name, busid, rc);
	return rc ? EX_FAIL : 0;
}

/**
 * usb_detach() - detach a device from a guest and give it back
 * @x:		global options
 * @name:	instance
 * @busid:	host bus id
 *
 * Return: exit code
 */
static int usb_detach(struct ctx *x, const char *name, const char *busid)
{
	char *unbind[] = { "usbip", "unbind", "-b", (char *)busid, NULL };
	char script[512];
	char *cmd[] = { "sh", "-c", script };
	struct inst in;
	int rc;

	rc = inst_open(x, name, &in, NULL);
	if (rc)
		return rc;
	snprintf(script, sizeof(script),
		 "p=$(usbip port 2>/dev/null | awk '/^Port/{p=$2} /\\/%s$/{sub(\":\",\"\",p); print p+0; exit}'); "
		 "[ -n \"$p\" ] && usbip detach -p \"$p\"", busid);
	rc = exec_in_guest(&in, cmd, 3, 0, 60);
	if (rc)
		warn("%s: %s was not attached in the guest (status %d)",
		     in.name, busid, rc);
	if (!getuid())
		run(unbind);
	return 0;
}

/**
 * cmd_usb() - umarmctl usb list|attach|detach
 * @x:		global options
 * @argc:	arguments after the verb
 * @argv:	arguments
 *
 * Return: exit code
 */
int cmd_usb(struct ctx *x, int argc, char **argv)
{
	if (argc == 1 && !strcmp(argv[0], "list"))
		return usb_list();
	/* it reaches usbip and a script in the guest: nothing but an id */
	if (argc == 3 && busid_check(argv[2])) {
		err("invalid bus id '%.40s': it looks like 1-2 or 1-2.3 (see 'umarmctl usb list')",
		    argv[2]);
		return EX_USAGE;
	}
	if (argc == 3 && !strcmp(argv[0], "attach"))
		return usb_attach(x, argv[1], argv[2]);
	if (argc == 3 && !strcmp(argv[0], "detach"))
		return usb_detach(x, argv[1], argv[2]);
	err("usage: umarmctl usb list | usb attach NAME BUSID | usb detach NAME BUSID");
	return EX_USAGE;
}
