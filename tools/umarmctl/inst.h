/* SPDX-License-Identifier: GPL-2.0-or-later
 * umarmctl - manage User-Mode Linux instances
 *
 * inst.h - the instance model: what the verbs call
 *
 * instance.c opens an instance (conffile.h, below the model, loads and
 * saves its configuration); runctl.c starts, runs and stops it (it
 * alone calls the supervisor, supervise.h); attach.c and
 * exec.c reach a running guest's console and shell.  None of them calls
 * a verb.
 */

#ifndef UMARM_INST_H
#define UMARM_INST_H

#include "conf.h"
#include "conffile.h"
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

/* instance.c */
int inst_open(struct ctx *x, const char *name, struct inst *in,
	      struct conf *c);
int use_systemd(struct ctx *x);
int systemctl(struct ctx *x, const char *verb, const char *name);

/* runctl.c */
int inst_start(struct ctx *x, const struct inst *in, const struct conf *c);
int inst_run(const struct inst *in, const struct conf *c);
int inst_stop(struct ctx *x, const struct inst *in, int hard,
	      unsigned int timeout);
int inst_reboot(struct ctx *x, const struct inst *in);

/* attach.c, exec.c */
int console_attach(const struct inst *in, int quiet_banner);
int exec_in_guest(const struct inst *in, char **cmd, int ncmd,
		  int pass_stdin, int timeout_s);

#endif /* UMARM_INST_H */
