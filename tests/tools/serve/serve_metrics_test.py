#!/usr/bin/python3
"""The Prometheus endpoint of `sift serve --metrics`, scraped over loopback.

A server started with --metrics 127.0.0.1:0 (the address is read from its "metrics on" line) gets a
little traffic: producers on two streams (one whose name needs escaping in a label value), a message
over --max-message-size (rejected), and a filtered consumer that stays attached. The scrape must pass
`promtool check metrics` (Debian's prometheus package; the test is skipped, saying so, only when
promtool is not installed) and show the counts the traffic implies. Also: other paths answer 404, a
silent client does not hold a scrape up, a closed consumer leaves the page, a bad or busy
--metrics address is an error naming the flag, and under --no-summary a filtered consumer skips no chunk.

Run with Debian's interpreter (/usr/bin/python3), which has the proton bindings.
"""

import os
import re
import shutil
import socket
import subprocess
import sys
import tempfile
import threading
import time
import unittest

from proton import Message, symbol
from proton.utils import BlockingConnection

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from serve_interop_test import filter_option, publish, sql  # noqa: E402

SERVE = os.environ.get("SIFT_SERVE", "")
PROMTOOL = shutil.which("promtool")
ODD = 'odd "name" \\ x'  # a stream name with a quote and a backslash


def start_server(store, *extra):
    """sift-serve with --metrics on an ephemeral port: (process, AMQP url, metrics port)."""
    proc = subprocess.Popen([SERVE, "--listen", "127.0.0.1:0", "--store", store, "--metrics", "127.0.0.1:0"]
                            + list(extra), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    url = metrics = None
    for _ in range(2):
        line = proc.stdout.readline()
        m = re.search(r"metrics on http://127\.0\.0\.1:(\d+)/metrics", line)
        if m:
            metrics = int(m.group(1))
        m = re.search(r"listening on (127\.0\.0\.1:\d+)", line)
        if m:
            url = m.group(1)
    if url is None or metrics is None:
        proc.kill()
        raise RuntimeError("sift-serve did not start: %s" % proc.stderr.read())
    return proc, url, metrics


def http(port, request, timeout=5):
    """Sends a raw request, returns (status code, headers text, body) once the server closes."""
    with socket.create_connection(("127.0.0.1", port), timeout=timeout) as s:
        s.sendall(request.encode())
        data = b""
        while True:
            chunk = s.recv(65536)
            if not chunk:
                break
            data += chunk
    head, _, body = data.partition(b"\r\n\r\n")
    status = int(head.split(b" ", 2)[1])
    return status, head.decode(), body.decode()


def scrape(port):
    status, head, body = http(port, "GET /metrics HTTP/1.1\r\nHost: localhost\r\n\r\n")
    assert status == 200, (status, body)
    assert "Content-Type: text/plain; version=0.0.4" in head, head
    assert re.search(r"Content-Length: %d\r?\n" % len(body.encode()), head + "\n"), head
    return body


def sample(text, name, labels=""):
    """The value of one sample (None when absent)."""
    line = re.search(r"^%s%s (\S+)$" % (re.escape(name), re.escape(labels)), text, re.M)
    return float(line.group(1)) if line else None


def wait_for(test, port, predicate, what, seconds=10):
    """Scrapes until predicate(page) holds (bounded: `seconds`, then `test` fails); returns that page."""
    deadline = time.monotonic() + seconds
    while True:
        page = scrape(port)
        if predicate(page):
            return page
        if time.monotonic() > deadline:
            test.fail("%s not seen within %d s:\n%s" % (what, seconds, page))
        time.sleep(0.1)


class MetricsTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        if not SERVE or not os.access(SERVE, os.X_OK):
            raise unittest.SkipTest("SIFT_SERVE is not set to the sift-serve binary")
        cls.tmp = tempfile.mkdtemp(prefix="sift-serve-metrics-")
        cls.proc, cls.url, cls.port = start_server(os.path.join(cls.tmp, "store"), "--max-message-size", "2000")

    @classmethod
    def tearDownClass(cls):
        cls.proc.terminate()
        code = cls.proc.wait(timeout=30)
        stderr = cls.proc.stderr.read()
        cls.proc.stdout.close()
        cls.proc.stderr.close()
        shutil.rmtree(cls.tmp, ignore_errors=True)
        if code != 0:  # the endpoint's thread stops cleanly with the server
            raise AssertionError("sift-serve exited with %d after SIGTERM: %s" % (code, stderr))

    def wait_for(self, predicate, what, seconds=10):
        return wait_for(self, self.port, predicate, what, seconds)

    def test_traffic_shows_in_metrics_and_promtool_accepts_them(self):
        messages = [Message(body="order %d" % i, properties={"n": i}) for i in range(40)]
        p = publish(self.url, "orders", messages + [Message(body="x" * 5000)])
        self.assertEqual(len(p.accepted), 40)
        self.assertEqual(len(p.rejected), 1)  # over --max-message-size
        self.assertEqual(len(publish(self.url, ODD, messages[:3]).accepted), 3)
        appended_bytes = sum(len(m.encode()) for m in messages)

        conn = BlockingConnection(self.url, timeout=30)
        try:
            rcv = conn.create_receiver("orders", name="metrics-consumer", credit=100,
                                       options=filter_option(sql("n >= 30")))
            got = [rcv.receive(timeout=30) for _ in range(10)]
            for _ in got:
                rcv.accept()
            link = r'\{stream="orders",link="(\d+)"\}'
            # The reader publishes its figures after each poll: wait until the page shows the whole scan.
            page = self.wait_for(lambda t: re.search(r"^sift_consumer_lag_messages%s 0$" % link, t, re.M)
                                 and re.search(r"^sift_consumer_matched_records_total%s 10$" % link, t, re.M),
                                 "the consumer at the end of its stream")
            link_id = re.search(r"^sift_consumer_matched_records_total%s" % link, page, re.M).group(1)
            labels = '{stream="orders",link="%s"}' % link_id
            # Chunks whose summary rules out n >= 30 are skipped unread: every record is either scanned or
            # in a pruned chunk (how many chunks there are depends on how the appends were grouped).
            scanned = sample(page, "sift_consumer_scanned_records_total", labels)
            pruned = sample(page, "sift_consumer_pruned_chunks_total", labels)
            self.assertTrue(10 <= scanned <= 40, page)
            self.assertEqual(scanned == 40, pruned == 0, page)
            self.assertGreaterEqual(sample(page, "sift_consumer_credit", labels), 90)  # 100 granted, 10 used (or more granted since)
            self.assertEqual(sample(page, "sift_consumer_links"), 1)
            self.assertEqual(sample(page, "sift_connections_open"), 1)
            self.assertEqual(sample(page, "sift_producer_links"), 0)

            orders = '{stream="orders"}'
            self.assertEqual(sample(page, "sift_stream_appended_messages_total", orders), 40)
            self.assertEqual(sample(page, "sift_stream_appended_bytes_total", orders), appended_bytes)
            self.assertEqual(sample(page, "sift_stream_stored_messages", orders), 40)
            self.assertGreater(sample(page, "sift_stream_stored_bytes", orders), appended_bytes)
            self.assertEqual(sample(page, "sift_stream_retention_deleted_messages_total", orders), 0)
            self.assertEqual(sample(page, "sift_stream_next_offset", orders), 40)
            odd = '{stream="odd \\"name\\" \\\\ x"}'  # the label value escaped per the text format
            self.assertEqual(sample(page, "sift_stream_appended_messages_total", odd), 3, page)
            self.assertEqual(sample(page, "sift_appends_rejected_total"), 1)
            self.assertEqual(sample(page, "sift_appends_failed_total"), 0)
            self.assertEqual(sample(page, "sift_memory_alarm"), 0)
            self.assertEqual(sample(page, "sift_disk_alarm"), 0)
            self.assertEqual(sample(page, "sift_memory_refusals_total"), 0)
            self.assertEqual(sample(page, "sift_read_ahead_dropped_bytes_total"), 0)
            self.assertGreaterEqual(sample(page, "sift_fsync_duration_seconds_count"), 2)  # >= 1 per publish
            self.assertEqual(sample(page, "sift_fsync_duration_seconds_bucket", '{le="+Inf"}'),
                             sample(page, "sift_fsync_duration_seconds_count"))

            if PROMTOOL is None:
                self.skipTest("promtool is not installed (Debian package prometheus; tools/setup-debian "
                              "installs it): the text format was not checked by promtool")
            check = subprocess.run([PROMTOOL, "check", "metrics"], input=page, capture_output=True, text=True,
                                   timeout=60)
            self.assertEqual(check.returncode, 0, check.stdout + check.stderr)
            self.assertEqual((check.stdout + check.stderr).strip(), "", "promtool lint findings")
            rcv.close()
        finally:
            conn.close()
        self.wait_for(lambda t: sample(t, "sift_consumer_links") == 0 and "link=" not in t
                      and sample(t, "sift_connections_open") == 0, "the consumer and its connection gone")

    def test_other_paths_and_methods_are_refused(self):
        self.assertEqual(http(self.port, "GET / HTTP/1.1\r\n\r\n")[0], 404)
        self.assertEqual(http(self.port, "GET /metrics/x HTTP/1.1\r\n\r\n")[0], 404)
        status, head, _ = http(self.port, "DELETE /metrics HTTP/1.1\r\n\r\n")
        self.assertEqual(status, 405)
        self.assertIn("Allow: GET, HEAD", head)
        self.assertEqual(http(self.port, "nonsense\r\n\r\n")[0], 400)
        self.assertEqual(http(self.port, "GET /metrics HTTP/1.1\r\nX: %s\r\n\r\n" % ("a" * 10000))[0], 431)
        status, head, body = http(self.port, "HEAD /metrics HTTP/1.1\r\n\r\n")
        self.assertEqual((status, body), (200, ""))

    def test_a_silent_client_does_not_hold_a_scrape_up(self):
        with socket.create_connection(("127.0.0.1", self.port)):
            start = time.monotonic()
            self.assertIn("sift_connections_open", scrape(self.port))
            self.assertLess(time.monotonic() - start, 2)  # served within 2 s, not after the silent one

    def test_trickling_clients_do_not_keep_scrapes_out(self):
        # 64 clients (four times the endpoint's slots) that connect and send one byte of their request
        # every 0.5 s, reconnecting when closed; meanwhile a well-behaved scraper scrapes 20 times.
        stop = threading.Event()

        def trickle():
            while not stop.is_set():
                try:
                    with socket.create_connection(("127.0.0.1", self.port), timeout=5) as s:
                        for byte in b"GET /metrics HTTP/1.1\r\nHost: slow\r\n":
                            if stop.wait(0.5):
                                return
                            s.sendall(bytes([byte]))
                except OSError:
                    time.sleep(0.05)  # closed to make room: come back, as an attacker would

        threads = [threading.Thread(target=trickle) for _ in range(64)]
        for t in threads:
            t.start()
        try:
            time.sleep(1.0)  # every slot is taken by now
            for _ in range(20):
                start = time.monotonic()
                self.assertIn("sift_connections_open", scrape(self.port))
                self.assertLess(time.monotonic() - start, 2)
                time.sleep(0.1)
        finally:
            stop.set()
            for t in threads:
                t.join()


class ServerPerTestCase(unittest.TestCase):
    """A test that starts servers of its own, in a folder of its own."""

    def setUp(self):
        if not SERVE or not os.access(SERVE, os.X_OK):
            self.skipTest("SIFT_SERVE is not set to the sift-serve binary")
        self.tmp = tempfile.mkdtemp(prefix="sift-serve-%s-" % type(self).__name__)

    def tearDown(self):
        shutil.rmtree(self.tmp, ignore_errors=True)


class MetricsFlagTest(ServerPerTestCase):

    def run_serve(self, *flags):
        return subprocess.run([SERVE, "--listen", "127.0.0.1:0", "--store", os.path.join(self.tmp, "s")] + list(flags),
                              capture_output=True, text=True, timeout=30)

    def test_a_bad_address_is_a_usage_error(self):
        r = self.run_serve("--metrics", "9464")
        self.assertEqual(r.returncode, 2, r.stderr)
        self.assertIn("--metrics", r.stderr)
        self.assertIn("expected HOST:PORT", r.stderr)

    def test_an_address_in_use_is_an_error_naming_the_flag(self):
        with socket.socket() as busy:
            busy.bind(("127.0.0.1", 0))
            busy.listen(1)
            r = self.run_serve("--metrics", "127.0.0.1:%d" % busy.getsockname()[1])
        self.assertEqual(r.returncode, 3, r.stderr)
        self.assertRegex(r.stderr, r"^sift: cannot listen: --metrics 127\.0\.0\.1:\d+: Address already in use")


class StreamLimitTest(ServerPerTestCase):
    """--max-streams and the bound on per-stream series: 10,000 streams of awkward (valid) names fill the
    default limit, the next one is refused, and the page stays small and well-formed."""

    def test_ten_thousand_awkward_streams_one_page_under_a_megabyte(self):
        from serve_hostile_test import ATTACH, DETACH, RawClient, condition_name
        from proton import uint
        proc, url, port = start_server(os.path.join(self.tmp, "store"))
        try:
            awkward = ['q"uote', "back\\slash", "br{ace}", "a=b,c", "sp ace", "h#sh", "\u00e9t\u00e9",
                       "\U0001F600", "\u4e2d\u6587", "x" * 240]
            names = ["%s-%05d" % (awkward[i % len(awkward)], i) for i in range(10001)]
            raw = RawClient(url, timeout=60)
            try:
                refused = []
                for start in range(0, len(names), 250):
                    batch = names[start:start + 250]
                    frames = b""
                    for h, name in enumerate(batch):
                        frames += raw.frame(ATTACH, raw.attach_fields("p%d" % (start + h), h, True, name))
                        frames += raw.frame(DETACH, [uint(h), True])
                    raw.sock.sendall(frames)
                    detached = 0
                    while detached < len(batch):
                        code, fields, _ = raw.read_frame()
                        if code == DETACH:
                            detached += 1
                            if condition_name(fields, 2) is not None:
                                refused.append((int(fields[0]) + start, condition_name(fields, 2),
                                                str(fields[2].value[1])))
            finally:
                raw.close()
            self.assertEqual(len(refused), 1, refused[:3])
            index, condition, description = refused[0]
            self.assertEqual(index, 10000)
            self.assertEqual(condition, "amqp:resource-limit-exceeded")
            self.assertIn("--max-streams 10000", description)
            page = scrape(port)
            self.assertLess(len(page.encode()), 1 << 20)
            self.assertEqual(sample(page, "sift_streams"), 10000)
            self.assertEqual(sample(page, "sift_streams_summed"), 9900)
            self.assertEqual(len(re.findall(r"^sift_stream_stored_bytes\{", page, re.M)), 100)
            self.assertIsNotNone(sample(page, "sift_stream_stored_bytes"))  # the sum of the other 9,900
            if PROMTOOL is None:
                self.skipTest("promtool is not installed: the page was not checked by promtool")
            check = subprocess.run([PROMTOOL, "check", "metrics"], input=page, capture_output=True, text=True,
                                   timeout=60)
            self.assertEqual(check.returncode, 0, check.stdout + check.stderr)
        finally:
            proc.terminate()
            self.assertEqual(proc.wait(timeout=60), 0)
            proc.stdout.close()
            proc.stderr.close()


class SummaryFlagTest(ServerPerTestCase):
    """--no-summary: the chunks serve writes get no summary, so a filtered consumer reads every one. The
    same traffic into a server with summaries skips some, which shows the consumer could have."""

    def pruned_and_scanned(self, name, *flags):
        """Publishes 40 messages (chunks of at most 10, each larger than its summary) and reads those with
        n >= 30 through a filtered consumer: (chunks pruned, records scanned) once it reached the end."""
        proc, url, port = start_server(os.path.join(self.tmp, name), "--max-chunk-messages", "10", *flags)
        try:
            messages = [Message(body="x" * 1000, properties={"n": i}) for i in range(40)]
            self.assertEqual(len(publish(url, "orders", messages).accepted), 40)
            conn = BlockingConnection(url, timeout=30)
            try:
                rcv = conn.create_receiver("orders", name="c", credit=100, options=filter_option(sql("n >= 30")))
                for _ in range(10):
                    rcv.receive(timeout=30)
                    rcv.accept()
                link = r'\{stream="orders",link="(\d+)"\}'
                page = wait_for(self, port,
                                lambda t: re.search(r"^sift_consumer_matched_records_total%s 10$" % link, t, re.M)
                                and re.search(r"^sift_consumer_lag_messages%s 0$" % link, t, re.M),
                                "the consumer at the end of its stream")
                labels = '{stream="orders",link="%s"}' % re.search(
                    r"^sift_consumer_matched_records_total%s" % link, page, re.M).group(1)
                return (sample(page, "sift_consumer_pruned_chunks_total", labels),
                        sample(page, "sift_consumer_scanned_records_total", labels))
            finally:
                conn.close()
        finally:
            proc.terminate()
            proc.wait(timeout=30)
            proc.stdout.close()
            proc.stderr.close()

    def test_no_summary_leaves_every_chunk_to_be_read(self):
        self.assertEqual(self.pruned_and_scanned("off", "--no-summary"), (0, 40))
        pruned, scanned = self.pruned_and_scanned("on")
        self.assertGreaterEqual(pruned, 1)  # at least one chunk holds only messages with n < 30
        self.assertLess(scanned, 40)


if __name__ == "__main__":
    unittest.main()
