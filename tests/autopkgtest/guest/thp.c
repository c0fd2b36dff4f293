// SPDX-License-Identifier: GPL-2.0
/*
 * thp.c - transparent huge pages in a UML guest, and host mappings that
 * must not outlive the page tables that made them (arm64 and x86_64)
 *
 * UML maps a process's memory into its host process from the page tables;
 * a huge page is one host mapping of PMD_SIZE.  Every way the kernel
 * changes a huge mapping must reach the host: the program faults huge
 * pages in (and checks AnonHugePages in smaps), shares them with a child
 * (copy on write both ways), splits one by mprotect (the protected page
 * faults on a write, its neighbours do not), unmaps a page out of one
 * (it faults), discards pages with MADV_DONTNEED (they read zero, the
 * data around stays), and moves one with mremap (the old place faults).
 *
 * "refill": a range the process mapped and filled is replaced, in one
 * mmap(MAP_FIXED | MAP_POPULATE) call, by a one-page file mapping; the
 * rest of the range lies past the end of the file and must raise SIGBUS.
 * A kernel that let the host keep the old mappings there (a PMD cleared
 * and given a new PTE table before the host sync) returns the old data,
 * i.e. memory the guest has freed.  Run with small pages and, where there
 * are huge pages, with a huge one.
 *
 * Usage: thp [refill]   (refill: only the refill cases, which need no THP;
 *                        with THP off, the small-page one alone)
 *
 * Prints THP_OK ... or THP_FAIL <what>.  Any signal other than the ones
 * a step expects fails.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <setjmp.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

static size_t page;
static size_t huge;
static sigjmp_buf probe_env;

/* fail - say what went wrong and stop: the gate looks for THP_OK only */
static void fail(const char *what, const void *addr)
{
	printf("THP_FAIL %s (at %p)\n", what, addr);
	fflush(stdout);
	exit(1);
}

/* on_fault - a probed access faulted: return its signal to the probe */
static void on_fault(int sig)
{
	siglongjmp(probe_env, sig);
}

/* read_at - the byte at @p, or the signal reading it raised (as -signal) */
static int read_at(const volatile char *p)
{
	int sig = sigsetjmp(probe_env, 1);

	if (sig)
		return -sig;
	return (unsigned char)*p;
}

/* write_at - store @v at @p; 0, or the signal the store raised */
static int write_at(volatile char *p, char v)
{
	int sig = sigsetjmp(probe_env, 1);

	if (sig)
		return sig;
	*p = v;
	return 0;
}

/* pattern - what page @i of a test region holds */
static char pattern(size_t i)
{
	return (char)(0x41 + i % 53);
}

/*
 * thp_never - whether THP is off: "[never]" in its enabled file (what
 * a kernel with less than 512 MiB of memory sets at boot)
 */
static int thp_never(void)
{
	FILE *f = fopen("/sys/kernel/mm/transparent_hugepage/enabled", "r");
	char line[128] = "";

	if (!f)
		return 1;
	if (!fgets(line, sizeof(line), f))
		line[0] = 0;
	fclose(f);
	return strstr(line, "[never]") != NULL;
}

/* huge_page_size - the PMD size the kernel uses for THP, 0 if none */
static size_t huge_page_size(void)
{
	FILE *f = fopen("/sys/kernel/mm/transparent_hugepage/hpage_pmd_size",
			"r");
	unsigned long size = 0;

	if (!f)
		return 0;
	if (fscanf(f, "%lu", &size) != 1)
		size = 0;
	fclose(f);
	return size;
}

/* aligned_region - @len bytes of fresh anonymous memory aligned to @align */
static char *aligned_region(size_t len, size_t align, int advice)
{
	char *raw = mmap(NULL, len + align, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	uintptr_t start;

	if (raw == MAP_FAILED)
		fail("mmap of a test region", NULL);
	start = ((uintptr_t)raw + align - 1) & ~(uintptr_t)(align - 1);
	if (start > (uintptr_t)raw)
		munmap(raw, start - (uintptr_t)raw);
	munmap((char *)start + len, (uintptr_t)raw + align - start);
	/* without THP the kernel knows neither advice: small pages anyway */
	if (madvise((char *)start, len, advice) && (huge || errno != EINVAL))
		fail("madvise of a test region", (void *)start);
	return (char *)start;
}

/* fill - write each page's pattern into its first and last byte */
static void fill(char *region, size_t len)
{
	for (size_t i = 0; i < len / page; i++) {
		if (write_at(region + i * page, pattern(i)) ||
		    write_at(region + (i + 1) * page - 1, pattern(i)))
			fail("a write to fresh memory faulted", region + i * page);
	}
}

/* check - every page of [@from, @to) of @region still holds its pattern */
static void check(const char *region, size_t from, size_t to, const char *what)
{
	for (size_t i = from; i < to; i++) {
		if (read_at(region + i * page) != (unsigned char)pattern(i) ||
		    read_at(region + (i + 1) * page - 1) !=
		    (unsigned char)pattern(i))
			fail(what, region + i * page);
	}
}

/* anon_huge_kb - AnonHugePages of the mapping that holds @addr, in kB */
static long anon_huge_kb(const void *addr)
{
	FILE *f = fopen("/proc/self/smaps", "r");
	char line[256];
	int inside = 0;
	long kb = -1;

	if (!f)
		fail("no /proc/self/smaps", NULL);
	while (fgets(line, sizeof(line), f)) {
		unsigned long lo, hi;

		if (sscanf(line, "%lx-%lx ", &lo, &hi) == 2 &&
		    strchr(line, '-') < strchr(line, ' ')) {
			inside = (uintptr_t)addr >= lo && (uintptr_t)addr < hi;
			continue;
		}
		if (inside && sscanf(line, "AnonHugePages: %ld kB", &kb) == 1)
			break;
	}
	fclose(f);
	return kb;
}

/* fork_shares - a child sees the data; each side's writes stay its own */
static void fork_shares(char *region, size_t len)
{
	int to_child[2], to_parent[2], status;
	size_t last = len / page - 1;
	char token = 0;
	pid_t pid;

	if (pipe(to_child) || pipe(to_parent))
		fail("pipe", NULL);
	pid = fork();
	if (pid < 0)
		fail("fork", NULL);
	if (pid == 0) {
		check(region, 0, len / page, "the child sees other data");
		if (write_at(region + 3 * page, 'c'))
			fail("a write in the child faulted", region + 3 * page);
		if (write(to_parent[1], &token, 1) != 1 ||
		    read(to_child[0], &token, 1) != 1)
			_exit(2);
		if (read_at(region + last * page) != (unsigned char)pattern(last))
			fail("the parent's write reached the child",
			     region + last * page);
		_exit(0);
	}
	if (read(to_parent[0], &token, 1) != 1)
		fail("the child died", NULL);
	if (read_at(region + 3 * page) != (unsigned char)pattern(3))
		fail("the child's write reached the parent", region + 3 * page);
	if (write_at(region + last * page, 'p'))
		fail("a write in the parent faulted", region + last * page);
	if (write(to_child[1], &token, 1) != 1 ||
	    waitpid(pid, &status, 0) != pid ||
	    !WIFEXITED(status) || WEXITSTATUS(status) != 0)
		fail("the child failed", NULL);
	if (write_at(region + last * page, pattern(last)))
		fail("a write in the parent faulted", region + last * page);
	close(to_child[0]);
	close(to_child[1]);
	close(to_parent[0]);
	close(to_parent[1]);
}

/* split_by_mprotect - one page read-only inside a huge page */
static void split_by_mprotect(char *region)
{
	char *p = region + 9 * page;

	if (mprotect(p, page, PROT_READ))
		fail("mprotect", p);
	if (write_at(p, 'x') != SIGSEGV)
		fail("a write-protected page took a write", p);
	if (write_at(p - page, pattern(8)) || write_at(p + page, pattern(10)))
		fail("a neighbour of a write-protected page faulted", p);
	check(region, 0, 2 * huge / page, "data changed by mprotect");
	if (mprotect(p, page, PROT_READ | PROT_WRITE))
		fail("mprotect back", p);
}

/* discard - MADV_DONTNEED of a few pages, and of a whole huge page */
static void discard(char *region)
{
	char *p = region + 20 * page;

	if (madvise(p, 3 * page, MADV_DONTNEED))
		fail("madvise(MADV_DONTNEED)", p);
	for (int i = 0; i < 3; i++)
		if (read_at(p + i * page) != 0)
			fail("a discarded page is not zero", p + i * page);
	check(region, 0, 20, "data before discarded pages changed");
	check(region, 23, 2 * huge / page, "data after discarded pages changed");
	fill(region, 2 * huge);

	if (madvise(region + huge, huge, MADV_DONTNEED))
		fail("madvise(MADV_DONTNEED) of a huge page", region + huge);
	for (size_t off = 0; off < huge; off += page)
		if (read_at(region + huge + off) != 0)
			fail("a discarded huge page is not zero",
			     region + huge + off);
	check(region, 0, huge / page, "a huge page beside a discarded one changed");
	fill(region, 2 * huge);
}

/* punch - munmap one page out of a huge page: it faults, the rest not */
static void punch(char *region)
{
	char *p = region + 30 * page;

	if (munmap(p, page))
		fail("munmap of one page", p);
	if (read_at(p) != -SIGSEGV)
		fail("an unmapped page is still readable", p);
	check(region, 0, 30, "data before an unmapped page changed");
	check(region, 31, 2 * huge / page, "data after an unmapped page changed");
}

/* move - mremap of huge pages: the data moves, the old place faults */
static char *move(char *region)
{
	char *dest = aligned_region(2 * huge, huge, MADV_HUGEPAGE);
	char *moved;

	moved = mremap(region, 2 * huge, 2 * huge,
		       MREMAP_MAYMOVE | MREMAP_FIXED, dest);
	if (moved != dest)
		fail("mremap", region);
	if (read_at(region) != -SIGSEGV)
		fail("a moved-away huge page is still readable", region);
	check(moved, 0, 2 * huge / page, "data moved by mremap changed");
	return moved;
}

/*
 * refill - replace @len filled bytes at @region, in one call, by a
 * one-page file mapping; every page past the file must raise SIGBUS.
 */
static void refill(char *region, size_t len, const char *what)
{
	int fd = memfd_create("thp-refill", 0);
	char *file;

	if (fd < 0 || ftruncate(fd, page))
		fail("memfd", NULL);
	file = mmap(region, len, PROT_READ, MAP_SHARED | MAP_FIXED |
		    MAP_POPULATE, fd, 0);
	if (file != region)
		fail("mmap(MAP_FIXED) over a filled region", region);
	if (read_at(file) != 0)
		fail("the file's page reads other data", file);
	for (size_t off = page; off < len; off += page) {
		int got = read_at(file + off);

		if (got != -SIGBUS) {
			printf("THP_FAIL %s: read %d past the end of a file, not SIGBUS (offset %zu)\n",
			       what, got, off);
			exit(1);
		}
	}
	munmap(file, len);
	close(fd);
}

/*
 * refill_cases - the refill check over one PMD's span (a whole PTE table)
 * with small pages, then with a huge page
 */
static void refill_cases(void)
{
	size_t span = huge ? huge : page / sizeof(long) * page;
	char *small = aligned_region(span, span, MADV_NOHUGEPAGE);

	fill(small, span);
	refill(small, span, "refill of small pages");
	if (!huge)
		return;
	char *big = aligned_region(huge, huge, MADV_HUGEPAGE);

	fill(big, huge);
	if (anon_huge_kb(big) * 1024 < (long)huge)
		fail("no huge page for the refill check", big);
	refill(big, huge, "refill of a huge page");
}

int main(int argc, char **argv)
{
	struct sigaction sa = { .sa_handler = on_fault, .sa_flags = SA_NODEFER };
	char *region;
	long kb;

	setvbuf(stdout, NULL, _IOLBF, 0);
	page = sysconf(_SC_PAGESIZE);
	huge = huge_page_size();
	sigaction(SIGSEGV, &sa, NULL);
	sigaction(SIGBUS, &sa, NULL);

	if (argc > 1 && !strcmp(argv[1], "refill")) {
		if (thp_never())
			huge = 0;
		refill_cases();
		printf("THP_OK refill page=%zu huge=%zu\n", page, huge);
		return 0;
	}
	if (!huge)
		fail("no transparent huge pages in this kernel", NULL);
	if (thp_never())
		fail("transparent huge pages are off (less than 512 MiB of memory?)",
		     NULL);

	region = aligned_region(2 * huge, huge, MADV_HUGEPAGE);
	fill(region, 2 * huge);
	kb = anon_huge_kb(region);
	if (kb * 1024 < (long)(2 * huge)) {
		printf("THP_FAIL AnonHugePages %ld kB, want %zu\n", kb,
		       2 * huge / 1024);
		return 1;
	}
	check(region, 0, 2 * huge / page, "huge pages lost data");
	fork_shares(region, 2 * huge);
	split_by_mprotect(region);
	discard(region);
	region = move(region);
	punch(region);
	refill_cases();
	printf("THP_OK page=%zu huge=%zu anon_huge_kb=%ld cases=fault,fork,mprotect,dontneed,mremap,munmap,refill\n",
	       page, huge, kb);
	return 0;
}
