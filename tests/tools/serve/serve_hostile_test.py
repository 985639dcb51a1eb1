#!/usr/bin/python3
"""Hostile and careless clients against `sift serve`: none of them may exhaust the server.

Each test class starts its own server (SIFT_SERVE) on an ephemeral loopback port with a temporary
store. Well-behaved clients use python3-qpid-proton; misbehaving ones speak AMQP by hand over a raw
socket (RawClient: frames encoded and decoded with proton.Data), since Proton never lets a client
break the protocol.

What each test shows:
- silent TCP connections (2,000) do not lock a real client out: it publishes and consumes within 2 s;
  a socket that never sends its open is closed at the handshake deadline;
- attaches naming a stream that is not UTF-8, holds a control character or is longer than 255 bytes
  are refused with amqp:invalid-field naming the rule, and create nothing;
- a producer sending beyond its credit is detached with amqp:link:transfer-limit-exceeded and nothing
  beyond the credit is stored;
- 10,000 attach/detach cycles on one connection leave the server's RSS flat (< 5 MB); links detached
  with transfers still being appended leave the server up and serving;
- 4 connections x 32 links that read nothing over 1 MB messages: once they leave, the server's RSS is
  back within 64 MB of where it started;
- consumer links beyond their share of the budget are refused naming the share, and the 16th refusal
  closes the connection; a close the client does not answer has its socket dropped after 1 s;
- 128 connections x 16 links, credit 100 each, that read nothing over 8 MB and over 1 MB messages
  with a 64 MiB budget: the server stays up, its RSS stays under the budget + 128 MB and comes back
  within 64 MB of its start once they leave, and a fresh client publishes and consumes on another
  stream within 2 s meanwhile (bench/serve/hoard runs 1,024 x 64 and holds it to 1 s);
- a consumer that grants credit 1,000,000 and never reads, over a stream several times the memory
  budget, keeps the server's RSS within the budget of its baseline;
- two consumers running a costly LIKE on big-text messages do not starve a consumer of another
  stream (first message within 1 s); their scans stop once their connections close (the server goes
  idle); SIGTERM during such scans exits cleanly within 10 s;
- 64 threads logging in with wrong passwords: a logged-in client's publish-to-consume round trip stays
  at p99 <= 20 ms, a new legitimate client logs in within 1 s, and no password reaches the log;
- a socket without open is closed at the handshake deadline, and the oldest one beyond
  --max-handshakes; the per-address cap; heartbeats and the
  idle timeout; the memory and disk alarms withhold producer credit (and a new connection is refused
  under the memory alarm).

Every loop is bounded in count and in time. Run with Debian's interpreter (/usr/bin/python3).
"""

import multiprocessing
import os
import re
import resource
import shutil
import signal
import socket
import struct
import subprocess
import sys
import tempfile
import threading
import time
import unittest
import urllib.request

from proton import Data, Described, Message, symbol, ubyte, uint, ulong
from proton.reactor import Filter
from proton.utils import BlockingConnection

import hoarders  # connections of links that grant credit and never read
from serve_interop_test import Server  # one sift-serve process on an ephemeral port

SERVE = os.environ.get("SIFT_SERVE", "")
# Under AddressSanitizer (SIFT_SANITIZED=1) memory is quarantined and code runs several times slower:
# the behaviour is checked all the same, time bounds are scaled and RSS bounds are not asserted.
SANITIZED = os.environ.get("SIFT_SANITIZED", "0") == "1"
SLOWDOWN = 5.0 if SANITIZED else 1.0

# AMQP 1.0 performative descriptors (core 2.7) and terminus descriptors (messaging 3.5).
OPEN, BEGIN, ATTACH, FLOW, TRANSFER, DISPOSITION, DETACH, END, CLOSE = range(0x10, 0x19)
SOURCE, TARGET = 0x28, 0x29


def encode_value(data, value):
    if isinstance(value, Described):
        data.put_described()
        data.enter()
        data.put_ulong(value.descriptor)
        encode_value(data, value.value)
        data.exit()
    elif isinstance(value, list):
        data.put_list()
        data.enter()
        for v in value:
            encode_value(data, v)
        data.exit()
    else:
        data.put_object(value)


def performative(code, fields):
    data = Data()
    encode_value(data, Described(ulong(code), fields))
    return data.encode()


class RawClient:
    """An AMQP 1.0 client written by hand over a socket, free to break the rules (no SASL: the server
    accepts clients that skip it without --users)."""

    def __init__(self, url, timeout=10.0, open_fields=None):
        host, port = url.rsplit(":", 1)
        self.sock = socket.create_connection((host, int(port)), timeout=timeout)
        self.buffer = b""
        self.sock.sendall(b"AMQP\x00\x01\x00\x00")
        self.send(OPEN, open_fields or ["raw-client"])
        self.send(BEGIN, [None, uint(0), uint(0x7FFFFFFF), uint(0x7FFFFFFF)])
        header = self.read_exact(8)
        if header != b"AMQP\x00\x01\x00\x00":
            raise RuntimeError("unexpected protocol header %r" % header)
        self.expect(OPEN)
        self.expect(BEGIN)

    def send(self, code, fields, payload=b"", flush=True):
        frame = self.frame(code, fields, payload)
        if flush:
            self.sock.sendall(frame)
        return frame

    @staticmethod
    def frame(code, fields, payload=b""):
        body = performative(code, fields) + payload
        return struct.pack(">IBBH", 8 + len(body), 2, 0, 0) + body

    def read_exact(self, n):
        while len(self.buffer) < n:
            chunk = self.sock.recv(65536)
            if not chunk:
                raise EOFError("the server closed the connection")
            self.buffer += chunk
        out, self.buffer = self.buffer[:n], self.buffer[n:]
        return out

    def read_frame(self):
        """(code, fields, payload) of the next frame; heartbeats (empty frames) are skipped."""
        for _ in range(1000000):
            size, doff, _, _ = struct.unpack(">IBBH", self.read_exact(8))
            body = self.read_exact(size - 8)[doff * 4 - 8:]
            if not body:
                continue
            data = Data()
            used = data.decode(body)
            data.rewind()
            data.next()
            value = data.get_object()
            return int(value.descriptor), value.value, body[used:]
        raise RuntimeError("only heartbeats")

    def expect(self, code):
        got, fields, _ = self.read_frame()
        if got != code:
            raise RuntimeError("expected performative 0x%x, got 0x%x %r" % (code, got, fields))
        return fields

    @staticmethod
    def attach_fields(name, handle, sender, address, filters=None):
        source = Described(ulong(SOURCE), [address if not sender else None] + ([None] * 6 + [filters] if filters else []))
        target = Described(ulong(TARGET), [address if sender else None])
        return [name, uint(handle), not sender, ubyte(0), ubyte(0), source, target]

    def close(self):
        self.sock.close()


def publish(url, address, messages):
    conn = BlockingConnection(url, timeout=30)
    try:
        sender = conn.create_sender(address)
        for m in messages:
            sender.send(m)
    finally:
        conn.close()


def condition_name(fields, index):
    """The error's condition symbol of a detach (index 2) or close (index 0) performative."""
    if len(fields) <= index or fields[index] is None:
        return None
    error = fields[index]
    return str(error.value[0])


class TempStoreTest(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.mkdtemp(prefix="sift-hostile-")
        self.servers = []

    def tearDown(self):
        for s in self.servers:
            s.kill()
        shutil.rmtree(self.dir, ignore_errors=True)

    def start(self, *extra):
        server = Server(os.path.join(self.dir, "store-%d" % len(self.servers)), *extra)
        self.servers.append(server)
        return server


class ConnectionFloodTest(TempStoreTest):
    def test_silent_connections_do_not_lock_out_a_real_client(self):
        soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
        want = 4096
        if soft < want:
            if hard != resource.RLIM_INFINITY and hard < want:
                self.skipTest("RLIMIT_NOFILE hard limit %d is below %d" % (hard, want))
            resource.setrlimit(resource.RLIMIT_NOFILE, (want, hard))
        server = self.start()
        silent = []
        # Proton's Python client uses select(): keep descriptors below 1024 free for it.
        placeholders = [os.open(os.devnull, os.O_RDONLY) for _ in range(16)]
        try:
            for _ in range(2000):
                silent.append(socket.create_connection(("127.0.0.1", server.port), timeout=5))
            for fd in placeholders:
                os.close(fd)
            placeholders = []
            started = time.monotonic()
            body = "real client after 2,000 silent sockets"
            publish(server.url, "flood", [Message(body=body)])
            conn = BlockingConnection(server.url, timeout=5)
            try:
                receiver = conn.create_receiver("flood", credit=1)
                got = receiver.receive(timeout=2)
                receiver.accept()
            finally:
                conn.close()
            elapsed = time.monotonic() - started
            print("a real client behind 2,000 silent sockets: %.3f s" % elapsed, file=sys.stderr)
            self.assertEqual(got.body, body)
            self.assertLess(elapsed, 2.0 * SLOWDOWN, "a real client waited %.2f s behind silent sockets" % elapsed)
        finally:
            for fd in placeholders:
                os.close(fd)
            for s in silent:
                s.close()
        self.assertEqual(server.stop(), 0, server.stderr())

    def test_a_socket_without_open_is_closed_at_the_handshake_deadline(self):
        server = self.start("--handshake-timeout", "500ms")
        sock = socket.create_connection(("127.0.0.1", server.port), timeout=5)
        started = time.monotonic()
        try:
            sock.sendall(b"AMQP\x00\x01\x00\x00")  # the header, then nothing
            closed = False
            for _ in range(100):  # bounded: recv returns b"" once the server closes
                chunk = sock.recv(4096)
                if not chunk:
                    closed = True
                    break
            self.assertTrue(closed)
            elapsed = time.monotonic() - started
            self.assertGreater(elapsed, 0.4)
            self.assertLess(elapsed, 3.0)
        finally:
            sock.close()
        self.assertEqual(server.stop(), 0, server.stderr())

    def test_beyond_max_handshakes_the_oldest_socket_is_closed(self):
        server = self.start("--max-handshakes", "4", "--handshake-timeout", "1m")
        socks = [socket.create_connection(("127.0.0.1", server.port), timeout=5) for _ in range(5)]
        try:
            socks[0].settimeout(3)
            self.assertEqual(socks[0].recv(4096), b"", "the oldest socket was not closed")
            socks[4].settimeout(0.5)
            with self.assertRaises(socket.timeout):  # the newest is still open
                socks[4].recv(4096)
            # A real client still gets in (it makes room for itself the same way).
            publish(server.url, "room", [Message(body="in")])
        finally:
            for s in socks:
                s.close()
        self.assertEqual(server.stop(), 0, server.stderr())

    def test_connections_per_address(self):
        server = self.start("--max-connections-per-address", "2")
        first = BlockingConnection(server.url, timeout=5)
        second = BlockingConnection(server.url, timeout=5)
        try:
            raw = RawClient.__new__(RawClient)
            raw.sock = socket.create_connection(("127.0.0.1", server.port), timeout=5)
            raw.buffer = b""
            raw.sock.sendall(b"AMQP\x00\x01\x00\x00")
            raw.send(OPEN, ["third"])
            self.assertEqual(raw.read_exact(8), b"AMQP\x00\x01\x00\x00")
            raw.expect(OPEN)
            fields = raw.expect(CLOSE)
            self.assertEqual(condition_name(fields, 0), "amqp:resource-limit-exceeded")
            self.assertIn("too many connections from 127.0.0.1 (limit 2)", fields[0].value[1])
            raw.close()
        finally:
            first.close()
            second.close()
        self.assertEqual(server.stop(), 0, server.stderr())


class IdleTimeoutTest(TempStoreTest):
    def test_heartbeats_and_silent_peers_closed(self):
        server = self.start("--idle-timeout", "600ms")
        # A client announcing an idle timeout of 400 ms gets empty frames (heartbeats) in time.
        raw = RawClient(server.url, open_fields=["beating", None, None, None, uint(400)])
        try:
            started = time.monotonic()
            size = struct.unpack(">I", raw.read_exact(8)[:4])[0]
            self.assertEqual(size, 8, "the first frame after open should be a heartbeat")
            self.assertLess(time.monotonic() - started, 1.0)
            # Silent itself, it is closed once the server's own 600 ms pass.
            fields = None
            for _ in range(100):
                code, fields, _ = raw.read_frame()
                if code == CLOSE:
                    break
            self.assertEqual(code, CLOSE)
            self.assertEqual(condition_name(fields, 0), "amqp:resource-limit-exceeded")
            self.assertLess(time.monotonic() - started, 3.0)
        finally:
            raw.close()
        self.assertEqual(server.stop(), 0, server.stderr())


def wait_for_log(server, text, seconds):
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if text in server.stderr():
            return True
        time.sleep(0.05)
    return False


def first_frame_within(raw, seconds):
    """The first frame other than a heartbeat the server sends within `seconds`, or None."""
    raw.sock.settimeout(seconds)
    try:
        return raw.read_frame()
    except socket.timeout:
        return None
    finally:
        raw.sock.settimeout(10)


def no_frame_within(raw, seconds):
    """True when the server sends nothing but heartbeats for `seconds`."""
    return first_frame_within(raw, seconds) is None


class AlarmTest(TempStoreTest):
    def test_memory_budget_withholds_producer_credit_until_it_drains(self):
        # Consumers' read-ahead and output have limits of their own, below the budget (docs/serve.md,
        # "Consumers' memory"); what raises the alarm here is a connection's first consumer link,
        # which is always admitted at a fixed cost (12 KiB): 100 connections of one link pass 1 MiB.
        server = self.start("--memory-budget", "1MiB", "--no-sync")
        producer = RawClient(server.url)
        holders = []
        try:
            for i in range(120):
                if "memory alarm raised" in server.stderr():
                    break
                try:
                    holder = RawClient(server.url)
                except RuntimeError as e:  # raised since the look above: this one is refused
                    self.assertIn("amqp:resource-limit-exceeded", str(e))
                    break
                holders.append(holder)
                holder.send(ATTACH, holder.attach_fields("h%d" % i, 0, False, "hoard"))
                holder.expect(ATTACH)
            self.assertTrue(wait_for_log(server, "memory alarm raised", 5), server.stderr())
            # A new connection is refused while the alarm is raised, naming the budget.
            sock = socket.create_connection(("127.0.0.1", server.port), timeout=10)
            late = RawClient.__new__(RawClient)
            late.sock, late.buffer = sock, b""
            try:
                sock.sendall(b"AMQP\x00\x01\x00\x00" + RawClient.frame(OPEN, ["late"]))
                self.assertEqual(late.read_exact(8), b"AMQP\x00\x01\x00\x00")
                late.expect(OPEN)
                close = late.expect(CLOSE)
                self.assertEqual(condition_name(close, 0), "amqp:resource-limit-exceeded")
                self.assertIn("--memory-budget", str(close[0].value[1]))
            finally:
                late.close()
            producer.send(ATTACH, producer.attach_fields("late", 0, True, "hoard"))
            producer.expect(ATTACH)
            got = first_frame_within(producer, 1.0)
            self.assertIsNone(got, "a producer got a frame under the memory alarm: %r\n%s" % (got, server.stderr()))
            for holder in holders:
                holder.close()  # their links go with them
            flow = producer.expect(FLOW)
            self.assertGreater(int(flow[6]), 0)
            self.assertIn("memory alarm cleared", server.stderr())
        finally:
            for holder in holders:
                holder.close()
            producer.close()
        self.assertEqual(server.stop(), 0, server.stderr())

    def test_low_disk_withholds_producer_credit(self):
        server = self.start("--min-disk-free", "1000TiB")
        producer = RawClient(server.url)
        try:
            producer.send(ATTACH, producer.attach_fields("starved", 0, True, "disk"))
            producer.expect(ATTACH)
            self.assertTrue(no_frame_within(producer, 1.0), "a producer got credit under the disk alarm")
        finally:
            producer.close()
        self.assertIn("disk alarm raised", server.stderr())
        self.assertIn("threshold 1000TiB", server.stderr())
        self.assertEqual(server.stop(), 0, server.stderr())


class ProducerCreditTest(TempStoreTest):
    def test_transfer_beyond_credit_detaches_and_is_not_stored(self):
        server = self.start("--producer-credit", "10")
        raw = RawClient(server.url)
        try:
            raw.send(ATTACH, raw.attach_fields("greedy", 0, True, "credit"))
            raw.expect(ATTACH)
            flow = raw.expect(FLOW)
            self.assertEqual(int(flow[6]), 10)  # link-credit
            frames = b""
            for i in range(15):  # 5 beyond the credit, in one burst
                payload = Message(body="m%d" % i).encode()
                frames += raw.frame(TRANSFER, [uint(0), uint(i), b"t%d" % i, uint(0), False], payload)
            raw.sock.sendall(frames)
            detach = None
            for _ in range(100):
                code, fields, _ = raw.read_frame()
                if code == DETACH:
                    detach = fields
                    break
            self.assertIsNotNone(detach, "no detach")
            self.assertEqual(condition_name(detach, 2), "amqp:link:transfer-limit-exceeded")
        finally:
            raw.close()
        # Exactly the 10 transfers within the credit are stored.
        conn = BlockingConnection(server.url, timeout=5)
        try:
            receiver = conn.create_receiver("credit", credit=100)
            bodies = []
            for _ in range(20):
                try:
                    bodies.append(receiver.receive(timeout=1).body)
                    receiver.accept()
                except Exception:
                    break
        finally:
            conn.close()
        self.assertEqual(bodies, ["m%d" % i for i in range(10)])
        self.assertEqual(server.stop(), 0, server.stderr())


class StreamNameTest(TempStoreTest):
    """Names that are not UTF-8, hold control characters or are too long are refused at attach with
    amqp:invalid-field naming the rule, and no stream is created: a name must be fit for a metrics
    label, a log line and an address."""

    def attach_refused(self, raw, handle, sender, address_bytes):
        # Proton encodes only valid strings: encode a placeholder of the same length, then put the
        # raw bytes in its place (the str8 size is unchanged).
        placeholder = "n" * len(address_bytes)
        frame = raw.frame(ATTACH, raw.attach_fields("bad-%d" % handle, handle, sender, placeholder))
        self.assertEqual(frame.count(placeholder.encode()), 1)
        raw.sock.sendall(frame.replace(placeholder.encode(), address_bytes))
        for _ in range(10):
            size, doff, _, _ = struct.unpack(">IBBH", raw.read_exact(8))
            body = raw.read_exact(size - 8)[doff * 4 - 8:]
            # The attach that answers echoes the client's own terminus, bytes and all: Proton cannot
            # decode it as a string, and only the detach after it matters here.
            if body[:3] == bytes([0x00, 0x53, DETACH]):
                data = Data()
                data.decode(body)
                data.rewind()
                data.next()
                error = data.get_object().value[2]
                return str(error.value[0]), str(error.value[1])
        self.fail("no detach for %r" % address_bytes)

    def test_bad_names_are_refused_and_not_created(self):
        server = self.start()
        raw = RawClient(server.url)
        cases = [
            (b"bad-\xff\xfe", "not UTF-8: byte 0xff at byte 4"),
            (b"cut-\xe2\x82", "ends inside the sequence at byte 4"),
            (b"overlong-\xc0\xae", "not UTF-8"),
            (b"line\xc2\x85break", "control character (U+0085) at byte 4"),
            (b"tab\tname", "control character (U+0009) at byte 3"),
            (b"x" * 256, "must be 1..255 bytes, got 256 bytes"),
        ]
        try:
            handle = 0
            for name, why in cases:
                for sender in (True, False):
                    condition, description = self.attach_refused(raw, handle, sender, name)
                    handle += 1
                    self.assertEqual(condition, "amqp:invalid-field", (name, description))
                    self.assertIn(why, description, name)
                    self.assertTrue(description.isprintable(), description)
        finally:
            raw.close()
        # A valid name of 255 bytes, non-ASCII included, still works end to end.
        good = "é" * 127 + "x"
        self.assertEqual(len(good.encode()), 255)
        publish(server.url, good, [Message(body="kept")])
        conn = BlockingConnection(server.url, timeout=5)
        try:
            receiver = conn.create_receiver(good, credit=10)
            self.assertEqual(receiver.receive(timeout=5).body, "kept")
            receiver.accept()
        finally:
            conn.close()
        self.assertEqual(server.stop(), 0, server.stderr())
        streams = subprocess.run([os.environ["SIFT_CLI"], "streams", "--store", server.store],
                                 capture_output=True, text=True, timeout=30)
        self.assertEqual(streams.stdout.splitlines(), [good], streams.stderr)


SASL_MECHANISMS, SASL_INIT, SASL_OUTCOME = 0x40, 0x41, 0x44


def sasl_plain(url, user, password, source=None, timeout=15.0):
    """One SASL PLAIN login over a raw socket (no AMQP after it): the outcome code (0 ok, 1 auth)."""
    host, port = url.rsplit(":", 1)
    sock = socket.create_connection((host, int(port)), timeout=timeout,
                                    source_address=(source, 0) if source else None)
    try:
        sock.sendall(b"AMQP\x03\x01\x00\x00")
        body = performative(SASL_INIT, [symbol("PLAIN"), ("\0%s\0%s" % (user, password)).encode()])
        sock.sendall(struct.pack(">IBBH", 8 + len(body), 2, 1, 0) + body)
        raw = RawClient.__new__(RawClient)
        raw.sock, raw.buffer = sock, b""
        if raw.read_exact(8) != b"AMQP\x03\x01\x00\x00":
            raise RuntimeError("no SASL header")
        for _ in range(2):
            code, fields, _ = raw.read_frame()
            if code == SASL_OUTCOME:
                return int(fields[0])
        raise RuntimeError("no SASL outcome")
    finally:
        sock.close()


def guess_passwords(url, threads, seconds, attempts):
    """`threads` threads logging in with wrong passwords for `seconds` (alice and unknown names, as a
    password-guessing client would); the attempts made go into the shared counter `attempts`."""
    stop = time.monotonic() + seconds

    def guess(n):
        i = 0
        while time.monotonic() < stop:
            user = "alice" if i % 2 == 0 else "guess-%d-%d" % (n, i)
            try:
                sasl_plain(url, user, "wrong-%d-%d" % (n, i))
            except (OSError, EOFError, RuntimeError):
                pass
            i += 1
            with attempts.get_lock():
                attempts.value += 1

    workers = [threading.Thread(target=guess, args=(n,)) for n in range(threads)]
    for w in workers:
        w.start()
    for w in workers:
        w.join()


@unittest.skipUnless(os.environ.get("SIFT_CLI"), "SIFT_CLI is not set to the sift binary")
class PasswordGuessingTest(TempStoreTest):
    """64 threads logging in with wrong passwords (from another process, so that the measuring client
    shares no interpreter with them): a client logged in before keeps its publish-to-consume round trip
    (p99 <= 20 ms), new legitimate clients connect within 1 s, and the log names no password."""

    THREADS = 64
    SECONDS = 8.0

    def users_file(self):
        path = os.path.join(self.dir, "users")
        for user, password in (("alice", "alice's secret"), ("bob", "bob's secret")):
            r = subprocess.run([os.environ["SIFT_CLI"], "users", "add", "--file", path, user], input=password + "\n",
                               capture_output=True, text=True, timeout=60)
            self.assertEqual(r.returncode, 0, r.stderr)
            r = subprocess.run([os.environ["SIFT_CLI"], "users", "grant", "--file", path, user, "all", "*"],
                               capture_output=True, text=True, timeout=60)
            self.assertEqual(r.returncode, 0, r.stderr)
        return path

    def connect(self, url, user):
        return BlockingConnection(url, timeout=10, user=user, password=user + "'s secret", allowed_mechs="PLAIN",
                                  allow_insecure_mechs=True)

    def test_wrong_passwords_do_not_stall_logged_in_clients(self):
        server = self.start("--users", self.users_file(), "--no-sync", "--metrics", "127.0.0.1:0")
        conn = self.connect(server.url, "alice")
        try:
            sender = conn.create_sender("rtt")
            receiver = conn.create_receiver("rtt", credit=10)

            def round_trip(i):
                started = time.monotonic()
                sender.send(Message(body="ping-%d" % i))
                got = receiver.receive(timeout=10)
                receiver.accept()
                self.assertEqual(got.body, "ping-%d" % i)
                return time.monotonic() - started

            for i in range(50):  # warm
                round_trip(i)
            attempts = multiprocessing.Value("l", 0)
            attack = multiprocessing.get_context("fork").Process(
                target=guess_passwords, args=(server.url, self.THREADS, self.SECONDS, attempts))
            attack.start()
            try:
                time.sleep(1.0)  # the guessers are all at it
                rtts = []
                joined = {}
                i = 50
                end = time.monotonic() + self.SECONDS - 2.0
                while time.monotonic() < end:
                    rtts.append(round_trip(i))
                    i += 1
                    if i == 300:
                        # New legitimate clients: another user from the guessers' address, and the
                        # guessed user herself from another address.
                        started = time.monotonic()
                        self.connect(server.url, "bob").close()
                        joined["bob, same address"] = time.monotonic() - started
                        started = time.monotonic()
                        self.assertEqual(sasl_plain(server.url, "alice", "alice's secret", source="127.0.0.2"), 0)
                        joined["alice, another address"] = time.monotonic() - started
                    time.sleep(0.002)
            finally:
                attack.join(timeout=self.SECONDS + 30)
        finally:
            conn.close()
        rtts.sort()
        p50, p99 = rtts[len(rtts) // 2], rtts[min(len(rtts) - 1, int(len(rtts) * 0.99))]
        print("%d guessing threads, %d attempts: %d round trips, p50 %.2f ms, p99 %.2f ms, max %.2f ms; joined: %s"
              % (self.THREADS, attempts.value, len(rtts), p50 * 1e3, p99 * 1e3, rtts[-1] * 1e3,
                 ", ".join("%s %.3f s" % kv for kv in joined.items())), file=sys.stderr)
        self.assertGreater(attempts.value, self.THREADS, "the guessers made no attempts")
        self.assertGreaterEqual(len(rtts), 200)
        self.assertLessEqual(p99, 0.020 * SLOWDOWN, "p99 round trip %.1f ms while passwords are guessed" % (p99 * 1e3))
        self.assertEqual(len(joined), 2)
        for who, took in joined.items():
            self.assertLess(took, 1.0 * SLOWDOWN, "%s took %.2f s to log in" % (who, took))
        log = server.stderr()
        self.assertIn("login failed", log)
        self.assertIn("too many failed logins for this user from this address", log)
        self.assertNotIn("wrong-", log, "a password reached the log")
        page = urllib.request.urlopen("http://127.0.0.1:%d/metrics" % server.metrics_port, timeout=10).read().decode()
        counts = dict(re.findall(r'^(sift_(?:password_checks|logins_unchecked)_total\{[^}]*\}) (\d+)$', page, re.M))
        print("login metrics: %s" % counts, file=sys.stderr)
        self.assertGreater(int(counts['sift_password_checks_total{result="rejected"}']), 0)
        self.assertGreater(int(counts['sift_logins_unchecked_total{reason="locked_out"}']), 0)
        self.assertGreater(int(counts['sift_password_checks_total{result="accepted"}']), 0)
        self.assertEqual(server.stop(), 0, server.stderr())


class ChurnTest(TempStoreTest):
    BATCH = 250

    def cycles(self, raw, count, sender, start):
        """count attach/detach cycles, pipelined BATCH at a time (handles reused once detached)."""
        done = 0
        while done < count:
            n = min(self.BATCH, count - done)
            frames = b""
            for h in range(n):
                name = "churn-%s-%d" % ("p" if sender else "c", start + done + h)
                frames += raw.frame(ATTACH, raw.attach_fields(name, h, sender, "churn"))
                frames += raw.frame(DETACH, [uint(h), True])
            raw.sock.sendall(frames)
            detached = 0
            for _ in range(10 * n + 100):
                code, fields, _ = raw.read_frame()
                if code == DETACH:
                    detached += 1
                    if detached == n:
                        break
            self.assertEqual(detached, n)
            done += n

    def test_attach_detach_churn_keeps_memory_flat(self):
        server = self.start()
        raw = RawClient(server.url, timeout=30)
        try:
            self.cycles(raw, 1000, True, 0)  # warm up: caches, allocator arenas
            self.cycles(raw, 1000, False, 0)
            before = server.rss()
            self.cycles(raw, 5000, True, 1000)
            self.cycles(raw, 5000, False, 1000)
            after = server.rss()
        finally:
            raw.close()
        growth = after - before
        print("RSS over 10,000 attach/detach cycles: %d -> %d bytes" % (before, after), file=sys.stderr)
        if not SANITIZED:
            self.assertLess(growth, 5 << 20, "RSS grew by %d bytes over 10,000 attach/detach cycles" % growth)
        self.assertEqual(server.stop(), 0, server.stderr())


    def test_detach_with_transfers_in_flight(self):
        """Links freed while their transfers are still being appended: the outcomes are dropped, the
        server stays up and keeps serving."""
        server = self.start()
        raw = RawClient(server.url, timeout=30)
        try:
            payload = Message(body="in flight").encode()
            for k in range(200):
                raw.send(ATTACH, raw.attach_fields("flight-%d" % k, 0, True, "flight"))
                raw.expect(ATTACH)
                raw.expect(FLOW)
                frames = b"".join(raw.frame(TRANSFER, [uint(0), uint(k * 20 + i), b"t%d" % i, uint(0), False], payload)
                                  for i in range(20))
                raw.sock.sendall(frames + raw.frame(DETACH, [uint(0), True]))
                for _ in range(100):
                    code, _, _ = raw.read_frame()
                    if code == DETACH:
                        break
                self.assertEqual(code, DETACH)
        finally:
            raw.close()
        publish(server.url, "flight", [Message(body="after")])
        conn = BlockingConnection(server.url, timeout=5)
        try:
            receiver = conn.create_receiver("flight", credit=10, options=Filter(
                {symbol("sql-filter"): Described(symbol("amqp:sql-filter"), "TRUE")}))
            got = receiver.receive(timeout=5)
            self.assertEqual(got.body, "in flight")
        finally:
            conn.close()
        self.assertEqual(server.stop(), 0, server.stderr())


class SlowConsumerTest(TempStoreTest):
    BUDGET = 64 << 20

    def test_a_consumer_that_never_reads_costs_a_bounded_amount(self):
        server = self.start("--memory-budget", "64MiB", "--no-sync")
        big = "x" * (1 << 20)
        # ~300 MB, several times the budget, in 1 MiB messages.
        publish(server.url, "big", (Message(body=big, properties={"n": i}) for i in range(300)))
        baseline = server.rss()
        sock = socket.socket()
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 64 << 10)
        sock.settimeout(10)
        sock.connect(("127.0.0.1", server.port))
        raw = RawClient.__new__(RawClient)
        raw.sock, raw.buffer = sock, b""
        try:
            sock.sendall(b"AMQP\x00\x01\x00\x00")
            raw.send(OPEN, ["hoarder"])
            raw.send(BEGIN, [None, uint(0), uint(0x7FFFFFFF), uint(0x7FFFFFFF)])
            raw.send(ATTACH, raw.attach_fields("hoard", 0, False, "big"))
            raw.send(FLOW, [uint(0), uint(0x7FFFFFFF), uint(0), uint(0x7FFFFFFF), uint(0), uint(0), uint(1000000)])
            # Never read again; watch the server for 4 s.
            peak = baseline
            deadline = time.monotonic() + 4
            while time.monotonic() < deadline:
                peak = max(peak, server.rss())
                time.sleep(0.1)
            # Another client is still served meanwhile.
            conn = BlockingConnection(server.url, timeout=5)
            try:
                receiver = conn.create_receiver("big", credit=1)
                self.assertEqual(receiver.receive(timeout=5).properties["n"], 0)
            finally:
                conn.close()
        finally:
            raw.close()
        growth = peak - baseline
        print("RSS behind a consumer that never reads: baseline %d, peak %d bytes" % (baseline, peak), file=sys.stderr)
        if not SANITIZED:
            self.assertLess(growth, self.BUDGET,
                            "RSS grew from %d to %d behind a consumer that never reads" % (baseline, peak))
        self.assertEqual(server.stop(), 0, server.stderr())


class MemoryReturnTest(TempStoreTest):
    def test_memory_goes_back_when_hoarding_clients_leave(self):
        # 4 connections x 32 receiver links, credit 100 each, reading nothing, over 1 MB messages: the
        # server buffers hundreds of MB for them; once they are gone its RSS returns near its start.
        server = self.start("--no-sync")
        publish(server.url, "big", (Message(body="x" * 1000000, properties={"n": i}) for i in range(16)))
        time.sleep(0.5)
        baseline = server.rss()
        socks = []
        try:
            for c in range(4):
                sock = socket.socket()
                sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
                sock.settimeout(10)
                sock.connect(("127.0.0.1", server.port))
                socks.append(sock)
                raw = RawClient.__new__(RawClient)
                raw.sock, raw.buffer = sock, b""
                sock.sendall(b"AMQP\x00\x01\x00\x00")
                raw.send(OPEN, ["hoarder-%d" % c])
                raw.send(BEGIN, [None, uint(0), uint(0x7FFFFFFF), uint(0x7FFFFFFF)])
                for h in range(32):
                    raw.send(ATTACH, raw.attach_fields("h%d" % h, h, False, "big"))
                    raw.send(FLOW, [uint(0), uint(0x7FFFFFFF), uint(0), uint(0x7FFFFFFF), uint(h), uint(0), uint(100)])
            peak = baseline
            deadline = time.monotonic() + 3
            while time.monotonic() < deadline:
                peak = max(peak, server.rss())
                time.sleep(0.1)
        finally:
            for sock in socks:
                sock.close()
        after = server.rss()
        deadline = time.monotonic() + 5 * SLOWDOWN
        while time.monotonic() < deadline and after > baseline + (64 << 20):
            time.sleep(0.2)
            after = server.rss()
        print("RSS: baseline %d, peak %d, after the hoarders left %d bytes" % (baseline, peak, after), file=sys.stderr)
        if not SANITIZED:
            self.assertLess(after, baseline + (64 << 20),
                            "RSS stayed at %d (from %d, peak %d) after the clients left" % (after, baseline, peak))
        self.assertEqual(server.stop(), 0, server.stderr())


class HoardingConsumersTest(TempStoreTest):
    """Many connections of many links that grant credit and never read, over messages far larger than a
    slice: the server holds about its budget (bench/serve/hoard runs the full size: 1,024 x 64)."""

    BUDGET = 64 << 20

    def hoard(self, message_bytes, messages, connections, links):
        server = self.start("--memory-budget", "64MiB", "--no-sync", "--max-connections", str(connections + 16))
        conn = BlockingConnection(server.url, timeout=60)
        try:
            sender = conn.create_sender("big")
            for i in range(messages):
                sender.send(Message(body=b"x" * message_bytes, properties={"n": i}))
        finally:
            conn.close()
        figures = hoarders.hoard(server, connections, links, "big", "probe", hold_seconds=3 * SLOWDOWN, log=sys.stderr)
        self.assertFalse(figures["died"], server.stderr())
        # bench/serve/hoard holds the full size to 1 s; here, on a shared CI machine, 2 s: a round trip
        # already takes 0.3 s when the machine is loaded, and one in ten waits behind a 8 MB read.
        self.assertLess(figures["probe"], 2.0 * SLOWDOWN,
                        "a fresh client waited %.3f s %s" % (figures["probe"], figures["failures"]))
        if not SANITIZED:
            self.assertLess(figures["peak"], self.BUDGET + (128 << 20),
                            "RSS peaked at %d (from %d) for a budget of %d" %
                            (figures["peak"], figures["baseline"], self.BUDGET))
            self.assertLess(figures["after"], figures["baseline"] + (64 << 20),
                            "RSS stayed at %d (from %d) after the clients left" % (figures["after"], figures["baseline"]))
        self.assertEqual(server.stop(), 0, server.stderr())

    def test_large_messages(self):
        self.hoard(8 << 20, 4, 128, 16)

    def test_megabyte_messages(self):
        self.hoard(1 << 20, 32, 128, 16)


class ConsumerLinkShareTest(TempStoreTest):
    def test_links_beyond_the_share_are_refused_then_the_connection_closed(self):
        # 1 MiB budget: consumer links may hold 1/8 of it, 128 KiB, at 12 KiB each: 10 links.
        server = self.start("--memory-budget", "1MiB", "--no-sync")
        raw = RawClient(server.url)
        try:
            admitted = 0
            refusals = []
            for handle in range(40):
                raw.send(ATTACH, raw.attach_fields("l%d" % handle, handle, False, "shared"))
                attach = raw.expect(ATTACH)
                if attach[5] is not None and attach[5].value[0] is not None:  # our source: admitted
                    admitted += 1
                    self.assertEqual(refusals, [], "a link was admitted after one was refused")
                    continue
                detach = raw.expect(DETACH)
                self.assertEqual(condition_name(detach, 2), "amqp:resource-limit-exceeded")
                refusals.append(str(detach[2].value[1]))
                if len(refusals) == 16:
                    break
            self.assertEqual(admitted, 10)
            self.assertEqual(len(refusals), 16)
            self.assertEqual(refusals[0], "consumer links hold their share of the server's memory "
                                          "(10 links, 1/8 of --memory-budget 1MiB); this connection has 10")
            # The 16th refusal closes the connection: its refused links' state goes only with it.
            close = raw.expect(CLOSE)
            self.assertEqual(condition_name(close, 0), "amqp:resource-limit-exceeded")
            self.assertIn("and was refused 16 consumer links", str(close[0].value[1]))
            # Not answering the close, the socket is dropped after the grace (1 s).
            raw.sock.settimeout(5 * SLOWDOWN)
            started = time.monotonic()
            with self.assertRaises(EOFError):
                while True:
                    raw.read_frame()
            self.assertLess(time.monotonic() - started, 3.0 * SLOWDOWN)
        finally:
            raw.close()
        # Its links went with it: a new client's consumer and producer are served.
        self.assertLess(hoarders.round_trip(server.url, "shared"), 2.0 * SLOWDOWN)
        self.assertEqual(server.stop(), 0, server.stderr())


class FairnessTest(TempStoreTest):
    PATTERN = "%" + "a" * 500 + "_" + "a" * 500 + "b%"

    def test_costly_filters_do_not_starve_others_and_sigterm_is_prompt(self):
        server = self.start()
        # Holds the pattern's required literal (500 a's then b), so no byte search rules a message
        # out, but never 500 a's, one character and 500 a's before a b: every message costs a full
        # bit-parallel LIKE search of its 64 KB text, and never matches.
        text = ("a" * 499 + "c") * 130 + "a" * 500 + "b"
        publish(server.url, "costly", (Message(body=i, properties={"color": text}) for i in range(1200)))
        publish(server.url, "cheap", [Message(body="unrelated")])
        costly = []
        selector = {symbol("sql-filter"): Described(symbol("amqp:sql-filter"), "color LIKE '%s'" % self.PATTERN)}

        def attach_costly():
            for _ in range(2):
                conn = BlockingConnection(server.url, timeout=5)
                costly.append(conn)
                conn.create_receiver("costly", credit=10, options=Filter(selector))

        try:
            attach_costly()
            # Both reader threads busy with the costly scans before the unrelated consumer comes: the server
            # has spent 0.2 s of CPU on them (waited for, not assumed after a sleep: on a loaded machine
            # the server may get less than half a core at first).
            busy_from = server.cpu_seconds()
            deadline = time.monotonic() + 10 * SLOWDOWN
            while server.cpu_seconds() - busy_from <= 0.2 and time.monotonic() < deadline:
                time.sleep(0.05)
            self.assertGreater(server.cpu_seconds() - busy_from, 0.2, "the costly scans are not running")
            conn = BlockingConnection(server.url, timeout=5)
            try:
                started = time.monotonic()
                receiver = conn.create_receiver("cheap", credit=1)
                got = receiver.receive(timeout=5)
                elapsed = time.monotonic() - started
            finally:
                conn.close()
            print("first message of an unrelated consumer after %.3f s" % elapsed, file=sys.stderr)
            self.assertEqual(got.body, "unrelated")
            self.assertLess(elapsed, 1.0 * SLOWDOWN, "an unrelated consumer waited %.2f s behind costly scans" % elapsed)
            # Scans stop with their consumers' connections: the server goes idle.
            for c in costly:
                c.close()
            costly.clear()
            time.sleep(0.3)
            idle_from = server.cpu_seconds()
            time.sleep(1.0)
            spent = server.cpu_seconds() - idle_from
            self.assertLess(spent, 0.2 * SLOWDOWN, "the server spent %.2f s of CPU on scans of closed consumers" % spent)
            # SIGTERM while costly scans run: a clean exit within the documented 10 s.
            attach_costly()
            time.sleep(0.3)
            started = time.monotonic()
            server.proc.send_signal(signal.SIGTERM)
            code = server.proc.wait(timeout=20)
            elapsed = time.monotonic() - started
            print("SIGTERM during costly scans: exit %d after %.2f s" % (code, elapsed), file=sys.stderr)
            self.assertEqual(code, 0, server.stderr())
            self.assertLess(elapsed, 10.0 * SLOWDOWN, "SIGTERM took %.1f s" % elapsed)
        finally:
            for c in costly:
                try:
                    c.close()
                except Exception:
                    pass


if __name__ == "__main__":
    if not SERVE:
        raise SystemExit("set SIFT_SERVE to the sift-serve binary")
    unittest.main()
