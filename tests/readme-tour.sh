#!/usr/bin/env bash
# tests/readme-tour.sh — README.md's tour, run as a newcomer runs it (suite
# `tour` of tests/run.sh).
#
# The tour is the block of README.md between the lines `<!-- tour -->` and
# `<!-- /tour -->`; its commands are the lines that start with `$ ` (a line
# ending in `\` continues on the next).  Other lines (prose, the output a
# command prints) are not checked.
#
# The check clones this checkout (HEAD's committed tree, so what is not
# committed is not seen) into a temporary directory, copies in the built
# bin/tally and bin/tally-switch and the objects under build/ (so nothing
# is rebuilt and nothing installed: a `make` in the tour finds them up to
# date), then runs each command with bash in the clone's root, in order,
# each with at most 60 s (TOUR_TIMEOUT) and no input.
# Output: "PASS tour: COMMAND" for each command that exits 0, "FAIL tour:
# COMMAND: ..." with its stderr (indented) for each that does not; a
# missing tour block is one FAIL.  Exit status 0 when every command passes.
# Usage: tests/readme-tour.sh
set -u
cd "$(dirname "$0")/.." || exit 2
root=$PWD
limit=${TOUR_TIMEOUT:-60}

for b in bin/tally bin/tally-switch; do
    if [[ ! -x $b ]]; then
        echo "FAIL tour: $b is missing (make all)"
        exit 1
    fi
done

TMP=$(mktemp -d "${TMPDIR:-/tmp}/tally-tour.XXXXXX") || exit 2
trap 'rm -rf "$TMP"' EXIT
clone=$TMP/clone
if ! git clone -q "$root" "$clone" 2>"$TMP/err"; then
    echo "FAIL tour: git clone of $root failed: $(head -2 "$TMP/err")"
    exit 1
fi
# objects first, then the programs, all newer than the cloned sources
if [[ -d build ]]; then
    find build -name '*.o' -o -name '*.d' | tar -cf - -T - | tar -xmf - -C "$clone"
fi
mkdir -p "$clone/bin"
cp bin/tally bin/tally-switch "$clone/bin/"

# the tour's commands, one a line (continuations joined)
awk '
    /^[ \t]*<!-- \/tour -->[ \t]*$/ { inside = 0; next }
    /^[ \t]*<!-- tour -->[ \t]*$/   { inside = 1; found = 1; next }
    !inside { next }
    {
        if (cont) { s = $0; sub(/^[ \t]+/, "", s); line = line " " s }
        else if (/^\$ /) { line = substr($0, 3); cont = 1 }
        else next
        if (line ~ /\\$/) { sub(/[ \t]*\\$/, "", line); next }
        print line; cont = 0
    }
    END { if (!found) exit 3 }
' "$clone/README.md" >"$TMP/commands" 2>"$TMP/err"
st=$?
if [[ ! -f $clone/README.md ]]; then
    echo "FAIL tour: the repository has no README.md"
    exit 1
elif [[ $st == 3 ]]; then
    echo "FAIL tour: README.md has no tour (a block between <!-- tour --> and <!-- /tour --> lines)"
    exit 1
elif [[ $st != 0 ]]; then
    echo "FAIL tour: reading README.md's tour failed: $(head -2 "$TMP/err")"
    exit 1
elif [[ ! -s $TMP/commands ]]; then
    echo "FAIL tour: README.md's tour has no command (a line starting with '\$ ')"
    exit 1
fi

failed=0
while IFS= read -r cmd; do
    (cd "$clone" && timeout "$limit" bash -c "$cmd" </dev/null >"$TMP/out" 2>"$TMP/err")
    st=$?
    if [[ $st == 0 ]]; then
        echo "PASS tour: $cmd"
        continue
    fi
    failed=1
    if [[ $st == 124 ]]; then
        echo "FAIL tour: $cmd: still running after $limit s"
    else
        echo "FAIL tour: $cmd: exit status $st"
    fi
    sed -n '1,12s/^/    /p' "$TMP/err"
done <"$TMP/commands"
exit $failed
