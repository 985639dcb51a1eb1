#!/usr/bin/python3
"""Draws the figures of `sift bench` into a PNG: `sift bench --plot FILE` runs it.

Usage: sift bench ... --json | /usr/bin/python3 sift-bench-plot.py OUT.png

Reads the JSON document of `sift bench --json` on stdin. One group of bars per filter: messages per
second (log scale) of sift's filter, of the filter plus a full decode of the matches, of the filter
plus typed JSON of the matches, and of the decode-everything baseline, each labelled with its ratio to
the baseline. Needs Debian's python3-matplotlib (tools/setup-debian installs it); exits 1 with a line
on stderr when it cannot draw.
"""

import json
import sys


def main():
    if len(sys.argv) != 2:
        print("usage: sift-bench-plot.py OUT.png < bench.json", file=sys.stderr)
        return 2
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("sift-bench-plot: python3-matplotlib is not installed (tools/setup-debian installs it)", file=sys.stderr)
        return 1
    doc = json.load(sys.stdin)
    filters = doc["filters"]
    series = [("sift filter", lambda f: f["sift"], lambda f: f["ratio"]),
              ("+ full decode of matches", lambda f: f["sift_full_decode"], lambda f: f["sift_full_decode"]["ratio"]),
              ("+ typed JSON of matches", lambda f: f["sift_typed_json"], lambda f: f["sift_typed_json"]["ratio"]),
              ("baseline: decode everything", lambda f: f["baseline"], lambda f: 1.0)]
    width = 0.8 / len(series)
    fig, ax = plt.subplots(figsize=(max(6.0, 1.9 * len(filters) + 2), 4.8))
    for k, (name, row, ratio) in enumerate(series):
        xs = [i + (k - (len(series) - 1) / 2) * width for i in range(len(filters))]
        ys = [row(f)["msgs_per_s"] for f in filters]
        bars = ax.bar(xs, ys, width, label=name)
        for bar, f in zip(bars, filters):
            ax.annotate("%.1fx" % ratio(f), (bar.get_x() + bar.get_width() / 2, bar.get_height()),
                        ha="center", va="bottom", fontsize=7)
    labels = []
    for i, f in enumerate(filters):
        text = f["text"] if len(f["text"]) <= 28 else f["text"][:27] + "..."
        labels.append("%d. %s\n%s\n%.3g%% match" % (i + 1, f["kind"], text, 100 * f["selectivity"]))
    ax.set_xticks(range(len(filters)))
    ax.set_xticklabels(labels, fontsize=7)
    ax.set_yscale("log")
    values = [row(f)["msgs_per_s"] for _, row, _ in series for f in filters]
    ax.set_ylim(max(1.0, min(values) / 3), max(values) * 6)  # room for the legend above the bars
    ax.set_ylabel("messages per second, one thread (CPU time)")
    source = doc["input"]["source"]
    ax.set_title("sift bench: %d messages from %s" % (doc["input"]["messages"], source[-60:]), fontsize=9)
    ax.legend(fontsize=7, loc="upper right", ncol=2)
    fig.tight_layout()
    try:
        fig.savefig(sys.argv[1], dpi=120)
    except OSError as e:
        print("sift-bench-plot: %s: %s" % (sys.argv[1], e.strerror), file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
