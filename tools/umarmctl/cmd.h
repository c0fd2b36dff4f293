/* SPDX-License-Identifier: GPL-2.0-or-later
 * umarmctl - manage User-Mode Linux instances
 *
 * cmd.h - the verbs, and what they share
 */

#ifndef UMARM_CMD_H
#define UMARM_CMD_H

#include "conf.h"
#include "paths.h"

/**
 * struct ctx - global options
 * @sc:		scope selected by --user/--system (or the uid)
 * @json:	machine-readable output
 * @no_systemd:	never go through systemctl
 * @argv0:	how we were called, to re-exec ourselves
 */
struct ctx {
	struct scope sc;
	int json;
	int no_systemd;
	const char *argv0;
};

int conf_load(const struct inst *in, struct conf *c);
int conf_save(const struct inst *in, const struct conf *c);
int inst_open(struct ctx *x, const char *name, struct inst *in,
	      struct conf *c);
int use_systemd(struct ctx *x);
int systemctl(struct ctx *x, const char *verb, const char *name);
void json_str(const char *s);

int cmd_create(struct ctx *x, int argc, char **argv);
int cmd_rm(struct ctx *x, int argc, char **argv);
int cmd_rename(struct ctx *x, int argc, char **argv);
int cmd_clone(struct ctx *x, int argc, char **argv);
int cmd_list(struct ctx *x, int argc, char **argv);
int cmd_status(struct ctx *x, int argc, char **argv);
int cmd_check(struct ctx *x, int argc, char **argv);
int cmd_config(struct ctx *x, int argc, char **argv);

int cmd_start(struct ctx *x, int argc, char **argv);
int cmd_run(struct ctx *x, int argc, char **argv);
int cmd_stop(struct ctx *x, int argc, char **argv);
int cmd_kill(struct ctx *x, int argc, char **argv);
int cmd_restart(struct ctx *x, int argc, char **argv);
int cmd_pause(struct ctx *x, int argc, char **argv);
int cmd_resume(struct ctx *x, int argc, char **argv);
int cmd_mconsole(struct ctx *x, int argc, char **argv);
int cmd_enable(struct ctx *x, int argc, char **argv);
int cmd_disable(struct ctx *x, int argc, char **argv);
int cmd_autostart(struct ctx *x, int argc, char **argv);

int cmd_console(struct ctx *x, int argc, char **argv);
int cmd_logs(struct ctx *x, int argc, char **argv);
int cmd_exec(struct ctx *x, int argc, char **argv);
int cmd_shell(struct ctx *x, int argc, char **argv);

int cmd_disk(struct ctx *x, int argc, char **argv);
int cmd_port_forward(struct ctx *x, int argc, char **argv);
int cmd_usb(struct ctx *x, int argc, char **argv);
int cmd_net(struct ctx *x, int argc, char **argv);

int console_attach(const struct inst *in, int quiet_banner);
int exec_in_guest(const struct inst *in, char **cmd, int ncmd,
		  int pass_stdin, int timeout_s);

#endif /* UMARM_CMD_H */
