/* SPDX-License-Identifier: GPL-2.0-or-later
 * umarmctl - manage User-Mode Linux instances
 *
 * cmd.h - the verbs, which umarmctl.c dispatches (see README.md for where
 *	   each lives); they call down into the model, inst.h
 */

#ifndef UMARM_CMD_H
#define UMARM_CMD_H

#include "inst.h"

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
int cmd_reboot(struct ctx *x, int argc, char **argv);
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
int cmd_share(struct ctx *x, int argc, char **argv);

/* verbs.c */
int usage_error(const char *verb);

#endif /* UMARM_CMD_H */
