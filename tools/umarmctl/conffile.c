// SPDX-License-Identifier: GPL-2.0-or-later
/* umarmctl - manage User-Mode Linux instances
 *
 * conffile.c - an instance's configuration file: read and validate it,
 *		write it atomically
 *
 * Below the model (instance.c) and the supervisor alike: the verbs load
 * and save configurations through it, and the supervisor reads one again
 * when "share add" changed it.  conf.c knows the syntax;
 * this file knows where the file is and how it is written.
 */

#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "conffile.h"
#include "log.h"
#include "util.h"

/**
 * conf_missing() - say that an instance has no configuration file
 * @in:		instance
 *
 * One message for "no such instance", whether the caller wanted the
 * configuration or only to know the instance is there (inst_open()),
 * naming the file and the other scope, where the instance may be.
 */
void conf_missing(const struct inst *in)
{
	err("%s: no such instance (no %s); see 'umarmctl list'%s",
	    in->name, in->conf,
	    in->sc->user && !getuid() ? ", or try --system" :
	    !in->sc->user ? ", or try --user" : "");
}

/**
 * conf_load() - read and validate the configuration of an instance
 * @in:		instance
 * @c:		parsed configuration
 *
 * Return: 0 on success, EX_NOINST or EX_CONFIG (message printed)
 */
int conf_load(const struct inst *in, struct conf *c)
{
	struct conf_error e = { 0 };
	char *text;
	ssize_t n;

	conf_defaults(c);
	n = read_file(in->conf, &text, CONF_MAX_SIZE);
	if (n == -ENOENT) {
		conf_missing(in);
		return EX_NOINST;
	}
	if (n < 0) {
		err("%s: cannot read %s: %s", in->name, in->conf,
		    strerror(-n));
		return n == -EFBIG ? EX_CONFIG : EX_FAIL;
	}
	if (conf_parse(c, text, n, &e)) {
		if (e.line)
			err("%s: %s:%d: %s; fix the file (see umarm.conf(5))",
			    in->name, in->conf, e.line, e.msg);
		else
			err("%s: %s: %s; fix the file (see umarm.conf(5))",
			    in->name, in->conf, e.msg);
		free(text);
		return EX_CONFIG;
	}
	free(text);
	return 0;
}

/**
 * conf_save() - atomically write the configuration of an instance
 * @in:		instance
 * @c:		configuration
 *
 * Return: 0 on success, EX_FAIL (message printed)
 */
int conf_save(const struct inst *in, const struct conf *c)
{
	char *buf = malloc(CONF_MAX_SIZE), dir[PATH_LEN];
	int n, rc;

	n = buf ? conf_format(c, buf, CONF_MAX_SIZE) : -ENOMEM;
	if (n < 0) {
		err("%s: configuration too large", in->name);
		free(buf);
		return EX_FAIL;
	}
	/* System instances may run under their own account, which reads
	 * its configuration; a user's are the user's alone.
	 */
	pathf(dir, "%s/" INSTANCES_DIR, in->sc->confdir);
	rc = mkdir_p(dir, in->sc->user ? 0700 : 0755);
	if (!rc)
		rc = write_file_atomic(in->conf, buf, n,
				       in->sc->user ? 0600 : 0644);
	free(buf);
	if (rc) {
		err("%s: cannot write %s: %s", in->name, in->conf,
		    strerror(-rc));
		return EX_FAIL;
	}
	return 0;
}
