#!/bin/sh
# Installs the Debian packages tally needs to build and test, only those
# that are missing.  Needs root (or sudo) only when something is missing.
# `tools/setup.sh fuzz` adds what `make fuzz` needs (clang with libFuzzer
# and the sanitizers' runtimes, AFL++).
set -e
PKGS="gcc make libc6-dev binutils libgc-dev libffi-dev libgccjit-12-dev lua5.4 time python3-numpy python3-matplotlib"
[ "${1:-}" = fuzz ] && PKGS="$PKGS clang libclang-rt-14-dev afl++"
missing=""
for p in $PKGS; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing="$missing $p"
done
[ -z "$missing" ] && exit 0
echo "setup: installing$missing"
SUDO=""
[ "$(id -u)" -ne 0 ] && SUDO=sudo
$SUDO apt-get update -qq
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq $missing
