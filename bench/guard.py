#!/usr/bin/python3
"""CI regression guard on a filter_bench run: a ratio measured in one run, not an absolute speed.

Usage: /usr/bin/python3 bench/guard.py RESULTS.json [--min-ratio 10]

Fails (exit 1, one line per failure on stderr) when
  - sift's reject path is less than --min-ratio times faster than the decode-everything baseline:
    items/s of sift_scan over baseline on the 8-property corpus, filtered property first, selector
    customer = 'cust-99999' matching 0.001% of the messages, both measured in this run;
  - that sift_scan run allocated on the heap (allocs/msg, C++ operator new, must be 0: invariant 1 of
    docs/architecture.md);
  - any benchmark of the run reported an error (e.g. sift and the baseline disagreeing on matches);
  - the figures are missing.
Exit 2 when the JSON cannot be read. Prints the measured figures either way.
"""

import argparse
import json
import sys

SIFT = "sift_scan/p8/first/0.001%/customer_eq"
BASELINE = "baseline/p8/first/0.001%/customer_eq"


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("json")
    parser.add_argument("--min-ratio", type=float, default=10.0)
    args = parser.parse_args()
    try:
        with open(args.json) as f:
            doc = json.load(f)
    except (OSError, ValueError) as e:
        print("guard: %s: cannot read the results: %s" % (args.json, e), file=sys.stderr)
        return 2

    failures = []
    runs = {}
    for b in doc.get("benchmarks", []):
        if b.get("run_type") == "aggregate":
            continue
        if b.get("error_occurred"):
            failures.append("%s: %s" % (b["name"], b.get("error_message", "error")))
        # Single-thread, CPU-time runs only (the name has no /threads:N or /real_time suffix).
        # /iterations:N and /repeats:N say how a row was run, not which row it is.
        base = "/".join(p for p in b["name"].split("/") if not p.startswith(("iterations:", "repeats:")))
        runs[base] = b

    sift, baseline = runs.get(SIFT), runs.get(BASELINE)
    if sift is None or baseline is None:
        failures.append("missing %s in the results" % " and ".join(n for n, r in ((SIFT, sift), (BASELINE, baseline))
                                                                   if r is None))
    elif not sift.get("error_occurred") and not baseline.get("error_occurred"):
        s, p = sift.get("items_per_second", 0.0), baseline.get("items_per_second", 0.0)
        ratio = s / p if p else 0.0
        allocs = sift.get("allocs/msg")
        print("guard: reject path sift %.2f M msgs/s, baseline %.3f M msgs/s: %.1fx (minimum %gx); "
              "sift allocs/msg %s" % (s / 1e6, p / 1e6, ratio, args.min_ratio, allocs))
        if ratio < args.min_ratio:
            failures.append("reject-path ratio %.1fx is under %gx (%s vs %s)" % (ratio, args.min_ratio, SIFT, BASELINE))
        if allocs is None:
            failures.append("%s has no allocs/msg counter" % SIFT)
        elif allocs != 0:
            failures.append("%s allocates %g times per rejected message (must be 0)" % (SIFT, allocs))

    for f in failures:
        print("guard: FAIL: %s" % f, file=sys.stderr)
    if not failures:
        print("guard: ok")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
