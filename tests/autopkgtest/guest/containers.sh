#!/bin/sh
# containers.sh - run in the debian-docker guest by the containers gate
#
# umarm-gate.service starts it after multi-user.target, so dockerd (which
# docker.io enables) has started or failed by then.  /host is the gate's
# share: this script, containers-warnings (the docker info warnings the
# README explains, one extended regular expression a line) and
# containers.env (CONTAINERS_PLANT=marker|build|nolimit|userns|cpuset|
# portload|nestns plants a fault that must fail the gate) and busybox-image.sh (images/debian-docker/: it makes
# the image the containers run); files for the artifacts go to /host/out.
#
# Checks, each printing CONTAINERS_FAIL <what> when it fails:
#   dockerd is active with the overlay2 driver on cgroup v2, its root
#   /var/lib/docker on the ext4 root disk; docker info succeeds (kept as
#   out/docker-info.txt) and warns only of what containers-warnings lists;
#   an image made here from the static busybox loads (docker load of the
#   docker-archive busybox-image.sh writes: manifest.json, config, one
#   layer); docker run --rm
#   prints a marker; docker build makes a two-stage image whose first
#   stage's RUN layer, copied into the second, a container of it prints; a
#   second container fetches a page from a first one's httpd by its address
#   on the default bridge; the port the first one publishes answers on
#   127.0.0.1 and on docker0's address, and 100 fetches by four clients at
#   once; uid 1000 in a container makes a user namespace of its own; containers
#   with --memory 32m that allocate 64 MiB are OOM-killed (137, the
#   kernel's memcg OOM report, and OOMKilled=true where the container
#   outlives the kill: see check_memory); with userns-remap, root in a
#   container is an unprivileged uid of the guest; docker run --cpuset-cpus
#   keeps a container on the guest's last CPU.
# Timings: CONTAINERS_TIME lines.  Success: CONTAINERS_OK.
#
# Nothing here prints "WARNING:" on the console: run-gate counts such a
# line as a kernel bug; docker's warnings are printed as
# CONTAINERS_WARNING.
set -u

out=/host/out
mkdir -p "$out"
CONTAINERS_PLANT=
# shellcheck source=/dev/null
[ ! -f /host/containers.env ] || . /host/containers.env
image=umarm-busybox:gate
page=umarm-containers-web-ok
failed=0
work=/tmp/containers
rm -rf "$work"
mkdir -p "$work"

# fail WHAT - report a failed check; the gate goes on to the next one
fail() {
	echo "CONTAINERS_FAIL $*"
	failed=1
}

# now - seconds since boot, with fractions (for timings)
now() { cut -d' ' -f1 /proc/uptime; }

# since T0 - seconds from T0 (a now value) to now, two decimals
since() { awk -v a="$1" -v b="$(now)" 'BEGIN { printf "%.2f", b - a }'; }

# tame - a stream of docker's or the journal's lines, with "WARNING:"
# lower-cased, for the console (run-gate's kernel-bug scan)
tame() { sed 's/WARNING:/warning:/g'; }

# keep_journal - dockerd's and containerd's journal as an artifact: why a
# check failed is in there
keep_journal() {
	journalctl -b --no-pager -u containerd -u docker.socket -u docker \
		>"$out/journal-docker.txt" 2>&1
}

# unit_seconds UNIT - how long UNIT took from leaving "inactive" (its start
# job began) to "active" (for Type=notify: the daemon said READY=1)
unit_seconds() {
	systemctl show "$1" -p InactiveExitTimestampMonotonic \
		-p ActiveEnterTimestampMonotonic |
		awk -F= '{ t[$1] = $2 }
		END { a = t["InactiveExitTimestampMonotonic"]
		      b = t["ActiveEnterTimestampMonotonic"]
		      if (a > 0 && b >= a) printf "%.2f", (b - a) / 1e6; else print "?" }'
}

# check_daemon - dockerd runs with overlay2 on cgroup v2 and /var/lib/docker
# on ext4; its start time at boot is reported
check_daemon() {
	if ! systemctl is-active -q docker.service; then
		fail "docker.service is $(systemctl is-active docker.service) (journal: out/journal-docker.txt)"
		journalctl -b --no-pager -u docker -n 20 | tame
		return 1
	fi
	echo "CONTAINERS_TIME containerd_start=$(unit_seconds containerd.service)s" \
		"dockerd_start=$(unit_seconds docker.service)s" \
		"(start job to READY, at boot)"
	set -- "$(docker info --format '{{.Driver}} {{.CgroupVersion}} {{.CgroupDriver}} {{.DockerRootDir}}' 2>&1)"
	echo "containers: driver, cgroup version and driver, root: $1"
	# shellcheck disable=SC2086 # the four words
	set -- $1
	[ "${1:-}" = overlay2 ] || fail "storage driver is ${1:-?}, not overlay2"
	[ "${2:-}" = 2 ] || fail "cgroup version is ${2:-?}, not 2"
	[ "${4:-}" = /var/lib/docker ] || fail "docker root is ${4:-?}, not /var/lib/docker"
	fs=$(findmnt -no FSTYPE -T /var/lib/docker)
	[ "$fs" = ext4 ] || fail "/var/lib/docker is on $fs, not ext4"
	echo "containers: /var/lib/docker on $fs ($(findmnt -no SOURCE -T /var/lib/docker))"
}

# check_info - docker info succeeds, with no error, and every warning it
# prints is one that containers-warnings lists (and the README explains)
check_info() {
	docker info >"$out/docker-info.txt" 2>&1
	rc=$?
	[ "$rc" -eq 0 ] || fail "docker info exited with $rc (out/docker-info.txt)"
	if grep -Ei '^ *ERROR|errors pretty printing' "$out/docker-info.txt" |
		tame | sed 's/^/CONTAINERS_FAIL docker info: /' | grep .; then
		failed=1
	fi
	# none may be listed: grep then finds no line, and explains nothing
	grep -v -e '^#' -e '^$' /host/containers-warnings >"$work/explained" || true
	grep '^WARNING:' "$out/docker-info.txt" | sed 's/^WARNING: *//' >"$work/warnings"
	while read -r w; do
		if printf '%s\n' "$w" | grep -Eqf "$work/explained"; then
			echo "CONTAINERS_WARNING explained: $w"
		else
			echo "CONTAINERS_WARNING UNEXPLAINED: $w"
			fail "docker info warns \"$w\": explain it in tests/autopkgtest/README.md (containers) and add it to guest/containers-warnings, or fix its cause"
		fi
	done <"$work/warnings"
	echo "containers: docker info: $(wc -l <"$work/warnings") warnings (out/docker-info.txt)"
}

# check_load - the image made here loads
check_load() {
	mkdir -p "$work/img"
	if ! sh /host/busybox-image.sh -t "$image" -p "$page" \
		-o "$work/img/image.tar" >"$work/make.txt" 2>&1; then
		fail "cannot make the docker-archive: $(tame <"$work/make.txt" | tail -n 3 | tr '\n' ' ')"
		return 1
	fi
	t0=$(now)
	if ! docker load -i "$work/img/image.tar" >"$work/load.txt" 2>&1; then
		fail "docker load: $(tame <"$work/load.txt" | tail -n 3 | tr '\n' ' ')"
		return 1
	fi
	echo "containers: $(cat "$work/load.txt") ($(du -k "$work/img/image.tar" | cut -f1) KiB)"
	echo "CONTAINERS_TIME load=$(since "$t0")s"
}

# check_run - docker run --rm prints the marker; three runs, each timed
check_run() {
	want=CONTAINERS_HELLO
	say=$want
	[ "$CONTAINERS_PLANT" != marker ] || say=CONTAINERS_PLANTED
	times=
	for _ in 1 2 3; do
		t0=$(now)
		got=$(docker run --rm "$image" echo "$say" 2>&1)
		times="$times $(since "$t0")s"
		if [ "$got" != "$want" ]; then
			fail "docker run --rm printed \"$(printf '%s' "$got" | tame | tr '\n' ' ')\", not $want"
			return 1
		fi
	done
	echo "containers: docker run --rm $image echo: $want"
	echo "CONTAINERS_TIME run_rm=${times# } (docker run --rm, three runs)"
}

# check_cpuset - docker run --cpuset-cpus pins a container to the guest's
# last CPU (CPU 0 on a one-CPU guest): the container's cgroup
# (cpuset.cpus.effective) and its own affinity (Cpus_allowed_list) name
# that CPU alone.  Docker needs the cpuset controller for the option.
check_cpuset() {
	cpu=$(($(nproc --all) - 1))
	want=$cpu
	[ "$CONTAINERS_PLANT" != cpuset ] || want=$((cpu + 1))
	# shellcheck disable=SC2016 # expanded in the container
	got=$(docker run --rm --cpuset-cpus="$cpu" "$image" sh -c \
		'echo $(cat /sys/fs/cgroup/cpuset.cpus.effective) $(grep Cpus_allowed_list /proc/self/status | cut -f2)' 2>&1)
	if [ "$got" != "$want $want" ]; then
		fail "docker run --cpuset-cpus=$cpu: cpuset.cpus.effective and Cpus_allowed_list are \"$(printf '%s' "$got" | tame | tr '\n' ' ')\", not \"$want $want\""
		return 1
	fi
	echo "containers: docker run --cpuset-cpus=$cpu runs on CPU $cpu alone ($(nproc --all) CPUs)"
}

# check_build - docker build with Debian's docker.io alone (no
# docker-buildx: the classic builder, DOCKER_BUILDKIT=0) makes a
# multi-stage image from the loaded one: the first stage's RUN step runs a
# container on overlay2 and commits the layer it wrote, the second stage
# copies that file from the first (COPY --from), and a container of the
# final image prints it
check_build() {
	want=CONTAINERS_BUILT
	say=$want
	[ "$CONTAINERS_PLANT" != build ] || say=CONTAINERS_PLANTED
	mkdir -p "$work/build"
	printf 'FROM %s AS stage1\nRUN echo %s >/built\nFROM %s\nCOPY --from=stage1 /built /built\nCMD ["cat", "/built"]\n' \
		"$image" "$say" "$image" >"$work/build/Dockerfile"
	t0=$(now)
	if ! DOCKER_BUILDKIT=0 docker build -q -t umarm-built:gate "$work/build" \
		>"$work/build.txt" 2>&1; then
		fail "docker build: $(tame <"$work/build.txt" | tail -n 3 | tr '\n' ' ')"
		return 1
	fi
	echo "CONTAINERS_TIME build=$(since "$t0")s (two stages)"
	got=$(docker run --rm umarm-built:gate 2>&1)
	if [ "$got" != "$want" ]; then
		fail "the built image printed \"$(printf '%s' "$got" | tame | tr '\n' ' ')\", not $want"
		return 1
	fi
	echo "containers: docker build (classic builder, two stages): a RUN layer on overlay2, copied by COPY --from, prints $want"
}

# wait_http URL - poll URL from the guest until it serves the page (30 s)
wait_http() {
	for _i in $(seq 60); do
		[ "$(busybox wget -q -T 2 -O - "$1" 2>/dev/null)" != "$page" ] || return 0
		sleep 0.5
	done
	return 1
}

# check_network - a web server in one container, reached from a second one
# over the default bridge and from the guest on the published port
check_network() {
	hostport=18080
	if ! docker run -d --name web -p "$hostport:8080" "$image" \
		httpd -f -p 8080 -h /www >"$work/web.txt" 2>&1; then
		fail "docker run -d -p $hostport:8080 httpd: $(tame <"$work/web.txt" | tr '\n' ' ')"
		return 1
	fi
	ip=$(docker inspect -f '{{range .NetworkSettings.Networks}}{{.IPAddress}}{{end}}' web)
	gw=$(docker network inspect bridge -f '{{range .IPAM.Config}}{{.Gateway}}{{end}}')
	echo "containers: web at $ip:8080 on the bridge (gateway $gw), published on $hostport"
	wait_http "http://$ip:8080/" ||
		{ fail "the web container never answered on $ip:8080"; docker logs web 2>&1 | tame; return 1; }
	got=$(docker run --rm "$image" wget -q -T 10 -O - "http://$ip:8080/" 2>&1)
	if [ "$got" = "$page" ]; then
		echo "containers: a second container fetched http://$ip:8080/ over the bridge"
	else
		fail "a second container could not fetch http://$ip:8080/: $(printf '%s' "$got" | tame | tr '\n' ' ')"
	fi
	for a in 127.0.0.1 "$gw"; do
		got=$(busybox wget -q -T 10 -O - "http://$a:$hostport/" 2>&1)
		if [ "$got" = "$page" ]; then
			echo "containers: the guest fetched the published port http://$a:$hostport/"
		else
			fail "the published port http://$a:$hostport/ did not answer: $(printf '%s' "$got" | tame | tr '\n' ' ')"
		fi
	done
	check_port_load "$hostport" "$gw"
	docker rm -f web >/dev/null 2>&1
}

# fetch_loop URL N FILE - fetch URL N times one after the other, one line
# per fetch in FILE: "ok" when the page came back, else "bad"
fetch_loop() {
	for _i in $(seq "$2"); do
		if [ "$(busybox wget -q -T 20 -O - "$1" 2>/dev/null)" = "$page" ]; then
			echo ok
		else
			echo bad
		fi
	done >"$3"
}

# check_port_load PORT GATEWAY - the published port under load: four
# clients in the guest at once, two through docker-proxy on 127.0.0.1 and
# two through the DNAT rule on the bridge's GATEWAY, fetch the page 25
# times each; every fetch must get it
check_port_load() {
	port=$1
	[ "$CONTAINERS_PLANT" != portload ] || port=$(($1 + 1))
	rounds=25
	n=0
	t0=$(now)
	for a in 127.0.0.1 127.0.0.1 "$2" "$2"; do
		n=$((n + 1))
		fetch_loop "http://$a:$port/" "$rounds" "$work/port-load-$n.txt" &
	done
	wait
	all=$(cat "$work"/port-load-*.txt | wc -l)
	ok=$(cat "$work"/port-load-*.txt | grep -c '^ok$')
	echo "CONTAINERS_TIME port_load=$(since "$t0")s ($ok of $all fetches of port $port by four clients at once)"
	if [ "$ok" -ne $((4 * rounds)) ]; then
		fail "the published port $port under load: $ok of $all fetches by four clients at once got the page (want $((4 * rounds)))"
	fi
}

# check_nested_userns - an unprivileged user in a container makes a user
# namespace of its own, as rootless builders in containers do: uid 1000
# becomes root of the new namespace (uid_map "0 1000 1").  Docker's default
# seccomp profile allows unshare(CLONE_NEWUSER) only with CAP_SYS_ADMIN, so
# the container runs with that profile lifted, as such builders are run
check_nested_userns() {
	seccomp="--security-opt seccomp=unconfined"
	[ "$CONTAINERS_PLANT" != nestns ] || seccomp=
	want="0 0 1000 1"
	# shellcheck disable=SC2016,SC2086 # expanded in the container; options
	got=$(docker run --rm --user 1000:1000 $seccomp "$image" \
		unshare -r sh -c 'echo $(id -u) $(cat /proc/self/uid_map)' 2>&1)
	if [ "$got" != "$want" ]; then
		fail "uid 1000 in a container made no user namespace: \"$(printf '%s' "$got" | tame | tr '\n' ' ')\", not \"$want\" (id -u, uid_map)"
		return 1
	fi
	echo "containers: uid 1000 in a container is root of a user namespace of its own (uid_map $(echo "$got" | cut -d' ' -f2-))"
}

# memcg_kills - how many processes the memory cgroup OOM killer killed so
# far (its report in the kernel log)
memcg_kills() { dmesg | grep -c 'Memory cgroup out of memory: Killed process'; }

# run_hog NAME CMD... - run CMD in container NAME with the memory limit, in
# the foreground; prints "RC EXITCODE OOMKilled=BOOL KILLS": docker run's
# status, the container's, docker's OOM flag, and the kernel's memcg OOM
# kills during the run
run_hog() {
	_name=$1
	shift
	_k0=$(memcg_kills)
	# shellcheck disable=SC2086 # limit: options, or none
	docker run --name "$_name" $limit "$image" "$@" >"$work/$_name.txt" 2>&1
	_rc=$?
	echo "$_rc $(docker inspect -f '{{.State.ExitCode}} OOMKilled={{.State.OOMKilled}}' "$_name" 2>&1) $(($(memcg_kills) - _k0))"
	docker rm -f "$_name" >/dev/null 2>&1
}

# run_hog_triggered NAME CMD - as run_hog, but CMD (a shell command line)
# runs under a shell in a detached container, and only once "docker exec"
# has created /tmp/go in it: by then containerd's shim watches the
# container's memory.events (it starts to when the task has started), so
# a slow guest cannot kill CMD before anyone listens.  The shell stays two
# seconds after CMD, so that the cgroup outlives the kill while the event
# is read.  RC is docker wait's output, the container's exit status.
run_hog_triggered() {
	_name=$1
	_k0=$(memcg_kills)
	# shellcheck disable=SC2086 # limit: options, or none
	if ! docker run -d --name "$_name" $limit "$image" sh -c \
		"echo memory.max=\$(cat /sys/fs/cgroup/memory.max); while [ ! -e /tmp/go ]; do sleep 0.1; done; $2; r=\$?; sleep 2; exit \$r" \
		>"$work/$_name.txt" 2>&1; then
		echo "x x OOMKilled=x 0"
		return
	fi
	docker exec "$_name" touch /tmp/go >>"$work/$_name.txt" 2>&1
	_rc=$(docker wait "$_name" 2>&1)
	docker logs "$_name" >>"$work/$_name.txt" 2>&1
	echo "$_rc $(docker inspect -f '{{.State.ExitCode}} OOMKilled={{.State.OOMKilled}}' "$_name" 2>&1) $(($(memcg_kills) - _k0))"
	docker rm -f "$_name" >/dev/null 2>&1
}

# check_memory - containers limited to 32 MiB that allocate 64 MiB (busybox
# dd's buffer) are killed by the memory cgroup's OOM killer.  First with dd
# under a shell (run_hog_triggered): the shell exits 137 and docker must
# report OOMKilled=true (its OOM event came through).  Then with dd as the
# container's only process: it must die of SIGKILL (137) by the OOM
# killer; docker's OOMKilled is reported but not required, since the OOM
# event can lose a race with the container's teardown
# (tests/autopkgtest/README.md, containers).
check_memory() {
	limit="--memory 32m --memory-swap 32m"
	[ "$CONTAINERS_PLANT" != nolimit ] || limit=
	hog='dd if=/dev/zero of=/dev/null bs=64M count=1'
	# shellcheck disable=SC2046 # the four words of run_hog_triggered
	set -- $(run_hog_triggered hog "$hog")
	echo "containers: memory hog under a shell: exit $1, docker inspect: $2 $3, memcg OOM kills $4, $(grep memory.max "$work/hog.txt")"
	if [ "$1 $2 $3" != "137 137 OOMKilled=true" ] || [ "$4" -lt 1 ]; then
		fail "the 64 MiB hog under --memory 32m was not OOM-killed: exit $1, docker inspect: $2 $3, memcg OOM kills $4 (want 137 137 OOMKilled=true, 1): $(tame <"$work/hog.txt" | tr '\n' ' ')"
	fi
	# shellcheck disable=SC2086,SC2046 # the four words of run_hog
	set -- $(run_hog hogsolo $hog)
	echo "containers: memory hog alone: docker run rc=$1, docker inspect: $2 $3, memcg OOM kills $4"
	if [ "$1 $2" != "137 137" ] || [ "$4" -lt 1 ]; then
		fail "the 64 MiB hog alone under --memory 32m was not OOM-killed: docker run rc=$1, exit $2, memcg OOM kills $4 (want 137 137, 1): $(tame <"$work/hogsolo.txt" | tr '\n' ' ')"
	fi
}

# userns_uid NAME - the uid, in the guest, of container NAME's process
userns_uid() {
	_pid=$(docker inspect -f '{{.State.Pid}}' "$1" 2>/dev/null) &&
		awk '/^Uid:/ { print $2 }' "/proc/$_pid/status"
}

# check_userns - last, as it restarts dockerd: with user-namespace
# remapping (userns-remap "default": dockerd makes the dockremap user and
# its subordinate ids) root in a container is an unprivileged uid of the
# guest; the image is loaded again, into the remapped storage
check_userns() {
	remap=default
	[ "$CONTAINERS_PLANT" != userns ] || remap=
	printf '{ "userns-remap": "%s" }\n' "$remap" >/etc/docker/daemon.json
	if ! systemctl restart docker >"$work/userns.txt" 2>&1 ||
		! docker load -i "$work/img/image.tar" >>"$work/userns.txt" 2>&1 ||
		! docker run -d --name umarm-userns "$image" sleep 120 \
			>>"$work/userns.txt" 2>&1; then
		fail "dockerd with userns-remap: $(tame <"$work/userns.txt" | tail -n 3 | tr '\n' ' ')"
		rm -f /etc/docker/daemon.json
		return 1
	fi
	inside=$(docker exec umarm-userns id -u 2>&1)
	outside=$(userns_uid umarm-userns)
	docker rm -f umarm-userns >/dev/null 2>&1
	rm -f /etc/docker/daemon.json
	case $inside:$outside in
	0:[1-9][0-9][0-9][0-9][0-9]*) ;;
	*)
		fail "userns-remap: root in the container is uid \"$outside\" in the guest (id -u inside: $inside)"
		return 1
		;;
	esac
	echo "containers: userns-remap: root in a container is uid $outside in the guest"
}

echo "containers: $(docker --version) on $(uname -r) $(uname -m)"
[ -z "$CONTAINERS_PLANT" ] || echo "containers: planted fault: $CONTAINERS_PLANT"
if check_daemon; then
	check_info
	if check_load; then
		check_run
		check_cpuset
		check_build
		check_network
		check_memory
		check_nested_userns
		check_userns
	fi
fi
keep_journal
if [ "$failed" -ne 0 ]; then
	echo "containers: failed (journal of containerd and docker: out/journal-docker.txt)"
	exit 1
fi
echo "CONTAINERS_OK driver=overlay2 cgroup=2"
