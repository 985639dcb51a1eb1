#!/usr/bin/python3
"""`sift bench` end to end, on messages python3-qpid-proton encoded (generate_proton_records.py).

Checks that each filter's matches equal `sift filter -f count`'s and the decode-everything
baseline's, the JSON document, the table, the plot, --filters FILE, typed JSON input, a stored
stream (warm only: tests never drop the page cache), the usual errors and exit codes, and that a
build with a planted bug (SIFT_BENCH_SEEDED, sift's side loses a match) exits 2 with both counts.

Run with Debian's interpreter (/usr/bin/python3), which has the proton bindings.
Environment: SIFT_CLI (the sift binary), SIFT_BENCH_SEEDED (the planted-bug build), SIFT_SOURCE_DIR.
"""

import json
import os
import subprocess
import sys
import tempfile
import unittest

SIFT = os.environ.get("SIFT_CLI", "")
SEEDED = os.environ.get("SIFT_BENCH_SEEDED", "")
HERE = os.path.dirname(os.path.abspath(__file__))

# 3 SQL, 1 JMS and 1 property filter, each measured alone.
FILTERS = [
    ("--sql", "region = 'eu-west' AND amount > 900"),
    ("--sql", "sku LIKE 'A1%' OR tier IN ('gold', 'platinum') AND express = TRUE"),
    ("--sql", "weight BETWEEN 10.5 AND 11.0 AND p.subject = 'refund'"),
    ("--jms", "JMSPriority > 6 AND JMSType = 'invoice'"),
    ("--application-properties", '{"region": "&p:ap-", "tier": {"type": "symbol", "value": "gold"}}'),
]


def run(*args, binary=None):
    return subprocess.run([binary or SIFT] + list(args), capture_output=True, text=True)


def flags(filters):
    out = []
    for flag, text in filters:
        out += [flag, text]
    return out


class BenchCommand(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.dir = tempfile.TemporaryDirectory(prefix="sift-bench-test-")
        cls.records = os.path.join(cls.dir.name, "proton.amqp")
        subprocess.run([sys.executable, os.path.join(HERE, "generate_proton_records.py"), "--count", "3000",
                        "-o", cls.records], check=True)

    @classmethod
    def tearDownClass(cls):
        cls.dir.cleanup()

    def path(self, name):
        return os.path.join(self.dir.name, name)

    def count(self, flag, text, *extra):
        r = run("filter", flag, text, "-f", "count", *extra)
        self.assertIn(r.returncode, (0, 1), r.stderr)
        return int(r.stdout)

    def test_matches_equal_filter_count_and_baseline(self):
        r = run("bench", *flags(FILTERS), "--seconds", "0", "--json", self.records)
        self.assertEqual(r.returncode, 0, r.stderr)
        doc = json.loads(r.stdout)
        self.assertEqual(doc["input"]["messages"], 3000)
        self.assertEqual(len(doc["filters"]), len(FILTERS))
        for (flag, text), f in zip(FILTERS, doc["filters"]):
            expected = self.count(flag, text, self.records)
            self.assertEqual(f["matches"], expected, text)
            self.assertEqual(f["baseline_matches"], expected, text)
            self.assertTrue(f["same_matches"])
            self.assertEqual(f["text"], text)
            self.assertEqual("--" + f["kind"], flag)
            self.assertGreater(f["sift"]["ns_per_msg"], 0)
            self.assertGreater(f["baseline"]["ns_per_msg"], 0)
            self.assertGreater(f["ratio"], 0)
            for row in ("sift_full_decode", "sift_typed_json"):
                self.assertGreater(f[row]["msgs_per_s"], 0)
            if doc["allocations_counted"]:
                # A rejected message costs sift no allocation (docs/architecture.md, invariant 1).
                self.assertEqual(f["sift"]["allocs_per_rejected"], 0, text)
                self.assertGreater(f["baseline"]["allocs_per_rejected"], 0, text)
        self.assertGreater(sum(f["matches"] for f in doc["filters"]), 0)

    def test_table_and_plot(self):
        png = self.path("bench.png")
        r = run("bench", "--sql", FILTERS[0][1], "--jms", FILTERS[3][1], "--seconds", "0", "--plot", png,
                self.records)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn("filter 1: --sql " + FILTERS[0][1], r.stdout)
        self.assertIn("filter 2: --jms " + FILTERS[3][1], r.stdout)
        self.assertIn("allocations per rejected message", r.stdout)
        self.assertIn("the same as the baseline's", r.stdout)
        with open(png, "rb") as f:
            self.assertEqual(f.read(8), b"\x89PNG\r\n\x1a\n")

    def test_filters_file(self):
        listing = self.path("filters.txt")
        with open(listing, "w") as f:
            f.write("# the filters of the other test\n\n")
            for flag, text in FILTERS:
                f.write({"--sql": "", "--jms": "jms: ", "--application-properties": "application-properties: "}[flag]
                        + text + "\n")
        r = run("bench", "--filters", listing, "--seconds", "0", "--json", self.records)
        self.assertEqual(r.returncode, 0, r.stderr)
        got = [f["matches"] for f in json.loads(r.stdout)["filters"]]
        self.assertEqual(got, [self.count(flag, text, self.records) for flag, text in FILTERS])

    def test_typed_json_input(self):
        lines = self.path("proton.json")
        with open(lines, "w") as out:
            subprocess.run([SIFT, "cat", self.records], stdout=out, check=True)
        r = run("bench", "--sql", FILTERS[0][1], "--format", "json", "--seconds", "0", "--json", lines)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(json.loads(r.stdout)["filters"][0]["matches"], self.count("--sql", FILTERS[0][1], self.records))

    def test_store(self):
        store = self.path("store")
        r = run("append", "--store", store, "--stream", "orders", "--no-sync", self.records)
        self.assertEqual(r.returncode, 0, r.stderr)
        r = run("bench", "--store", store, "--stream", "orders", "--sql", FILTERS[0][1], "--seconds", "0", "--json")
        self.assertEqual(r.returncode, 0, r.stderr)
        f = json.loads(r.stdout)["filters"][0]
        expected = self.count("--sql", FILTERS[0][1], self.records)
        self.assertEqual(f["matches"], expected)
        warm = f["store"]["warm"]
        self.assertEqual((warm["sift_matches"], warm["baseline_matches"]), (expected, expected))
        self.assertNotIn("cold", f["store"])
        self.assertIn("warm only", f["store"]["note"])
        r = run("bench", "--store", store, "--stream", "nope", "--sql", "a = 1", "--seconds", "0")
        self.assertEqual(r.returncode, 3, r.stderr)
        r = run("bench", "--store", self.path("no-store"), "--stream", "orders", "--sql", "a = 1")
        self.assertEqual(r.returncode, 3, r.stderr)
        self.assertRegex(r.stderr, r"^sift: cannot open store: ")

    def test_errors(self):
        r = run("bench", "--sql", "a = 1", self.path("missing.amqp"))
        self.assertEqual(r.returncode, 2)
        self.assertRegex(r.stderr, r"^sift: .*missing\.amqp: ")
        self.assertEqual(r.stdout, "")
        r = run("bench", "--sql", "a = = 1", self.records)
        self.assertEqual(r.returncode, 2)
        self.assertRegex(r.stderr, r"^sift: bad selector: --sql column 5: ")
        self.assertIn("^", r.stderr)
        listing = self.path("bad-filters.txt")
        with open(listing, "w") as f:
            f.write("a = 1\njms: JMSPriority >\n")
        r = run("bench", "--filters", listing, self.records)
        self.assertEqual(r.returncode, 2)
        self.assertIn("bad-filters.txt:2 column", r.stderr)
        r = run("bench", self.records)
        self.assertEqual(r.returncode, 2)
        self.assertIn("a filter is required", r.stderr)
        truncated = self.path("truncated.amqp")
        with open(self.records, "rb") as src, open(truncated, "wb") as dst:
            dst.write(src.read()[:5000])
        r = run("bench", "--sql", "a = 1", truncated)
        self.assertEqual(r.returncode, 2)
        self.assertRegex(r.stderr, r"^sift: .*truncated\.amqp")
        self.assertEqual(len(r.stderr.splitlines()), 1, r.stderr)
        empty = self.path("empty.amqp")
        open(empty, "wb").close()
        r = run("bench", "--sql", "a = 1", empty)
        self.assertEqual(r.returncode, 2)
        self.assertIn("no messages", r.stderr)
        r = run("bench", "--sql", "a = 1", "--plot", self.path("no/such/dir/plot.png"), self.records)
        self.assertEqual(r.returncode, 2)
        self.assertRegex(r.stderr, r"^sift: cannot write plot: .*plot\.png: No such file or directory")
        r = run("bench", "--sql", "a = 1", "--stream", "orders", self.records)
        self.assertEqual(r.returncode, 2)
        r = run("bench", "--sql", "a = 1", "--seconds", "-1", self.records)
        self.assertEqual(r.returncode, 2)
        self.assertRegex(r.stderr, r"^sift: usage: sift bench: ")

    @unittest.skipUnless(SEEDED, "SIFT_BENCH_SEEDED is not set")
    def test_seeded_mismatch_exits_2_with_both_counts(self):
        flag, text = FILTERS[0]
        expected = self.count(flag, text, self.records)
        self.assertGreater(expected, 0)
        r = run("bench", flag, text, "--seconds", "0", self.records, binary=SEEDED)
        self.assertEqual(r.returncode, 2, r.stderr)
        self.assertEqual(r.stdout, "")
        self.assertIn("sift and the baseline disagree", r.stderr)
        self.assertIn("sift matched %d messages, the baseline %d" % (expected - 1, expected), r.stderr)


if __name__ == "__main__":
    if not SIFT:
        print("bench_command_test: set SIFT_CLI to the sift binary", file=sys.stderr)
        sys.exit(2)
    unittest.main()
