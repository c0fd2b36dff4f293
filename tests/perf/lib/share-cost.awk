# share-cost.awk - samples.tsv to the cost of shares: for each case but
# compute, the median with shares against the median without, for proot
# (variable pn: "proot-N" against proot-0) and the guest (gn: "guest-N"
# against guest-0).  Used by tests/perf/shares after tests/perf/table
# validated the same file.  Needs median.awk.
BEGIN { FS = "\t" }
{ per_op[$1, $3, ++n[$1, $3]] = $6; seen[$3] = 1 }

# cost(c, base, k) - percent by which c's median exceeds base's for case k
function cost(c, base, k,    m) {
	m = median(per_op, base, k, n[base, k])
	return m > 0 ? 100 * (median(per_op, c, k, n[c, k]) / m - 1) : 0
}

# shown(c, base, k) - cost(), or n/a where either condition has no sample
# (proot left out where it cannot run perfbench)
function shown(c, base, k) {
	if (!n[c, k] || !n[base, k])
		return sprintf("%12s", "n/a")
	return sprintf("%+11.1f%%", cost(c, base, k))
}

END {
	printf "%-10s %12s %12s\n", "case", "proot-N/0", "guest-N/0"
	for (k in seen)
		if (k != "compute")
			printf "%-10s %s %s\n", k, shown(pn, "proot-0", k),
				shown(gn, "guest-0", k)
}
