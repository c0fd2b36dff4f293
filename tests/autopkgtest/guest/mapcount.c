// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * mapcount.c - a guest process that needs more host mappings than the host
 * allows
 *
 * UML maps each guest page into the stub process's host address space from
 * its physical-memory file, and the host merges two mappings only when they
 * are adjacent in the file as well: a guest process whose pages are
 * scattered over physical memory needs a host mapping per page, and the
 * host's vm.max_map_count (65530 by default) caps them.  The kernel must
 * then kill the process with its message ("UML ran out of memory on the
 * host side ... vm.max_map_count"), as ptrace mode does, and nothing else:
 * a list of host mmap()/munmap() calls that stopped half way leaves the
 * host mapping pages the guest no longer maps, or none where it does.
 *
 * Usage: mapcount [PAGES]   (default 40000)
 *
 * A child touches two regions of PAGES pages each, a page of one, then a
 * page of the other (so that neither region's pages are adjacent in
 * physical memory), each page with its own pattern, then reads them all
 * back.  Small pages only (MADV_NOHUGEPAGE).  The child must either find
 * every pattern (MAPCOUNT_TOUCHED) or die of a signal; it must not hang,
 * find another page's data, or return from a fault with its registers
 * changed.  Prints MAPCOUNT_OK child=... (touched or killed by SIGNAL),
 * else MAPCOUNT_FAIL and why.
 */
#define _GNU_SOURCE
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "childwait.h"

/* How long the child may take (a livelocked fault never ends) */
#define CHILD_SECONDS 300

/* pattern() - what page @i of region @r holds */
static uint64_t pattern(unsigned long i, int r)
{
	return 0x5a5a000000000000ULL ^ ((uint64_t)i << 1) ^ (uint64_t)r;
}

/* region() - @pages fresh pages that will stay small pages */
static volatile uint64_t *region(unsigned long pages, long page)
{
	void *p = mmap(NULL, pages * page, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED) {
		printf("MAPCOUNT_FAIL mmap of %lu pages\n", pages);
		exit(1);
	}
	madvise(p, pages * page, MADV_NOHUGEPAGE);
	return p;
}

/* run_child() - touch both regions alternately, then check them */
static void run_child(unsigned long pages)
{
	long page = sysconf(_SC_PAGESIZE);
	unsigned long words = page / sizeof(uint64_t), i;
	volatile uint64_t *r[2];
	int k;

	r[0] = region(pages, page);
	r[1] = region(pages, page);
	for (i = 0; i < pages; i++)
		for (k = 0; k < 2; k++)
			r[k][i * words] = pattern(i, k);
	for (i = 0; i < pages; i++)
		for (k = 0; k < 2; k++)
			if (r[k][i * words] != pattern(i, k)) {
				printf("MAPCOUNT_FAIL page %lu of region %d holds 0x%llx, not 0x%llx\n",
				       i, k, (unsigned long long)r[k][i * words],
				       (unsigned long long)pattern(i, k));
				exit(1);
			}
	printf("MAPCOUNT_TOUCHED pages=%lu\n", 2 * pages);
	exit(0);
}

int main(int argc, char **argv)
{
	unsigned long pages = argc > 1 ? strtoul(argv[1], NULL, 0) : 40000;
	int status;
	pid_t pid;

	fflush(stdout);
	pid = fork();
	if (pid < 0) {
		printf("MAPCOUNT_FAIL fork\n");
		return 1;
	}
	if (pid == 0)
		run_child(pages);
	if (wait_child_for(pid, &status, CHILD_SECONDS)) {
		printf("MAPCOUNT_FAIL the child still ran after %d s (a fault that never ends?)\n",
		       CHILD_SECONDS);
		return 1;
	}
	if (WIFSIGNALED(status)) {
		printf("MAPCOUNT_OK child=killed by signal %d\n", WTERMSIG(status));
		return 0;
	}
	if (WIFEXITED(status) && WEXITSTATUS(status) == 0) {
		printf("MAPCOUNT_OK child=touched\n");
		return 0;
	}
	printf("MAPCOUNT_FAIL the child exited with %d\n", WEXITSTATUS(status));
	return 1;
}
