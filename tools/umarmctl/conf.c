// SPDX-License-Identifier: GPL-2.0-or-later
/* umarmctl - manage User-Mode Linux instances
 *
 * conf.c - instance configuration, see umarm.conf(5)
 *
 * The format is deliberately small: one "key = value" per line, '#' or ';'
 * starts a comment line, blank lines are ignored, keys are case-sensitive,
 * a value runs to the end of the line with surrounding blanks removed.
 * Unknown keys and repeated single-valued keys are errors (with the line
 * number), because a typo that silently changes nothing is worse than a
 * refusal to start.  This parser reads untrusted input in the sense that a
 * user may hand-edit or truncate the file: it is fuzzed (fuzz/).
 */

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "conf.h"

#define DEFAULT_MEMORY		(256ULL << 20)
#define DEFAULT_READY_TIMEOUT	120
#define DEFAULT_STOP_TIMEOUT	30
#define MAX_CPUS		64
#define MAX_TIMEOUT		86400
/* 16 MiB is about the smallest a kernel with a userspace boots in */
#define MIN_MEMORY		(16ULL << 20)
/* UML's physmem is a host file mapping; be generous but bounded */
#define MAX_MEMORY		(1ULL << 40)

/**
 * conf_defaults() - fill in the defaults documented in umarm.conf(5)
 * @c:		configuration to initialise
 */
void conf_defaults(struct conf *c)
{
	memset(c, 0, sizeof(*c));
	c->memory = DEFAULT_MEMORY;
	c->cpus = 1;
	c->net = NET_NONE;
	c->net_backend = NETB_AUTO;
	c->ready_timeout = DEFAULT_READY_TIMEOUT;
	c->stop_timeout = DEFAULT_STOP_TIMEOUT;
	c->exec = EXEC_CONSOLE;
}

/**
 * seterr() - record a parse error
 * @e:		error to fill, may be NULL
 * @line:	line number
 * @fmt:	printf() format
 *
 * Return: -EINVAL, for "return seterr(...)"
 */
static int seterr(struct conf_error *e, int line, const char *fmt, ...)
{
	va_list ap;

	if (!e)
		return -EINVAL;
	e->line = line;
	va_start(ap, fmt);
	vsnprintf(e->msg, sizeof(e->msg), fmt, ap);
	va_end(ap);
	return -EINVAL;
}

/**
 * copy_value() - copy a value into a fixed buffer, refusing truncation
 * @dst:	destination
 * @size:	size of @dst
 * @v:		value
 *
 * Return: 0 on success, -ENAMETOOLONG if it doesn't fit
 */
static int copy_value(char *dst, size_t size, const char *v)
{
	size_t n = strlen(v);

	if (n >= size)
		return -ENAMETOOLONG;
	memcpy(dst, v, n + 1);
	return 0;
}

/**
 * conf_port_parse() - parse a port forward: [tcp:|udp:][ADDR:]HOST:GUEST
 * @s:		string, e.g. "8080:80", "udp:5353:53", "127.0.0.1:2222:22"
 * @p:		parsed forward
 *
 * Return: 0 on success, -EINVAL on syntax error
 */
int conf_port_parse(const char *s, struct conf_port *p)
{
	char buf[128], *host, *guest, *last;
	unsigned long v;

	memset(p, 0, sizeof(*p));
	if (!strncmp(s, "tcp:", 4)) {
		s += 4;
	} else if (!strncmp(s, "udp:", 4)) {
		p->udp = 1;
		s += 4;
	}
	if (copy_value(buf, sizeof(buf), s))
		return -EINVAL;
	last = strrchr(buf, ':');
	if (!last)
		return -EINVAL;
	*last = 0;
	guest = last + 1;
	host = strrchr(buf, ':');
	if (host) {
		*host++ = 0;
		if (!*buf || copy_value(p->addr, sizeof(p->addr), buf))
			return -EINVAL;
		if (strspn(p->addr, "0123456789abcdefABCDEF.:[]") !=
		    strlen(p->addr))
			return -EINVAL;
	} else {
		host = buf;
	}
	if (parse_uint(host, 65535, &v) || !v)
		return -EINVAL;
	p->host = v;
	if (parse_uint(guest, 65535, &v) || !v)
		return -EINVAL;
	p->guest = v;
	return 0;
}

/**
 * conf_disk_parse() - parse a disk: FILE[,BACKING]
 * @s:		string, e.g. "root.cow,/usr/share/umarm/images/minimal.img"
 * @d:		parsed disk
 *
 * Return: 0 on success, -EINVAL on syntax error
 */
int conf_disk_parse(const char *s, struct conf_disk *d)
{
	const char *comma = strchr(s, ',');

	memset(d, 0, sizeof(*d));
	if (!comma) {
		if (!*s || copy_value(d->file, sizeof(d->file), s))
			return -EINVAL;
	} else {
		size_t n = comma - s;

		if (!n || n >= sizeof(d->file) || !comma[1] ||
		    strchr(comma + 1, ',') ||
		    copy_value(d->base, sizeof(d->base), comma + 1))
			return -EINVAL;
		memcpy(d->file, s, n);
		d->file[n] = 0;
	}
	d->set = 1;
	return 0;
}

/**
 * path_ok() - an absolute path the file and the guest's table can hold
 * @p:		path
 *
 * Blanks separate the fields of a share's line, here and in the table the
 * guest's init reads; control bytes have no business in either.
 *
 * Return: 1 if @p is absolute and has no blank or control byte
 */
static int path_ok(const char *p)
{
	const unsigned char *u = (const unsigned char *)p;

	if (*u != '/' || strlen(p) >= CONF_VALUE_MAX)
		return 0;
	for (; *u; u++)
		if (*u <= ' ' || *u == 0x7f)
			return 0;
	return 1;
}

/**
 * guest_path_ok() - a guest directory a share may be mounted on
 * @p:		path, path_ok()
 *
 * Not "/", not the exchange directory /host or below it, no "." or ".."
 * component (the guest's mkdir -p and mount would take them as they are).
 * No empty component ("//", a trailing "/") either: "//host" is /host,
 * and "/a//b" the guest directory of a share on "/a/b".
 *
 * Return: 1 if @p is acceptable
 */
static int guest_path_ok(const char *p)
{
	const char *c = p;

	if (strstr(p, "//") || p[strlen(p) - 1] == '/')
		return 0;
	if (!strcmp(p, "/host") || !strncmp(p, "/host/", 6))
		return 0;
	while (*c) {
		size_t n;

		c += strspn(c, "/");
		n = strcspn(c, "/");
		if ((n == 1 && c[0] == '.') ||
		    (n == 2 && c[0] == '.' && c[1] == '.'))
			return 0;
		c += n;
	}
	return 1;
}

/**
 * share_name_ok() - a share name: a directory name and a virtio-fs tag
 * @n:		name
 *
 * Return: 1 for 1 to CONF_SHARE_NAME_MAX of [A-Za-z0-9_.-], not starting
 *	   with '.' or '-'
 */
static int share_name_ok(const char *n)
{
	size_t len = strlen(n);

	return len && len <= CONF_SHARE_NAME_MAX && *n != '.' && *n != '-' &&
	       strspn(n, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.-") == len;
}

/**
 * pool_add() - copy a string into the share pool
 * @c:		configuration
 * @str:	string
 * @off:	set to its offset
 *
 * Return: 0, or -ENOSPC
 */
static int pool_add(struct conf *c, const char *str, unsigned int *off)
{
	size_t n = strlen(str) + 1;

	if (n > sizeof(c->share_pool) - c->share_pool_used)
		return -ENOSPC;
	memcpy(c->share_pool + c->share_pool_used, str, n);
	*off = c->share_pool_used;
	c->share_pool_used += n;
	return 0;
}

/**
 * conf_share_find() - a share by name
 * @c:		configuration
 * @name:	share name
 *
 * Return: its index, -1 if there is none
 */
int conf_share_find(const struct conf *c, const char *name)
{
	int i;

	for (i = 0; i < c->nshares; i++)
		if (!strcmp(conf_str(c, c->share[i].name), name))
			return i;
	return -1;
}

/**
 * conf_share_add() - validate and append a share
 * @c:		configuration
 * @name:	share name
 * @host:	absolute host directory
 * @guest:	absolute guest directory
 * @ro:		read-only
 * @fs:		transport
 * @why:	set to what is wrong, on error
 *
 * Only the strings are checked here; whether @host exists is the
 * caller's business (a configuration may name a directory that is made
 * before the next start).
 *
 * Return: 0, or -EINVAL / -EEXIST / -ENOSPC with @why set
 */
int conf_share_add(struct conf *c, const char *name, const char *host,
		   const char *guest, int ro, enum conf_share_fs fs,
		   const char **why)
{
	struct conf_share sh = { .ro = ro, .fs = fs };
	int i;

	if (!share_name_ok(name)) {
		*why = "a share name is 1 to 32 of A-Z a-z 0-9 _ . -, not starting with . or -";
		return -EINVAL;
	}
	if (!path_ok(host) || !path_ok(guest)) {
		*why = "host and guest directories must be absolute, without blanks or control characters";
		return -EINVAL;
	}
	if (!guest_path_ok(guest)) {
		*why = "the guest directory cannot be /, /host (the exchange directory) or below it, or have ., .. or // in it or a / at its end";
		return -EINVAL;
	}
	for (i = 0; i < c->nshares; i++) {
		if (!strcmp(conf_str(c, c->share[i].name), name)) {
			*why = "a share of that name exists";
			return -EEXIST;
		}
		if (!strcmp(conf_str(c, c->share[i].guest), guest)) {
			*why = "another share is mounted on that guest directory";
			return -EEXIST;
		}
	}
	if (c->nshares >= CONF_MAX_SHARES || pool_add(c, name, &sh.name) ||
	    pool_add(c, host, &sh.host) || pool_add(c, guest, &sh.guest)) {
		*why = "too many shares (1024 at most, 256 KiB of names and paths)";
		return -ENOSPC;
	}
	c->share[c->nshares++] = sh;
	return 0;
}

/**
 * conf_share_del() - forget a share (its strings stay in the pool until
 *		      the configuration is written and read again)
 * @c:		configuration
 * @i:		its index
 */
void conf_share_del(struct conf *c, int i)
{
	memmove(&c->share[i], &c->share[i + 1],
		(c->nshares - i - 1) * sizeof(c->share[0]));
	c->nshares--;
}

/**
 * conf_share_fs_name() - a transport as the file and the guest's table
 *			  write it
 * @fs:		transport
 *
 * Return: "hostfs" or "virtiofs"
 */
const char *conf_share_fs_name(enum conf_share_fs fs)
{
	return fs == SHARE_VIRTIOFS ? "virtiofs" : "hostfs";
}

/**
 * conf_hostfs_shares() - how many shares go through hostfs
 * @c:		configuration
 *
 * Those need the kernel's mount namespace and a host descriptor each.
 *
 * Return: their number
 */
int conf_hostfs_shares(const struct conf *c)
{
	int i, n = 0;

	for (i = 0; i < c->nshares; i++)
		n += c->share[i].fs == SHARE_HOSTFS;
	return n;
}

/**
 * share_parse() - "NAME HOSTDIR GUESTDIR [ro|rw] [hostfs|virtiofs]"
 * @c:		configuration
 * @v:		value
 * @why:	set to what is wrong, on error
 *
 * Return: 0, or negative errno with @why set
 */
static int share_parse(struct conf *c, const char *v, const char **why)
{
	char buf[CONF_LINE_MAX], *f[6], *save;
	enum conf_share_fs fs = SHARE_HOSTFS;
	int n = 0, ro = 0, i;

	if (copy_value(buf, sizeof(buf), v))
		return -EINVAL;
	for (f[n] = strtok_r(buf, " \t", &save); f[n] && n < 5;
	     f[n] = strtok_r(NULL, " \t", &save))
		n++;
	if (n < 3 || f[n]) {
		*why = "not NAME HOSTDIR GUESTDIR [ro] [virtiofs]";
		return -EINVAL;
	}
	for (i = 3; i < n; i++) {
		if (!strcmp(f[i], "ro") || !strcmp(f[i], "rw")) {
			ro = f[i][1] == 'o';
		} else if (!strcmp(f[i], "hostfs") ||
			   !strcmp(f[i], "virtiofs")) {
			fs = f[i][0] == 'v' ? SHARE_VIRTIOFS : SHARE_HOSTFS;
		} else {
			*why = "options are ro, rw, hostfs, virtiofs";
			return -EINVAL;
		}
	}
	return conf_share_add(c, f[0], f[1], f[2], ro, fs, why);
}

/* A word a key may take, and the enum value it stands for */
struct conf_word {
	const char *word;
	int value;
};

/**
 * conf_word() - look up a value among the words its key may take
 * @key:	key, for the error
 * @v:		value
 * @words:	the words, in the order the error names them, NULL-ended
 * @line:	line number, for errors
 * @e:		error details
 *
 * Return: the word's value, or -EINVAL with @e filled ("KEY: 'V' is not
 *	   A, B or C")
 */
static int conf_word(const char *key, const char *v,
		     const struct conf_word *words, int line,
		     struct conf_error *e)
{
	char list[80] = "";
	size_t o = 0;
	int i;

	for (i = 0; words[i].word; i++) {
		if (!strcmp(v, words[i].word))
			return words[i].value;
	}
	for (i = 0; words[i].word && o < sizeof(list); i++)
		o += snprintf(list + o, sizeof(list) - o, "%s%s",
			      !i ? "" : words[i + 1].word ? ", " : " or ",
			      words[i].word);
	return seterr(e, line, "%s: '%s' is not %s", key, v, list);
}

/*
 * The setters of conf_keys[]: each validates one key's value and stores
 * it, so that a file and "create --KEY" say the same things about it.
 * They take the key as written ("flavor" is "flavour"), the value with
 * blanks trimmed, the line number for errors, and return 0, or -EINVAL
 * with @e filled.
 */

/* image = NAME or FILE: the base image, by name (image.c) or path */
static int set_image(struct conf *c, const char *key, const char *v,
		     int line, struct conf_error *e)
{
	(void)key;
	if (copy_value(c->image, sizeof(c->image), v))
		return seterr(e, line, "image: value too long");
	return 0;
}

/* flavour = 4k|16k: which kernel build, by the page size it runs on */
static int set_flavour(struct conf *c, const char *key, const char *v,
		       int line, struct conf_error *e)
{
	(void)key;
	if (strcmp(v, "4k") && strcmp(v, "16k"))
		return seterr(e, line, "flavour: '%s' is not 4k or 16k", v);
	strcpy(c->flavour, v);
	return 0;
}

/* memory = SIZE: the guest's RAM, within what UML can map */
static int set_memory(struct conf *c, const char *key, const char *v,
		      int line, struct conf_error *e)
{
	uint64_t m;

	(void)key;
	if (parse_size(v, &m) || m < MIN_MEMORY || m > MAX_MEMORY)
		return seterr(e, line,
			      "memory: '%s' is not a size between 16M and 1T (e.g. 512M)",
			      v);
	c->memory = m;
	return 0;
}

/* cpus = N: virtual CPUs */
static int set_cpus(struct conf *c, const char *key, const char *v,
		    int line, struct conf_error *e)
{
	unsigned long n;

	(void)key;
	if (parse_uint(v, MAX_CPUS, &n) || !n)
		return seterr(e, line,
			      "cpus: '%s' is not a number from 1 to %d",
			      v, MAX_CPUS);
	c->cpus = n;
	return 0;
}

/* kernel = FILE: a kernel other than the flavour's packaged one */
static int set_kernel(struct conf *c, const char *key, const char *v,
		      int line, struct conf_error *e)
{
	(void)key;
	if (copy_value(c->kernel, sizeof(c->kernel), v))
		return seterr(e, line, "kernel: path too long");
	return 0;
}

/* diskN = FILE[,BACKING]: one of UML's ubd devices, disk0 the root */
static int set_disk(struct conf *c, const char *key, const char *v,
		    int line, struct conf_error *e)
{
	unsigned long n;

	if (parse_uint(key + 4, CONF_MAX_DISKS - 1, &n) ||
	    (key[4] == '0' && key[5]))
		return seterr(e, line, "'%s': disks are disk0 to disk%d", key,
			      CONF_MAX_DISKS - 1);
	if (c->disk[n].set)
		return seterr(e, line, "'%s' set twice", key);
	if (conf_disk_parse(v, &c->disk[n]))
		return seterr(e, line, "%s: '%s' is not FILE or FILE,BACKING",
			      key, v);
	return 0;
}

/* network = none|passt */
static int set_network(struct conf *c, const char *key, const char *v,
		       int line, struct conf_error *e)
{
	static const struct conf_word words[] = {
		{ "none", NET_NONE }, { "passt", NET_PASST }, { NULL, 0 },
	};
	int w = conf_word(key, v, words, line, e);

	if (w < 0)
		return w;
	c->net = w;
	return 0;
}

/* network-backend = auto|vhost-user|relay: how passt reaches the guest */
static int set_network_backend(struct conf *c, const char *key,
			       const char *v, int line, struct conf_error *e)
{
	static const struct conf_word words[] = {
		{ "auto", NETB_AUTO }, { "vhost-user", NETB_VHOST_USER },
		{ "relay", NETB_RELAY }, { NULL, 0 },
	};
	int w = conf_word(key, v, words, line, e);

	if (w < 0)
		return w;
	c->net_backend = w;
	return 0;
}

/* port = [tcp:|udp:][ADDR:]HOST:GUEST, repeatable: passt's forwards */
static int set_port(struct conf *c, const char *key, const char *v,
		    int line, struct conf_error *e)
{
	(void)key;
	if (c->nports >= CONF_MAX_PORTS)
		return seterr(e, line, "port: more than %d forwards",
			      CONF_MAX_PORTS);
	if (conf_port_parse(v, &c->port[c->nports]))
		return seterr(e, line,
			      "port: '%s' is not [tcp:|udp:][ADDR:]HOST:GUEST",
			      v);
	c->nports++;
	return 0;
}

/* ready = TEXT, repeatable: console lines that mean the guest is up */
static int set_ready(struct conf *c, const char *key, const char *v,
		     int line, struct conf_error *e)
{
	(void)key;
	if (c->nready >= CONF_MAX_READY)
		return seterr(e, line, "ready: more than %d markers",
			      CONF_MAX_READY);
	if (!*v || copy_value(c->ready[c->nready], sizeof(c->ready[0]), v))
		return seterr(e, line,
			      "ready: marker empty or longer than 127");
	c->nready++;
	return 0;
}

/* ready-timeout, stop-timeout = SECONDS: how long boot and stop may take */
static int set_timeout(struct conf *c, const char *key, const char *v,
		       int line, struct conf_error *e)
{
	unsigned long n;

	if (parse_uint(v, MAX_TIMEOUT, &n) || !n)
		return seterr(e, line,
			      "%s: '%s' is not a number of seconds (1 to %d)",
			      key, v, MAX_TIMEOUT);
	if (key[0] == 'r')
		c->ready_timeout = n;
	else
		c->stop_timeout = n;
	return 0;
}

/* cmdline = TEXT: added to the kernel command line */
static int set_cmdline(struct conf *c, const char *key, const char *v,
		       int line, struct conf_error *e)
{
	(void)key;
	if (copy_value(c->cmdline, sizeof(c->cmdline), v))
		return seterr(e, line, "cmdline: too long");
	return 0;
}

/* usb = BUSID, repeatable: host devices the guest attaches by USB/IP */
static int set_usb(struct conf *c, const char *key, const char *v,
		   int line, struct conf_error *e)
{
	(void)key;
	if (c->nusb >= CONF_MAX_USB)
		return seterr(e, line, "usb: more than %d devices",
			      CONF_MAX_USB);
	if (!*v || strspn(v, "0123456789-.:") != strlen(v) ||
	    copy_value(c->usb[c->nusb], sizeof(c->usb[0]), v))
		return seterr(e, line, "usb: '%s' is not a bus id like 1-2.1",
			      v);
	c->nusb++;
	return 0;
}

/* share = NAME HOSTDIR GUESTDIR [ro] [virtiofs], repeatable */
static int set_share(struct conf *c, const char *key, const char *v,
		     int line, struct conf_error *e)
{
	const char *why = "";

	(void)key;
	if (share_parse(c, v, &why))
		return seterr(e, line, "share: '%.64s': %s", v, why);
	return 0;
}

/* exec = console|debug-shell|none: where exec finds a root shell */
static int set_exec(struct conf *c, const char *key, const char *v,
		    int line, struct conf_error *e)
{
	static const struct conf_word words[] = {
		{ "console", EXEC_CONSOLE },
		{ "debug-shell", EXEC_DEBUG_SHELL },
		{ "none", EXEC_NONE }, { NULL, 0 },
	};
	int w = conf_word(key, v, words, line, e);

	if (w < 0)
		return w;
	c->exec = w;
	return 0;
}

/* Bits for single-valued keys seen so far, to refuse duplicates */
enum {
	SEEN_IMAGE	= 1 << 0,
	SEEN_FLAVOUR	= 1 << 1,
	SEEN_MEMORY	= 1 << 2,
	SEEN_CPUS	= 1 << 3,
	SEEN_KERNEL	= 1 << 4,
	SEEN_NET	= 1 << 5,
	SEEN_NETB	= 1 << 6,
	SEEN_RTIMEOUT	= 1 << 7,
	SEEN_STIMEOUT	= 1 << 8,
	SEEN_CMDLINE	= 1 << 9,
	SEEN_EXEC	= 1 << 10,
};

/*
 * The keys of the file (but diskN, see conf_set()): the setter of each,
 * and its SEEN_* bit if it may be set only once (0: repeatable).
 */
static const struct conf_key {
	const char *name;
	unsigned int once;
	int (*set)(struct conf *c, const char *key, const char *v, int line,
		   struct conf_error *e);
} conf_keys[] = {
	{ "image",		SEEN_IMAGE,	set_image },
	{ "flavour",		SEEN_FLAVOUR,	set_flavour },
	{ "flavor",		SEEN_FLAVOUR,	set_flavour },
	{ "memory",		SEEN_MEMORY,	set_memory },
	{ "cpus",		SEEN_CPUS,	set_cpus },
	{ "kernel",		SEEN_KERNEL,	set_kernel },
	{ "network",		SEEN_NET,	set_network },
	{ "network-backend",	SEEN_NETB,	set_network_backend },
	{ "port",		0,		set_port },
	{ "ready",		0,		set_ready },
	{ "ready-timeout",	SEEN_RTIMEOUT,	set_timeout },
	{ "stop-timeout",	SEEN_STIMEOUT,	set_timeout },
	{ "cmdline",		SEEN_CMDLINE,	set_cmdline },
	{ "usb",		0,		set_usb },
	{ "share",		0,		set_share },
	{ "exec",		SEEN_EXEC,	set_exec },
};

/**
 * conf_set() - apply one key = value
 * @c:		configuration
 * @key:	key
 * @v:		value, blanks trimmed
 * @seen:	bitmap of single-valued keys already set
 * @line:	line number, for errors
 * @e:		error details
 *
 * A key set twice is refused before its value is looked at.  diskN keys
 * are numbered, so not in conf_keys[]: each of them may be set once.
 *
 * Return: 0 on success, -EINVAL with @e filled on error
 */
static int conf_set(struct conf *c, const char *key, const char *v,
		    unsigned int *seen, int line, struct conf_error *e)
{
	const struct conf_key *k;
	int rc;

	if (!strncmp(key, "disk", 4) && key[4])
		return set_disk(c, key, v, line, e);
	for (k = conf_keys; k < conf_keys + ARRAY_SIZE(conf_keys); k++) {
		if (strcmp(key, k->name))
			continue;
		if (*seen & k->once)
			return seterr(e, line, "'%s' set twice", key);
		rc = k->set(c, key, v, line, e);
		if (!rc)
			*seen |= k->once;
		return rc;
	}
	return seterr(e, line, "unknown key '%s'", key);
}

/**
 * conf_parse() - parse a configuration text over the current values
 * @c:		configuration, normally from conf_defaults()
 * @text:	file contents, need not be NUL-terminated
 * @len:	length of @text
 * @e:		error details, may be NULL
 *
 * Return: 0 on success, -EINVAL with @e filled on error
 */
int conf_parse(struct conf *c, const char *text, size_t len,
	       struct conf_error *e)
{
	unsigned int seen = 0;
	size_t pos = 0;
	int line = 0, rc;

	if (len > CONF_MAX_SIZE)
		return seterr(e, 0, "file larger than %d bytes", CONF_MAX_SIZE);
	if (memchr(text, 0, len))
		return seterr(e, 0, "file contains NUL bytes (binary or corrupt)");

	while (pos < len) {
		char buf[CONF_LINE_MAX], *key, *v, *eq, *end;
		const char *nl = memchr(text + pos, '\n', len - pos);
		size_t n = nl ? (size_t)(nl - text - pos) : len - pos;

		line++;
		if (n >= sizeof(buf))
			return seterr(e, line, "line longer than %d bytes",
				      CONF_LINE_MAX - 1);
		memcpy(buf, text + pos, n);
		buf[n] = 0;
		pos += n + 1;

		for (key = buf; *key == ' ' || *key == '\t'; key++)
			;
		end = key + strlen(key);
		while (end > key && (end[-1] == ' ' || end[-1] == '\t' ||
				     end[-1] == '\r'))
			*--end = 0;
		if (!*key || *key == '#' || *key == ';')
			continue;

		eq = strchr(key, '=');
		if (!eq)
			return seterr(e, line, "expected 'key = value'");
		v = eq + 1;
		while (eq > key && (eq[-1] == ' ' || eq[-1] == '\t'))
			eq--;
		*eq = 0;
		while (*v == ' ' || *v == '\t')
			v++;
		if (!*key)
			return seterr(e, line, "missing key before '='");
		if (strspn(key, "abcdefghijklmnopqrstuvwxyz0123456789-") !=
		    strlen(key))
			return seterr(e, line, "invalid key '%.64s'", key);
		rc = conf_set(c, key, v, &seen, line, e);
		if (rc)
			return rc;
	}
	if (!c->disk[0].set)
		return seterr(e, 0, "no root disk: 'disk0 = FILE' is missing");
	return 0;
}

/**
 * conf_net_name() - name of the network setting, as written in the file
 * @c:		configuration
 *
 * Return: "none" or "passt"
 */
const char *conf_net_name(const struct conf *c)
{
	return c->net == NET_PASST ? "passt" : "none";
}

/**
 * conf_format() - write a configuration back in the file format
 * @c:		configuration
 * @buf:	output
 * @len:	size of @buf
 *
 * Return: length written, -ENOSPC if @buf is too small
 */
int conf_format(const struct conf *c, char *buf, size_t len)
{
	static const char *netb[] = { "auto", "vhost-user", "relay" };
	char size[32];
	size_t o = 0;
	int i;

#define OUT(...) do {							\
		int _n = snprintf(buf + o, len - o, __VA_ARGS__);	\
		if (_n < 0 || (size_t)_n >= len - o)			\
			return -ENOSPC;					\
		o += _n;						\
	} while (0)

	OUT("# umarm instance configuration, see umarm.conf(5)\n");
	if (*c->image)
		OUT("image = %s\n", c->image);
	if (*c->flavour)
		OUT("flavour = %s\n", c->flavour);
	format_size(c->memory, size, sizeof(size));
	OUT("memory = %s\n", size);
	OUT("cpus = %u\n", c->cpus);
	if (*c->kernel)
		OUT("kernel = %s\n", c->kernel);
	for (i = 0; i < CONF_MAX_DISKS; i++) {
		if (!c->disk[i].set)
			continue;
		if (*c->disk[i].base)
			OUT("disk%d = %s,%s\n", i, c->disk[i].file,
			    c->disk[i].base);
		else
			OUT("disk%d = %s\n", i, c->disk[i].file);
	}
	OUT("network = %s\n", conf_net_name(c));
	if (c->net_backend != NETB_AUTO)
		OUT("network-backend = %s\n", netb[c->net_backend]);
	for (i = 0; i < c->nports; i++) {
		const struct conf_port *p = &c->port[i];

		OUT("port = %s%s%s%u:%u\n", p->udp ? "udp:" : "", p->addr,
		    *p->addr ? ":" : "", p->host, p->guest);
	}
	for (i = 0; i < c->nready; i++)
		OUT("ready = %s\n", c->ready[i]);
	OUT("ready-timeout = %u\n", c->ready_timeout);
	OUT("stop-timeout = %u\n", c->stop_timeout);
	if (*c->cmdline)
		OUT("cmdline = %s\n", c->cmdline);
	for (i = 0; i < c->nusb; i++)
		OUT("usb = %s\n", c->usb[i]);
	if (c->exec != EXEC_CONSOLE)
		OUT("exec = %s\n", c->exec == EXEC_NONE ? "none"
						       : "debug-shell");
	for (i = 0; i < c->nshares; i++) {
		const struct conf_share *sh = &c->share[i];

		OUT("share = %s %s %s%s%s\n", conf_str(c, sh->name),
		    conf_str(c, sh->host), conf_str(c, sh->guest),
		    sh->ro ? " ro" : "",
		    sh->fs == SHARE_VIRTIOFS ? " virtiofs" : "");
	}
#undef OUT
	return o;
}
