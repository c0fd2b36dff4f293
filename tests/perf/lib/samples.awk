# samples.awk - perfbench output (a console log or its stdout) to rows of
# samples.tsv
#
# Usage: awk -v cond=LABEL -v round=N -f samples.awk LOG >>samples.tsv
#
# Keeps only well-formed "PB" lines (8 tab-separated fields, numbers where
# numbers belong, a case name of [a-z0-9_-] not starting with "-"
# (parallel-threads): a kernel message printed into
# the middle of a guest line must not become a sample, nor a name the
# guest made up reach the table and the terminal) and prints
#   condition round case ops ns_total ns_per_op page_size ns_per_mb
# perfbench's own round number is dropped: the runner's round is what
# interleaves conditions.  -v compute_as=NAME files the compute case under
# NAME (tests/perf/run: the validator's own samples are "compute").
BEGIN { FS = OFS = "\t" }
{ sub(/\r+$/, "") }
$1 != "PB" || NF != 8 { next }
$2 !~ /^[a-z0-9_][a-z0-9_-]*$/ || $4 !~ /^[0-9]+$/ || $5 !~ /^[0-9]+$/ || $6 !~ /^[0-9.]+$/ { next }
$7 !~ /^[0-9]+$/ || $8 !~ /^([0-9.]+|-)$/ { next }
$2 == "compute" && compute_as != "" { $2 = compute_as }
{ print cond, round, $2, $4, $5, $6, $7, $8 }
