#!/usr/bin/python3
"""bench/peers-plot.py — the per-iteration curves of bench/peers.sh as a plot.

Input: a TSV file of "benchmark<TAB>VM<TAB>iteration<TAB>ms" lines (per
iteration, the median over the runs), written by bench/peers.sh in curve
mode. Output: a PNG (or SVG, by the name's ending) with one panel per
benchmark, a line per VM, ms per iteration on a log scale (warm-up and
steady state differ by orders of magnitude). Needs Debian's matplotlib.
Usage: bench/peers-plot.py CURVES.tsv OUT.png
"""
import math
import sys

import matplotlib

matplotlib.use("Agg")  # no display: a file only
import matplotlib.pyplot as plt  # noqa: E402


def main():
    if len(sys.argv) != 3:
        sys.exit("usage: peers-plot.py CURVES.tsv OUT.png")
    data = {}  # benchmark -> VM -> [(iteration, ms)]
    order = []
    with open(sys.argv[1]) as f:
        for line in f:
            parts = line.rstrip("\n").split("\t")
            if len(parts) != 4:
                continue
            b, vm, i, ms = parts
            if b not in data:
                data[b] = {}
                order.append(b)
            data[b].setdefault(vm, []).append((int(i), float(ms)))
    if not order:
        sys.exit("no curves in " + sys.argv[1])
    cols = min(3, len(order))
    rows = math.ceil(len(order) / cols)
    fig, axes = plt.subplots(rows, cols, figsize=(4.5 * cols, 3.2 * rows), squeeze=False)
    for k, b in enumerate(order):
        ax = axes[k // cols][k % cols]
        for vm, pts in data[b].items():
            ax.plot([p[0] for p in pts], [max(p[1], 1e-3) for p in pts], marker=".", ms=3, lw=1, label=vm)
        ax.set_title(b)
        ax.set_yscale("log")
        ax.set_xlabel("iteration")
        ax.set_ylabel("ms")
        ax.grid(True, which="both", lw=0.3)
        ax.legend(fontsize=7)
    for k in range(len(order), rows * cols):
        axes[k // cols][k % cols].axis("off")
    fig.tight_layout()
    fig.savefig(sys.argv[2], dpi=110)


if __name__ == "__main__":
    main()
