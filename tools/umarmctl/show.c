// SPDX-License-Identifier: GPL-2.0-or-later
/* umarmctl - manage User-Mode Linux instances
 *
 * show.c - verbs: list, status, config, check
 */

#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cmd.h"
#include "confjson.h"
#include "disk.h"
#include "host.h"
#include "lock.h"
#include "log.h"
#include "state.h"
#include "text.h"
#include "util.h"

/**
 * struct row - what list and status show about one instance
 */
struct row {
	char name[NAME_MAX_LEN + 1];
	int running;
	struct state st;
	struct state last;
	struct conf c;
	int conf_ok;
	int unknown;
};

/**
 * row_load() - gather the facts about an instance
 * @in:		instance
 * @r:		row to fill
 *
 * Another user's instance may be unreadable (mode 0700): its state is
 * "unknown" (@r->unknown holds the errno), never a guess of "stopped".
 */
static void row_load(const struct inst *in, struct row *r)
{
	char path[PATH_LEN];
	int run;

	memset(r, 0, sizeof(*r));
	snprintf(r->name, sizeof(r->name), "%s", in->name);
	log_mute = 1;
	r->conf_ok = !conf_load(in, &r->c);
	log_mute = 0;
	run = inst_running(in);
	if (run < 0) {
		r->unknown = -run;
		snprintf(r->st.status, sizeof(r->st.status), "unknown");
		return;
	}
	r->running = run;
	inst_path(in, path, 1, STATE_FILE);
	if (r->running)
		state_read(path, &r->st);
	inst_path(in, path, 0, LAST_FILE);
	state_read(path, &r->last);
	if (!r->running) {
		struct state dead;

		/* a runtime state without a live supervisor: it was killed */
		inst_path(in, path, 1, STATE_FILE);
		if (!state_read(path, &dead) && *dead.status) {
			snprintf(r->last.status, sizeof(r->last.status),
				 "failed");
			snprintf(r->last.exit, sizeof(r->last.exit),
				 "supervisor (pid %d) died while %s",
				 (int)dead.supervisor, dead.status);
		}
	}
	if (!r->running)
		snprintf(r->st.status, sizeof(r->st.status), "%s",
			 r->conf_ok ? "stopped" : "broken");
	else if (!*r->st.status)
		snprintf(r->st.status, sizeof(r->st.status), "starting");
}

/**
 * print_uptime() - format a duration since a wall-clock time
 * @since_ms:	start, ms since the epoch
 * @buf:	output
 * @len:	size of @buf
 */
static void print_uptime(uint64_t since_ms, char *buf, size_t len)
{
	uint64_t s = since_ms ? (now_ms() - since_ms) / 1000 : 0;

	if (!since_ms)
		snprintf(buf, len, "-");
	else if (s < 120)
		snprintf(buf, len, "%llus", (unsigned long long)s);
	else if (s < 7200)
		snprintf(buf, len, "%llumin", (unsigned long long)s / 60);
	else if (s < 172800)
		snprintf(buf, len, "%lluh", (unsigned long long)s / 3600);
	else
		snprintf(buf, len, "%llud", (unsigned long long)s / 86400);
}

/**
 * row_boot() - when the guest's current boot began
 * @r:		row of a running instance
 *
 * The kernel's start, or its re-execution for the last reboot: "booted
 * in" is this boot's time, not the time since the first start.
 *
 * Return: wall-clock ms
 */
static uint64_t row_boot(const struct row *r)
{
	return r->st.boot ? r->st.boot : r->st.started;
}

/**
 * row_json() - print one instance as a JSON object
 * @x:		global options
 * @r:		row
 */
static void row_json(struct ctx *x, const struct row *r)
{
	const struct conf *c = r->conf_ok ? &r->c : NULL;

	/* what an unreadable configuration would say is unknown: null */
	printf("{\"name\":");
	json_str(r->name);
	printf(",\"scope\":\"%s\",\"state\":", x->sc.user ? "user" : "system");
	json_str(r->st.status);
	printf(",\"flavour\":");
	c ? json_str(conf_flavour(c)) : (void)printf("null");
	if (c)
		printf(",\"memory\":%llu,\"cpus\":%u,\"network\":",
		       (unsigned long long)c->memory, c->cpus);
	else
		printf(",\"memory\":null,\"cpus\":null,\"network\":");
	if (r->running || c)
		json_str(r->running ? r->st.net : conf_net_name(c));
	else
		printf("null");
	printf(",\"image\":");
	c ? json_str(c->image) : (void)printf("null");
	printf(",\"pid\":%d,\"kernel_pid\":%d,\"started_ms\":%llu,\"boot_ms\":%llu,\"ready_ms\":%llu",
	       r->running ? (int)r->st.supervisor : 0,
	       r->running ? (int)r->st.uml : 0,
	       (unsigned long long)(r->running ? r->st.started : 0),
	       (unsigned long long)(r->running ? row_boot(r) : 0),
	       (unsigned long long)(r->running ? r->st.ready : 0));
	printf(",\"last_exit\":");
	json_str(r->last.exit);
	printf("}");
}

/**
 * name_cmp() - qsort() comparison of two instance names
 * @a:		pointer to the first name
 * @b:		pointer to the second
 *
 * Return: as strcmp()
 */
static int name_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/**
 * list_names() - the names of a scope's instances, from their files
 * @x:		global options, for the scope
 * @n:		number of names
 *
 * An instance is a NAME.conf in CONFDIR/instances: create writes it
 * last, as its commit point.
 *
 * Return: the names, sorted, each to free() as the array is
 */
static char **list_names(struct ctx *x, int *n)
{
	char dir[PATH_LEN], **names = NULL, **nn;
	struct dirent *de;
	DIR *d;

	*n = 0;
	pathf(dir, "%s/" INSTANCES_DIR, x->sc.confdir);
	d = opendir(dir);
	while (d && (de = readdir(d))) {
		size_t l = strlen(de->d_name);

		if (l < 6 || strcmp(de->d_name + l - 5, ".conf") ||
		    de->d_name[0] == '.')
			continue;
		nn = realloc(names, (*n + 1) * sizeof(*names));
		if (!nn)
			break;
		names = nn;
		names[*n] = xstrdup(de->d_name);
		names[(*n)++][l - 5] = 0;
	}
	if (d)
		closedir(d);
	if (*n)
		qsort(names, *n, sizeof(*names), name_cmp);
	return names;
}

/**
 * row_table() - print one instance as a line of list's table
 * @r:		row
 *
 * What an unreadable configuration would say is printed as "-".
 */
static void row_table(const struct row *r)
{
	char mem[32], up[32], cpus[16] = "-";

	format_size(r->conf_ok ? r->c.memory : 0, mem, sizeof(mem));
	if (r->conf_ok)
		snprintf(cpus, sizeof(cpus), "%u", r->c.cpus);
	print_uptime(r->running ? r->st.started : 0, up, sizeof(up));
	printf("%-20s %-9s %-7s %-7s %-6s %-8s %-7s %s\n", r->name,
	       r->st.status, r->conf_ok ? conf_flavour(&r->c) : "-",
	       r->conf_ok ? mem : "-", cpus,
	       r->running ? r->st.net :
	       r->conf_ok ? conf_net_name(&r->c) : "-", up,
	       r->conf_ok ? tty_str(r->c.image) : "-");
}

/**
 * cmd_list() - umarmctl list [--json]
 * @x:		global options
 * @argc:	arguments after the verb
 * @argv:	arguments
 *
 * Return: exit code
 */
int cmd_list(struct ctx *x, int argc, char **argv)
{
	int n, i, first = 1, shown = 0;
	char **names;

	(void)argv;
	if (argc)
		return usage_error("list");
	names = list_names(x, &n);
	if (x->json)
		printf("[");
	else if (n)
		printf("%-20s %-9s %-7s %-7s %-6s %-8s %-7s %s\n", "NAME",
		       "STATE", "FLAVOUR", "MEMORY", "CPUS", "NETWORK", "UPTIME",
		       "IMAGE");
	for (i = 0; i < n; i++) {
		struct inst in;
		struct row r;

		if (inst_init(&in, &x->sc, names[i]))
			continue;	/* a stray file: said, not counted */
		row_load(&in, &r);
		shown++;
		if (!x->json) {
			row_table(&r);
			continue;
		}
		if (!first)
			printf(",");
		row_json(x, &r);
		first = 0;
	}
	if (x->json)
		printf("]\n");
	else if (!n)
		fprintf(stderr, "No %s instances. Create one with 'umarmctl create NAME'.\n",
			x->sc.user ? "per-user" : "system");
	else
		printf("\n%d instance%s listed.\n", shown, shown == 1 ? "" : "s");
	for (i = 0; i < n; i++)
		free(names[i]);
	free(names);
	return 0;
}

/**
 * status_running() - the lines of status about a running instance
 * @x:		global options
 * @r:		row
 */
static void status_running(struct ctx *x, const struct row *r)
{
	char up[32], when[64];
	time_t t = r->st.started / 1000;

	strftime(when, sizeof(when), "%Y-%m-%d %H:%M:%S", localtime(&t));
	print_uptime(r->st.started, up, sizeof(up));
	printf("        Since: %s (%s ago)", when, up);
	if (r->st.ready)
		printf("; booted in %.2fs", (r->st.ready - row_boot(r)) / 1000.0);
	printf("\n   Supervisor: %d   Kernel pid: %d%s\n",
	       (int)r->st.supervisor, (int)r->st.uml,
	       use_systemd(x) ? "   (umarm@ unit)" : "");
	if (*r->st.mconsole)
		printf("     Mconsole: %s\n", r->st.mconsole);
}

/**
 * status_conf() - the lines of status from the configuration
 * @r:		row, whose configuration loaded
 *
 * Paths come from a file anybody with access to it may have written:
 * escaped (tty_str()).
 */
static void status_conf(const struct row *r)
{
	const struct conf *c = &r->c;
	char k[PATH_LEN], mem[32];
	int d;

	kernel_path(c, k);
	format_size(c->memory, mem, sizeof(mem));
	printf("      Flavour: %s   Memory: %s   CPUs: %u\n",
	       conf_flavour(c), mem, c->cpus);
	printf("       Kernel: %s\n", tty_str(k));
	for (d = 0; d < CONF_MAX_DISKS; d++) {
		if (!c->disk[d].set)
			continue;
		printf("        disk%d: %s%s%s\n", d, tty_str(c->disk[d].file),
		       *c->disk[d].base ? " over " : "",
		       tty_str(c->disk[d].base));
	}
	printf("      Network: %s", conf_net_name(c));
	if (r->running && c->net != NET_NONE)
		printf(" (%s)", r->st.net);
	for (d = 0; d < c->nports; d++)
		printf("%s%s%u:%u", d ? ", " : "; ports ",
		       c->port[d].udp ? "udp:" : "", c->port[d].host,
		       c->port[d].guest);
	printf("\n");
}

/**
 * status_text() - status of one instance as a short readable block
 * @x:		global options
 * @in:		instance
 * @r:		row
 */
static void status_text(struct ctx *x, const struct inst *in,
			const struct row *r)
{
	printf("%s (%s instance) - %s\n", r->name,
	       x->sc.user ? "per-user" : "system", r->st.status);
	if (r->unknown)
		printf("         Note: cannot tell whether it runs: %s: %s (ask its owner, or root)\n",
		       tty_str(in->state), strerror(r->unknown));
	if (r->running)
		status_running(x, r);
	else if (*r->last.status)
		printf("     Last run: %s (%s)\n", r->last.status, r->last.exit);
	if (r->conf_ok)
		status_conf(r);
	printf("       Config: %s\n        State: %s\n", tty_str(in->conf),
	       tty_str(in->state));
}

/**
 * row_active() - is the guest up, as "systemctl status" means active?
 * @r:		the instance's row
 *
 * A guest still booting or already stopping is not (systemd: activating,
 * deactivating: exit 3); a paused one is (a frozen unit is still active).
 *
 * Return: 1 if active
 */
static int row_active(const struct row *r)
{
	return r->running && strcmp(r->st.status, "booting") &&
	       strcmp(r->st.status, "stopping");
}

/**
 * cmd_status() - umarmctl status NAME... [-o json]
 * @x:		global options
 * @argc:	arguments after the verb
 * @argv:	arguments
 *
 * Return: 0 if all named instances are running (or paused), EX_STOPPED (3)
 *	   if one is not, booting and stopping included, as "systemctl status"
 *	   does; EX_FAIL if we cannot tell
 *	   (another user's), other exit codes on error
 */
int cmd_status(struct ctx *x, int argc, char **argv)
{
	int i, rc = 0, n = 0;

	if (x->json)
		printf("[");
	for (i = 0; i < argc; i++) {
		struct inst in;
		struct row r;

		if (inst_init(&in, &x->sc, argv[i])) {
			rc = EX_USAGE;
			continue;
		}
		if (!inst_exists(&in)) {
			err("%s: no such instance; see 'umarmctl list'",
			    in.name);
			rc = EX_NOINST;
			continue;
		}
		/* status only reads: the next verb that works on it repairs */
		if (inst_state_missing(&in))
			warn("%s: its state directory %s is missing; the next command that works on the instance makes it anew",
			     in.name, tty_str(in.state));
		row_load(&in, &r);
		if (n++)
			printf(x->json ? "," : "\n");
		if (x->json)
			row_json(x, &r);
		else
			status_text(x, &in, &r);
		if (!row_active(&r) && !rc)
			rc = r.unknown ? EX_FAIL : EX_STOPPED;
	}
	if (x->json)
		printf("]\n");
	if (!argc)
		return usage_error("status");
	return rc;
}

/**
 * cmd_config() - umarmctl config NAME: print the effective configuration
 * @x:		global options
 * @argc:	arguments after the verb
 * @argv:	arguments
 *
 * In the file's syntax, or with -o json as one object (confjson.c).
 *
 * Return: exit code
 */
int cmd_config(struct ctx *x, int argc, char **argv)
{
	static char buf[CONF_MAX_SIZE];
	struct inst in;
	struct conf c;
	int rc;

	if (argc != 1) {
		return usage_error("config");
	}
	rc = inst_open(x, argv[0], &in, &c);
	if (rc)
		return rc;
	if (x->json) {
		conf_json(&c, in.name, in.conf, conf_flavour(&c));
		return 0;
	}
	if (conf_format(&c, buf, sizeof(buf)) < 0)
		return EX_FAIL;
	/* a file anybody with access may have written: on a terminal,
	 * escaped; to a pipe, as it is (it parses back)
	 */
	if (isatty(1))
		printf("# %s\n%s", tty_str(in.conf), tty_str(buf));
	else
		printf("# %s\n%s", in.conf, buf);
	return 0;
}

/**
 * check_instance() - can this host start the instance?
 * @x:		global options
 * @name:	its name
 * @fails:	failed checks, incremented for each of the instance's
 *
 * Its failures are messages on stderr; the verdict is a line of the report,
 * or with -o json the "instance" member.
 *
 * Return: 0, or an exit code if it cannot be opened
 */
static int check_instance(struct ctx *x, const char *name, int *fails)
{
	char k[PATH_LEN];
	struct inst in;
	struct conf c;
	int rc = inst_open(x, name, &in, &c);

	if (rc) {
		if (x->json)
			printf(",\"instance\":null");
		return rc;
	}
	*fails += !!flavour_check(in.name, c.flavour);
	*fails += !!kernel_check(in.name, &c, k);
	*fails += !!disk_check(&in, &c, 1);
	if (x->json) {
		printf(",\"instance\":{\"name\":");
		json_str(in.name);
		printf(",\"can_start\":%s}", *fails ? "false" : "true");
	} else {
		printf("%-5s %-22s %s\n", *fails ? "FAIL" : "ok", in.name,
		       *fails ? "cannot start (see above)" : "can start");
	}
	return 0;
}

/**
 * cmd_check() - umarmctl check [NAME]: can this host run (this) instance?
 * @x:		global options
 * @argc:	arguments after the verb
 * @argv:	arguments
 *
 * With -o json, one object: "checks", the report's lines as objects
 * (host_check_json()), "instance" (null without NAME) and "ok".
 *
 * Return: 0 if everything needed is there, EX_HOST otherwise
 */
int cmd_check(struct ctx *x, int argc, char **argv)
{
	int fails, rc = 0;

	if (argc > 1)
		return usage_error("check");
	if (x->json) {
		host_check_json();
		printf("{\"checks\":[");
	}
	fails = host_check(1);
	if (x->json)
		printf("]");
	if (argc)
		rc = check_instance(x, argv[0], &fails);
	else if (x->json)
		printf(",\"instance\":null");
	if (x->json)
		printf(",\"ok\":%s}\n", fails || rc ? "false" : "true");
	return rc ? rc : fails ? EX_HOST : 0;
}
