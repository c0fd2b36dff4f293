# drift.awk - how far a round's validator samples lie from the reference
# (tests/perf/lib/validator.sh's round_drift; loaded after median.awk)
#
# Usage: awk -F '\t' -f median.awk -f drift.awk REFERENCE ROWS
# REFERENCE: one ns/op per line, the samples of the rounds kept so far;
# ROWS: a round's samples.tsv rows.  Prints the largest distance of a
# "compute" row from the reference's median, in percent.  POSIX awk.
FNR == NR { v["ref", "compute", ++n] = $1; next }
FNR == 1 { ref = median(v, "ref", "compute", n) }
$3 == "compute" { d = 100 * ($6 - ref) / ref; if (d < 0) d = -d; if (d > m) m = d }
END { printf "%.1f\n", m }
