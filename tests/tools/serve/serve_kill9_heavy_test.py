#!/usr/bin/python3
"""kill -9 of `sift serve` while several producers publish and consumers tail, round after round.

Each round starts the server on the same store, runs 3 producers (pipelined, unique bodies) and 2
consumers tailing from the round's first offset, and kills the server with SIGKILL at a random
moment. After the restart the round's new offsets are read back: they are dense, every message a
producer saw `accepted` is there, no body is stored twice, and every offset a consumer saw before the
kill holds the very message it saw (a consumer never sees a message that is not durable, so no offset
it saw is given to another message). A last read of the whole stream checks every offset any consumer
saw in any round. Labelled heavy (ctest tools_serve_kill9_heavy): about 2 minutes on 2 cores.

Run with Debian's interpreter (/usr/bin/python3), which has the proton bindings.
"""

import os
import random
import threading
import time
import unittest

from proton import Message, Timeout, symbol, ulong
from proton.reactor import Container
from proton.utils import BlockingConnection

from serve_interop_test import Publisher, Server, ServeTestCase, filter_option, offset_spec, read_stream

STREAM = "crash"
ROUNDS = int(os.environ.get("SIFT_KILL9_ROUNDS", "50"))
PRODUCERS = 3
CONSUMERS = 2
PER_PRODUCER = 400  # more than a round publishes before the kill


class Tail(threading.Thread):
    """A consumer tailing from `start` until the connection dies: records (offset, body) it saw."""

    def __init__(self, url, start, name):
        super().__init__(daemon=True)
        self.url, self.start_offset, self.name_ = url, start, name
        self.seen = []
        self.ready = threading.Event()

    def run(self):
        try:
            conn = BlockingConnection(self.url, timeout=10)
            rcv = conn.create_receiver(STREAM, name=self.name_, credit=200,
                                       options=filter_option(offset_spec(ulong(self.start_offset))))
            self.ready.set()
            deadline = time.monotonic() + 30
            while time.monotonic() < deadline:
                m = rcv.receive(timeout=10)
                rcv.accept()
                self.seen.append((int(m.annotations[symbol("x-stream-offset")]), m.body))
        except Exception:  # the server was killed: the connection is gone
            pass
        finally:
            self.ready.set()


class Produce(threading.Thread):
    def __init__(self, url, bodies):
        super().__init__(daemon=True)
        self.publisher = Publisher(url, STREAM, [Message(body=b) for b in bodies])

    def run(self):
        try:
            Container(self.publisher).run()
        except Exception:
            pass


def read_range(url, start, silence=0.7):
    """(offset, body) from `start` to the end of the stream (the end: `silence` s without a message)."""
    return read_stream(url, STREAM, start=start, silence=silence)


class Kill9RoundsTest(ServeTestCase):
    def test_kill_9_rounds_keep_offsets_dense_and_what_consumers_saw(self):
        store = os.path.join(self.tmp, "store")
        rng = random.Random(9)
        server = Server(store)
        seed = Produce(server.url, ["seed"])
        seed.run()
        self.assertEqual(seed.publisher.accepted, [0])
        self.assertEqual(server.stop(), 0)

        end = 1  # offsets [0, end) are checked
        bodies_by_offset = {0: "seed"}
        seen_by_consumers = {}
        started = time.monotonic()
        for r in range(ROUNDS):
            server = Server(store)
            tails = [Tail(server.url, end, "tail-%d-%d" % (r, k)) for k in range(CONSUMERS)]
            for t in tails:
                t.start()
            for t in tails:
                t.ready.wait(10)
            producers = [Produce(server.url, ["r%d-p%d-%d" % (r, k, i) for i in range(PER_PRODUCER)])
                         for k in range(PRODUCERS)]
            for p in producers:
                p.start()
            time.sleep(rng.uniform(0.15, 0.6))
            server.kill()
            for t in producers + tails:
                t.join(30)
                self.assertFalse(t.is_alive(), "round %d: a client did not notice the kill" % r)

            server = Server(store)
            try:
                stored = read_range(server.url, end)
            finally:
                server.kill()  # a kill while only reading: the next round's start recovers from it too
            offsets = [o for o, _ in stored]
            self.assertEqual(offsets, list(range(end, end + len(stored))), "round %d: offsets not dense" % r)
            stored_bodies = [b for _, b in stored]
            self.assertEqual(len(set(stored_bodies)), len(stored_bodies), "round %d: a body stored twice" % r)
            present = set(stored_bodies)
            for k, p in enumerate(producers):
                lost = [i for i in p.publisher.accepted if "r%d-p%d-%d" % (r, k, i) not in present]
                self.assertEqual(lost, [], "round %d producer %d: accepted but lost" % (r, k))
            bodies_by_offset.update(stored)
            for t in tails:
                for offset, body in t.seen:
                    self.assertEqual(bodies_by_offset.get(offset), body,
                                     "round %d: offset %d was seen holding another message" % (r, offset))
                    seen_by_consumers[offset] = body
            end += len(stored)

        # Every offset any consumer saw, in any round, still holds what it saw.
        server = Server(store)
        try:
            everything = dict(read_range(server.url, 0, silence=2))
        finally:
            self.assertEqual(server.stop(), 0)
        self.assertEqual(sorted(everything), list(range(end)))
        changed = [o for o, b in seen_by_consumers.items() if everything.get(o) != b]
        self.assertEqual(changed, [])
        self.assertGreater(len(seen_by_consumers), 0)
        print("%d rounds, %d messages, %d offsets seen by consumers, %.0f s" %
              (ROUNDS, end, len(seen_by_consumers), time.monotonic() - started))


if __name__ == "__main__":
    unittest.main()
