#!/usr/bin/env bash
# tests/lab.sh DIR — `tally lab` (tools/tally-lab): the spec's expansion
# into jobs and their stable ids, clear errors (exit 2, no traceback), the
# local path (GNU parallel) on the 3 × 3 × 5 matrix of
# tests/fixtures/lab/matrix.toml — job count, every job's files and output,
# resumption (a second run runs nothing; a deleted result, and only it,
# runs again), the merged table's rows in CSV and JSON — the --ssh path
# with a loginfile naming ':' (this host, without ssh), and the Slurm path
# on a single-node Slurm started here (tests/slurm-single.sh), stopped at
# the end.  Prints one "PASS name" or "FAIL name: why" line per check, and
# "SKIP slurm: why" only when the Slurm daemons cannot start here.
set -u
D=${1:-/tmp/tally-lab-test}
rm -rf "$D"
mkdir -p "$D"
D=$(cd "$D" && pwd)
T=${TALLY_BIN:-bin}/tally
F=tests/fixtures/lab
SPEC=$F/matrix.toml

pass() { echo "PASS $1"; }
failed() { echo "FAIL $1: $2"; }

source tests/check.sh

# started RESULTS: "ID start-time" per job, to tell which jobs ran
started() {
    python3 - "$1" <<'PY'
import json, os, sys
j = os.path.join(sys.argv[1], "jobs")
for d in sorted(os.listdir(j)):
    if not d.startswith("."):
        print(d, json.load(open(os.path.join(j, d, "job.json")))["started"])
PY
}

# check_results NAME RESULTS N: N job folders, each whole, status 0, the
# program's output the one its file expects (tests/fixtures/lab/*.out)
check_results() {
    local name=$1 msg
    msg=$(python3 - "$2" "$3" "$F" <<'PY'
import json, os, sys
results, n, fixtures = sys.argv[1], int(sys.argv[2]), sys.argv[3]
jobs = [d for d in os.listdir(os.path.join(results, "jobs")) if not d.startswith(".")]
if len(jobs) != n:
    sys.exit(f"{len(jobs)} job folders, want {n}")
for jid in jobs:
    d = os.path.join(results, "jobs", jid)
    for f in ("stats.json", "stdout", "stderr", "cmd", "status", "job.json"):
        if not os.path.isfile(os.path.join(d, f)):
            sys.exit(f"{d} has no {f}")
    if open(os.path.join(d, "status")).read() != "0\n":
        sys.exit(f"{d}: status {open(os.path.join(d, 'status')).read().strip()}")
    prog = json.load(open(os.path.join(d, "job.json")))["program"]
    if open(os.path.join(d, "stdout")).read() != open(os.path.join(fixtures, prog + ".out")).read():
        sys.exit(f"{d}: stdout differs from {fixtures}/{prog}.out")
    json.load(open(os.path.join(d, "stats.json")))
PY
)
    if [[ $? -ne 0 ]]; then failed "$name" "$msg"; else pass "$name"; fi
}

# check_table NAME RESULTS TABLE: the merged table (CSV or JSON) has one
# row per bakeoff of each run's stats file, one for a run without any,
# and every job's coordinates
check_table() {
    local name=$1 r=$2 table=$3 msg
    msg=$(python3 - "$r" "$table" <<'PY'
import csv, json, os, sys
results, table = sys.argv[1], sys.argv[2]
rows = json.load(open(table)) if table.endswith(".json") else list(csv.DictReader(open(table)))
want, jobs = 0, {}
for d in os.listdir(os.path.join(results, "jobs")):
    if d.startswith("."):
        continue
    stats = json.load(open(os.path.join(results, "jobs", d, "stats.json")))
    jobs[d] = json.load(open(os.path.join(results, "jobs", d, "job.json")))
    want += max(1, len(stats.get("bakeoffs") or []))
if len(rows) != want:
    sys.exit(f"{len(rows)} rows, want {want}")
for r in rows:
    meta = jobs.get(r["job"])
    if meta is None:
        sys.exit(f"row of an unknown job {r['job']}")
    for k in ("program", "options"):
        if r[k] != meta[k]:
            sys.exit(f"{r['job']}: {k} is {r[k]!r}, want {meta[k]!r}")
    if str(r["rep"]) != str(meta["rep"]):
        sys.exit(f"{r['job']}: rep {r['rep']}, want {meta['rep']}")
    if meta["options"] == "interp" and r["bakeoff"] not in ("", None):
        sys.exit(f"{r['job']}: a bakeoff row for a run without auditing")
    if meta["options"] == "aa" and r["client"] != "aa":
        sys.exit(f"{r['job']}: client {r['client']!r} in an --audit=aa run")
    if not os.path.isfile(os.path.join(os.path.dirname(table), r["stats"])):
        sys.exit(f"{r['job']}: the stats column {r['stats']!r} is not a file beside the table")
if {r["job"] for r in rows} != set(jobs):
    sys.exit("some job has no row")
PY
)
    if [[ $? -ne 0 ]]; then failed "$name" "$msg"; else pass "$name"; fi
}

# ---- usage and the spec
check lab-help 0 "tally lab SPEC" -- "$T" lab --help
check lab-in-tally-help 0 "tally lab SPEC" -- "$T" --help
check lab-options-help 0 "--slurm" -- "$T" lab "$SPEC" --help
check lab-no-args 2 "usage: tally lab" -- "$T" lab
check lab-no-spec 2 "tally lab: cannot read spec $D/none.toml" -- "$T" lab "$D/none.toml"
check lab-bad-option 2 "unrecognized arguments: --lokal" -- "$T" lab "$SPEC" --lokal
check lab-two-modes 2 "not allowed with argument" -- "$T" lab "$SPEC" --local --slurm
check lab-bad-jobs 2 "must be at least 1" -- "$T" lab "$SPEC" -j 0
printf 'programs = ["%s/sum.tl"]\nrepetition = 3\n' "$PWD/$F" >"$D/typo.toml"
check lab-spec-typo 2 "unknown key 'repetition' (did you mean 'repetitions'?)" -- "$T" lab "$D/typo.toml"
printf 'programs = ["%s/sum.tl"\n' "$PWD/$F" >"$D/broken.toml"
check lab-spec-toml 2 "not valid TOML" -- "$T" lab "$D/broken.toml"
printf '{"programs": ["%s/sum.tl"], "repetitions": 0}\n' "$PWD/$F" >"$D/zero.json"
check lab-spec-json 2 "'repetitions' must be an integer" -- "$T" lab "$D/zero.json"
printf 'programs = ["nowhere.tl"]\n' >"$D/missing.toml"
check lab-spec-program 2 "no such program file: $D/nowhere.tl" -- "$T" lab "$D/missing.toml"
printf 'programs = ["%s/sum.tl"]\n[tunables]\n"audit.burst" = [4, 0]\n' "$PWD/$F" >"$D/badtun.toml"
check lab-spec-tunable 2 "tunables.audit.burst = 0: " -- "$T" lab "$D/badtun.toml"
printf 'programs = ["%s/sum.tl"]\n[options]\nx = "--audit=nosuch"\n' "$PWD/$F" >"$D/badopt.toml"
check lab-spec-options 2 "options 'x': " -- "$T" lab "$D/badopt.toml"
check lab-merge-none 2 "not a results folder" -- "$T" lab merge "$D/nowhere"

# expansion: 2 programs (one with its own 2 argument sets, one with the
# 3 of the spec) × 2 option sets × 2 × 3 tunable values × 2 repetitions =
# (2 + 3) × 2 × 6 × 2 = 120 jobs with distinct ids, the same ids whatever
# the order of the spec's lists
cat >"$D/grid.toml" <<EOF
programs = ["$PWD/$F/sum.tl", { file = "$PWD/$F/sieve.tl", args = ["10", "20 30"] }]
args = ["1", "2", "3"]
options = ["", "--jit=off"]
repetitions = 2
[tunables]
"audit.burst" = [4, 8]
"vm.hot_threshold" = [10, 100, 1000]
EOF
cat >"$D/grid2.toml" <<EOF
programs = [{ file = "$PWD/$F/sieve.tl", args = ["20 30", "10"] }, "$PWD/$F/sum.tl"]
args = ["3", "1", "2"]
options = ["--jit=off", ""]
repetitions = 2
[tunables]
"vm.hot_threshold" = [1000, 10, 100]
"audit.burst" = [8, 4]
EOF
"$T" lab "$D/grid.toml" --list >"$D/grid.list" 2>&1
"$T" lab "$D/grid2.toml" --list >"$D/grid2.list" 2>&1
n=$(wc -l <"$D/grid.list")
u=$(cut -f1 "$D/grid.list" | sort -u | wc -l)
if [[ $n -eq 120 && $u -eq 120 ]]; then pass lab-expand; else failed lab-expand "$n jobs, $u ids, want 120"; fi
if cmp -s <(cut -f1 "$D/grid.list" | sort) <(cut -f1 "$D/grid2.list" | sort); then
    pass lab-stable-ids
else
    failed lab-stable-ids "reordering the spec's lists changed the ids"
fi
if grep -q "sieve-[0-9a-f]*-r2	.* -X vm.hot_threshold=100 .*run $PWD/$F/sieve.tl 20 30\$" "$D/grid.list"; then
    pass lab-list-command
else
    failed lab-list-command "no sieve job with args '20 30': $(head -1 "$D/grid.list")"
fi

# ---- local: the 3 × 3 × 5 matrix with GNU parallel
R=$D/local
check lab-local 0 "45 of 45 jobs done (45 run now), 0 with a non-zero status" -- \
    "$T" lab "$SPEC" --local -o "$R" -j 2
check_results lab-local-results "$R" 45
started "$R" >"$D/started1"
check lab-resume-nothing 0 "45 jobs, 0 to run, 45 done before" -- "$T" lab "$SPEC" --local -o "$R" -j 2
started "$R" >"$D/started2"
if cmp -s "$D/started1" "$D/started2"; then pass lab-resume-none-ran; else failed lab-resume-none-ran "a done job ran again"; fi
victim=$(ls "$R/jobs" | grep '^collatz' | sed -n 7p)
rm -r "${R:?}/jobs/$victim"
check lab-resume-one 0 "45 jobs, 1 to run, 44 done before" -- "$T" lab "$SPEC" --local -o "$R" -j 2
started "$R" >"$D/started3"
changed=$(diff "$D/started2" "$D/started3" | grep '^>' | cut -d' ' -f2)
if [[ $changed == "$victim" ]]; then
    pass lab-resume-only-deleted
else
    failed lab-resume-only-deleted "ran again: '${changed//$'\n'/ }', want $victim"
fi
check_results lab-resume-results "$R" 45
# parallel's joblog agrees: the one job of that run appended
if [[ $(grep -c "job $R $victim\$" "$R/joblog") -eq 1 && $(($(wc -l <"$R/joblog") - 1)) -eq 45 ]]; then
    pass lab-joblog
else
    failed lab-joblog "$(($(wc -l <"$R/joblog") - 1)) lines; $victim $(grep -c "$victim" "$R/joblog") times"
fi
check lab-merge-csv 0 "rows from 45 runs written to $D/table.csv" -- "$T" lab merge "$R" -o "$D/table.csv"
check_table lab-table-csv "$R" "$D/table.csv"
check lab-merge-json 0 "rows from 45 runs written to $D/table.json" -- "$T" lab merge "$R" -o "$D/table.json"
check_table lab-table-json "$R" "$D/table.json"
# pandas reads both forms alike, where Debian's python3-pandas is installed
# (tools/setup.sh does not install it)
if /usr/bin/python3 -c 'import pandas' 2>/dev/null; then
    if msg=$(/usr/bin/python3 - "$D/table.csv" "$D/table.json" 2>&1 <<'PY'
import sys, pandas
c, j = pandas.read_csv(sys.argv[1]), pandas.read_json(sys.argv[2])
assert c.shape == j.shape, (c.shape, j.shape)
assert list(c.columns) == list(j.columns)
assert sorted(c["job"]) == sorted(j["job"])
assert c["rep"].dtype.kind == "i" and c["timed_out"].dtype == bool
PY
    ); then pass lab-table-pandas; else failed lab-table-pandas "$(echo "$msg" | tail -1)"; fi
else
    echo "SKIP lab-table-pandas: no python3-pandas here"
fi
check lab-merge-format 2 "must end in .csv or .json" -- "$T" lab merge "$R" -o "$D/table.txt"
# a run whose program fails is a row with its status
printf 'programs = ["%s/sum.tl"]\nargs = ["notanumber"]\n' "$PWD/$F" >"$D/fails.toml"
check lab-job-fails 1 "1 with a non-zero status" -- "$T" lab "$D/fails.toml" -o "$D/fails"
"$T" lab merge "$D/fails" -o "$D/fails.csv" 2>/dev/null
if [[ $(sed -n 2p "$D/fails.csv" | cut -d, -f8) == 1 ]]; then pass lab-merge-status; else
    failed lab-merge-status "status column: $(sed -n 2p "$D/fails.csv" | cut -d, -f8)"; fi

# ---- --ssh through an sshloginfile that names this host as ':'
echo ":" >"$D/hosts"
check lab-ssh-dry 0 "--sshloginfile $D/hosts" -- "$T" lab "$F/small.toml" --ssh "$D/hosts" -o "$D/ssh" --dry-run
check lab-ssh 0 "6 of 6 jobs done (6 run now), 0 with a non-zero status" -- \
    "$T" lab "$F/small.toml" --ssh "$D/hosts" -o "$D/ssh"
check_results lab-ssh-results "$D/ssh" 6
check lab-ssh-bad 2 "no such sshloginfile" -- "$T" lab "$F/small.toml" --ssh "$D/nohosts"

# ---- --ssh through real ssh: an sshd of our own on 127.0.0.1, when this
# host has one (tools/setup.sh does not install a server); the jobs write
# in parallel's temporary folders of the "remote" and come back by
# --return
E=$D/sshd
if [[ $(id -u) -eq 0 && -x /usr/sbin/sshd ]] && command -v ssh >/dev/null && command -v rsync >/dev/null; then
    mkdir -p "$E" /run/sshd
    chmod 700 "$E"
    ssh-keygen -q -t ed25519 -N '' -f "$E/host_key" && ssh-keygen -q -t ed25519 -N '' -f "$E/user_key"
    cp "$E/user_key.pub" "$E/authorized_keys"
    port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
    printf '%s\n' "Port $port" "ListenAddress 127.0.0.1" "HostKey $E/host_key" "AuthorizedKeysFile $E/authorized_keys" \
        "PasswordAuthentication no" "PermitRootLogin prohibit-password" "StrictModes no" "UsePAM no" \
        "PidFile $E/sshd.pid" >"$E/sshd_config"
    /usr/sbin/sshd -f "$E/sshd_config" -E "$E/sshd.log"
    echo "ssh -p $port -i $E/user_key -o StrictHostKeyChecking=no -o UserKnownHostsFile=/dev/null -o LogLevel=ERROR root@127.0.0.1" >"$E/hosts"
    for _ in $(seq 50); do [[ -s $E/sshd.pid ]] && break; sleep 0.1; done
    check lab-ssh-real 0 "6 of 6 jobs done (6 run now), 0 with a non-zero status" -- \
        timeout 300 "$T" lab "$F/small.toml" --ssh "$E/hosts" -o "$D/ssh-real" -j 3
    check_results lab-ssh-real-results "$D/ssh-real" 6
    # the jobs ran through ssh in parallel's temporary folders, not in
    # the results folder: what came home was --return's copy
    if [[ $(grep -c "\"sshlogin\": \"ssh -p $port " "$D/ssh-real"/jobs/*/job.json | grep -c ':1$') -eq 6 ]] &&
        ! grep -q "\"workdir\": \"$D/ssh-real/" "$D/ssh-real"/jobs/*/job.json; then
        pass lab-ssh-real-return
    else
        failed lab-ssh-real-return "a job.json names no ssh login, or the results folder as its workdir"
    fi
    [[ -s $E/sshd.pid ]] && kill "$(cat "$E/sshd.pid")"
else
    echo "SKIP lab-ssh-real: no sshd, ssh or rsync here (the ':' host above runs the --ssh path without ssh)"
fi

# ---- Slurm: a job array on a single-node Slurm of our own
check lab-slurm-dry 0 "#SBATCH --array=0-44" -- "$T" lab "$SPEC" --slurm --dry-run -o "$D/slurm"
if grep -qF 'SLURM_ARRAY_TASK_ID + 1' "$D/out" && [[ ! -e $D/slurm/slurm ]]; then
    pass lab-slurm-dry-script
else
    failed lab-slurm-dry-script "the script does not read its line, or --dry-run wrote files"
fi
S=$D/slurmd
SLURM_SINGLE_CPUS=8 bash tests/slurm-single.sh start "$S" >"$D/slurm-start" 2>&1
st=$?
if [[ $st -eq 77 ]]; then
    echo "SKIP slurm: the daemons cannot start here: $(tail -1 "$D/slurm-start")"
elif [[ $st -ne 0 ]]; then
    failed lab-slurm-start "$(tail -3 "$D/slurm-start")"
    bash tests/slurm-single.sh stop "$S"
else
    pass lab-slurm-start
    trap 'bash tests/slurm-single.sh stop "$S"' EXIT
    export SLURM_CONF=$S/slurm.conf
    check lab-slurm 0 "45 of 45 jobs done (45 run now), 0 with a non-zero status" -- \
        timeout 120 "$T" lab "$SPEC" --slurm --wait -o "$D/slurm"
    check_results lab-slurm-results "$D/slurm" 45
    n=$(ls "$D/slurm/slurm/" | grep -c '\.out$')
    if [[ $n -eq 45 ]]; then pass lab-slurm-array; else failed lab-slurm-array "$n task logs, want 45"; fi
    check lab-slurm-resume 0 "45 jobs, 0 to run" -- "$T" lab "$SPEC" --slurm --wait -o "$D/slurm"
    check lab-slurm-merge 0 "rows from 45 runs" -- "$T" lab merge "$D/slurm" -o "$D/slurm-table.csv"
    check_table lab-slurm-table "$D/slurm" "$D/slurm-table.csv"
    pids=$(cat "$S"/munged.pid "$S"/slurmctld.pid "$S"/slurmd.pid)
    bash tests/slurm-single.sh stop "$S"
    alive=""
    for p in $pids; do kill -0 "$p" 2>/dev/null && alive="$alive $p"; done
    if [[ -z $alive ]]; then pass lab-slurm-stop; else failed lab-slurm-stop "still running:$alive"; fi
fi
