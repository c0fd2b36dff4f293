#!/bin/sh
# abi.sh - the guest side of the guest-abi gate: each program prints its
# own verdict; ABI_OK only when all of them passed
set -u

rc=0
/host/sigsys || rc=1
/host/siginfo || rc=1
# arm64 only: the registers of a core dump
[ ! -e /host/coredump ] || /host/coredump || rc=1
[ "$rc" -ne 0 ] || echo ABI_OK
exit "$rc"
