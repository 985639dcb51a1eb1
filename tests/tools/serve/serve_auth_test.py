#!/usr/bin/python3
"""Tests of who may do what in `sift serve`, with python3-qpid-proton as the client.

Users files are made with `sift users` (SIFT_CLI): password hashes, permissions per stream pattern.
Covered: good and bad passwords (and the log lines they leave); attaches refused for want of the read,
write or create permission, with amqp:unauthorized-access; a read-only user consumes but cannot
publish; the anonymous entry; the user-id check; anonymous access without a users file (loopback);
start-up refusals (a non-loopback address without --allow-anonymous, clear-text or malformed users
files, the removed --tls-key-password flag); mutual TLS with a throwaway CA made by openssl (a client
with a CA-signed certificate is served, one without or with a foreign certificate is not; SASL
EXTERNAL maps the certificate to a user); the TLS key password from a file or the environment.

Every server listens on 127.0.0.1 on an ephemeral port. Run with Debian's interpreter
(/usr/bin/python3), which has the proton bindings.
"""

import os
import shutil
import subprocess
import unittest

from proton import Delivery, Message, ProtonException, SSLDomain
from proton.utils import BlockingConnection, LinkDetached

from serve_interop_test import CLI, SERVE, ServeTestCase, Server, consume

_tags = iter(range(1 << 30))
PASSWORDS = {"alice": "alice's secret", "reader": "r3ad:only", "writer": "wr1te", "nobody": "n0thing"}


def sift_users(*args, password=None):
    r = subprocess.run([CLI, "users"] + list(args), input=password, capture_output=True, text=True, timeout=60)
    if r.returncode != 0:
        raise RuntimeError("sift users %s: %s" % (" ".join(args), r.stderr))
    return r.stdout


def plain(url, user, password=None, **kwargs):
    return BlockingConnection(url, timeout=15, user=user, password=password or PASSWORDS[user],
                              allowed_mechs="PLAIN", allow_insecure_mechs=True, **kwargs)


def refused_condition(test, attach):
    """Runs attach(), which must be refused: the condition of the detach."""
    with test.assertRaises(LinkDetached) as ctx:
        attach()
    return ctx.exception.link.remote_condition


def send_outcome(conn, snd, message):
    """Sends one message; returns its delivery once the server settled it."""
    d = snd.link.delivery("d-%d" % next(_tags))
    snd.link.send(message.encode())
    snd.link.advance()
    conn.wait(lambda: d.remote_state != 0, msg="waiting for the outcome", timeout=15)
    return d


@unittest.skipUnless(CLI and os.access(CLI, os.X_OK), "SIFT_CLI is not set to the sift binary")
class UsersTest(ServeTestCase):
    """One server with a users file: alice may do all on orders-*, reader may read orders-*, writer may
    write (not create) orders-*, nobody has no permission, anonymous may read public-*."""

    @classmethod
    def setUpClass(cls):
        super().setUpClass()
        cls.users = os.path.join(cls.tmp, "users")
        for user, password in PASSWORDS.items():
            sift_users("add", "--file", cls.users, user, password=password + "\n")
        sift_users("grant", "--file", cls.users, "alice", "all", "orders-*")
        sift_users("grant", "--file", cls.users, "alice", "create,write", "public-*")
        sift_users("grant", "--file", cls.users, "reader", "read", "orders-*")
        sift_users("grant", "--file", cls.users, "writer", "write", "orders-*")
        sift_users("grant", "--file", cls.users, "anonymous", "read", "public-*")
        cls.server = Server(os.path.join(cls.tmp, "store"), "--users", cls.users, "-v")
        conn = plain(cls.server.url, "alice")
        for stream in ("orders-1", "public-news"):
            conn.create_sender(stream).send(Message(body="first of " + stream))
        conn.close()

    @classmethod
    def tearDownClass(cls):
        cls.server.stop()
        super().tearDownClass()

    def test_file_holds_no_clear_text_password_and_is_private(self):
        with open(self.users) as f:
            text = f.read()
        for password in PASSWORDS.values():
            self.assertNotIn(password, text)
        self.assertIn("alice:$y$", text)
        self.assertEqual(os.stat(self.users).st_mode & 0o777, 0o600)
        listed = sift_users("list", "--file", self.users)
        self.assertIn("alice\n  all orders-*\n  write,create public-*\n", listed)
        self.assertNotIn("$y$", listed)

    def test_good_password_logs_in_and_bad_ones_are_refused_and_logged(self):
        conn = plain(self.server.url, "alice")
        self.assertEqual(consume(conn, "orders-1", [], 1), [0])
        conn.close()
        for user, password in (("alice", "wrong"), ("mallory", "alice's secret"), ("anonymous", "x")):
            with self.assertRaises(ProtonException):
                c = plain(self.server.url, user, password=password)
                c.create_sender("orders-1")
        log = self.server.stderr()
        self.assertRegex(log, r"login failed: 127\.0\.0\.1:\d+: user 'alice' \(PLAIN\): wrong password")
        self.assertRegex(log, r"login failed: 127\.0\.0\.1:\d+: user 'mallory' \(PLAIN\): no such user")
        self.assertRegex(log, r"login failed: 127\.0\.0\.1:\d+: user 'anonymous' \(PLAIN\): the anonymous entry has no "
                              r"password")
        self.assertRegex(log, r"login: 127\.0\.0\.1:\d+: user 'alice' \(PLAIN\)")  # -v: successes too
        self.assertNotIn("alice's secret", log)
        self.assertNotIn("wrong", log.replace("wrong password", ""))

    def test_unauthenticated_clients_are_refused(self):
        with self.assertRaises(ProtonException):  # no SASL at all: authentication is required
            c = BlockingConnection(self.server.url, timeout=15, sasl_enabled=False)
            c.create_receiver("orders-1")

    def test_read_only_user_consumes_but_cannot_publish(self):
        conn = plain(self.server.url, "reader")
        self.assertEqual(consume(conn, "orders-1", [], 1), [0])
        c = refused_condition(self, lambda: conn.create_sender("orders-1"))
        self.assertEqual(c.name, "amqp:unauthorized-access")
        self.assertEqual(c.description, "user 'reader' may not write stream 'orders-1' (no 'write' permission on it)")
        conn.close()

    def test_attach_to_read_without_permission_is_refused(self):
        conn = plain(self.server.url, "writer")
        c = refused_condition(self, lambda: conn.create_receiver("orders-1"))
        self.assertEqual(c.name, "amqp:unauthorized-access")
        self.assertIn("user 'writer' may not read stream 'orders-1'", c.description)
        conn.close()
        conn = plain(self.server.url, "reader")
        c = refused_condition(self, lambda: conn.create_receiver("audit"))  # outside the pattern
        self.assertEqual(c.name, "amqp:unauthorized-access")
        self.assertIn("'audit'", c.description)
        conn.close()

    def test_attach_to_create_without_permission_is_refused_before_the_stream_exists(self):
        conn = plain(self.server.url, "writer")
        c = refused_condition(self, lambda: conn.create_sender("orders-new"))
        self.assertEqual(c.name, "amqp:unauthorized-access")
        self.assertEqual(c.description,
                         "user 'writer' may not create stream 'orders-new' (no 'create' permission on it)")
        conn.close()
        conn = plain(self.server.url, "reader")  # a receiver would create it too
        c = refused_condition(self, lambda: conn.create_receiver("orders-new"))
        self.assertIn("may not create stream 'orders-new'", c.description)
        conn.close()
        if CLI:  # nothing was created
            r = subprocess.run([CLI, "streams", "--store", self.server.store], capture_output=True, text=True,
                               timeout=30)
            self.assertNotIn("orders-new", r.stdout + r.stderr)
        conn = plain(self.server.url, "alice")
        conn.create_sender("orders-new").send(Message(body="created by alice"))
        conn.close()
        conn = plain(self.server.url, "writer")  # once it exists, write is enough
        conn.create_sender("orders-new").send(Message(body="from writer"))
        conn.close()

    def test_user_without_permissions_can_do_nothing(self):
        conn = plain(self.server.url, "nobody")
        for attach in (lambda: conn.create_receiver("orders-1"), lambda: conn.create_sender("orders-1")):
            self.assertEqual(refused_condition(self, attach).name, "amqp:unauthorized-access")
        conn.close()

    def test_anonymous_entry_grants_what_it_lists(self):
        conn = BlockingConnection(self.server.url, timeout=15, allowed_mechs="ANONYMOUS")
        self.assertEqual(consume(conn, "public-news", [], 1), [0])
        c = refused_condition(self, lambda: conn.create_sender("public-news"))
        self.assertIn("user 'anonymous' may not write stream 'public-news'", c.description)
        c = refused_condition(self, lambda: conn.create_receiver("orders-1"))
        self.assertIn("user 'anonymous' may not read stream 'orders-1'", c.description)
        conn.close()

    def test_user_id_must_be_the_authenticated_user(self):
        conn = plain(self.server.url, "alice")
        snd = conn.create_sender("orders-uid")
        d = send_outcome(conn, snd, Message(body="mine", user_id=b"alice"))
        self.assertEqual(d.remote_state, Delivery.ACCEPTED)
        d = send_outcome(conn, snd, Message(body="forged", user_id=b"bob"))
        self.assertEqual(d.remote_state, Delivery.REJECTED)
        self.assertEqual(d.remote.condition.name, "amqp:unauthorized-access")
        self.assertEqual(d.remote.condition.description,
                         "the message's user-id 'bob' is not the authenticated user 'alice'")
        d = send_outcome(conn, snd, Message(body="no user-id"))
        self.assertEqual(d.remote_state, Delivery.ACCEPTED)
        got = consume(conn, "orders-uid", [], 2)
        self.assertEqual(got, [0, 1])  # the forged message was not stored
        conn.close()


class AnonymousTest(ServeTestCase):
    def test_anonymous_from_loopback_without_users_file(self):
        server = Server(os.path.join(self.tmp, "anon-store"))
        try:
            conn = BlockingConnection(server.url, timeout=15, allowed_mechs="ANONYMOUS")
            snd = conn.create_sender("open")
            snd.send(Message(body="anyone on this machine"))
            d = send_outcome(conn, snd, Message(body="forged", user_id=b"alice"))  # anonymous is no alice
            self.assertEqual(d.remote_state, Delivery.REJECTED)
            self.assertEqual(d.remote.condition.name, "amqp:unauthorized-access")
            self.assertEqual(consume(conn, "open", [], 1), [0])
            conn.close()
            conn = BlockingConnection(server.url, timeout=15, sasl_enabled=False)  # no SASL: welcome too
            self.assertEqual(consume(conn, "open", [], 1), [0])
            conn.close()
        finally:
            self.assertEqual(server.stop(), 0)

    def start(self, *args):
        return subprocess.run([SERVE, "--store", os.path.join(self.tmp, "never")] + list(args), capture_output=True,
                              text=True, timeout=30)

    def test_non_loopback_address_without_users_needs_allow_anonymous(self):
        for listen in ("0.0.0.0:0", ":0", "[::]:0"):
            r = self.start("--listen", listen)
            self.assertEqual(r.returncode, 2, listen)
            self.assertIn("anonymous access on an address that is not loopback", r.stderr)
            self.assertIn("--allow-anonymous", r.stderr)
            self.assertEqual(r.stdout, "")
        self.assertFalse(os.path.exists(os.path.join(self.tmp, "never")))

    def test_allow_anonymous_with_a_users_file_is_a_usage_error(self):
        users = os.path.join(self.tmp, "empty-users")
        open(users, "w").close()
        r = self.start("--listen", "127.0.0.1:0", "--users", users, "--allow-anonymous")
        self.assertEqual(r.returncode, 2)
        self.assertIn("--allow-anonymous: with --users", r.stderr)

    def test_clear_text_and_malformed_users_files_are_refused(self):
        cases = [
            ("# users\nalice:s3cret\n", "line 2: user 'alice': not a crypt(3) hash"),
            ("alice:$6$salt$short\n", "line 1: user 'alice': an incomplete $6$ hash"),
            ("alice:$1$abcdefgh$0123456789abcdefghijkl\n", "line 1: user 'alice': unknown or weak hash method '$1$'"),
            ("bob\n", "line 1: expected NAME:HASH"),
            ("  read *\n", "line 1: a permission line before any user"),
            ("anonymous:\n  fly *\n", "line 2: unknown permission 'fly'"),
            ("anonymous:$6$x\n", "line 1: the anonymous entry takes no password"),
            ("carol:\n", "line 1: user 'carol' has no password hash"),
        ]
        for i, (text, needle) in enumerate(cases):
            users = os.path.join(self.tmp, "bad-users-%d" % i)
            with open(users, "w") as f:
                f.write(text)
            r = self.start("--listen", "127.0.0.1:0", "--users", users)
            self.assertEqual(r.returncode, 2, text)
            self.assertIn("sift: bad users file: %s: %s" % (users, needle), r.stderr)
            self.assertEqual(r.stdout, "")

    def test_key_password_flag_is_refused_saying_where_it_goes(self):
        r = self.start("--listen", "127.0.0.1:0", "--tls-key-password", "secret")
        self.assertEqual(r.returncode, 2)
        self.assertIn("--tls-key-password-file", r.stderr)
        self.assertIn("SIFT_TLS_KEY_PASSWORD", r.stderr)


def openssl(*args):
    subprocess.run(["openssl"] + list(args), check=True, capture_output=True, timeout=60)


@unittest.skipUnless(shutil.which("openssl"), "openssl is not installed")
class MutualTlsTest(ServeTestCase):
    """A throwaway CA signs the server's certificate and alice's client certificate; mallory's is
    self-signed."""

    @classmethod
    def setUpClass(cls):
        super().setUpClass()
        t = cls.path
        openssl("req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", t("ca.key"), "-out", t("ca.pem"),
                "-days", "1", "-subj", "/CN=sift test CA")
        for name in ("server", "alice"):
            cn = "localhost" if name == "server" else name
            openssl("req", "-newkey", "rsa:2048", "-nodes", "-keyout", t(name + ".key"), "-out", t(name + ".csr"),
                    "-subj", "/CN=" + cn)
            openssl("x509", "-req", "-in", t(name + ".csr"), "-CA", t("ca.pem"), "-CAkey", t("ca.key"),
                    "-CAcreateserial", "-out", t(name + ".pem"), "-days", "1")
        openssl("req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", t("mallory.key"), "-out",
                t("mallory.pem"), "-days", "1", "-subj", "/CN=alice")
        # The server's key encrypted, its password in a file.
        with open(t("key-password"), "w") as f:
            f.write("k3y pass\n")
        openssl("pkey", "-in", t("server.key"), "-out", t("server-enc.key"), "-aes256", "-passout", "pass:k3y pass")

    @classmethod
    def path(cls, name):
        return os.path.join(cls.tmp, name)

    def client(self, cert=None, **kwargs):
        domain = SSLDomain(SSLDomain.MODE_CLIENT)
        domain.set_trusted_ca_db(self.path("ca.pem"))
        domain.set_peer_authentication(SSLDomain.VERIFY_PEER, self.path("ca.pem"))
        if cert:
            domain.set_credentials(self.path(cert + ".pem"), self.path(cert + ".key"), None)
        return BlockingConnection("amqps://" + self.server.url, timeout=15, ssl_domain=domain, **kwargs)

    def serve(self, *extra, env=None):
        old = dict(os.environ)
        if env:
            os.environ.update(env)
        try:
            self.server = Server(self.path("store-%d" % len(os.listdir(self.tmp))), "--tls-cert",
                                 self.path("server.pem"), "--tls-ca", self.path("ca.pem"), "--tls-verify-peer", *extra)
        finally:
            os.environ.clear()
            os.environ.update(old)

    def test_client_with_ca_signed_certificate_is_served_others_are_not(self):
        self.serve("--tls-key", self.path("server-enc.key"), "--tls-key-password-file", self.path("key-password"))
        try:
            conn = self.client("alice")
            conn.create_sender("tls").send(Message(body="mutual"))
            self.assertEqual(consume(conn, "tls", [], 1), [0])
            conn.close()
            for cert in (None, "mallory"):  # no certificate; a certificate the CA did not sign
                with self.assertRaises(ProtonException, msg=str(cert)):
                    c = self.client(cert)
                    c.create_sender("tls")
            with self.assertRaises(ProtonException):  # and never in clear
                c = BlockingConnection(self.server.url, timeout=10)
                c.create_sender("tls")
        finally:
            self.assertEqual(self.server.stop(), 0)

    def test_key_password_from_the_environment(self):
        self.serve("--tls-key", self.path("server-enc.key"), env={"SIFT_TLS_KEY_PASSWORD": "k3y pass"})
        try:
            conn = self.client("alice")
            conn.create_sender("env").send(Message(body="ok"))
            conn.close()
        finally:
            self.assertEqual(self.server.stop(), 0)
        r = subprocess.run([SERVE, "--listen", "127.0.0.1:0", "--store", self.path("never"), "--tls-cert",
                            self.path("server.pem"), "--tls-key", self.path("server-enc.key")],
                           capture_output=True, text=True, timeout=30)  # no password: the key cannot load
        self.assertEqual(r.returncode, 2)
        self.assertIn("sift: bad TLS credentials", r.stderr)

    @unittest.skipUnless(CLI and os.access(CLI, os.X_OK), "SIFT_CLI is not set to the sift binary")
    def test_sasl_external_maps_the_certificate_to_a_user(self):
        users = self.path("users")
        sift_users("add", "--file", users, "alice", password="pw\n")
        sift_users("grant", "--file", users, "alice", "read,write,create", "alice-*")
        self.serve("--tls-key", self.path("server.key"), "--users", users)
        try:
            conn = self.client("alice", allowed_mechs="EXTERNAL")
            conn.create_sender("alice-own").send(Message(body="as alice", user_id=b"alice"))
            self.assertEqual(consume(conn, "alice-own", [], 1), [0])
            c = refused_condition(self, lambda: conn.create_receiver("orders"))
            self.assertIn("user 'alice' may not read stream 'orders'", c.description)
            conn.close()
        finally:
            self.assertEqual(self.server.stop(), 0)


if __name__ == "__main__":
    unittest.main()
