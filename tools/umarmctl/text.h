/* SPDX-License-Identifier: GPL-2.0-or-later
 * umarmctl - manage User-Mode Linux instances
 *
 * text.h - text from the guest: safe for state files, terminals and JSON
 */

#ifndef UMARM_TEXT_H
#define UMARM_TEXT_H

#include <stddef.h>
#include <stdio.h>

/* text_clean() flags */
#define TEXT_KEEP_NL	1	/* keep '\n' and '\t' (multi-line output) */

size_t utf8_seq_len(const char *s);
size_t utf8_len_n(const char *s, size_t avail);
void text_clean(char *s, int flags);
char *text_escape(const char *s, char *out, size_t len);
/* the longest value tty_str() escapes whole: a path */
#define TTY_STR_MAX	4096
const char *tty_str(const char *s);
void json_put(FILE *f, const char *s);
void json_str(const char *s);
size_t term_filter(const char *in, size_t n, char *out);

#endif /* UMARM_TEXT_H */
