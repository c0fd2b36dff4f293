// SPDX-License-Identifier: GPL-2.0-or-later
/* umarmctl - manage User-Mode Linux instances
 *
 * usb.c - USB/IP: usb list, usb attach, usb detach
 *
 * The guest's vhci-hcd only takes a TCP socket created inside the guest
 * (vhci_sysfs.c: sockfd_lookup() in the writer's fd table), so the host
 * exports the device with usbip-host and the guest imports it over its
 * passt network, where the default gateway reaches the host's loopback.
 * The host side of the import is umarmctl's own, not usbipd's (usbipx.c:
 * loopback only, only the instance's passt, only while attaching).  The
 * guest side runs through exec, so it needs the usbip tool and vhci-hcd
 * in the guest (kernel USBIP_VHCI_HCD, package usbip).
 */

#define _GNU_SOURCE
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/wait.h>

#include "cmd.h"
#include "log.h"
#include "nif.h"
#include "text.h"
#include "usbipx.h"
#include "util.h"

/* the guest's usbip attach: reach the host, import, hand to vhci-hcd */
#define USB_ATTACH_TIMEOUT_S	60
/* usbip-host's usbip_status: SDEV_ST_AVAILABLE, SDEV_ST_USED */
#define SDEV_ST_AVAILABLE	1
#define SDEV_ST_USED		2

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
	if (pathf(path, "%s/bus/usb/devices/%s/%s", usb_sysfs(), busid, attr) ||
	    read_file(path, &v, 4096) <= 0)
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
 * driver_of() - the driver a USB device is bound to
 * @busid:	device
 * @drv:	driver name, "" if none
 * @len:	size of @drv
 */
static void driver_of(const char *busid, char *drv, size_t len)
{
	char link[PATH_LEN], target[PATH_LEN];
	ssize_t l = -1;

	if (!pathf(link, "%s/bus/usb/devices/%s/driver", usb_sysfs(), busid))
		l = readlink(link, target, sizeof(target) - 1);
	target[l > 0 ? l : 0] = 0;
	snprintf(drv, len, "%s", strrchr(target, '/') ? strrchr(target, '/') + 1
						    : target);
}

/**
 * instance_passts() - the passt processes of a running instance
 * @in:		instance
 * @pids:	their pids
 * @max:	size of @pids
 *
 * From the runtime net file: the configured interface and hot-plugged
 * ones; the guest's connection to the host comes from one of them.
 *
 * Return: how many
 */
static int instance_passts(const struct inst *in, pid_t *pids, int max)
{
	char path[PATH_LEN], *t, *line, *save;
	int n = 0;

	inst_path(in, path, 1, NIF_FILE);
	if (read_file(path, &t, 1 << 20) <= 0) {
		free(t);
		return 0;
	}
	for (line = strtok_r(t, "\n", &save); line && n < max;
	     line = strtok_r(NULL, "\n", &save)) {
		struct nif f;

		if (!nif_parse(line, &f) && f.passt > 0)
			pids[n++] = f.passt;
	}
	free(t);
	return n;
}

/**
 * json_attr() - a sysfs attribute as a JSON member: null where missing
 * @key:	member name
 * @v:		value, "" if the device has none
 */
static void json_attr(const char *key, const char *v)
{
	printf(",\"%s\":", key);
	if (*v)
		json_str(v);
	else
		printf("null");
}

/**
 * usb_device() - print one host USB device, a table line or JSON object
 * @x:		global options
 * @busid:	the device
 * @n:		how many were printed before it
 *
 * Its manufacturer and product come from the device itself: escaped, in
 * the table as in JSON.
 */
static void usb_device(const struct ctx *x, const char *busid, int n)
{
	char vid[16], pid[16], prod[128], man[128], drv[PATH_LEN];
	char eprod[4 * sizeof(prod)], eman[4 * sizeof(man)];
	char evid[4 * sizeof(vid)], epid[4 * sizeof(pid)];
	const char *state;

	sysattr(busid, "idVendor", vid, sizeof(vid));
	sysattr(busid, "idProduct", pid, sizeof(pid));
	sysattr(busid, "product", prod, sizeof(prod));
	sysattr(busid, "manufacturer", man, sizeof(man));
	driver_of(busid, drv, sizeof(drv));
	state = !strcmp(drv, "usbip-host") ? "exported" : "host";
	if (x->json) {
		printf("%s{\"busid\":", n ? "," : "");
		json_str(busid);
		json_attr("vendor", vid);
		json_attr("product_id", pid);
		printf(",\"state\":\"%s\"", state);
		json_attr("manufacturer", man);
		json_attr("product", prod);
		putchar('}');
		return;
	}
	if (!n)
		printf("%-10s %-9s %-12s %s\n", "BUSID", "ID", "STATE", "DEVICE");
	printf("%-10s %s:%s %-12s %s %s\n", busid,
	       text_escape(vid, evid, sizeof(evid)),
	       text_escape(pid, epid, sizeof(epid)), state,
	       text_escape(man, eman, sizeof(eman)),
	       text_escape(prod, eprod, sizeof(eprod)));
}

/**
 * usb_list() - umarmctl usb list [-o json]: the host's USB devices
 * @x:		global options
 *
 * Return: exit code
 */
static int usb_list(const struct ctx *x)
{
	char dir[PATH_LEN];
	struct dirent *de;
	int n = 0;
	DIR *d;

	pathf(dir, "%s/bus/usb/devices", usb_sysfs());
	d = opendir(dir);
	if (x->json)
		putchar('[');
	while (d && (de = readdir(d))) {
		if (de->d_name[0] == '.' || strchr(de->d_name, ':') ||
		    !strncmp(de->d_name, "usb", 3))
			continue;
		usb_device(x, de->d_name, n++);
	}
	if (d)
		closedir(d);
	if (x->json)
		printf("]\n");
	else if (!d)
		printf("No USB devices (no %s).\n", dir);
	else if (!n)
		printf("No USB devices on this host.\n");
	return 0;
}

/**
 * serve_import() - fork the host side of the import
 * @lfd:	listening socket, closed here
 * @busid:	device
 * @peers:	the instance's passts
 * @npeers:	how many
 *
 * Return: pid of the server, negative errno
 */
static pid_t serve_import(int lfd, const char *busid, const pid_t *peers,
			  int npeers)
{
	pid_t pid = fork();

	if (pid) {
		close(lfd);
		return pid < 0 ? -errno : pid;
	}
	_exit(usbipx_serve(lfd, busid, peers, npeers,
			   USB_ATTACH_TIMEOUT_S * 1000) ? 1 : 0);
}

/**
 * import_done() - wait for the import server, stop it if still waiting
 * @pid:	server
 *
 * Return: 1 if it handed the device over
 */
static int import_done(pid_t pid)
{
	int st, i;

	/* the guest had our answer before its usbip attach returned */
	for (i = 0; i < 100; i++) {
		if (waitpid(pid, &st, WNOHANG) == pid)
			return WIFEXITED(st) && !WEXITSTATUS(st);
		sleep_ms(10);
	}
	kill(pid, SIGKILL);
	waitpid(pid, &st, 0);
	return 0;
}

/**
 * export_prepare() - bind a device to usbip-host, check it is free
 * @busid:	device
 * @bound:	set if we bound it (to unbind on failure)
 *
 * Return: 0, or an exit code (message printed)
 */
static int export_prepare(const char *busid, int *bound)
{
	char *modprobe[] = { "modprobe", "usbip-host", NULL };
	char *bind[] = { "usbip", "bind", "-b", (char *)busid, NULL };
	char drv[PATH_LEN], st[16];

	*bound = 0;
	run(modprobe);
	driver_of(busid, drv, sizeof(drv));
	if (strcmp(drv, "usbip-host")) {
		if (run(bind)) {
			err("'usbip bind -b %s' failed: apt install usbip, and see dmesg",
			    busid);
			return EX_HOST;
		}
		*bound = 1;
	}
	sysattr(busid, "usbip_status", st, sizeof(st));
	if (atoi(st) == SDEV_ST_USED) {
		err("%s is attached to a guest already; 'umarmctl usb detach' it first",
		    busid);
		return EX_STATE;
	}
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
	char *unbind[] = { "usbip", "unbind", "-b", (char *)busid, NULL };
	char script[512], vid[16];
	char *cmd[] = { "sh", "-c", script };
	pid_t peers[NIF_MAX], server;
	int rc, npeers, lfd, bound, ok;
	struct inst in;

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
		err("exporting %s needs root on the host (usbip-host); run 'sudo umarmctl usb attach %s %s'",
		    busid, in.name, busid);
		return EX_HOST;
	}
	npeers = instance_passts(&in, peers, NIF_MAX);
	if (!npeers) {
		err("%s: not running with a passt network: usb attach needs 'network = passt' and a running instance",
		    in.name);
		return EX_STATE;
	}
	rc = export_prepare(busid, &bound);
	if (rc)
		goto out;
	lfd = usbipx_listen();
	if (lfd < 0) {
		err("cannot listen on 127.0.0.1:%d: %s%s", USBIP_PORT,
		    strerror(-lfd), lfd == -EADDRINUSE ?
		    " (a usbipd? it offers exported devices to every host that reaches it: stop it)" :
		    "");
		rc = EX_HOST;
		goto out;
	}
	server = serve_import(lfd, busid, peers, npeers);
	if (server < 0) {
		rc = EX_FAIL;
		goto out;
	}
	snprintf(script, sizeof(script),
		 "gw=$(ip route show default | awk '{print $3; exit}'); "
		 "[ -n \"$gw\" ] || { echo 'no default route in the guest: its network is down (minimal image: see /run/udhcpc.log; else configure DHCP on it)' >&2; exit 3; }; "
		 "modprobe vhci-hcd 2>/dev/null; "
		 "usbip attach -r \"$gw\" -b %s", busid);
	rc = exec_in_guest(&in, cmd, 3, 0, USB_ATTACH_TIMEOUT_S);
	ok = import_done(server);
	if (rc || !ok) {
		err("%s: the guest could not attach %s (status %d%s): it needs network = passt, vhci-hcd and the usbip tool",
		    in.name, busid, rc, ok ? "" : ", no import reached the host");
		rc = EX_FAIL;
	}
out:
	if (rc && bound)
		run(unbind);
	return rc;
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
	char script[512], drv[PATH_LEN];
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
	driver_of(busid, drv, sizeof(drv));
	if (!getuid() && !strcmp(drv, "usbip-host"))
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
		return usb_list(x);
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
	return usage_error("usb");
}
