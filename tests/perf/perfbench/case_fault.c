// SPDX-License-Identifier: GPL-2.0
/*
 * case_fault.c - first touch of fresh anonymous memory, one page per
 * operation: in small pages (fault), and where the kernel may use
 * transparent huge pages (fault-huge)
 *
 * The step is the page size this process sees (sysconf), which differs
 * between a 4 KiB host and a 16 KiB guest: one "op" is then four times the
 * memory.  main.c therefore prints the page size and the time per MiB next
 * to the time per page; compare guests with hosts per MiB.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <sys/mman.h>
#include <unistd.h>

#include "perfbench.h"

/*
 * huge_page_size() - the size of a PMD-mapped huge page here (2 MiB with
 * 4 KiB pages, 32 MiB with 16 KiB ones), 2 MiB where the kernel does not
 * say
 */
static size_t huge_page_size(void)
{
	FILE *f = fopen("/sys/kernel/mm/transparent_hugepage/hpage_pmd_size",
			"r");
	unsigned long size = 0;

	if (f) {
		if (fscanf(f, "%lu", &size) != 1)
			size = 0;
		fclose(f);
	}
	return size ? size : 2UL << 20;
}

/*
 * touch_fresh() - map @ops fresh anonymous pages (aligned to @align when
 * it is not 0), give them @advice, and time a write to each page
 */
static int touch_fresh(long ops, int advice, size_t align, struct sample *s)
{
	long page = sysconf(_SC_PAGESIZE);
	size_t len = (size_t)ops * page;
	size_t map_len = len + align;
	char *map, *p;
	uint64_t t0;
	long i;

	map = mmap(NULL, map_len, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (map == MAP_FAILED)
		return -errno;
	p = map;
	if (align)
		p = (char *)(((unsigned long)map + align - 1) & ~(align - 1));
	madvise(p, len, advice);
	t0 = now_ns();
	for (i = 0; i < ops; i++)
		((volatile char *)p)[i * page] = 1;
	s->ns_total = now_ns() - t0;
	s->bytes = len;
	munmap(map, map_len);
	return 0;
}

/**
 * case_fault() - write one byte into each of @ops fresh anonymous pages
 * @ops:	pages
 * @s:		result; @s->bytes is the memory faulted in
 *
 * Only the touching is timed; mmap and munmap of the region are not.
 * Transparent huge pages are refused for the region (MADV_NOHUGEPAGE):
 * with them a run would fault 2 MiB at a time, which case_fault_huge()
 * measures.
 *
 * Return: 0, or -errno if the region cannot be mapped
 */
int case_fault(long ops, struct sample *s)
{
	return touch_fresh(ops, MADV_NOHUGEPAGE, 0, s);
}

/**
 * case_fault_huge() - case_fault() in memory aligned to, and advised for,
 * transparent huge pages (MADV_HUGEPAGE): what a program that asks for
 * them gets, natively and in a guest whose kernel has them
 * @ops:	pages (small ones: the same memory as case_fault())
 * @s:		result; @s->bytes is the memory faulted in
 *
 * Return: 0, or -errno if the region cannot be mapped
 */
int case_fault_huge(long ops, struct sample *s)
{
	return touch_fresh(ops, MADV_HUGEPAGE, huge_page_size(), s);
}
