# targets.awk - issue 16's targets, judged from a run's medians and census
#
# Input files, each preceded by an assignment that names it (POSIX awk):
#   part=manifest manifest.txt   "condition: LABEL:KIND[:ARG...]" lines
#   part=samples  samples.tsv    the timing run's samples (table.awk's input)
#   part=cmanifest manifest.txt  the census run's manifest (optional)
#   part=census   census.tsv     a census run's counts (optional)
# Needs median.awk.  Prints one line per target and guest condition:
# the measured value, the limit, and MET, NOT MET or "not measured" with
# what the runs lack.  POSIX awk (the emulated host has mawk/busybox awk).
BEGIN { FS = "\t" }

# A guest condition runs a UML kernel; SECCOMP mode only where the condition
# asks for it (seccomp=on): the kernels' default (seccomp=auto) falls back
# to ptrace mode where the host refuses the filters, so it proves nothing.
part == "manifest" && /^condition: / {
	spec = substr($0, 12)
	label = spec; sub(/:.*/, "", label)
	if (label == "native" || label == "proot" || spec !~ /:/)
		next
	guests[++nguests] = label
	timing_spec[label] = spec
	if (spec ~ /:seccomp=on(:|$)/)
		seccomp[label] = 1
	next
}

# a census row counts for a label only if the census ran the same condition
part == "cmanifest" && /^condition: / {
	spec = substr($0, 12)
	label = spec; sub(/:.*/, "", label)
	census_spec[label] = spec
	next
}

part == "samples" && $1 != "condition" && NF == 8 {
	n = ++count[$1, $3]
	per_op[$1, $3, n] = $6
	if ($8 != "-")
		per_mb[$1, $3, n] = $8
	next
}

part == "census" && $1 != "condition" && NF == 7 {
	census[$1, $2, $4] = $7
	next
}

# med(c, k) - median µs per op of case k under condition c, "" if not run
function med(c, k) {
	return count[c, k] ? median(per_op, c, k, count[c, k]) / 1000 : ""
}

# med_mb(c, k) - median µs per MiB, "" if not run
function med_mb(c, k) {
	return ((c, k, 1) in per_mb) ? median(per_mb, c, k, count[c, k]) / 1000 : ""
}

# verdict(what, c, detail, value, limit) - one target line
function verdict(what, c, detail, value, limit) {
	printf "%-40s %-8s %-34s %s\n", what, c, detail,
		(value <= limit) ? "MET" : "NOT MET"
	judged++
	if (value > limit)
		missed++
}

# unmeasured(what, c, why) - a target this run cannot judge, and why
function unmeasured(what, c, why) {
	printf "%-40s %-8s not measured: %s\n", what, c, why
}

# ratio_target(what, c, k, v, bv, base, limit) - whether v / bv <= limit:
# case k under condition c against condition base
function ratio_target(what, c, k, v, bv, base, limit) {
	if (v == "" || bv == "" || bv <= 0)
		unmeasured(what, c, "needs " k " under " c " and " base)
	else
		verdict(what, c, sprintf("%.3f / %.3f us = %.2fx (<= %s)", v, bv, v / bv, limit), v / bv, limit)
}

# seccomp_targets(c) - the two targets of SECCOMP mode
function seccomp_targets(c,    f) {
	ratio_target("getppid <= 1.5x host seccomp trap", c, "syscall/sigtrap",
		med(c, "syscall"), med("native", "sigtrap"), "native", 1.5)
	if (!((c, "syscall", "futex") in census)) {
		unmeasured("host futex per guest syscall <= 1", c, "no census of " c "'s syscall case given")
		return
	}
	if (census_spec[c] != timing_spec[c]) {
		unmeasured("host futex per guest syscall <= 1", c, "the census ran " c " as " census_spec[c])
		return
	}
	f = census[c, "syscall", "futex"]
	verdict("host futex per guest syscall <= 1", c, sprintf("%.2f (<= 1; 0 if the stub spins)", f), f, 1)
}

# guest_targets(c) - the targets of every guest condition
function guest_targets(c) {
	if (c in seccomp)
		seccomp_targets(c)
	ratio_target("openat <= 1.5x native", c, "openat",
		med(c, "openat"), med("native", "openat"), "native", 1.5)
	ratio_target("anonymous fault per MiB <= 1.3x native", c, "fault/MiB",
		med_mb(c, "fault"), med_mb("native", "fault"), "native", 1.3)
	ratio_target("fork+exec <= proot", c, "forkexec",
		med(c, "forkexec"), med("proot", "forkexec"), "proot", 1)
}

END {
	if (!nguests) {
		print "targets: the manifest names no guest condition" >"/dev/stderr"
		exit 2
	}
	for (i = 1; i <= nguests; i++)
		guest_targets(guests[i])
	printf "targets: %d judged, %d not met\n", judged, missed
}
