# table.awk - samples.tsv to the benchmark table, or a refusal
#
# Input rows: condition round case ops ns_total ns_per_op page_size
# ns_per_mb (a header row starting with "condition" is skipped).
# Variables: max_spread, max_jitter (percent), unit (us, or s for boot
# times; compute stays in us in the refusals).  Needs median.awk.  POSIX awk: mawk and
# busybox awk run it (the emulated arm64 host has no gawk).
BEGIN { FS = "\t" }

$1 == "condition" { next }
NF != 8 { bad++; next }
# a round voided by tests/perf/run (the machine moved): counted, not used
$2 ~ /^v/ {
	if (!(($1, $2) in seen_void)) { seen_void[$1, $2] = 1; voided[$1]++; any_void = 1 }
	next
}
{
	if (!(($1, $2) in seen_round)) { seen_round[$1, $2] = 1; nrounds[$1]++ }
	c = $1; k = $3
	if (!(c in seen_cond)) { seen_cond[c] = 1; conds[++nconds] = c }
	if (!(k in seen_case)) { seen_case[k] = 1; cases[++ncases] = k }
	n = ++count[c, k]
	per_op[c, k, n] = $6
	page[c, k] = $7
	if ($8 != "-")
		per_mb[c, k, n] = $8
}

# jitter(c, k, n) - (max - min) / median of per_op[c, k, *], in percent
function jitter(c, k, n,    i, v, lo, hi, m) {
	lo = hi = per_op[c, k, 1] + 0
	for (i = 2; i <= n; i++) {
		v = per_op[c, k, i] + 0
		if (v < lo) lo = v
		if (v > hi) hi = v
	}
	m = median(per_op, c, k, n)
	return m > 0 ? 100 * (hi - lo) / m : 0
}

# validate() - the compute validator; prints reasons, returns 1 if the
# table must not be printed
function validate(    spread, i, c, m, lo, hi, lo_c, hi_c, j, worst, worst_c, fail) {
	fail = 0
	for (i = 1; i <= nconds; i++) {
		c = conds[i]
		if (!count[c, "compute"]) {
			printf "table: REFUSED: condition %s has no compute samples: nothing validates it (run the compute case)\n", c >"/dev/stderr"
			fail = 1
			continue
		}
		m = median(per_op, c, "compute", count[c, "compute"])
		if (lo == "" || m < lo) { lo = m; lo_c = c }
		if (hi == "" || m > hi) { hi = m; hi_c = c }
		j = jitter(c, "compute", count[c, "compute"])
		if (j > worst) { worst = j; worst_c = c }
		if (j > max_jitter) {
			printf "table: REFUSED: compute jitters %.1f%% within %s (max - min over %d samples; limit %s%%): the machine moved during the run\n", j, c, count[c, "compute"], max_jitter >"/dev/stderr"
			fail = 1
		}
	}
	if (lo != "" && lo > 0 && 100 * (hi - lo) / lo > max_spread) {
		printf "table: REFUSED: compute differs across conditions by %.1f%% (%s %.3f us, %s %.3f us; limit %s%%): identical instructions cannot, so the machine moved\n", 100 * (hi - lo) / lo, lo_c, lo / 1000, hi_c, hi / 1000, max_spread >"/dev/stderr"
		fail = 1
	}
	spread = (lo > 0) ? 100 * (hi - lo) / lo : 0
	if (!fail)
		printf "validator: compute spread %.1f%% across conditions (limit %s%%), worst jitter %.1f%% (%s; limit %s%%)\n", spread, max_spread, worst, (worst_c == "") ? "-" : worst_c, max_jitter
	return fail
}

# header(title) - the table's first line: title and one column per condition
function header(title,    i) {
	printf "\n%-14s", title
	for (i = 1; i <= nconds; i++)
		printf " %12s", conds[i]
	printf "\n"
}

# cell(v) - one value, or "-" for a case a condition did not run
function cell(v) {
	if (v == "")
		printf " %12s", "-"
	else
		printf " %12.3f", v
}

# medians() - med[c, k] and mb[c, k] in the table's unit
function medians(    i, l, c, k, div) {
	div = (unit == "s") ? 1e9 : 1000
	for (i = 1; i <= nconds; i++)
		for (l = 1; l <= ncases; l++) {
			c = conds[i]; k = cases[l]
			if (!count[c, k])
				continue
			med[c, k] = median(per_op, c, k, count[c, k]) / div
			if ((c, k, 1) in per_mb) {
				mb[c, k] = median(per_mb, c, k, count[c, k]) / div
				has_mb[k] = 1
			}
		}
}

# row(label, vals, k, base) - one line: vals[condition, k] for each
# condition, or its ratio to vals[base, k]
function row(label, vals, k, base,    i, c, v) {
	printf "%-14s", label
	for (i = 1; i <= nconds; i++) {
		c = conds[i]
		v = vals[c, k]
		if (base != "")
			v = (v != "" && vals[base, k] > 0) ? v / vals[base, k] : ""
		cell(v)
	}
	printf "\n"
}

# rows(base) - the medians, or their ratios to condition base
function rows(base,    i, l, k) {
	for (l = 1; l <= ncases; l++) {
		k = cases[l]
		# in seconds (boot times) the validator's µs would print as 0
		if (unit == "s" && k == "compute")
			continue
		row(k, med, k, base)
		if (!(k in has_mb))
			continue
		row(k "/MiB", mb, k, base)
		printf "%-14s", "  page size"
		for (i = 1; i <= nconds; i++)
			printf " %12s", page[conds[i], k]
		printf "\n"
	}
}

# rounds_line() - the rounds each condition contributed, and the rounds
# voided and run again (tests/perf/run) where there were any
function rounds_line(    i) {
	printf "%-14s", "rounds"
	for (i = 1; i <= nconds; i++)
		printf " %12d", nrounds[conds[i]]
	printf "\n"
	if (!any_void)
		return
	printf "%-14s", "  voided"
	for (i = 1; i <= nconds; i++)
		printf " %12d", voided[conds[i]]
	printf "\n"
}

END {
	if (bad)
		printf "table: %d malformed rows in %s ignored\n", bad, FILENAME >"/dev/stderr"
	if (!nconds) {
		print "table: no samples" >"/dev/stderr"
		exit 2
	}
	if (validate())
		exit 1
	medians()
	header((unit == "s") ? "s median" : "us/op median")
	rows("")
	rounds_line()
	if (seen_cond["native"]) {
		header("ratio/native")
		rows("native")
	}
	if (seen_cond["proot"]) {
		header("ratio/proot")
		rows("proot")
	}
	if (seen_cond["host"]) {
		header("ratio/host")
		rows("host")
	}
	if (seen_case["compute-inside"])
		printf "\ncompute: the validator, run natively beside every round of every condition;\ncompute-inside: the same arithmetic inside the condition (a guest's ratio to\nnative is the tax of its timer ticks; not judged)\n"
}
