// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * coredump.c - the registers in a guest core dump are the dead thread's own
 *
 * A child loads known values into x0-x28, tpidr_el0, v0-v31, FPSR and
 * FPCR and dies of SIGSEGV with them live, in two ways:
 *
 *   fault    a store to address 8: the kernel takes a fault of the stub
 *   syscall  kill(getpid(), SIGSEGV) by svc: the kernel takes a syscall
 *            stop, where an arm64 host shows its tracer x7 as 0 or 1
 *
 * The parent reads the core file ("core" in a directory of its own) and
 * compares NT_PRSTATUS, NT_PRFPREG and NT_ARM_TLS with what was loaded.
 * A ptrace-mode kernel that leaves registers in the stub until it needs
 * them must fetch them for the dump.
 *
 * Prints "COREDUMP_OK cases=2" or "COREDUMP_FAIL <case> <what> want got".
 */
#define _GNU_SOURCE
#include <elf.h>
#include <fcntl.h>
#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/procfs.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#define CORE_MAX	(64 << 20)
#define FAULT_ADDR	8UL
#define TLS_VALUE	0x7e57c0de5eed0000UL
#define FPSR_VALUE	0x1fUL		/* every cumulative exception flag */
#define FPCR_VALUE	0x00c00000UL	/* round towards zero */

/* struct user_fpsimd_state, the NT_PRFPREG note */
struct fpsimd {
	uint64_t v[32][2];
	uint32_t fpsr, fpcr, reserved[2];
};

/* what die_loaded() loads, at the offsets its assembly uses */
static struct {
	uint64_t x[29];		/* 0: x0-x28 */
	uint64_t fpsr, fpcr;	/* 232 */
	uint64_t by_syscall;	/* 248 */
	uint64_t v[32][2];	/* 256: v0-v31 */
} loaded __attribute__((aligned(16)));

/* x_n's value: distinct per register and per case, never 0 or 1 */
static void fill_patterns(int by_syscall)
{
	int i;

	for (i = 0; i < 29; i++)
		loaded.x[i] = 0xa5a5000000000000UL | (uint64_t)i << 32 |
			      (uint64_t)by_syscall << 16 | (0x1111U * i + 2);
	for (i = 0; i < 32; i++) {
		loaded.v[i][0] = 0x1111111100000000UL | i | by_syscall << 8;
		loaded.v[i][1] = 0x2222222200000000UL | i;
	}
	loaded.x[28] = FAULT_ADDR;
	loaded.fpsr = FPSR_VALUE;
	loaded.fpcr = FPCR_VALUE;
	loaded.by_syscall = by_syscall;
	if (by_syscall) {
		loaded.x[0] = getpid();
		loaded.x[1] = SIGSEGV;
		loaded.x[8] = SYS_kill;
	}
}

/* x0-x28 from the block at x28 (x28 last) */
#define LOAD_GPRS					\
	"ldp	x0, x1, [x28, #0]\n"			\
	"ldp	x2, x3, [x28, #16]\n"			\
	"ldp	x4, x5, [x28, #32]\n"			\
	"ldp	x6, x7, [x28, #48]\n"			\
	"ldp	x8, x9, [x28, #64]\n"			\
	"ldp	x10, x11, [x28, #80]\n"			\
	"ldp	x12, x13, [x28, #96]\n"			\
	"ldp	x14, x15, [x28, #112]\n"			\
	"ldp	x16, x17, [x28, #128]\n"			\
	"ldp	x18, x19, [x28, #144]\n"			\
	"ldp	x20, x21, [x28, #160]\n"			\
	"ldp	x22, x23, [x28, #176]\n"			\
	"ldp	x24, x25, [x28, #192]\n"			\
	"ldp	x26, x27, [x28, #208]\n"			\
	"ldr	x28, [x28, #224]\n"

/*
 * load everything from `loaded` and die; no compiled code runs in between,
 * and the only input is the block's address, in x28
 */
static void __attribute__((noreturn)) die_loaded(void)
{
	register void *block __asm__("x28") = &loaded;

	__asm__ volatile("msr tpidr_el0, %0" : : "r"(TLS_VALUE));
	__asm__ volatile(
		"add	x9, x28, #256\n"
		"ld1	{v0.2d-v3.2d}, [x9], #64\n"
		"ld1	{v4.2d-v7.2d}, [x9], #64\n"
		"ld1	{v8.2d-v11.2d}, [x9], #64\n"
		"ld1	{v12.2d-v15.2d}, [x9], #64\n"
		"ld1	{v16.2d-v19.2d}, [x9], #64\n"
		"ld1	{v20.2d-v23.2d}, [x9], #64\n"
		"ld1	{v24.2d-v27.2d}, [x9], #64\n"
		"ld1	{v28.2d-v31.2d}, [x9], #64\n"
		"ldp	x9, x10, [x28, #232]\n"
		"msr	fpsr, x9\n"
		"msr	fpcr, x10\n"
		"ldr	x9, [x28, #248]\n"
		"cbnz	x9, 1f\n"
		LOAD_GPRS
		"str	x0, [x28]\n"
		"1:\n"
		LOAD_GPRS
		"svc	#0\n"
		"str	x0, [x28]\n"
		: : "r"(block) : "memory");
	__builtin_unreachable();
}

static int fail(const char *c, const char *what, uint64_t want, uint64_t got)
{
	printf("COREDUMP_FAIL %s %s want 0x%lx got 0x%lx\n", c, what,
	       (unsigned long)want, (unsigned long)got);
	return 1;
}

/* the descriptor of note @type named @name in core image @core, or NULL */
static const void *find_note(const char *core, size_t len, const char *name,
			     uint32_t type, uint32_t *size)
{
	const Elf64_Ehdr *eh = (const void *)core;
	int i;

	for (i = 0; i < eh->e_phnum; i++) {
		const Elf64_Phdr *ph = (const void *)(core + eh->e_phoff +
						      i * sizeof(*ph));
		size_t off, end;

		/* a truncated core (a full disk) has no note to find */
		if (eh->e_phoff + (i + 1) * sizeof(*ph) > len)
			break;
		off = ph->p_offset;
		end = off + ph->p_filesz;
		if (ph->p_type != PT_NOTE || end > len || end < off)
			continue;
		while (off + sizeof(Elf64_Nhdr) <= end) {
			const Elf64_Nhdr *nh = (const void *)(core + off);
			const char *n = core + off + sizeof(*nh);
			const char *desc = n + ((nh->n_namesz + 3) & ~3U);

			if (desc + nh->n_descsz > core + end)
				break;
			if (nh->n_type == type && nh->n_namesz == strlen(name) + 1 &&
			    !memcmp(n, name, nh->n_namesz)) {
				*size = nh->n_descsz;
				return desc;
			}
			off = desc + ((nh->n_descsz + 3) & ~3U) - core;
		}
	}
	return NULL;
}

/* compare the notes of core image @core with what case @c loaded */
static int check_core(const char *c, const char *core, size_t len,
		      int by_syscall)
{
	const struct elf_prstatus *pr;
	const struct fpsimd *fp;
	const uint64_t *tls;
	uint32_t size;
	int i;

	pr = find_note(core, len, "CORE", NT_PRSTATUS, &size);
	if (!pr || size < sizeof(*pr))
		return fail(c, "NT_PRSTATUS-size", sizeof(*pr), pr ? size : 0);
	for (i = 0; i < 29; i++) {
		uint64_t want = loaded.x[i];
		char what[8];

		if (by_syscall && i == 0)
			want = 0;	/* kill()'s return value */
		snprintf(what, sizeof(what), "x%d", i);
		if (pr->pr_reg[i] != want)
			return fail(c, what, want, pr->pr_reg[i]);
	}
	fp = find_note(core, len, "CORE", NT_PRFPREG, &size);
	if (!fp || size < offsetof(struct fpsimd, reserved))
		return fail(c, "NT_PRFPREG-size", sizeof(*fp), fp ? size : 0);
	for (i = 0; i < 32; i++) {
		char what[8];

		snprintf(what, sizeof(what), "v%d", i);
		if (fp->v[i][0] != loaded.v[i][0])
			return fail(c, what, loaded.v[i][0], fp->v[i][0]);
		if (fp->v[i][1] != loaded.v[i][1])
			return fail(c, what, loaded.v[i][1], fp->v[i][1]);
	}
	if (fp->fpsr != FPSR_VALUE)
		return fail(c, "fpsr", FPSR_VALUE, fp->fpsr);
	if (fp->fpcr != FPCR_VALUE)
		return fail(c, "fpcr", FPCR_VALUE, fp->fpcr);
	tls = find_note(core, len, "LINUX", NT_ARM_TLS, &size);
	if (!tls || size < sizeof(*tls))
		return fail(c, "NT_ARM_TLS-size", sizeof(*tls), tls ? size : 0);
	if (*tls != TLS_VALUE)
		return fail(c, "tpidr_el0", TLS_VALUE, *tls);
	return 0;
}

/* read file @path (at most CORE_MAX bytes) into a new buffer */
static char *read_core(const char *path, size_t *len)
{
	char *buf = malloc(CORE_MAX);
	ssize_t n;
	int fd;

	fd = open(path, O_RDONLY);
	if (!buf || fd < 0) {
		free(buf);
		return NULL;
	}
	*len = 0;
	while ((n = read(fd, buf + *len, CORE_MAX - *len)) > 0)
		*len += n;
	close(fd);
	return buf;
}

/* run case @c in a child that dumps core in the current directory */
static int run_case(const char *c, int by_syscall)
{
	struct rlimit unlimited = { RLIM_INFINITY, RLIM_INFINITY };
	size_t len = 0;		/* read_core() leaves it alone when it fails */
	char *core;
	int status, rc;
	pid_t pid;

	unlink("core");
	pid = fork();
	if (pid == 0) {
		setrlimit(RLIMIT_CORE, &unlimited);
		fill_patterns(by_syscall);
		die_loaded();
	}
	fill_patterns(by_syscall);
	if (pid < 0 || waitpid(pid, &status, 0) != pid)
		return fail(c, "fork-wait", 0, pid);
	if (!WIFSIGNALED(status) || WTERMSIG(status) != SIGSEGV ||
	    !WCOREDUMP(status))
		return fail(c, "status-sigsegv-core", 0x8b, status);
	core = read_core("core", &len);
	if (!core || len < sizeof(Elf64_Ehdr) || memcmp(core, ELFMAG, SELFMAG)) {
		free(core);
		return fail(c, "core-file", 0, len);
	}
	rc = check_core(c, core, len, by_syscall);
	free(core);
	return rc;
}

/* core files go to "core" in the current directory, which is our own */
static int setup_dumps(void)
{
	char dir[] = "/tmp/coredump.XXXXXX";
	int fd;

	mkdir("/tmp", 01777);
	if (!mkdtemp(dir) || chdir(dir))
		return fail("setup", "mkdtemp", 0, 0);
	fd = open("/proc/sys/kernel/core_pattern", O_WRONLY);
	if (fd < 0 || write(fd, "core\n", 5) != 5)
		return fail("setup", "core_pattern", 0, 0);
	close(fd);
	return 0;
}

int main(void)
{
	if (setup_dumps() || run_case("fault", 0) || run_case("syscall", 1))
		return 1;
	printf("COREDUMP_OK cases=2\n");
	return 0;
}
