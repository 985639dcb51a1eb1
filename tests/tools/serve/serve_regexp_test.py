#!/usr/bin/python3
"""REGEXP_LIKE from AMQP clients (python3-qpid-proton) against `sift serve`.

What each test shows:
- a client whose SQL filter holds a pattern re2 refuses, or one that needs more than the program and
  memory limits (a pathological counted repetition), has its link refused with amqp:invalid-field and
  a description that says which filter, the byte of the pattern and why; a JMS selector cannot use
  REGEXP_LIKE;
- an accepted pattern delivers exactly the messages it matches;
- patterns that would stall a backtracking matcher (nested quantifiers over 64 KB texts that never
  match) cost time linear in the text: two consumers running them scan the whole stream within a few
  seconds, and meanwhile a consumer of another stream gets its first message within 1 s.

Run with Debian's interpreter (/usr/bin/python3).
"""

import os
import shutil
import sys
import tempfile
import time
import unittest

from proton import Described, Message, symbol
from proton.reactor import Filter
from proton.utils import BlockingConnection, LinkDetached

from serve_interop_test import Server, filter_option, jms, publish, sql

SANITIZED = os.environ.get("SIFT_SANITIZED", "0") == "1"
SLOWDOWN = 5.0 if SANITIZED else 1.0


class RegexpTest(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.mkdtemp(prefix="sift-regexp-")
        self.server = Server(os.path.join(self.dir, "store"))

    def tearDown(self):
        self.server.kill()
        shutil.rmtree(self.dir, ignore_errors=True)

    def refused(self, conn, entry):
        self.links = getattr(self, "links", 0) + 1
        with self.assertRaises(LinkDetached) as ctx:
            conn.create_receiver("s", name="refused-%d" % self.links, options=filter_option(entry))
        return ctx.exception.link.remote_condition

    def test_bad_and_pathological_patterns_are_refused_with_the_position(self):
        conn = BlockingConnection(self.server.url, timeout=30)
        try:
            # 'color' then ", '": the pattern's quote is byte 19, its 'a' byte 20.
            c = self.refused(conn, sql("REGEXP_LIKE(color, 'a{1000}b{1000}')"))
            self.assertEqual(c.name, "amqp:invalid-field")
            self.assertIn("sql-filter", c.description)
            self.assertIn("regexp-too-large", c.description)
            self.assertIn("byte 20", c.description)
            print("refused: %s" % c.description, file=sys.stderr)
            c = self.refused(conn, sql("REGEXP_LIKE(color, '\\pL{1000}')"))
            self.assertEqual(c.name, "amqp:invalid-field")
            self.assertIn("regexp-too-large", c.description)
            c = self.refused(conn, sql("REGEXP_LIKE(color, 'red(dish')"))
            self.assertEqual(c.name, "amqp:invalid-field")
            self.assertIn("invalid-regexp", c.description)
            self.assertIn("byte 23", c.description)  # the unclosed '('
            c = self.refused(conn, sql("REGEXP_LIKE(color, '(a)\\1')"))
            self.assertEqual(c.name, "amqp:invalid-field")
            self.assertIn("byte 23", c.description)  # a backreference: not RE2
            c = self.refused(conn, sql("REGEXP_LIKE(color, 'red', 'q')"))
            self.assertEqual(c.name, "amqp:invalid-field")
            self.assertIn("byte 27", c.description)
            c = self.refused(conn, jms("REGEXP_LIKE(color, 'red')"))
            self.assertEqual(c.name, "amqp:invalid-field")
            self.assertIn("jms-selector", c.description)
            # The connection is still good: a valid pattern attaches on it.
            conn.create_receiver("s", name="accepted", options=filter_option(sql("REGEXP_LIKE(color, '^re')")))
        finally:
            conn.close()

    def test_an_accepted_pattern_delivers_what_it_matches(self):
        colors = ["red", "Red", "green", "reddish", "bored", "orange"]
        publish(self.server.url, "colors", [Message(body=i, properties={"color": c}) for i, c in enumerate(colors)])
        publish(self.server.url, "colors", [Message(body=99, properties={"color": 7})])
        conn = BlockingConnection(self.server.url, timeout=30)
        try:
            got = {}
            for expr in ["REGEXP_LIKE(color, '^red')", "REGEXP_LIKE(color, '^red$', 'i')",
                         "REGEXP_LIKE(color, 're(d|en)$')", "NOT REGEXP_LIKE(color, 'e')"]:
                receiver = conn.create_receiver("colors", name=expr, credit=20, options=filter_option(sql(expr)))
                bodies = []
                while True:
                    try:
                        bodies.append(receiver.receive(timeout=1).body)
                    except Exception:
                        break
                receiver.close()
                got[expr] = bodies
            self.assertEqual(got["REGEXP_LIKE(color, '^red')"], [0, 3])
            self.assertEqual(got["REGEXP_LIKE(color, '^red$', 'i')"], [0, 1])
            self.assertEqual(got["REGEXP_LIKE(color, 're(d|en)$')"], [0, 2, 4])
            self.assertEqual(got["NOT REGEXP_LIKE(color, 'e')"], [])  # 'orange' has an e; 7 is UNKNOWN
        finally:
            conn.close()

    def test_costly_patterns_are_linear_and_do_not_starve_others(self):
        # 600 messages of 64 KB of 'a' that no pattern below matches, then one that ends in 'b'. A
        # backtracking matcher spends exponential time on each; re2 a pass over the text.
        count = 600
        text = "a" * 65535
        publish(self.server.url, "costly", [Message(body=i, properties={"text": text + "c"}) for i in range(count)])
        publish(self.server.url, "costly", [Message(body="last", properties={"text": text + "b"})])
        publish(self.server.url, "cheap", [Message(body="unrelated")])
        patterns = ["(a|aa)*b$", "(a+a+)+b$"]
        costly = []
        try:
            started = time.monotonic()
            receivers = []
            for p in patterns:
                conn = BlockingConnection(self.server.url, timeout=30)
                costly.append(conn)
                selector = {symbol("sql-filter"): Described(symbol("amqp:sql-filter"), "REGEXP_LIKE(text, '%s')" % p)}
                receivers.append(conn.create_receiver("costly", credit=10, options=Filter(selector)))
            time.sleep(0.05)
            conn = BlockingConnection(self.server.url, timeout=5)
            try:
                asked = time.monotonic()
                got = conn.create_receiver("cheap", credit=1).receive(timeout=5)
                waited = time.monotonic() - asked
            finally:
                conn.close()
            self.assertEqual(got.body, "unrelated")
            print("first message of an unrelated consumer after %.3f s" % waited, file=sys.stderr)
            self.assertLess(waited, 1.0 * SLOWDOWN, "an unrelated consumer waited %.2f s" % waited)
            for p, r in zip(patterns, receivers):
                m = r.receive(timeout=30 * SLOWDOWN)
                self.assertEqual(m.body, "last", p)
            elapsed = time.monotonic() - started
            scanned = 2 * (count + 1) * 65536
            print("two consumers scanned %d MB with nested-quantifier patterns in %.2f s" % (scanned >> 20, elapsed),
                  file=sys.stderr)
            self.assertLess(elapsed, 10.0 * SLOWDOWN, "the scans took %.1f s" % elapsed)
        finally:
            for c in costly:
                c.close()


if __name__ == "__main__":
    unittest.main()
