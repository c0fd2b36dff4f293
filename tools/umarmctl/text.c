// SPDX-License-Identifier: GPL-2.0-or-later
/* umarmctl - manage User-Mode Linux instances
 *
 * text.c - text from the guest: safe for state files, terminals and JSON
 *
 * The guest writes lines to /proc/mconsole, panics with a message, prints
 * on its console: some of that ends up in the state files, in "status",
 * in "start"'s error messages and in --json output.  A guest is untrusted,
 * so its text must not add lines to a "key=value" file, send escape
 * sequences to the host user's terminal (ESC, CSI, OSC: C0 and C1 control
 * characters), or make JSON invalid (bytes that are not UTF-8).
 */

#include <string.h>

#include "text.h"

/**
 * utf8_seq_len() - length of a valid, printable UTF-8 sequence at @s
 * @s:		NUL-terminated string (a NUL ends any sequence)
 *
 * Accepts the shortest encodings of U+00A0..U+10FFFF minus the UTF-16
 * surrogates (RFC 3629), and printable ASCII.  C0 controls, DEL and C1
 * controls (U+0080..U+009F: 8-bit CSI is U+009B) are not printable.
 *
 * Return: 1 to 4, or 0 if @s does not start with such a sequence
 */
size_t utf8_seq_len(const char *s)
{
	return utf8_len_n(s, 4);
}

/**
 * utf8_len_n() - utf8_seq_len() within a buffer of @avail bytes
 * @s:		buffer, not necessarily NUL-terminated
 * @avail:	bytes available at @s, at least 1
 *
 * Return: 1 to 4, or 0 if @s does not start with a complete printable
 *	   character
 */
size_t utf8_len_n(const char *s, size_t avail)
{
	const unsigned char *u = (const unsigned char *)s;
	unsigned int cp;
	size_t n, i;

	if (u[0] >= 0x20 && u[0] < 0x7f)
		return 1;
	if (u[0] >= 0xc2 && u[0] <= 0xdf)
		n = 2, cp = u[0] & 0x1f;
	else if (u[0] >= 0xe0 && u[0] <= 0xef)
		n = 3, cp = u[0] & 0x0f;
	else if (u[0] >= 0xf0 && u[0] <= 0xf4)
		n = 4, cp = u[0] & 0x07;
	else
		return 0;
	if (n > avail)
		return 0;
	for (i = 1; i < n; i++) {
		if ((u[i] & 0xc0) != 0x80)
			return 0;
		cp = cp << 6 | (u[i] & 0x3f);
	}
	if (cp < 0xa0 || (n == 3 && cp < 0x800) || (n == 4 && cp < 0x10000) ||
	    (cp >= 0xd800 && cp <= 0xdfff) || cp > 0x10ffff)
		return 0;
	return n;
}

/**
 * text_clean() - make guest text one harmless line (or lines), in place
 * @s:		NUL-terminated string, rewritten
 * @flags:	TEXT_KEEP_NL to keep newlines and tabs
 *
 * Each byte that is not part of a printable character (see
 * utf8_seq_len()) becomes '?': the result is valid UTF-8 without control
 * characters, no longer than the input.
 */
void text_clean(char *s, int flags)
{
	while (*s) {
		size_t n = utf8_seq_len(s);

		if (n) {
			s += n;
			continue;
		}
		if (!((flags & TEXT_KEEP_NL) && (*s == '\n' || *s == '\t')))
			*s = '?';
		s++;
	}
}

/**
 * text_escape() - a copy of @s fit for a terminal, its odd bytes visible
 * @s:		NUL-terminated string, any bytes
 * @out:	the copy: printable characters (and newlines and tabs) as
 *		they are, every other byte as \xNN
 * @len:	size of @out; the copy is cut short to fit
 *
 * For what a user or a file gave (an instance's name, a value from its
 * configuration): unlike text_clean(), which replaces, the user sees
 * which bytes are in there, to fix them.
 *
 * Return: @out
 */
char *text_escape(const char *s, char *out, size_t len)
{
	size_t o = 0;

	while (*s && o + 5 < len) {
		size_t n = utf8_seq_len(s);

		if (n || *s == '\n' || *s == '\t') {
			n = n ? n : 1;
			if (o + n >= len)
				break;
			memcpy(out + o, s, n);
			o += n;
			s += n;
			continue;
		}
		o += snprintf(out + o, len - o, "\\x%02x", (unsigned char)*s++);
	}
	if (len)
		out[o] = 0;
	return out;
}

/**
 * tty_str() - a value from a configuration, fit to print (text_escape())
 * @s:		the value
 *
 * For tables and messages that show paths and names a file gave: four
 * buffers, used in turn, so up to four values fit in one printf().
 *
 * Return: the escaped copy
 */
const char *tty_str(const char *s)
{
	static char buf[4][4 * TTY_STR_MAX];
	static unsigned int next;

	return text_escape(s, buf[next++ % 4], sizeof(buf[0]));
}

/**
 * json_put() - print a JSON string literal, valid whatever @s holds
 * @f:		output
 * @s:		NUL-terminated string, any bytes
 *
 * Quotes and backslashes are escaped, control characters (C0, DEL, C1)
 * are written as \uXXXX, and bytes that are not UTF-8 as U+FFFD, the
 * replacement character: JSON is Unicode text (RFC 8259, section 8.1).
 */
void json_put(FILE *f, const char *s)
{
	fputc('"', f);
	while (*s) {
		unsigned char ch = *s;
		size_t n = utf8_seq_len(s);

		if (ch == '"' || ch == '\\') {
			fprintf(f, "\\%c", ch);
		} else if (n) {
			fwrite(s, 1, n, f);
			s += n;
			continue;
		} else if (ch < 0x20 || ch == 0x7f) {
			fprintf(f, "\\u%04x", ch);
		} else if (ch == 0xc2 && (unsigned char)s[1] >= 0x80 &&
			   (unsigned char)s[1] < 0xa0) {
			/* C1 control, valid UTF-8 but not printable */
			fprintf(f, "\\u%04x", (unsigned char)s[1]);
			s++;
		} else {
			fputs("\\ufffd", f);
		}
		s++;
	}
	fputc('"', f);
}

/**
 * sgr_len() - length of an SGR (colour) escape sequence at @s
 * @s:		buffer starting with ESC
 * @avail:	bytes available
 *
 * ESC [ digits and ';' m: colours and bold, which boot messages use and
 * which cannot move the cursor, set titles or answer back.
 *
 * Return: its length, or 0 if @s is not a complete one
 */
static size_t sgr_len(const char *s, size_t avail)
{
	size_t i;

	if (avail < 3 || s[0] != '\033' || s[1] != '[')
		return 0;
	for (i = 2; i < avail && i < 64; i++) {
		if (s[i] == 'm')
			return i + 1;
		if ((s[i] < '0' || s[i] > '9') && s[i] != ';')
			return 0;
	}
	return 0;
}

/**
 * term_filter() - guest console output, made safe for the user's terminal
 * @in:		bytes from the guest
 * @n:		how many
 * @out:	at least @n bytes
 *
 * Keeps printable UTF-8, newlines, tabs, carriage returns before a
 * newline and SGR colours; every other byte (other escape sequences:
 * titles, OSC 52 clipboard writes, answerback requests; C1 controls;
 * bytes that are not UTF-8) becomes '?'.  Call it on whole lines: a
 * character or sequence cut at the end of @in is not recognised.
 *
 * Return: bytes written to @out (at most @n)
 */
size_t term_filter(const char *in, size_t n, char *out)
{
	size_t i = 0, o = 0;

	while (i < n) {
		size_t k = utf8_len_n(in + i, n - i);

		if (!k && (in[i] == '\n' || in[i] == '\t' ||
			   (in[i] == '\r' && i + 1 < n && in[i + 1] == '\n')))
			k = 1;
		if (!k && (k = sgr_len(in + i, n - i)) == 0) {
			out[o++] = '?';
			i++;
			continue;
		}
		memcpy(out + o, in + i, k);
		o += k;
		i += k;
	}
	return o;
}

/**
 * json_str() - print a JSON string literal on stdout
 * @s:		string, any bytes (see json_put())
 */
void json_str(const char *s)
{
	json_put(stdout, s);
}
