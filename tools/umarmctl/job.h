/* SPDX-License-Identifier: GPL-2.0-or-later
 * umarmctl - manage User-Mode Linux instances
 *
 * job.h - the files and the console line of an exec job
 */

#ifndef UMARM_JOB_H
#define UMARM_JOB_H

#include <stddef.h>

#include "sha256.h"

#define JOB_LINE_MAX	768	/* fits a control request ("type " + line) */

/**
 * struct job_digests - SHA-256 of the job files, as the host wrote them
 * @cmd:	"cmd", the quoted command
 * @in:		"in", its standard input
 * @run:	"run", the wrapper
 */
struct job_digests {
	char cmd[SHA256_HEX_LEN];
	char in[SHA256_HEX_LEN];
	char run[SHA256_HEX_LEN];
};

char *job_cmd_text(char **cmd, int ncmd, size_t *len);
char *job_run_text(const char *gdir);
int job_line(const char *gdir, const struct job_digests *dg, char *buf,
	     size_t len);

#endif /* UMARM_JOB_H */
