#!/usr/bin/python3
"""Tests of TLS and SASL hardening in `sift serve`, with python3-qpid-proton, raw sockets and the
openssl command line against servers with a throwaway CA.

Covered: on the TLS port a client speaking SASL in clear is offered no mechanism and refused before any
password is read (right and wrong passwords get the same bytes back, the log shows no login attempt),
and a Proton client given amqp:// by mistake never sends its password; SASL EXTERNAL refuses crafted
client certificates signed by the trusted CA (a UTF8String CN "alice\\0.evil.example", a BMPString CN
whose raw bytes are "alice\\0", two CNs in two ways, a CN with a control character) and logs in a plain
"alice"; TLS 1.0 and 1.1, and TLS 1.2 suites without forward secrecy or with CBC and SHA-1, are refused
by default, --tls-min-version 1.3 refuses TLS 1.2 and --tls-ciphers can allow a suite again; every TLS
failure (those, a missing, untrusted, expired or not yet valid client certificate, plaintext AMQP on the
TLS port) leaves exactly one log line with its cause, without -v; an encrypted key without a password is
refused at start, never prompted for, whether stdin is a pipe or there is no terminal.

Crafted certificates are made by openssl and then edited: the to-be-signed part of a certificate for a
placeholder name gets the wanted bytes in place (same length) and is signed again with the CA's key
(`openssl dgst -sign`), which leaves every length in the DER unchanged.

Every server listens on 127.0.0.1 on an ephemeral port. Run with Debian's interpreter
(/usr/bin/python3), which has the proton bindings.
"""

import os
import re
import shutil
import socket
import subprocess
import threading
import time
import unittest

from proton import ProtonException, SSLDomain
from proton.utils import BlockingConnection

from serve_interop_test import CLI, SERVE, ServeTestCase, Server

PASSWORD = "alice's secret"


def openssl(*args, **kwargs):
    return subprocess.run(["openssl"] + list(args), check=True, capture_output=True, timeout=60, **kwargs).stdout


def der_header(der, at):
    """(header length, content length) of the DER element at `at`."""
    first = der[at + 1]
    if first < 0x80:
        return 2, first
    n = first & 0x7F
    return 2 + n, int.from_bytes(der[at + 2:at + 2 + n], "big")


def make_certificate(folder, name, subject, replace=(), validity=None, ca="ca"):
    """NAME.pem and NAME.key: a certificate for `subject` signed by CA, its to-be-signed bytes edited
    (each (old, new) of `replace`, same length; `validity` = (notBefore, notAfter) UTCTime texts) and
    signed again."""
    path = lambda suffix: os.path.join(folder, name + suffix)
    openssl("req", "-newkey", "rsa:2048", "-nodes", "-keyout", path(".key"), "-out", path(".csr"), "-subj", subject)
    openssl("x509", "-req", "-in", path(".csr"), "-CA", os.path.join(folder, ca + ".pem"), "-CAkey",
            os.path.join(folder, ca + ".key"), "-set_serial", str(time.monotonic_ns()), "-days", "1", "-outform",
            "DER", "-out", path(".der"))
    if not replace and not validity:
        openssl("x509", "-inform", "DER", "-in", path(".der"), "-out", path(".pem"))
        return
    with open(path(".der"), "rb") as f:
        der = f.read()
    outer, _ = der_header(der, 0)
    head, length = der_header(der, outer)
    tbs = der[outer:outer + head + length]
    if validity:  # SEQUENCE of two 13-byte UTCTimes
        at = tbs.index(b"\x30\x1e\x17\x0d")
        tbs = tbs[:at] + b"\x30\x1e\x17\x0d" + validity[0] + b"\x17\x0d" + validity[1] + tbs[at + 32:]
    for old, new in replace:
        assert len(old) == len(new) and tbs.count(old) == 1, (old, new)
        tbs = tbs.replace(old, new)
    signature = openssl("dgst", "-sha256", "-sign", os.path.join(folder, ca + ".key"), input=tbs)
    assert len(signature) == 256 and der.endswith(der[-256:])
    rest = der[outer + head + length:]
    openssl("x509", "-inform", "DER", "-out", path(".pem"), input=der[:outer] + tbs + rest[:-256] + signature)


def sasl_init_plain(user, password):
    """The SASL header and a sasl-init frame for PLAIN with `user` and `password` (core 5.3.3.2)."""
    def symbol(s):
        return b"\xa3" + bytes([len(s)]) + s

    def binary(b):
        return b"\xa0" + bytes([len(b)]) + b
    fields = symbol(b"PLAIN") + binary(b"\0" + user.encode() + b"\0" + password.encode())
    body = b"\x00\x53\x41\xc0" + bytes([len(fields) + 1, 2]) + fields
    return b"AMQP\x03\x01\x00\x00" + (8 + len(body)).to_bytes(4, "big") + b"\x02\x01\x00\x00" + body


def exchange(port, data, wait=5.0):
    """Sends `data` at once and returns what the server sends until it closes the socket."""
    with socket.create_connection(("127.0.0.1", port), timeout=wait) as s:
        s.sendall(data)
        got = b""
        deadline = time.monotonic() + wait
        while time.monotonic() < deadline:
            try:
                chunk = s.recv(4096)
            except (socket.timeout, ConnectionResetError):
                break
            if not chunk:
                break
            got += chunk
    return got


class Recorder:
    """A TCP relay to the server that keeps every byte the client sent."""

    def __init__(self, port):
        self.sent = b""
        self.listener = socket.socket()
        self.listener.bind(("127.0.0.1", 0))
        self.listener.listen(1)
        self.port = self.listener.getsockname()[1]
        self.target = port
        self.thread = threading.Thread(target=self.run, daemon=True)
        self.thread.start()

    def run(self):
        client, _ = self.listener.accept()
        server = socket.create_connection(("127.0.0.1", self.target))

        def pump(src, dst, keep):
            try:
                while True:
                    data = src.recv(4096)
                    if not data:
                        break
                    if keep:
                        self.sent += data
                    dst.sendall(data)
            except OSError:
                pass
            for s in (src, dst):
                try:
                    s.shutdown(socket.SHUT_RDWR)
                except OSError:
                    pass
        back = threading.Thread(target=pump, args=(server, client, False), daemon=True)
        back.start()
        pump(client, server, True)
        back.join(10)
        client.close()
        server.close()
        self.listener.close()


@unittest.skipUnless(shutil.which("openssl"), "openssl is not installed")
class TlsTest(ServeTestCase):
    """One server with a users file (alice, with a password), TLS and --tls-verify-peer; no -v."""

    @classmethod
    def setUpClass(cls):
        super().setUpClass()
        if not CLI or not os.access(CLI, os.X_OK):
            raise unittest.SkipTest("SIFT_CLI is not set to the sift binary")
        t = cls.path
        openssl("req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", t("ca.key"), "-out", t("ca.pem"),
                "-days", "1", "-subj", "/CN=sift test CA")
        make_certificate(cls.tmp, "server", "/CN=localhost")
        make_certificate(cls.tmp, "alice", "/CN=alice")
        openssl("req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", t("mallory.key"), "-out",
                t("mallory.pem"), "-days", "1", "-subj", "/CN=alice")
        make_certificate(cls.tmp, "nul", "/CN=aliceZ.evil.example",
                         [(b"aliceZ.evil.example", b"alice\0.evil.example")])
        make_certificate(cls.tmp, "bmp", "/CN=alice!", [(b"\x0c\x06alice!", b"\x1e\x06alice\0")])  # BMPString
        make_certificate(cls.tmp, "two", "/CN=alice/CN=bob")
        make_certificate(cls.tmp, "multi", "/CN=alice+CN=bob")
        make_certificate(cls.tmp, "control", "/CN=ali\x01ce")
        make_certificate(cls.tmp, "expired", "/CN=alice", validity=(b"200101000000Z", b"200102000000Z"))
        make_certificate(cls.tmp, "future", "/CN=alice", validity=(b"491231000000Z", b"491231235959Z"))
        # What the crafted certificates hold, as openssl reads them.
        asn1 = openssl("asn1parse", "-in", t("bmp.pem")).decode()
        assert "BMPSTRING" in asn1, asn1
        cls.users = t("users")
        subprocess.run([CLI, "users", "add", "--file", cls.users, "alice"], input=PASSWORD + "\n", text=True,
                       check=True, capture_output=True, timeout=60)
        subprocess.run([CLI, "users", "grant", "--file", cls.users, "alice", "all", "*"], check=True,
                       capture_output=True, timeout=60)
        cls.server = Server(t("store"), "--users", cls.users, "--tls-cert", t("server.pem"), "--tls-key",
                            t("server.key"), "--tls-ca", t("ca.pem"), "--tls-verify-peer")

    @classmethod
    def tearDownClass(cls):
        cls.server.stop()
        super().tearDownClass()

    @classmethod
    def path(cls, name):
        return os.path.join(cls.tmp, name)

    def lines(self, server, needle):
        return [line for line in server.stderr().splitlines() if needle in line]

    def one_new_line(self, server, action, needle="TLS failed: "):
        """Runs action(); exactly one more log line holding `needle` must follow: returns it."""
        before = len(self.lines(server, needle))
        action()
        deadline = time.monotonic() + 10
        while len(self.lines(server, needle)) == before and time.monotonic() < deadline:
            time.sleep(0.05)
        time.sleep(0.3)  # a second line would come with the first
        new = self.lines(server, needle)[before:]
        self.assertEqual(len(new), 1, new)
        return new[0]

    def s_client(self, server, *args, cert=None):
        """openssl s_client against `server`: (exit code, output)."""
        cmd = ["openssl", "s_client", "-connect", server.url, "-CAfile", self.path("ca.pem")] + list(args)
        if cert:
            cmd += ["-cert", self.path(cert + ".pem"), "-key", self.path(cert + ".key")]
        r = subprocess.run(cmd, stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=30)
        return r.returncode, r.stdout + r.stderr

    def external(self, cert):
        domain = SSLDomain(SSLDomain.MODE_CLIENT)
        domain.set_trusted_ca_db(self.path("ca.pem"))
        domain.set_peer_authentication(SSLDomain.VERIFY_PEER, self.path("ca.pem"))
        domain.set_credentials(self.path(cert + ".pem"), self.path(cert + ".key"), None)
        conn = BlockingConnection("amqps://" + self.server.url, timeout=15, ssl_domain=domain, allowed_mechs="EXTERNAL")
        conn.create_sender("tls-" + cert)
        conn.close()

    def test_cleartext_sasl_is_refused_before_any_password(self):
        mark = len(self.server.stderr())
        # A client that waits for the mechanisms gets none, then the outcome auth (1).
        answers = []
        line = self.one_new_line(self.server,
                                 lambda: answers.append(exchange(self.server.port, b"AMQP\x03\x01\x00\x00")))
        self.assertRegex(line, r"^sift serve: TLS failed: 127\.0\.0\.1:\d+: plaintext SASL on the TLS port "
                               r"\(clients must connect with amqps://\)$")
        mechanisms = answers[0].index(b"\x00\x53\x40")  # sasl-mechanisms
        self.assertNotIn(b"PLAIN", answers[0])
        self.assertNotIn(b"EXTERNAL", answers[0])
        outcome = answers[0].index(b"\x00\x53\x44", mechanisms)  # sasl-outcome
        self.assertEqual(answers[0][outcome + 6:outcome + 8], b"\x50\x01")
        # A client that sends its init at once: nothing of it is read, the same bytes back whatever the
        # password (no oracle), and no login is logged, with -v neither.
        verbose = Server(self.path("store-v"), "--users", self.users, "--tls-cert", self.path("server.pem"),
                         "--tls-key", self.path("server.key"), "-v")
        try:
            for server in (self.server, verbose):
                pipelined = []
                for password in (PASSWORD, "wrong"):
                    line = self.one_new_line(server, lambda: pipelined.append(
                        exchange(server.port, sasl_init_plain("alice", password))))
                    self.assertIn("plaintext SASL on the TLS port", line)
                self.assertEqual(pipelined[0], pipelined[1])
                self.assertNotIn(b"PLAIN", pipelined[0])
            for log in (self.server.stderr()[mark:], verbose.stderr()):
                self.assertNotIn("login", log)  # no password was looked at
                self.assertNotIn(PASSWORD, log)
                self.assertNotIn("wrong", log)
        finally:
            self.assertEqual(verbose.stop(), 0)

    def test_client_given_amqp_url_by_mistake_never_sends_its_password(self):
        mark = len(self.server.stderr())
        relay = Recorder(self.server.port)
        with self.assertRaises(ProtonException):
            conn = BlockingConnection("amqp://127.0.0.1:%d" % relay.port, timeout=10, user="alice", password=PASSWORD,
                                      allowed_mechs="PLAIN", allow_insecure_mechs=True)
            conn.create_sender("never")
        relay.thread.join(10)
        self.assertTrue(relay.sent.startswith(b"AMQP\x03\x01\x00\x00"), relay.sent)
        self.assertNotIn(PASSWORD.encode(), relay.sent)
        self.assertNotIn(b"PLAIN", relay.sent)
        self.assertNotIn("login", self.server.stderr()[mark:])

    def test_crafted_common_names_are_refused(self):
        self.external("alice")  # a plain CN logs in
        reasons = {
            "nul": "the common name holds a NUL byte",
            "bmp": "the certificate's common name is no user of the users file",  # three CJK characters
            "two": "the certificate subject has 2 common names (CN), not one",
            "multi": "the certificate subject has 2 common names (CN), not one",
            "control": "the common name holds a control character",
        }
        for cert, reason in reasons.items():
            def attempt():
                with self.assertRaises(ProtonException, msg=cert):
                    self.external(cert)
            line = self.one_new_line(self.server, attempt, needle="login failed: ")
            self.assertIn("(EXTERNAL): " + reason, line)
        self.assertRegex(self.server.stderr(), r"subject 'CN=alice\\x5c00\.evil\.example'")
        self.assertIn("user '\\xe6\\x85\\xac\\xe6\\xa5\\xa3\\xe6\\x94\\x80'", self.server.stderr())

    def test_client_certificate_failures_are_logged_once_each(self):
        cases = [
            (None, "no client certificate (--tls-verify-peer requires one signed by a CA of --tls-ca) "
                   "(OpenSSL: peer did not return a certificate)"),
            ("mallory", "(OpenSSL: certificate verify failed)"),
            ("expired", "(OpenSSL: certificate verify failed)"),
            ("future", "(OpenSSL: certificate verify failed)"),
        ]
        for cert, cause in cases:
            line = self.one_new_line(self.server, lambda: self.assertNotEqual(
                self.s_client(self.server, "-tls1_2", cert=cert)[0], 0, cert))
            self.assertRegex(line, r"^sift serve: TLS failed: 127\.0\.0\.1:\d+: ")
            self.assertIn(cause, line)

    def test_plaintext_amqp_on_the_tls_port_is_logged_once(self):
        line = self.one_new_line(self.server, lambda: exchange(self.server.port, b"AMQP\x00\x01\x00\x00"))
        self.assertRegex(line, r"TLS failed: 127\.0\.0\.1:\d+: plaintext AMQP on the TLS port")

    def test_weak_protocols_and_suites_are_refused_by_default(self):
        code, out = self.s_client(self.server, "-tls1_2", cert="alice")
        self.assertEqual(code, 0, out)
        self.assertRegex(out, r"Cipher is ECDHE-RSA-(AES\d+-GCM-SHA\d+|CHACHA20-POLY1305)")
        self.assertEqual(self.s_client(self.server, "-tls1_3", cert="alice")[0], 0)
        cases = [
            (["-tls1", "-cipher", "DEFAULT@SECLEVEL=0"], "(OpenSSL: unsupported protocol)"),
            (["-tls1_1", "-cipher", "DEFAULT@SECLEVEL=0"], "(OpenSSL: unsupported protocol)"),
            (["-tls1_2", "-cipher", "AES128-GCM-SHA256"], "(OpenSSL: no shared cipher)"),  # RSA key exchange
            (["-tls1_2", "-cipher", "ECDHE-RSA-AES128-SHA"], "(OpenSSL: no shared cipher)"),  # CBC, SHA-1
        ]
        for args, cause in cases:
            line = self.one_new_line(self.server, lambda: self.assertNotEqual(
                self.s_client(self.server, *args, cert="alice")[0], 0, args))
            self.assertIn(cause, line)

    def test_min_version_and_cipher_flags(self):
        strict = Server(self.path("store-13"), "--tls-cert", self.path("server.pem"), "--tls-key",
                        self.path("server.key"), "--tls-min-version", "1.3")
        try:
            self.assertEqual(self.s_client(strict, "-tls1_3")[0], 0)
            line = self.one_new_line(strict, lambda: self.assertNotEqual(self.s_client(strict, "-tls1_2")[0], 0))
            self.assertIn("the client offers no TLS version the server accepts (--tls-min-version)", line)
        finally:
            self.assertEqual(strict.stop(), 0)
        legacy = Server(self.path("store-rsa"), "--tls-cert", self.path("server.pem"), "--tls-key",
                        self.path("server.key"), "--tls-ciphers", "AES128-GCM-SHA256")
        try:
            code, out = self.s_client(legacy, "-tls1_2", "-cipher", "AES128-GCM-SHA256")
            self.assertEqual(code, 0, out)
            self.assertIn("Cipher is AES128-GCM-SHA256", out)
        finally:
            self.assertEqual(legacy.stop(), 0)
        for flag, value, needle in (("--tls-min-version", "1.1", "--tls-min-version: 1.1 not in {1.2,1.3}"),
                                    ("--tls-ciphers", "NO-SUCH-SUITE", "--tls-ciphers 'NO-SUCH-SUITE': OpenSSL finds "
                                                                      "no cipher suite in it")):
            r = subprocess.run([SERVE, "--listen", "127.0.0.1:0", "--store", self.path("never"), "--tls-cert",
                                self.path("server.pem"), "--tls-key", self.path("server.key"), flag, value],
                               capture_output=True, text=True, timeout=30)
            self.assertEqual(r.returncode, 2, r.stderr)
            self.assertIn("sift: bad usage: ", r.stderr)
            self.assertIn(needle, r.stderr)
        r = subprocess.run([SERVE, "--listen", "127.0.0.1:0", "--store", self.path("never"), "--tls-ciphers",
                            "AES128-GCM-SHA256"], capture_output=True, text=True, timeout=30)
        self.assertEqual(r.returncode, 2)
        self.assertIn("sift: bad usage: --tls-ciphers: needs --tls-cert", r.stderr)
        self.assertFalse(os.path.exists(self.path("never")))

    def test_encrypted_key_without_password_is_an_error_never_a_prompt(self):
        openssl("pkey", "-in", self.path("server.key"), "-out", self.path("pkcs8.key"), "-aes256", "-passout",
                "pass:k3y pass")
        openssl("rsa", "-in", self.path("server.key"), "-out", self.path("legacy.key"), "-aes128", "-traditional",
                "-passout", "pass:k3y pass")
        with open(self.path("empty-password"), "w") as f:
            f.write("\nk3y pass\n")
        expected = "the private key is encrypted and no password was given: put it in a file " \
                   "(--tls-key-password-file FILE) or in $SIFT_TLS_KEY_PASSWORD"
        env = {k: v for k, v in os.environ.items() if k != "SIFT_TLS_KEY_PASSWORD"}
        cases = [
            # stdin a pipe holding the password: OpenSSL's prompt would read it from there
            ("pkcs8.key", [], dict(input="k3y pass\n"), expected),
            ("legacy.key", [], dict(input="k3y pass\n"), expected),
            # no terminal at all, stdin empty
            ("pkcs8.key", [], dict(stdin=subprocess.DEVNULL, start_new_session=True), expected),
            ("legacy.key", [], dict(stdin=subprocess.DEVNULL, start_new_session=True), expected),
            ("pkcs8.key", ["--tls-key-password-file", self.path("empty-password")],
             dict(stdin=subprocess.DEVNULL, start_new_session=True),
             "the private key is encrypted and no password was given: the first line of %s is empty"
             % self.path("empty-password")),
        ]
        for key, extra, how, needle in cases:
            started = time.monotonic()
            r = subprocess.run([SERVE, "--listen", "127.0.0.1:0", "--store", self.path("never"), "--tls-cert",
                                self.path("server.pem"), "--tls-key", self.path(key)] + extra,
                               capture_output=True, text=True, timeout=30, env=env, **how)
            self.assertLess(time.monotonic() - started, 10)
            self.assertEqual(r.returncode, 2, (key, how, r.stderr))
            self.assertEqual(r.stderr, "sift: bad TLS credentials: %s: %s\n" % (self.path(key), needle))
            self.assertEqual(r.stdout, "")
        r = subprocess.run([SERVE, "--listen", "127.0.0.1:0", "--store", self.path("never"), "--tls-cert",
                            self.path("server.pem"), "--tls-key", self.path("pkcs8.key")], capture_output=True,
                           text=True, timeout=30, stdin=subprocess.DEVNULL, env=dict(env, SIFT_TLS_KEY_PASSWORD=""))
        self.assertEqual(r.returncode, 2)
        self.assertIn(expected, r.stderr)
        self.assertFalse(os.path.exists(self.path("never")))


if __name__ == "__main__":
    unittest.main()
