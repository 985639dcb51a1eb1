#!/usr/bin/python3
"""`sift capture --from` and `sift replay --to` against a private RabbitMQ node (rabbitmq.py).

Reduced scale for ctest (SIFT_BROKER_MESSAGES, default 2,000 messages; SIFT_BROKER_KILLS, default 1);
bench/broker/full_scale runs the same tests at full scale. Covered:
  - messages with application properties published by python-qpid-proton to a queue are captured into
    a stream with properties, application properties and body equal; for 10 selectors `sift replay`
    counts what a python-qpid-proton consumer of a second copy of the queue counts by evaluating the
    same condition itself;
  - capture killed with SIGKILL during the capture and restarted: every message is in the stream at
    least once, the queue is empty at the end, duplicates are counted (printed);
  - SIGTERM: the capture stops cleanly, what it stored is gone from the queue and nothing twice;
  - `sift replay --sql ... --to amqp://.../queue/retry`: a consumer receives exactly the matches, in
    order, with properties and body equal;
  - a full queue (x-max-length with reject-publish): exit 2 naming the first offset without an answer,
    and only what the broker accepted reported;
  - a wrong password, a missing exchange (amqp:not-found), a broker selector (--selector).
When rabbitmq-server is not installed or the node cannot start, the test exits 77 (skipped).
"""

import os
import random
import signal
import subprocess
import sys
import tempfile
import time
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import rabbitmq  # noqa: E402
from broker_common import CLI, decode, same_message, sift, stored, wait_for  # noqa: E402

from proton import Message  # noqa: E402
from proton.handlers import MessagingHandler  # noqa: E402
from proton.reactor import Container  # noqa: E402

MESSAGES = int(os.environ.get("SIFT_BROKER_MESSAGES", "2000"))
KILLS = int(os.environ.get("SIFT_BROKER_KILLS", "1"))

REGIONS = ["eu-west", "us-east", "ap-south", "eu-central"]
COLORS = ["red", "green", "blue", "black", "white"]

# Each selector beside the same condition in Python, with SQL's unknown (None) for a missing property:
# a comparison with an unknown side is not true.
SELECTORS = [
    ("region = 'eu-west'", lambda p: p.get("region") == "eu-west"),
    ("amount > 900", lambda p: p.get("amount") is not None and p["amount"] > 900),
    ("color IN ('red', 'blue')", lambda p: p.get("color") in ("red", "blue")),
    ("amount BETWEEN 100 AND 200", lambda p: p.get("amount") is not None and 100 <= p["amount"] <= 200),
    ("customer LIKE 'c-1%'", lambda p: p.get("customer") is not None and p["customer"].startswith("c-1")),
    ("vip = TRUE", lambda p: p.get("vip") is True),
    ("discount IS NULL", lambda p: p.get("discount") is None),
    ("region = 'eu-west' AND amount > 500 OR color = 'black'",
     lambda p: (p.get("region") == "eu-west" and p.get("amount") is not None and p["amount"] > 500)
     or p.get("color") == "black"),
    ("NOT (region LIKE 'eu-%')", lambda p: p.get("region") is not None and not p["region"].startswith("eu-")),
    ("price * 2 >= 150.5 AND tier <> 'gold'",
     lambda p: p.get("price") is not None and p["price"] * 2 >= 150.5 and p.get("tier") is not None
     and p["tier"] != "gold"),
]


def make_message(i, rng):
    props = {
        "region": REGIONS[rng.randrange(len(REGIONS))],
        "color": COLORS[rng.randrange(len(COLORS))],
        "amount": rng.randrange(1000),
        "price": rng.randrange(10000) / 100.0,
        "customer": "c-%d" % rng.randrange(300),
        "vip": rng.random() < 0.1,
        "tier": rng.choice(["gold", "silver", "bronze"]),
        "seq": i,
    }
    if rng.random() < 0.5:
        props["discount"] = rng.randrange(50)
    return Message(id="m-%d" % i, subject="order", content_type="application/json", correlation_id=i,
                   properties=props, body='{"order": %d, "note": "%s"}' % (i, "x" * rng.randrange(200)))


class Publish(MessagingHandler):
    """Sends messages to several addresses, each once, waiting for every acceptance."""

    def __init__(self, url, addresses, messages):
        super().__init__()
        self.url, self.addresses, self.messages = url, addresses, messages
        self.sent = {}
        self.accepted = 0

    def on_start(self, event):
        conn = event.container.connect(self.url, user="guest", password="guest", allowed_mechs="PLAIN")
        for a in self.addresses:
            sender = event.container.create_sender(conn, a)
            self.sent[sender] = 0

    def on_sendable(self, event):
        s = event.sender
        while s.credit and self.sent[s] < len(self.messages):
            s.send(self.messages[self.sent[s]])
            self.sent[s] += 1

    def on_accepted(self, event):
        self.accepted += 1
        if self.accepted == len(self.messages) * len(self.addresses):
            event.connection.close()


class Consume(MessagingHandler):
    """Receives every message of a queue until it has been idle for a second."""

    def __init__(self, url, address, expect=None):
        super().__init__(prefetch=1000)
        self.url, self.address, self.expect = url, address, expect
        self.messages = []

    def on_start(self, event):
        self.conn = event.container.connect(self.url, user="guest", password="guest", allowed_mechs="PLAIN")
        event.container.create_receiver(self.conn, self.address)
        self.timer = event.container.schedule(5, self)
        self.last = len(self.messages)

    def on_message(self, event):
        self.messages.append(event.message)
        if self.expect is not None and len(self.messages) == self.expect:
            self.done(event.container)

    def on_timer_task(self, event):
        if len(self.messages) == self.last and (self.expect is None or len(self.messages) >= self.expect):
            self.done(event.container)
        elif len(self.messages) == self.last and self.expect is not None:
            self.done(event.container)  # nothing more came: the count will tell
        else:
            self.last = len(self.messages)
            self.timer = event.container.schedule(1, self)

    def done(self, container):
        self.timer.cancel()
        self.conn.close()


class RabbitMQTest(unittest.TestCase):

    @classmethod
    def setUpClass(cls):
        cls.node = rabbitmq.RabbitMQ()
        cls.node.start()
        cls.dir = tempfile.mkdtemp(prefix="sift-broker-rabbitmq-")
        cls.password = os.path.join(cls.dir, "guest.pw")
        with open(cls.password, "w") as f:
            f.write("guest\n")
        cls.auth = ["--user", "guest", "--password-file", cls.password]
        rng = random.Random(7)
        cls.messages = [make_message(i, rng) for i in range(MESSAGES)]

    @classmethod
    def tearDownClass(cls):
        cls.node.stop()
        subprocess.run(["rm", "-rf", cls.dir])

    def broker(self):
        return "127.0.0.1:%d" % self.node.port

    def publish(self, *queues):
        Container(Publish(self.broker(), ["/queue/" + q for q in queues], self.messages)).run()

    def consume(self, queue, expect=None):
        handler = Consume(self.broker(), "/queue/" + queue, expect)
        Container(handler).run()
        return handler.messages

    def store(self):
        return tempfile.mkdtemp(dir=self.dir)

    def test_capture_keeps_every_message_and_selectors_agree(self):
        self.publish("orders-a", "orders-b")
        store = self.store()
        start = time.monotonic()
        r = sift("capture", "--store", store, "--stream", "orders", "--from", self.node.url("/queue/orders-a"),
                 "--count", MESSAGES, "--stats", *self.auth)
        print("capture of %d messages: %.2f s; %s" % (MESSAGES, time.monotonic() - start, r.stderr.strip()))
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(r.stdout.strip(), "0..%d" % (MESSAGES - 1))
        got = [decode(m) for m in stored(store, "orders")]
        self.assertEqual(len(got), MESSAGES)
        for want, have in zip(self.messages, got):
            self.assertTrue(same_message(want, have), "%s != %s" % (want, have))
        self.assertTrue(wait_for(lambda: self.node.queue_depth("orders-a") == 0, timeout=20))
        copy = self.consume("orders-b", MESSAGES)
        self.assertEqual(len(copy), MESSAGES)
        for sql, condition in SELECTORS:
            with self.subTest(selector=sql):
                r = sift("replay", "--store", store, "--stream", "orders", "--sql", sql, "-f", "count")
                self.assertIn(r.returncode, (0, 1), r.stderr)
                expected = sum(1 for m in copy if condition(m.properties))
                self.assertEqual(int(r.stdout), expected)
                print("selector %-55s sift %6d  python %6d" % (sql, int(r.stdout), expected))

    def test_capture_survives_kill(self):
        self.publish("killed")
        store = self.store()
        args = [CLI, "capture", "--store", store, "--stream", "orders", "--from", self.node.url("/queue/killed"),
                "--idle-exit", "2s", "--stats"] + self.auth
        rng = random.Random(11)
        for k in range(KILLS):
            proc = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
            # Killed after a random share of what is left has been stored.
            before = self.stored_count(store)
            target = before + max(1, int((MESSAGES - before) * rng.uniform(0.2, 0.6) / max(1, KILLS - k)))
            wait_for(lambda: self.stored_count(store) >= target or proc.poll() is not None, timeout=120, step=0.01)
            proc.send_signal(signal.SIGKILL)
            proc.communicate()
        r = subprocess.run(args, capture_output=True, text=True, timeout=600)
        self.assertEqual(r.returncode, 0, r.stderr)
        ids = [decode(m).id for m in stored(store, "orders")]
        missing = {m.id for m in self.messages} - set(ids)
        self.assertEqual(missing, set())
        duplicates = len(ids) - len(set(ids))
        print("kill test: %d messages, %d SIGKILLs, %d stored, %d duplicates" % (MESSAGES, KILLS, len(ids),
                                                                               duplicates))
        self.assertTrue(wait_for(lambda: self.node.queue_depth("killed") == 0, timeout=20))

    def stored_count(self, store):
        r = sift("stats", "--store", store, "--stream", "orders", "--json")
        if r.returncode != 0:
            return 0
        import json
        try:
            data = json.loads(r.stdout)
        except ValueError:
            return 0
        rows = data if isinstance(data, list) else data.get("streams", [data])
        return sum(int(row.get("messages", 0)) for row in rows)

    def test_capture_sigterm(self):
        self.publish("termed")
        store = self.store()
        proc = subprocess.Popen([CLI, "capture", "--store", store, "--stream", "orders", "--from",
                                 self.node.url("/queue/termed"), "--credit", "50", "--stats"] + self.auth,
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        wait_for(lambda: self.stored_count(store) >= MESSAGES // 4 or proc.poll() is not None, timeout=60, step=0.01)
        proc.send_signal(signal.SIGTERM)
        out, err = proc.communicate(timeout=60)
        self.assertEqual(proc.returncode, 0, err)
        ids = [decode(m).id for m in stored(store, "orders")]
        self.assertEqual(len(ids), len(set(ids)))  # nothing stored twice
        self.assertTrue(wait_for(lambda: self.node.queue_depth("termed") == MESSAGES - len(ids), timeout=20),
                        "queue holds %s, stored %d" % (self.node.queue_depth("termed"), len(ids)))
        rest = self.consume("termed", MESSAGES - len(ids))
        self.assertEqual(sorted(ids + [m.id for m in rest]), sorted(m.id for m in self.messages))

    def test_replay_to_queue_delivers_the_matches_in_order(self):
        self.publish("source")
        store = self.store()
        r = sift("capture", "--store", store, "--stream", "orders", "--from", self.node.url("/queue/source"),
                 "--count", MESSAGES, *self.auth)
        self.assertEqual(r.returncode, 0, r.stderr)
        sql = "region = 'eu-west' AND amount > 300"
        expected = stored(store, "orders", "--sql", sql)
        start = time.monotonic()
        r = sift("replay", "--store", store, "--stream", "orders", "--sql", sql, "--to",
                 self.node.url("/queue/retry"), "-f", "count", "--stats", *self.auth)
        print("replay --to of %d matches: %.2f s; %s" % (len(expected), time.monotonic() - start, r.stderr.strip()))
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(int(r.stdout), len(expected))
        got = self.consume("retry", len(expected))
        self.assertEqual(len(got), len(expected))
        for want, have in zip(expected, got):
            self.assertTrue(same_message(decode(want), have))

    def test_full_queue_stops_with_the_offset(self):
        code, out = self.node.ctl("set_policy", "limited", "^limited$",
                                  '{"max-length": 5, "overflow": "reject-publish"}', "--apply-to", "queues")
        self.assertEqual(code, 0, out)
        self.publish("fill")
        store = self.store()
        r = sift("capture", "--store", store, "--stream", "orders", "--from", self.node.url("/queue/fill"),
                 "--count", 50, *self.auth)
        self.assertEqual(r.returncode, 0, r.stderr)
        r = sift("replay", "--store", store, "--stream", "orders", "--to", self.node.url("/queue/limited"),
                 *self.auth)
        # RabbitMQ 3.10 ends the connection rather than refusing the sixth message: the run stops there,
        # naming the first message without an answer, and reports only the five accepted.
        self.assertEqual(r.returncode, 2, r.stderr)
        self.assertEqual(r.stdout.split(), ["0", "1", "2", "3", "4"])
        self.assertRegex(r.stderr, r"^sift: replay --to: amqp://127\.0\.0\.1:\d+/queue/limited: .*\(at offset 5: ")

    def test_errors(self):
        store = self.store()
        r = sift("append", "--store", store, "--stream", "orders", input="")
        wrong = os.path.join(self.dir, "wrong.pw")
        with open(wrong, "w") as f:
            f.write("nope\n")
        r = sift("replay", "--store", store, "--stream", "orders", "--to", self.node.url("/queue/x"), "--user",
                 "guest", "--password-file", wrong)
        self.assertEqual(r.returncode, 2)
        self.assertIn("the broker refused the login (amqp:unauthorized-access", r.stderr)
        r = sift("capture", "--store", store, "--stream", "c", "--from", self.node.url("/exchange/missing/key"),
                 *self.auth)
        self.assertEqual(r.returncode, 2)
        self.assertIn("amqp:not-found", r.stderr)
        r = sift("replay", "--store", store, "--stream", "orders", "--to", self.node.url("/exchange/missing/key"),
                 *self.auth)
        self.assertEqual(r.returncode, 2)
        self.assertIn("amqp:not-found: NOT_FOUND - no exchange 'missing'", r.stderr)

    def test_broker_selector(self):
        self.publish("selected")
        store = self.store()
        r = sift("capture", "--store", store, "--stream", "eu", "--from", self.node.url("/queue/selected"),
                 "--selector", "region = 'eu-west'", "--idle-exit", "1s", "--stats", *self.auth)
        self.assertEqual(r.returncode, 0, r.stderr)
        got = [decode(m) for m in stored(store, "eu")]
        # RabbitMQ 3.10 takes the filter; whether it applies it is the broker's affair: what was stored is
        # what it delivered, every message once.
        self.assertGreater(len(got), 0)
        self.assertEqual(len({m.id for m in got}), len(got))


def main():
    why = rabbitmq.RabbitMQ.unavailable()
    if why:
        print("SKIPPED: %s" % why)
        sys.exit(rabbitmq.SKIP_CODE)
    try:
        unittest.main()
    except rabbitmq.Unavailable as e:  # raised in setUpClass: unittest reports it as an error
        print("SKIPPED: %s" % e)
        sys.exit(rabbitmq.SKIP_CODE)


if __name__ == "__main__":
    main()
