#!/usr/bin/python3
"""tools/study-plot.py — the SVG plots of `tally study … -o DIR`.

Input: KIND (convergence or quality) and DIR, holding the CSV files the
study wrote there (misprediction.csv and decisions.csv; quality.csv).
Output: SVG files in DIR: misprediction.svg and decisions.svg (thesis
Fig. III.4's two halves), or quality.svg.  Exit status 2 with a message
when a file is missing or python3-matplotlib is not installed.
Invariants: draws only what the CSV files hold (the numbers are the C
study's); the SVG has no dates in it, so equal CSV give equal files.
"""
import csv
import sys


def die(msg):
    sys.stderr.write("study-plot: %s\n" % msg)
    sys.exit(2)


def rows(path):
    try:
        with open(path, newline="") as f:
            return list(csv.DictReader(f))
    except OSError as e:
        die("%s: %s" % (path, e.strerror))


def setup():
    try:
        import matplotlib
    except ImportError:
        die("python3-matplotlib is missing (tools/setup.sh installs it)")
    matplotlib.use("svg")
    matplotlib.rcParams["svg.hashsalt"] = "tally"   # reproducible ids
    import matplotlib.pyplot as plt
    return plt


def save(fig, path):
    fig.tight_layout()
    fig.savefig(path, format="svg", metadata={"Date": None})


def convergence(d, plt):
    mis = rows(d + "/misprediction.csv")
    dec = rows(d + "/decisions.csv")
    method = mis[0]["method"] if mis else (dec[0]["method"] if dec else "?")
    fig, ax = plt.subplots(figsize=(6, 4))
    for x in sorted({float(r["faster_pct"]) for r in mis}):
        pts = sorted((int(r["size"]), 100 * float(r["rate"])) for r in mis if float(r["faster_pct"]) == x)
        ax.plot([p[0] for p in pts], [p[1] for p in pts], marker="o", label="B %g%% faster" % x)
    ax.set_xscale("log")
    ax.set_xlabel("samples per version")
    ax.set_ylabel("misprediction rate (%)")
    ax.set_title("Misprediction rate: %s" % method)
    ax.legend()
    save(fig, d + "/misprediction.svg")
    fig, (a1, a2) = plt.subplots(1, 2, figsize=(10, 4))
    for name in dict.fromkeys((r["test"], r["confidence"]) for r in dec):
        pts = [r for r in dec if (r["test"], r["confidence"]) == name]
        label = "%s@%g%%" % (name[0], 100 * float(name[1]))
        xs = [float(r["faster_pct"]) for r in pts]
        a1.plot(xs, [float(r["median_samples"]) if r["median_samples"] else float("nan") for r in pts],
                marker="o", label=label)
        a2.plot(xs, [100 * int(r["wrong"]) / max(1, int(r["trials"])) for r in pts], marker="o", label=label)
    diffs = sorted({float(r["faster_pct"]) for r in dec})
    for ax in (a1, a2):
        ax.set_xscale("log")
        ax.set_xticks(diffs, labels=["%g" % x for x in diffs])
        ax.minorticks_off()
    a1.set_yscale("log")
    a1.set_xlabel("B faster by (%)")
    a1.set_ylabel("median samples per version to decide")
    a2.set_xlabel("B faster by (%)")
    a2.set_ylabel("wrong decisions (% of trials)")
    a1.legend(fontsize="small")
    a1.set_title("Samples to converge: %s" % method)
    a2.set_title("Wrong decisions")
    save(fig, d + "/decisions.svg")


def quality(d, plt):
    q = rows(d + "/quality.csv")
    methods = list(dict.fromkeys(r["method"] for r in q))
    modes = list(dict.fromkeys(r["mode"] for r in q))
    fig, (a1, a2) = plt.subplots(1, 2, figsize=(10, 1.5 + 0.4 * max(1, len(methods))))
    h = 0.8 / max(1, len(modes))
    for k, mode in enumerate(modes):
        for ax, key in ((a1, "converge"), (a2, "perturb")):
            ys, vals = [], []
            for i, m in enumerate(methods):
                for r in q:
                    if r["method"] == m and r["mode"] == mode and r[key] not in ("", "nan", "inf"):
                        ys.append(i + k * h)
                        vals.append(float(r[key]))
            ax.barh(ys, vals, height=h, label=mode)
    for ax, title in ((a1, "converge score (higher is better)"), (a2, "perturb score (lower is better)")):
        ax.set_yticks([i + 0.4 - h / 2 for i in range(len(methods))])
        ax.set_yticklabels(methods, fontsize="small")
        ax.set_xscale("log")
        ax.set_title(title)
    a1.legend()
    save(fig, d + "/quality.svg")


def main(argv):
    if len(argv) != 2 or argv[0] not in ("convergence", "quality"):
        die("usage: study-plot.py convergence|quality DIR")
    plt = setup()
    (convergence if argv[0] == "convergence" else quality)(argv[1], plt)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
