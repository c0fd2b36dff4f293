// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * addrspace.c - the top of a guest process's address space
 *
 * UML's TASK_SIZE is the host's top address less the stub pages, rounded
 * down to a page directory entry and capped by what the guest's page
 * tables reach; on a host with 39-bit user addresses (3-level tables with
 * 4 KiB pages, as on most 4 KiB Android kernels) rounding to 512 GiB
 * entries left nothing.  This program finds the top from the inside: the
 * end of its stack mapping, and the highest page MAP_FIXED_NOREPLACE
 * accepts (a binary search over page addresses), which it writes, then
 * reads back in a forked child (the child's page tables at the very top).
 * Prints
 *
 *	ADDRSPACE_OK stack_end=0x... top=0x... bits=N
 *
 * or ADDRSPACE_FAIL with the reason: also when top is above the host's
 * top address, given as ADDRSPACE_HOST_TOP or in a file "host-top" next
 * to the program (the gate writes it into the hostfs share).
 */

#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#ifndef MAP_FIXED_NOREPLACE
#define MAP_FIXED_NOREPLACE 0x100000
#endif

static int fail(const char *what)
{
	printf("ADDRSPACE_FAIL %s: %s\n", what, strerror(errno));
	return 1;
}

/* can_map() - whether the page at @a can be mapped (and unmaps it) */
static int can_map(unsigned long a, unsigned long page)
{
	void *p = mmap((void *)a, page, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE,
		       -1, 0);

	if (p == MAP_FAILED)
		return 0;
	munmap(p, page);
	/* kernels without MAP_FIXED_NOREPLACE take it as a hint */
	return p == (void *)a;
}

int main(int argc, char **argv)
{
	unsigned long page = sysconf(_SC_PAGESIZE), lo, hi, mid, stack_end = 0;
	unsigned long s, e, limit = 0;
	char line[512], *env = getenv("ADDRSPACE_HOST_TOP");
	volatile unsigned long *v;
	FILE *f = fopen("/proc/self/maps", "r");
	int bits = 0, st;
	pid_t pid;

	(void)argc;
	if (!f)
		return fail("/proc/self/maps");
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "%lx-%lx", &s, &e) == 2 && strstr(line, "[stack]"))
			stack_end = e;
	fclose(f);
	if (!stack_end) {
		errno = ENOENT;
		return fail("no [stack] in /proc/self/maps");
	}
	/* The highest mappable page lies between the stack and 2^52. */
	lo = stack_end;
	hi = 1UL << 52;
	while (hi - lo > page) {
		mid = lo + ((hi - lo) / 2 & ~(page - 1));
		if (can_map(mid, page))
			lo = mid;
		else
			hi = mid;
	}
	/* lo is the stack's end when nothing above it could be mapped */
	if (lo > stack_end || can_map(lo, page))
		v = mmap((void *)lo, page, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);
	else
		v = MAP_FAILED;
	if (v != MAP_FAILED) {
		v[0] = 0x5a5a5a5a;
		v[page / sizeof(*v) - 1] = lo;
		pid = fork();
		if (pid < 0)
			return fail("fork");
		if (!pid)
			_exit(v[0] == 0x5a5a5a5a && v[page / sizeof(*v) - 1] == lo ? 0 : 3);
		if (waitpid(pid, &st, 0) != pid || !WIFEXITED(st) || WEXITSTATUS(st)) {
			printf("ADDRSPACE_FAIL the child read the wrong values at 0x%lx (status 0x%x)\n",
			       lo, st);
			return 1;
		}
		lo += page;
	} else {
		lo = stack_end;
	}
	while (bits < 64 && (1UL << bits) < lo)
		bits++;
	if (env) {
		limit = strtoul(env, NULL, 0);
	} else if (argv[0] && strrchr(argv[0], '/')) {
		snprintf(line, sizeof(line), "%.*s/host-top",
			 (int)(strrchr(argv[0], '/') - argv[0]), argv[0]);
		f = fopen(line, "r");
		if (f && fscanf(f, "%li", (long *)&limit) != 1)
			limit = 0;
		if (f)
			fclose(f);
	}
	if (limit && lo > limit) {
		printf("ADDRSPACE_FAIL top=0x%lx is above the host's top 0x%lx\n",
		       lo, limit);
		return 1;
	}
	printf("ADDRSPACE_OK stack_end=0x%lx top=0x%lx bits=%d\n", stack_end,
	       lo, bits);
	return 0;
}
