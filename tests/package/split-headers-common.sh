#!/bin/bash
# tests/package/split-headers-common.sh - debian/split-headers-common on
# small fabricated header trees, and on copies of it with planted faults
#
# Usage: tests/package/split-headers-common.sh [SCRIPT]
#
# Two fabricated flavour trees (h-4k, h-16k) hold identical files, a file
# that differs, one in one tree only, an ELF file, a file whose mode differs,
# a symbolic link, wholly shared directories (one of mode 0750) and a
# not-shared directory of mode 0750.  Checked: what the common tree and each
# tree hold afterwards (types, modes, link targets), that every tree still
# shows the same names, modes and contents through its links, that two runs
# give the same result, the --reference mode (with the common tree as
# reference, and with a reference that differs), and that a missing tree
# is refused with nothing changed.
#
# Without SCRIPT: the checks must pass on debian/split-headers-common, and
# must fail on each planted fault (a sed expression applied to a copy of
# it).  Exit status 0 when both hold.
set -u
export LC_ALL=C
umask 022

top=$(cd "$(dirname "$0")/../.." && pwd)
real=$top/debian/split-headers-common

# fail MESSAGE - one failed check: say which, for the log
fail() { echo "FAIL: $*"; return 1; }

# fabricate DIR - the two flavour trees DIR/h-4k and DIR/h-16k
fabricate() {
	local d=$1 f t
	for f in 4k 16k; do
		t=$d/h-$f
		mkdir -p "$t/include/linux/sub" "$t/include/generated" "$t/include/dt" \
			"$t/scripts/basic" "$t/tools/priv"
		echo 'obj-m += x.o' >"$t/Makefile"
		echo '#define A 1' >"$t/include/linux/a.h"
		echo '#define B 1' >"$t/include/linux/sub/b.h"
		echo "#define FLAVOUR \"$f\"" >"$t/include/generated/autoconf.h"
		echo '#define SAME 1' >"$t/include/generated/same.h"
		echo '#define X 1' >"$t/include/dt/x.h"
		ln -s ../linux/a.h "$t/include/dt/link.h"
		printf '\177ELF\2\1\1\0 a host program' >"$t/scripts/basic/fixdep"
		printf '#!/bin/sh\necho run\n' >"$t/scripts/run.sh"
		echo 'mode' >"$t/scripts/mode.sh"
		echo 'private' >"$t/tools/priv/p.h"
		chmod 755 "$t/scripts/basic/fixdep" "$t/scripts/run.sh"
		chmod 640 "$t/tools/priv/p.h"
		chmod 750 "$t/tools/priv" "$t/scripts"
	done
	chmod 755 "$d/h-4k/scripts/mode.sh"
	echo '#define ONLY_4K 1' >"$d/h-4k/include/extra.h"
}

# listing DIR - every entry: path, type and mode, or a link's target
listing() {
	(cd "$1" && find . -mindepth 1 \( -type l -printf '%P l %l\n' \) -o \
		-printf '%P %y %m\n') | sort
}

# view DIR - what DIR shows through its links: names, types, modes, contents
view() {
	(cd "$1" && find -L . -mindepth 1 -printf '%P %y %m\n' | sort &&
		find -L . -type f -print0 | sort -z | xargs -0 sha256sum)
}

# expect WHAT FILE - FILE's content is the expected listing on stdin
expect() {
	local want
	want=$(cat)
	[ "$want" = "$(cat "$2")" ] && return 0
	fail "$1 is not as expected:"
	diff <(echo "$want") "$2" | sed 's/^/    /'
	return 1
}

# expected_tree FLAVOUR - a tree after the split
expected_tree() {
	cat <<-EOF
	Makefile l ../h-common/Makefile
	include d 755
	include/dt d 755
	include/dt/link.h l ../linux/a.h
	include/dt/x.h l ../../../h-common/include/dt/x.h
	EOF
	[ "$1" != 4k ] || echo "include/extra.h f 644"
	cat <<-EOF
	include/generated d 755
	include/generated/autoconf.h f 644
	include/generated/same.h l ../../../h-common/include/generated/same.h
	include/linux l ../../h-common/include/linux
	scripts d 750
	scripts/basic d 755
	scripts/basic/fixdep f 755
	scripts/mode.sh f $([ "$1" = 4k ] && echo 755 || echo 644)
	scripts/run.sh l ../../h-common/scripts/run.sh
	tools l ../h-common/tools
	EOF
}

# expected_common - the common tree after the split
expected_common() {
	cat <<-'EOF'
	Makefile f 644
	include d 755
	include/dt d 755
	include/dt/x.h f 644
	include/generated d 755
	include/generated/same.h f 644
	include/linux d 755
	include/linux/a.h f 644
	include/linux/sub d 755
	include/linux/sub/b.h f 644
	scripts d 750
	scripts/run.sh f 755
	tools d 755
	tools/priv d 750
	tools/priv/p.h f 640
	EOF
}

# check_split SCRIPT DIR - a split of fabricated trees gives the expected
# trees, loses nothing seen through the links, and is reproducible
check_split() {
	local s=$1 d=$2 f
	fabricate "$d/a" && fabricate "$d/b" || return
	for f in 4k 16k; do view "$d/a/h-$f" >"$d/view-$f"; done
	"$s" "$d/a/h-common" "$d/a/h-4k" "$d/a/h-16k" || fail "the split failed" || return
	listing "$d/a/h-common" >"$d/common" &&
		expected_common | expect "the common tree" "$d/common" || return
	for f in 4k 16k; do
		listing "$d/a/h-$f" >"$d/tree-$f" &&
			expected_tree "$f" | expect "h-$f" "$d/tree-$f" || return
		view "$d/a/h-$f" | expect "what h-$f shows through its links" "$d/view-$f" ||
			return
	done
	"$s" "$d/b/h-common" "$d/b/h-4k" "$d/b/h-16k" >/dev/null ||
		fail "the second split failed" || return
	listing "$d/b/h-common" | expect "h-common of a second run" "$d/common" || return
	for f in 4k 16k; do
		listing "$d/b/h-$f" | expect "h-$f of a second run" "$d/tree-$f" || return
	done
}

# check_reference SCRIPT DIR - --reference with the common tree of
# check_split links the same and writes no common tree; a reference that
# holds one more file or another content keeps those parts in the trees
check_reference() {
	local s=$1 d=$2 f
	fabricate "$d/r" || return
	"$s" --reference "$d/a/h-common" "$d/r/h-common" "$d/r/h-4k" "$d/r/h-16k" ||
		fail "the split with --reference failed" || return
	[ ! -e "$d/r/h-common" ] || fail "--reference wrote the common tree" || return
	for f in 4k 16k; do
		listing "$d/r/h-$f" | expect "h-$f split with --reference" "$d/tree-$f" || return
	done
	fabricate "$d/x" && cp -a "$d/a/h-common" "$d/x-ref" || return
	echo '#define EXTRA 1' >"$d/x-ref/include/linux/extra.h"
	echo 'echo other' >"$d/x-ref/scripts/run.sh"
	"$s" --reference "$d/x-ref" "$d/x/h-common" "$d/x/h-4k" "$d/x/h-16k" ||
		fail "the split with another reference failed" || return
	listing "$d/x/h-16k" | grep -E '^(include/linux|scripts/run)' >"$d/x-16k"
	expect "h-16k split with another reference" "$d/x-16k" <<-'EOF'
	include/linux d 755
	include/linux/a.h l ../../../h-common/include/linux/a.h
	include/linux/sub l ../../../h-common/include/linux/sub
	scripts/run.sh f 755
	EOF
}

# check_refusal SCRIPT DIR - a missing tree, or a common tree that exists
# without --reference, is refused with a message and nothing changed
check_refusal() {
	local s=$1 d=$2/m before
	fabricate "$d" || return
	before=$(listing "$d")
	if "$s" "$d/h-common" "$d/h-4k" "$d/h-missing" 2>"$d.err"; then
		fail "a missing tree was not refused"
		return 1
	fi
	grep -q 'h-missing.*nothing changed' "$d.err" ||
		fail "the refusal does not name the missing tree: $(cat "$d.err")" || return
	[ "$before" = "$(listing "$d")" ] || fail "a refused split changed the trees" ||
		return
	mkdir "$d/h-common"
	before=$(listing "$d")
	if "$s" "$d/h-common" "$d/h-4k" "$d/h-16k" 2>"$d.err"; then
		fail "an existing common tree was not refused"
		return 1
	fi
	[ "$before" = "$(listing "$d")" ] || fail "a refused split changed the trees"
}

# check_all SCRIPT - every check on SCRIPT, in a scratch directory
check_all() {
	local d rc=0
	d=$(mktemp -d) || return
	check_split "$1" "$d" && check_reference "$1" "$d" && check_refusal "$1" "$d" ||
		rc=1
	rm -rf "$d"
	return "$rc"
}

# The planted faults: NAME|sed expression that makes the fault
# shellcheck disable=SC2016 # sed expressions, not shell ones
PLANTS=(
	'differing file moved|s/v = \$3 "\\t" \$4/v = $3/'
	'mode ignored|s/v = \$3 "\\t" \$4/v = $4/'
	'ELF file moved|s/\[ "\$magic" = "\$(printf .\\177ELF.)" \] || //'
	'symbolic link moved|s/\$2 == "f" { k = \$1/($2 == "f" || $2 == "l") { k = $1/'
	'parent modes not kept|s/install -d -m "\$(stat -c %a "\$first\/\$p")"/install -d -m 755/'
	'shared directories left out|s/^\t\t\t\tprint k$/\t\t\t\tif (k in ok) print k/'
	'reference not compared|s/mans+=("\$work\/ref");//'
	'missing tree not refused|s/^\t\tcheck_dir "\$t"$/\t\t:/'
)

# check_plant NAME EXPR - the checks must fail on the script with the fault
check_plant() {
	local d rc
	d=$(mktemp -d) || return
	sed -e "$2" "$real" >"$d/split" && chmod +x "$d/split"
	if cmp -s "$real" "$d/split"; then
		echo "FAIL: plant '$1' changes nothing in the script (was it changed?)"
		rm -rf "$d"
		return 1
	fi
	if check_all "$d/split" >"$d/out" 2>&1; then
		echo "FAIL: plant '$1' was not detected"
		rc=1
	else
		echo "ok: plant '$1' detected: $(grep -m1 '^FAIL' "$d/out" || tail -n 1 "$d/out")"
		rc=0
	fi
	rm -rf "$d"
	return "$rc"
}

if [ $# -gt 0 ]; then
	check_all "$1"
	exit
fi
rc=0
if check_all "$real"; then
	echo "ok: debian/split-headers-common passes"
else
	rc=1
fi
for p in "${PLANTS[@]}"; do
	check_plant "${p%%|*}" "${p#*|}" || rc=1
done
exit "$rc"
