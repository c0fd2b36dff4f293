// SPDX-License-Identifier: GPL-2.0-or-later
/* umarmctl - manage User-Mode Linux instances
 *
 * log.c - messages on stderr
 *
 * Errors and warnings go to stderr with the "umarmctl: " prefix, so that
 * they stay apart from the output scripts parse (list, status, exec).  The
 * supervisor sets a prefix naming the instance, because under systemd its
 * stderr ends up in the journal next to other instances.
 */

#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <errno.h>

#include "log.h"
#include "text.h"

int log_quiet;
int log_verbose;
int log_mute;
static char log_prefix[96] = "umarmctl";

/**
 * log_set_prefix() - set the prefix of every message
 * @prefix:	new prefix, e.g. "umarmctl[dev]"
 */
void log_set_prefix(const char *prefix)
{
	snprintf(log_prefix, sizeof(log_prefix), "%s", prefix);
}

/**
 * vlog() - print one message line on stderr
 * @level:	"error", "warning" or NULL for plain information
 * @fmt:	printf() format
 * @ap:		arguments
 */
static void vlog(const char *level, const char *fmt, va_list ap)
{
	int saved = errno;
	char buf[2048], safe[4 * sizeof(buf)];
	size_t n;

	n = snprintf(buf, sizeof(buf), "%s: %s%s", log_prefix,
		     level ? level : "", level ? ": " : "");
	if (n < sizeof(buf))
		vsnprintf(buf + n, sizeof(buf) - n, fmt, ap);
	n = strlen(buf);
	if (n && buf[n - 1] != '\n' && n < sizeof(buf) - 1) {
		buf[n++] = '\n';
		buf[n] = 0;
	}
	/* names and values the user or a file gave: no terminal escapes */
	fputs(text_escape(buf, safe, sizeof(safe)), stderr);
	fflush(stderr);
	errno = saved;
}

/**
 * err() - report an error
 * @fmt:	printf() format, should name the instance, the file and the fix
 */
void err(const char *fmt, ...)
{
	va_list ap;

	if (log_mute)
		return;
	va_start(ap, fmt);
	vlog("error", fmt, ap);
	va_end(ap);
}

/**
 * warn() - report a warning
 * @fmt:	printf() format
 */
void warn(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vlog("warning", fmt, ap);
	va_end(ap);
}

/**
 * info() - report progress, unless --quiet
 * @fmt:	printf() format
 */
void info(const char *fmt, ...)
{
	va_list ap;

	if (log_quiet)
		return;
	va_start(ap, fmt);
	vlog(NULL, fmt, ap);
	va_end(ap);
}

/**
 * dbg() - report details, only with --verbose
 * @fmt:	printf() format
 */
void dbg(const char *fmt, ...)
{
	va_list ap;

	if (!log_verbose)
		return;
	va_start(ap, fmt);
	vlog("debug", fmt, ap);
	va_end(ap);
}
