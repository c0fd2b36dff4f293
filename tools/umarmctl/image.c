// SPDX-License-Identifier: GPL-2.0-or-later
/* umarmctl - manage User-Mode Linux instances
 *
 * image.c - base images by name or file
 *
 * "--image FILE" uses that file.  "--image NAME" (debian, minimal, musl)
 * looks for an installed base image IMAGE_DIR/NAME-ARCH.img (then
 * NAME.img), and otherwise, when umarmctl runs from a source tree (or
 * $UMARM_SRCDIR points at one), builds it with "images/build.sh NAME ARCH",
 * whose progress is shown as it comes and whose last line of standard
 * output is the image path.
 */

#define _GNU_SOURCE
#include <errno.h>
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <sys/wait.h>

#include "image.h"
#include "host.h"
#include "log.h"
#include "util.h"

/**
 * image_arch() - Debian architecture of the host (and of the images)
 *
 * Return: "amd64", "arm64", or the kernel's machine name
 */
const char *image_arch(void)
{
	static struct utsname u;

	if (uname(&u))
		return "arm64";
	if (!strcmp(u.machine, "x86_64"))
		return "amd64";
	if (!strcmp(u.machine, "aarch64"))
		return "arm64";
	return u.machine;
}

/**
 * build_script() - find images/build.sh of a source tree
 * @out:	path, PATH_LEN bytes
 *
 * Return: 0 if found, -ENOENT otherwise
 */
static int build_script(char *out)
{
	const char *src = getenv("UMARM_SRCDIR");
	char exe[PATH_LEN];
	ssize_t n;

	if (src && *src && !pathf(out, "%s/images/build.sh", src) &&
	    !access(out, X_OK))
		return 0;
	n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (n <= 0)
		return -ENOENT;
	exe[n] = 0;
	/* tools/umarmctl/umarmctl -> images/build.sh */
	if (!pathf(out, "%s/../../images/build.sh", dirname(exe)) &&
	    !access(out, X_OK))
		return 0;
	return -ENOENT;
}

/**
 * run_build() - build an image with the source tree's recipe
 * @script:	images/build.sh
 * @name:	image name
 * @out:	resulting path, PATH_LEN bytes
 *
 * Return: 0 on success, negative errno on failure (message printed)
 */
static int run_build(const char *script, const char *name, char *out)
{
	char *cmd, line[PATH_LEN];
	FILE *f;
	int st;

	info("building image '%s' for %s with %s (progress below)...", name,
	     image_arch(), script);
	cmd = xasprintf("'%s' '%s' '%s'", script, name, image_arch());
	f = popen(cmd, "r");
	free(cmd);
	if (!f)
		return -errno;
	*out = 0;
	while (fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\n")] = 0;
		if (*line) {
			/* stdout lines before the last are progress too */
			if (*out)
				fprintf(stderr, "%s\n", out);
			snprintf(out, PATH_LEN, "%s", line);
		}
	}
	st = pclose(f);
	if (st || !*out || access(out, R_OK)) {
		err("image recipe '%s %s %s' failed (status %d); run it by hand to see why",
		    script, name, image_arch(), st);
		return -EIO;
	}
	return 0;
}

/**
 * image_resolve() - find (or build) the base image for --image
 * @image:	NAME or FILE
 * @out:	absolute path of the base image, PATH_LEN bytes
 *
 * Return: 0 on success, negative errno on failure (message printed)
 */
int image_resolve(const char *image, char *out)
{
	char script[PATH_LEN], real[PATH_MAX];
	struct stat st;

	/*
	 * A path, or a regular file of that name here; not a directory: a
	 * source tree has debian/ and images/ next to where one types
	 * "--image debian".
	 */
	if (strchr(image, '/') || (!stat(image, &st) && S_ISREG(st.st_mode))) {
		if (stat(image, &st)) {
			err("image file %s: %s", image, strerror(errno));
			return -ENOENT;
		}
		if (!S_ISREG(st.st_mode) || !realpath(image, real)) {
			err("image file %s: not a regular file", image);
			return -ENOENT;
		}
		return pathf(out, "%s", real);
	}
	if (strspn(image, "abcdefghijklmnopqrstuvwxyz0123456789-_.") !=
	    strlen(image)) {
		err("invalid image name '%s'", image);
		return -EINVAL;
	}
	if (!pathf(out, "%s/%s-%s.img", IMAGE_DIR, image, image_arch()) &&
	    !access(out, R_OK))
		return 0;
	if (!pathf(out, "%s/%s.img", IMAGE_DIR, image) && !access(out, R_OK))
		return 0;
	if (!build_script(script))
		return run_build(script, image, out);
	err("no base image '%s': not installed as %s/%s-%s.img, and no images/build.sh (set UMARM_SRCDIR to a source tree, or use --image FILE)",
	    image, IMAGE_DIR, image, image_arch());
	return -ENOENT;
}
