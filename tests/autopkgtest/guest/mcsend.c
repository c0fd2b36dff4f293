// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * mcsend.c - send one command to a UML kernel's management console
 *
 * Usage: mcsend SOCKET COMMAND
 *
 * A host-side helper of the gates, not a guest program: when a gate times
 * out, run-gate asks the hung kernel for "sysrq t" (every task's state and
 * stack) before it kills it, so that a hang that shows once leaves more
 * than the host's view behind.  The client is umarmctl's
 * (tools/umarmctl/mconsole.c), linked in by build.sh.  Prints the reply;
 * exit status 0 when UML answered without error, 1 otherwise (with the
 * reason on stderr).
 */
#include <stdio.h>
#include <string.h>

#include "mconsole.h"

/* Long enough for a task dump of a small guest; the rest is cut */
static char reply[256 * 1024];

int main(int argc, char **argv)
{
	int rc, uml_err;

	if (argc != 3) {
		fprintf(stderr, "usage: mcsend SOCKET COMMAND\n");
		return 2;
	}
	rc = mc_command(argv[1], argv[2], reply, sizeof(reply), 5000, &uml_err);
	if (rc) {
		fprintf(stderr, "mcsend: %s: %s\n", argv[1], strerror(-rc));
		return 1;
	}
	fputs(reply, stdout);
	if (uml_err) {
		fprintf(stderr, "mcsend: UML refused '%s'\n", argv[2]);
		return 1;
	}
	return 0;
}
