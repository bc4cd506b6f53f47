#!/usr/bin/env bash
# tests/study.sh — raw samples (-X audit.record) and `tally study`: one
# "PASS name" or "FAIL name: why" line per check (tests/run.sh counts them).
#
# - a recorded run: the file is complete, tools/tallysamples.py loads it,
#   and its counts are the stats file's: per bakeoff (its last analysis),
#   the received whole-call records are Σ variants' received + warmups,
#   and the record count is the stats' audit_record.records;
# - quality's per-bakeoff scores are the stats file's `scores`, digit for digit;
# - SIGINT and SIGTERM: the file is complete, with or without --stats;
# - the `write` fault point: the recording fails with a message and exit
#   status 2, no file and no temporary file left, an old file untouched;
# - truncated, corrupted and incomplete files: a clear error from both readers;
# - convergence on a synthetic file (tests/fixtures/study/synth.py) with a
#   seed: the same tables twice, the expected table
#   (tests/fixtures/study/convergence.expect), misprediction falling with
#   the sample size, no wrong decision at a 20% difference; the plots;
# - accuracy is bench/audit-eval (its fixture's expected table);
# - bad arguments: exit status 2 and a message, never a traceback.
# Usage: tests/study.sh DIR (scratch directory).  Environment: TALLY_BIN,
# TALLY_TIMEOUT_SCALE as tests/run.sh sets them.
set -u
cd "$(dirname "$0")/.."
D=${1:?usage: tests/study.sh DIR}
mkdir -p "$D"
T=${TALLY_BIN:-bin}/tally
SCALE=${TALLY_TIMEOUT_SCALE:-1}
PY=/usr/bin/python3   # Debian's, with python3-numpy (tools/setup.sh)
pass() { echo "PASS $1"; }
fail() { echo "FAIL $1: $2"; }

source tests/check.sh

# counts FILE.smp STATS.json: the identities between a samples file and
# the stats file of the same run (prints "ok" or what differs)
counts() {
    "$PY" - "$1" "$2" <<'EOF'
import json, sys
sys.path.insert(0, "tools")
import tallysamples
s = tallysamples.load(sys.argv[1])
d = json.load(open(sys.argv[2]))
r = s.records
st = s.status()
rec = d.get("audit_record") or {}
bad = []
if rec.get("records") != len(r) or not rec.get("complete"):
    bad.append("audit_record %r, file %d records" % (rec, len(r)))
if len(r) == 0:
    bad.append("no samples recorded")
last = {}
for b in s.bakeoffs:
    last[b["id"]] = b["analysis"]
checked = 0
for b in d["bakeoffs"]:
    if b["id"] not in last:
        if any(v.get("received", 0) for v in b["variants"]):
            bad.append("bakeoff %d has samples but no entry in the file" % b["id"])
        continue
    a = last[b["id"]]
    got = int(((r["bakeoff"] == a) & (st == 0) & (r["region"] == 0)).sum())
    want = sum(v["received"] + v["warmups"] for v in b["variants"])
    if b["restarted"] == 0 and got != want:
        bad.append("bakeoff %d (%s): %d records, stats %d received + warm-up" % (b["id"], b["method"], got, want))
    if b["restarted"] and got < want:
        bad.append("bakeoff %d restarted: %d records < %d" % (b["id"], got, want))
    checked += 1
if checked == 0:
    bad.append("no bakeoff to compare")
print("ok" if not bad else "; ".join(bad))
EOF
}

TOWERS=(bench/awfy/Towers.tl 30 250)
AUDIT=(--audit=aa -X audit.seed=1 -X audit.timing=method -X audit.methods=Towers.pushDisk,Towers.moveDisks)

# ---- a recorded run ------------------------------------------------------------
$T "${AUDIT[@]}" -X audit.record="$D/r.smp" --stats="$D/r.json" run "${TOWERS[@]}" >"$D/r.out" 2>"$D/r.err"
st=$?
if [[ $st -ne 0 || ! -s $D/r.smp ]]; then
    fail record-run "status $st, file: $(ls -l "$D/r.smp" 2>&1): $(head -3 "$D/r.err")"
elif ls "$D"/r.smp.tmp* >/dev/null 2>&1; then
    fail record-run "a temporary file is left: $(ls "$D"/r.smp.tmp*)"
else
    pass record-run
fi
c=$(counts "$D/r.smp" "$D/r.json" 2>&1)
[[ $c == ok ]] && pass record-counts-match-stats || fail record-counts-match-stats "$c"
check reader-summary 0 "Towers." -- "$PY" tools/tallysamples.py "$D/r.smp"
"$PY" -c 'import sys; sys.path.insert(0, "tools"); import tallysamples as t
s = t.load(sys.argv[1]); d = s.table()
assert len(d["cycles"]) == len(s.records) > 0
assert set(d["method"]) <= {"Towers.pushDisk", "Towers.moveDisks"}, set(d["method"])
assert set(d["variant_name"]) <= {"a", "b"}, set(d["variant_name"])
assert (d["thread"] >= 1).all() and (d["weight"] >= 1).all()
print("ok")' "$D/r.smp" >"$D/py.out" 2>&1
[[ $(cat "$D/py.out") == ok ]] && pass reader-module || fail reader-module "$(tail -3 "$D/py.out")"

# quality: the analysis's own scores, from the records
$T study quality "$D/r.smp" -o "$D/q" --no-plot >"$D/q.out" 2>&1
"$PY" - "$D/q/quality-bakeoffs.csv" "$D/r.json" >"$D/qc.out" 2>&1 <<'EOF'
import csv, json, sys
rows = list(csv.DictReader(open(sys.argv[1])))
d = {b["id"]: b for b in json.load(open(sys.argv[2]))["bakeoffs"]}
bad, n = [], 0
last = {}
for r in rows:
    last[int(r["id"])] = r   # the last analysis of each bakeoff
for i, r in last.items():
    s = d[i]["scores"][r["mode"]]
    if s["timings"] != int(r["timings"]) or "%.10g" % s["converge"] != r["converge"] or "%.10g" % s["perturb"] != r["perturb"]:
        bad.append("%d: stats %r, study %r" % (i, s, r))
    n += 1
print("ok" if n and not bad else "no rows" if not n else "; ".join(bad))
EOF
[[ $(cat "$D/qc.out") == ok ]] && pass quality-scores-match-stats || fail quality-scores-match-stats "$(head -c 400 "$D/qc.out") $(head -3 "$D/q.out")"

# ---- signals ---------------------------------------------------------------------
for sig in INT TERM; do
    for stats in yes no; do
        name=record-sig$sig-stats-$stats
        rm -f "$D/s.smp" "$D/s.json" "$D"/s.smp.tmp*
        args=("${AUDIT[@]}" -X audit.record="$D/s.smp")
        [[ $stats == yes ]] && args+=(--stats="$D/s.json")
        # SIGINT back to its default first: a background job of a shell
        # without job control (or of a caller that ignores it) starts with
        # SIGINT ignored, and tally keeps an ignored signal ignored
        "$PY" -c 'import os, signal, sys; signal.signal(signal.SIGINT, signal.SIG_DFL); os.execv(sys.argv[1], sys.argv[1:])' \
            "$T" "${args[@]}" run bench/awfy/Towers.tl 100000 250 >/dev/null 2>"$D/s.err" </dev/null &
        pid=$!
        (sleep $((60 * SCALE)); kill -KILL $pid) >/dev/null 2>&1 &
        guard=$!
        # until samples are being written: the temporary file has had a
        # buffer or two (64 KB each), and more are on the way
        for i in $(seq $((300 * SCALE))); do
            sleep 0.1
            size=$(stat -c %s "$D"/s.smp.tmp* 2>/dev/null | head -1)
            [[ ${size:-0} -gt 100000 ]] && break
        done
        kill -$sig $pid
        wait $pid
        st=$?
        kill $guard 2>/dev/null
        wait $guard 2>/dev/null
        want=$((128 + $(kill -l $sig)))
        if [[ $st -ne $want ]]; then
            fail $name "status $st, want $want: $(head -3 "$D/s.err")"
        elif ! "$PY" tools/tallysamples.py "$D/s.smp" >"$D/s.sum" 2>&1; then
            fail $name "$(head -3 "$D/s.sum")"
        elif ls "$D"/s.smp.tmp* >/dev/null 2>&1; then
            fail $name "a temporary file is left"
        elif [[ $stats == yes && $(counts "$D/s.smp" "$D/s.json" 2>&1) != ok ]]; then
            fail $name "$(counts "$D/s.smp" "$D/s.json" 2>&1)"
        else
            pass $name
        fi
    done
done

# ---- a full disk (vm/faults.def: write) ---------------------------------------------
echo old >"$D/w.smp"
$T "${AUDIT[@]}" -X vm.faults=write -X audit.record="$D/w.smp" run "${TOWERS[@]}" >"$D/w.out" 2>"$D/w.err"
st=$?
if [[ $st -ne 2 ]]; then
    fail record-write-fault "status $st, want 2: $(head -3 "$D/w.err")"
elif ! grep -q "^tally: warning: cannot write samples to '$D/w.smp': No space left on device; recording stopped$" "$D/w.err" ||
    ! grep -q "^tally: cannot record samples to '$D/w.smp': No space left on device ([0-9]* samples received, no file written)$" "$D/w.err"; then
    fail record-write-fault "messages: $(head -3 "$D/w.err")"
elif [[ $(cat "$D/w.smp") != old ]] || ls "$D"/w.smp.tmp* >/dev/null 2>&1; then
    fail record-write-fault "the old file changed or a temporary file is left"
elif ! cmp -s <(sed 's/[0-9]*us\b//g' "$D/w.out") <(sed 's/[0-9]*us\b//g' "$D/r.out"); then
    fail record-write-fault "the program's output changed"
else
    pass record-write-fault
fi
# with --stats: the failure is counted in the stats file (its writes fail every second time)
$T "${AUDIT[@]}" -X vm.faults=write:2 -X audit.record="$D/w2.smp" --stats="$D/w2.json" run "${TOWERS[@]}" \
    >/dev/null 2>"$D/w2.err"
if grep -q '"audit_record":{"file":"[^"]*","records":[0-9]*,"lost":[1-9][0-9]*,"write_failures":[1-9][0-9]*,"complete":false}' "$D/w2.json" 2>/dev/null; then
    pass record-write-fault-counted
else
    fail record-write-fault-counted "$(grep -o '"audit_record":{[^}]*}' "$D/w2.json" 2>&1 | head -c 300) $(head -2 "$D/w2.err")"
fi

# ---- broken files ---------------------------------------------------------------------
size=$(stat -c %s "$D/r.smp")
head -c $((size - 7)) "$D/r.smp" >"$D/trunc.smp"
head -c 100 "$D/r.smp" >"$D/short.smp"
printf 'hello, world\n' >"$D/text.smp"
cp "$D/r.smp" "$D/inc.smp"
printf '\0' | dd of="$D/inc.smp" bs=1 seek=84 conv=notrunc 2>/dev/null   # the header's flags: not complete
cp "$D/r.smp" "$D/off.smp"
printf '\1' | dd of="$D/off.smp" bs=1 seek=30 conv=notrunc 2>/dev/null   # nrecords far off
for f in trunc:"truncated samples file" short:"truncated samples file" text:"not a samples file" \
    inc:"incomplete samples file" off:"corrupted samples file"; do
    n=${f%%:*} msg=${f#*:}
    check study-$n-file 2 "$D/$n.smp: $msg" -- $T study quality "$D/$n.smp"
    check reader-$n-file 2 "tallysamples: $D/$n.smp: $msg" -- "$PY" tools/tallysamples.py "$D/$n.smp"
done

# ---- convergence on a synthetic file ----------------------------------------------------
"$PY" tests/fixtures/study/synth.py "$D/syn.smp" 40000 1
$T study convergence "$D/syn.smp" --seed=7 --trials=40 -o "$D/c1" --no-plot >"$D/c1.out" 2>&1
st1=$?
$T study convergence "$D/syn.smp" --seed=7 --trials=40 -o "$D/c2" >"$D/c2.out" 2>&1
st2=$?
if [[ $st1 -ne 0 || $st2 -ne 0 ]]; then
    fail convergence-runs "status $st1 $st2: $(head -3 "$D/c2.out")"
elif ! cmp -s "$D/c1.out" "$D/c2.out" || ! cmp -s "$D/c1/decisions.csv" "$D/c2/decisions.csv"; then
    fail convergence-runs "two runs with one seed differ"
else
    pass convergence-runs
fi
if diff -u tests/fixtures/study/convergence.expect "$D/c1.out" >"$D/c.diff"; then
    pass convergence-expected
else
    fail convergence-expected "$(head -20 "$D/c.diff")"
fi
"$PY" - "$D/c1" >"$D/cs.out" 2>&1 <<'EOF'
import csv, sys
m = list(csv.DictReader(open(sys.argv[1] + "/misprediction.csv")))
d = list(csv.DictReader(open(sys.argv[1] + "/decisions.csv")))
bad = []
for x in {r["faster_pct"] for r in m}:
    rates = [float(r["rate"]) for r in sorted((r for r in m if r["faster_pct"] == x), key=lambda r: int(r["size"]))]
    if any(b > a for a, b in zip(rates, rates[1:])) or rates[0] <= rates[-1] and x != "20":
        bad.append("misprediction at %s%% does not fall with the sample size: %s" % (x, rates))
for r in d:
    if r["faster_pct"] == "20" and (r["wrong"] != "0" or r["correct"] != r["trials"]):
        bad.append("%s at 20%%: %s wrong, %s correct of %s" % (r["test"], r["wrong"], r["correct"], r["trials"]))
    if r["test"] == "sequential" and r["wrong"] != "0":
        bad.append("sequential at %s%%: %s wrong" % (r["faster_pct"], r["wrong"]))
print("ok" if not bad else "; ".join(bad))
EOF
[[ $(cat "$D/cs.out") == ok ]] && pass convergence-shape || fail convergence-shape "$(head -c 400 "$D/cs.out")"
if head -c 200 "$D/c2/misprediction.svg" 2>/dev/null | grep -q '<svg' &&
    head -c 200 "$D/c2/decisions.svg" 2>/dev/null | grep -q '<svg' && [[ ! -e $D/c1/decisions.svg ]]; then
    pass convergence-plots
else
    fail convergence-plots "$(ls "$D/c1" "$D/c2" 2>&1 | tr '\n' ' ')"
fi
check quality-synthetic 0 "Synth.work" -- $T study quality "$D/syn.smp" -o "$D/qs"
[[ -s $D/qs/quality.svg ]] && pass quality-plot || fail quality-plot "no $D/qs/quality.svg"
check convergence-too-few 2 "too few to split" -- $T study convergence "$D/syn.smp" --step=100000

# ---- accuracy: bench/audit-eval --------------------------------------------------------
$T study accuracy --from=tests/fixtures/audit-eval >"$D/acc.out" 2>&1
if diff -u tests/fixtures/audit-eval/expected.txt "$D/acc.out" >"$D/acc.diff"; then
    pass accuracy-is-audit-eval
else
    fail accuracy-is-audit-eval "$(head -8 "$D/acc.diff")"
fi

# ---- the command line -------------------------------------------------------------------
check help-lists-study 0 "tally study convergence|quality|accuracy" -- $T --help
check study-help 0 "usage: tally study convergence FILE.smp" -- $T study --help
check study-no-args 2 "usage: tally study" -- $T study
check study-unknown 2 "unknown study 'convergance' (did you mean 'convergence'?)" -- $T study convergance x.smp
check study-no-file 2 "the convergence study needs a samples file" -- $T study convergence
check study-missing-file 2 "$D/none.smp" -- $T study quality "$D/none.smp"
check study-bad-trials 2 "--trials must be a count of 1 or more, got '0'" -- $T study convergence "$D/syn.smp" --trials=0
check study-bad-diffs 2 "--diffs must be a list of positive percentages" -- $T study convergence "$D/syn.smp" --diffs=1,x
check study-bad-threshold 2 "--thresholds must be a list of confidences in (0.5, 1)" -- \
    $T study convergence "$D/syn.smp" --thresholds=1.5
check study-bad-option 2 "unknown option '--sizes=10' for the quality study" -- $T study quality "$D/syn.smp" --sizes=10
check study-bad-tunable 2 "audit.trim_drop" -- $T study convergence "$D/syn.smp" -X audit.trim_drop=500
check study-method-absent 2 "has no timings" -- $T study convergence "$D/syn.smp" --method=No.such
check record-dir-missing 2 "tunable 'audit.record': cannot write in '$D/nodir'" -- \
    $T --audit=aa -X audit.record="$D/nodir/x.smp" run "${TOWERS[@]}"
check record-is-dir 2 "tunable 'audit.record': '$D' is not a regular file" -- $T --audit=aa -X audit.record="$D" run "${TOWERS[@]}"
check record-help 0 "audit.record" -- $T --help=tunables
