"""Hoarding consumers against `sift serve`, shared by serve_hostile_test.py and bench/serve/hoard.

A hoarder is a raw AMQP connection (no SASL, a 4 KiB receive buffer) that attaches receiver links to a
stream, grants each some credit and never reads again: everything the server sends it stays on the
server's side of the socket. hoard() opens many of them and, while they sit there, samples the server's
RSS and times a fresh client publishing and consuming a small message on another stream; then closes
them and waits for the RSS to come back.
"""

import multiprocessing
import socket
import struct
import time

from proton import Data, Described, Message, ubyte, uint, ulong
from proton.utils import BlockingConnection

OPEN, BEGIN, ATTACH, FLOW = 0x10, 0x11, 0x12, 0x13
SOURCE, TARGET = 0x28, 0x29


def _frame(code, fields):
    data = Data()
    data.put_object(Described(ulong(code), fields))
    body = data.encode()
    return struct.pack(">IBBH", 8 + len(body), 2, 0, 0) + body


def _attach(name, handle, address):
    source = Described(ulong(SOURCE), [address])
    target = Described(ulong(TARGET), [None])
    return [name, uint(handle), True, ubyte(0), ubyte(0), source, target]


def hoarder_bytes(index, links, stream, credit):
    """The whole conversation of one hoarder: header, open, begin, then an attach and a flow per link."""
    out = b"AMQP\x00\x01\x00\x00"
    out += _frame(OPEN, ["hoarder-%d" % index])
    out += _frame(BEGIN, [None, uint(0), uint(0x7FFFFFFF), uint(0x7FFFFFFF)])
    for h in range(links):
        out += _frame(ATTACH, _attach("h%d" % h, h, stream))
        out += _frame(FLOW, [uint(0), uint(0x7FFFFFFF), uint(0), uint(0x7FFFFFFF), uint(h), uint(0), uint(credit)])
    return out


def status_bytes(pid, field):
    """A /proc/PID/status size (VmRSS, VmHWM) in bytes."""
    with open("/proc/%d/status" % pid) as f:
        for line in f:
            if line.startswith(field + ":"):
                return int(line.split()[1]) * 1024
    raise RuntimeError("no " + field)


def rss(server):
    """The server's VmRSS, or 0 once it has exited (the figures then say it died)."""
    try:
        return status_bytes(server.proc.pid, "VmRSS")
    except (OSError, RuntimeError):
        return 0


def reset_peak(pid):
    """Starts VmHWM again from the current RSS (proc(5), clear_refs: 5)."""
    with open("/proc/%d/clear_refs" % pid, "w") as f:
        f.write("5")


def round_trip(url, stream, timeout=10.0):
    """Seconds a fresh client takes to connect, publish one small message to `stream` and receive it."""
    start = time.monotonic()
    conn = BlockingConnection(url, timeout=timeout)
    try:
        tag = "probe-%d" % time.monotonic_ns()
        receiver = conn.create_receiver(stream, credit=1, options=None)
        sender = conn.create_sender(stream)
        sender.send(Message(body=tag))
        for _ in range(1000):
            got = receiver.receive(timeout=timeout)
            receiver.accept()
            if got.body == tag:
                return time.monotonic() - start
            receiver.flow(1)
        raise RuntimeError("the probe message never came")
    finally:
        conn.close()


def warm(url, stream, timeout=60.0):
    """Reads `stream` to its end once, as a consumer that keeps up would: the store's block cache then
    holds what the hoarders will read, and the RSS measured next includes it."""
    conn = BlockingConnection(url, timeout=timeout)
    try:
        receiver = conn.create_receiver(stream, credit=1)
        while True:
            try:
                receiver.receive(timeout=1.0)
            except Exception:  # nothing more within a second: at the end
                return
            receiver.accept()
            receiver.flow(1)
    finally:
        conn.close()


def _hold(url, connections, links, stream, credit, pipe):
    """In a process of its own (the probe's client uses select(), which takes no descriptor past
    1023): opens the hoarders, says "ready", and closes them when told."""
    host, port = url.rsplit(":", 1)
    socks = []
    try:
        for i in range(connections):
            sock = socket.socket()
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
            sock.settimeout(30)
            sock.connect((host, int(port)))
            sock.sendall(hoarder_bytes(i, links, stream, credit))
            socks.append(sock)
        pipe.send("ready")
        pipe.recv()
    finally:
        for sock in socks:
            sock.close()


def hoard(server, connections, links, stream, probe_stream, credit=100, hold_seconds=4.0, settle_seconds=10.0,
          log=None):
    """Opens `connections` hoarders of `links` links each on `stream`; returns a dict of figures: baseline,
    peak (sampled VmRSS and the kernel's VmHWM), probe (the slowest fresh-client round trip while they
    hold; infinite when one failed), probes and failures (each round trip, and why those failed), after
    (RSS once they left) and died (the server exited meanwhile)."""
    warm(server.url, stream)
    round_trip(server.url, probe_stream)  # the probe's stream and connection path are warm
    time.sleep(0.5)
    baseline = server.rss()
    reset_peak(server.proc.pid)
    parent, child = multiprocessing.Pipe()
    holder = multiprocessing.Process(target=_hold, args=(server.url, connections, links, stream, credit, child))
    peak = baseline
    probes = []
    failures = []
    holder.start()
    try:
        while not parent.poll(0.1):
            peak = max(peak, rss(server))
        parent.recv()  # "ready": every hoarder has sent its attaches
        deadline = time.monotonic() + hold_seconds
        while time.monotonic() < deadline:
            peak = max(peak, rss(server))
            try:
                probes.append(round_trip(server.url, probe_stream))
            except Exception as e:  # the server died, did not answer or refused: the figures say so
                probes.append(float("inf"))
                failures.append(str(e))
            peak = max(peak, rss(server))
            time.sleep(0.1)
    finally:
        parent.send("close")
        holder.join(60)
    if server.proc.poll() is not None:
        return {"baseline": baseline, "peak": peak, "probe": float("inf"), "after": float("inf"), "died": True,
                "probes": probes, "failures": failures}
    hwm = status_bytes(server.proc.pid, "VmHWM")
    after = server.rss()
    deadline = time.monotonic() + settle_seconds
    while time.monotonic() < deadline and after > baseline + (64 << 20):
        time.sleep(0.2)
        after = server.rss()
    figures = {"baseline": baseline, "peak": max(peak, hwm), "probe": max(probes), "after": after, "died": False,
               "probes": probes, "failures": failures}
    if log is not None:
        print("%d connections x %d links: RSS baseline %.1f MB, peak %.1f MB (VmHWM %.1f MB), slowest fresh "
              "round trip %.3f s (all: %s), after they left %.1f MB" %
              (connections, links, baseline / 1e6, peak / 1e6, hwm / 1e6, max(probes),
               " ".join("%.2f" % p for p in probes), after / 1e6), file=log)
    return figures
