#!/usr/bin/python3
"""Tests of `sift stream ... --server URL` (SIFT_CLI) against `sift serve` (SIFT_SERVE): the client of
the management node `$management` (docs/serve.md, "Management").

Covered: create, info, set-retention, delete and enforce-retention on a running server, their text
and --json output the same as the same commands print on a local store holding the same stream;
create taking the server's retention and compression for what it is not given;
messages published over AMQP counted by info and delete; an age limit applied only by
enforce-retention (the server's timer is off); the error lines and exit codes: a missing stream (3,
as on a local store) and an existing one (2), naming the server and its description, a bad --server URL and --server with
--store (2), a port nobody listens on (3); with a users file: a user without the `manage` permission
(2, the 403 description), a user granted `manage` on a pattern (served on it, refused outside it),
a wrong password (3); mutual TLS with a throwaway CA made by openssl (SASL EXTERNAL; an untrusted
server certificate or no client certificate: 3).

Every server listens on 127.0.0.1 on an ephemeral port. Run with Debian's interpreter
(/usr/bin/python3), which has the proton bindings.
"""

import json
import os
import shutil
import socket
import subprocess
import time
import unittest

from proton import Message
from proton.utils import BlockingConnection

from serve_auth_test import openssl, sift_users
from serve_interop_test import CLI, ServeTestCase, Server

PASSWORDS = {"alice": "alice's secret", "bob": "b0b"}


def sift(*args):
    return subprocess.run([CLI] + list(args), capture_output=True, text=True, timeout=120)


def publish(url, stream, count, **kwargs):
    conn = BlockingConnection(url, timeout=30, **kwargs)
    snd = conn.create_sender(stream)
    for i in range(count):
        snd.send(Message(body="message %d" % i))
    conn.close()


def unused_port():
    """A port nobody listens on (bound, then closed)."""
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


@unittest.skipUnless(CLI and os.access(CLI, os.X_OK), "SIFT_CLI is not set to the sift binary")
class ManagementCliTest(ServeTestCase):
    """One server without a users file (anonymous clients may manage) and no retention timer."""

    @classmethod
    def setUpClass(cls):
        super().setUpClass()
        cls.server = Server(os.path.join(cls.tmp, "store"), "--retention-interval", "0")
        cls.local = os.path.join(cls.tmp, "local")

    @classmethod
    def tearDownClass(cls):
        cls.server.stop()
        super().tearDownClass()

    def remote(self, *args):
        return sift("stream", *args, "--server", self.server.url)

    def both(self, *args):
        """The same command on the server and on the local store: (remote, local)."""
        return self.remote(*args), sift("stream", *args, "--store", self.local)

    def assertSucceeded(self, r):
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(r.stderr, "")

    def assertSameOutput(self, remote, local):
        self.assertSucceeded(remote)
        self.assertSucceeded(local)
        self.assertEqual(remote.stdout, local.stdout)

    def test_create_info_set_retention_delete_print_what_a_local_store_prints(self):
        for json_flag in ([], ["--json"]):
            name = "same-%d" % len(json_flag)
            remote, local = self.both("create", "--stream", name, "--max-bytes", "10G", "--max-age", "7d",
                                      "--compression", "zstd:3", *json_flag)
            self.assertSameOutput(remote, local)
            if json_flag:
                created = json.loads(remote.stdout)
                self.assertEqual(created["stream"], name)
                self.assertEqual(created["max_bytes"], 10 << 30)
                self.assertEqual(created["max_age_ms"], 7 * 86400000)
                self.assertEqual(created["compression"], "zstd:3")
            else:
                self.assertEqual(remote.stdout, name + " messages=0 offsets=- chunks=0 bytes=0 raw-bytes=0 stored=- "
                                 "first=- last=- max-bytes=10GiB max-age=1w compression=zstd:3\n")
            self.assertSameOutput(*self.both("info", "--stream", name, *json_flag))
            remote, local = self.both("set-retention", "--stream", name, "--max-bytes", "0", *json_flag)
            self.assertSameOutput(remote, local)
            self.assertIn('"max_bytes":0' if json_flag else "max-bytes=- max-age=1w", remote.stdout)
            remote, local = self.both("set-retention", "--stream", name, "--max-age", "12h", *json_flag)
            self.assertSameOutput(remote, local)
            self.assertIn('"max_age_ms":43200000' if json_flag else "max-bytes=- max-age=12h", remote.stdout)
        remote, local = self.both("create", "--stream", "plain")  # no flags: no limits, stored raw
        self.assertSameOutput(remote, local)
        self.assertIn("max-bytes=- max-age=- compression=none", remote.stdout)
        remote, local = self.both("delete", "--stream", "plain")
        self.assertSameOutput(remote, local)
        self.assertEqual(remote.stdout, "stream 'plain' deleted (0 messages)\n")
        remote, local = self.both("info", "--stream", "plain")
        self.assertEqual(remote.returncode, 3, remote.stderr)
        self.assertEqual(remote.returncode, local.returncode, local.stderr)

    def test_create_takes_the_servers_defaults_for_what_is_not_given(self):
        server = Server(os.path.join(self.tmp, "store-defaults"), "--retention-max-age", "7d", "--compression",
                        "zstd:2")
        try:
            r = sift("stream", "create", "--stream", "defaults", "--max-bytes", "1G", "--server", server.url)
            self.assertSucceeded(r)
            self.assertIn("max-bytes=1GiB max-age=1w compression=zstd:2", r.stdout)
        finally:
            self.assertEqual(server.stop(), 0)

    def test_messages_are_counted_by_info_and_delete(self):
        self.assertSucceeded(self.remote("create", "--stream", "counted"))
        publish(self.server.url, "counted", 25)
        r = self.remote("info", "--stream", "counted", "--json")
        self.assertSucceeded(r)
        info = json.loads(r.stdout)
        self.assertEqual((info["messages"], info["first_offset"], info["next_offset"]), (25, 0, 25))
        self.assertGreater(info["bytes"], 0)
        self.assertGreater(info["first_timestamp"], 0)
        self.assertGreaterEqual(info["last_timestamp"], info["first_timestamp"])
        r = self.remote("info", "--stream", "counted")
        self.assertSucceeded(r)
        self.assertRegex(r.stdout, r"^counted messages=25 offsets=0\.\.24 chunks=\d+ bytes=\d+ raw-bytes=\d+ "
                                   r"stored=100\.0% first=\S+Z last=\S+Z max-bytes=- max-age=- compression=none\n$")
        r = self.remote("delete", "--stream", "counted")
        self.assertSucceeded(r)
        self.assertEqual(r.stdout, "stream 'counted' deleted (25 messages)\n")

    def test_enforce_retention_applies_an_age_limit_nobody_appends_to(self):
        self.assertSucceeded(self.remote("create", "--stream", "aging", "--max-age", "1s"))
        publish(self.server.url, "aging", 3)
        time.sleep(1.5)
        r = self.remote("info", "--stream", "aging", "--json")
        self.assertSucceeded(r)
        self.assertEqual(json.loads(r.stdout)["messages"], 3)  # no timer, no append: still there
        r = self.remote("enforce-retention")
        self.assertSucceeded(r)
        self.assertEqual(r.stdout, "")
        r = self.remote("info", "--stream", "aging", "--json")
        self.assertSucceeded(r)
        info = json.loads(r.stdout)
        self.assertEqual((info["messages"], info["first_offset"], info["next_offset"]), (0, 3, 3))

    def test_url_forms(self):
        self.assertSucceeded(sift("stream", "create", "--stream", "forms", "--server", "amqp://" + self.server.url))
        for url in (self.server.url, "amqp://%s/" % self.server.url, "amqp://%s/$management" % self.server.url):
            r = sift("stream", "info", "--stream", "forms", "--server", url)
            self.assertSucceeded(r)
            self.assertTrue(r.stdout.startswith("forms messages=0 "), r.stdout)

    def test_missing_stream_exits_as_on_a_local_store_naming_the_server(self):
        store = os.path.join(self.tmp, "local-missing")
        made = subprocess.run([CLI, "stream", "create", "--store", store, "--stream", "other"], capture_output=True,
                              text=True, timeout=60)
        self.assertEqual(made.returncode, 0, made.stderr)
        local = subprocess.run([CLI, "stream", "info", "--store", store, "--stream", "missing"], capture_output=True,
                               text=True, timeout=60)
        r = self.remote("info", "--stream", "missing")
        self.assertEqual(r.returncode, 3, r.stderr)
        self.assertEqual(r.returncode, local.returncode, local.stderr)
        self.assertEqual(r.stdout, "")
        self.assertRegex(r.stderr, r"^sift: cannot read stream 'missing': %s: .*no such stream.* \(status 404\)\n$" %
                         self.server.url.replace(".", r"\."))
        for args in (["set-retention", "--max-bytes", "1G"], ["delete"]):
            r = self.remote(*args, "--stream", "missing")
            self.assertEqual(r.returncode, 3, r.stderr)
            self.assertIn(self.server.url, r.stderr)
            self.assertIn("(status 404)", r.stderr)

    def test_creating_an_existing_stream_is_an_input_error(self):
        self.assertSucceeded(self.remote("create", "--stream", "twice", "--max-bytes", "1G"))
        r = self.remote("create", "--stream", "twice")
        self.assertEqual(r.returncode, 2, r.stderr)
        self.assertEqual(r.stdout, "")
        self.assertRegex(r.stderr, r"^sift: cannot create stream 'twice': %s: .*'twice' exists.* \(status 409\)\n$" %
                         self.server.url.replace(".", r"\."))
        r = self.remote("info", "--stream", "twice")
        self.assertIn("max-bytes=1GiB", r.stdout)  # unchanged

    def test_empty_stream_name_is_an_input_error(self):
        r = self.remote("create", "--stream", "")
        self.assertEqual(r.returncode, 2, r.stderr)
        self.assertIn("(status 400)", r.stderr)

    def test_usage_errors(self):
        for url in ("http://%s" % self.server.url, "amqp://%s/orders" % self.server.url, "amqp://", "host:port",
                    "user@%s" % self.server.url):
            r = sift("stream", "info", "--stream", "x", "--server", url)
            self.assertEqual(r.returncode, 2, url)
            self.assertTrue(r.stderr.startswith("sift: usage: sift stream info: --server %s: " % url), r.stderr)
        r = sift("stream", "info", "--stream", "x", "--server", self.server.url, "--store", self.local)
        self.assertEqual(r.returncode, 2)
        self.assertIn("excludes", r.stderr)
        r = sift("stream", "info", "--stream", "x", "--store", self.local, "--user", "alice")
        self.assertEqual(r.returncode, 2)
        self.assertIn("--user requires --server", r.stderr)
        r = self.remote("set-retention", "--stream", "x")
        self.assertEqual(r.returncode, 2)
        self.assertEqual(r.stderr, "sift: usage: sift stream set-retention: give --max-bytes, --max-age or both "
                                   "(see 'sift stream set-retention --help')\n")
        r = self.remote("info", "--stream", "x", "--tls-ca", "/nonexistent")
        self.assertEqual(r.returncode, 2)
        self.assertIn("needs an amqps:// URL", r.stderr)

    def test_unreachable_server_is_exit_3(self):
        url = "127.0.0.1:%d" % unused_port()
        for args in (["info", "--stream", "x"], ["enforce-retention"]):
            r = sift("stream", *args, "--server", url)
            self.assertEqual(r.returncode, 3, r.stderr)
            self.assertEqual(r.stdout, "")
            self.assertTrue(r.stderr.startswith("sift: cannot connect: %s: " % url), r.stderr)


@unittest.skipUnless(CLI and os.access(CLI, os.X_OK), "SIFT_CLI is not set to the sift binary")
class ManagementPermissionTest(ServeTestCase):
    """One server with a users file: alice may manage (and read, write, create) orders-*, bob may read,
    write and create orders-* but not manage them; orders-1 exists."""

    @classmethod
    def setUpClass(cls):
        super().setUpClass()
        cls.users = os.path.join(cls.tmp, "users")
        for user, password in PASSWORDS.items():
            sift_users("add", "--file", cls.users, user, password=password + "\n")
            with open(os.path.join(cls.tmp, user + ".password"), "w") as f:
                f.write(password + "\n")
        with open(os.path.join(cls.tmp, "wrong.password"), "w") as f:
            f.write("not the password\n")
        sift_users("grant", "--file", cls.users, "alice", "all,manage", "orders-*")
        sift_users("grant", "--file", cls.users, "bob", "all", "orders-*")
        cls.server = Server(os.path.join(cls.tmp, "store"), "--users", cls.users)
        # A stream bob may not manage (nor anyone but alice): ENFORCE-RETENTION needs `manage` on every
        # stream of the store.
        r = cls.as_user("alice", "create", "--stream", "orders-1")
        if r.returncode != 0:
            raise RuntimeError("sift stream create: " + r.stderr)

    @classmethod
    def tearDownClass(cls):
        cls.server.stop()
        super().tearDownClass()

    @classmethod
    def as_user(cls, user, *args, password_file=None):
        return sift("stream", *args, "--server", cls.server.url, "--user", user, "--password-file",
                    password_file or os.path.join(cls.tmp, user + ".password"))

    def test_user_without_manage_is_refused_with_the_servers_description(self):
        r = self.as_user("bob", "create", "--stream", "orders-bob")
        self.assertEqual(r.returncode, 2, r.stderr)
        self.assertEqual(r.stdout, "")
        self.assertIn(self.server.url, r.stderr)
        self.assertIn("user 'bob' may not manage stream 'orders-bob' (no 'manage' permission on it) (status 403)",
                      r.stderr)
        self.assertEqual(self.as_user("alice", "info", "--stream", "orders-bob").returncode, 3)  # not created
        for args in (["info", "--stream", "orders-1"], ["delete", "--stream", "orders-1"], ["enforce-retention"]):
            r = self.as_user("bob", *args)
            self.assertEqual(r.returncode, 2, r.stderr)
            self.assertIn("(status 403)", r.stderr)

    def test_user_granted_manage_manages_the_streams_of_her_pattern(self):
        r = self.as_user("alice", "create", "--stream", "orders-alice", "--max-bytes", "1G", "--json")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(json.loads(r.stdout)["max_bytes"], 1 << 30)
        publish(self.server.url, "orders-alice", 4, user="alice", password=PASSWORDS["alice"],
                allowed_mechs="PLAIN", allow_insecure_mechs=True)
        r = self.as_user("alice", "set-retention", "--stream", "orders-alice", "--max-age", "1d")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn("orders-alice messages=4 ", r.stdout)
        self.assertIn("max-bytes=1GiB max-age=1d", r.stdout)
        r = self.as_user("alice", "enforce-retention")
        self.assertEqual(r.returncode, 0, r.stderr)
        r = self.as_user("alice", "delete", "--stream", "orders-alice")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(r.stdout, "stream 'orders-alice' deleted (4 messages)\n")
        r = self.as_user("alice", "create", "--stream", "audit")  # outside her pattern
        self.assertEqual(r.returncode, 2, r.stderr)
        self.assertIn("user 'alice' may not manage stream 'audit'", r.stderr)

    def test_wrong_password_and_anonymous_login_are_exit_3(self):
        r = self.as_user("alice", "info", "--stream", "orders-1",
                         password_file=os.path.join(self.tmp, "wrong.password"))
        self.assertEqual(r.returncode, 3, r.stderr)
        self.assertTrue(r.stderr.startswith("sift: cannot connect: %s: " % self.server.url), r.stderr)
        self.assertIn("refused the login", r.stderr)
        self.assertNotIn("not the password", r.stderr)
        r = sift("stream", "info", "--stream", "orders-1", "--server", self.server.url)  # no anonymous entry
        self.assertEqual(r.returncode, 3, r.stderr)
        self.assertIn("refused the login", r.stderr)


@unittest.skipUnless(CLI and os.access(CLI, os.X_OK), "SIFT_CLI is not set to the sift binary")
@unittest.skipUnless(shutil.which("openssl"), "openssl is not installed")
class ManagementTlsTest(ServeTestCase):
    """A server with mutual TLS: a throwaway CA signs its certificate (CN localhost) and alice's, who
    logs in with SASL EXTERNAL and may manage tls-*."""

    @classmethod
    def setUpClass(cls):
        super().setUpClass()
        t = cls.path
        openssl("req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", t("ca.key"), "-out", t("ca.pem"),
                "-days", "1", "-subj", "/CN=sift test CA")
        for name, cn in (("server", "localhost"), ("alice", "alice")):
            openssl("req", "-newkey", "rsa:2048", "-nodes", "-keyout", t(name + ".key"), "-out", t(name + ".csr"),
                    "-subj", "/CN=" + cn)
            openssl("x509", "-req", "-in", t(name + ".csr"), "-CA", t("ca.pem"), "-CAkey", t("ca.key"),
                    "-CAcreateserial", "-out", t(name + ".pem"), "-days", "1")
        users = t("users")
        sift_users("add", "--file", users, "alice", password="unused password\n")
        sift_users("grant", "--file", users, "alice", "all,manage", "tls-*")
        cls.server = Server(t("store"), "--users", users, "--tls-cert", t("server.pem"), "--tls-key",
                            t("server.key"), "--tls-ca", t("ca.pem"), "--tls-verify-peer")
        cls.url = "amqps://localhost:%d" % cls.server.port

    @classmethod
    def tearDownClass(cls):
        cls.server.stop()
        super().tearDownClass()

    @classmethod
    def path(cls, name):
        return os.path.join(cls.tmp, name)

    def test_client_certificate_logs_in_and_manages(self):
        tls = ["--server", self.url, "--tls-ca", self.path("ca.pem"), "--tls-cert", self.path("alice.pem"),
               "--tls-key", self.path("alice.key")]
        r = sift("stream", "create", "--stream", "tls-1", "--max-age", "1d", *tls)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn("tls-1 messages=0 ", r.stdout)
        r = sift("stream", "info", "--stream", "tls-1", "--json", *tls)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(json.loads(r.stdout)["max_age_ms"], 86400000)
        r = sift("stream", "create", "--stream", "other", *tls)
        self.assertEqual(r.returncode, 2, r.stderr)
        self.assertIn("user 'alice' may not manage stream 'other'", r.stderr)
        r = sift("stream", "delete", "--stream", "tls-1", *tls)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(r.stdout, "stream 'tls-1' deleted (0 messages)\n")

    def test_untrusted_server_or_no_client_certificate_is_exit_3(self):
        # The server's certificate checked against the system's CAs, which did not sign it.
        r = sift("stream", "info", "--stream", "tls-1", "--server", self.url, "--tls-cert", self.path("alice.pem"),
                 "--tls-key", self.path("alice.key"))
        self.assertEqual(r.returncode, 3, r.stderr)
        self.assertTrue(r.stderr.startswith("sift: cannot connect: %s: " % self.url), r.stderr)
        r = sift("stream", "info", "--stream", "tls-1", "--server", self.url, "--tls-ca", self.path("ca.pem"))
        self.assertEqual(r.returncode, 3, r.stderr)
        self.assertTrue(r.stderr.startswith("sift: cannot connect: %s: " % self.url), r.stderr)


if __name__ == "__main__":
    unittest.main()
