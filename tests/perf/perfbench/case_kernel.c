// SPDX-License-Identifier: GPL-2.0
/*
 * case_kernel.c - cases that are one or two plain kernel entries per
 * operation: syscall (getppid), clock (clock_gettime: none where the
 * vDSO serves it), openat (+ close), mmap (map + unmap)
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "perfbench.h"

/* mmap's mapping: never touched, so the size only matters to the VMA code */
#define MMAP_CHURN_BYTES	(64 * 1024)

/**
 * case_syscall() - getppid() through syscall(2), @ops times
 * @ops:	operations
 * @s:		result
 *
 * getppid is the cheapest syscall there is and no libc caches it, so it
 * measures the interception and nothing else.
 *
 * Return: 0
 */
int case_syscall(long ops, struct sample *s)
{
	uint64_t t0 = now_ns();
	long i;

	for (i = 0; i < ops; i++)
		syscall(SYS_getppid);
	s->ns_total = now_ns() - t0;
	return 0;
}

/**
 * case_clock() - clock_gettime(CLOCK_MONOTONIC) through the libc, @ops times
 * @ops:	operations
 * @s:		result
 *
 * What a program that reads the time pays: where the kernel's vDSO
 * serves the clock (arm64, and arm64 guests with the cntvct clocksource)
 * no kernel is entered, and the census shows no host syscall per call.
 *
 * Return: 0, -1 if a call failed
 */
int case_clock(long ops, struct sample *s)
{
	uint64_t t0 = now_ns();
	struct timespec ts;
	long i;

	for (i = 0; i < ops; i++)
		if (clock_gettime(CLOCK_MONOTONIC, &ts))
			return -1;
	s->ns_total = now_ns() - t0;
	return 0;
}

/**
 * case_openat() - openat(OPENAT_PATH) and close(), @ops times
 * @ops:	operations
 * @s:		result
 *
 * A path lookup of a cached file: the row that resembles what programs do,
 * and the one proot pays most for (it rewrites every path).
 *
 * Return: 0, or -errno if OPENAT_PATH cannot be opened
 */
int case_openat(long ops, struct sample *s)
{
	uint64_t t0 = now_ns();
	long i;
	int fd;

	for (i = 0; i < ops; i++) {
		fd = openat(AT_FDCWD, OPENAT_PATH, O_RDONLY | O_CLOEXEC);
		if (fd < 0)
			return -errno;
		close(fd);
	}
	s->ns_total = now_ns() - t0;
	return 0;
}

/**
 * case_mmap() - map and unmap MMAP_CHURN_BYTES of anonymous memory,
 * @ops times, never touching it
 * @ops:	operations
 * @s:		result
 *
 * In a UML guest each map and unmap is a guest syscall plus host mappings
 * kept in step by the stub; no page is faulted in (that is the fault case).
 *
 * Return: 0, or -errno if mmap fails
 */
int case_mmap(long ops, struct sample *s)
{
	uint64_t t0 = now_ns();
	void *p;
	long i;

	for (i = 0; i < ops; i++) {
		p = mmap(NULL, MMAP_CHURN_BYTES, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (p == MAP_FAILED)
			return -errno;
		munmap(p, MMAP_CHURN_BYTES);
	}
	s->ns_total = now_ns() - t0;
	return 0;
}
