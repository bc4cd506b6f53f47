#!/usr/bin/env bash
# tests/peers.sh — the check of bench/peers.sh (suite `peers` of tests/run.sh).
#
# Input: bin/tally; java/javac and luajit when installed (`tools/setup.sh
# peers`), else their "skipped" lines are what is checked. Runs
# bench/peers.sh --quick (the smallest sizes that verify, 3 iterations, one
# run) on two benchmarks, then on a broken set: Mandelbrot at inner size 2,
# which no implementation knows the result of (each VM fails its
# verification: exit status 1), a stand-in LuaJIT that exits 0 without
# printing its iterations (the output check must catch it), and a Lua 5.4
# command that does not exist (skipped with its line). Checks the table,
# results.json (valid, and its statuses) and results.md, the curve mode's
# lines, --help and the usage errors. Nothing depends on timing.
# Output: "PASS name" or "FAIL name: why" lines; exit 0 (the caller counts).
# Usage: tests/peers.sh
set -u
cd "$(dirname "$0")/.." || exit 2
TMP=$(mktemp -d /tmp/tally-peers-test.XXXXXX)
trap 'rm -rf "$TMP"' EXIT
P=bench/peers.sh
J=build/jsoncheck
PY=/usr/bin/python3

check() {  # NAME CONDITION-STATUS WHY
    if [[ $2 == 0 ]]; then echo "PASS peers-$1"; else echo "FAIL peers-$1: $3"; fi
}
# row FILE NAME: the table row of benchmark NAME (its cells, one line)
row() { awk -v n="$2" '$1 == n && $2 ~ /^[0-9]+$/' "$1"; }
# jq-less JSON query: prints the value of a Python expression on the document `d`
jq() { "$PY" -c 'import json, sys; d = json.load(open(sys.argv[1])); print(eval(sys.argv[2]))' "$1" "$2" 2>&1; }

have_java=0 have_luajit=0
command -v java >/dev/null && command -v javac >/dev/null && have_java=1
command -v luajit >/dev/null && have_luajit=1
vms=tally,interp,java,luajit

# ---- --help and usage errors ---------------------------------------------------
bash $P --help >"$TMP/help" 2>&1
st=$?
missing=""
for o in --runs= --iterations= --warmup= --lj-iterations= --lj-warmup= --interp-iterations= \
    --interp-warmup= --vms= --lua54 --curves --quick --timeout= --out= --help; do
    grep -q -- "$o" "$TMP/help" || missing+=" $o"
done
check help "$([[ $st == 0 && -z $missing ]]; echo $?)" "status $st, options not listed:$missing"
for bad in "--bogus" "--runs=x" "--vms=tally,nope" "Nope" "Sieve=0" "--iterations=3 --warmup=3"; do
    # shellcheck disable=SC2086
    bash $P --quick --out="$TMP/u" $bad >"$TMP/usage" 2>&1
    st=$?
    check "usage-${bad// /_}" "$([[ $st == 2 ]]; echo $?)" "exit status $st, wanted 2: $(head -c 200 "$TMP/usage")"
done

# ---- a good run: two benchmarks, every VM there is ------------------------------------
bash $P --quick --vms=$vms --out="$TMP/ok" Bounce Sieve >"$TMP/ok.out" 2>"$TMP/ok.err"
st=$?
check ok-status "$([[ $st == 0 ]]; echo $?)" "exit status $st: $(grep -m3 FAILED "$TMP/ok.out")"
for b in Bounce Sieve; do
    r=$(row "$TMP/ok.out" "$b")
    # benchmark inner tallyJIT interp HotSpot LuaJIT ratio ratio
    read -r _ _ t i j l rj rl <<<"$r"
    okrow=1
    [[ $t =~ ^[0-9]+\.[0-9]+$ && $i =~ ^[0-9]+\.[0-9]+$ ]] || okrow=0
    if ((have_java)); then [[ $j =~ ^[0-9.]+$ && $rj =~ ^[0-9.]+$ ]] || okrow=0; else [[ $j == skipped && $rj == - ]] || okrow=0; fi
    if ((have_luajit)); then [[ $l =~ ^[0-9.]+$ && $rl =~ ^[0-9.]+$ ]] || okrow=0; else [[ $l == skipped && $rl == - ]] || okrow=0; fi
    check "ok-row-$b" "$((1 - okrow))" "row '$r' (java installed: $have_java, luajit: $have_luajit)"
done
g=$(grep '^geomean' "$TMP/ok.out")
want_n=$((2 * have_java))
check ok-geomean "$([[ $g == *"($want_n)"* ]]; echo $?)" "geomean line '$g' lacks the count ($want_n)"
for v in java luajit; do
    h=have_$v
    if ((${!h} == 0)); then
        n=$(grep -c "not installed" "$TMP/ok.err")
        check "ok-skipped-$v" "$([[ $n -ge 1 ]] && grep -q "^skipped " "$TMP/ok.out"; echo $?)" "no skipped line for $v"
    fi
done
n=$(grep -c '^\[[0-9]*/[0-9]*\] ' "$TMP/ok.err")
want=$((2 * (2 + have_java + have_luajit)))
check ok-progress "$([[ $n == "$want" ]]; echo $?)" "$n progress lines on stderr, wanted $want"
if [[ -x $J ]]; then
    "$J" "$TMP/ok/results.json" >"$TMP/jc" 2>&1
    check ok-json-valid "$?" "$(head -c 200 "$TMP/jc")"
else
    echo "FAIL peers-ok-json-valid: $J not built (make build/jsoncheck)"
fi
q=$(jq "$TMP/ok/results.json" '[b["name"] + ":" + v["status"] for b in d["benchmarks"] for v in b["vms"].values()]')
want_ok=$((2 + have_java + have_luajit))
n=$(grep -o ':ok' <<<"$q" | wc -l)
check ok-json-status "$([[ $n == $((2 * want_ok)) ]]; echo $?)" "statuses $q"
q=$(jq "$TMP/ok/results.json" 'len(d["benchmarks"][0]["vms"]["tally"]["iterations_us"][0])')
check ok-json-iterations "$([[ $q == 3 ]]; echo $?)" "tally's first process has '$q' iterations, wanted 3"
md=$TMP/ok/results.md
check ok-md "$([[ $(head -1 "$md") == "| benchmark | inner | tally JIT ms | tally interp ms | HotSpot ms | LuaJIT ms | tally JIT / HotSpot | tally JIT / LuaJIT |" ]] &&
    grep -q '^| Bounce | 1 | [0-9]' "$md" && grep -q '^| \*\*geomean\*\* |' "$md"; echo $?)" "results.md: $(head -c 300 "$md")"

# ---- a broken run: every VM's result fails or is missing ---------------------------
# shellcheck disable=SC2016  # $2 is the stand-in's own argument
printf '#!/bin/sh\necho "Starting $2 benchmark ..."\nexit 0\n' >"$TMP/fakelua"
chmod +x "$TMP/fakelua"
LUAJIT=$TMP/fakelua LUA54=$TMP/no-such-lua bash $P --quick --vms=$vms --lua54 --out="$TMP/bad" \
    Mandelbrot=2 Sieve >"$TMP/bad.out" 2>"$TMP/bad.err"
st=$?
check bad-status "$([[ $st == 1 ]]; echo $?)" "exit status $st, wanted 1"
read -r _ _ t i j l l54 _ <<<"$(row "$TMP/bad.out" Mandelbrot)"
wj=FAILED
((have_java)) || wj=skipped
check bad-verification "$([[ $t == FAILED && $i == FAILED && $j == "$wj" && $l == FAILED && $l54 == skipped ]]; echo $?)" \
    "Mandelbrot row: $(row "$TMP/bad.out" Mandelbrot)"
read -r _ _ t i j l l54 _ <<<"$(row "$TMP/bad.out" Sieve)"
check bad-others-run "$([[ $t =~ ^[0-9.]+$ && $i =~ ^[0-9.]+$ && $l == FAILED ]]; echo $?)" \
    "Sieve row: $(row "$TMP/bad.out" Sieve)"
check bad-reasons "$(grep -q '^FAILED Mandelbrot \[tally JIT\]: exit status 1' "$TMP/bad.out" &&
    grep -q '^FAILED Sieve \[LuaJIT\]: output is not 3 iterations' "$TMP/bad.out" &&
    grep -q '^skipped Lua 5.4: not installed' "$TMP/bad.out"; echo $?)" "$(grep -E '^(FAILED|skipped)' "$TMP/bad.out" | head -c 400)"
q=$(jq "$TMP/bad/results.json" 'd["benchmarks"][0]["vms"]["tally"]["status"] + " " + str(d["benchmarks"][0]["vms"]["tally"]["median_ms_per_iteration"]) + " " + d["benchmarks"][1]["vms"]["lua54"]["status"]')
check bad-json "$([[ $q == "failed None skipped" ]]; echo $?)" "JSON: '$q'"
check bad-md "$(grep -q '^| Mandelbrot | 2 | FAILED | FAILED |' "$TMP/bad/results.md"; echo $?)" "$(grep Mandelbrot "$TMP/bad/results.md")"

# ---- curve mode ---------------------------------------------------------------------
bash $P --quick --iterations=20 --vms=tally --out="$TMP/cv" Bounce >"$TMP/cv.out" 2>"$TMP/cv.err"
st=$?
check curves-status "$([[ $st == 0 ]]; echo $?)" "exit status $st"
check curves-lines "$(grep -q '^Per-iteration curves' "$TMP/cv.out" &&
    grep -q '^Bounce .*tally JIT .* | .* | .* | ' "$TMP/cv.out" &&
    grep -q 'first [0-9.]*, warm [0-9.]*, last [0-9.]* ms; drift [-+][0-9.]*%; max RSS [0-9.]* MB' "$TMP/cv.out"; echo $?)" \
    "$(sed -n '/^Per-iteration/,$p' "$TMP/cv.out" | head -c 400)"
q=$(jq "$TMP/cv/results.json" 'sorted(d["benchmarks"][0]["vms"]["tally"]["curve"].keys())')
check curves-json "$([[ $q == "['drift_pct', 'first_ms', 'last_ms', 'warm_ms']" ]]; echo $?)" "curve: $q"
if "$PY" -c 'import matplotlib' 2>/dev/null; then
    check curves-plot "$([[ -s $TMP/cv/curves.png ]]; echo $?)" "no curves.png"
fi
exit 0
