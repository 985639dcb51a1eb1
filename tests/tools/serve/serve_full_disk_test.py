#!/usr/bin/python3
"""A real full file system under `sift append` and `sift serve`: a small tmpfs the test mounts and
unmounts itself (root only; the test reports itself skipped where it cannot mount one).

Unlike tools_serve_durability, whose preload library fails the store's writes by name, nothing is
faked here: every file on the file system, RocksDB's info log and write-ahead log included, meets
ENOSPC when the kernel says so. On a full disk `sift append` exits 3 with the error and leaves a store
that opens and replays; `sift serve` settles what it cannot store as `modified` (delivery-failed),
withholds producer credit, keeps serving consumers, and takes appends again at the next dense offset
once the file system has room, without a restart. Each is repeated five times: no abort, ever.

Run with Debian's interpreter (/usr/bin/python3), which has the proton bindings.
"""

import json
import os
import shutil
import subprocess
import tempfile
import time
import unittest

from proton import Message, symbol
from proton.reactor import Container
from proton.utils import BlockingConnection

from serve_durability_test import OutcomePublisher
from serve_interop_test import Server

CLI = os.environ.get("SIFT_CLI", "")
MiB = 1024 * 1024
ROUNDS = 5
STREAM = "full"


def mount_tmpfs(path, size):
    return subprocess.run(["mount", "-t", "tmpfs", "-o", "size=%d,mode=0755" % size, "tmpfs", path],
                          capture_output=True, text=True)


def free_bytes(path):
    st = os.statvfs(path)
    return st.f_bavail * st.f_frsize


class TmpfsTestCase(unittest.TestCase):
    """Each test gets `self.fs`, a fresh tmpfs of `SIZE` bytes, and `self.tmp` beside it for files that
    must not compete for its space (record files, server logs)."""

    SIZE = 48 * MiB

    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="sift-full-disk-")
        self.fs = os.path.join(self.tmp, "fs")
        os.mkdir(self.fs)
        if os.geteuid() != 0:
            shutil.rmtree(self.tmp)
            self.skipTest("mounting a tmpfs needs root")
        r = mount_tmpfs(self.fs, self.SIZE)
        if r.returncode != 0:
            shutil.rmtree(self.tmp)
            self.skipTest("cannot mount a tmpfs here: " + r.stderr.strip())

    def tearDown(self):
        subprocess.run(["umount", "-l", self.fs], check=False)
        shutil.rmtree(self.tmp, ignore_errors=True)

    def grow(self, size):
        """Space returns: the file system grows to `size` bytes, in place."""
        subprocess.run(["mount", "-o", "remount,size=%d" % size, self.fs], check=True)


def sift(*args, stdin=None):
    return subprocess.run([CLI] + list(args), capture_output=True, text=True, stdin=stdin, timeout=300)


class AppendFullDiskTest(TmpfsTestCase):
    @classmethod
    def setUpClass(cls):
        if not CLI:
            raise unittest.SkipTest("SIFT_CLI is not set")

    def count(self, store):
        """The stream's next offset, after checking that every offset from its first one replays (the
        retention each round applies deletes the oldest chunks, so the first one moves)."""
        r = sift("replay", "--store", store, "--stream", "orders", "-f", "count")
        self.assertIn(r.returncode, (0, 1), r.stderr)
        info = sift("stream", "info", "--store", store, "--stream", "orders", "--json")
        self.assertEqual(info.returncode, 0, info.stderr)
        info = json.loads(info.stdout)
        self.assertEqual(int(r.stdout.strip()), info["next_offset"] - info["first_offset"])
        self.assertEqual(info["messages"], info["next_offset"] - info["first_offset"])
        return info["next_offset"]

    def test_append_onto_a_full_file_system_exits_3_and_the_store_replays(self):
        # 60,000 orders (~27 MB): more than the room left in each round.
        records = os.path.join(self.tmp, "orders.rec")
        with open(records, "wb") as f:
            subprocess.run([CLI, "gen", "--count", "60000"], stdout=f, check=True)
        small = os.path.join(self.tmp, "small.rec")
        with open(small, "wb") as f:
            subprocess.run([CLI, "gen", "--count", "1000", "--seed", "7"], stdout=f, check=True)
        store = os.path.join(self.fs, "store")
        r = sift("append", "--store", store, "--stream", "orders", small)
        self.assertEqual(r.returncode, 0, r.stderr)
        stored = 1000
        ballast = os.path.join(self.fs, "ballast")
        for round_ in range(ROUNDS):
            with self.subTest(round=round_):
                # Leave a few MB free, then append more than that: the disk fills during the append.
                with open(ballast, "wb") as f:
                    f.write(b"\0" * max(0, free_bytes(self.fs) - 6 * MiB))
                for args in ([records], ["--no-sync", records], ["--format", "json", "-"]):
                    stdin = None
                    if args == ["--format", "json", "-"]:
                        json_lines = os.path.join(self.tmp, "orders.json")
                        if not os.path.exists(json_lines):
                            with open(json_lines, "w") as f:
                                subprocess.run([CLI, "cat", "-f", "json", records], stdout=f, check=True)
                        stdin = open(json_lines)
                    try:
                        r = sift("append", "--store", store, "--stream", "orders", *args, stdin=stdin)
                    finally:
                        if stdin:
                            stdin.close()
                    self.assertEqual(r.returncode, 3, "append %s: %s" % (args, r.stderr))
                    self.assertIn("No space left on device", r.stderr)
                    self.assertTrue(r.stderr.startswith("sift: "), r.stderr)
                    self.assertNotIn("Assertion", r.stderr)
                    # What it says it stored (FIRST..LAST on stdout, if anything) is there, densely.
                    if r.stdout.strip():
                        first, last = map(int, r.stdout.strip().split(".."))
                        self.assertEqual(first, stored)
                        stored = last + 1
                    self.assertEqual(self.count(store), stored)
                # Space returns: the same store takes the next append at the next offset.
                os.remove(ballast)
                r = sift("append", "--store", store, "--stream", "orders", small)
                self.assertEqual(r.returncode, 0, r.stderr)
                self.assertEqual(r.stdout.strip(), "%d..%d" % (stored, stored + 999))
                stored += 1000
                self.assertEqual(self.count(store), stored)
                # Keep the file system from growing out of reach of the next round's ballast.
                r = sift("stream", "set-retention", "--store", store, "--stream", "orders", "--max-bytes", "4MiB")
                self.assertEqual(r.returncode, 0, r.stderr)
                r = sift("stream", "set-retention", "--store", store, "--stream", "orders", "--max-bytes", "0")
                self.assertEqual(r.returncode, 0, r.stderr)

    def test_opening_a_store_on_a_full_file_system_exits_3(self):
        ballast = os.path.join(self.fs, "ballast")
        with open(ballast, "wb") as f:
            f.write(b"\0" * free_bytes(self.fs))
        store = os.path.join(self.fs, "store")
        small = os.path.join(self.tmp, "small.rec")
        with open(small, "wb") as f:
            subprocess.run([CLI, "gen", "--count", "100"], stdout=f, check=True)
        for _ in range(ROUNDS):
            r = sift("append", "--store", store, "--stream", "orders", small)
            self.assertEqual(r.returncode, 3, r.stderr)
            self.assertIn("No space left on device", r.stderr)
        os.remove(ballast)
        r = sift("append", "--store", store, "--stream", "orders", small)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(self.count(store), 100)


def takes_appends(log):
    """Whether the server's log says its store takes appends now: no refusal, or a recovery after the
    last one."""
    return log.rfind("the store takes appends again") >= log.rfind("the store takes no appends")


def publish(url, messages):
    p = OutcomePublisher(url, STREAM, messages)
    Container(p).run()
    return p


class ServeFullDiskTest(TmpfsTestCase):
    SIZE = 32 * MiB

    def test_serve_fills_the_file_system_then_resumes_without_restart(self):
        # The store is the file system's root, as an operator would mount one; --min-disk-free 0: no
        # threshold warns of the full disk before it comes.
        server = Server(self.fs, "--min-disk-free", "0", "--no-summary")
        size = self.SIZE
        body = "x" * 30000  # large messages fill the file system in few round trips
        stored = 0
        try:
            conn = BlockingConnection(server.url, timeout=60)
            tail = conn.create_receiver(STREAM, name="tail", credit=10)  # read between publishes: a little ahead
            for round_ in range(ROUNDS):
                # Fill: publish until the store refuses. What was accepted is stored at dense offsets.
                refused = None
                for _ in range(200):
                    p = publish(server.url, [Message(body="%d-%d" % (round_, i) + body) for i in range(100)])
                    self.assertIsNone(server.proc.poll(), server.stderr())
                    self.assertEqual(p.rejected, [])  # a full disk is not the message's fault
                    stored += len(p.accepted)
                    if p.modified:
                        refused = p
                        break
                self.assertIsNotNone(refused, "the file system never filled: %s" % server.stderr())
                self.assertTrue(all(failed for _, failed in refused.modified), refused.modified)
                self.assertIn("sift serve: the store takes no appends", server.stderr())
                # The consumer attached throughout reads every accepted message, in order.
                while self.next_offset < stored:
                    m = tail.receive(timeout=30)
                    tail.accept()
                    self.assertEqual(int(m.annotations[symbol("x-stream-offset")]), self.delivered(round_))
                self.assertEqual(self.next_offset, stored, server.stderr())
                # While the store takes no appends a new producer gets no credit (unless the store
                # recovered meanwhile: RocksDB may have freed room of its own, its log files).
                if self.credit_granted(server.url):
                    self.assertTrue(takes_appends(server.stderr()),
                                    "credit granted while the store takes no appends: " + server.stderr())

                # Space returns: the file system grows, and the server takes appends again by itself.
                # Recovery writes out what the write-ahead log holds (RocksDB's memtable) and waits
                # until the file system has room for a whole one (64 MiB by default).
                # The server's state, not a count of its log lines: it may have recovered on its own
                # before the file system grew (and then said so already), or recover and fail again.
                size += 96 * MiB
                self.grow(size)
                deadline = time.monotonic() + 60
                while time.monotonic() < deadline and not takes_appends(server.stderr()):
                    time.sleep(0.2)
                self.assertTrue(takes_appends(server.stderr()), server.stderr() + self.rocksdb_log_errors())
                # Until RocksDB's background work has settled the room may fill again: resend until
                # accepted, as a producer told `modified` would.
                deadline = time.monotonic() + 30
                while True:
                    p = publish(server.url, [Message(body="after-%d" % round_)])
                    self.assertEqual(p.rejected, [])
                    if p.accepted or time.monotonic() > deadline:
                        break
                    time.sleep(0.5)
                self.assertEqual(len(p.accepted), 1, server.stderr() + self.rocksdb_log_errors())
                m = tail.receive(timeout=30)
                tail.accept()
                self.assertEqual(int(m.annotations[symbol("x-stream-offset")]), stored)  # the next dense one
                self.assertEqual(m.body, "after-%d" % round_)
                stored += 1
                self.next_offset = stored
            conn.close()
        finally:
            code = server.stop()
            self.assertNotIn("Assertion", server.stderr())
            self.assertEqual(code, 0, server.stderr())
        # Every offset from 0 to the last is there once, and nothing refused was stored.
        if CLI:
            r = subprocess.run([CLI, "replay", "--store", self.fs, "--stream", STREAM, "-f", "offsets"],
                               capture_output=True, text=True, timeout=120)
            self.assertEqual(r.returncode, 0, r.stderr)
            self.assertEqual([int(o) for o in r.stdout.split()], list(range(stored)))

    next_offset = 0

    def rocksdb_log_errors(self):
        """The store's info log lines about errors and recovery, for a failure message."""
        try:
            with open(os.path.join(self.fs, "LOG"), errors="replace") as f:
                lines = [l for l in f if any(w in l for w in ("rror", "space", "ecover", "esume"))]
        except OSError as e:
            return "\n(no info log: %s)" % e
        return "\ninfo log:\n" + "".join(lines[-40:])

    def delivered(self, round_):
        offset = self.next_offset
        self.next_offset += 1
        return offset

    def credit_granted(self, url):
        """Whether a producer attaching now gets credit within 1.5 s."""
        conn = BlockingConnection(url, timeout=30)
        try:
            sender = conn.create_sender(STREAM)
            deadline = time.monotonic() + 1.5
            while time.monotonic() < deadline:
                if sender.link.credit > 0:
                    return True
                conn.container.process()
                time.sleep(0.05)
            return False
        finally:
            conn.close()


if __name__ == "__main__":
    unittest.main()
