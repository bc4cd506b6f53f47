#!/usr/bin/env bash
# tests/report.sh DIR — `tally report`: bad inputs (exit 2, one clear line,
# never a traceback); the stats members it draws from (compiles, each
# bakeoff's trajectory, its markers' source lines and weights); and a
# real report of two audited runs, rendered in headless Chromium: no
# console error, and the DOM has the elements tools/tally-report promises,
# one bakeoff section per bakeoff of the stats files (tests/report-dom.py).  Prints
# one "PASS name" or "FAIL name: why" line per check.
# REPORT_PNG=FILE: keep the screenshot (of the first run's report) there
# too (docs/report.png is made so: docs/workbench.md#report).
set -u
D=${1:-/tmp/tally-report-test}
mkdir -p "$D"
T=${TALLY_BIN:-bin}/tally
SCALE=${TALLY_TIMEOUT_SCALE:-1}
PY=/usr/bin/python3

source tests/check.sh

# ---- the command's arguments ------------------------------------------------
check report-help 0 "tally report STATS.json" -- "$T" --help
printf '{"version":1,' >"$D/cut.json"
printf '[1,2]' >"$D/list.json"
check report-missing 2 "cannot read it" -- "$T" report "$D/none.json" -o "$D/x.html"
check report-not-json 2 "not JSON" -- "$T" report "$D/cut.json" -o "$D/x.html"
check report-not-stats 2 "not a tally --stats file" -- "$T" report "$D/list.json" -o "$D/x.html"
check report-no-output 2 "-o" -- "$T" report "$D/list.json"
# a table of tally lab merge (CSV or JSON) stands for its runs, named by job id
"$T" lab tests/fixtures/lab/small.toml -o "$D/lab" >"$D/lab.out" 2>&1 &&
    "$T" lab merge "$D/lab" -o "$D/lab.csv" >>"$D/lab.out" 2>&1 &&
    "$T" lab merge "$D/lab" -o "$D/lab.json" >>"$D/lab.out" 2>&1 || echo "FAIL report-lab-run: $(tail -2 "$D/lab.out")"
for t in csv json; do
    check report-lab-$t 0 "" -- "$T" report "$D/lab.$t" -o "$D/lab-$t.html"
    runs=$(grep -oE '<h2>Run [0-9]+: sum-[0-9a-f]{10}-r[12] ' "$D/lab-$t.html" 2>/dev/null | wc -l)
    [[ $runs -eq 6 ]] && echo "PASS report-lab-$t-runs" || echo "FAIL report-lab-$t-runs: $runs runs named by job id, want 6"
done
check report-no-input 2 "STATS.json" -- "$T" report -o "$D/x.html"
[[ -e $D/x.html ]] && echo "FAIL report-nothing-written: a failed report left $D/x.html" ||
    echo "PASS report-nothing-written"

# ---- two audited runs ------------------------------------------------------------
# method timings: two methods, -O0 against -O2 (about 2x apart); the
# two mixers' calls stay calls (inline.poly_ways=1): inlined into main's
# loop, they would leave their bakeoffs nothing to time
"$T" --audit=custom -X 'audit.custom=-O0;-O2' -X audit.min_samples=1000 -X inline.poly_ways=1 --stats="$D/hot.json" \
    run tests/fixtures/report/hot.tl 1500000 >"$D/hot.out" 2>&1 </dev/null
st=$?
[[ $st -eq 0 ]] && echo "PASS report-run-hot" || echo "FAIL report-run-hot: status $st: $(head -2 "$D/hot.out")"
# loop timings: a marker map; the variants compiled on the program's
# thread as kernel's code installs (--jit=sync, audit.hot_threshold=0),
# before kernel goes on, so that a loaded host still times its 60 calls;
# kernel alone (main, entered once, would get a bakeoff with no call)
"$T" --jit=sync --audit=custom -X 'audit.custom=-O0;-O2' -X audit.methods=kernel -X audit.hot_threshold=0 \
    -X audit.timing=markers \
    --stats="$D/loops.json" run tests/fixtures/loops/rare-loop.tl 60 200 >"$D/loops.out" 2>&1 </dev/null
st=$?
[[ $st -eq 0 ]] && echo "PASS report-run-loops" || echo "FAIL report-run-loops: status $st: $(head -2 "$D/loops.out")"

# the stats members the report draws (docs/stats.md)
if grep -qE '^\{"compile":[0-9]+,"method":"[^"]+","kind":"(entry|osr)",.*"ok":true' "$D/hot.json" &&
    grep -qE '^\{"compile":null,"method":"(Rotor|Folder).mix","kind":"bakeoff","bakeoff":[0-9]+,' "$D/hot.json" &&
    grep -q '^"compiles_dropped":0' "$D/hot.json"; then
    echo "PASS stats-compiles"
else
    echo "FAIL stats-compiles: $(grep -m2 '"compile' "$D/hot.json" | cut -c1-200)"
fi
if grep -qE '^\{"id":[0-9]+,"method":"(Rotor|Folder).mix",.*,"looks":[1-9][0-9]*,"trajectory":\[\[[0-9.e-]+,[0-9]+,[01],[01],' "$D/hot.json"; then
    echo "PASS stats-trajectory"
else
    echo "FAIL stats-trajectory: $(grep -o '"looks".\{0,80\}' "$D/hot.json" | head -2)"
fi
# a bounded number of compile events: the cap counts the rest
"$T" --jit=eager -X jit.compile_events=2 --stats="$D/capped.json" run tests/fixtures/report/hot.tl 10 >/dev/null 2>&1 </dev/null
n=$(grep -c '^{"compile":' "$D/capped.json")
if [[ $n -eq 2 ]] && grep -qE '^"compiles_dropped":[1-9]' "$D/capped.json"; then
    echo "PASS stats-compiles-capped"
else
    echo "FAIL stats-compiles-capped: $n events kept, $(grep -o '"compiles_dropped":[0-9]*' "$D/capped.json")"
fi
if grep -qE '"markers":\[\{"point":0,"pc":[0-9]+,"line":1[0-9],' "$D/loops.json"; then
    echo "PASS stats-marker-lines"
else
    echo "FAIL stats-marker-lines: $(grep -o '"markers":.\{0,60\}' "$D/loops.json" | head -1)"
fi
# the marker map's weights: per variant with a mean, Σ over its regions
# (outside + each point) of weight × cycles is its mean_cycles, its shares
# sum to 1; one weight per point, for every variant
"$PY" - "$D/loops.json" <<'PYEOF'
import json, math, sys
bad, checked = [], 0
for b in json.load(open(sys.argv[1])).get("bakeoffs") or []:
    if b.get("timing") != "markers" or not b.get("markers"):
        continue
    out = b.get("outside")
    if not isinstance(out, dict) or out.get("weight") != 1:
        bad.append("#%s: outside %r" % (b["id"], out))
        continue
    for k, v in enumerate(b["variants"]):
        mean = v.get("mean_cycles")
        regs = [(out["weight"], out["variants"][k])] + [(m.get("weight"), m["variants"][k]) for m in b["markers"]]
        if any(not isinstance(w, (int, float)) for w, _ in regs):
            bad.append("#%s: a point without a weight" % b["id"])
            continue
        if mean is None:
            continue
        total = sum(w * r["cycles"] for w, r in regs if w)
        shares = sum(r["share"] for w, r in regs)
        if not math.isclose(total, mean, rel_tol=1e-6) or not math.isclose(shares, 1, rel_tol=1e-6):
            bad.append("#%s %s: sum weight x cycles %r, mean %r, shares %r" % (b["id"], v["name"], total, mean, shares))
        checked += 1
if bad or not checked:
    print("FAIL stats-marker-weights: %s" % ("; ".join(bad[:3]) or "no variant with a mean and markers"))
else:
    print("PASS stats-marker-weights (%d variants)" % checked)
PYEOF

# a run whose code comes from the code cache: its loads are drawn and
# listed as such (the second run preloads what the first compiled)
for k in 1 2; do
    "$T" --jit=eager -X jit.cache="$D/cache" --stats="$D/cached.json" run tests/fixtures/report/hot.tl 10 >/dev/null 2>&1 </dev/null
done
if ! "$T" report "$D/cached.json" -o "$D/cached.html" >"$D/out" 2>&1; then
    echo "FAIL report-cached: $(head -2 "$D/out")"
elif ! grep -q 'loaded from the code cache' "$D/cached.html" || ! grep -q '<td>ok, from the code cache</td>' "$D/cached.html"; then
    echo "FAIL report-cached: no load drawn or listed: $(grep -o '"cached":[a-z]*' "$D/cached.json" | sort | uniq -c | tr '\n' ' ')"
else
    echo "PASS report-cached"
fi

# ---- the report ----------------------------------------------------------------------
check report-make 0 "" -- "$T" report "$D/hot.json" "$D/loops.json" -o "$D/report.html"
R=$D/report.html
if [[ -s $R ]] && ! grep -qiE '<script|<link|<iframe|<img|src=|@import|url\((https?:|//)' "$R" &&
    ! grep -oE '(https?:)?/''/[a-z0-9.-]+' "$R" | grep -qv '^http:/''/www[.]w3[.]org$'; then   # the SVG namespaces
    echo "PASS report-self-contained"
else
    echo "FAIL report-self-contained: $(grep -oiE '<script|<link|src=[^ ]*|https?:/''/[a-z0-9./-]+' "$R" | grep -v www.w3.org | head -3)"
fi

# ---- in a browser ------------------------------------------------------------------------
CHROMIUM=$(command -v chromium || command -v chromium-browser || true)
if [[ -z $CHROMIUM ]]; then
    echo "FAIL report-chromium: chromium is not installed (tools/setup.sh installs it): the report was not checked in a browser"
    exit 0
fi
# a profile of its own: other tests or users may run chromium meanwhile
browse() {
    timeout $((60 * SCALE)) "$CHROMIUM" --headless --no-sandbox --disable-gpu --hide-scrollbars --no-first-run \
        --user-data-dir="$D/chromium-profile" --enable-logging=stderr --v=0 "$@" "file://$R"
}
browse --dump-dom >"$D/dom.html" 2>"$D/chromium.err"
st=$?
if [[ $st -ne 0 || ! -s $D/dom.html ]]; then
    echo "FAIL report-chromium: chromium could not render the report (status $st): $(grep -v dbus "$D/chromium.err" | tail -2)"
    exit 0
fi
echo "PASS report-chromium"
if grep -qE 'Uncaught|CONSOLE' "$D/chromium.err"; then
    echo "FAIL report-console: $(grep -m2 -E 'Uncaught|CONSOLE' "$D/chromium.err")"
else
    echo "PASS report-console"
fi
"$PY" tests/report-dom.py "$D/dom.html" "$D/hot.json" "$D/loops.json" || echo "FAIL report-dom: tests/report-dom.py could not run"
# the screenshot: a report of the first run alone
"$T" report "$D/hot.json" -o "$D/hot.html" >"$D/out" 2>&1 || echo "FAIL report-make-one: $(head -2 "$D/out")"
R=$D/hot.html
browse --screenshot="$D/report.png" --window-size=1200,1600 >/dev/null 2>"$D/chromium.err"
if [[ -s $D/report.png ]] && [[ $(head -c 8 "$D/report.png" | od -An -tx1 | tr -d ' \n') == 89504e470d0a1a0a ]]; then
    echo "PASS report-screenshot"
    [[ -n ${REPORT_PNG:-} ]] && cp "$D/report.png" "$REPORT_PNG"
else
    echo "FAIL report-screenshot: no PNG: $(grep -v dbus "$D/chromium.err" | tail -2)"
fi
exit 0
