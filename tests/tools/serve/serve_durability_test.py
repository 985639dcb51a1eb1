#!/usr/bin/python3
"""A full disk under `sift serve`, with python3-qpid-proton as the client.

The server runs with an LD_PRELOAD library (SIFT_ENOSPC_PRELOAD, tests/support/enospc_preload.c)
that makes every write and sync of the store's files fail with ENOSPC while a flag file exists, so
the disk fills up and frees again without privileges. While the disk is full, producers get
`modified` with delivery-failed (never `rejected`, never `accepted`) and consumers go on reading what
was stored; once space returns, publishing resumes without a restart, at the next dense offset, and
no message refused meanwhile is ever delivered. A failure RocksDB cannot resume from in place (a log
write that fails into an empty memtable) is recovered by the server reopening the store once the
file system has room (the library then also reports no free space while the disk is full).

Run with Debian's interpreter (/usr/bin/python3), which has the proton bindings.
"""

import os
import time
import unittest

from proton import Message, symbol
from proton.utils import BlockingConnection

from serve_interop_test import Publisher, ServeTestCase, Server, read_stream
from proton.reactor import Container

PRELOAD = os.environ.get("SIFT_ENOSPC_PRELOAD", "")
STREAM = "full"


class OutcomePublisher(Publisher):
    """Publisher that also records `modified` outcomes (index, delivery-failed)."""

    def __init__(self, url, address, messages):
        super().__init__(url, address, messages)
        self.modified = []

    def settled_all(self):
        return len(self.accepted) + len(self.rejected) + len(self.modified) == len(self.messages)

    def on_accepted(self, event):
        self.accepted.append(self.tags.pop(event.delivery))
        if self.settled_all():
            event.connection.close()

    def on_rejected(self, event):
        self.rejected.append(self.tags.pop(event.delivery))
        if self.settled_all():
            event.connection.close()

    def on_released(self, event):
        d = event.delivery
        self.modified.append((self.tags.pop(d), d.remote_state == d.MODIFIED and d.remote.failed))
        if self.settled_all():
            event.connection.close()


def publish(url, messages):
    p = OutcomePublisher(url, STREAM, messages)
    Container(p).run()
    return p


def read_all(url, expected, timeout=30):
    """(offset, body) of every message of the stream from the first, waiting for `expected` of them,
    then 1 s more for any further one (there must be none)."""
    return read_stream(url, STREAM, expected=expected, silence=1.0, timeout=timeout)


class FullDiskTest(ServeTestCase):
    @classmethod
    def setUpClass(cls):
        if not PRELOAD or not os.access(PRELOAD, os.R_OK):
            raise unittest.SkipTest("SIFT_ENOSPC_PRELOAD is not set to the ENOSPC library")
        super().setUpClass()

    def start_server(self, store, flag, *args, statvfs=False):
        """A server whose store's writes fail while `flag` exists (and its free space reads 0 then,
        with `statvfs`)."""
        saved = dict(os.environ)
        # Under AddressSanitizer (the asan preset) a preloaded library comes before ASan's runtime,
        # which ASan refuses unless told that this order is meant.
        asan = os.environ.get("ASAN_OPTIONS", "")
        os.environ.update({"LD_PRELOAD": PRELOAD, "SIFT_ENOSPC_DIR": os.path.realpath(store),
                           "SIFT_ENOSPC_FLAG": flag,
                           "ASAN_OPTIONS": (asan + ":" if asan else "") + "verify_asan_link_order=0"})
        if statvfs:
            os.environ["SIFT_ENOSPC_STATVFS"] = "1"
        try:
            return Server(store, *args)
        finally:
            os.environ.clear()
            os.environ.update(saved)

    def test_full_disk_gives_modified_and_publishing_resumes_without_restart(self):
        store = os.path.join(self.tmp, "store")
        flag = os.path.join(self.tmp, "disk-full")
        server = self.start_server(store, flag)
        try:
            before = publish(server.url, [Message(body="before-%d" % i) for i in range(200)])
            self.assertEqual(len(before.accepted), 200, server.stderr())

            # A consumer attached before the disk fills keeps its place and reads on afterwards.
            conn = BlockingConnection(server.url, timeout=60)
            tail = conn.create_receiver(STREAM, name="tail", credit=500)
            for i in range(200):
                m = tail.receive(timeout=30)
                tail.accept()
                self.assertEqual(m.body, "before-%d" % i)

            open(flag, "w").close()  # the disk is full
            during = publish(server.url, [Message(body="during-%d" % i) for i in range(50)])
            self.assertEqual(during.accepted, [])
            self.assertEqual(during.rejected, [])  # a full disk is not the message's fault
            self.assertEqual(len(during.modified), 50)
            self.assertTrue(all(failed for _, failed in during.modified), during.modified)
            self.assertIn("sift serve: the store takes no appends", server.stderr())
            # Readers go on reading what is stored.
            stored = read_all(server.url, 200)
            self.assertEqual([o for o, _ in stored], list(range(200)))

            os.remove(flag)  # space returns: resend until accepted, without restarting the server
            pending = list(range(50))
            deadline = time.monotonic() + 60
            while pending and time.monotonic() < deadline:
                p = publish(server.url, [Message(body="after-%d" % i) for i in pending])
                self.assertEqual(p.rejected, [])
                pending = [pending[i] for i, _ in p.modified]
                if pending:
                    time.sleep(0.5)
            self.assertEqual(pending, [], server.stderr())
            self.assertIn("sift serve: the store takes appends again", server.stderr())

            # The consumer attached throughout sees the resumed messages next, at the next offsets.
            resumed = []
            for _ in range(50):
                m = tail.receive(timeout=30)
                tail.accept()
                resumed.append((int(m.annotations[symbol("x-stream-offset")]), m.body))
            conn.close()
            self.assertEqual([o for o, _ in resumed], list(range(200, 250)))
            self.assertEqual(sorted(b for _, b in resumed), sorted("after-%d" % i for i in range(50)))

            stored = read_all(server.url, 250)
            self.assertEqual([o for o, _ in stored], list(range(250)))  # dense, nothing of the full disk
            self.assertFalse([b for _, b in stored if b.startswith("during-")])
        finally:
            if os.path.exists(flag):
                os.remove(flag)
            self.assertEqual(server.stop(), 0, server.stderr())

    def test_a_failure_only_a_reopen_recovers_from_is_reopened_once_there_is_room(self):
        # The first write after the store is opened goes into an empty memtable. When it fails, RocksDB
        # keeps the failed log and cannot replace it in place: the server reopens the store itself once
        # the file system has room, closing every connection for it, and clients reconnect.
        store = os.path.join(self.tmp, "reopened")
        flag = os.path.join(self.tmp, "reopened-disk-full")
        # Free space reads 0 while the disk is full, and no disk alarm withholds credit before the
        # write fails.
        server = self.start_server(store, flag, "--min-disk-free", "0", statvfs=True)
        before = publish(server.url, [Message(body="before-%d" % i) for i in range(20)])
        self.assertEqual(len(before.accepted), 20, server.stderr())
        self.assertEqual(server.stop(), 0, server.stderr())
        server = self.start_server(store, flag, "--min-disk-free", "0", statvfs=True)
        try:
            open(flag, "w").close()  # the disk is full
            during = publish(server.url, [Message(body="during-%d" % i) for i in range(5)])
            self.assertEqual(during.accepted, [])
            self.assertEqual(len(during.modified), 5)
            self.assertIn("sift serve: the store takes no appends", server.stderr())
            self.assertIn("until it is reopened", server.stderr())
            self.assertEqual([o for o, _ in read_all(server.url, 20)], list(range(20)))  # readers go on

            os.remove(flag)  # space returns: the server reopens the store by itself, on the same port
            deadline = time.monotonic() + 30
            while time.monotonic() < deadline and "the store takes appends again" not in server.stderr():
                time.sleep(0.1)
            self.assertIn("sift serve: reopening the store", server.stderr())
            self.assertIn("sift serve: the store takes appends again (reopened)", server.stderr())
            pending = list(range(5))
            while pending and time.monotonic() < deadline:  # until the new listener is up
                p = publish(server.url, [Message(body="after-%d" % i) for i in pending])
                self.assertEqual(p.rejected, [])
                pending = [m for k, m in enumerate(pending) if k not in p.accepted]
                if pending:
                    time.sleep(0.2)
            self.assertEqual(pending, [], server.stderr())
            stored = read_all(server.url, 25)
            self.assertEqual([o for o, _ in stored], list(range(25)), server.stderr())
            self.assertEqual(sorted(b for _, b in stored[20:]), ["after-%d" % i for i in range(5)])
        finally:
            if os.path.exists(flag):
                os.remove(flag)
            self.assertEqual(server.stop(), 0, server.stderr())


if __name__ == "__main__":
    unittest.main()
