// SPDX-License-Identifier: GPL-2.0
/*
 * case_fault.c - first touch of fresh anonymous memory, one page per
 * operation
 *
 * The step is the page size this process sees (sysconf), which differs
 * between a 4 KiB host and a 16 KiB guest: one "op" is then four times the
 * memory.  main.c therefore prints the page size and the time per MiB next
 * to the time per page; compare guests with hosts per MiB.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <sys/mman.h>
#include <unistd.h>

#include "perfbench.h"

/**
 * case_fault() - write one byte into each of @ops fresh anonymous pages
 * @ops:	pages
 * @s:		result; @s->bytes is the memory faulted in
 *
 * Only the touching is timed; mmap and munmap of the region are not.
 * Transparent huge pages are refused for the region (MADV_NOHUGEPAGE):
 * with them a native run would fault 2 MiB at a time and measure
 * something else than the guest, whose kernel has none.
 *
 * Return: 0, or -errno if the region cannot be mapped
 */
int case_fault(long ops, struct sample *s)
{
	long page = sysconf(_SC_PAGESIZE);
	size_t len = (size_t)ops * page;
	volatile char *p;
	uint64_t t0;
	long i;

	p = mmap(NULL, len, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		return -errno;
	madvise((void *)p, len, MADV_NOHUGEPAGE);
	t0 = now_ns();
	for (i = 0; i < ops; i++)
		p[i * page] = 1;
	s->ns_total = now_ns() - t0;
	s->bytes = len;
	munmap((void *)p, len);
	return 0;
}
