#!/usr/bin/python3
"""A real full file system under `sift append` and `sift serve`: a small tmpfs the test mounts and
unmounts itself (root only; the test reports itself skipped where it cannot mount one).

Unlike tools_serve_durability, whose preload library fails the store's writes by name, nothing is
faked here: every file on the file system, RocksDB's info log and write-ahead log included, meets
ENOSPC when the kernel says so. On a full disk `sift append` exits 3 with the error and leaves a store
that opens and replays; `sift serve` settles what it cannot store as `modified` (delivery-failed),
withholds producer credit, keeps serving consumers, and takes appends again at the next dense offset
once the file system has room, without a restart (a failure RocksDB cannot resume from in place is
recovered by reopening the store, every connection closed for it; see docs/serve.md). Each is
repeated five times: no abort, ever.

Run with Debian's interpreter (/usr/bin/python3), which has the proton bindings.
"""

import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
import unittest

from proton import ConnectionException, Message, symbol, ulong
from proton.reactor import Container
from proton.utils import BlockingConnection

from serve_durability_test import OutcomePublisher
from serve_interop_test import Server, filter_option, offset_spec

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


def reopens(log):
    """How many times the server reopened its store after a failure RocksDB cannot resume from in place
    (docs/serve.md, "Durability"), closing every connection for it."""
    return log.count("sift serve: reopening the store")


def takes_appends(log):
    """Whether the server's log says its store takes appends now: no refusal, or a recovery after the
    last one."""
    return log.rfind("the store takes appends again") >= log.rfind("the store takes no appends")


class BoundedPublisher(OutcomePublisher):
    """An OutcomePublisher that gives up once the server has granted no credit for `patience` seconds
    with everything it sent settled: the server withholds credit while the store takes no appends, and
    a refusal may come that way instead of as `modified` (when the store failed between two publishes).
    `starved` says so; `stuck` says that sent messages went unsettled that long (a server fault)."""

    TICK = 0.25

    def __init__(self, url, address, messages, patience):
        super().__init__(url, address, messages)
        self.patience = patience
        self.starved = self.stuck = False
        self.last_progress = time.monotonic()
        self.progress = 0

    def on_start(self, event):
        super().on_start(event)
        event.container.schedule(self.TICK, self)

    def on_timer_task(self, event):
        if self.settled_all() or self.error is not None:
            return
        settled = len(self.accepted) + len(self.rejected) + len(self.modified)
        progress = self.next + settled
        if progress != self.progress:
            self.progress, self.last_progress = progress, time.monotonic()
        elif time.monotonic() - self.last_progress > self.patience:
            if settled == self.next:  # all that was sent is settled, and no credit came for the rest
                self.starved = True
            else:
                self.stuck = True
            self.conn.close()
            return
        event.container.schedule(self.TICK, self)


def publish(url, messages, patience=10):
    """A BoundedPublisher's run; `error` holds why its connection failed, if it did (a server that
    reopens its store closes every connection, and listens again once it is reopened)."""
    p = BoundedPublisher(url, STREAM, messages, patience)
    Container(p).run()
    if p.stuck:
        raise AssertionError("sent messages unsettled for %d s" % patience)
    return p


class ServeFullDiskTest(TmpfsTestCase):
    SIZE = 32 * MiB
    # The store is the file system's root, as an operator would mount one; --min-disk-free 0: no
    # threshold warns of the full disk before it comes.
    SERVER_ARGS = ("--min-disk-free", "0", "--no-summary")

    def test_serve_fills_the_file_system_then_resumes_without_restart(self):
        self.server = Server(self.fs, *self.SERVER_ARGS)
        size = self.SIZE
        body = "x" * 30000  # large messages fill the file system in few round trips
        stored = 0  # the stream's dense end, as the test knows it
        try:
            self.attach_tail()
            for round_ in range(ROUNDS):
                reopens_before = self.reopens
                # Fill: publish until the store refuses, by `modified` or, when it failed between two
                # publishes, by withholding credit. What was accepted is stored at dense offsets.
                refused = None
                for _ in range(200):
                    p = publish(self.server.url, [Message(body="%d-%d" % (round_, i) + body) for i in range(100)])
                    self.assertIsNone(self.server.proc.poll(), self.server.stderr())
                    self.assertEqual(p.rejected, [])  # a full disk is not the message's fault
                    if p.error is not None:
                        self.assertGreater(reopens(self.server.stderr()), self.reopens, p.error)
                    stored += len(p.accepted)
                    if p.modified or p.starved or p.error is not None:
                        refused = p
                        break
                self.assertIsNotNone(refused, "the file system never filled: %s" % self.server.stderr())
                self.assertTrue(all(failed for _, failed in refused.modified), refused.modified)
                self.assertIn("sift serve: the store takes no appends", self.server.stderr())
                # The consumer attached throughout reads every accepted message, in order.
                while self.next_offset < stored:
                    m = self.receive_tail()
                    self.assertEqual(int(m.annotations[symbol("x-stream-offset")]), self.next_offset)
                    self.next_offset += 1
                # While the store takes no appends a new producer gets no credit (unless the store
                # recovered meanwhile: RocksDB may have freed room of its own, its log files).
                if self.credit_granted(self.server.url):
                    self.assertTrue(takes_appends(self.server.stderr()),
                                    "credit granted while the store takes no appends: " + self.server.stderr())

                # Space returns: the file system grows, and the server takes appends again by itself.
                # Recovery writes out what the write-ahead log holds (RocksDB's memtable) and waits
                # until the file system has room for a whole one (64 MiB by default).
                # The server's state, not a count of its log lines: it may have recovered on its own
                # before the file system grew (and then said so already), or recover and fail again.
                size += 96 * MiB
                self.grow(size)
                self.await_recovery()
                # Until RocksDB's background work has settled the room may fill again: resend until
                # accepted, as a producer told `modified` would.
                deadline = time.monotonic() + 30
                for attempt in range(1_000_000):
                    after = "after-%d-%d" % (round_, attempt)
                    p = publish(self.server.url, [Message(body=after)])
                    self.assertEqual(p.rejected, [])
                    if p.error is not None:  # not listening yet, after a reopen
                        self.assertGreater(reopens(self.server.stderr()), reopens_before, p.error)
                    if p.accepted or time.monotonic() > deadline:
                        break
                    time.sleep(0.5)
                    self.await_recovery()
                self.assertEqual(len(p.accepted), 1, self.server.stderr() + self.rocksdb_log_errors())
                # It is stored at the next dense offset. After a reopen the store holds what its files
                # hold: a message refused with `modified` may be found stored before it (at-least-once,
                # as docs/serve.md says), and takes an offset of its own.
                while True:
                    m = self.receive_tail()
                    self.assertEqual(int(m.annotations[symbol("x-stream-offset")]), stored)
                    stored += 1
                    if m.body == after:
                        break
                    refused_here = m.body.startswith(("%d-" % round_, "after-%d-" % round_))
                    self.assertTrue(self.reopens > reopens_before and refused_here,
                                    "an unexpected message before the resent one: %r" % m.body[:40])
                self.next_offset = stored
            self.conn.close()
        finally:
            code = self.server.stop()
            self.assertNotIn("Assertion", self.server.stderr())
            self.assertEqual(code, 0, self.server.stderr())
        # Every offset from 0 to the last is there once, and nothing refused was stored (but what a
        # reopen recovered, counted above).
        if CLI:
            r = subprocess.run([CLI, "replay", "--store", self.fs, "--stream", STREAM, "-f", "offsets"],
                               capture_output=True, text=True, timeout=120)
            self.assertEqual(r.returncode, 0, r.stderr)
            self.assertEqual([int(o) for o in r.stdout.split()], list(range(stored)))
        if self.reopens:
            print("\nthe store was reopened %d time(s) in five refusals" % self.reopens, file=sys.stderr)

    next_offset = 0
    reopens = 0  # as the test has seen them (and reattached its consumer after)

    def attach_tail(self):
        """A consumer from the next offset the test expects, read between publishes (a little ahead).
        Tried for up to 30 s: after a reopen the server listens again once the store is open."""
        deadline = time.monotonic() + 30
        while True:
            try:
                self.conn = BlockingConnection(self.server.url, timeout=60)
                self.tail = self.conn.create_receiver(STREAM, name="tail", credit=10,
                                                      options=filter_option(offset_spec(ulong(self.next_offset))))
                return
            except ConnectionException:
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.2)

    def receive_tail(self):
        """The tail's next message, accepted; its connection is made again after a reopen closed it."""
        try:
            m = self.tail.receive(timeout=30)
        except ConnectionException:
            self.assertGreater(reopens(self.server.stderr()), self.reopens, "the consumer's connection closed")
            self.reattach_after_reopen()
            m = self.tail.receive(timeout=30)
        self.tail.accept()
        return m

    def reattach_after_reopen(self):
        self.reopens = reopens(self.server.stderr())
        try:
            self.conn.close()
        except ConnectionException:
            pass
        self.attach_tail()

    def await_recovery(self):
        """Waits up to 60 s for the server to take appends again: in place, or by reopening the store
        (then the consumer attaches again)."""
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and not takes_appends(self.server.stderr()):
            time.sleep(0.2)
        self.assertTrue(takes_appends(self.server.stderr()), self.server.stderr() + self.rocksdb_log_errors())
        if reopens(self.server.stderr()) > self.reopens:
            self.reattach_after_reopen()

    def rocksdb_log_errors(self):
        """The store's info log lines about errors and recovery, for a failure message."""
        try:
            with open(os.path.join(self.fs, "LOG"), errors="replace") as f:
                lines = [l for l in f if any(w in l for w in ("rror", "space", "ecover", "esume"))]
        except OSError as e:
            return "\n(no info log: %s)" % e
        return "\ninfo log:\n" + "".join(lines[-40:])

    def credit_granted(self, url):
        """Whether a producer attaching now gets credit within 1.5 s."""
        try:
            conn = BlockingConnection(url, timeout=30)
        except ConnectionException:  # reopening its store: it takes appends once it listens again
            self.assertGreater(reopens(self.server.stderr()), self.reopens)
            return False
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
