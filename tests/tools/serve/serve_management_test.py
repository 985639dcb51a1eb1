#!/usr/bin/python3
"""Interop tests of the management node `$management` of `sift serve` (docs/serve.md, "Management"),
with python3-qpid-proton as the client.

The client is proton.utils.SyncRequestResponse: a sender to `$management` and a receiver with a
dynamic source, whose address (`$management/replies/N`) is each request's reply-to. One case answers
on a receiver whose source is `$management` itself.

Without a users file the tests show: CREATE with and without attributes (201, and every attribute of
the response with its AMQP type: ulong counts and offsets, long timestamps and age, string
compression; what a CREATE does not name is the server's --retention-max-bytes, --retention-max-age
and --compression), CREATE of a stream that exists (409, nothing changed) and beyond --max-streams
(403), READ (200, counts and timestamps following what a normal producer publishes), UPDATE of the
retention (the other limit kept, a byte limit below the stream's size deleting its oldest chunks at
once, consumers then starting at the new first offset) and of the compression (the next chunks
compressed), DELETE (204, then 404), ENFORCE-RETENTION (type sift:store: an age limit applied on a
stream nobody appends to), 501 for an unknown operation or type, 400 naming the attribute for an
unknown attribute, a value of another type or out of range (nothing created or changed), 400 for a
missing, empty or bad name, the correlation-id of each response (a copy of the request's
correlation-id, else of its string or ulong message-id), the settlement of requests (accepted;
rejected without reply-to, with amqp:not-found for a reply-to naming no reply link of the connection,
with amqp:decode-error for a malformed message, with amqp:resource-limit-exceeded beyond the 64
responses that may wait for credit), the links of a deleted stream (a producer and a consumer)
detached with amqp:resource-deleted, and the log lines of changes and refusals (of reads with -v).

With a users file: the `manage` permission. A user with every message permission but not `manage`
gets 403 naming her and `manage` for READ, CREATE, UPDATE, DELETE and ENFORCE-RETENTION, and changes
nothing; a user with `manage` on `orders-*` manages those streams, gets 403 on a stream outside her
pattern, and 403 for ENFORCE-RETENTION while the store holds a stream outside it (200 on a store
holding only streams she manages).

Every server listens on 127.0.0.1 on an ephemeral port with a temporary store. Run with Debian's
interpreter (/usr/bin/python3), which has the proton bindings.
"""

import os
import re
import time
import unittest

from proton import Delivery, Endpoint, Message, Timeout, byte, int32, short, ubyte, uint, ulong, ushort
from proton.utils import BlockingConnection, LinkDetached, SyncRequestResponse

from serve_auth_test import sift_users
from serve_interop_test import CLI, ServeTestCase, Server, consume

MANAGEMENT = "$management"
STREAM = "sift:stream"
STORE = "sift:store"
WAIT = 20  # seconds: the longest any single exchange may take

# Every attribute of a stream in a response, with the Python type proton decodes its AMQP type to:
# ulong -> proton.ulong, long -> int (exactly), string -> str (exactly; a symbol would be proton.symbol).
ATTRIBUTE_TYPES = {
    "name": str,
    "messages": ulong,
    "first-offset": ulong,
    "next-offset": ulong,
    "chunks": ulong,
    "stored-bytes": ulong,
    "raw-bytes": ulong,
    "first-timestamp-ms": int,
    "last-timestamp-ms": int,
    "retention-max-bytes": ulong,
    "retention-max-age-ms": int,
    "compression": str,
}

EMPTY = {"messages": 0, "first-offset": 0, "next-offset": 0, "chunks": 0, "stored-bytes": 0, "raw-bytes": 0,
         "first-timestamp-ms": 0, "last-timestamp-ms": 0}


def request(operation, name=None, body=None, type_=STREAM):
    """A management request: operation, type and (unless None) name as application properties."""
    props = {"operation": operation, "type": type_}
    if name is not None:
        props["name"] = name
    return Message(properties=props, body=body)


def now_ms():
    return int(time.time() * 1000)


def publish(conn, stream, bodies):
    """Publishes each body with a normal sender, one at a time, each accepted before the next."""
    snd = conn.create_sender(stream)
    for body in bodies:
        d = snd.send(Message(body=body))
        assert d.remote_state == Delivery.ACCEPTED, "publish to %s: outcome %s" % (stream, d.remote_state)
    snd.close()


def send_raw(conn, snd, payload):
    """Sends a Message or raw bytes on the sender `snd` (a BlockingSender); returns the delivery once the
    server settled it."""
    link = snd.link
    if isinstance(payload, Message):
        d = link.send(payload)
    else:
        d = link.delivery("raw-%d" % time.monotonic_ns())
        link.send(payload)
        link.advance()
    conn.wait(lambda: d.settled, msg="waiting for the server to settle a request", timeout=WAIT)
    return d


def wait_for_response(conn, rr, timeout=WAIT):
    """The next response that reaches the SyncRequestResponse `rr`, bypassing its correlation check."""
    conn.wait(lambda: rr.response is not None, msg="waiting for a management response", timeout=timeout)
    response = rr.response
    rr.response = None
    rr.receiver.flow(1)
    return response


def wait_for_log(server, pattern, timeout=10):
    """The server's stderr once it matches the regular expression `pattern` (within `timeout` s)."""
    deadline = time.monotonic() + timeout
    while True:
        log = server.stderr()
        if re.search(pattern, log) or time.monotonic() > deadline:
            return log
        time.sleep(0.05)


class ManagementAssertions:
    """Checks of responses, shared by the test classes."""

    def status(self, response, code):
        """Asserts the types of statusCode (int) and statusDescription (string) and the code; returns the
        description."""
        props = response.properties
        self.assertIsInstance(props, dict, "a response without application-properties")
        self.assertIn("statusCode", props)
        self.assertIn("statusDescription", props)
        self.assertIs(type(props["statusCode"]), int32, "statusCode must be an AMQP int: %r" % (props["statusCode"],))
        self.assertIs(type(props["statusDescription"]), str,
                      "statusDescription must be an AMQP string: %r" % (props["statusDescription"],))
        self.assertEqual(int(props["statusCode"]), code, "status description: %s" % props["statusDescription"])
        return props["statusDescription"]

    def attributes(self, response, code, name, **expected):
        """Asserts status `code` and a body that is the attributes map of stream `name`: exactly the keys
        of the spec's table, string keys, each value of its AMQP type, the offsets consistent, and the
        values in `expected` (keys with '_' for '-'). Returns the map."""
        self.status(response, code)
        body = response.body
        self.assertIsInstance(body, dict, "the body of a %d must be the attributes map: %r" % (code, body))
        self.assertEqual(set(body), set(ATTRIBUTE_TYPES), "attribute names")
        for key in body:
            self.assertIs(type(key), str, "attribute names are AMQP strings: %r" % (key,))
        for key, t in ATTRIBUTE_TYPES.items():
            self.assertIs(type(body[key]), t, "attribute %s: %r is not of type %s" % (key, body[key], t.__name__))
        self.assertEqual(body["name"], name)
        self.assertEqual(body["messages"], body["next-offset"] - body["first-offset"], "offsets are dense: %r" % body)
        self.assertLessEqual(body["first-timestamp-ms"], body["last-timestamp-ms"])
        if body["messages"] == 0:
            self.assertEqual((body["first-timestamp-ms"], body["last-timestamp-ms"]), (0, 0), "empty stream: %r" % body)
        for key, value in expected.items():
            key = key.replace("_", "-")
            self.assertEqual(body[key], value, "attribute %s of %r" % (key, body))
        return body

    def no_body(self, response, code):
        description = self.status(response, code)
        self.assertIsNone(response.body, "a %d has a null body" % code)
        return description


class AnonymousServerTestCase(ServeTestCase, ManagementAssertions):
    """One server without a users file (anonymous clients may do everything), started with FLAGS, and
    one connection with a SyncRequestResponse client of its management node."""

    FLAGS = ()

    @classmethod
    def setUpClass(cls):
        super().setUpClass()
        cls.server = Server(os.path.join(cls.tmp, "store"), *cls.FLAGS)
        cls.conn = BlockingConnection(cls.server.url, timeout=WAIT)
        cls.rr = SyncRequestResponse(cls.conn, MANAGEMENT)

    @classmethod
    def tearDownClass(cls):
        try:
            cls.conn.close()
            code = cls.server.stop()
            assert code == 0, "sift-serve exited with %s: %s" % (code, cls.server.stderr())
        finally:
            super().tearDownClass()

    def call(self, operation, name=None, body=None, type_=STREAM):
        return self.rr.call(request(operation, name, body, type_))


class ManagementTest(AnonymousServerTestCase):
    """Chunks hold at most 10 messages, so a few dozen messages make several chunks; retention runs only
    after appends and when asked (--retention-interval 0), so ENFORCE-RETENTION is what applies an age
    limit."""

    FLAGS = ("--retention-interval", "0", "--max-chunk-messages", "10")

    def read(self, name, **expected):
        return self.attributes(self.call("READ", name), 200, name, **expected)

    def new_connection(self):
        conn = BlockingConnection(self.server.url, timeout=WAIT)
        self.addCleanup(conn.close)
        return conn

    # Links.

    def test_reply_links_and_request_credit(self):
        self.assertRegex(self.rr.reply_to, r"^\$management/replies/\d+$")
        conn = self.new_connection()
        other = SyncRequestResponse(conn, MANAGEMENT)
        self.assertRegex(other.reply_to, r"^\$management/replies/\d+$")
        self.assertNotEqual(other.reply_to, self.rr.reply_to, "dynamic reply addresses are unique")
        third = conn.create_receiver(None, dynamic=True, credit=1)  # a second reply link on the same connection
        third_address = third.link.remote_source.address
        self.assertRegex(third_address, r"^\$management/replies/\d+$")
        self.assertNotIn(third_address, (self.rr.reply_to, other.reply_to))
        snd = conn.create_sender(MANAGEMENT, name="another-request-link")  # the client names links by address
        conn.wait(lambda: snd.link.credit > 0, msg="waiting for credit on a sender to $management", timeout=WAIT)
        self.assertEqual(snd.link.credit, 100)
        # Each answers on its own link.
        self.no_body(other.call(request("READ", "m-never-made")), 404)
        m = request("READ", "m-never-made")
        m.id = "to-the-third"
        m.reply_to = third_address
        self.assertEqual(snd.send(m).remote_state, Delivery.ACCEPTED)
        response = third.receive(timeout=WAIT)
        third.accept()
        self.assertEqual(response.correlation_id, "to-the-third")
        self.assertEqual(response.address, third_address)
        self.no_body(response, 404)
        self.assertIsNone(other.response, "a response goes to the reply link named, no other")

    def test_reply_link_with_the_address_management(self):
        conn = self.new_connection()
        rcv = conn.create_receiver(MANAGEMENT, credit=10)
        self.assertEqual(rcv.link.remote_source.address, MANAGEMENT)
        snd = conn.create_sender(MANAGEMENT)
        for i, (operation, code) in enumerate((("READ", 404), ("CREATE", 201), ("READ", 200))):
            m = request(operation, "m-fixed-reply")
            m.id = "fixed-%d" % i
            m.reply_to = MANAGEMENT
            d = snd.send(m)
            self.assertEqual(d.remote_state, Delivery.ACCEPTED)
            response = rcv.receive(timeout=WAIT)
            rcv.accept()
            self.assertEqual(response.correlation_id, "fixed-%d" % i)
            self.assertEqual(response.address, MANAGEMENT, "the response's to is the request's reply-to")
            if code == 404:
                self.no_body(response, 404)
            else:
                self.attributes(response, code, "m-fixed-reply", **EMPTY)

    # CREATE.

    def test_create_without_attributes(self):
        response = self.call("CREATE", "m-plain")
        self.assertEqual(response.address, self.rr.reply_to, "the response's to is the request's reply-to")
        self.attributes(response, 201, "m-plain", retention_max_bytes=0, retention_max_age_ms=0, compression="none",
                        **EMPTY)
        self.attributes(self.call("CREATE", "m-empty-map", {}), 201, "m-empty-map", retention_max_bytes=0,
                        retention_max_age_ms=0, compression="none", **EMPTY)
        self.read("m-plain", retention_max_bytes=0, retention_max_age_ms=0, compression="none", **EMPTY)

    def test_create_with_attributes(self):
        body = {"retention-max-bytes": ulong(1 << 30), "retention-max-age-ms": 7 * 86400000, "compression": "zstd:3"}
        self.attributes(self.call("CREATE", "m-attrs", body), 201, "m-attrs", retention_max_bytes=1 << 30,
                        retention_max_age_ms=7 * 86400000, compression="zstd:3", **EMPTY)
        self.read("m-attrs", retention_max_bytes=1 << 30, retention_max_age_ms=7 * 86400000, compression="zstd:3")
        # `zstd` is level -2; one limit alone leaves the other at none.
        self.attributes(self.call("CREATE", "m-zstd", {"compression": "zstd", "retention-max-age-ms": ulong(60000)}),
                        201, "m-zstd", compression="zstd:-2", retention_max_bytes=0, retention_max_age_ms=60000)
        self.attributes(self.call("CREATE", "m-bytes-only", {"retention-max-bytes": int32(4096)}), 201,
                        "m-bytes-only", retention_max_bytes=4096, retention_max_age_ms=0, compression="none")
        self.attributes(self.call("CREATE", "m-negative-level", {"compression": "zstd:-7"}), 201,
                        "m-negative-level", compression="zstd:-7")

    def test_create_of_a_stream_that_exists_is_409_and_changes_nothing(self):
        self.attributes(self.call("CREATE", "m-twice", {"retention-max-bytes": ulong(100000)}), 201, "m-twice")
        self.no_body(self.call("CREATE", "m-twice", {"retention-max-bytes": ulong(5), "compression": "zstd"}), 409)
        self.no_body(self.call("CREATE", "m-twice"), 409)
        self.read("m-twice", retention_max_bytes=100000, retention_max_age_ms=0, compression="none")
        publish(self.conn, "m-auto", ["made by a producer"])  # auto-create: CREATE of it is 409 too
        self.no_body(self.call("CREATE", "m-auto"), 409)

    def test_integers_of_every_width_are_taken(self):
        self.attributes(self.call("CREATE", "m-widths"), 201, "m-widths")
        for ctor in (ubyte, ushort, uint, ulong, byte, short, int32, int):
            with self.subTest(type=ctor.__name__):
                self.attributes(self.call("UPDATE", "m-widths", {"retention-max-bytes": ctor(100),
                                                                 "retention-max-age-ms": ctor(50)}),
                                200, "m-widths", retention_max_bytes=100, retention_max_age_ms=50)
                self.attributes(self.call("UPDATE", "m-widths", {"retention-max-bytes": ctor(0),
                                                                 "retention-max-age-ms": ctor(0)}),
                                200, "m-widths", retention_max_bytes=0, retention_max_age_ms=0)
        big = (1 << 64) - 1
        self.attributes(self.call("UPDATE", "m-widths", {"retention-max-bytes": ulong(big)}), 200, "m-widths",
                        retention_max_bytes=big)
        self.attributes(self.call("UPDATE", "m-widths", {"retention-max-age-ms": (1 << 63) - 1}), 200, "m-widths",
                        retention_max_age_ms=(1 << 63) - 1)

    # READ.

    def test_read_counts_follow_what_is_published(self):
        self.attributes(self.call("CREATE", "m-counts"), 201, "m-counts", **EMPTY)
        self.no_body(self.call("READ", "m-no-such-stream"), 404)
        before = now_ms()
        publish(self.conn, "m-counts", ["message %d" % i for i in range(25)])
        after = now_ms()
        first = self.read("m-counts", messages=25, first_offset=0, next_offset=25)
        self.assertGreaterEqual(first["chunks"], 3, "at most 10 messages a chunk")
        self.assertLessEqual(first["chunks"], 25)
        self.assertGreater(first["stored-bytes"], 25 * len("message 00"))
        self.assertEqual(first["raw-bytes"], first["stored-bytes"], "uncompressed: as many raw bytes as stored")
        self.assertGreaterEqual(first["first-timestamp-ms"], before - 1000)
        self.assertLessEqual(first["last-timestamp-ms"], after + 1000)
        publish(self.conn, "m-counts", ["more %d" % i for i in range(5)])
        second = self.read("m-counts", messages=30, first_offset=0, next_offset=30,
                           first_timestamp_ms=first["first-timestamp-ms"])
        self.assertGreater(second["stored-bytes"], first["stored-bytes"])
        self.assertGreaterEqual(second["chunks"], first["chunks"])
        self.assertGreaterEqual(second["last-timestamp-ms"], first["last-timestamp-ms"])
        # A stream a producer created (auto-create) reads the same way.
        publish(self.conn, "m-auto-read", ["a", "b", "c"])
        self.read("m-auto-read", messages=3, first_offset=0, next_offset=3, retention_max_bytes=0,
                  retention_max_age_ms=0, compression="none")

    # UPDATE.

    def test_update_of_a_byte_limit_below_the_stream_deletes_old_chunks_at_once(self):
        day = 86400000
        self.attributes(self.call("CREATE", "m-shrink", {"retention-max-age-ms": day}), 201, "m-shrink")
        publish(self.conn, "m-shrink", ["%03d " % i + "x" * 300 for i in range(100)])
        full = self.read("m-shrink", messages=100, first_offset=0, next_offset=100)
        self.assertGreaterEqual(full["chunks"], 10)
        limit = full["stored-bytes"] // 2
        got = self.attributes(self.call("UPDATE", "m-shrink", {"retention-max-bytes": ulong(limit)}), 200, "m-shrink",
                              retention_max_bytes=limit, retention_max_age_ms=day, next_offset=100)
        self.assertGreater(got["first-offset"], 0, "the oldest chunks are deleted at once: %r" % got)
        self.assertLess(got["messages"], 100)
        self.assertGreater(got["messages"], 0, "chunks of 10 messages: the newest ones stay within half the bytes")
        self.assertLessEqual(got["stored-bytes"], limit)
        self.assertLess(got["chunks"], full["chunks"])
        self.assertGreater(got["first-timestamp-ms"], 0)
        self.assertGreaterEqual(got["first-timestamp-ms"], full["first-timestamp-ms"])
        self.assertEqual(got["last-timestamp-ms"], full["last-timestamp-ms"])
        again = self.read("m-shrink", retention_max_bytes=limit, retention_max_age_ms=day)
        self.assertEqual(again, got)
        # A consumer from the start begins at the new first offset.
        offsets = consume(self.new_connection(), "m-shrink", [], got["messages"])
        self.assertEqual(offsets, list(range(got["first-offset"], 100)))
        # Each limit replaces only itself; 0 removes one.
        self.attributes(self.call("UPDATE", "m-shrink", {"retention-max-age-ms": 0}), 200, "m-shrink",
                        retention_max_bytes=limit, retention_max_age_ms=0, messages=got["messages"])
        self.attributes(self.call("UPDATE", "m-shrink", {"retention-max-bytes": 0}), 200, "m-shrink",
                        retention_max_bytes=0, retention_max_age_ms=0, messages=got["messages"])
        self.attributes(self.call("UPDATE", "m-shrink", {}), 200, "m-shrink", retention_max_bytes=0,
                        retention_max_age_ms=0, messages=got["messages"])
        self.attributes(self.call("UPDATE", "m-shrink"), 200, "m-shrink", retention_max_bytes=0,
                        messages=got["messages"])
        self.no_body(self.call("UPDATE", "m-no-such-stream", {"retention-max-bytes": 1}), 404)

    def test_update_of_the_compression_compresses_the_next_chunks(self):
        self.attributes(self.call("CREATE", "m-compress"), 201, "m-compress", compression="none")
        bodies = ["%02d " % i + "compressible text " * 200 for i in range(40)]
        publish(self.conn, "m-compress", bodies[:20])
        plain = self.read("m-compress", messages=20, compression="none")
        self.assertEqual(plain["raw-bytes"], plain["stored-bytes"])
        self.attributes(self.call("UPDATE", "m-compress", {"compression": "zstd:5"}), 200, "m-compress",
                        compression="zstd:5", messages=20, retention_max_bytes=0, retention_max_age_ms=0,
                        stored_bytes=plain["stored-bytes"])
        publish(self.conn, "m-compress", bodies[20:])
        packed = self.read("m-compress", messages=40, next_offset=40, compression="zstd:5")
        raw_added = packed["raw-bytes"] - plain["raw-bytes"]
        stored_added = packed["stored-bytes"] - plain["stored-bytes"]
        self.assertGreater(raw_added, 20 * 3000)
        self.assertLess(stored_added * 4, raw_added, "chunks after the UPDATE are compressed: %r" % packed)
        conn = self.new_connection()
        rcv = conn.create_receiver("m-compress", credit=100)
        got = []
        for _ in range(40):
            got.append(rcv.receive(timeout=WAIT).body)
            rcv.accept()
        self.assertEqual(got, bodies)
        self.attributes(self.call("UPDATE", "m-compress", {"compression": "none"}), 200, "m-compress",
                        compression="none")

    # DELETE.

    def test_delete(self):
        self.attributes(self.call("CREATE", "m-delete"), 201, "m-delete")
        publish(self.conn, "m-delete", ["one", "two", "three"])
        self.read("m-delete", messages=3)
        self.no_body(self.call("DELETE", "m-delete"), 204)
        self.no_body(self.call("READ", "m-delete"), 404)
        self.no_body(self.call("DELETE", "m-delete"), 404)
        self.no_body(self.call("UPDATE", "m-delete", {"retention-max-bytes": 1}), 404)
        self.attributes(self.call("CREATE", "m-delete"), 201, "m-delete", messages=0, chunks=0, stored_bytes=0)

    def test_changes_and_refusals_are_logged_reads_are_not(self):
        self.attributes(self.call("CREATE", "m-logged"), 201, "m-logged")
        self.read("m-logged")
        self.no_body(self.call("UPDATE", "m-logged", {"colour": "red"}), 400)
        self.attributes(self.call("UPDATE", "m-logged", {"retention-max-bytes": ulong(1000)}), 200, "m-logged")
        self.no_body(self.call("DELETE", "m-logged"), 204)
        prefix = r"sift serve: management: 127\.0\.0\.1:\d+: user 'anonymous': "
        log = wait_for_log(self.server, prefix + r"DELETE sift:stream 'm-logged': 204 No Content\n")
        self.assertRegex(log, prefix + r"CREATE sift:stream 'm-logged': 201 Created\n")
        self.assertRegex(log, prefix + r"UPDATE sift:stream 'm-logged': 400 .*colour.*\n")
        self.assertRegex(log, prefix + r"UPDATE sift:stream 'm-logged': 200 OK\n")
        self.assertNotIn("READ sift:stream 'm-logged'", log)  # reads only with -v

    def test_delete_detaches_the_links_of_the_stream_with_resource_deleted(self):
        conn = self.new_connection()
        snd = conn.create_sender("m-attached")
        rcv = conn.create_receiver("m-attached", credit=10)
        snd.send(Message(body="before the delete"))
        self.assertEqual(rcv.receive(timeout=WAIT).body, "before the delete")
        rcv.accept()
        self.read("m-attached", messages=1)
        self.no_body(self.call("DELETE", "m-attached"), 204)
        links = [snd.link, rcv.link]
        deadline = time.monotonic() + WAIT
        while not all(link.state & Endpoint.REMOTE_CLOSED for link in links):
            left = deadline - time.monotonic()
            if left <= 0:
                self.fail("the links of a deleted stream were not detached: states %s"
                          % [link.state for link in links])
            try:
                conn.wait(lambda: all(link.state & Endpoint.REMOTE_CLOSED for link in links), timeout=left,
                          msg="waiting for the links of a deleted stream to be detached")
            except LinkDetached:
                pass
            except Timeout:
                pass
        for kind, link in (("producer", snd.link), ("consumer", rcv.link)):
            condition = link.remote_condition
            self.assertIsNotNone(condition, "%s detached without an error" % kind)
            self.assertEqual(condition.name, "amqp:resource-deleted", kind)
            self.assertEqual(condition.description, "stream 'm-attached' was deleted", kind)
        self.no_body(self.call("READ", "m-attached"), 404)
        # Attaching again creates it anew (auto-create).
        publish(self.new_connection(), "m-attached", ["after the delete"])
        self.read("m-attached", messages=1)

    # ENFORCE-RETENTION.

    def test_enforce_retention_applies_an_age_limit_on_a_stream_nobody_appends_to(self):
        age = 3000
        self.attributes(self.call("CREATE", "m-aged", {"retention-max-age-ms": age}), 201, "m-aged",
                        retention_max_age_ms=age)
        publish(self.conn, "m-aged", ["aging %d" % i for i in range(20)])
        # (The appends apply the limit too: on a slow machine the oldest chunks may be gone already.)
        published = self.read("m-aged", next_offset=20)
        self.assertGreater(published["messages"], 0)
        time.sleep(max(0, published["last-timestamp-ms"] + age + 500 - now_ms()) / 1000)
        # Every message is older than the limit now, but nothing applies it on its own here
        # (--retention-interval 0) until ENFORCE-RETENTION.
        self.assertEqual(self.read("m-aged"), published)
        self.no_body(self.call("ENFORCE-RETENTION", type_=STORE), 200)
        self.read("m-aged", messages=0, first_offset=20, next_offset=20, chunks=0, stored_bytes=0, raw_bytes=0,
                  first_timestamp_ms=0, last_timestamp_ms=0, retention_max_age_ms=age)
        # The name is ignored for sift:store.
        self.no_body(self.call("ENFORCE-RETENTION", "whatever", type_=STORE), 200)

    # Errors.

    def test_unknown_operation_or_type_is_501(self):
        self.attributes(self.call("CREATE", "m-501"), 201, "m-501")
        self.no_body(self.call("FROB", "m-501"), 501)
        self.no_body(self.call("read", "m-501"), 501)  # operations are upper case
        self.no_body(self.call("READ", "m-501", type_="sift:queue"), 501)
        self.no_body(self.call("CREATE", "m-501-other", type_="org.amqp.management"), 501)
        self.no_body(self.call("READ", "m-501-other"), 404)  # the CREATE of an unknown type made nothing

    def test_bad_attributes_are_400_naming_them_and_change_nothing(self):
        bad = [
            ({"colour": "red"}, "colour"),
            ({"retention-max-bytes": "100"}, "retention-max-bytes"),
            ({"retention-max-bytes": -1}, "retention-max-bytes"),
            ({"retention-max-bytes": int32(-1)}, "retention-max-bytes"),
            ({"retention-max-bytes": 1.5}, "retention-max-bytes"),
            ({"retention-max-age-ms": -5}, "retention-max-age-ms"),
            ({"retention-max-age-ms": byte(-1)}, "retention-max-age-ms"),
            ({"retention-max-age-ms": True}, "retention-max-age-ms"),
            ({"retention-max-age-ms": ulong((1 << 64) - 1)}, "retention-max-age-ms"),  # beyond a long
            ({"compression": 3}, "compression"),
            ({"compression": "lz4"}, "compression"),
            ({"compression": "zstd:99"}, "compression"),
        ]
        for body, attribute in bad:
            with self.subTest(body=body):
                description = self.no_body(self.call("CREATE", "m-bad", body), 400)
                self.assertIn(attribute, description)
                self.no_body(self.call("READ", "m-bad"), 404)  # nothing created
        self.attributes(self.call("CREATE", "m-bad-update", {"retention-max-bytes": ulong(7777)}), 201, "m-bad-update")
        for body, attribute in bad:
            with self.subTest(update=body):
                description = self.no_body(self.call("UPDATE", "m-bad-update", body), 400)
                self.assertIn(attribute, description)
        # A good attribute beside a bad one is not applied either.
        description = self.no_body(self.call("UPDATE", "m-bad-update", {"retention-max-bytes": ulong(5),
                                                                         "colour": "red"}), 400)
        self.assertIn("colour", description)
        self.read("m-bad-update", retention_max_bytes=7777, retention_max_age_ms=0, compression="none")

    def test_missing_empty_or_bad_name_is_400(self):
        # No name, an empty one, one that is no string, and names no stream may have (docs/serve.md,
        # "Producers": 1 to 255 bytes of UTF-8 without control characters).
        names = (None, "", int32(5), "m" * 256, "m-control\x01char", "m-delete\x7fchar", "m-c1\u0085char")
        for operation in ("CREATE", "READ", "UPDATE", "DELETE"):
            for name in names:
                with self.subTest(operation=operation, name=repr(name)[:24]):
                    self.no_body(self.call(operation, name), 400)
        self.attributes(self.call("CREATE", "m" * 255), 201, "m" * 255)
        self.attributes(self.call("READ", "m" * 255), 200, "m" * 255)

    # Correlation and settlement.

    def test_correlation_id_is_the_requests_correlation_id_else_its_message_id(self):
        self.attributes(self.call("CREATE", "m-corr"), 201, "m-corr")
        # (message-id, correlation-id, the response's correlation-id)
        cases = (("request-\u00e9-1", None, "request-\u00e9-1"), (ulong(4242), None, 4242),
                 (None, "only-a-correlation-id", "only-a-correlation-id"), (None, ulong(99), 99),
                 ("request-2", "correlation-2", "correlation-2"), (ulong(7), "correlation-7", "correlation-7"),
                 ("request-8", ulong(8), 8))
        for message_id, correlation_id, expected in cases:
            with self.subTest(message_id=message_id, correlation_id=correlation_id):
                m = request("READ", "m-corr")
                if message_id is not None:
                    m.id = message_id
                if correlation_id is not None:
                    m.correlation_id = correlation_id
                m.reply_to = self.rr.reply_to
                d = send_raw(self.conn, self.rr.sender, m)
                self.assertEqual(d.remote_state, Delivery.ACCEPTED)
                response = wait_for_response(self.conn, self.rr)
                self.attributes(response, 200, "m-corr")
                self.assertEqual(response.correlation_id, expected)
                # proton gives a ulong id as int (and drops ids of other integer types): the type is kept.
                self.assertIs(type(response.correlation_id), type(expected))

    def test_request_without_reply_to_is_rejected(self):
        conn = self.new_connection()
        rr = SyncRequestResponse(conn, MANAGEMENT)
        m = request("CREATE", "m-no-reply")
        m.id = "no-reply-to"
        d = send_raw(conn, rr.sender, m)
        self.assertTrue(d.settled)
        self.assertEqual(d.remote_state, Delivery.REJECTED)
        with self.assertRaises(Timeout):  # and nothing answers it
            conn.wait(lambda: rr.response is not None, timeout=1)
        self.no_body(rr.call(request("READ", "m-no-reply")), 404)  # nor was it done; the links still work

    def test_reply_to_naming_no_reply_link_is_rejected_not_found(self):
        conn = self.new_connection()
        rr = SyncRequestResponse(conn, MANAGEMENT)
        for reply_to in ("$management/replies/999999999", "nowhere", "m-a-stream", self.rr.reply_to):
            with self.subTest(reply_to=reply_to):  # the last one: a reply link of another connection
                m = request("CREATE", "m-lost-reply")
                m.id = "lost-%s" % reply_to
                m.reply_to = reply_to
                d = send_raw(conn, rr.sender, m)
                self.assertTrue(d.settled)
                self.assertEqual(d.remote_state, Delivery.REJECTED)
                self.assertIsNotNone(d.remote.condition)
                self.assertEqual(d.remote.condition.name, "amqp:not-found")
        with self.assertRaises(Timeout):  # the other connection got no response either
            self.conn.wait(lambda: self.rr.response is not None, timeout=1)
        self.no_body(rr.call(request("READ", "m-lost-reply")), 404)

    def test_transfer_that_is_no_message_is_rejected(self):
        conn = self.new_connection()
        rr = SyncRequestResponse(conn, MANAGEMENT)
        d = send_raw(conn, rr.sender, b"garbage")  # nothing to answer, nowhere to answer it
        self.assertTrue(d.settled)
        self.assertEqual(d.remote_state, Delivery.REJECTED)
        # A whole request (reply-to and all) followed by a truncated section: a malformed message.
        m = request("CREATE", "m-malformed")
        m.id = "malformed"
        m.reply_to = rr.reply_to
        d = send_raw(conn, rr.sender, m.encode() + b"\x00\x53\x77\xa1\x10only 9 of 16")
        self.assertTrue(d.settled)
        self.assertEqual(d.remote_state, Delivery.REJECTED)
        self.assertIsNotNone(d.remote.condition)
        self.assertEqual(d.remote.condition.name, "amqp:decode-error")
        with self.assertRaises(Timeout):
            conn.wait(lambda: rr.response is not None, timeout=1)
        self.no_body(rr.call(request("READ", "m-malformed")), 404)  # not done

    def test_responses_waiting_for_credit_are_bounded(self):
        conn = self.new_connection()
        rcv = conn.create_receiver(None, dynamic=True, credit=0)  # takes no response until it grants credit
        reply_to = rcv.link.remote_source.address
        snd = conn.create_sender(MANAGEMENT)
        conn.wait(lambda: snd.link.credit >= 70, msg="waiting for request credit", timeout=WAIT)
        deliveries = []
        for i in range(70):
            m = request("READ", "m-never-made")
            m.id = ulong(i)
            m.reply_to = reply_to
            deliveries.append(snd.link.send(m))
        conn.wait(lambda: all(d.settled for d in deliveries), msg="waiting for 70 requests to be settled",
                  timeout=WAIT)
        states = [d.remote_state for d in deliveries]
        accepted = states.index(Delivery.REJECTED) if Delivery.REJECTED in states else len(states)
        self.assertEqual(accepted, 64, "requests accepted while their responses wait for credit: %s" % states)
        self.assertEqual(states[accepted:], [Delivery.REJECTED] * (70 - accepted))
        for d in deliveries[accepted:]:
            self.assertEqual(d.remote.condition.name, "amqp:resource-limit-exceeded")
        rcv.flow(100)
        got = []
        for _ in range(accepted):
            response = rcv.receive(timeout=WAIT)
            rcv.accept()
            self.no_body(response, 404)
            got.append(response.correlation_id)
        self.assertEqual(got, list(range(accepted)))
        with self.assertRaises(Timeout):
            rcv.receive(timeout=1)


class ManagementServerDefaultsTest(AnonymousServerTestCase):
    """A server with default retention and compression for the streams it creates, a limit of three
    streams, and -v: CREATE takes the server's defaults for what it does not name, CREATE beyond
    --max-streams is 403, and reads are logged too."""

    FLAGS = ("-v", "--max-streams", "3", "--retention-max-bytes", "1MiB", "--retention-max-age", "1h",
             "--compression", "zstd:2")

    def test_defaults_limit_and_verbose_log(self):
        self.attributes(self.call("CREATE", "d-defaults"), 201, "d-defaults", retention_max_bytes=1 << 20,
                        retention_max_age_ms=3600000, compression="zstd:2", **EMPTY)
        self.attributes(self.call("CREATE", "d-some", {"retention-max-bytes": 0, "compression": "none"}), 201,
                        "d-some", retention_max_bytes=0, retention_max_age_ms=3600000, compression="none")
        publish(self.conn, "d-by-producer", ["auto-created"])  # the third stream, as a producer makes it
        self.attributes(self.call("READ", "d-by-producer"), 200, "d-by-producer", messages=1,
                        retention_max_bytes=1 << 20, retention_max_age_ms=3600000, compression="zstd:2")
        description = self.no_body(self.call("CREATE", "d-fourth"), 403)
        self.assertIn("--max-streams 3", description)
        self.no_body(self.call("READ", "d-fourth"), 404)
        self.no_body(self.call("DELETE", "d-some"), 204)  # room for one again
        self.attributes(self.call("CREATE", "d-fourth"), 201, "d-fourth")
        read = r"sift serve: management: 127\.0\.0\.1:\d+: user 'anonymous': READ sift:stream 'd-by-producer': 200 OK\n"
        self.assertRegex(wait_for_log(self.server, read), read)


class ManagementPermissionsTest(ServeTestCase, ManagementAssertions):
    """A users file: alice may do all on orders-* and manage orders-*; bob may do all on orders-* but not
    manage; admin may do all and manage on every stream (she makes `audit`, a stream outside alice's
    pattern)."""

    PASSWORDS = {"alice": "alice-manages", "bob": "bob-publishes", "admin": "admin-does-all"}

    @classmethod
    def setUpClass(cls):
        super().setUpClass()
        if not CLI or not os.access(CLI, os.X_OK):
            raise unittest.SkipTest("SIFT_CLI is not set to the sift binary")
        cls.users = os.path.join(cls.tmp, "users")
        for user, password in cls.PASSWORDS.items():
            sift_users("add", "--file", cls.users, user, password=password + "\n")
        sift_users("grant", "--file", cls.users, "alice", "all", "orders-*")
        sift_users("grant", "--file", cls.users, "alice", "manage", "orders-*")
        sift_users("grant", "--file", cls.users, "bob", "all", "orders-*")
        sift_users("grant", "--file", cls.users, "admin", "all", "*")
        sift_users("grant", "--file", cls.users, "admin", "manage", "*")
        cls.server = Server(os.path.join(cls.tmp, "store"), "--users", cls.users)
        cls.conns = []
        cls.rr = {}
        for user in cls.PASSWORDS:
            conn = cls.login(cls.server, user)
            cls.conns.append(conn)
            cls.rr[user] = SyncRequestResponse(conn, MANAGEMENT)
        cls.rr["admin"].call(request("CREATE", "audit"))

    @classmethod
    def tearDownClass(cls):
        try:
            for conn in cls.conns:
                conn.close()
            code = cls.server.stop()
            assert code == 0, "sift-serve exited with %s: %s" % (code, cls.server.stderr())
        finally:
            super().tearDownClass()

    @classmethod
    def login(cls, server, user):
        return BlockingConnection(server.url, timeout=WAIT, user=user, password=cls.PASSWORDS[user],
                                  allowed_mechs="PLAIN", allow_insecure_mechs=True)

    def call(self, user, operation, name=None, body=None, type_=STREAM):
        return self.rr[user].call(request(operation, name, body, type_))

    def forbidden(self, user, operation, name, body=None):
        description = self.no_body(self.call(user, operation, name, body), 403)
        self.assertEqual(description, "user '%s' may not manage stream '%s' (no 'manage' permission on it)"
                         % (user, name))

    def test_the_users_file_lists_manage(self):
        listed = sift_users("list", "--file", self.users)
        self.assertIn("alice\n  all,manage orders-*\n", listed)
        self.assertIn("bob\n  all orders-*\n", listed)

    def test_user_with_manage_manages_streams_of_her_pattern(self):
        self.attributes(self.call("alice", "CREATE", "orders-alice", {"retention-max-bytes": ulong(1 << 20)}), 201,
                        "orders-alice", retention_max_bytes=1 << 20, **EMPTY)
        conn = self.login(self.server, "alice")
        try:
            publish(conn, "orders-alice", ["first", "second"])
        finally:
            conn.close()
        self.attributes(self.call("alice", "READ", "orders-alice"), 200, "orders-alice", messages=2)
        self.attributes(self.call("alice", "UPDATE", "orders-alice", {"retention-max-age-ms": 3600000}), 200,
                        "orders-alice", retention_max_bytes=1 << 20, retention_max_age_ms=3600000)
        self.no_body(self.call("alice", "DELETE", "orders-alice"), 204)
        self.no_body(self.call("alice", "READ", "orders-alice"), 404)

    def test_user_without_manage_gets_403_and_changes_nothing(self):
        self.attributes(self.call("alice", "CREATE", "orders-kept", {"retention-max-bytes": ulong(50000)}), 201,
                        "orders-kept")
        self.forbidden("bob", "READ", "orders-kept")
        self.forbidden("bob", "UPDATE", "orders-kept", {"retention-max-bytes": ulong(1)})
        self.forbidden("bob", "DELETE", "orders-kept")
        self.forbidden("bob", "CREATE", "orders-by-bob")
        self.forbidden("bob", "CREATE", "orders-by-bob", {"compression": "zstd"})
        description = self.no_body(self.call("bob", "ENFORCE-RETENTION", type_=STORE), 403)
        self.assertIn("user 'bob'", description)
        self.assertIn("'manage'", description)
        self.attributes(self.call("alice", "READ", "orders-kept"), 200, "orders-kept", retention_max_bytes=50000)
        self.no_body(self.call("alice", "READ", "orders-by-bob"), 404)
        refused = (r"sift serve: management: 127\.0\.0\.1:\d+: user 'bob': DELETE sift:stream 'orders-kept': 403 "
                   r"user 'bob' may not manage stream 'orders-kept' \(no 'manage' permission on it\)\n")
        self.assertRegex(wait_for_log(self.server, refused), refused)
        # bob's message permissions are untouched: he publishes to the stream he may not manage.
        conn = self.login(self.server, "bob")
        try:
            publish(conn, "orders-kept", ["from bob"])
        finally:
            conn.close()
        self.attributes(self.call("alice", "READ", "orders-kept"), 200, "orders-kept", messages=1)

    def test_manage_is_per_pattern(self):
        self.attributes(self.call("admin", "READ", "audit"), 200, "audit")
        self.forbidden("alice", "DELETE", "audit")
        self.forbidden("alice", "READ", "audit")
        self.forbidden("alice", "UPDATE", "audit", {"retention-max-bytes": ulong(1)})
        self.forbidden("alice", "CREATE", "audit-2")
        self.attributes(self.call("admin", "READ", "audit"), 200, "audit", retention_max_bytes=0)
        self.no_body(self.call("admin", "READ", "audit-2"), 404)

    def test_enforce_retention_needs_manage_on_every_stream_of_the_store(self):
        self.attributes(self.call("alice", "CREATE", "orders-enforce"), 201, "orders-enforce")
        description = self.no_body(self.call("alice", "ENFORCE-RETENTION", type_=STORE), 403)
        self.assertIn("user 'alice'", description)
        self.assertIn("'manage'", description)
        self.no_body(self.call("admin", "ENFORCE-RETENTION", type_=STORE), 200)
        # On a store that holds only streams she manages, alice may.
        server = Server(os.path.join(self.tmp, "store-orders-only"), "--users", self.users)
        try:
            conn = self.login(server, "alice")
            try:
                rr = SyncRequestResponse(conn, MANAGEMENT)
                self.attributes(rr.call(request("CREATE", "orders-only")), 201, "orders-only")
                self.no_body(rr.call(request("ENFORCE-RETENTION", type_=STORE)), 200)
            finally:
                conn.close()
        finally:
            self.assertEqual(server.stop(), 0)


if __name__ == "__main__":
    unittest.main()
