// SPDX-License-Identifier: GPL-2.0-or-later
/* umarmctl - manage User-Mode Linux instances
 *
 * unit.c - unit tests: configuration parser, name rules, sizes, mconsole
 *	    framing (including a fake UML answering on a real socket), the
 *	    runtime net file and "net add" forwards
 *
 * Prints "PASS name" or "FAIL name: why" per case; exits 1 on any failure.
 */

#include <errno.h>
#include <stddef.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>

#include "conf.h"
#include "mconsole.h"
#include "name.h"
#include "nif.h"
#include "util.h"

#include "check.h"

/**
 * parse() - parse a configuration string
 * @text:	configuration
 * @c:		result
 * @e:		error
 *
 * Return: conf_parse() result
 */
static int parse(const char *text, struct conf *c, struct conf_error *e)
{
	conf_defaults(c);
	memset(e, 0, sizeof(*e));
	return conf_parse(c, text, strlen(text), e);
}

/**
 * test_conf_valid() - a file with every key, written back and read again
 */
static void test_conf_valid(void)
{
	static char big[CONF_MAX_SIZE];
	struct conf_error e;
	struct conf c, d;
	int rc, n;

	rc = parse("# comment\n; other comment\n\n"
		   "  image = minimal  \n"
		   "flavour=16k\n"
		   "memory = 512M\n"
		   "cpus = 2\n"
		   "disk0 = root.cow,/usr/share/umarm/images/minimal.img\n"
		   "disk3 = /srv/data.img\r\n"
		   "network = passt\n"
		   "network-backend = relay\n"
		   "port = 8080:80\n"
		   "port = udp:127.0.0.1:5353:53\n"
		   "ready = LOGIN_OK\n"
		   "ready-timeout = 30\n"
		   "stop-timeout = 5\n"
		   "cmdline = quiet loglevel=3 seccomp=on\n"
		   "usb = 1-2.1\n"
		   "share = src /home/u/src /src\n"
		   "share = data.1 /srv/x /mnt/x ro virtiofs\n", &c, &e);
	CHECK("conf.valid", rc == 0, "rc=%d line %d: %s", rc, e.line, e.msg);
	CHECK("conf.values", !strcmp(c.image, "minimal") &&
	      !strcmp(c.flavour, "16k") && c.memory == 512ULL << 20 &&
	      c.cpus == 2 && c.disk[0].set && !strcmp(c.disk[0].file,
						      "root.cow") &&
	      !strcmp(c.disk[0].base, "/usr/share/umarm/images/minimal.img") &&
	      c.disk[3].set && !strcmp(c.disk[3].file, "/srv/data.img") &&
	      !c.disk[1].set && c.net == NET_PASST &&
	      c.net_backend == NETB_RELAY && c.nports == 2 &&
	      c.port[0].host == 8080 && c.port[0].guest == 80 &&
	      !c.port[0].udp && c.port[1].udp &&
	      !strcmp(c.port[1].addr, "127.0.0.1") && c.port[1].host == 5353 &&
	      c.nready == 1 && c.ready_timeout == 30 && c.stop_timeout == 5 &&
	      !strcmp(c.cmdline, "quiet loglevel=3 seccomp=on") &&
	      c.nusb == 1, "values differ");
	CHECK("conf.shares", c.nshares == 2 &&
	      !strcmp(conf_str(&c, c.share[0].name), "src") &&
	      !strcmp(conf_str(&c, c.share[0].host), "/home/u/src") &&
	      !strcmp(conf_str(&c, c.share[0].guest), "/src") &&
	      !c.share[0].ro && c.share[0].fs == SHARE_HOSTFS &&
	      c.share[1].ro && c.share[1].fs == SHARE_VIRTIOFS &&
	      conf_share_find(&c, "data.1") == 1, "shares differ");

	n = conf_format(&c, big, sizeof(big));
	rc = n > 0 ? (conf_defaults(&d), conf_parse(&d, big, n, &e)) : -1;
	CHECK("conf.roundtrip", !rc && d.memory == c.memory &&
	      d.nports == 2 && !strcmp(d.disk[0].base, c.disk[0].base) &&
	      d.port[1].udp && !strcmp(d.cmdline, c.cmdline) &&
	      d.net_backend == NETB_RELAY && d.nshares == 2 &&
	      d.share[1].ro && d.share[1].fs == SHARE_VIRTIOFS &&
	      !strcmp(conf_str(&d, d.share[1].guest), "/mnt/x"),
	      "rc=%d: %s\n%s", rc, e.msg, big);

	rc = parse("disk0 = r.img\n", &c, &e);
	CHECK("conf.defaults", !rc && c.memory == 256ULL << 20 &&
	      c.cpus == 1 && c.net == NET_NONE && c.ready_timeout == 120 &&
	      c.exec == EXEC_CONSOLE, "rc=%d", rc);
}

/**
 * test_conf_errors() - each way a line can be wrong: the line and the words
 *			the error must have
 */
static void test_conf_errors(void)
{
	static const struct {
		const char *name, *text;
		int line;
		const char *want;
	} bad[] = {
		{ "conf.unknown_key", "disk0 = a\nmemroy = 1G\n",
		  2, "unknown key" },
		{ "conf.no_equals", "disk0 = a\nmemory 1G\n",
		  2, "key = value" },
		{ "conf.empty_key", "= 3\n", 1, "missing key" },
		{ "conf.bad_key_chars", "Memory = 1G\n", 1, "invalid key" },
		{ "conf.duplicate", "disk0 = a\nmemory = 1G\nmemory = 2G\n",
		  3, "set twice" },
		{ "conf.dup_disk", "disk0 = a\ndisk0 = b\n", 2, "set twice" },
		{ "conf.bad_flavour", "flavour = 64k\n", 1, "not 4k or 16k" },
		{ "conf.bad_memory", "memory = lots\n", 1, "not a size" },
		{ "conf.tiny_memory", "memory = 1M\n", 1, "not a size" },
		{ "conf.neg_memory", "memory = -5M\n", 1, "not a size" },
		{ "conf.bad_cpus", "cpus = 0\n", 1, "number from 1" },
		{ "conf.many_cpus", "cpus = 1000\n", 1, "number from 1" },
		{ "conf.disk_index", "disk16 = x\n", 1, "disk0 to disk15" },
		{ "conf.disk_leading0", "disk01 = x\n", 1, "disk0 to disk15" },
		{ "conf.disk_empty", "disk0 =\n", 1, "FILE or FILE,BACKING" },
		{ "conf.disk_2commas", "disk0 = a,b,c\n",
		  1, "FILE or FILE,BACKING" },
		{ "conf.bad_port", "port = 80\n", 1, "HOST:GUEST" },
		{ "conf.port_range", "port = 70000:80\n", 1, "HOST:GUEST" },
		{ "conf.port_zero", "port = 0:80\n", 1, "HOST:GUEST" },
		{ "conf.bad_net", "network = tap\n", 1, "none or passt" },
		{ "conf.bad_timeout", "ready-timeout = soon\n", 1, "seconds" },
		{ "conf.bad_usb", "usb = ../x\n", 1, "bus id" },
		{ "conf.bad_exec", "exec = ssh\n",
		  1, "console, debug-shell or none" },
		{ "conf.no_root", "memory = 1G\n", 0, "no root disk" },
		{ "conf.share_fields", "share = a /x\n",
		  1, "NAME HOSTDIR GUESTDIR" },
		{ "conf.share_relative", "share = a x /x\n", 1, "absolute" },
		{ "conf.share_guest_root", "share = a /x /\n",
		  1, "cannot be /" },
		{ "conf.share_guest_host", "share = a /x /host/y\n",
		  1, "/host" },
		{ "conf.share_dotdot", "share = a /x /y/../z\n", 1, ".." },
		{ "conf.share_guest_slashes", "share = a /x //host\n", 1, "//" },
		{ "conf.share_guest_trailing", "share = a /x /y/\n", 1, "//" },
		{ "conf.share_name", "share = .a /x /y\n", 1, "share name" },
		{ "conf.share_option", "share = a /x /y rw,ro\n",
		  1, "options" },
		{ "conf.share_dup", "share = a /x /y\nshare = a /z /w\n",
		  2, "exists" },
		{ "conf.share_same_guest", "share = a /x /y\nshare = b /z /y\n",
		  2, "another share" },
	};
	struct conf_error e;
	struct conf c;
	unsigned int i;
	int rc;

	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		rc = parse(bad[i].text, &c, &e);
		CHECK(bad[i].name, rc == -EINVAL && e.line == bad[i].line &&
		      strstr(e.msg, bad[i].want),
		      "rc=%d line=%d msg='%s'", rc, e.line, e.msg);
	}
}

/**
 * test_conf_limits() - NUL bytes, long lines, large and truncated files
 */
static void test_conf_limits(void)
{
	static char big[CONF_MAX_SIZE];
	struct conf_error e;
	struct conf c;
	int rc;

	rc = parse("disk0 = a\nmemory = 1G\0\n", &c, &e);
	conf_defaults(&c);
	rc = conf_parse(&c, "disk0 = a\n\0x", 12, &e);
	CHECK("conf.nul", rc == -EINVAL && strstr(e.msg, "NUL"), "rc=%d", rc);

	memset(big, 'a', CONF_LINE_MAX + 10);
	big[CONF_LINE_MAX + 10] = 0;
	rc = parse(big, &c, &e);
	CHECK("conf.long_line", rc == -EINVAL && strstr(e.msg, "longer"),
	      "rc=%d %s", rc, e.msg);
	conf_defaults(&c);
	rc = conf_parse(&c, big, CONF_MAX_SIZE + 1, &e);
	CHECK("conf.too_big", rc == -EINVAL && strstr(e.msg, "larger"),
	      "rc=%d %s", rc, e.msg);

	/* truncated file (kill -9 of a non-atomic writer): still an error,
	 * not a crash or a silently different configuration
	 */
	rc = parse("disk0 = root.cow,/x\nmemory = 25", &c, &e);
	CHECK("conf.truncated_value", rc == -EINVAL && e.line == 2,
	      "rc=%d", rc);
	rc = parse("disk0 = root.cow,/x\nmemo", &c, &e);
	CHECK("conf.truncated_key", rc == -EINVAL && e.line == 2, "rc=%d", rc);
}

/**
 * test_names() - instance name rules
 */
static void test_names(void)
{
	char n63[64], n64[65];

	memset(n63, 'a', 63);
	n63[63] = 0;
	memset(n64, 'a', 64);
	n64[64] = 0;
	CHECK("name.simple", !name_check("dev"), "rejected");
	CHECK("name.chars", !name_check("web-1.test_2"), "rejected");
	CHECK("name.63", !name_check(n63), "rejected");
	CHECK("name.64", name_check(n64) != NULL, "accepted");
	CHECK("name.empty", name_check("") != NULL, "accepted");
	CHECK("name.slash", name_check("a/b") != NULL, "accepted");
	CHECK("name.dotdot", name_check("..") != NULL, "accepted");
	CHECK("name.dot", name_check(".") != NULL, "accepted");
	CHECK("name.a..b", name_check("a..b") != NULL, "accepted");
	CHECK("name.leading_dash", name_check("-rf") != NULL, "accepted");
	CHECK("name.space", name_check("a b") != NULL, "accepted");
	CHECK("name.utf8", name_check("caf\xc3\xa9") != NULL, "accepted");
	CHECK("name.at", name_check("a@b") != NULL, "accepted (systemd %%i)");
}

/**
 * test_sizes() - parse_size() and format_size()
 */
static void test_sizes(void)
{
	uint64_t v;
	char buf[32];

	CHECK("size.M", !parse_size("256M", &v) && v == 256ULL << 20, "failed");
	CHECK("size.GiB", !parse_size("4GiB", &v) && v == 4ULL << 30, "failed");
	CHECK("size.bytes", !parse_size("1048576", &v) && v == 1048576, "failed");
	CHECK("size.junk", parse_size("4X", &v) == -EINVAL, "failed");
	CHECK("size.empty", parse_size("", &v) == -EINVAL, "failed");
	CHECK("size.overflow", parse_size("99999999999T", &v) == -ERANGE, "failed");
	format_size(512ULL << 20, buf, sizeof(buf));
	CHECK("size.format", !strcmp(buf, "512M"), "%s", buf);
	format_size(1000, buf, sizeof(buf));
	CHECK("size.format_odd", !strcmp(buf, "1000"), "%s", buf);
}

/**
 * fake_uml() - answer mconsole requests like arch/um/drivers/mconsole_user.c
 * @path:	socket to bind
 * @ready:	pipe to signal once bound
 *
 * "long" gets a 3-datagram reply with more=1 on the first two, "bad" an
 * error, anything else its text echoed.  Exits after "quit".
 */
static void fake_uml(const char *path, int ready)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX }, from;
	int fd = socket(AF_UNIX, SOCK_DGRAM, 0);

	strcpy(sa.sun_path, path);
	unlink(path);
	if (bind(fd, (struct sockaddr *)&sa, sizeof(sa)))
		_exit(1);
	if (write(ready, "x", 1) != 1)
		_exit(1);
	for (;;) {
		struct mc_request req;
		struct mc_reply rep;
		socklen_t fl = sizeof(from);
		ssize_t n = recvfrom(fd, &req, sizeof(req), 0,
				     (struct sockaddr *)&from, &fl);
		int i, parts = 1;

		if (n < (ssize_t)offsetof(struct mc_request, data) ||
		    req.magic != MC_MAGIC || req.version != MC_VERSION ||
		    req.len >= MC_MAX_DATA)
			_exit(2);
		req.data[req.len] = 0;
		if (!strcmp(req.data, "long"))
			parts = 3;
		for (i = 0; i < parts; i++) {
			memset(&rep, 0, sizeof(rep));
			rep.err = !strcmp(req.data, "bad");
			rep.more = i < parts - 1;
			snprintf(rep.data, sizeof(rep.data), "%.500s#%d",
				 req.data, i);
			rep.len = strlen(rep.data) + 1;	/* UML counts NUL */
			sendto(fd, &rep, MC_REPLY_HDR + rep.len, 0,
			       (struct sockaddr *)&from, fl);
		}
		if (!strcmp(req.data, "quit"))
			_exit(0);
	}
}

/**
 * test_mc_framing() - request, reply and notification framing
 */
static void test_mc_framing(void)
{
	char buf[600], out[600];
	struct mc_request req;
	struct mc_reply *rep = (struct mc_reply *)buf;
	struct mc_notify *nt = (struct mc_notify *)buf;
	const char *data;
	uint32_t e, more, type;
	size_t len;
	int n;

	n = mc_build_request(&req, "config ubd1=/x");
	CHECK("mc.request", n == (int)sizeof(req) && req.magic == 0xcafebabe &&
	      req.version == 2 && req.len == 14 &&
	      !memcmp(req.data, "config ubd1=/x", 14), "n=%d", n);
	/* UML refuses len >= MCONSOLE_MAX_DATA */
	memset(out, 'x', 600);
	out[512] = 0;
	CHECK("mc.request_too_long", mc_build_request(&req, out) == -E2BIG,
	      "accepted 512 bytes");
	out[511] = 0;
	CHECK("mc.request_max", mc_build_request(&req, out) > 0,
	      "refused 511 bytes");

	memset(buf, 0, sizeof(buf));
	rep->err = 1;
	rep->more = 0;
	strcpy(rep->data, "Unknown command");
	rep->len = 16;
	CHECK("mc.reply", !mc_parse_reply(buf, MC_REPLY_HDR + 16, &e, &more,
					  &data, &len) && e == 1 && !more &&
	      len == 15 && !memcmp(data, "Unknown command", 15), "bad parse");
	CHECK("mc.reply_short", mc_parse_reply(buf, 8, &e, &more, &data,
					       &len) == -EPROTO, "accepted");
	CHECK("mc.reply_len_past_end",
	      mc_parse_reply(buf, MC_REPLY_HDR + 4, &e, &more, &data,
			     &len) == -EPROTO, "accepted");
	rep->len = 4000;
	CHECK("mc.reply_len_huge", mc_parse_reply(buf, sizeof(buf), &e, &more,
						  &data, &len) == -EPROTO,
	      "accepted");

	memset(buf, 0, sizeof(buf));
	nt->magic = MC_MAGIC;
	nt->version = MC_VERSION;
	nt->type = MC_NOTIFY_SOCKET;
	strcpy(nt->data, "/run/umarm/dev/dev/mconsole");
	nt->len = strlen(nt->data) + 1;
	CHECK("mc.notify", !mc_parse_notify(buf, MC_NOTIFY_HDR + nt->len,
					    &type, &data, &len) &&
	      type == MC_NOTIFY_SOCKET && len == strlen(nt->data) &&
	      !memcmp(data, nt->data, len), "bad parse");
	nt->magic = 0x12345678;
	CHECK("mc.notify_magic", mc_parse_notify(buf, sizeof(buf), &type,
						 &data, &len) == -EPROTO,
	      "accepted");
}

/**
 * test_mc_exchange() - mc_command() against a fake UML on a real socket
 */
static void test_mc_exchange(void)
{
	char buf[1], out[2048], path[64];
	int n, p[2], st, uerr;
	pid_t pid;

	snprintf(path, sizeof(path), "/tmp/umarm-unit-%d.sock", getpid());
	if (pipe(p))
		return;
	pid = fork();
	if (!pid) {
		close(p[0]);
		fake_uml(path, p[1]);
	}
	close(p[1]);
	n = read(p[0], buf, 1);
	close(p[0]);
	n = mc_command(path, "version", out, sizeof(out), 2000, &uerr);
	CHECK("mc.exchange", !n && !uerr && !strcmp(out, "version#0"),
	      "rc=%d err=%d out='%s'", n, uerr, out);
	n = mc_command(path, "long", out, sizeof(out), 2000, &uerr);
	CHECK("mc.exchange_more", !n && !strcmp(out, "long#0long#1long#2"),
	      "rc=%d out='%s'", n, out);
	n = mc_command(path, "bad", out, sizeof(out), 2000, &uerr);
	CHECK("mc.exchange_err", !n && uerr == 1, "rc=%d err=%d", n, uerr);
	n = mc_command(path, "quit", out, sizeof(out), 2000, &uerr);
	waitpid(pid, &st, 0);
	CHECK("mc.fake_uml_ok", WIFEXITED(st) && !WEXITSTATUS(st),
	      "fake UML status %d", st);
	n = mc_command(path, "version", out, sizeof(out), 200, &uerr);
	CHECK("mc.no_listener", n == -ECONNREFUSED, "rc=%d", n);
	unlink(path);
	snprintf(path, sizeof(path), "/tmp/umarm-unit-%d.missing/mconsole",
		 getpid());
	n = mc_command(path, "version", out, sizeof(out), 200, &uerr);
	CHECK("mc.no_socket", n == -ENOENT, "rc=%d", n);
}

/**
 * test_atomic() - write_file_atomic() replaces, never truncates
 */
static void test_atomic(void)
{
	char path[64], *buf;
	ssize_t n;

	snprintf(path, sizeof(path), "/tmp/umarm-unit-%d.state", getpid());
	write_file_atomic(path, "old\n", 4, 0644);
	CHECK("atomic.write", !write_file_atomic(path, "new contents\n", 13,
						 0644), "failed");
	n = read_file(path, &buf, 100);
	CHECK("atomic.read", n == 13 && !strcmp(buf, "new contents\n"),
	      "n=%zd", n);
	free(buf);
	unlink(path);
	snprintf(path, sizeof(path), "/tmp/umarm-unit-%d.missing/x", getpid());
	CHECK("atomic.enoent", write_file_atomic(path, "a", 1, 0644) == -ENOENT,
	      "failed");
}

/**
 * test_nif() - the runtime net file and the forwards of "net add"
 */
static void test_nif(void)
{
	struct conf_port p[CONF_MAX_PORTS];
	char buf[PATH_LEN + NIF_PORTS_LEN + 128], ports[NIF_PORTS_LEN];
	struct nif a = { .id = 3, .passt = 4242, .plat = 7, .hotplug = 1 }, b;
	unsigned int id;
	int n;

	snprintf(a.backend, sizeof(a.backend), "vhost-user");
	snprintf(a.ports, sizeof(a.ports), "tcp:8080:80,udp:127.0.0.1:53:53");
	snprintf(a.sock, sizeof(a.sock), "/run/umarm/my vm/net3.sock");
	CHECK("nif.format", !nif_format(&a, buf, sizeof(buf)) &&
	      !strcmp(buf, "net3 vhost-user 4242 virtio-uml.7 hotplug tcp:8080:80,udp:127.0.0.1:53:53 /run/umarm/my vm/net3.sock\n"),
	      "got '%s'", buf);
	CHECK("nif.roundtrip", !nif_parse(buf, &b) && b.id == 3 &&
	      b.passt == 4242 && b.plat == 7 && b.hotplug &&
	      !strcmp(b.backend, "vhost-user") && !strcmp(b.ports, a.ports) &&
	      !strcmp(b.sock, a.sock), "sock '%s' ports '%s'", b.sock,
	      b.ports);
	CHECK("nif.relay", !nif_parse("net0 relay 12 vec0 boot - -", &b) &&
	      b.plat == -1 && !b.hotplug && !*b.ports && !*b.sock &&
	      b.passt == 12, "plat %d", b.plat);
	CHECK("nif.small_buf", nif_format(&a, buf, 20) == -ENOSPC, "fits?");
	CHECK("nif.bad_backend",
	      nif_parse("net1 tap 1 virtio-uml.1 hotplug - /s", &b), "taken");
	CHECK("nif.bad_origin",
	      nif_parse("net1 relay 1 vec0 later - -", &b), "taken");
	CHECK("nif.bad_device",
	      nif_parse("net1 vhost-user 1 virtio-uml.x hotplug - /s", &b),
	      "taken");
	CHECK("nif.bad_id", nif_parse("net9 relay 1 vec0 boot - -", &b) &&
	      nif_parse("eth1 relay 1 vec0 boot - -", &b), "taken");
	CHECK("nif.no_socket",
	      nif_parse("net1 vhost-user 1 virtio-uml.1 hotplug -", &b),
	      "taken");
	CHECK("nif.truncated", nif_parse("net1 vhost-user", &b), "taken");
	CHECK("nif.id", !nif_id_parse("net2", &id) && id == 2 &&
	      !nif_id_parse("5", &id) && id == 5 &&
	      nif_id_parse("net8", &id) && nif_id_parse("net", &id) &&
	      nif_id_parse("eth0", &id) && nif_id_parse("net1x", &id),
	      "id %u", id);

	n = nif_ports_parse("8080:80, udp:5353:53,127.0.0.1:2222:22", p,
			    CONF_MAX_PORTS);
	CHECK("nif.ports", n == 3 && p[0].host == 8080 && !p[0].udp &&
	      p[1].udp && p[1].guest == 53 && !strcmp(p[2].addr, "127.0.0.1"),
	      "n %d", n);
	CHECK("nif.ports_empty", nif_ports_parse("", p, CONF_MAX_PORTS) == 0 &&
	      nif_ports_parse("  ", p, CONF_MAX_PORTS) == 0, "not empty");
	CHECK("nif.ports_bad", nif_ports_parse("8080:80 99999:1", p,
					       CONF_MAX_PORTS) == -EINVAL &&
	      nif_ports_parse("80", p, CONF_MAX_PORTS) == -EINVAL,
	      "accepted");
	CHECK("nif.ports_too_many", nif_ports_parse("1:1 2:2 3:3", p, 2) ==
	      -E2BIG, "accepted");
	CHECK("nif.ports_format", !nif_ports_format(p, 0, ports,
						    sizeof(ports)) &&
	      !*ports, "got '%s'", ports);
	n = nif_ports_parse("udp:127.0.0.1:53:53,8080:80", p, CONF_MAX_PORTS);
	CHECK("nif.ports_format_roundtrip", n == 2 &&
	      !nif_ports_format(p, n, ports, sizeof(ports)) &&
	      !strcmp(ports, "udp:127.0.0.1:53:53,tcp:8080:80"), "got '%s'",
	      ports);
	CHECK("nif.ports_format_small",
	      nif_ports_format(p, n, ports, 10) == -ENOSPC, "fits?");
}

/**
 * main() - run all unit tests
 *
 * Return: 0 if all passed, 1 otherwise
 */
int main(void)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	test_conf_valid();
	test_conf_errors();
	test_conf_limits();
	test_names();
	test_sizes();
	test_mc_framing();
	test_mc_exchange();
	test_atomic();
	test_nif();
	printf("%d cases, %d failed\n", cases, failures);
	return failures ? 1 : 0;
}
