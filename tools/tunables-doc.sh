#!/usr/bin/env bash
# tools/tunables-doc.sh [TALLY] — prints docs/tunables.md: a short preface
# and the reference tables `tally --help=tunables-markdown` generates from
# the tunables' rows (vm/vm_tunables.def, ir/ir_tunables.def,
# jit/jit_tunables.def, audit/audit_tunables.def).  `make docs` writes the
# file; the docs suite checks that it matches.
set -euo pipefail
tally=${1:-bin/tally}
cat <<'PREFACE'
# Tunables

Every tunable is set with `-X name=value` (several `-X` may be given) and
listed, with its current value, by `tally --help=tunables`. This page is
generated from the same rows (`make docs`); do not edit it by hand.

- **type**: `int`; `size` (bytes, or with a K, M or G suffix); `bool`
  (`0`/`1`, `true`/`false`, `on`/`off`); `bp` (basis points: 100 = 1%);
  `percent`; `ms`; `string`.
- **range**: a value outside it is refused with a message naming the
  tunable; checks that involve two tunables (for example
  `audit.trim_drop` < `audit.trim_window`) are made when the program
  starts.
- Each owner's table is a file of its folder: `vm/vm_tunables.def`,
  `ir/ir_tunables.def`, `jit/jit_tunables.def`,
  `audit/audit_tunables.def`. The `research.*` switches are settled
  rules of the auditor, on by default (except `research.no_winner`),
  that can be turned off to measure what each is worth
  ([auditing.md](auditing.md)).

PREFACE
"$tally" --help=tunables-markdown
