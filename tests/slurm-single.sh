#!/usr/bin/env bash
# tests/slurm-single.sh start|stop DIR — a single-node Slurm on this host for
# the lab suite (tests/lab.sh): munged, slurmctld and slurmd from Debian's
# packages (munge, slurmctld, slurmd, slurm-client), as root.
#
# start: writes DIR/slurm.conf (one node, this host's short name, address
#   127.0.0.1, its CPUs or SLURM_SINGLE_CPUS; ports picked free on 127.0.0.1; every state, spool,
#   pid and log file under DIR), a munge key and socket of DIR's own, starts
#   the three daemons in the foreground (their pids in DIR/*.pid) and waits
#   until the node is idle.  Prints `export SLURM_CONF=DIR/slurm.conf`.
#   Exit 0 when Slurm takes jobs; 77 when it cannot be started here (not
#   root, a program missing), with the reason on stderr; 1 when a daemon
#   failed (its log's tail on stderr), after stopping whatever started.
# stop: ends the daemons DIR/*.pid name (only those), waiting for them.
# Nothing outside DIR is written: the host's own /etc/munge and /etc/slurm
# are not read.
set -u
cmd=${1:-}
D=${2:-}
[[ ($cmd == start || $cmd == stop) && -n $D ]] || { echo "usage: $0 start|stop DIR" >&2; exit 2; }
mkdir -p "$D"
D=$(cd "$D" && pwd)

stop() {
    local f pid k
    for f in "$D/slurmd.pid" "$D/slurmctld.pid" "$D/munged.pid"; do
        [[ -s $f ]] || continue
        pid=$(cat "$f")
        kill "$pid" 2>/dev/null
        for k in $(seq 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
        kill -9 "$pid" 2>/dev/null
        rm -f "$f"
    done
}

if [[ $cmd == stop ]]; then
    stop
    exit 0
fi

[[ $(id -u) -eq 0 ]] || { echo "slurm-single: not root: the daemons run as root here" >&2; exit 77; }
for p in munged slurmctld slurmd sbatch sinfo scontrol; do
    command -v "$p" >/dev/null || PATH=$PATH:/usr/sbin
    command -v "$p" >/dev/null || { echo "slurm-single: $p not found (tools/setup.sh installs it)" >&2; exit 77; }
done

# free ports on the loopback, asked of the kernel
read -r P1 P2 < <(python3 -c '
import socket
s = [socket.socket() for _ in range(2)]
for x in s: x.bind(("127.0.0.1", 0))
print(*[x.getsockname()[1] for x in s])')
HOST=$(hostname -s)
# SLURM_SINGLE_CPUS: the node's CPUs (this host's by default); more than
# the host has lets more small jobs start in each of slurmctld's
# once-a-second scheduling passes
CPUS=${SLURM_SINGLE_CPUS:-$(nproc)}
mkdir -p "$D/state" "$D/spool" "$D/munge"
chmod 700 "$D/munge"
head -c 1024 /dev/urandom >"$D/munge/munge.key"
chmod 400 "$D/munge/munge.key"
cat >"$D/slurm.conf" <<EOF
# a single-node Slurm for tests/lab.sh (tests/slurm-single.sh)
ClusterName=tallylab
SlurmctldHost=$HOST(127.0.0.1)
SlurmctldPort=$P1
SlurmdPort=$P2
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
AuthInfo=socket=$D/munge/munge.socket
StateSaveLocation=$D/state
SlurmdSpoolDir=$D/spool
SlurmctldPidFile=$D/slurmctld.pid.slurm
SlurmdPidFile=$D/slurmd.pid.slurm
SlurmctldLogFile=$D/slurmctld.log
SlurmdLogFile=$D/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SchedulerType=sched/builtin
# schedule as soon as a job ends, not every batch_sched_delay (3 s)
SchedulerParameters=batch_sched_delay=0,sched_min_interval=0
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
ReturnToService=2
MpiDefault=none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
MailProg=/bin/true
SlurmdParameters=config_overrides
NodeName=$HOST NodeAddr=127.0.0.1 CPUs=$CPUS State=UNKNOWN
PartitionName=lab Nodes=$HOST Default=YES MaxTime=INFINITE State=UP
EOF
export SLURM_CONF=$D/slurm.conf

# fail WHAT LOG: a daemon did not come up: say why, stop the others
fail() {
    echo "slurm-single: $1 did not start; the end of $2:" >&2
    tail -5 "$2" >&2 2>/dev/null
    stop
    exit 1
}

# the daemons in the foreground, in the background of this script: their
# pids are ours to stop
munged -F -f --socket="$D/munge/munge.socket" --key-file="$D/munge/munge.key" \
    --pid-file="$D/munge/munged.pid" --log-file="$D/munged.log" --seed-file="$D/munge/seed" \
    </dev/null >>"$D/munged.log" 2>&1 &
echo $! >"$D/munged.pid"
for _ in $(seq 50); do [[ -S $D/munge/munge.socket ]] && break; sleep 0.1; done
[[ -S $D/munge/munge.socket ]] || fail munged "$D/munged.log"
slurmctld -D -i -f "$SLURM_CONF" </dev/null >>"$D/slurmctld.log" 2>&1 &
echo $! >"$D/slurmctld.pid"
slurmd -D -N "$HOST" -f "$SLURM_CONF" </dev/null >>"$D/slurmd.log" 2>&1 &
echo $! >"$D/slurmd.pid"
# the node is idle once slurmd has registered with slurmctld
for _ in $(seq 150); do
    kill -0 "$(cat "$D/slurmctld.pid")" 2>/dev/null || fail slurmctld "$D/slurmctld.log"
    kill -0 "$(cat "$D/slurmd.pid")" 2>/dev/null || fail slurmd "$D/slurmd.log"
    state=$(sinfo -h -n "$HOST" -o %T 2>/dev/null)
    [[ $state == idle ]] && { echo "export SLURM_CONF=$SLURM_CONF"; exit 0; }
    sleep 0.2
done
fail "the node (state '${state:-none}')" "$D/slurmd.log"
