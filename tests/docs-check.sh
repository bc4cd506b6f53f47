#!/usr/bin/env bash
# tests/docs-check.sh — the docs check (suite `docs` of tests/run.sh).
#
# Documents and code comments describe the product as it is; git log keeps
# its history.  And every link stays inside the repository, so a checkout
# (or a copy without network) reads whole.  The check scans the tracked
# files (git ls-files: untracked files are ignored):
#   documents  README.md, docs/*.md, bench/README.md, tests/**/README.md
#   code       *.c *.h *.def *.sh *.py, Makefile, and the files without an
#              extension under bench/, tools/ and tests/ that start with #!
# for
#   history    words that tell a story of the work instead of the product
#              (the list is HISTORY below; case-insensitive).  This file is
#              exempt: it must hold the list.
#   outside    http(s) addresses and paths up into the shared folder
#              beside the repository, in every file; in the documents,
#              every relative markdown link [text](path) must name a
#              tracked file (or a folder holding one) inside the
#              repository, and its #anchor, when the target is a .md file
#              (or the link is only #anchor), a heading of that file
#              (GitHub's slug: lowercase, spaces to '-', punctuation other
#              than '-' and '_' dropped; repeats get -1, -2, ...).
# Output: "FAIL docs FILE:LINE: what" for each finding, "PASS docs FILE" for
# each file without one.  Exit status 0 when clean, 1 with findings, 2 when
# the check cannot run.
# Usage: tests/docs-check.sh [FILE...]   (paths from the repository root;
#        default: every file above)
set -u
cd "$(dirname "$0")/.." || exit 2
if ! git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
    echo "docs-check: not inside a git checkout" >&2
    exit 2
fi
if ! command -v python3 >/dev/null; then
    echo "docs-check: python3 not found" >&2
    exit 2
fi

# the tracked files, NUL-separated, for python
git ls-files -z >"${TMPDIR:-/tmp}/docs-check.$$" || exit 2
trap 'rm -f "${TMPDIR:-/tmp}/docs-check.$$"' EXIT

python3 - "${TMPDIR:-/tmp}/docs-check.$$" "$@" <<'PY'
import os, posixpath, re, sys
from urllib.parse import unquote

SELF = "tests/docs-check.sh"

HISTORY = [
    r"\bsessions?\b",
    r"\bissues? #?[0-9]",
    r"\bstop [0-9]",
    r"(twenty|thirty|forty|fifty|sixty|seventy|eighty|ninety)-"
    r"(first|second|third|fourth|fifth|sixth|seventh|eighth|ninth)",
    r"\b(thirteenth|fourteenth|fifteenth|sixteenth|seventeenth|eighteenth"
    r"|nineteenth|twentieth|thirtieth|fortieth|fiftieth)\b",
    r"\b(previously|formerly|used to|it turned out|turned out|was fixed"
    r"|we fixed|we found|the build before)\b",
]
HISTORY_RE = [re.compile(p, re.I) for p in HISTORY]
# written in two parts so that this file does not match itself
OUTSIDE_RE = [
    (re.compile("https?:" + "//", re.I), "an address outside the repository"),
    (re.compile(r"\.\./" + "shared", re.I), "a path into the shared folder beside the repository"),
]

tracked = [f for f in open(sys.argv[1], "rb").read().decode().split("\0") if f]
tracked_set = set(tracked)
tracked_dirs = set()
for f in tracked:
    d = posixpath.dirname(f)
    while d:
        tracked_dirs.add(d)
        d = posixpath.dirname(d)


def is_doc(f):
    return (f == "README.md" or f == "bench/README.md"
            or (f.startswith("docs/") and f.endswith(".md") and f.count("/") == 1)
            or (f.startswith("tests/") and posixpath.basename(f) == "README.md"))


def is_code(f):
    base = posixpath.basename(f)
    if base == "Makefile" or re.search(r"\.(c|h|def|sh|py)$", base):
        return True
    if "." not in base and f.split("/")[0] in ("bench", "tools", "tests"):
        try:
            with open(f, "rb") as fh:
                return fh.read(2) == b"#!"
        except OSError:
            return False
    return False


files = sys.argv[2:] or [f for f in tracked if is_doc(f) or is_code(f)]
findings = 0
pending = []   # this file's findings: (line, text)


def report(f, line, what):
    global findings
    findings += 1
    pending.append((line, f"FAIL docs {f}:{line}: {what}"))


def excerpt(text, start, end):
    """the matched words with a little of the line around them"""
    a = max(0, start - 30)
    b = min(len(text), end + 30)
    s = text[a:b].strip()
    return ("…" if a > 0 else "") + s + ("…" if b < len(text) else "")


# ---- markdown: headings, code, links ---------------------------------------

FENCE_RE = re.compile(r"^ {0,3}(`{3,}|~{3,})")


def blank_code(text, spans=True):
    """text with fenced code blocks (and code spans, when spans) blanked
    out (same length, newlines kept), so that links and headings are prose
    only"""
    out = []
    fence = None
    for line in text.split("\n"):
        m = FENCE_RE.match(line)
        if fence:
            if m and m.group(1)[0] == fence[0] and len(m.group(1)) >= len(fence) \
                    and not line.strip().strip(fence[0]):
                fence = None
            out.append(" " * len(line))
        elif m:
            fence = m.group(1)
            out.append(" " * len(line))
        else:
            out.append(line)
    prose = "\n".join(out)
    if not spans:
        return prose
    # code spans: a run of backticks up to the same run, within a paragraph
    def blank(m):
        return re.sub(r"[^\n]", " ", m.group(0))
    return re.sub(r"(`+)(?:(?!\n[ \t]*\n).)*?(?<!`)\1(?!`)", blank, prose, flags=re.S)


def slug(heading):
    s = re.sub(r"!?\[([^\]]*)\]\([^)]*\)", r"\1", heading)   # links: their text
    s = re.sub(r"<[^>]+>", "", s)                              # inline html
    s = s.strip().lower()
    s = re.sub(r"[^\w\- ]", "", s)
    return s.replace(" ", "-")


anchor_cache = {}


def anchors(f):
    """the anchors of a markdown file: its headings' slugs and any
    <a name=...>/<a id=...>"""
    if f in anchor_cache:
        return anchor_cache[f]
    try:
        text = open(f, encoding="utf-8", errors="replace").read()
    except OSError:
        anchor_cache[f] = set()
        return anchor_cache[f]
    prose = blank_code(text, spans=False).split("\n")
    found, seen = set(), {}

    def add(s):
        n = seen.get(s, 0)
        seen[s] = n + 1
        found.add(s if n == 0 else f"{s}-{n}")

    prev = ""
    for line in prose:
        m = re.match(r"^ {0,3}#{1,6}(?:[ \t]+(.*?))?(?:[ \t]+#+)?[ \t]*$", line)
        if m:
            add(slug(m.group(1) or ""))
        elif re.match(r"^ {0,3}(=+|-+)[ \t]*$", line) and prev.strip() \
                and not re.match(r"^ {0,3}([-*+]|\d+[.)]|>|\|)", prev) \
                and not re.match(r"^ {0,3}#", prev):
            add(slug(prev))
        for a in re.findall(r"<a\s+(?:name|id)=\"([^\"]+)\"", line):
            found.add(a)
        prev = line
    anchor_cache[f] = found
    return found


LINK_RE = re.compile(r"\]\(\s*<?([^)\s>]*)>?(?:\s+(?:\"[^\"]*\"|'[^']*'))?\s*\)")
REFDEF_RE = re.compile(r"^ {0,3}\[[^\]]+\]:\s*<?(\S+?)>?(?:\s|$)", re.M)


def check_links(f, text):
    prose = blank_code(text)
    here = posixpath.dirname(f)
    targets = [(m.start(1), m.group(1)) for m in LINK_RE.finditer(prose)]
    targets += [(m.start(1), m.group(1)) for m in REFDEF_RE.finditer(prose)]
    for pos, target in sorted(targets):
        line = prose.count("\n", 0, pos) + 1
        if not target:
            report(f, line, "an empty link")
            continue
        if re.match(r"^[a-z][a-z0-9+.-]*:", target, re.I) or target.startswith("//"):
            if not re.match(r"^https?:", target, re.I):   # those are reported already
                report(f, line, f"a link outside the repository: {target}")
            continue
        path, _, anchor = target.partition("#")
        path = unquote(path)
        if path.startswith("/"):
            report(f, line, f"an absolute link (make it relative to {f}): {target}")
            continue
        dest = posixpath.normpath(posixpath.join(here, path)) if path else f
        if dest == ".." or dest.startswith("../"):
            report(f, line, f"a link leaving the repository: {target}")
            continue
        if dest not in tracked_set and dest not in tracked_dirs and dest not in (".", f):
            report(f, line, f"a link to a file that is not in the repository: {target}")
            continue
        if anchor and dest.endswith(".md") and (dest in tracked_set or dest == f):
            if unquote(anchor) not in anchors(dest):
                report(f, line, f"a link to a heading that {dest} does not have: {target}")


# ---- the scan ---------------------------------------------------------------

for f in files:
    before = findings
    try:
        text = open(f, encoding="utf-8", errors="replace").read()
    except OSError as e:
        print(f"FAIL docs {f}:0: cannot read: {e.strerror}")
        findings += 1
        continue
    lines = text.split("\n")
    for i, line in enumerate(lines, 1):
        if f != SELF:
            for r in HISTORY_RE:
                for m in r.finditer(line):
                    report(f, i, f"history ('{m.group(0)}'): {excerpt(line, m.start(), m.end())}")
        for r, what in OUTSIDE_RE:
            for m in r.finditer(line):
                report(f, i, f"{what}: {excerpt(line, m.start(), m.end())}")
    if f.endswith(".md"):
        check_links(f, text)
    for _, out in sorted(pending, key=lambda p: p[0]):
        print(out)
    pending.clear()
    if findings == before:
        print(f"PASS docs {f}")

sys.exit(1 if findings else 0)
PY
