// SPDX-License-Identifier: GPL-2.0-or-later
/* umarmctl - manage User-Mode Linux instances
 *
 * verbs.c - the table of verbs: name, implementation, usage
 *
 * One place for every verb's usage: "umarmctl --help" lists them all,
 * "umarmctl VERB --help" prints one, and a verb's usage error quotes it.
 * README.md says which file implements each.
 */

#define _GNU_SOURCE
#include <stdio.h>
#include <string.h>

#include "cmd.h"
#include "log.h"
#include "verbs.h"

/* Usage lines: several forms of a verb are separated by '\n' */
static const struct verb verbs[] = {
	{ "create",	cmd_create,	NULL,
	  "create NAME [--image debian|debian-docker|minimal|musl|FILE] [--flavour 4k|16k] [--mem SIZE] [--cpus N] [--disk SIZE] [--network passt|none] [--port HOST:GUEST] [--kernel PATH] [--cmdline ARGS] [--ready MARKER]",
	  .valued = " --image -i --flavour --flavor -f --mem --memory -m --cpus -c --disk -d --network -n --port -p --kernel -k --cmdline -C --ready -r ",
	  .json = JSON_NONE },
	{ "start",	cmd_start,	NULL,	"start NAME... [--attach]", .json = JSON_NONE },
	{ "stop",	cmd_stop,	NULL,	"stop NAME... [--timeout SEC]",
	  .valued = " --timeout -t ", .json = JSON_NONE },
	{ "poweroff",	cmd_stop,	"stop",	NULL, .json = JSON_NONE },
	{ "kill",	cmd_kill,	NULL,	"kill NAME...", .json = JSON_NONE },
	{ "terminate",	cmd_kill,	"kill",	NULL, .json = JSON_NONE },
	{ "restart",	cmd_restart,	NULL,	"restart NAME...", .json = JSON_NONE },
	{ "reboot",	cmd_reboot,	NULL,	"reboot NAME...", .json = JSON_NONE },
	{ "pause",	cmd_pause,	NULL,	"pause NAME...", .json = JSON_NONE },
	{ "resume",	cmd_resume,	NULL,	"resume NAME...", .json = JSON_NONE },
	{ "status",	cmd_status,	NULL,	"status NAME... [-o json]", .json = JSON_ALL },
	{ "list",	cmd_list,	NULL,	"list [-o json|table]", .json = JSON_ALL },
	{ "console",	cmd_console,	NULL,	"console NAME", .json = JSON_NONE },
	{ "login",	cmd_console,	"console", NULL, .json = JSON_NONE },
	{ "shell",	cmd_shell,	NULL,
	  "shell NAME             (the console)\nshell NAME -- CMD [ARG...]   (as exec)",
	  " --timeout -t ", 2, JSON_NONE, EX_EXEC },
	{ "exec",	cmd_exec,	NULL,
	  "exec NAME [--timeout SEC] [--] CMD [ARG...]", " --timeout -t ", 2,
	  JSON_NONE, EX_EXEC },
	{ "logs",	cmd_logs,	NULL,	"logs NAME [-n LINES] [-f]",
	  .valued = " -n --lines ", .json = JSON_NONE },
	{ "rm",		cmd_rm,		NULL,	"rm NAME... [--force]", .json = JSON_NONE },
	{ "remove",	cmd_rm,		"rm",	NULL, .json = JSON_NONE },
	{ "rename",	cmd_rename,	NULL,	"rename NAME NEWNAME", .json = JSON_NONE },
	{ "clone",	cmd_clone,	NULL,	"clone NAME NEWNAME", .json = JSON_NONE },
	{ "config",	cmd_config,	NULL,	"config NAME [-o json]", .json = JSON_ALL },
	{ "disk",	cmd_disk,	NULL,
	  "disk add NAME SIZE\ndisk rm NAME N [--keep]\ndisk resize NAME N SIZE\ndisk list NAME [-o json]", .json = JSON_LIST },
	{ "port-forward", cmd_port_forward, NULL,
	  "port-forward NAME [[tcp:|udp:][ADDR:]HOST:GUEST [--remove]]", .json = JSON_NONE },
	{ "net",	cmd_net,	NULL,
	  "net add NAME [--port [tcp:|udp:][ADDR:]HOST:GUEST]...\nnet rm NAME [netN]\nnet list NAME [-o json]",
	  .valued = " --port ", .json = JSON_LIST },
	{ "share",	cmd_share,	NULL,
	  "share add NAME HOSTDIR [GUESTDIR] [--ro] [--name SHARE] [--transport hostfs|virtiofs]\nshare rm NAME SHARE|GUESTDIR\nshare list NAME [-o json]",
	  .valued = " --name --transport ", .json = JSON_LIST },
	{ "usb",	cmd_usb,	NULL,
	  "usb list [-o json]\nusb attach NAME BUSID\nusb detach NAME BUSID", .json = JSON_LIST },
	{ "mconsole",	cmd_mconsole,	NULL,
	  "mconsole NAME COMMAND...   (version, proc meminfo, sysrq s, help...)",
	  NULL, 2, JSON_NONE, 0 },
	{ "enable",	cmd_enable,	NULL,	"enable NAME...", .json = JSON_NONE },
	{ "disable",	cmd_disable,	NULL,	"disable NAME...", .json = JSON_NONE },
	{ "autostart",	cmd_autostart,	NULL,	"autostart", .json = JSON_NONE },
	{ "check",	cmd_check,	NULL,	"check [NAME] [-o json]", .json = JSON_ALL },
	{ "run",	cmd_run,	NULL,
	  "run NAME   (the supervisor, as umarm@.service runs it)", .json = JSON_NONE },
};

/**
 * verb_find() - look a verb up by name, aliases included
 * @name:	what the user typed
 *
 * Return: its entry, NULL if there is none
 */
const struct verb *verb_find(const char *name)
{
	size_t i;

	for (i = 0; i < sizeof(verbs) / sizeof(verbs[0]); i++)
		if (!strcmp(verbs[i].name, name))
			return &verbs[i];
	return NULL;
}

/**
 * verb_usage() - print one verb's usage lines
 * @f:		stream
 * @name:	verb or alias
 * @first:	what goes before the first line ("Usage:", "usage:")
 */
void verb_usage(FILE *f, const char *name, const char *first)
{
	const struct verb *v = verb_find(name);
	const char *u, *nl;

	if (v && v->alias_of)
		v = verb_find(v->alias_of);
	if (!v)
		return;
	for (u = v->usage; *u; u = *nl ? nl + 1 : nl) {
		nl = strchrnul(u, '\n');
		fprintf(f, "%-6s umarmctl %.*s\n", u == v->usage ? first : "",
			(int)(nl - u), u);
	}
}

/**
 * usage_all() - print the usage summary of every verb
 * @f:		stream
 */
void usage_all(FILE *f)
{
	size_t i;

	fprintf(f, "Usage: umarmctl [--user|--system] [-q] [-v] [-o json|table] [--no-systemd] COMMAND ...\n\n");
	for (i = 0; i < sizeof(verbs) / sizeof(verbs[0]); i++)
		if (verbs[i].usage)
			verb_usage(f, verbs[i].name, "");
	fprintf(f, "\n'umarmctl COMMAND --help' prints one. See umarmctl(1) and umarm.conf(5).\n");
}

/**
 * usage_error() - a verb was called wrongly: say how it is called
 * @verb:	the verb
 *
 * Return: EX_USAGE, for "return usage_error(...)"
 */
int usage_error(const char *verb)
{
	verb_usage(stderr, verb, "usage:");
	return EX_USAGE;
}

/**
 * verb_bad_usage() - the exit status of a bad command line for verb @v
 * @v:		the verb (an alias's own entry will do), or NULL if none
 *		was given
 *
 * exec's status is the guest command's, so 2 could be the command's own:
 * like ssh, exec and shell end with 255 for every failure of umarmctl, a
 * bad global option too (issue 19, item 4).
 *
 * Return: EX_USAGE or the verb's own status
 */
int verb_bad_usage(const struct verb *v)
{
	if (v && v->alias_of)
		v = verb_find(v->alias_of);
	return v && v->bad_usage ? v->bad_usage : EX_USAGE;
}
