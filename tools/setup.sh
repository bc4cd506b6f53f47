#!/bin/sh
# Installs the Debian packages tally needs to build and test, only those
# that are missing.  Needs root (or sudo) only when something is missing.
# `tools/setup.sh fuzz` adds what `make fuzz` needs (clang with libFuzzer
# and the sanitizers' runtimes, AFL++); `tools/setup.sh peers` what `make
# bench-peers` compares tally with (HotSpot, LuaJIT with a wall clock).
set -e
PKGS="gcc make libc6-dev binutils libgc-dev libffi-dev libgccjit-12-dev libxxhash-dev lua5.4 time"
# tally report and tally study: numpy, matplotlib; chromium for the report's test
PKGS="$PKGS python3 python3-numpy python3-matplotlib chromium"
# tally lab: GNU parallel (ssh and rsync for --ssh), Slurm with munge, pandas (its table's test)
PKGS="$PKGS parallel openssh-client rsync munge slurmctld slurmd slurm-client python3-pandas"
[ "${1:-}" = fuzz ] && PKGS="$PKGS clang libclang-rt-14-dev afl++"
# lua-socket: the suite's Lua harness times by the wall clock only with it
[ "${1:-}" = peers ] && PKGS="$PKGS default-jdk-headless luajit lua-socket"
missing=""
for p in $PKGS; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing="$missing $p"
done
[ -z "$missing" ] && exit 0
echo "setup: installing$missing"
SUDO=""
[ "$(id -u)" -ne 0 ] && SUDO=sudo
# munged started from its init script (its pid file is the system's) before
# the install: the install's own start is stopped below
before=$(cat /run/munge/munged.pid 2>/dev/null || true)
$SUDO apt-get update -qq
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq $missing
# Without systemd (a container) and without a policy-rc.d that forbids it,
# munge's package starts munged from its init script (slurmctld's and
# slurmd's do not start without /etc/slurm/slurm.conf).  tally's tests
# start daemons of their own, so the one the install started does not stay.
pid=$(cat /run/munge/munged.pid 2>/dev/null || true)
if [ ! -d /run/systemd/system ] && [ -n "$pid" ] && [ "$pid" != "$before" ] && kill -0 "$pid" 2>/dev/null; then
    echo "setup: stopping munged ($pid), started by its package's install"
    $SUDO /etc/init.d/munge stop >/dev/null
fi
