#!/usr/bin/env bash
# tests/cache.sh DIR — the persistent code cache (-X jit.cache=DIR,
# jit/cache.c, docs/design.md#the-code-cache).  Prints one "PASS name" or
# "FAIL name: why" line per check.
#
# What must hold: a second run compiles nothing the first compiled (every
# compile is a hit, its log line says "cached"), with the same output; a
# changed method or option set misses; a damaged entry is ignored and
# rewritten; two processes filling the cache at once leave every entry
# loadable; a directory open to other users or not the user's is refused
# with a message, and the program runs as without a cache; a failed write
# stores nothing and changes nothing else.  With jit.preload, a second
# run of the same module, compiled alike, loads every item the first run
# compiled before it starts and compiles nothing; a damaged list is
# ignored.  With audit.remember, an audited run's decided bakeoff is the
# next run's first compile of that method, not audited again.  Compiles are made
# deterministic with --jit=eager (every method at start, no profile yet)
# and --jit=sync (when hot, on the program's thread).
set -u
D=${1:-/tmp/tally-cache}
B=${TALLY_BIN:-bin}
T="$B/tally"
rm -rf "$D"
mkdir -p "$D"

cat >"$D/prog.tl" <<'EOF'
class Point {
    x: int;
    y: int;
    init(x: int, y: int) { self.x = x; self.y = y; }
    fn norm1(): int { return abs(self.x) + abs(self.y); }
}
fn abs(v: int): int { if v < 0 { return -v; } return v; }
fn walk(n: int): int {
    var s = 0;
    for i in 0..n {
        let p = Point(i % 17 - 8, i % 5 - 2);
        s = s + p.norm1();
    }
    return s;
}
fn fib(n: int): int { if n < 2 { return n; } return fib(n - 1) + fib(n - 2); }
fn main() {
    var t = 0;
    for k in 0..30 { t = t + walk(2000 + k); }
    println(t);
    println(fib(22));
}
EOF

# run NAME CACHE ARGS...: runs prog.tl with the cache, stdout to NAME.out,
# stderr to NAME.err, the status in NAME.st; without preloading (jit.preload,
# checked at the end) unless ARGS turn it on
run() {
    local name=$1 cache=$2
    shift 2
    "$T" --log=jit -X jit.cache="$cache" -X jit.preload=false "$@" run "${PROG:-$D/prog.tl}" >"$D/$name.out" \
        2>"$D/$name.err" </dev/null
    echo $? >"$D/$name.st"
}
preloaded() { grep -c ' jit: preloaded [^0-9]' "$D/$1.err"; }
compiled() { grep -c ' jit: compiled #' "$D/$1.err"; }
cached() { grep -c ' jit: compiled #.* cached$' "$D/$1.err"; }
summary() { grep -o " jit: cache .*" "$D/$1.err"; }
same_output() { cmp -s "$D/ref.out" "$D/$1.out" && [[ $(cat "$D/$1.st") == 0 ]]; }

"$T" --jit=off run "$D/prog.tl" >"$D/ref.out" 2>/dev/null

for mode in eager sync; do
    C="$D/c-$mode"
    run "$mode-1" "$C" --jit=$mode
    run "$mode-2" "$C" --jit=$mode
    n1=$(compiled "$mode-1") h1=$(cached "$mode-1") n2=$(compiled "$mode-2") h2=$(cached "$mode-2")
    if ! same_output "$mode-1" || ! same_output "$mode-2"; then
        echo "FAIL cache-second-run-$mode: output or status differs: $(head -2 "$D/$mode-2.err" | tr '\n' ' ')"
    elif ((n1 < 2 || h1 != 0)); then
        echo "FAIL cache-second-run-$mode: the first run compiled $n1 methods, $h1 from the cache (want >= 2, 0)"
    elif ((n2 != n1 || h2 != n2)); then
        echo "FAIL cache-second-run-$mode: the second run loaded $h2 of $n2 compiles from the cache (the first made $n1)"
    elif ! summary "$mode-2" | grep -qE "hits=$n2 misses=0 stored=0 bad=0 errors=0"; then
        echo "FAIL cache-second-run-$mode: summary $(summary "$mode-2")"
    else
        echo "PASS cache-second-run-$mode"
    fi
done

# the stats file says the same: each compile's "cached", the cache's counts
C="$D/c-eager"
"$T" -X jit.cache="$C" -X jit.preload=false --jit=eager --stats="$D/s.json" run "$D/prog.tl" >/dev/null 2>&1 </dev/null
n=$(compiled eager-1)
if ! build/jsoncheck "$D/s.json" >/dev/null 2>&1; then
    echo "FAIL cache-stats-json: not valid JSON"
elif (($(grep -o '"cached":true' "$D/s.json" | wc -l) != n)) ||
    ! grep -qE "\"code_cache\":\{\"dir\":\"$C\",\"hits\":$n,\"misses\":0,\"stored\":0,\"bad\":0,\"errors\":0,\"preloaded\":0\}" "$D/s.json"; then
    echo "FAIL cache-stats-json: $(grep -o '"code_cache":{[^}]*}' "$D/s.json")"
else
    echo "PASS cache-stats-json"
fi

# another option set: nothing of the O2 code is taken
C="$D/c-eager"
run optset "$C" --jit=eager -X jit.optset=O1
if ! same_output optset || (($(cached optset) != 0)) || (($(compiled optset) < 2)); then
    echo "FAIL cache-optset-misses: $(cached optset) of $(compiled optset) compiles from the cache (want 0)"
else
    echo "PASS cache-optset-misses"
fi

# a changed method misses, the unchanged ones still hit (eager: main,
# with walk, Point.norm1 and abs inlined, and fib)
sed 's/return abs(self.x) + abs(self.y);/return abs(self.x) + 2 * abs(self.y);/' "$D/prog.tl" >"$D/prog2.tl"
"$T" --log=jit -X jit.cache="$C" -X jit.preload=false --jit=eager run "$D/prog2.tl" >"$D/changed.out" 2>"$D/changed.err" </dev/null
if ! grep -E ' jit: compiled #[0-9]+ main ' "$D/changed.err" | grep -vq ' cached$'; then
    echo "FAIL cache-changed-method-misses: main (inlining the changed Point.norm1) not compiled anew"
elif ! grep -qE ' jit: compiled #[0-9]+ fib .* cached$' "$D/changed.err"; then
    echo "FAIL cache-changed-method-misses: the unchanged fib was not taken from the cache"
else
    echo "PASS cache-changed-method-misses"
fi

# damaged entries (one byte flipped in each, one cut short) are ignored
# and rewritten: the run after them hits again
C="$D/c-sync"
first=1
for f in "$C"/*.o; do
    if ((first)); then
        truncate -s 100 "$f"
        first=0
    else
        printf '\x55' | dd of="$f" bs=1 seek=300 conv=notrunc status=none
    fi
done
nent=$(ls "$C"/*.o | wc -l)
run corrupt "$C" --jit=sync
run after "$C" --jit=sync
if ! same_output corrupt || (($(cached corrupt) != 0)); then
    echo "FAIL cache-corrupt-recompiled: $(cached corrupt) damaged entries loaded, or the output differs"
elif ! summary corrupt | grep -qE "hits=0 misses=0 stored=[0-9]+ bad=$nent errors=0"; then
    echo "FAIL cache-corrupt-recompiled: want bad=$nent: $(summary corrupt)"
elif ! same_output after || (($(cached after) != $(compiled after))); then
    echo "FAIL cache-corrupt-recompiled: after the rewrite $(cached after) of $(compiled after) from the cache"
else
    echo "PASS cache-corrupt-recompiled"
fi

# two processes filling one cache at once: every entry loadable after
C="$D/c-two"
run two-a "$C" --jit=eager &
run two-b "$C" --jit=eager &
wait
run two-c "$C" --jit=eager
if ! same_output two-a || ! same_output two-b || ! same_output two-c; then
    echo "FAIL cache-two-writers: output or status differs"
elif (($(cached two-c) != $(compiled two-c))) || ! summary two-c | grep -q 'bad=0 errors=0'; then
    echo "FAIL cache-two-writers: $(cached two-c) of $(compiled two-c) from the cache: $(summary two-c)"
elif compgen -G "$C/.tmp-*" >/dev/null; then
    echo "FAIL cache-two-writers: temporary files left behind"
else
    echo "PASS cache-two-writers"
fi

# a directory others may write to, or another user's, is refused
mkdir -p "$D/open" && chmod 777 "$D/open"
run open "$D/open" --jit=eager
if ! same_output open || ! grep -q "open to other users.*the code cache is off" "$D/open.err" ||
    compgen -G "$D/open/*.o" >/dev/null; then
    echo "FAIL cache-dir-open-refused: $(grep -m1 'cache' "$D/open.err")"
else
    echo "PASS cache-dir-open-refused"
fi
if [[ $(id -u) == 0 ]]; then
    mkdir -p "$D/theirs" && chmod 700 "$D/theirs" && chown 65534 "$D/theirs"
    run theirs "$D/theirs" --jit=eager
    if ! same_output theirs || ! grep -q "not a directory of this user's.*the code cache is off" "$D/theirs.err"; then
        echo "FAIL cache-dir-owner-refused: $(grep -m1 'cache' "$D/theirs.err")"
    else
        echo "PASS cache-dir-owner-refused"
    fi
fi
run made "$D/new/sub" --jit=eager
mode=$(stat -c %a "$D/new/sub" 2>/dev/null)
if ! same_output made || [[ $mode != 700 ]]; then
    echo "FAIL cache-dir-made-private: mode '$mode'"
else
    echo "PASS cache-dir-made-private"
fi

# a write that fails (a full disk) stores nothing, leaves nothing behind
run full "$D/full" --jit=eager -X vm.faults=cache
if ! same_output full || compgen -G "$D/full/*" >/dev/null || compgen -G "$D/full/.tmp-*" >/dev/null; then
    echo "FAIL cache-write-fails: status $(cat "$D/full.st"), files: $(ls -A "$D/full" | head -3 | tr '\n' ' ')"
elif ! summary full | grep -qE 'stored=0 bad=0 errors=[1-9]'; then
    echo "FAIL cache-write-fails: $(summary full)"
else
    echo "PASS cache-write-fails"
fi

# tally cache stats counts the entries; jit.cache_max removes the least
# recently used at the end of a run: main's entry of prog.tl, unused for
# two days, goes; fib's (prog3.tl's hit) and prog3.tl's main stay
C="$D/c-eager"
n=$(ls "$C"/*.o | wc -l)
if ! "$T" -X jit.cache="$C" cache stats >"$D/stats.out" 2>&1 || ! grep -qE "^entries: +$n$" "$D/stats.out"; then
    echo "FAIL cache-stats: want $n entries: $(tr '\n' ' ' <"$D/stats.out")"
else
    echo "PASS cache-stats"
fi
touch -d '2 days ago' "$C"/*.o
sed 's/fib(22)/fib(21)/' "$D/prog2.tl" >"$D/prog3.tl"
"$T" --log=jit -X jit.cache="$C" -X jit.preload=false -X jit.cache_max=1 --jit=eager run "$D/prog3.tl" >/dev/null 2>"$D/trim.err" </dev/null
left=$(ls "$C"/*.o 2>/dev/null | wc -l)
if ! grep -q "jit: cache trimmed to jit.cache_max: [0-9]* least recently used entries removed" "$D/trim.err" ||
    ((left != 0)); then
    echo "FAIL cache-max-trims: $left entries left: $(grep -m1 trimmed "$D/trim.err")"
else
    echo "PASS cache-max-trims"
fi
run lru-1 "$C" --jit=eager
touch -d '2 days ago' "$C"/*.o
"$T" -X jit.cache="$C" -X jit.preload=false --jit=eager run "$D/prog3.tl" >/dev/null 2>&1 </dev/null
total=$(cat "$C"/*.o | wc -c)
"$T" --log=jit -X jit.cache="$C" -X jit.preload=false --jit=eager -X jit.cache_max=$((total - 1)) run "$D/prog3.tl" >/dev/null \
    2>"$D/lru-2.err" </dev/null
"$T" --log=jit -X jit.cache="$C" -X jit.preload=false --jit=eager run "$D/prog3.tl" >/dev/null 2>"$D/lru-3.err" </dev/null
run lru-4 "$C" --jit=eager
if ! grep -q ' jit: cache trimmed to jit.cache_max: 1 least' "$D/lru-2.err"; then
    echo "FAIL cache-max-lru: not one entry trimmed at jit.cache_max=$((total - 1)): $(grep -m1 trimmed "$D/lru-2.err")"
elif (($(cached lru-3) != $(compiled lru-3))); then
    echo "FAIL cache-max-lru: entries the last run used were removed"
elif grep -qE ' jit: compiled #[0-9]+ main .* cached$' "$D/lru-4.err"; then
    echo "FAIL cache-max-lru: the entry unused for two days was kept"
else
    echo "PASS cache-max-lru"
fi
"$T" -X jit.cache="$C" cache clear >"$D/clear.out" 2>&1
if ! grep -qE "^$C: [1-9][0-9]* entries removed$" "$D/clear.out" || compgen -G "$C/*.o" >/dev/null; then
    echo "FAIL cache-clear: $(cat "$D/clear.out")"
else
    echo "PASS cache-clear"
fi
"$T" cache bogus >"$D/bogus.out" 2>&1
st=$?
if [[ $st != 2 ]] || ! grep -q "unknown cache command 'bogus'" "$D/bogus.out"; then
    echo "FAIL cache-command-bad: status $st: $(head -1 "$D/bogus.out")"
else
    echo "PASS cache-command-bad"
fi

# jit.preload: a second run of the same module loads, before the program
# starts, every item the first compiled, and compiles none of their
# methods again (eager: nothing at all; in the background a method the
# first run left queued at its end may be compiled), with the same output
names() { grep -oE " jit: $2 (#[0-9]+ )?[^ ]+" "$D/$1.err" | awk '{print $NF}' | sort -u; }
for mode in on eager; do
    C="$D/p-$mode"
    run "pre-$mode-1" "$C" --jit=$mode -X jit.preload=true
    run "pre-$mode-2" "$C" --jit=$mode -X jit.preload=true
    n1=$(compiled "pre-$mode-1") p2=$(preloaded "pre-$mode-2") n2=$(compiled "pre-$mode-2")
    again=$(comm -12 <(names "pre-$mode-2" preloaded) <(names "pre-$mode-2" compiled) | tr '\n' ' ')
    if ! same_output "pre-$mode-1" || ! same_output "pre-$mode-2"; then
        echo "FAIL cache-preload-$mode: output or status differs: $(head -2 "$D/pre-$mode-2.err" | tr '\n' ' ')"
    elif ((n1 < 1 || p2 != n1)) || [[ -n $again ]] || [[ $mode == eager && $n2 != 0 ]]; then
        echo "FAIL cache-preload-$mode: the first run compiled $n1 items; the second preloaded $p2 and compiled $n2 (${again:-none} again)"
    elif ! summary "pre-$mode-2" | grep -qE "bad=0 errors=0 preloaded=$p2$" ||
        ! grep -qE ' jit: preloaded [0-9]+ items from the code cache$' "$D/pre-$mode-2.err"; then
        echo "FAIL cache-preload-$mode: summary $(summary "pre-$mode-2")"
    else
        echo "PASS cache-preload-$mode"
    fi
done
"$T" -X jit.cache="$D/p-on" --stats="$D/pre.json" run "$D/prog.tl" >/dev/null 2>&1 </dev/null
npre=$(grep -oE '"code_cache":\{[^}]*"preloaded":[0-9]+' "$D/pre.json" | grep -oE '[0-9]+$')
if ! build/jsoncheck "$D/pre.json" >/dev/null 2>&1 || ((${npre:-0} == 0)) ||
    (($(grep -c '^{"compile":.*"ir_us":0,"compile_us":0,.*"cached":true' "$D/pre.json") != npre)); then
    echo "FAIL cache-preload-stats: $(grep -o '"code_cache":{[^}]*}' "$D/pre.json")"
else
    echo "PASS cache-preload-stats"
fi
# a preloaded method keeps the branch and call-site profile of the run
# that listed it (its compiled code records none): walk's, which runs
# preloaded code from its first call, is the last run's
C="$D/p-prof"
"$T" -X jit.cache="$C" --stats="$D/prof-1.json" run "$D/prog.tl" >/dev/null 2>&1 </dev/null
"$T" -X jit.cache="$C" --stats="$D/prof-2.json" --log=jit run "$D/prog.tl" >/dev/null 2>"$D/prof-2.err" </dev/null
shape() { grep -o '{"name":"walk",.*"sites":\[[^]]*\]' "$1" | sed 's/"calls".*"branches"/"branches"/'; }
if ! grep -qE ' jit: preloaded walk .*osr@' "$D/prof-2.err"; then
    echo "FAIL cache-preload-profile: walk not preloaded: $(grep -m2 'jit: preloaded' "$D/prof-2.err")"
elif [[ -z $(shape "$D/prof-1.json") || $(shape "$D/prof-1.json") != "$(shape "$D/prof-2.json")" ]] ||
    ! shape "$D/prof-2.json" | grep -q '"receivers":\[{"class":"Point","count":[1-9]'; then
    echo "FAIL cache-preload-profile: $(shape "$D/prof-1.json") vs $(shape "$D/prof-2.json")"
else
    echo "PASS cache-preload-profile"
fi

# no preloading: when turned off, under --audit (bakeoffs start from the
# hot hook), for another module (the changed program), or where the code
# would be other code (another option set, another inliner tunable)
C="$D/p-on"
run pre-off "$C" -X jit.preload=false
run pre-audit "$C" -X jit.preload=true --audit=aa
run pre-optset "$C" -X jit.preload=true -X jit.optset=O1
run pre-inline "$C" -X jit.preload=true -X inline.max_depth=2
PROG="$D/prog2.tl" run pre-changed "$C" -X jit.preload=true
for name in pre-off pre-audit pre-optset pre-inline; do
    if ! same_output $name || (($(preloaded $name) != 0)); then
        echo "FAIL cache-preload-not-$name: $(preloaded $name) items preloaded, status $(cat "$D/$name.st")"
    else
        echo "PASS cache-preload-not-$name"
    fi
done
if [[ $(cat "$D/pre-changed.st") != 0 ]] || (($(preloaded pre-changed) != 0)); then
    echo "FAIL cache-preload-other-module: $(preloaded pre-changed) items of prog.tl's list loaded for prog2.tl"
else
    echo "PASS cache-preload-other-module"
fi

# a damaged list is ignored (counted bad) and rewritten; a list whose
# entries are gone loads nothing and the methods compile again
C="$D/p-eager"
for f in "$C"/*.run; do printf '\x55' | dd of="$f" bs=1 seek=20 conv=notrunc status=none; done
run pre-bad "$C" --jit=eager -X jit.preload=true
run pre-rewritten "$C" --jit=eager -X jit.preload=true
rm -f "$C"/*.o
run pre-gone "$C" --jit=eager -X jit.preload=true
if ! same_output pre-bad || (($(preloaded pre-bad) != 0)) || ! summary pre-bad | grep -q 'bad=1 '; then
    echo "FAIL cache-preload-damaged: $(preloaded pre-bad) preloaded: $(summary pre-bad)"
elif ! same_output pre-rewritten || (($(preloaded pre-rewritten) == 0)); then
    echo "FAIL cache-preload-damaged: the list was not rewritten: $(summary pre-rewritten)"
elif ! same_output pre-gone || (($(preloaded pre-gone) != 0)) || (($(compiled pre-gone) == 0)); then
    echo "FAIL cache-preload-entries-gone: $(preloaded pre-gone) preloaded, $(compiled pre-gone) compiled"
else
    echo "PASS cache-preload-damaged"
fi

# remembered verdicts (audit.remember): an audited run's decided bakeoff is
# kept; the next run of the same module compiles the method with the
# installed variant from its first compile and does not audit it again.
# The decision is on a large difference (-O0 against -O2 on a loop, timed
# by code markers, the variants compiled on the program's thread as the
# method installs), tried up to three times; what follows from it is
# deterministic.
LOOPY=tests/fixtures/loops/rare-loop.tl
C="$D/verdicts"
audited() {
    local name=$1
    shift
    "$T" --jit=sync --audit=custom -X 'audit.custom=-O0;-O2' -X audit.methods=kernel -X audit.hot_threshold=0 -X audit.timing=markers \
        --log=audit,jit -X jit.cache="$C" "$@" run $LOOPY 240 200 >"$D/$name.out" 2>"$D/$name.err" </dev/null
    echo $? >"$D/$name.st"
}
for i in 1 2 3; do
    rm -rf "$C"
    audited won-1
    grep -q 'audit: decided #1 kernel client=custom outcome=winner winner=-O2' "$D/won-1.err" && break
done
audited won-2 --stats="$D/won-2.json"
audited won-off -X audit.remember=false
audited won-other -X 'audit.custom=-O0;-O3'
if ! grep -q 'audit: decided #1 kernel client=custom outcome=winner winner=-O2' "$D/won-1.err"; then
    echo "FAIL cache-verdict-remembered: no decision in 3 runs: $(grep -m1 'audit: [a-z]* #1' "$D/won-1.err")"
elif ! cmp -s "$D/won-1.out" "$D/won-2.out" || [[ $(cat "$D/won-2.st") != 0 ]] ||
    ! grep -q 'audit: remembered kernel client=custom installed=-O2 outcome=winner' "$D/won-2.err" ||
    grep -q 'audit: queued' "$D/won-2.err" || grep 'jit: compiled #[0-9]* kernel ' "$D/won-2.err" | grep -qv 'optset=-O2 ' ||
    ! grep -q '"remembered":\[{"method":"kernel","client":"custom","installed":1,"variant":"-O2","outcome":"winner"}\]' "$D/won-2.json"; then
    echo "FAIL cache-verdict-remembered: $(grep -m3 -E 'audit: (remembered|queued)|compiled #[0-9]* kernel' "$D/won-2.err" | tr '\n' ' ')"
else
    echo "PASS cache-verdict-remembered"
fi
# not with audit.remember=false, nor for other variants of the client
for name in won-off won-other; do
    if ! cmp -s "$D/won-1.out" "$D/$name.out" || grep -q 'audit: remembered' "$D/$name.err" ||
        ! grep -q 'audit: queued #1 kernel client=custom' "$D/$name.err"; then
        echo "FAIL cache-verdict-not-$name: $(grep -m2 -E 'audit: (remembered|queued)' "$D/$name.err" | tr '\n' ' ')"
    else
        echo "PASS cache-verdict-not-$name"
    fi
done
# a damaged note is ignored (the method audited again) and counted bad
for f in "$C"/*.won; do printf '\x55' | dd of="$f" bs=1 seek=20 conv=notrunc status=none; done
audited won-bad
if ! cmp -s "$D/won-1.out" "$D/won-bad.out" || grep -q 'audit: remembered' "$D/won-bad.err" ||
    ! grep -q 'audit: queued #1 kernel' "$D/won-bad.err" || ! grep -q 'jit: cache .* bad=1 ' "$D/won-bad.err"; then
    echo "FAIL cache-verdict-damaged: $(grep -m2 -E 'audit: (remembered|queued)|jit: cache' "$D/won-bad.err" | tr '\n' ' ')"
else
    echo "PASS cache-verdict-damaged"
fi
if "$T" cache stats -X jit.cache="$C" | grep -q '^verdicts: *1 '; then
    echo "PASS cache-verdict-stats"
else
    echo "FAIL cache-verdict-stats: $("$T" cache stats -X jit.cache="$C" | tr '\n' ' ')"
fi
