/* SPDX-License-Identifier: GPL-2.0-or-later
 * umarmctl - manage User-Mode Linux instances
 *
 * util.h - small helpers: files, sizes, strings, time
 */

#ifndef UMARM_UTIL_H
#define UMARM_UTIL_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))
#define PATH_LEN	4096

char *xstrdup(const char *s);
char *xasprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
int pathf(char *buf, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

int write_all(int fd, const void *buf, size_t len);
int write_file_atomic(const char *path, const void *buf, size_t len,
		      mode_t mode);
ssize_t read_file(const char *path, char **buf, size_t max);
int mkdir_p(const char *path, mode_t mode);
int copy_file_sparse(const char *src, const char *dst, mode_t mode,
		     int src_flags);
int fsync_dir_of(const char *path);

int parse_size(const char *s, uint64_t *out);
void format_size(uint64_t v, char *buf, size_t len);
int parse_uint(const char *s, unsigned long max, unsigned long *out);
int sh_quote(const char *in, char *out, size_t len);
pid_t spawn_argv(char *const argv[], int *out);
int run_argv(char *const argv[]);
int busid_check(const char *s);
void close_from(int lowfd);

uint64_t now_ms(void);
uint64_t boot_ms(void);
void sleep_ms(unsigned int ms);

int set_cloexec(int fd, int on);
int set_nonblock(int fd);
int bind_unix(const char *path, int type);

#endif /* UMARM_UTIL_H */
