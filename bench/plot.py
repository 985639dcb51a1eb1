#!/usr/bin/python3
"""Plots and a summary table of a filter_bench run (bench/filter).

Usage: /usr/bin/python3 bench/plot.py RESULTS.json [--out DIR] [--no-plots]

Reads Google Benchmark JSON written by filter_bench (names kind/shape/placement/selectivity/selector,
optionally followed by /iterations:N, /threads:N, /real_time) and writes into DIR (default: the JSON's
folder):
  filter-selectivity.png  throughput against selectivity, sift (scan, scan + delivery) vs the baseline,
                          with the read-every-byte reference, per message shape and field placement
  filter-shapes.png       ns per message by selector shape, sift vs baseline
  filter-threads.png      1 and 2 threads, in memory and from the store
  filter-summary.md       the tables printed on stdout: figures, ratios, and the issue's targets
Figures missing from the JSON (a --quick run) are left out. Needs Debian's python3-matplotlib only
for the plots.
"""

import argparse
import json
import os
import sys

SELECTIVITIES = ["0.001%", "0.1%", "1%", "10%", "50%", "100%"]
SELECTIVITY_VALUE = {"0.001%": 1e-5, "0.1%": 1e-3, "1%": 1e-2, "10%": 0.1, "50%": 0.5, "100%": 1.0}
SHAPE_TITLE = {"p8": "~450 B, 8 application properties", "p32": "~1.5 KB, 32 application properties"}
REJECT = ("p8", "first", "0.001%", "customer_eq")

# The targets of a full run.
TARGET_REJECT_RATIO = 25.0
TARGET_REFERENCE_SHARE = 0.8
TARGET_THREAD_SCALING = 1.7


class Result:
    def __init__(self, entry):
        parts = entry["name"].split("/")
        if len(parts) < 5:
            raise ValueError("unexpected benchmark name %r" % entry["name"])
        self.kind, self.shape, self.placement, self.selectivity, self.selector = parts[:5]
        self.threads = 1
        for extra in parts[5:]:
            if extra.startswith("threads:"):
                self.threads = int(extra.split(":", 1)[1])
        self.real_time = "real_time" in parts[5:]
        self.error = entry.get("error_message") if entry.get("error_occurred") else None
        self.items = entry.get("items_per_second", 0.0)
        self.bytes = entry.get("bytes_per_second", 0.0)
        self.matches = entry.get("matches")
        # Google Benchmark sums CPU time over threads and averages wall time over them; both JSON
        # times are per iteration of all threads. CPU share: how much of its wall time a thread ran.
        it, cpu, real = entry.get("iterations", 0), entry.get("cpu_time", 0.0), entry.get("real_time", 0.0)
        self.cpu_share = cpu / (self.threads * real) if real else None
        # Messages per CPU second (all threads): the rate if every thread had a core of its own.
        self.items_per_cpu = (self.items * real / cpu) if cpu else None
        self.allocs = entry.get("allocs/msg")
        # reject_paired rows: the two sides' CPU ns per message and the baseline's time over sift's.
        self.paired_ratio = entry.get("ratio")
        self.sift_ns = entry.get("sift_ns_per_msg")
        self.baseline_ns = entry.get("baseline_ns_per_msg")
        self.mallocs = entry.get("mallocs/msg")

    @property
    def ns(self):
        return 1e9 / self.items if self.items else float("nan")

    def key(self):
        return (self.kind, self.shape, self.placement, self.selectivity, self.selector, self.threads,
                self.real_time)


def load(path):
    with open(path) as f:
        doc = json.load(f)
    runs = {}
    for entry in doc.get("benchmarks", []):
        if entry.get("run_type") == "aggregate":
            continue
        r = Result(entry)
        runs.setdefault(r.key(), []).append(r)
    # A benchmark repeated (the decode and baseline rows are) stands for its median run by rate, a run
    # that happened rather than a mean of them; an error in any run is the row's.
    results = {}
    for key, rs in runs.items():
        failed = [r for r in rs if r.error is not None]
        rs = sorted(rs, key=lambda r: r.items if r.paired_ratio is None else r.paired_ratio)
        results[key] = failed[0] if failed else rs[(len(rs) - 1) // 2]
    return doc.get("context", {}), results


def find(results, kind, shape, placement, selectivity, selector, threads=1, real_time=None):
    for rt in ([real_time] if real_time is not None else [False, True]):
        r = results.get((kind, shape, placement, selectivity, selector, threads, rt))
        if r is not None and r.error is None:
            return r
    return None


def mmsgs(r):
    return "%.2f" % (r.items / 1e6) if r else "-"


def ratio(a, b):
    return a.items / b.items if a and b and b.items else None


def fmt_ratio(x):
    return "%.1fx" % x if x is not None else "-"


def fmt_share(x):
    return "%.2fx" % x if x is not None else "-"


def fmt_count(x):
    return "%.3g" % x if x is not None else "-"


def fmt_matches(x):
    return "{:,}".format(int(x)) if x is not None else "-"


def tables(results):
    out = []
    quick = not any(r.shape == "p32" for r in results.values())  # the CI set: the p8 reject path only
    errors = [r for r in results.values() if r.error]
    if errors:
        out.append("**Failed benchmarks:**\n")
        for r in errors:
            out.append("- %s/%s/%s/%s/%s: %s" % (r.kind, r.shape, r.placement, r.selectivity, r.selector, r.error))
        out.append("")

    # Selectivity.
    rows = []
    for shape in ("p8", "p32"):
        for placement in ("first", "last"):
            ref = find(results, "reference", shape, placement, "0.001%", "read_every_byte", real_time=False)
            for sel in SELECTIVITIES:
                scan = find(results, "sift_scan", shape, placement, sel, "customer_eq", real_time=False)
                base = find(results, "baseline", shape, placement, sel, "customer_eq", real_time=False)
                deliver = find(results, "sift_deliver", shape, placement, sel, "customer_eq", real_time=False)
                as_json = find(results, "sift_json", shape, placement, sel, "customer_eq", real_time=False)
                reader = find(results, "sift_reader", shape, placement, sel, "customer_eq", real_time=False)
                if not (scan or base):
                    continue
                rows.append("| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |" % (
                    shape, placement, sel, fmt_matches(scan.matches if scan else None), mmsgs(scan),
                    mmsgs(deliver), mmsgs(as_json), mmsgs(base), fmt_ratio(ratio(scan, base)),
                    fmt_ratio(ratio(deliver, base)), fmt_ratio(ratio(as_json, base)),
                    fmt_share(ratio(scan, ref)), fmt_count(scan.allocs if scan else None), mmsgs(reader),
                    fmt_ratio(ratio(reader, base))))
    if rows:
        out.append("Selectivity (selector `customer = 'cust-99999'`; M msgs/s, one thread, CPU time; \"reader "
                   "only\" is sift with the text prefilter off):\n")
        out.append("| shape | customer | selectivity | matches | sift scan | sift scan + delivery "
                   "| sift scan + typed JSON | baseline "
                   "| scan / baseline | scan+delivery / baseline | scan+JSON / baseline | scan / reference "
                   "| allocs/msg (scan) | reader only | reader only / baseline |")
        out.append("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|")
        out.extend(rows)
        refs = []
        for shape in ("p8", "p32"):
            for placement in ("first", "last"):
                ref = find(results, "reference", shape, placement, "0.001%", "read_every_byte", real_time=False)
                if ref:
                    refs.append("%s/%s %s M msgs/s (%.1f GB/s)" % (shape, placement, mmsgs(ref), ref.bytes / 1e9))
        if refs:
            out.append("\nRead-every-byte reference: " + "; ".join(refs) + ".")
        out.append("")

    # Selector shapes.
    rows = []
    ref = find(results, "reference", "p8", "as-generated", "natural", "read_every_byte", real_time=False)
    for r in sorted((r for r in results.values() if r.kind == "sift_scan" and r.placement == "as-generated"),
                    key=lambda r: r.ns):
        base = find(results, "baseline", r.shape, r.placement, r.selectivity, r.selector, real_time=False)
        reader = find(results, "sift_reader", r.shape, r.placement, r.selectivity, r.selector, real_time=False)
        rows.append("| %s | %s | %.1f | %s | %s | %s | %s | %s | %s | %s |" % (
            r.selector, fmt_matches(r.matches), r.ns, "%.0f" % base.ns if base else "-", fmt_ratio(ratio(r, base)),
            fmt_count(r.allocs), fmt_count(base.mallocs if base else None), fmt_count(r.mallocs),
            "%.1f" % reader.ns if reader else "-", fmt_ratio(ratio(reader, base))))
    if rows:
        out.append("Selector shapes (as-generated 8-property corpus; ns per message, one thread, CPU time%s; "
                   "\"reader only\" is sift with the text prefilter off):\n"
                   % ("; reference %.1f ns/msg" % ref.ns if ref else ""))
        out.append("| selector | matches | sift ns/msg | baseline ns/msg | sift / baseline | sift allocs/msg "
                   "| baseline mallocs/msg | sift mallocs/msg | reader only ns/msg | reader only / baseline |")
        out.append("|---|---|---|---|---|---|---|---|---|---|")
        out.extend(rows)
        out.append("")

    # The reject path, paired.
    rows = []
    for placement in ("first", "last"):
        paired = find(results, "reject_paired", "p8", placement, "0.001%", "customer_eq")
        if paired and paired.paired_ratio:
            scan = find(results, "sift_scan", "p8", placement, "0.001%", "customer_eq", real_time=False)
            base = find(results, "baseline", "p8", placement, "0.001%", "customer_eq", real_time=False)
            rows.append("| %s | %.1f | %.1f | %s | %s |" % (placement, paired.sift_ns, paired.baseline_ns,
                                                          fmt_ratio(paired.paired_ratio),
                                                          fmt_ratio(ratio(scan, base))))
    if rows:
        out.append("Reject path, paired (p8, 0.001%, `customer_eq`): sift_scan and the baseline in alternating "
                   "turns of 50,000 records, each turn from a cold cache, on the thread's CPU clock; median of "
                   "3 runs. The last column is the ratio of the separate sift_scan and baseline rows:\n")
        out.append("| customer | sift ns/msg | baseline ns/msg | paired ratio | separate rows' ratio |")
        out.append("|---|---|---|---|---|")
        out.extend(rows)
        out.append("")

    # The store, one thread.
    scan = find(results, "store_sift", "p8", "first", "0.001%", "customer_eq", real_time=False)
    base = find(results, "store_baseline", "p8", "first", "0.001%", "customer_eq", real_time=False)
    if scan or base:
        out.append("RocksDB store through engine consumers, warm block cache (p8, customer first, 0.001%; "
                   "one thread, CPU time):\n")
        out.append("| kind | M msgs/s | ns/msg | allocs/msg | mallocs/msg |")
        out.append("|---|---|---|---|---|")
        for name, r in (("store_sift (consumer with the filter)", scan),
                        ("store_baseline (consumer delivers all, Proton decode + selector)", base)):
            if r:
                out.append("| %s | %s | %.1f | %s | %s |" % (name, mmsgs(r), r.ns, fmt_count(r.allocs),
                                                           fmt_count(r.mallocs)))
        out.append("\nstore ratio sift / baseline: %s\n" % fmt_ratio(ratio(scan, base)))

    # Threads.
    rows = []
    for kind in ("reference", "sift_scan", "baseline", "store_sift", "store_baseline"):
        sel = "read_every_byte" if kind == "reference" else "customer_eq"
        one = find(results, kind, "p8", "first", "0.001%", sel, threads=1, real_time=True)
        two = find(results, kind, "p8", "first", "0.001%", sel, threads=2, real_time=True)
        if one or two:
            cpu_scaling = None
            if one and two and one.items_per_cpu and two.items_per_cpu:
                cpu_scaling = two.threads * two.items_per_cpu / one.items_per_cpu
            rows.append("| %s | %s | %s | %s | %s | %s |" % (
                kind, mmsgs(one), mmsgs(two), fmt_ratio(ratio(two, one)),
                "%.2f" % two.cpu_share if two and two.cpu_share else "-", fmt_ratio(cpu_scaling)))
    if rows:
        out.append("Threads (p8, customer first, 0.001%; M msgs/s on wall time; CPU share = share of its wall "
                   "time each of the 2 threads was on a CPU; CPU-time scaling = 2 x the per-thread rate per CPU "
                   "second over the 1-thread rate, i.e. the scaling if each thread had a core of its own):\n")
        out.append("| kind | 1 thread | 2 threads | wall-time scaling | CPU share (2 threads) | CPU-time scaling |")
        out.append("|---|---|---|---|---|---|")
        out.extend(rows)
        out.append("")

    # Targets.
    checks = []
    if not quick:
        # The reject-path ratio is read from the paired run (see filter_bench's BM_RejectPaired); the
        # separate rows above stay beside it, and a full run without the paired one fails the target.
        for placement in ("first", "last"):
            paired = find(results, "reject_paired", "p8", placement, "0.001%", "customer_eq")
            x = paired.paired_ratio if paired else None
            checks.append(("reject path vs baseline (paired), p8, customer %s" % placement,
                           ">= %gx" % TARGET_REJECT_RATIO, fmt_ratio(x) if x is not None else "missing",
                           x is not None and x >= TARGET_REJECT_RATIO))
    for placement in ("first", "last"):
        scan = find(results, "sift_scan", "p8", placement, "0.001%", "customer_eq", real_time=False)
        ref = find(results, "reference", "p8", placement, "0.001%", "read_every_byte", real_time=False)
        x = ratio(scan, ref)
        if x is not None:
            checks.append(("reject path vs read-every-byte, p8, customer %s" % placement,
                           ">= %gx" % TARGET_REFERENCE_SHARE, "%.2fx" % x, x >= TARGET_REFERENCE_SHARE))
    rejects = [r for r in results.values() if r.kind == "sift_scan" and r.selectivity == "0.001%"]
    if rejects:
        worst = max(r.allocs or 0.0 for r in rejects)
        checks.append(("allocations per rejected message (sift_scan, every 0.001% corpus)", "0",
                       "%g" % worst, worst == 0.0))
    for kind in ("sift_scan", "store_sift"):
        one = find(results, kind, "p8", "first", "0.001%", "customer_eq", threads=1, real_time=True)
        two = find(results, kind, "p8", "first", "0.001%", "customer_eq", threads=2, real_time=True)
        x = ratio(two, one)
        if x is not None:
            checks.append(("2-thread scaling, %s" % kind, ">= %gx" % TARGET_THREAD_SCALING, fmt_ratio(x),
                           x >= TARGET_THREAD_SCALING))
    if checks:
        out.append("Targets:\n")
        out.append("| target | wanted | measured | met |")
        out.append("|---|---|---|---|")
        for name, wanted, got, met in checks:
            out.append("| %s | %s | %s | %s |" % (name, wanted, got, "yes" if met else "**no**"))
        out.append("")
    return "\n".join(out)


def plots(results, out_dir):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    written = []
    colors = {"sift_scan": "#1f77b4", "sift_deliver": "#2ca02c", "sift_json": "#17becf", "baseline": "#d62728",
              "reference": "#7f7f7f",
              "store_sift": "#9467bd", "store_baseline": "#ff7f0e"}
    labels = {"sift_scan": "sift: scan", "sift_deliver": "sift: scan + full decode of matches",
              "sift_json": "sift: scan + typed JSON of matches",
              "baseline": "baseline: Proton decode + selector", "reference": "read every byte once",
              "store_sift": "store: sift consumer", "store_baseline": "store: deliver all + Proton decode"}

    # 1. Throughput against selectivity.
    panels = [(s, p) for s in ("p8", "p32") for p in ("first", "last")
              if find(results, "sift_scan", s, p, "0.001%", "customer_eq", real_time=False)]
    if panels:
        cols = 2 if len(panels) > 1 else 1
        rows = (len(panels) + cols - 1) // cols
        fig, axes = plt.subplots(rows, cols, figsize=(6.5 * cols, 4.6 * rows), squeeze=False)
        for ax, (shape, placement) in zip(axes.flat, panels):
            for kind in ("sift_scan", "sift_deliver", "sift_json", "baseline"):
                xs, ys = [], []
                for sel in SELECTIVITIES:
                    r = find(results, kind, shape, placement, sel, "customer_eq", real_time=False)
                    if r:
                        xs.append(SELECTIVITY_VALUE[sel])
                        ys.append(r.items)
                if xs:
                    ax.plot(xs, ys, marker="o", color=colors[kind], label=labels[kind])
            ref = find(results, "reference", shape, placement, "0.001%", "read_every_byte", real_time=False)
            if ref:
                ax.axhline(ref.items, color=colors["reference"], linestyle="--", label=labels["reference"])
            ax.set_xscale("log")
            ax.set_yscale("log")
            ax.set_xticks([SELECTIVITY_VALUE[s] for s in SELECTIVITIES])
            ax.set_xticklabels(SELECTIVITIES, fontsize=8)
            ax.set_xlabel("selectivity (share of messages matched)")
            ax.set_ylabel("messages / s (one thread)")
            ax.set_title("%s, filtered property %s" % (SHAPE_TITLE[shape], placement), fontsize=10)
            ax.grid(True, which="both", alpha=0.3)
            ax.legend(fontsize=8, loc="lower left")
        for ax in list(axes.flat)[len(panels):]:
            ax.set_visible(False)
        fig.suptitle("Filter throughput: customer = 'cust-99999', sift vs decode-everything baseline")
        fig.tight_layout()
        path = os.path.join(out_dir, "filter-selectivity.png")
        fig.savefig(path, dpi=110)
        plt.close(fig)
        written.append(path)

    # 2. ns per message by selector shape.
    shapes = sorted((r for r in results.values() if r.kind == "sift_scan" and r.placement == "as-generated"),
                    key=lambda r: r.ns)
    if shapes:
        fig, ax = plt.subplots(figsize=(10, 0.55 * len(shapes) + 2.2))
        names = [r.selector for r in shapes]
        ys = range(len(shapes))
        sift_ns = [r.ns for r in shapes]
        base_ns = []
        for r in shapes:
            b = find(results, "baseline", r.shape, r.placement, r.selectivity, r.selector, real_time=False)
            base_ns.append(b.ns if b else float("nan"))
        h = 0.38
        ax.barh([y - h / 2 for y in ys], sift_ns, height=h, color=colors["sift_scan"], label="sift (scan)")
        ax.barh([y + h / 2 for y in ys], base_ns, height=h, color=colors["baseline"], label=labels["baseline"])
        for y, s, b in zip(ys, sift_ns, base_ns):
            ax.text(s * 1.05, y - h / 2, "%.0f ns" % s, va="center", fontsize=8)
            if b == b:
                ax.text(b * 1.05, y + h / 2, "%.0f ns  (%.0fx)" % (b, b / s), va="center", fontsize=8)
        ref = find(results, "reference", "p8", "as-generated", "natural", "read_every_byte", real_time=False)
        if ref:
            ax.axvline(ref.ns, color=colors["reference"], linestyle="--", label="read every byte once")
        ax.set_yticks(list(ys))
        ax.set_yticklabels(names)
        ax.invert_yaxis()
        ax.set_xscale("log")
        ax.set_xlim(right=max(x for x in base_ns + sift_ns if x == x) * 4)
        ax.set_xlabel("ns per message (one thread, lower is better)")
        ax.set_title("Cost per message by selector shape (~450 B messages, 8 application properties)", fontsize=10)
        ax.grid(True, axis="x", which="both", alpha=0.3)
        ax.legend(fontsize=8, loc="upper center", bbox_to_anchor=(0.5, -0.09), ncol=3, frameon=False)
        fig.tight_layout()
        path = os.path.join(out_dir, "filter-shapes.png")
        fig.savefig(path, dpi=110)
        plt.close(fig)
        written.append(path)

    # 3. Thread scaling.
    kinds = []
    for kind in ("reference", "sift_scan", "store_sift", "baseline", "store_baseline"):
        sel = "read_every_byte" if kind == "reference" else "customer_eq"
        one = find(results, kind, "p8", "first", "0.001%", sel, threads=1, real_time=True)
        two = find(results, kind, "p8", "first", "0.001%", sel, threads=2, real_time=True)
        if one and two:
            kinds.append((kind, one, two))
    if kinds:
        fig, ax = plt.subplots(figsize=(10, 4.8))
        w = 0.38
        for i, (kind, one, two) in enumerate(kinds):
            ax.bar(i - w / 2, one.items, width=w, color=colors[kind], alpha=0.55)
            ax.bar(i + w / 2, two.items, width=w, color=colors[kind])
            ax.text(i - w / 2, one.items * 1.08, "1 thr", ha="center", fontsize=8)
            ax.text(i + w / 2, two.items * 1.08, "2 thr\n%.2fx" % (two.items / one.items), ha="center", fontsize=8)
        ax.set_xticks(range(len(kinds)))
        short = {"reference": "read every\nbyte once", "sift_scan": "sift scan\n(in memory)",
                 "store_sift": "sift consumer\n(RocksDB store)", "baseline": "baseline\n(in memory)",
                 "store_baseline": "baseline: deliver all\n(RocksDB store)"}
        ax.set_xticklabels([short[k] for k, _, _ in kinds], fontsize=9)
        ax.set_yscale("log")
        ax.set_ylim(top=max(t.items for _, _, t in kinds) * 6)
        ax.set_ylabel("messages / s (wall time)")
        ax.set_title("Thread scaling, reject path (0.001%, ~450 B messages): 1 vs 2 threads", fontsize=10)
        ax.grid(True, axis="y", which="both", alpha=0.3)
        fig.tight_layout()
        path = os.path.join(out_dir, "filter-threads.png")
        fig.savefig(path, dpi=110)
        plt.close(fig)
        written.append(path)
    return written


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("json")
    parser.add_argument("--out", help="folder for the PNGs and filter-summary.md (default: the JSON's folder)")
    parser.add_argument("--no-plots", action="store_true", help="only the summary")
    args = parser.parse_args()
    out_dir = args.out or os.path.dirname(os.path.abspath(args.json))
    try:
        context, results = load(args.json)
    except (OSError, ValueError, KeyError) as e:
        print("plot.py: %s: %s" % (args.json, e), file=sys.stderr)
        return 2
    if not results:
        print("plot.py: %s: no benchmark results" % args.json, file=sys.stderr)
        return 2
    os.makedirs(out_dir, exist_ok=True)
    summary = tables(results)
    print(summary)
    with open(os.path.join(out_dir, "filter-summary.md"), "w") as f:
        f.write(summary + "\n")
    if not args.no_plots:
        for path in plots(results, out_dir):
            print("plot: %s" % path)
    return 0


if __name__ == "__main__":
    sys.exit(main())
