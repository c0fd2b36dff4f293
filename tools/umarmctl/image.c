// SPDX-License-Identifier: GPL-2.0-or-later
/* umarmctl - manage User-Mode Linux instances
 *
 * image.c - base images by name or file
 *
 * "--image FILE" uses that file.  "--image NAME" (debian, debian-docker,
 * minimal, musl: the recipes there are) looks for, in this order:
 *
 *  1. an installed base image IMAGE_DIR/NAME-ARCH.img (then NAME.img);
 *  2. a source tree's recipes: when $UMARM_SRCDIR names one or umarmctl
 *     runs from one (source_tree() says how it is recognised),
 *     "images/build.sh NAME ARCH" builds the image;
 *  3. the installed recipes, IMAGE_DIR/build.sh and IMAGE_DIR/NAME/ (the
 *     umarmctl package ships them), which build it the same way.
 *
 * A NAME with no recipe is refused before build.sh runs, with the names
 * of the recipes there are (recipe_names()).
 *
 * build.sh's progress is shown as it comes; the last line of its standard
 * output is the image path, which instances get as a hard link named
 * after the image's key (pin_image()).  Built images are cached by build.sh in
 * $UMARM_CACHE/images/: for a user ${XDG_CACHE_HOME:-~/.cache}/linux-uml-arm64
 * (build.sh's default), and for root running the installed recipes
 * IMAGE_CACHE (/var/cache/umarm), unless UMARM_CACHE says otherwise.
 * Nothing is ever written under /usr.
 */

#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
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
 * trusted_path() - whether a file or directory is as safe as we are
 * @path:	path, not followed if a symbolic link
 * @dir:	must be a directory (else a regular file)
 *
 * Owned by us or root and writable by nobody else: a recipe we run must
 * not be replaceable by another user.
 *
 * Return: 1 if trusted, 0 otherwise
 */
static int trusted_path(const char *path, int dir)
{
	struct stat st;

	if (lstat(path, &st))
		return 0;
	if (dir ? !S_ISDIR(st.st_mode) : !S_ISREG(st.st_mode))
		return 0;
	return (st.st_uid == geteuid() || !st.st_uid) &&
	       !(st.st_mode & (S_IWGRP | S_IWOTH));
}

/**
 * source_tree() - the source tree this umarmctl was built in, if it is one
 * @top:	top directory of the tree, PATH_LEN bytes
 *
 * A tree is recognised by its shape, not by being two levels up: the
 * binary is TOP/tools/umarmctl/umarmctl, TOP has images/build.sh and
 * kernel/patches/series, and TOP, TOP/images and build.sh are trusted
 * (trusted_path()).  A copy of umarmctl in /tmp/x/ runs no
 * /tmp/images/build.sh somebody left there.
 *
 * Return: 0 if found, -ENOENT otherwise
 */
static int source_tree(char *top)
{
	static const char bin[] = "/tools/umarmctl/umarmctl";
	char exe[PATH_LEN], p[PATH_LEN];
	ssize_t n;

	n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (n <= (ssize_t)strlen(bin))
		return -ENOENT;
	exe[n] = 0;
	if (strcmp(exe + n - strlen(bin), bin))
		return -ENOENT;
	exe[n - strlen(bin)] = 0;
	if (pathf(top, "%s", exe) || pathf(p, "%s/kernel/patches/series", top) ||
	    access(p, R_OK) || !trusted_path(top, 1))
		return -ENOENT;
	if (pathf(p, "%s/images", top) || !trusted_path(p, 1) ||
	    pathf(p, "%s/images/build.sh", top) || !trusted_path(p, 0) ||
	    access(p, X_OK))
		return -ENOENT;
	return 0;
}

/**
 * build_script() - find images/build.sh of a source tree
 * @out:	path, PATH_LEN bytes
 *
 * $UMARM_SRCDIR (the user's own choice), else the tree umarmctl runs
 * from (source_tree()).
 *
 * Return: 0 if found, -ENOENT otherwise
 */
static int build_script(char *out)
{
	const char *src = getenv("UMARM_SRCDIR");
	char top[PATH_LEN];

	if (src && *src && !pathf(out, "%s/images/build.sh", src) &&
	    !access(out, X_OK))
		return 0;
	if (source_tree(top))
		return -ENOENT;
	return pathf(out, "%s/images/build.sh", top) ? -ENOENT : 0;
}

/* Recipe names recipe_names() lists at most, and their length */
#define MAX_RECIPES	32
#define RECIPE_LEN	64

/**
 * cmp_name() - qsort() order of recipe names: alphabetical
 * @a:		a char[RECIPE_LEN]
 * @b:		another
 *
 * Return: as strcmp()
 */
static int cmp_name(const void *a, const void *b)
{
	return strcmp(a, b);
}

/**
 * recipe_names() - the image names a recipe directory offers
 * @dir:	directory of build.sh (a source tree's images/, IMAGE_DIR)
 * @buf:	"a, b, c", sorted, or "none"
 * @size:	size of @buf
 *
 * A recipe is a subdirectory with a recipe.sh, as build.sh finds them:
 * an error for an unknown NAME lists what could have been meant.
 */
static void recipe_names(const char *dir, char *buf, size_t size)
{
	char names[MAX_RECIPES][RECIPE_LEN], p[PATH_LEN];
	size_t n = 0, i, len = 0;
	struct dirent *e;
	DIR *d = opendir(dir);

	while (d && n < MAX_RECIPES && (e = readdir(d))) {
		if (e->d_name[0] == '.' || strlen(e->d_name) >= RECIPE_LEN ||
		    pathf(p, "%s/%s/recipe.sh", dir, e->d_name) ||
		    access(p, R_OK))
			continue;
		snprintf(names[n++], RECIPE_LEN, "%s", e->d_name);
	}
	if (d)
		closedir(d);
	qsort(names, n, RECIPE_LEN, cmp_name);
	snprintf(buf, size, "none");
	for (i = 0; i < n && len < size; i++)
		len += snprintf(buf + len, size - len, "%s%s", i ? ", " : "",
				names[i]);
}

/**
 * has_recipe() - whether the build.sh at @script has a recipe @name
 * @script:	DIR/build.sh
 * @name:	image name
 *
 * Return: 1 if DIR/NAME/recipe.sh is readable, 0 otherwise
 */
static int has_recipe(const char *script, const char *name)
{
	char recipe[PATH_LEN + RECIPE_LEN];
	const char *slash = strrchr(script, '/');

	if (!slash)
		return 0;
	snprintf(recipe, sizeof(recipe), "%.*s/%s/recipe.sh",
		 (int)(slash - script), script, name);
	return !access(recipe, R_OK);
}

/**
 * no_recipe() - refuse an image name that no recipe of @script builds
 * @script:	DIR/build.sh
 * @name:	image name
 *
 * Return: -ENOENT (message printed, with the names there are)
 */
static int no_recipe(const char *script, const char *name)
{
	char buf[PATH_LEN], names[MAX_RECIPES * (RECIPE_LEN + 2)];
	const char *dir;

	snprintf(buf, sizeof(buf), "%s", script);
	dir = dirname(buf);
	recipe_names(dir, names, sizeof(names));
	err("no base image '%s': no recipe of that name in %s (there are: %s); use one of those, or --image FILE",
	    name, dir, names);
	return -ENOENT;
}

/* Where root's images are built from the installed recipes */
#define IMAGE_CACHE	"/var/cache/umarm"

/**
 * installed_recipe() - find the installed recipes' build.sh for an image
 * @name:	image name
 * @out:	IMAGE_DIR/build.sh, PATH_LEN bytes
 *
 * Return: 0 if build.sh and the recipe NAME are installed, -ENOENT if no
 * recipes are, -ENOEXEC if they are but NAME is not one of them
 */
static int installed_recipe(const char *name, char *out)
{
	if (pathf(out, "%s/build.sh", IMAGE_DIR) || access(out, X_OK))
		return -ENOENT;
	return has_recipe(out, name) ? 0 : -ENOEXEC;
}

/**
 * pin_image() - a name for this build of an image that no rebuild reuses
 * @img:	DIR/STEM.ext4 from build.sh, replaced by DIR/STEM.KEY.ext4
 *
 * Instances overlay their base image by path, and UML refuses a COW file
 * whose backing file changed.  build.sh renames a new image over the old
 * one when its key changes (a new recipe after an upgrade, a new busybox),
 * so instances get a hard link named after the key (first 16 digits of
 * IMAGE.key), which keeps their base as it was.  Without a key or a link
 * (a file system without hard links), @img is left as it is.
 */
static void pin_image(char *img)
{
	char key[80], pinned[PATH_LEN];
	size_t n = strlen(img);
	FILE *f;

	if (n < 5 || strcmp(img + n - 5, ".ext4"))
		return;
	if (pathf(pinned, "%s.key", img))
		return;
	f = fopen(pinned, "r");
	if (!f)
		return;
	if (!fgets(key, sizeof(key), f) ||
	    strspn(key, "0123456789abcdef") < 16) {
		fclose(f);
		return;
	}
	fclose(f);
	key[16] = 0;
	if (pathf(pinned, "%.*s.%s.ext4", (int)(n - 5), img, key))
		return;
	if (link(img, pinned) && errno != EEXIST)
		return;
	snprintf(img, PATH_LEN, "%s", pinned);
}

/**
 * run_build() - build an image with a recipe (source tree or installed)
 * @script:	images/build.sh
 * @name:	image name
 * @out:	resulting path, PATH_LEN bytes
 *
 * Return: 0 on success, negative errno on failure (message printed)
 */
static int run_build(const char *script, const char *name, char *out)
{
	char *argv[] = { (char *)script, (char *)name, (char *)image_arch(),
			 NULL };
	char line[PATH_LEN];
	int fd, st = -1;
	pid_t pid;
	FILE *f;

	info("building image '%s' for %s with %s (progress below)...", name,
	     image_arch(), script);
	pid = spawn_argv(argv, &fd);
	if (pid < 0)
		return pid;
	f = fdopen(fd, "r");
	*out = 0;
	while (f && fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\n")] = 0;
		if (*line) {
			/* stdout lines before the last are progress too */
			if (*out)
				fprintf(stderr, "%s\n", out);
			snprintf(out, PATH_LEN, "%s", line);
		}
	}
	if (f)
		fclose(f);
	else
		close(fd);
	while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
		;
	if (st || !*out || access(out, R_OK)) {
		err("image recipe '%s %s %s' failed (status %d); run it by hand to see why",
		    script, name, image_arch(), st);
		return -EIO;
	}
	pin_image(out);
	return 0;
}

/* The ext2/3/4 superblock: 1024 bytes in, its s_magic at offset 56 */
#define EXT_MAGIC_OFFSET	(1024 + 56)
#define EXT_MAGIC		0xef53

/**
 * image_is_ext() - whether a file holds an ext2/3/4 file system
 * @path:	the file
 *
 * The guest's root= is /dev/ubda, which the images mount as ext4 (ext2
 * and ext3 mount with the same driver).  A file that is not one would
 * only fail at boot, after a ready-timeout.
 *
 * Return: 1 if it has the superblock magic, 0 if not, negative errno
 */
static int image_is_ext(const char *path)
{
	unsigned char m[2];
	int fd = open(path, O_RDONLY | O_CLOEXEC), rc;

	if (fd < 0)
		return -errno;
	rc = pread(fd, m, sizeof(m), EXT_MAGIC_OFFSET) == sizeof(m) &&
	     (m[0] | m[1] << 8) == EXT_MAGIC;
	close(fd);
	return rc;
}

/* The label images/build.sh gives its images (mkfs.ext4 -L umarm-RECIPE,
 * cut to the superblock's 16 bytes), and the recipe each stands for
 */
#define EXT_LABEL_OFFSET	(1024 + 120)
#define EXT_LABEL_LEN		16
static const char *const image_labels[][2] = {
	{ "umarm-minimal", "minimal" },
	{ "umarm-musl", "musl" },
	{ "umarm-debian", "debian" },
	{ "umarm-debian-doc", "debian-docker" },
};

/**
 * image_kind() - which of the project's images a base image file is
 * @path:	the file
 *
 * What an image runs decides its defaults (create.c, image_defaults()):
 * its file system label says it wherever the file was copied to and
 * whatever it is called now (a minimal image renamed base1.ext4 was
 * taken for an unknown image, got no shell and powered off at once).
 * Images of an older build.sh or from elsewhere carry no such label: the
 * file's name, as before ("minimal...", "debian-docker...").
 *
 * Return: "minimal", "musl", "debian", "debian-docker", or NULL
 */
const char *image_kind(const char *path)
{
	const char *name = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
	char label[EXT_LABEL_LEN + 1] = "";
	unsigned int i;
	int fd;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd >= 0) {
		if (pread(fd, label, EXT_LABEL_LEN, EXT_LABEL_OFFSET) !=
		    EXT_LABEL_LEN)
			label[0] = '\0';
		label[EXT_LABEL_LEN] = '\0';
		close(fd);
	}
	for (i = 0; i < sizeof(image_labels) / sizeof(image_labels[0]); i++)
		if (!strcmp(label, image_labels[i][0]))
			return image_labels[i][1];
	if (!strncmp(label, "umarm-", 6))
		return NULL;	/* another recipe of ours (alpine) */
	if (!strncmp(name, "debian-docker", 13))
		return "debian-docker";
	for (i = 0; i < sizeof(image_labels) / sizeof(image_labels[0]); i++)
		if (!strncmp(name, image_labels[i][1],
			     strlen(image_labels[i][1])))
			return image_labels[i][1];
	return NULL;
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
		if (image_is_ext(real) != 1) {
			err("image file %s: not an ext2/3/4 file system image (no superblock at byte 1024); give one made with mkfs.ext4 (e.g. by images/build.sh), or --image debian|debian-docker|minimal|musl",
			    image);
			return -EINVAL;
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
		return has_recipe(script, image) ?
		       run_build(script, image, out) :
		       no_recipe(script, image);
	switch (installed_recipe(image, script)) {
	case 0:
		/* root's images are the system's, not in /root */
		if (!geteuid() && !getenv("UMARM_CACHE"))
			setenv("UMARM_CACHE", IMAGE_CACHE, 1);
		return run_build(script, image, out);
	case -ENOEXEC:
		return no_recipe(script, image);
	}
	err("no base image '%s': not installed as %s/%s-%s.img, and no images/build.sh (reinstall umarmctl, set UMARM_SRCDIR to a source tree, or use --image FILE)",
	    image, IMAGE_DIR, image, image_arch());
	return -ENOENT;
}
