/* SPDX-License-Identifier: GPL-2.0-or-later
 * umarmctl - manage User-Mode Linux instances
 *
 * log.h - messages on stderr, exit codes
 */

#ifndef UMARM_LOG_H
#define UMARM_LOG_H

/* Exit codes, documented in umarmctl(1), EXIT STATUS */
enum umarm_exit {
	EX_OK		= 0,	/* success */
	EX_FAIL		= 1,	/* generic failure */
	EX_USAGE	= 2,	/* bad command line */
	EX_NOINST	= 3,	/* no such instance */
	EX_STOPPED	= 3,	/* status: not running (as systemctl status) */
	EX_CONFIG	= 4,	/* invalid configuration file */
	EX_STATE	= 5,	/* wrong state: running, not running, busy */
	EX_HOST		= 6,	/* host cannot run it: kernel, page size... */
	EX_TIMEOUT	= 7,	/* operation timed out */
	EX_BOOT		= 8,	/* guest failed to boot */
	EX_EXEC		= 255,	/* exec: umarmctl itself failed */
};

extern int log_quiet;
extern int log_verbose;
extern int log_mute;		/* silence even errors (probing) */

void err(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void info(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void dbg(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void log_set_prefix(const char *prefix);

#endif /* UMARM_LOG_H */
