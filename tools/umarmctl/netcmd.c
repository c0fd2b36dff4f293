// SPDX-License-Identifier: GPL-2.0-or-later
/* umarmctl - manage User-Mode Linux instances
 *
 * netcmd.c - net add/rm/list: network interfaces hot-plugged at run time
 *
 * "net add" asks the supervisor (control request "net-add") to start one
 * more passt --vhost-user and to plug it into the running kernel with
 * mconsole "config virtio_uml.device=SOCK:1:ID": the guest sees a new
 * virtio_net interface.  The supervisor owns that passt like the one it
 * starts at boot: it stops it with the instance, and passt dies with it
 * (PR_SET_PDEATHSIG) if it is killed.
 *
 * Hot-plugged interfaces are not saved in the configuration: they last
 * until the instance stops or the guest reboots, like "virsh
 * attach-device" without --config.  A network from boot is 'network =
 * passt' in umarm.conf(5).
 *
 * The relay backend cannot be hot-plugged: UML's vector driver takes its
 * descriptor from the command line only, so "net add" needs a passt with
 * --vhost-user and a kernel with CONFIG_VIRTIO_UML.
 *
 * "net rm" first asks UML to unplug the device (mconsole "remove
 * virtio_uml.device=ID"), which our kernels do (kernel/patches: "um:
 * virtio_uml: remove devices through mconsole").  Pristine Linux 7.2's
 * virtio_uml refuses (vu_mc_remove() returns -EOPNOTSUPP): then it
 * unbinds the device inside the guest, through the exec channel, before
 * the supervisor stops its passt.  A "remove" that UML does not answer in
 * time may still be under way in the guest: it is reported, not followed
 * by an unbind.
 * Stopping passt alone would leave the guest a dead interface: virtio_uml
 * only notices a closed socket when it next talks to it.
 */

#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmd.h"
#include "ctl.h"
#include "helpers.h"
#include "host.h"
#include "lock.h"
#include "log.h"
#include "mconsole.h"
#include "nif.h"
#include "state.h"
#include "text.h"
#include "util.h"

/* how long mconsole "remove" may take before net rm reports it */
#define REMOVE_TIMEOUT_S	5

/**
 * nif_load() - read the net file of a running instance
 * @in:		instance
 * @f:		interfaces, indexed by id; @f[i].backend empty if absent
 *
 * Return: number of interfaces, negative errno if not readable
 */
static int nif_load(const struct inst *in, struct nif f[NIF_MAX])
{
	char path[PATH_LEN], *t, *line, *save;
	ssize_t r;
	int n = 0;

	memset(f, 0, NIF_MAX * sizeof(*f));
	inst_path(in, path, 1, NIF_FILE);
	r = read_file(path, &t, 1 << 20);
	if (r < 0)
		return r;
	for (line = strtok_r(t, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		struct nif one;

		if (nif_parse(line, &one))
			continue;
		f[one.id] = one;
		n++;
	}
	free(t);
	return n;
}

/**
 * running_kernel() - path of the running kernel binary
 * @in:		instance
 * @buf:	output, PATH_LEN
 *
 * Return: 0 on success, -ENOENT if unknown
 */
static int running_kernel(const struct inst *in, char *buf)
{
	char path[PATH_LEN], exe[64];
	struct state st;
	ssize_t n;

	inst_path(in, path, 1, STATE_FILE);
	if (state_read(path, &st) || st.uml <= 0)
		return -ENOENT;
	snprintf(exe, sizeof(exe), "/proc/%d/exe", (int)st.uml);
	n = readlink(exe, buf, PATH_LEN - 1);
	if (n <= 0)
		return -ENOENT;
	buf[n] = 0;
	/* rebuilt or reinstalled since it started: its config is next to it */
	if (n > 10 && !strcmp(buf + n - 10, " (deleted)"))
		buf[n - 10] = 0;
	return 0;
}

/**
 * net_add_request() - the control request "net-add [SPEC...]" of net add
 * @argc:	arguments after "add"
 * @argv:	arguments: NAME, then --port SPEC or --port=SPEC
 * @req:	the request
 * @len:	size of @req
 *
 * Return: 0 on success, -EINVAL for a forward that is not one (message
 *	   printed), -1 for another bad argument or too many ports
 */
static int net_add_request(int argc, char **argv, char *req, size_t len)
{
	struct conf_port p;
	size_t o;
	int i;

	o = (size_t)snprintf(req, len, "net-add");
	for (i = 1; i < argc; i++) {
		const char *spec = NULL;

		if (!strcmp(argv[i], "--port") && i + 1 < argc)
			spec = argv[++i];
		else if (!strncmp(argv[i], "--port=", 7))
			spec = argv[i] + 7;
		if (spec && conf_port_parse(spec, &p)) {
			err("--port: '%s' is not a port forward: [tcp:|udp:][ADDR:]HOST:GUEST, e.g. 8080:80",
			    spec);
			return -EINVAL;
		}
		if (!spec || o + strlen(spec) + 2 > len)
			return -1;
		o += snprintf(req + o, len - o, " %s", spec);
	}
	return argc < 1 ? -1 : 0;
}

/**
 * net_kernel_ok() - whether the running kernel can take a virtio_net
 * @in:		instance, running
 *
 * A kernel whose binary cannot be found is given the benefit of the doubt.
 *
 * Return: 0 if it can (or may), EX_HOST if not (message printed)
 */
static int net_kernel_ok(const struct inst *in)
{
	char kernel[PATH_LEN];
	int vn;

	if (running_kernel(in, kernel))
		return 0;
	if (kernel_config_opt(kernel, "VIRTIO_UML") == 'n' ||
	    (vn = kernel_virtio_net(kernel)) == 'n') {
		err("%s: the kernel %s has no virtio_uml/virtio_net, so nothing can be hot-plugged: set 'network = passt' in %s and 'umarmctl restart %s' (the relay, from boot)",
		    in->name, kernel, in->conf, in->name);
		return EX_HOST;
	}
	if (vn == 'm')
		info("%s: virtio_net is a module of this kernel: the guest must load it (modprobe virtio_net)",
		     in->name);
	return 0;
}

/**
 * net_add_possible() - whether an interface can be hot-plugged now
 * @in:		instance
 * @c:		its configuration
 *
 * Each refusal names what to change: the backend, passt, or the
 * instance's state.
 *
 * Return: 0 if it can, an exit code otherwise (message printed)
 */
static int net_add_possible(const struct inst *in, const struct conf *c)
{
	int rc;

	if (c->net_backend == NETB_RELAY) {
		err("%s: 'network-backend = relay' in %s, and the relay cannot be hot-plugged (UML's vector device exists from boot only): set 'network-backend = auto' or 'vhost-user' there, then 'umarmctl net add %s'",
		    in->name, in->conf, in->name);
		return EX_CONFIG;
	}
	if (access(passt_bin(), X_OK)) {
		err("%s: %s is missing: apt install passt (2024 or later, for --vhost-user), or set UMARM_PASST",
		    in->name, passt_bin());
		return EX_HOST;
	}
	rc = passt_userns_ok();
	if (rc) {
		err("%s: passt cannot run here: unshare(CLONE_NEWUSER): %s" PASST_NO_USERNS,
		    in->name, strerror(-rc));
		return EX_HOST;
	}
	if (!passt_has_vhost_user()) {
		err("%s: %s has no --vhost-user, and the relay it would need cannot be hot-plugged: install passt from 2024 or later (Debian trixie) or point UMARM_PASST at one; or set 'network = passt' in %s and 'umarmctl restart %s' for the relay from boot",
		    in->name, passt_bin(), in->conf, in->name);
		return EX_HOST;
	}
	if (!inst_running(in)) {
		err("%s: is not running: 'umarmctl start %s' first; for a network from boot set 'network = passt' in %s",
		    in->name, in->name, in->conf);
		return EX_STATE;
	}
	return net_kernel_ok(in);
}

/**
 * net_add() - umarmctl net add NAME [--port SPEC]...
 * @x:		global options
 * @argc:	arguments after "add"
 * @argv:	arguments
 *
 * Return: exit code
 */
static int net_add(struct ctx *x, int argc, char **argv)
{
	char req[NIF_PORTS_LEN + 16], reply[600], id[16] = "", dev[32] = "";
	struct inst in;
	struct conf c;
	int rc, pid = 0;

	rc = net_add_request(argc, argv, req, sizeof(req));
	if (rc)
		return rc == -EINVAL ? EX_USAGE : usage_error("net");
	rc = inst_open(x, argv[0], &in, &c);
	if (!rc)
		rc = net_add_possible(&in, &c);
	if (rc)
		return rc;
	rc = ctl_request(&in, req, reply, sizeof(reply));
	if (rc) {
		err("%s: hot-plug failed: %s; see 'umarmctl logs %s' and %s/passt.log",
		    in.name, ctl_why(rc, reply), in.name,
		    in.state);
		return rc == -EIO ? EX_FAIL : EX_STATE;
	}
	/* "netN virtio-uml.ID PID" */
	sscanf(reply, "%15s %31s %d", id, dev, &pid);
	printf("%s %s (passt %d; in the guest /sys/bus/platform/devices/%s/virtio*/net/)\n",
	       id, dev, pid, dev);
	info("%s: %s is not saved: it is gone at the next start ('network = passt' in %s for one from boot)",
	     in.name, id, in.conf);
	return 0;
}

/**
 * net_rm() - umarmctl net rm NAME [netN]
 * @x:		global options
 * @argc:	arguments after "rm"
 * @argv:	arguments
 *
 * Without netN, the last hot-plugged interface goes.
 *
 * Return: exit code
 */
static int net_rm(struct ctx *x, int argc, char **argv)
{
	char cmd[96], out[MC_MAX_DATA], path[PATH_LEN], unbind[160];
	struct nif f[NIF_MAX];
	unsigned int id = 0;
	struct state st;
	struct inst in;
	int rc, e, i;

	if (argc < 1 || argc > 2)
		return usage_error("net");
	if (argc == 2 && nif_id_parse(argv[1], &id)) {
		err("'%s' is not an interface: netN, as 'umarmctl net list %s' shows them",
		    argv[1], argv[0]);
		return EX_USAGE;
	}
	rc = inst_open(x, argv[0], &in, NULL);
	if (rc)
		return rc;
	if (!inst_running(&in) || nif_load(&in, f) < 0) {
		err("%s: is not running, and hot-plugged interfaces go with it", in.name);
		return EX_STATE;
	}
	if (argc == 1)
		for (i = NIF_MAX - 1; i > 0 && !id; i--)
			if (*f[i].backend && f[i].hotplug)
				id = i;
	if (!id && argc == 1) {
		err("%s: has no hot-plugged interface ('umarmctl net list %s')",
		    in.name, in.name);
		return EX_USAGE;
	}
	if (!*f[id].backend) {
		err("%s: has no net%u ('umarmctl net list %s')", in.name, id,
		    in.name);
		return EX_USAGE;
	}
	if (!f[id].hotplug) {
		err("%s: net%u comes from the configuration, not from 'net add': set 'network = none' in %s and 'umarmctl restart %s'",
		    in.name, id, in.conf, in.name);
		return EX_STATE;
	}

	inst_path(&in, path, 1, STATE_FILE);
	rc = -ENOTCONN;
	if (!state_read(path, &st) && *st.mconsole) {
		snprintf(cmd, sizeof(cmd), "remove virtio_uml.device=%d",
			 f[id].plat);
		rc = mc_command(st.mconsole, cmd, out, sizeof(out),
				REMOVE_TIMEOUT_S * 1000, &e);
		rc = rc ? rc : e ? -EIO : 0;
	}
	if (rc == -ETIMEDOUT) {
		/* the guest may still be removing it: do not unbind under it */
		warn("%s: UML did not answer 'remove' for virtio-uml.%d within %d s: the guest may still take net%u away, or keep a dead interface until it reboots",
		     in.name, f[id].plat, REMOVE_TIMEOUT_S, id);
	} else if (rc) {
		/* pristine 7.2: "Couldn't parse device number", see above */
		char *sh[] = { "sh", "-c", unbind };

		snprintf(unbind, sizeof(unbind),
			 "echo virtio-uml.%d >/sys/bus/platform/drivers/virtio-uml/unbind",
			 f[id].plat);
		dbg("%s: mconsole cannot remove virtio-uml.%d (%s): unbinding it in the guest",
		    in.name, f[id].plat, rc == -EIO ? out : strerror(-rc));
		if (exec_in_guest(&in, sh, 3, 0, 30))
			warn("%s: the guest did not release virtio-uml.%d: it keeps a dead interface until it reboots",
			     in.name, f[id].plat);
	}
	snprintf(cmd, sizeof(cmd), "net-rm net%u", id);
	rc = ctl_request(&in, cmd, out, sizeof(out));
	if (rc) {
		err("%s: the supervisor did not stop net%u's passt: %s",
		    in.name, id, ctl_why(rc, out));
		return EX_FAIL;
	}
	printf("net%u removed\n", id);
	return 0;
}

/**
 * net_list() - umarmctl net list NAME [--json]
 * @x:		global options
 * @argc:	arguments after "list"
 * @argv:	arguments
 *
 * Return: exit code
 */
static int net_list(struct ctx *x, int argc, char **argv)
{
	struct nif f[NIF_MAX];
	struct inst in;
	struct conf c;
	int rc, i, first = 1;

	if (argc != 1)
		return usage_error("net");
	rc = inst_open(x, argv[0], &in, &c);
	if (rc)
		return rc;
	if (!inst_running(&in) || nif_load(&in, f) < 0) {
		/* what the next start sets up */
		memset(f, 0, sizeof(f));
		if (c.net == NET_PASST) {
			snprintf(f[0].backend, sizeof(f[0].backend), "%s",
				 c.net_backend == NETB_RELAY ? "relay" :
				 c.net_backend == NETB_VHOST_USER ?
				 "vhost-user" : "auto");
			f[0].plat = -1;
			nif_ports_format(c.port, c.nports, f[0].ports,
					 sizeof(f[0].ports));
		}
	}
	if (x->json)
		putchar('[');
	else
		printf("%-5s %-10s %-13s %-7s %-7s %s\n", "IF", "BACKEND",
		       "DEVICE", "PASST", "ORIGIN", "PORTS");
	for (i = 0; i < NIF_MAX; i++) {
		char dev[32];

		if (!*f[i].backend)
			continue;
		if (f[i].plat >= 0)
			snprintf(dev, sizeof(dev), "virtio-uml.%d", f[i].plat);
		else
			snprintf(dev, sizeof(dev), "%s",
				 !strcmp(f[i].backend, "relay") ? "vec0" : "-");
		if (x->json) {
			printf("%s{\"if\":\"net%d\",\"backend\":", first ? "" : ",",
			       i);
			json_str(f[i].backend);
			printf(",\"device\":");
			json_str(dev);
			printf(",\"passt\":%d,\"origin\":\"%s\",\"ports\":",
			       (int)f[i].passt,
			       f[i].hotplug ? "hotplug" : "boot");
			json_str(f[i].ports);
			printf(",\"socket\":");
			json_str(f[i].sock);
			putchar('}');
		} else {
			printf("net%-2d %-10s %-13s %-7d %-7s %s\n", i,
			       tty_str(f[i].backend), dev, (int)f[i].passt,
			       f[i].hotplug ? "hotplug" : "boot",
			       *f[i].ports ? tty_str(f[i].ports) : "-");
		}
		first = 0;
	}
	if (x->json)
		printf("]\n");
	return 0;
}

/**
 * cmd_net() - umarmctl net add|rm|list ...
 * @x:		global options
 * @argc:	arguments after the verb
 * @argv:	arguments
 *
 * Return: exit code
 */
int cmd_net(struct ctx *x, int argc, char **argv)
{
	if (argc >= 1 && !strcmp(argv[0], "add"))
		return net_add(x, argc - 1, argv + 1);
	if (argc >= 1 && (!strcmp(argv[0], "rm") ||
			  !strcmp(argv[0], "remove")))
		return net_rm(x, argc - 1, argv + 1);
	if (argc >= 1 && !strcmp(argv[0], "list"))
		return net_list(x, argc - 1, argv + 1);
	return usage_error("net");
}
