# tests/check.sh — the check every shell test suite uses, sourced (bash).
# Needs D, the suite's scratch folder.
#
# check NAME STATUS TEXT -- COMMAND...: runs COMMAND (stdin /dev/null);
# "PASS NAME" when it exits with STATUS, its stdout+stderr contains TEXT
# (any, if empty) and holds no Python traceback (the workbench's scripts
# must say what is wrong in a line); else "FAIL NAME: why" with an excerpt
# of the output (a suite may define excerpt FILE before sourcing this).
check() {
    local name=$1 want=$2 text=$3
    shift 4
    "$@" >"$D/out" 2>&1 </dev/null
    local st=$?
    if [[ $st -ne $want ]]; then
        echo "FAIL $name: status $st, want $want: $(check_excerpt "$D/out")"
    elif [[ -n $text ]] && ! grep -qF -- "$text" "$D/out"; then
        echo "FAIL $name: output lacks '$text': $(check_excerpt "$D/out")"
    elif grep -q '^Traceback' "$D/out"; then
        echo "FAIL $name: a traceback: $(grep -m1 -A3 '^Traceback' "$D/out" | tr '\n' ' ')"
    else
        echo "PASS $name"
    fi
}

check_excerpt() {
    if declare -F excerpt >/dev/null; then
        excerpt "$1"
    else
        head -2 "$1"
    fi
}
