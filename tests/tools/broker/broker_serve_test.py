#!/usr/bin/python3
"""`sift replay --to`, `sift filter --to` and `sift capture --from` with `sift serve` as the broker.

Always runs (no outside broker needed). Covered: the matches sent to serve are stored there byte for
byte as the sending store holds them, and the offsets printed are those the broker accepted; serve's
--max-message-size refuses a message: exit 2 naming its offset and the broker's condition, nothing
after it reported, or with --on-refused skip one warning per refusal and the rest sent; --rate paces
the sending; capture stores what serve delivers (--count, --idle-exit), a SIGTERM ends it cleanly, and it reconnects
when serve is killed and started again;
SASL PLAIN with a users file, a wrong password refused; TLS with --tls-ca, an untrusted certificate
refused; SASL EXTERNAL with a client certificate signed by a throwaway CA, refused without one; a
malformed message from a broker (one written here that delivers any bytes) rejected with its reason
while the well-formed ones around it are stored and accepted; --max-held bounding the bytes such a
broker pushes (it sends as far as credit goes); and every bad input (URL, flags,
unreachable host) exits 2 with its error line.
"""

import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
import unittest

from proton import Message
from proton.handlers import MessagingHandler
from proton.reactor import Container

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from broker_common import CLI, Serve, read_records, sift, stored  # noqa: E402
from rabbitmq import free_port  # noqa: E402

COUNT = 2000
SQL = "region = 'eu-west' AND amount > 300"


class ByteBroker(MessagingHandler):
    """A broker of one address written with python-qpid-proton that delivers the given bytes as they are
    (well-formed or not: sift serve and RabbitMQ refuse malformed messages before they could deliver
    them) and records each outcome its receiver gives."""

    def __init__(self, port, payloads):
        super().__init__(auto_accept=False, auto_settle=False)
        self.url = "127.0.0.1:%d" % port
        self.payloads = list(payloads)
        self.sent = 0
        self.outcomes = {}

    def on_start(self, event):
        self.acceptor = event.container.listen(self.url)

    def on_sendable(self, event):
        while self.sent < len(self.payloads) and event.sender.credit > 0:
            event.sender.delivery(str(self.sent))
            event.sender.stream(self.payloads[self.sent])
            event.sender.advance()
            self.sent += 1

    def settled(self, event, outcome):
        self.outcomes[int(event.delivery.tag)] = (outcome, event.delivery.remote.condition)
        event.delivery.settle()

    def on_accepted(self, event):
        self.settled(event, "accepted")

    def on_rejected(self, event):
        self.settled(event, "rejected")

    def on_released(self, event):
        self.settled(event, "released")


class ServePeerTest(unittest.TestCase):

    @classmethod
    def setUpClass(cls):
        if not CLI:
            raise unittest.SkipTest("SIFT_CLI is not set")
        cls.dir = tempfile.mkdtemp(prefix="sift-broker-serve-")
        cls.records = os.path.join(cls.dir, "in.amqp")
        r = sift("gen", "--count", COUNT, "-o", cls.records)
        assert r.returncode == 0, r.stderr
        cls.store = os.path.join(cls.dir, "src")
        r = sift("append", "--store", cls.store, "--stream", "orders", cls.records)
        assert r.returncode == 0, r.stderr
        cls.matches = [int(x) for x in sift("replay", "--store", cls.store, "--stream", "orders", "--sql",
                                            SQL).stdout.split()]
        assert 50 < len(cls.matches) < COUNT

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.dir, ignore_errors=True)

    def serve(self, *extra):
        store = tempfile.mkdtemp(dir=self.dir)
        server = Serve(os.path.join(store, "s"), *extra)
        self.addCleanup(server.stop)
        return server

    def test_replay_to_serve_is_byte_identical(self):
        server = self.serve()
        r = sift("replay", "--store", self.store, "--stream", "orders", "--sql", SQL, "--to", server.url("copy"),
                 "--stats")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual([int(x) for x in r.stdout.split()], self.matches)  # accepted, in order
        self.assertIn("sent %d, accepted %d, refused 0" % (len(self.matches), len(self.matches)), r.stderr)
        self.assertEqual(stored(server.store, "copy"), stored(self.store, "orders", "--sql", SQL))

    def test_filter_to_serve_is_byte_identical(self):
        server = self.serve()
        r = sift("filter", "--sql", SQL, "--to", server.url("copy"), "-f", "count", self.records)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(r.stdout.strip(), str(len(self.matches)))
        with open(self.records, "rb") as f:
            everything = read_records(f.read())
        self.assertEqual(stored(server.store, "copy"), [everything[i] for i in self.matches])

    def test_refused_message_stops_with_its_offset(self):
        everything = stored(self.store, "orders")
        limit = sorted(len(everything[i]) for i in self.matches)[len(self.matches) // 2]
        first_big = next(i for i in self.matches if len(everything[i]) > limit)
        server = self.serve("--max-message-size", str(limit))
        r = sift("replay", "--store", self.store, "--stream", "orders", "--sql", SQL, "--to", server.url("copy"))
        self.assertEqual(r.returncode, 2, r.stderr)
        self.assertRegex(r.stderr, r"^sift: refused by amqp://127\.0\.0\.1:%d/copy: offset %d: rejected: "
                         r"amqp:link:message-size-exceeded: " % (server.port, first_big))
        accepted = [int(x) for x in r.stdout.split()]
        self.assertTrue(set(accepted) <= {i for i in self.matches if len(everything[i]) <= limit})
        self.assertEqual(len(stored(server.store, "copy")), len(accepted))  # nothing reported it did not take

    def test_refused_messages_skipped(self):
        everything = stored(self.store, "orders")
        limit = sorted(len(everything[i]) for i in self.matches)[len(self.matches) // 2]
        small = [i for i in self.matches if len(everything[i]) <= limit]
        server = self.serve("--max-message-size", str(limit))
        r = sift("replay", "--store", self.store, "--stream", "orders", "--sql", SQL, "--to", server.url("copy"),
                 "--on-refused", "skip", "--stats")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual([int(x) for x in r.stdout.split()], small)
        warnings = [line for line in r.stderr.splitlines() if line.startswith("sift: warning: offset ")]
        self.assertEqual(len(warnings), len(self.matches) - len(small))
        self.assertIn("refused %d" % (len(self.matches) - len(small)), r.stderr)
        self.assertEqual(stored(server.store, "copy"), [everything[i] for i in small])

    def test_rate_limits_sending(self):
        server = self.serve()
        start = time.monotonic()
        r = sift("replay", "--store", self.store, "--stream", "orders", "--to", server.url("copy"), "--rate", "200",
                 "-c", "100", "-f", "count")
        elapsed = time.monotonic() - start
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(r.stdout.strip(), "100")
        self.assertGreaterEqual(elapsed, 0.45)  # 100 messages at 200/s: the 100th is due at 0.495 s

    def test_capture_from_serve(self):
        server = self.serve()
        r = sift("replay", "--store", self.store, "--stream", "orders", "--to", server.url("orders"), "-f", "count")
        self.assertEqual(r.returncode, 0, r.stderr)
        out = os.path.join(tempfile.mkdtemp(dir=self.dir), "cap")
        r = sift("capture", "--store", out, "--stream", "cap", "--from", server.url("orders"), "--count", "700",
                 "--stats")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(r.stdout.strip(), "0..699")
        self.assertIn("stored 700,", r.stderr)
        r = sift("capture", "--store", out, "--stream", "all", "--from", server.url("orders"), "--idle-exit", "500ms")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(r.stdout.strip(), "0..%d" % (COUNT - 1))
        self.assertEqual(len(stored(out, "all")), COUNT)

    def test_capture_with_compression(self):
        server = self.serve()
        r = sift("replay", "--store", self.store, "--stream", "orders", "--to", server.url("orders"), "-f", "count")
        self.assertEqual(r.returncode, 0, r.stderr)
        out = os.path.join(tempfile.mkdtemp(dir=self.dir), "cap")
        r = sift("capture", "--store", out, "--stream", "plain", "--from", server.url("orders"), "--count", "300")
        self.assertEqual(r.returncode, 0, r.stderr)
        r = sift("capture", "--store", out, "--stream", "cap", "--from", server.url("orders"), "--count", "300",
                 "--compression", "zstd:3")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(r.stdout.strip(), "0..299")
        info = sift("stream", "info", "--store", out, "--stream", "cap")
        self.assertEqual(info.returncode, 0, info.stderr)
        self.assertIn("compression=zstd:3", info.stdout)
        self.assertIn("compression=none", sift("stream", "info", "--store", out, "--stream", "plain").stdout)
        # Stored compressed, read back as sent.
        self.assertEqual(stored(out, "cap"), stored(out, "plain"))
        # A later capture without the flag keeps the stream's setting; with it, changes it.
        r = sift("capture", "--store", out, "--stream", "cap", "--from", server.url("orders"), "--count", "10")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn("compression=zstd:3", sift("stream", "info", "--store", out, "--stream", "cap").stdout)
        r = sift("capture", "--store", out, "--stream", "cap", "--from", server.url("orders"), "--count", "10",
                 "--compression", "none")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn("compression=none", sift("stream", "info", "--store", out, "--stream", "cap").stdout)

    def test_capture_rejects_a_malformed_message_and_stores_the_rest(self):
        good = [Message(body="first", properties={"n": 1}).encode(), Message(body="third", properties={"n": 3}).encode()]
        malformed = good[0][:-3]  # the body's value cut short
        r, outcomes, out = self.capture_from_byte_broker([good[0], malformed, good[1]], "--idle-exit", "1s")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(r.stdout.strip(), "0..1")
        self.assertEqual(stored(out, "cap"), good)
        self.assertIn("rejected a message the store refuses", r.stderr)
        self.assertIn("rejected 1,", r.stderr)
        self.assertEqual([outcomes[i][0] for i in range(3)], ["accepted", "rejected", "accepted"])
        condition = outcomes[1][1]
        self.assertIsNotNone(condition, "a rejection carries the reason")
        self.assertEqual(condition.name, "amqp:decode-error")
        self.assertTrue(condition.description)

    def capture_from_byte_broker(self, payloads, *flags):
        """Runs `sift capture --stats FLAGS` against a ByteBroker of `payloads` until it ends: the result,
        the broker's outcomes (waited for, up to 5 s) and the store."""
        broker = ByteBroker(free_port(), payloads)
        container = Container(broker)
        thread = threading.Thread(target=container.run, daemon=True)
        thread.start()
        try:
            time.sleep(0.3)  # the listener is up
            out = os.path.join(tempfile.mkdtemp(dir=self.dir), "cap")
            r = sift("capture", "--store", out, "--stream", "cap", "--from", "amqp://%s/q" % broker.url,
                     "--stats", *flags, timeout=120)
            deadline = time.monotonic() + 5
            while len(broker.outcomes) < len(payloads) and time.monotonic() < deadline:
                time.sleep(0.05)
            return r, broker.outcomes, out
        finally:
            container.stop()
            thread.join(5)

    def test_capture_holds_at_most_max_held_bytes(self):
        # A broker that sends as far as credit goes, at once (sift serve caps what a connection holds;
        # this one does not), with 1 MiB messages: --credit alone would let it push 10000 of them.
        payloads = [Message(body="%04d" % i + "x" * (1 << 20), properties={"n": i}).encode() for i in range(64)]
        for budget, most in (("4MiB", 4 << 20), ("1KiB", len(payloads[0]))):
            with self.subTest(max_held=budget):
                # Under 1 KiB the window is one message: each still goes through, alone.
                sent = payloads if budget == "4MiB" else payloads[:8]
                r, outcomes, out = self.capture_from_byte_broker(sent, "--count", str(len(sent)), "--max-held", budget)
                self.assertEqual(r.returncode, 0, r.stderr)
                self.assertEqual(r.stdout.strip(), "0..%d" % (len(sent) - 1))
                self.assertEqual(stored(out, "cap"), sent)
                self.assertEqual([outcomes[i][0] for i in range(len(sent))], ["accepted"] * len(sent))
                held = int(re.search(r"held at most (\d+) bytes", r.stderr).group(1))
                self.assertGreaterEqual(held, len(payloads[0]))
                self.assertLessEqual(held, most, r.stderr)  # the sizes are even: the estimate is exact

    def test_capture_sigterm_stops_cleanly(self):
        server = self.serve()
        out = os.path.join(tempfile.mkdtemp(dir=self.dir), "cap")
        proc = subprocess.Popen([CLI, "capture", "--store", out, "--stream", "cap", "--from", server.url("orders"),
                                 "--stats"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        time.sleep(0.5)
        r = sift("replay", "--store", self.store, "--stream", "orders", "--to", server.url("orders"), "-f", "count")
        self.assertEqual(r.returncode, 0, r.stderr)
        time.sleep(0.5)
        proc.send_signal(signal.SIGTERM)
        stdout, stderr = proc.communicate(timeout=30)
        self.assertEqual(proc.returncode, 0, stderr)
        self.assertIn("stored %d," % COUNT, stderr)
        self.assertEqual(len(stored(out, "cap")), COUNT)

    def test_capture_reconnects_after_the_broker_restarts(self):
        port = free_port()
        store = os.path.join(tempfile.mkdtemp(dir=self.dir), "s")

        def start():
            proc = subprocess.Popen([CLI, "serve", "--listen", "127.0.0.1:%d" % port, "--store", store],
                                    stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
            self.assertIn("listening on", proc.stdout.readline())
            return proc

        server = start()
        url = "amqp://127.0.0.1:%d/orders" % port
        r = sift("replay", "--store", self.store, "--stream", "orders", "--to", url, "-f", "count")
        self.assertEqual(r.returncode, 0, r.stderr)
        out = os.path.join(tempfile.mkdtemp(dir=self.dir), "cap")
        capture = subprocess.Popen([CLI, "capture", "--store", out, "--stream", "cap", "--from", url, "--idle-exit",
                                    "3s", "--stats"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        time.sleep(1)
        server.kill()  # the broker dies under the capture
        server.wait()
        server.stdout.close()
        time.sleep(0.5)
        server = start()
        try:
            stdout, stderr = capture.communicate(timeout=60)
        finally:
            server.kill()
            server.wait()
            server.stdout.close()
        self.assertEqual(capture.returncode, 0, stderr)
        self.assertIn("reconnecting", stderr)
        self.assertRegex(stderr, r"reconnects [1-9]")
        got = stored(out, "cap")
        # sift serve's streams are read from the start again on the new link: every message at least once.
        self.assertGreaterEqual(len(got), COUNT)

    def test_sasl_plain(self):
        users = os.path.join(self.dir, "users-%d" % time.monotonic_ns())
        password = os.path.join(self.dir, "pw")
        with open(password, "w") as f:
            f.write("s3cret pass\n")
        r = sift("users", "add", "alice", "--file", users, "--password-file", password)
        self.assertEqual(r.returncode, 0, r.stderr)
        r = sift("users", "grant", "alice", "read,write,create", "*", "--file", users)
        self.assertEqual(r.returncode, 0, r.stderr)
        server = self.serve("--users", users)
        r = sift("replay", "--store", self.store, "--stream", "orders", "--sql", SQL, "--to", server.url("copy"),
                 "--user", "alice", "--password-file", password, "-f", "count")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(r.stdout.strip(), str(len(self.matches)))
        wrong = os.path.join(self.dir, "wrong")
        with open(wrong, "w") as f:
            f.write("nope\n")
        r = sift("replay", "--store", self.store, "--stream", "orders", "--to", server.url("copy"), "--user", "alice",
                 "--password-file", wrong)
        self.assertEqual(r.returncode, 2)
        self.assertIn("the broker refused the login", r.stderr)
        self.assertEqual(r.stdout, "")
        r = sift("capture", "--store", os.path.join(self.dir, "c-wrong"), "--stream", "x", "--from",
                 server.url("copy"), "--user", "alice", "--password-file", wrong)
        self.assertEqual(r.returncode, 2)
        self.assertIn("the broker refused the login", r.stderr)

    def test_tls(self):
        if shutil.which("openssl") is None:
            self.skipTest("no openssl")
        key, cert = os.path.join(self.dir, "key.pem"), os.path.join(self.dir, "cert.pem")
        r = subprocess.run(["openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256",
                            "-nodes", "-keyout", key, "-out", cert, "-days", "2", "-subj", "/CN=localhost",
                            "-addext", "subjectAltName=DNS:localhost,IP:127.0.0.1"], capture_output=True)
        self.assertEqual(r.returncode, 0, r.stderr)
        server = self.serve("--tls-cert", cert, "--tls-key", key)
        r = sift("replay", "--store", self.store, "--stream", "orders", "--sql", SQL, "--to",
                 server.url("copy", "amqps", "localhost"), "--tls-ca", cert, "-f", "count")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(r.stdout.strip(), str(len(self.matches)))
        # Not trusted: the system's CAs do not know this certificate.
        r = sift("replay", "--store", self.store, "--stream", "orders", "--to", server.url("copy", "amqps", "localhost"))
        self.assertEqual(r.returncode, 2)
        self.assertRegex(r.stderr, r"^sift: replay --to: amqps://localhost:\d+/copy: .*certificate")
        # TLS flags on a URL without TLS.
        r = sift("replay", "--store", self.store, "--stream", "orders", "--to", server.url("copy"), "--tls-ca", cert)
        self.assertEqual(r.returncode, 2)
        self.assertIn("sift: usage: --tls-ca: needs an amqps:// URL", r.stderr)

    def test_sasl_external_with_a_client_certificate(self):
        if shutil.which("openssl") is None:
            self.skipTest("no openssl")
        t = tempfile.mkdtemp(dir=self.dir)

        def openssl(*args):
            r = subprocess.run(["openssl"] + list(args), capture_output=True, timeout=60)
            self.assertEqual(r.returncode, 0, r.stderr)

        path = lambda name: os.path.join(t, name)  # noqa: E731
        openssl("req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes", "-keyout",
                path("ca.key"), "-out", path("ca.pem"), "-days", "1", "-subj", "/CN=sift test CA")
        for name, cn in (("server", "localhost"), ("alice", "alice")):
            openssl("req", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes", "-keyout",
                    path(name + ".key"), "-out", path(name + ".csr"), "-subj", "/CN=" + cn)
            openssl("x509", "-req", "-in", path(name + ".csr"), "-CA", path("ca.pem"), "-CAkey", path("ca.key"),
                    "-CAcreateserial", "-out", path(name + ".pem"), "-days", "1")
        users, password = path("users"), path("pw")
        with open(password, "w") as f:
            f.write("unused by EXTERNAL\n")
        self.assertEqual(sift("users", "add", "alice", "--file", users, "--password-file", password).returncode, 0)
        self.assertEqual(sift("users", "grant", "alice", "read,write,create", "alice-*", "--file", users).returncode, 0)
        server = self.serve("--tls-cert", path("server.pem"), "--tls-key", path("server.key"), "--tls-ca",
                            path("ca.pem"), "--tls-verify-peer", "--users", users)
        url = server.url("alice-copy", "amqps", "localhost")
        r = sift("replay", "--store", self.store, "--stream", "orders", "--sql", SQL, "--to", url, "--tls-ca",
                 path("ca.pem"), "--tls-cert", path("alice.pem"), "--tls-key", path("alice.key"), "-f", "count")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(r.stdout.strip(), str(len(self.matches)))
        out = os.path.join(t, "cap")
        r = sift("capture", "--store", out, "--stream", "c", "--from", url, "--tls-ca", path("ca.pem"), "--tls-cert",
                 path("alice.pem"), "--tls-key", path("alice.key"), "--count", len(self.matches))
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(len(stored(out, "c")), len(self.matches))
        # alice may not write elsewhere: the attach is refused with the broker's condition.
        r = sift("replay", "--store", self.store, "--stream", "orders", "--to", server.url("orders", "amqps", "localhost"),
                 "--tls-ca", path("ca.pem"), "--tls-cert", path("alice.pem"), "--tls-key", path("alice.key"))
        self.assertEqual(r.returncode, 2)
        self.assertIn("amqp:unauthorized-access", r.stderr)
        # No client certificate: the TLS handshake fails.
        r = sift("replay", "--store", self.store, "--stream", "orders", "--to", url, "--tls-ca", path("ca.pem"))
        self.assertEqual(r.returncode, 2)
        self.assertRegex(r.stderr, r"^sift: replay --to: amqps://localhost:\d+/alice-copy: ")
        # A key without its certificate.
        r = sift("replay", "--store", self.store, "--stream", "orders", "--to", url, "--tls-key", path("alice.key"))
        self.assertEqual(r.returncode, 2)
        self.assertIn("sift: usage: --tls-key: needs --tls-cert", r.stderr)

    def test_bad_input(self):
        cases = [
            (["replay", "--store", self.store, "--stream", "orders", "--to", "http://127.0.0.1:1/x"],
             "sift: usage: sift replay: --to http://127.0.0.1:1/x: expected amqp://HOST:PORT/ADDRESS"),
            (["replay", "--store", self.store, "--stream", "orders", "--to", "amqp://127.0.0.1:5672"],
             "no address after the host"),
            (["replay", "--store", self.store, "--stream", "orders", "--to", "amqp://127.0.0.1:99999/x"],
             "port '99999' is out of range"),
            (["replay", "--store", self.store, "--stream", "orders", "--to", "amqp://u:p@127.0.0.1:5672/x"],
             "credentials do not go in the URL"),
            (["replay", "--store", self.store, "--stream", "orders", "--to", "amqp://127.0.0.1:1/x", "-f", "json"],
             "sift: usage: sift replay: --to: the matches go to the broker: -f offsets (those accepted) or -f count"),
            (["replay", "--store", self.store, "--stream", "orders", "--rate", "5"],
             "need --to"),
            (["filter", "--on-refused", "skip", self.records], "need --to"),
            (["replay", "--store", self.store, "--stream", "orders", "--to", "amqp://127.0.0.1:1/x", "--user", "u"],
             "sift: usage: --user: needs --password-file"),
            (["replay", "--store", self.store, "--stream", "orders", "--to", "amqp://127.0.0.1:1/x",
              "--password-file", "/nonexistent"], "sift: usage: --password-file: needs --user"),
            (["replay", "--store", self.store, "--stream", "orders", "--to", "amqp://127.0.0.1:1/x", "--user", "u",
              "--password-file", "/nonexistent"], "sift: --password-file: /nonexistent: cannot read the file"),
            (["replay", "--store", self.store, "--stream", "orders", "--to", "amqp://127.0.0.1:1/x", "--on-refused",
              "maybe"], "--on-refused"),
            (["replay", "--store", self.store, "--stream", "orders", "--to", "amqp://127.0.0.1:1/x"],
             "sift: replay --to: amqp://127.0.0.1:1/x: proton:io: Connection refused"),
            (["filter", "--to", "amqp://127.0.0.1:1/x", self.records],
             "sift: filter --to: amqp://127.0.0.1:1/x: proton:io: Connection refused"),
            (["capture", "--store", os.path.join(self.dir, "c"), "--stream", "x", "--from", "amqp://127.0.0.1:1/x"],
             "sift: capture --from: amqp://127.0.0.1:1/x: proton:io: Connection refused"),
            (["capture", "--store", os.path.join(self.dir, "c"), "--stream", "x", "--from", "127.0.0.1:1/x"],
             "sift: usage: sift capture: --from 127.0.0.1:1/x: expected amqp://"),
            (["capture", "--store", os.path.join(self.dir, "c"), "--stream", "x", "--from", "amqp://127.0.0.1:1/x",
              "--idle-exit", "5"], "--idle-exit: bad duration '5'"),
            (["capture", "--store", os.path.join(self.dir, "c"), "--stream", "x"], "--from is required"),
            (["capture", "--store", os.path.join(self.dir, "c"), "--stream", "x", "--from", "amqp://127.0.0.1:1/x",
              "--compression", "lz4"], "--compression: 'lz4' is not none, zstd or zstd:LEVEL"),
            (["capture", "--store", os.path.join(self.dir, "c"), "--stream", "x", "--from", "amqp://127.0.0.1:1/x",
              "--max-held", "100"], "--max-held: bad size '100': must be from 1KiB"),
            (["capture", "--store", os.path.join(self.dir, "c"), "--stream", "x", "--from", "amqp://127.0.0.1:1/x",
              "--max-held", "lots"], "--max-held: bad size 'lots'"),
        ]
        for args, error in cases:
            with self.subTest(args=args):
                r = sift(*args)
                self.assertEqual(r.returncode, 2, r.stderr)
                self.assertIn(error, r.stderr)
                self.assertEqual(r.stdout, "")


if __name__ == "__main__":
    unittest.main()
