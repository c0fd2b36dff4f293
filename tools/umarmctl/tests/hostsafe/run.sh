#!/bin/sh
# run.sh - umarmctl against a hostile configuration, guest or neighbour,
#	   without a UML kernel (fast: part of 'make check')
#
# Usage: tests/hostsafe/run.sh [CASE...]
#
# Drives the umarmctl binary of this tree with its directories in a
# scratch directory (UMARM_CONFIG_DIR, UMARM_STATE_DIR, UMARM_RUNTIME_DIR).
# Where a supervisor must run, the "kernel" is fake-kernel.sh, which prints
# the readiness marker and sleeps.  Every case prints PASS, FAIL or SKIP
# with the reason; the last line is "N passed, N failed"; the exit status
# is 1 if any case failed.  A failing run keeps its directory.

# SC2015: pass() never fails, so "check && pass || fail" is if-then-else.
# shellcheck disable=SC2015

set -u

here=$(cd "$(dirname "$0")" && pwd)
UMARMCTL=${UMARMCTL:-$here/../../umarmctl}
T=$(mktemp -d /tmp/umarm-hostsafe.XXXXXX)
chmod 755 "$T"
export UMARM_CONFIG_DIR="$T/etc" UMARM_STATE_DIR="$T/lib/umarm" \
       UMARM_RUNTIME_DIR="$T/run"
export UMARM_NO_SYSTEMD=1
unset UMARM_SRCDIR
fails=0 passes=0

pass() { passes=$((passes + 1)); echo "PASS $1"; }
fail() { fails=$((fails + 1)); echo "FAIL $1: $2"; }
skip() { echo "SKIP $1: $2"; }
u() { "$UMARMCTL" --no-systemd "$@"; }

# umarmctl starts no kernel where it cannot install the seccomp filter
# that keeps set-ID bits off shared files (nosetid_or_exit(): exit 125),
# as on qemu-user, which implements no seccomp(2) (an arm64 build chroot
# on another architecture).  'umarmctl check' says so once; the cases
# that need a started fake kernel skip there instead of failing.
filters=yes
u check 2>/dev/null | grep -q '^FAIL  *seccomp ' && filters=no

# needs_filters CASE - true if a kernel can be started here, else SKIP CASE
needs_filters() {
	[ "$filters" = yes ] && return 0
	skip "$1" "this host cannot install seccomp filters ('umarmctl check'): umarmctl starts no kernel here"
	return 1
}

# mkbase FILE - a 1 MiB file that passes for an ext4 image: zeros with the
# ext2/3/4 superblock magic (0xEF53, little-endian, at byte 1080)
mkbase() {
	truncate -s 1M "$1"
	printf '\123\357' | dd of="$1" bs=1 seek=1080 conv=notrunc status=none
}

# mkinst NAME [CREATE-OPTION...] - a stopped instance on a 1 MiB image
mkinst() {
	_n=$1
	shift
	[ -f "$T/base.img" ] || mkbase "$T/base.img"
	u create "$_n" --image "$T/base.img" "$@" >"$T/out" 2>&1 ||
		{ cat "$T/out"; return 1; }
}

# case_disk_rm_outside - 'disk rm' deletes only files of the instance
case_disk_rm_outside() {
	mkinst vm && mkinst vm2 || { fail disk-rm-outside "create failed"; return; }
	echo victim >"$T/victim.img"
	echo neighbour >"$T/lib/umarm/vm2/data.img"
	cat >>"$T/etc/instances/vm.conf" <<-CONF
	disk1 = ../../../victim.img
	disk2 = $T/lib/umarm/vm2/data.img
	CONF
	u disk rm vm 1 >"$T/out" 2>&1
	u disk rm vm 2 >>"$T/out" 2>&1
	u disk add vm 1M >>"$T/out" 2>&1
	own=$T/lib/umarm/vm/disk1.img
	[ -f "$own" ] || { fail disk-rm-outside "disk add made no $own"; return; }
	u disk rm vm 1 >>"$T/out" 2>&1
	if [ ! -f "$T/victim.img" ]; then
		fail disk-rm-outside "'disk1 = ../../../victim.img' deleted $T/victim.img"
	elif [ ! -f "$T/lib/umarm/vm2/data.img" ]; then
		fail disk-rm-outside "vm's 'disk rm' deleted vm2's data.img"
	elif [ -e "$own" ]; then
		fail disk-rm-outside "the instance's own $own was kept"
	else
		pass disk-rm-outside
	fi
	u rm vm vm2 >/dev/null 2>&1
}

# fake_build DIR - an images/build.sh that leaves DIR/ran and makes an image,
# with one recipe, minimal (umarmctl refuses names without a recipe.sh)
fake_build() {
	mkdir -p "$1/images/minimal"
	: >"$1/images/minimal/recipe.sh"
	cat >"$1/images/build.sh" <<-'SH'
	#!/bin/sh
	here=$(cd "$(dirname "$0")" && pwd)
	printf '%s\n' "$@" >"$here/../ran"
	truncate -s 1M "$here/built.img"
	printf '\123\357' | dd of="$here/built.img" bs=1 seek=1080 conv=notrunc status=none
	echo "$here/built.img"
	SH
	chmod 755 "$1/images" "$1/images/build.sh"
}

# case_image_recipe_lookup - only a real source tree's recipes run
case_image_recipe_lookup() {
	# a copy of umarmctl in $T/x/bin: BINDIR/../../images is $T/images
	mkdir -p "$T/x/bin"
	cp "$UMARMCTL" "$T/x/bin/umarmctl"
	fake_build "$T"
	"$T/x/bin/umarmctl" --no-systemd create stray --image minimal \
		>"$T/out" 2>&1
	if [ -e "$T/ran" ]; then
		fail image-recipe-lookup "a umarmctl in $T/x/bin ran $T/images/build.sh"
		return
	fi
	# a tree with a quote in its name: recognised, and no shell involved
	top="$T/it's a tree"
	mkdir -p "$top/tools/umarmctl" "$top/kernel/patches"
	: >"$top/kernel/patches/series"
	cp "$UMARMCTL" "$top/tools/umarmctl/umarmctl"
	fake_build "$top"
	chmod 755 "$top"
	"$top/tools/umarmctl/umarmctl" --no-systemd create tree \
		--image minimal >"$T/out" 2>&1
	if [ "$(tr '\n' ' ' <"$top/ran" 2>/dev/null)" != "minimal $(dpkg --print-architecture 2>/dev/null || echo amd64) " ]; then
		fail image-recipe-lookup "the tree's build.sh did not run with NAME ARCH: $(cat "$T/out")"
		return
	fi
	# a name without a recipe: refused with the names there are, unbuilt
	rm -f "$top/ran"
	"$top/tools/umarmctl/umarmctl" --no-systemd create tree3 \
		--image nosuch >"$T/out" 2>&1
	if [ -e "$top/ran" ] || ! grep -q "no base image 'nosuch'.*(there are: minimal)" "$T/out"; then
		fail image-recipe-lookup "an image name without a recipe: $(cat "$T/out")"
		return
	fi
	# the same tree, group-writable: not trusted
	rm -f "$top/ran"
	chmod g+w "$top/images"
	"$top/tools/umarmctl/umarmctl" --no-systemd create tree2 \
		--image minimal >"$T/out" 2>&1
	[ ! -e "$top/ran" ] && pass image-recipe-lookup ||
		fail image-recipe-lookup "ran a group-writable tree's build.sh"
	u rm tree >/dev/null 2>&1
}

# case_resize_quote - a state directory with a quote reaches no shell
case_resize_quote() {
	[ -x /sbin/resize2fs ] || { skip resize-quote "no /sbin/resize2fs"; return; }
	[ -f "$T/base.img" ] || mkbase "$T/base.img"
	# '$S/q/root.img' in a shell runs 'touch pwned' in the cwd, $T
	S="$T/lib/x';touch pwned;: '"
	(cd "$T" && UMARM_STATE_DIR="$S" "$UMARMCTL" --no-systemd \
		create q --image "$T/base.img" --disk 16M >"$T/out" 2>&1)
	if [ -e "$T/pwned" ]; then
		fail resize-quote "the state directory's name ran a command"
	elif [ ! -f "$S/q/root.img" ]; then
		fail resize-quote "no root.img: $(cat "$T/out")"
	else
		pass resize-quote
	fi
}

# case_usb_busid - a bus id that is not one never reaches the guest
case_usb_busid() {
	mkinst usbvm || { fail usb-busid "create failed"; return; }
	# shellcheck disable=SC2016
	bad='1-1$/{system("touch /tmp/x")}'
	u usb detach usbvm "$bad" >"$T/out" 2>&1
	rc=$?
	[ "$rc" = 2 ] && grep -q "invalid bus id" "$T/out" && pass usb-busid ||
		fail usb-busid "exit $rc: $(cat "$T/out")"
	u rm usbvm >/dev/null 2>&1
}

# mode PATH - its permission bits, in octal
mode() { stat -c %a "$1"; }

# case_modes - disks, logs and state directories are the owner's alone
case_modes() {
	needs_filters modes || return
	mkinst m --disk 16M || { fail modes "create failed"; return; }
	S=$T/lib/umarm/m
	got="dir $(mode "$S") root.img $(mode "$S/root.img")"
	if [ "$got" != "dir 700 root.img 600" ]; then
		fail modes "after create: $got (want dir 700 root.img 600)"
		return
	fi
	# an instance made by an older umarmctl, and a guest that boots
	chmod 755 "$S"
	chmod 644 "$S/root.img"
	: >"$S/console.log"
	chmod 640 "$S/console.log"
	sed -i 's/^disk0 = .*/disk0 = root.cow,'"$(echo "$T/base.img" | sed 's/[\/&]/\\&/g')"'/' \
		"$T/etc/instances/m.conf"
	(umask 022 && UMARM_KERNEL=$here/fake-kernel.sh u start m) \
		>"$T/out" 2>&1 || { fail modes "start failed: $(cat "$T/out")"; return; }
	u kill m >/dev/null 2>&1
	got=
	for f in "$S" "$S/root.img" "$S/console.log" "$S/supervisor.log" \
		 "$S/root.cow" "$S/last-run"; do
		[ "$(mode "$f")" = 700 ] || [ "$(mode "$f")" = 600 ] ||
			got="$got ${f#"$S"}:$(mode "$f")"
	done
	[ -z "$got" ] && pass modes || fail modes "readable by others:$got"
	u rm m >/dev/null 2>&1
}

# case_daemon_fds - the supervisor keeps none of start's fds, nor its cwd
case_daemon_fds() {
	needs_filters daemon-fds || return
	mkinst d || { fail daemon-fds "create failed"; return; }
	mkdir "$T/cwd"
	# fd 9 is the write end of the pipe to cat: cat ends only when
	# nobody holds it any more
	# shellcheck disable=SC2016
	(cd "$T/cwd" && UMARM_KERNEL=$here/fake-kernel.sh \
		timeout 20 sh -c '"$0" --no-systemd start d 9>&1 | cat >/dev/null' \
		"$UMARMCTL") >"$T/out" 2>&1
	rc=$?
	pid=$(sed -n 's/^supervisor=//p' "$T/run/d/state" 2>/dev/null)
	cwd=$(readlink "/proc/$pid/cwd" 2>/dev/null)
	u kill d >/dev/null 2>&1
	if [ -z "$pid" ]; then
		fail daemon-fds "no supervisor: $(cat "$T/out")"
	elif [ "$rc" != 0 ]; then
		fail daemon-fds "the pipe on start's fd 9 stayed open (exit $rc): the supervisor $pid holds it"
	elif [ "$cwd" != / ]; then
		fail daemon-fds "the supervisor $pid runs in $cwd"
	else
		pass daemon-fds
	fi
	u rm d >/dev/null 2>&1
}

# case_status_other_user - another user is told "unknown", not "stopped"
case_status_other_user() {
	[ "$(id -u)" = 0 ] && command -v setpriv >/dev/null ||
		{ skip status-other-user "needs root and setpriv"; return; }
	needs_filters status-other-user || return
	mkinst o || { fail status-other-user "create failed"; return; }
	UMARM_KERNEL=$here/fake-kernel.sh u start o >"$T/out" 2>&1 ||
		{ fail status-other-user "start: $(cat "$T/out")"; return; }
	setpriv --reuid=65534 --regid=65534 --clear-groups \
		"$UMARMCTL" --system --no-systemd list >"$T/out" 2>&1
	u kill o >/dev/null 2>&1
	if grep -q '^o  *unknown' "$T/out"; then
		pass status-other-user
	else
		fail status-other-user "list as uid 65534: $(cat "$T/out")"
	fi
	u rm o >/dev/null 2>&1
}

# case_clone_race - two clones to one new name: one wins, whole
#
# strace holds the first clone's mkdir() calls for 0.3 s each: the
# second runs its whole course in between, as a concurrent command may.
case_clone_race() {
	command -v strace >/dev/null || { skip clone-race "no strace"; return; }
	mkinst ca --disk 16M && mkinst cb --disk 16M ||
		{ fail clone-race "create failed"; return; }
	# data to copy
	for n in ca cb; do
		dd if=/dev/urandom of="$T/lib/umarm/$n/root.img" bs=1M \
		   count=4 conv=notrunc status=none
	done
	strace -f -o /dev/null -e trace=mkdir,mkdirat \
		-e inject=mkdir,mkdirat:delay_enter=300000 \
		"$UMARMCTL" --no-systemd clone ca cn >"$T/out.a" 2>&1 &
	sleep 0.1
	u clone cb cn >"$T/out.b" 2>&1
	wait
	if [ ! -f "$T/etc/instances/cn.conf" ]; then
		fail clone-race "neither clone made cn: $(cat "$T/out.a" "$T/out.b")"
	elif [ ! -f "$T/lib/umarm/cn/root.img" ]; then
		fail clone-race "cn.conf without its root.img (one clone removed the other's copy): $(cat "$T/out.a")"
	else
		pass clone-race
	fi
	u rm ca cb cn >/dev/null 2>&1
}

# case_reap_race - start never kills the kernel of a concurrent run
#
# strace holds start's opendir("/proc") (reap_orphans()) for 1 s; in
# between, a stand-in for a concurrent 'umarmctl run' (systemd's, which
# takes no operations lock) tries the run lock and, if it gets it, runs a
# "kernel" with this instance's uml_dir= argument.  It must either not get
# the lock, or not be killed.
case_reap_race() {
	command -v strace >/dev/null && command -v flock >/dev/null ||
		{ skip reap-race "needs strace and flock"; return; }
	mkinst rr || { fail reap-race "create failed"; return; }
	UMARM_KERNEL=$here/fake-kernel.sh strace -o /dev/null -P /proc \
		-e trace=openat -e inject=openat:delay_enter=1000000 \
		"$UMARMCTL" --no-systemd start rr >"$T/out" 2>&1 &
	spid=$!
	sleep 0.4
	flock -n -x "$T/lib/umarm/rr/.run.lock" \
		sh -c 'sleep 3; exit 0' "uml_dir=$T/run/rr/" &
	fpid=$!
	wait "$fpid"
	frc=$?
	wait "$spid"
	u kill rr >/dev/null 2>&1
	case $frc in
	0|1) echo "       (the stand-in run: status $frc)"; pass reap-race ;;
	*) fail reap-race "start killed the kernel of a run holding the lock (its status $frc): $(cat "$T/out")" ;;
	esac
	u rm rr >/dev/null 2>&1
}

# case_rename_race - rename never replaces a directory made meanwhile
#
# strace holds rename's rename() for 0.5 s; in between, NEWNAME's state
# directory appears, empty, as 'create NEWNAME' makes it before its lock.
case_rename_race() {
	command -v strace >/dev/null || { skip rename-race "no strace"; return; }
	mkinst ra || { fail rename-race "create failed"; return; }
	strace -f -o /dev/null -e trace=rename,renameat,renameat2 \
		-e inject=rename,renameat,renameat2:delay_enter=500000 \
		"$UMARMCTL" --no-systemd rename ra rb >"$T/out" 2>&1 &
	spid=$!
	sleep 0.2
	mkdir "$T/lib/umarm/rb"
	wait "$spid"
	rc=$?
	if [ "$rc" = 0 ]; then
		fail rename-race "renamed over the directory of a 'create rb' in progress"
	elif ! grep -q "already exists" "$T/out"; then
		fail rename-race "exit $rc: $(cat "$T/out")"
	else
		pass rename-race
	fi
	u rm ra rb >/dev/null 2>&1
}

# case_logs_escapes - logs on a terminal: colours pass, other escapes not
case_logs_escapes() {
	command -v script >/dev/null || { skip logs-escapes "no script(1)"; return; }
	mkinst lg || { fail logs-escapes "create failed"; return; }
	# a title, an OSC 52 clipboard write, a cursor report request
	printf 'ok \033[1;32mgreen\033[0m\r\n\033]0;title\007\033]52;c;cHduZWQ=\007\033[6n\302\233x\n' \
		>"$T/lib/umarm/lg/console.log"
	u logs lg | cmp -s - "$T/lib/umarm/lg/console.log" ||
		{ fail logs-escapes "logs to a pipe is not the log byte for byte"; return; }
	script -qec "$UMARMCTL --no-systemd logs lg" /dev/null >"$T/tty" 2>&1
	if grep -q "$(printf '\033]')" "$T/tty" ||
	   grep -q "$(printf '\033\\[6n')" "$T/tty" ||
	   grep -q "$(printf '\302\233')" "$T/tty"; then
		fail logs-escapes "an escape sequence reached the terminal: $(od -c "$T/tty" | head -5)"
	elif ! grep -q "$(printf '\033\\[1;32mgreen')" "$T/tty"; then
		fail logs-escapes "colours or text lost: $(od -c "$T/tty" | head -5)"
	else
		pass logs-escapes
	fi
	u rm lg >/dev/null 2>&1
}

# case_disk_symlinks - a disk image that the instance's account replaced by
# a symbolic link or a FIFO (a system instance's directory is _umarm's):
# root's resize must not grow what the link names, clone must not copy it,
# and neither may block on a FIFO
case_disk_symlinks() {
	mkinst sl --disk 16M || { fail disk-symlinks "create failed"; return; }
	printf 'secret\n' >"$T/secret"
	disk=$T/lib/umarm/sl/root.img
	rm -f "$disk"
	ln -s "$T/secret" "$disk"
	u disk resize sl 0 32M >"$T/out" 2>&1
	if [ "$(stat -c %s "$T/secret")" != 7 ]; then
		fail disk-symlinks "disk resize grew $T/secret through the link: $(stat -c %s "$T/secret") bytes"
		return
	fi
	u clone sl sl2 >>"$T/out" 2>&1
	if grep -qs secret "$T/lib/umarm/sl2/root.img"; then
		fail disk-symlinks "clone copied what the link names into sl2"
		return
	fi
	rm -f "$disk"
	mkfifo "$disk"
	if ! timeout 10 "$UMARMCTL" --no-systemd disk resize sl 0 32M >>"$T/out" 2>&1 &&
	   [ $? -eq 124 ]; then
		fail disk-symlinks "disk resize blocked on a FIFO"
		return
	fi
	pass disk-symlinks
	u rm sl sl2 >/dev/null 2>&1
}

# want NAME WANT_RC FILE PATTERN CMD... - CMD exits WANT_RC and its output
# (stdout and stderr, in FILE) matches the extended regular expression
want() {
	_n=$1 _w=$2 _f=$3 _p=$4
	shift 4
	"$@" >"$_f" 2>&1
	_rc=$?
	if [ "$_rc" != "$_w" ]; then
		fail "$_n" "exit $_rc, wanted $_w: $(head -c 300 "$_f")"
	elif ! grep -Eq -- "$_p" "$_f"; then
		fail "$_n" "no '$_p' in: $(head -c 300 "$_f")"
	else
		pass "$_n"
	fi
}

# case_verb_help - VERB --help is that verb's usage; usage errors exit 2,
# exec's (and shell's with a command) 255: 2 may be the command's status
case_verb_help() {
	want help.start 0 "$T/out" '^Usage: +umarmctl start NAME\.\.\. \[--attach\]' u start --help
	want help.alias 0 "$T/out" '^Usage: +umarmctl stop NAME' u poweroff -h
	want help.disk 0 "$T/out" 'disk list NAME' u disk --help
	want help.global 0 "$T/out" 'umarmctl reboot NAME' u --help
	want help.shell 2 "$T/out" 'usage: +umarmctl shell NAME' u shell
	want help.exec 255 "$T/out" 'usage: +umarmctl exec NAME' u exec
	want help.exec_nocmd 255 "$T/out" 'usage: +umarmctl exec NAME' u exec x
	want help.exec_timeout 255 "$T/out" "--timeout: '0x' is not a number of seconds" u exec x --timeout 0x -- true
	want help.shell_nocmd 255 "$T/out" 'usage: +umarmctl shell NAME' u shell x --
	# a bad global option or -o json is a bad command line of exec's too
	want help.exec_json 255 "$T/out" "'exec' has no JSON output" u exec x -o json true
	want help.exec_json_before 255 "$T/out" "'exec' has no JSON output" u -o json exec x true
	want help.exec_output_bad 255 "$T/out" "'yaml' is not an output mode" u exec x -o yaml true
	want help.exec_output_none 255 "$T/out" "-o needs a mode" u exec x -o
	want help.shell_json 255 "$T/out" "'shell' has no JSON output" u shell x -o json -- true
	want help.start_json 2 "$T/out" "'start' has no JSON output" u start x -o json
	want help.output_bad 2 "$T/out" "'yaml' is not an output mode" u -o yaml list
}

# case_guest_cmdline - the command line exec, shell and mconsole pass on is
# not searched for global options, nor is the value of a verb's option
case_guest_cmdline() {
	mkinst gc || { fail guest-cmdline "create failed"; return; }
	want guest_cmd.exec_help 255 "$T/out" "^umarmctl: error: nx: no such instance" u exec nx ls --help
	want guest_cmd.exec_output 255 "$T/out" "nx: no such instance" u exec nx ls -o yaml
	want guest_cmd.exec_timeout 255 "$T/out" "nx: no such instance" u exec nx --timeout 5 ls -v -o yaml
	want guest_cmd.shell 255 "$T/out" "nx: no such instance" u shell nx ls -o yaml
	want guest_cmd.mconsole 3 "$T/out" "nx: no such instance" u mconsole nx log -o yaml
	want guest_cmd.before_cmd 255 "$T/out" "'yaml' is not an output mode" u exec nx -o yaml ls
	# shellcheck disable=SC2016 # sh -c expands them
	want guest_cmd.cmdline 0 "$T/out" "^cmdline = -v$" sh -c '"$0" --no-systemd create gv --image "$1" --cmdline -v >/dev/null 2>&1 && "$0" --no-systemd config gv' "$UMARMCTL" "$T/base.img"
	u rm gc gv >/dev/null 2>&1
}

# case_usage_form - disk, net, port-forward and usb print their usage as
# every verb does, and name a bad value rather than print the usage
case_usage_form() {
	for v in "net" "net add" "net rm" "net list" "disk" "disk add x" \
		 "port-forward" "usb bogus"; do
		# shellcheck disable=SC2086
		want "usage_form.$(echo "$v" | tr ' ' _)" 2 "$T/out" "^usage: +umarmctl ${v%% *}" u $v
	done
	want usage_form.net_port 2 "$T/out" "^umarmctl: error: --port: 'bogus' is not a port forward" u net add x --port bogus
	want usage_form.net_rm_if 2 "$T/out" "^umarmctl: error: 'eth0' is not an interface: netN" u net rm x eth0
	want usage_form.disk_size 2 "$T/out" "^umarmctl: error: SIZE: '1X' is not a size of at least 1M" u disk add x 1X
	want usage_form.disk_n 2 "$T/out" "^umarmctl: error: N: '99' is not a disk number: 0 to 15" u disk rm x 99
	want usage_form.resize_size 2 "$T/out" "^umarmctl: error: SIZE: 'z' is not a size" u disk resize x 1 z
	want usage_form.port_spec 2 "$T/out" "^umarmctl: error: 'bad' is not a port forward" u port-forward x bad
}

# case_share_access - share add refuses a directory that whoever runs the
# instance cannot read: the system account (as root), or the caller
case_share_access() {
	[ "$(id -u)" = 0 ] || { skip share-access "needs root (to be the system account and an ordinary user)"; return; }
	getent passwd nobody >/dev/null || { skip share-access "no account nobody"; return; }
	mkinst sa || { fail share-access "create failed"; return; }
	mkdir -p "$T/private/d" "$T/open"
	chmod 700 "$T/private"
	chmod 755 "$T/open"
	sum=$(md5sum <"$T/etc/instances/sa.conf")
	want share_access.system 2 "$T/out" "sa: $T/private/d: the account nobody, which runs system instances, cannot read it \\(Permission denied\\): give it read and search permission" env UMARM_SYSTEM_ACCOUNT=nobody "$UMARMCTL" --no-systemd share add sa "$T/private/d"
	[ "$(md5sum <"$T/etc/instances/sa.conf")" = "$sum" ] && pass share_access.unchanged ||
		fail share_access.unchanged "the configuration changed"
	want share_access.system_ok 0 "$T/out" "open: $T/open on /mnt/open" env UMARM_SYSTEM_ACCOUNT=nobody "$UMARMCTL" --no-systemd share add sa "$T/open"
	want share_access.no_account 0 "$T/out" "d: $T/private/d on /mnt/d" env UMARM_SYSTEM_ACCOUNT=no-such-account "$UMARMCTL" --no-systemd share add sa "$T/private/d"
	# an ordinary user's own instance: the caller's permissions
	mkdir -p "$T/nb"
	chown nobody "$T/nb"
	cp "$T/base.img" "$T/nb/base.img"
	chmod 644 "$T/nb/base.img"
	nb() {
		setpriv --reuid=nobody --regid="$(id -g nobody)" --clear-groups \
			env HOME="$T/nb" UMARM_CONFIG_DIR="$T/nb/etc" \
			UMARM_STATE_DIR="$T/nb/lib" UMARM_RUNTIME_DIR="$T/nb/run" \
			"$UMARMCTL" --no-systemd --user "$@"
	}
	nb create un --image "$T/nb/base.img" >"$T/out" 2>&1 ||
		{ fail share_access.user "create as nobody failed: $(cat "$T/out")"; return; }
	want share_access.user 2 "$T/out" "un: $T/private/d: you cannot read it \\(Permission denied\\), and the instance runs as you" nb share add un "$T/private/d"
	want share_access.user_top 2 "$T/out" "un: $T/private: you cannot read it \\(Permission denied\\)" nb share add un "$T/private"
	want share_access.user_ok 0 "$T/out" "open: $T/open on /mnt/open" nb share add un "$T/open"
	nb rm un >/dev/null 2>&1
	u rm sa >/dev/null 2>&1
}

# case_share_cli - share add/rm/list refuse bad input, naming the fix;
# a stopped instance's share is saved for the next start
case_share_cli() {
	mkinst sc || { fail share-cli "create failed"; return; }
	mkdir -p "$T/share dir" "$T/sd"
	want share.help 0 "$T/out" 'umarmctl share list NAME' u share --help
	want share.usage 2 "$T/out" 'usage: +umarmctl share add NAME HOSTDIR' u share add sc
	want share.missing 2 "$T/out" "nope: No such file or directory: create the directory first" u share add sc "$T/nope"
	want share.blank 2 "$T/out" "without blanks" u share add sc "$T/share dir"
	want share.guest_root 2 "$T/out" "cannot be /" u share add sc "$T/sd" /
	want share.guest_slashes 2 "$T/out" "cannot be /" u share add sc "$T/sd" //host
	want share.add 0 "$T/out" "sd: $T/sd on /mnt/sd \\(hostfs, ro\\), mounted at the next start" u share add sc "$T/sd" --ro
	want share.dup_guest 2 "$T/out" "another share is mounted on that guest directory" u share add sc "$T/sd" /mnt/sd
	want share.renamed 0 "$T/out" "sd-2: .* on /mnt/sd-2" u share add sc "$T/sd"
	want share.list_json 0 "$T/out" '^\[\{"name":"sd","host":"[^"]*/sd","guest":"/mnt/sd","ro":true,"transport":"hostfs"\},\{"name":"sd-2"' u share list sc -o json
	want share.conf 0 "$T/out" "^share = sd $T/sd /mnt/sd ro$" u config sc
	want share.rm 0 "$T/out" "sd removed" u share rm sc /mnt/sd
	want share.rm_unknown 2 "$T/out" "no share 'sd' \\('umarmctl share list sc'\\)" u share rm sc sd
	sum=$(md5sum <"$T/etc/instances/sc.conf")
	want share.transport_bad 2 "$T/out" "^umarmctl: error: --transport: 'nfs' is not a transport: use hostfs or virtiofs$" u share add sc "$T/sd" --transport nfs
	[ "$(md5sum <"$T/etc/instances/sc.conf")" = "$sum" ] && pass share.transport_bad_unchanged ||
		fail share.transport_bad_unchanged "the configuration changed"
	want share.equals_form 0 "$T/out" "^named: $T/sd on /srv/named \\(hostfs, rw\\)" u share add sc "$T/sd" /srv/named --name=named --transport=hostfs
	want share.virtiofs_missing 6 "$T/out" "virtiofsd.*is missing: apt install virtiofsd" env UMARM_VIRTIOFSD="$T/no-virtiofsd" "$UMARMCTL" share add sc "$T/sd" /v --transport virtiofs
	u rm sc >/dev/null 2>&1
}

# case_output_modes - -o json / --output json anywhere; -o table is a table
case_output_modes() {
	mkinst om || { fail output-modes "create failed"; return; }
	want output.o_before 0 "$T/out" '^\[\{"name":"om"' u -o json list
	want output.long_two_words 0 "$T/out" '^\[\{"name":"om"' u list --output json
	want output.long_eq 0 "$T/out" '^\[\{"name":"om"' u list --output=json
	want output.table 0 "$T/out" '^NAME +STATE' u list -o table
	want output.bad 2 "$T/out" "'yaml' is not an output mode" u list -o yaml
	# a broken configuration: its numbers are unknown, not 0
	echo 'memory = lots' >>"$T/etc/instances/om.conf"
	want output.broken_null 0 "$T/out" '"memory":null,"cpus":null' u list -o json
	want output.broken_table 0 "$T/out" '^om +broken +- +- +- +- ' u list
	# a stray file whose name is no instance's is named, not counted
	: >"$T/etc/instances/not one.conf"
	u list >"$T/out" 2>/dev/null
	rows=$(sed -n '2,/^$/p' "$T/out" | grep -c .)
	[ -n "$rows" ] && grep -q "^$rows instances\{0,1\} listed\.$" "$T/out" &&
		pass output.count || fail output.count "$rows rows: $(cat "$T/out")"
	rm -f "$T/etc/instances/not one.conf"
	u rm om >/dev/null 2>&1
}

# case_json_forms - -o json gives JSON (escaped, null for unset) for config,
# check, disk list and usb list, and is refused where there is none
case_json_forms() {
	mkinst jf || { fail json-forms "create failed"; return; }
	esc=$(printf '\033]0;pwned\007')
	sed -i "s|^image = .*|image = x${esc}y|" "$T/etc/instances/jf.conf"
	want json.config 0 "$T/out" '^\{"name":"jf","file":"[^"]*/jf\.conf","image":"x\\u001b\]0;pwned\\u0007y","flavour":"[0-9]+k","memory":[0-9]+,"cpus":[0-9]+,"kernel":null,"disks":\[\{"disk":0,"device":"/dev/ubda","file":"[^"]*","base":' u config jf -o json
	want json.config_shares 0 "$T/out" '"exec":"[a-z-]+","shares":\[\]\}$' u config jf --output=json
	head -c 4096 /dev/urandom >"$T/lib/umarm/jf/root.cow"
	want json.disk_list 0 "$T/out" '^\[\{"disk":0,"device":"/dev/ubda","bytes":[1-9][0-9]*,"file":"[^"]*/root\.cow","base":"[^"]*/base\.img"\}\]$' u disk list jf -o json
	echo 'disk1 = gone.img' >>"$T/etc/instances/jf.conf"
	want json.disk_unknown 0 "$T/out" '\{"disk":1,"device":"/dev/ubdb","bytes":null,"file":"[^"]*/gone\.img","base":null\}\]$' u -o json disk list jf
	# shellcheck disable=SC2016 # sh -c expands them
	want json.check 0 "$T/out" '^\{"checks":\[\{"level":"(ok|FAIL|warn|info)","check":"[^"]+","found":".*\],"instance":null,"ok":(true|false)\}$' sh -c '"$0" --no-systemd check -o json; true' "$UMARMCTL"
	# shellcheck disable=SC2016 # sh -c expands them
	want json.check_inst 0 "$T/out" '"instance":\{"name":"jf","can_start":(true|false)\},"ok":' sh -c '"$0" --no-systemd check jf -o json 2>/dev/null; true' "$UMARMCTL"
	d=$T/sys/bus/usb/devices/1-2
	mkdir -p "$d" "$T/sys/bus/usb/devices/usb1"
	echo 1d6b >"$d/idVendor"
	echo 0104 >"$d/idProduct"
	printf 'Key%sboard\n' "$esc" >"$d/product"
	want json.usb_list 0 "$T/out" '^\[\{"busid":"1-2","vendor":"1d6b","product_id":"0104","state":"host","manufacturer":null,"product":"Key\\u001b\]0;pwned\\u0007board"\}\]$' env UMARM_SYSFS="$T/sys" "$UMARMCTL" usb list -o json
	env UMARM_SYSFS="$T/sys" "$UMARMCTL" usb list >"$T/out" 2>&1
	if grep -q "$(printf '\033')" "$T/out" ||
	   ! grep -q '^1-2 .*Key\\x1b\]0;pwned\\x07board' "$T/out"; then
		fail json.usb_table_escaped "$(od -c "$T/out" | head -5)"
	else
		pass json.usb_table_escaped
	fi
	want json.refused 2 "$T/out" "^umarmctl: error: -o json: 'start' has no JSON output; drop -o json" u -o json start jf
	want json.refused_sub 2 "$T/out" "only 'disk list' prints JSON" u disk add jf 1M -o json
	want json.refused_alias 2 "$T/out" "'stop' has no JSON output" u poweroff jf --json
	[ ! -e "$T/lib/umarm/jf/disk2.img" ] && pass json.refused_nothing_done ||
		fail json.refused_nothing_done "disk add ran with -o json"
	u rm jf >/dev/null 2>&1
}

# case_status_stopped - status of a stopped instance exits 3
case_status_stopped() {
	mkinst ss || { fail status-stopped "create failed"; return; }
	want status.stopped 3 "$T/out" 'ss \(system instance\) - stopped|ss \(per-user instance\) - stopped' u status ss
	want status.stopped_json 3 "$T/out" '"state":"stopped"' u status ss -o json
	u rm ss >/dev/null 2>&1
}

# case_bad_values - bad values are refused once, naming the fix
case_bad_values() {
	mkinst bv || { fail bad-values "create failed"; return; }
	want bad.mem 2 "$T/out" "^umarmctl: error: --memory: '1X' is not a size" u create bw --image "$T/base.img" --mem 1X
	[ "$(grep -c "is not a size" "$T/out")" = 1 ] && pass bad.mem_once ||
		fail bad.mem_once "said $(grep -c "is not a size" "$T/out") times: $(cat "$T/out")"
	want bad.logs_n 2 "$T/out" "-n: 'abc' is not a number of lines" u logs bv -n abc
	want bad.autostart 2 "$T/out" "usage: +umarmctl autostart" u autostart bogus
	printf 'tiny file' >"$T/tiny.img"
	want bad.base_image 1 "$T/out" "tiny.img.*not an ext2/3/4 file system image" u create bt --image "$T/tiny.img"
	[ ! -e "$T/etc/instances/bt.conf" ] && pass bad.base_image_no_instance ||
		fail bad.base_image_no_instance "bt was created on a 9-byte base image"
	[ ! -e "$T/lib/umarm/bt" ] && pass bad.base_image_no_state ||
		fail bad.base_image_no_state "the failed create left $(find "$T/lib/umarm/bt" | tr '\n' ' ')"
	# an existing instance's directory stays when a create of its name fails
	want bad.create_dup 5 "$T/out" "bv: instance already exists" u create bv --image "$T/base.img"
	[ -d "$T/lib/umarm/bv" ] && pass bad.create_dup_kept ||
		fail bad.create_dup_kept "the duplicate create removed $T/lib/umarm/bv"
	u rm bv >/dev/null 2>&1
}

# case_no_instance - every verb names an instance that does not exist, not
# only start and status (stop, kill, reboot, ... exited 3 in silence)
case_no_instance() {
	for v in stop kill restart reboot pause resume enable logs console; do
		want "noinst.$v" 3 "$T/out" "^umarmctl: error: nx: no such instance" u "$v" nx
	done
	want noinst.mconsole 3 "$T/out" "nx: no such instance" u mconsole nx version
	want noinst.net_rm 3 "$T/out" "nx: no such instance" u net rm nx
	want noinst.exec 255 "$T/out" "nx: no such instance" u exec nx -- true
	[ "$(grep -c "no such instance" "$T/out")" = 1 ] && pass noinst.once ||
		fail noinst.once "said $(grep -c "no such instance" "$T/out") times: $(cat "$T/out")"
}

# case_term_escapes - bytes from a configuration or a name reach no terminal
case_term_escapes() {
	mkinst te || { fail term-escapes "create failed"; return; }
	esc=$(printf '\033]0;pwned\007')
	sed -i "s|^image = .*|image = x${esc}y|" "$T/etc/instances/te.conf"
	{
		u status te
		u list
		u start "n${esc}"
		script -qec "$UMARMCTL --no-systemd config te" /dev/null
	} >"$T/out" 2>&1
	# disk list's table shows paths from the file (share paths with
	# control characters are refused by the parser)
	sed -i "s|^image = .*|image = $T/base.img|" "$T/etc/instances/te.conf"
	echo "disk1 = x${esc}y" >>"$T/etc/instances/te.conf"
	u disk list te >>"$T/out" 2>&1
	if grep -q "$(printf '\033')" "$T/out"; then
		fail term-escapes "an escape reached the output: $(od -c "$T/out" | grep -m 3 033)"
	elif ! grep -q 'x\\x1b\]0;pwned\\x07y' "$T/out"; then
		fail term-escapes "the bytes are not shown escaped: $(head -c 400 "$T/out")"
	else
		pass term-escapes
	fi
	u rm te >/dev/null 2>&1
}

# case_missing_state - a configuration without its state directory is named
# and repaired, not called nonexistent
case_missing_state() {
	mkinst ms || { fail missing-state "create failed"; return; }
	rm -rf "$T/lib/umarm/ms"
	want missing_state.status 3 "$T/out" "ms: its state directory .* is missing; the next command" u status ms
	[ ! -e "$T/lib/umarm/ms" ] && pass missing_state.status_reads ||
		fail missing_state.status_reads "status made $T/lib/umarm/ms"
	want missing_state.named 0 "$T/out" "ms: its state directory .* was missing" u disk add ms 1M
	[ -d "$T/lib/umarm/ms" ] && [ "$(mode "$T/lib/umarm/ms")" = 700 ] &&
		pass missing_state.repaired ||
		fail missing_state.repaired "no $T/lib/umarm/ms (mode 700)"
	u rm ms >/dev/null 2>&1
}

# start_booting NAME DELAY_S - start NAME in the background (pid in
# $spid) with a fake kernel that boots for DELAY_S seconds; returns once
# its state says booting (or after 5 s)
start_booting() {
	FAKE_BOOT_DELAY=$2 UMARM_KERNEL=$here/fake-kernel.sh u start "$1" \
		>"$T/out.first" 2>&1 &
	spid=$!
	_i=0
	until grep -qs '^status=booting' "$T/run/$1/state" || [ $_i -ge 50 ]; do
		sleep 0.1
		_i=$((_i + 1))
	done
}

# case_already_starting - a second start of a booting guest says so at once
case_already_starting() {
	needs_filters already-starting || return
	mkinst as || { fail already-starting "create failed"; return; }
	start_booting as 6
	s=$(date +%s)
	UMARM_KERNEL=$here/fake-kernel.sh u start as >"$T/out" 2>&1
	rc=$?
	e=$(date +%s)
	wait "$spid"
	u kill as >/dev/null 2>&1
	if [ "$rc" != 0 ] || ! grep -q "already starting" "$T/out"; then
		fail already-starting "exit $rc: $(cat "$T/out")"
	elif [ $((e - s)) -gt 2 ]; then
		fail already-starting "took $((e - s)) s: it waited for the first start"
	else
		pass already-starting
	fi
	u rm as >/dev/null 2>&1
}

# start_held NAME BIND_S [PAIR_S] - start NAME in the background (pid in
# $spid), its supervisor held by strace as a loaded host holds it: each
# bind() (notify, then control socket: its host checks) BIND_S seconds,
# its console's socketpair() (between listen() and its loop) PAIR_S;
# returns once the supervisor is past its checks and before its control
# socket exists (1 if not seen in that window)
start_held() {
	UMARM_KERNEL=$here/fake-kernel.sh strace -f -o /dev/null \
		-e trace=bind,socketpair \
		-e inject=bind:delay_enter="${2}000000" \
		-e inject=socketpair:delay_enter="${3:-0}000000" \
		"$UMARMCTL" --no-systemd start "$1" >"$T/out.first" 2>&1 &
	spid=$!
	# the runtime directory is the supervisor's (sup_dirs()), made
	# after it took the run lock: a probe that takes no lock
	_i=0
	until [ -d "$T/run/$1" ] || [ $_i -ge 100 ]; do
		sleep 0.05
		_i=$((_i + 1))
	done
	[ -d "$T/run/$1" ] && [ ! -S "$T/run/$1/control" ]
}

# run_lock_pid NAME - the pid holding NAME's run lock (its supervisor),
# from /proc/locks, which takes no lock
run_lock_pid() {
	_ino=$(stat -c %i "$T/lib/umarm/$1/.run.lock")
	awk -v i="$_ino" '$2 == "FLOCK" { split($6, f, ":"); if (f[3] == i) print $5 }' /proc/locks
}

# case_stop_booting - stop of a booting guest: what was asked, so the last
# run is "stopped", not a kernel that "exited before the guest booted"
case_stop_booting() {
	needs_filters stop-booting || return
	mkinst sb || { fail stop-booting "create failed"; return; }
	start_booting sb 30
	# not active yet, as systemctl status says of a unit still activating
	want stop_booting.status 3 "$T/out" 'sb .*- booting' u status sb
	u stop sb >"$T/out" 2>&1
	rc=$?
	if [ "$rc" != 0 ] || grep -q 'exited before\|sb: sb:' "$T/out"; then
		fail stop_booting.stop "exit $rc: $(cat "$T/out")"
	else
		pass stop_booting.stop
	fi
	wait "$spid"
	rc=$?
	[ "$rc" = 8 ] && grep -q 'stopped while booting' "$T/out.first" &&
		pass stop_booting.start_told ||
		fail stop_booting.start_told "exit $rc: $(cat "$T/out.first")"
	want stop_booting.last_run 3 "$T/out" 'Last run: stopped' u status sb
	u rm sb >/dev/null 2>&1
}

# case_stop_starting - stop, and a second start, of an instance whose
# supervisor has no control socket yet: stop waits for it, and for its
# answer past the 10 s a running supervisor has (the socketpair held 11 s),
# and stops the guest; a supervisor that dies meanwhile is named, not
# "does not answer"
case_stop_starting() {
	command -v strace >/dev/null || { skip stop-starting "no strace"; return; }
	mkinst st || { fail stop-starting "create failed"; return; }
	if start_held st 1 11; then
		want stop_starting.second_start 0 "$T/out" 'already starting' \
			env UMARM_KERNEL="$here/fake-kernel.sh" "$UMARMCTL" --no-systemd start st
		u stop st >"$T/out" 2>&1 && pass stop_starting.stop ||
			fail stop_starting.stop "exit $?: $(cat "$T/out")"
		want stop_starting.stopped 3 "$T/out" 'stopped' u status st
	else
		fail stop_starting.stop "the control socket came before the test could stop the start: $(cat "$T/out.first")"
	fi
	# strace ends with the last process it traces: the supervisor's
	u kill st >/dev/null 2>&1
	wait "$spid"
	if start_held st 2; then
		sup=$(run_lock_pid st)
		u stop st >"$T/out" 2>&1 &
		stpid=$!
		sleep 0.5
		kill -9 "$sup"
		wait "$stpid"
		rc=$?
		if [ "$rc" != 0 ] ||
		   ! grep -q 'supervisor exited before it answered' "$T/out"; then
			fail stop_starting.died "supervisor $sup killed: exit $rc: $(cat "$T/out")"
		else
			pass stop_starting.died
		fi
	else
		fail stop_starting.died "the control socket came before the test could stop the start"
	fi
	u kill st >/dev/null 2>&1
	wait "$spid"
	u rm st >/dev/null 2>&1
}

# case_default_flavour - create and start use the documented default
# flavour: 16k where only the 16k kernel is installed (UMARM_KERNEL_DIR)
case_default_flavour() {
	needs_filters default-flavour || return
	[ "$(getconf PAGESIZE)" = 4096 ] ||
		{ skip default-flavour "host pages are not 4k"; return; }
	mkdir -p "$T/kdir/16k"
	cp "$here/fake-kernel.sh" "$T/kdir/16k/linux"
	want flavour.create 0 "$T/out" 'flavour 16k' \
		env UMARM_KERNEL_DIR="$T/kdir" "$UMARMCTL" --no-systemd create df --image "$T/base.img"
	sed -i '/^flavour/d' "$T/etc/instances/df.conf"
	want flavour.start 0 "$T/out" '' \
		env UMARM_KERNEL_DIR="$T/kdir" "$UMARMCTL" --no-systemd start df
	u kill df >/dev/null 2>&1
	want flavour.check 6 "$T/out" 'kernel .*install linux-uml-arm64-4k, or set .kernel = PATH. in an instance.s configuration or UMARM_KERNEL' \
		env UMARM_KERNEL_DIR="$T/kdir/none" "$UMARMCTL" --no-systemd check
	u rm df >/dev/null 2>&1
}

# mklabelled FILE LABEL - mkbase with an ext4 volume label (byte 1144)
mklabelled() {
	mkbase "$1"
	printf '%s' "$2" | dd of="$1" bs=1 seek=1144 conv=notrunc status=none
}

# case_image_label - an image's defaults follow its label, then its name:
# the project's minimal image copied to base1.ext4 still gets its shell
case_image_label() {
	mklabelled "$T/base1.ext4" umarm-minimal
	mklabelled "$T/x.img" umarm-debian-doc
	mklabelled "$T/debian.img" umarm-minimal
	mkbase "$T/minimal-copy.img"
	mkbase "$T/plain.img"
	for n in base1.ext4:lb1 x.img:lb2 debian.img:lb3 minimal-copy.img:lb4 \
		 plain.img:lb5; do
		u create "${n#*:}" --image "$T/${n%%:*}" >"$T/out" 2>&1 ||
			{ fail image_label "create ${n#*:}: $(cat "$T/out")"; return; }
	done
	grep -q '^cmdline = rw umarm.run=/bin/sh$' "$T/etc/instances/lb1.conf" &&
		pass image_label.renamed_minimal ||
		fail image_label.renamed_minimal "$(cat "$T/etc/instances/lb1.conf")"
	grep -q '^memory = 1G$' "$T/etc/instances/lb2.conf" &&
		grep -q '^exec = debug-shell$' "$T/etc/instances/lb2.conf" &&
		pass image_label.docker || fail image_label.docker "$(cat "$T/etc/instances/lb2.conf")"
	grep -q '^cmdline = rw umarm.run=/bin/sh$' "$T/etc/instances/lb3.conf" &&
		! grep -q '^exec = ' "$T/etc/instances/lb3.conf" &&
		pass image_label.before_name || fail image_label.before_name "$(cat "$T/etc/instances/lb3.conf")"
	grep -q '^cmdline = rw umarm.run=/bin/sh$' "$T/etc/instances/lb4.conf" &&
		pass image_label.name_without_label ||
		fail image_label.name_without_label "$(cat "$T/etc/instances/lb4.conf")"
	! grep -q '^cmdline = \|^exec = ' "$T/etc/instances/lb5.conf" &&
		pass image_label.unknown || fail image_label.unknown "$(cat "$T/etc/instances/lb5.conf")"
	for i in 1 2 3 4 5; do u rm "lb$i" >/dev/null 2>&1; done
}

# case_nofile_limit - a hard limit of open files below what the hostfs
# shares take is named at start, with the fix, before the kernel runs
case_nofile_limit() {
	mkinst nf || { fail nofile "create failed"; return; }
	for i in $(seq 100); do
		mkdir -p "$T/nf/$i"
		echo "share = s$i $T/nf/$i /s/$i" >>"$T/etc/instances/nf.conf"
	done
	# virtio-fs shares hold no descriptor in the kernel: not counted
	for i in $(seq 101 120); do
		mkdir -p "$T/nf/$i"
		echo "share = s$i $T/nf/$i /s/$i virtiofs" >>"$T/etc/instances/nf.conf"
	done
	want nofile.refused 6 "$T/out" "100 hostfs shares need 612 open files, and the hard limit is 600: raise it" \
		env UMARM_KERNEL="$here/fake-kernel.sh" sh -c 'ulimit -n 600 && exec "$@"' sh "$UMARMCTL" --no-systemd start nf
	u kill nf >/dev/null 2>&1
	u rm nf >/dev/null 2>&1
}

all="disk_rm_outside image_recipe_lookup resize_quote usb_busid modes
daemon_fds status_other_user clone_race reap_race rename_race
logs_escapes disk_symlinks verb_help output_modes status_stopped bad_values
term_escapes missing_state already_starting stop_starting default_flavour
share_cli no_instance stop_booting image_label json_forms
guest_cmdline usage_form share_access nofile_limit"
# shellcheck disable=SC2048,SC2086
for c in ${*:-$all}; do
	"case_$(echo "$c" | tr - _)"
done
echo "$passes passed, $fails failed"
if [ "$fails" -gt 0 ]; then
	echo "kept $T"
	exit 1
fi
rm -rf "$T"
