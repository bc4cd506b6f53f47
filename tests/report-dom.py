#!/usr/bin/python3
# tests/report-dom.py DOM.html STATS.json... — checks the DOM a browser
# rendered from `tally report STATS.json...` (chromium --dump-dom) against
# the stats files: the elements tools/tally-report promises (section.run
# per file, section#summary for several, table.summary, figure.timeline
# with an svg, one section.bakeoff per bakeoff with its id, a
# figure.trajectory with an svg for each bakeoff whose trajectory is not
# empty, a table.markers for each bakeoff with markers, naming their
# source lines and showing each point's weight and each variant's cycles
# and share as the stats file has them).  Prints "PASS name" / "FAIL name:
# why" lines (tests/report.sh); exit status 0 whatever they say, 2 when it
# cannot run.
import html.parser
import json
import math
import sys

VOID = {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "track", "wbr"}


class Node:
    def __init__(self, tag, attrs, parent):
        self.tag, self.attrs, self.parent, self.children, self.text = tag, dict(attrs), parent, [], []

    def classes(self):
        return (self.attrs.get("class") or "").split()

    def walk(self):
        yield self
        for c in self.children:
            yield from c.walk()

    def find(self, tag=None, cls=None, id=None):
        return [n for n in self.walk() if (tag is None or n.tag == tag) and (cls is None or cls in n.classes())
                and (id is None or n.attrs.get("id") == id)]

    def alltext(self):
        return "".join(self.text) + "".join(c.alltext() for c in self.children)


class Tree(html.parser.HTMLParser):
    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.root = Node("#root", [], None)
        self.cur = self.root

    def handle_starttag(self, tag, attrs):
        n = Node(tag, attrs, self.cur)
        self.cur.children.append(n)
        if tag not in VOID:
            self.cur = n

    def handle_startendtag(self, tag, attrs):
        self.cur.children.append(Node(tag, attrs, self.cur))

    def handle_endtag(self, tag):
        n = self.cur
        while n is not self.root and n.tag != tag:
            n = n.parent
        if n is not self.root:
            self.cur = n.parent

    def handle_data(self, data):
        self.cur.text.append(data)


def check(name, ok, why):
    print("PASS %s" % name if ok else "FAIL %s: %s" % (name, why))


def main(argv):
    if len(argv) < 2:
        sys.stderr.write("usage: report-dom.py DOM.html STATS.json...\n")
        return 2
    try:
        with open(argv[0], encoding="utf-8") as f:
            dom = f.read()
        runs = []
        for p in argv[1:]:
            with open(p, encoding="utf-8") as f:
                runs.append(json.load(f))
    except (OSError, ValueError) as e:
        sys.stderr.write("report-dom.py: %s\n" % e)
        return 2
    t = Tree()
    t.feed(dom)
    root = t.root
    sections = root.find("section", "run")
    check("dom-runs", len(sections) == len(runs), "%d section.run, want %d" % (len(sections), len(runs)))
    if len(runs) > 1:
        s = root.find("section", id="summary")
        check("dom-combined-summary", len(s) == 1 and s[0].find("table", "summary"),
              "no section#summary with a table.summary")
    for k, (sec, doc) in enumerate(zip(sections, runs), 1):
        rid = "run-%d" % k
        check("dom-%s-id" % rid, sec.attrs.get("id") == rid, "id %r" % sec.attrs.get("id"))
        check("dom-%s-summary" % rid, len(sec.find("table", "summary")) == 1, "no table.summary")
        if doc.get("compiles"):
            tl = sec.find("figure", "timeline")
            check("dom-%s-timeline" % rid, len(tl) == 1 and tl[0].find("svg"), "no figure.timeline with an svg")
        bakeoffs = doc.get("bakeoffs") or []
        secs = sec.find("section", "bakeoff")
        check("dom-%s-bakeoffs" % rid, len(secs) == len(bakeoffs),
              "%d section.bakeoff, the stats file has %d bakeoffs" % (len(secs), len(bakeoffs)))
        ids = [s.attrs.get("data-id") for s in secs]
        want = [str(b.get("id")) for b in bakeoffs]
        check("dom-%s-bakeoff-ids" % rid, ids == want, "ids %s, want %s" % (ids[:8], want[:8]))
        by_id = {s.attrs.get("data-id"): s for s in secs}
        traj = [b for b in bakeoffs if b.get("trajectory")]
        missing = [b["id"] for b in traj if not any(f.find("svg") for f in by_id.get(str(b["id"]), Node("x", [], None))
                                                     .find("figure", "trajectory"))]
        check("dom-%s-trajectories" % rid, not missing,
              "no figure.trajectory with an svg for bakeoffs %s" % missing)
        marked = [b for b in bakeoffs if b.get("markers")]
        for b in marked:
            s = by_id.get(str(b["id"]))
            tables = s.find("table", "markers") if s else []
            lines = ["line %d" % m["line"] for m in b["markers"] if m.get("line") is not None]
            text = tables[0].alltext() if tables else ""
            check("dom-%s-bakeoff-%s-markers" % (rid, b["id"]), tables and all(l in text for l in lines),
                  "no table.markers naming %s" % lines)
            if tables:
                check("dom-%s-bakeoff-%s-weights" % (rid, b["id"]), *weights(tables[0], b))
    return 0


def close(a, b):
    try:
        return math.isclose(float(a), float(b), rel_tol=1e-6)
    except (TypeError, ValueError):
        return False


def weights(table, b):
    """(ok, why): the marker map shows each point's weight (and the
    outside region's) and, per variant with a share, its cycles and share,
    in the stats file's order (data-weight, data-cycles, data-share)."""
    regions = list(b["markers"]) + ([b["outside"]] if isinstance(b.get("outside"), dict) else [])
    want_w = [r.get("weight") for r in regions if r.get("weight") is not None]
    want_c = [(v.get("cycles"), v.get("share")) for r in regions for v in r.get("variants") or []
              if v.get("share") is not None]
    got_w = [n.attrs.get("data-weight") for n in table.find("span", "weight")]
    got_c = [(n.attrs.get("data-cycles"), n.attrs.get("data-share")) for n in table.find("span", "cost")
             if n.attrs.get("data-share") not in (None, "None")]
    if not want_w:
        return False, "the stats file gives no weights to check"
    if len(got_w) != len(want_w) or not all(close(g, w) for g, w in zip(got_w, want_w)):
        return False, "weights %s, want %s" % (got_w[:4], want_w[:4])
    if len(got_c) != len(want_c) or not all(close(g[0], w[0]) and close(g[1], w[1]) for g, w in zip(got_c, want_c)):
        return False, "cycles, shares %s, want %s" % (got_c[:4], want_c[:4])
    return True, ""


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
