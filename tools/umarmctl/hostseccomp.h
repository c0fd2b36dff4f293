/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef HOSTSECCOMP_H
#define HOSTSECCOMP_H

/* What a failed seccomp_filter_ok() means */
#define NO_SECCOMP_FILTER						\
	": the UML kernel cannot run on this host in any mode, as its stubs install a filter (host kernel without CONFIG_SECCOMP_FILTER, or a container policy refusing seccomp())"

int seccomp_filter_ok(void);
const char *seccomp_mode_ok(void);

#endif /* HOSTSECCOMP_H */
