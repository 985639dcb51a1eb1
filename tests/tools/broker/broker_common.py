"""Shared pieces of the broker tests and of bench/broker: the sift binary, record files, sift serve.

SIFT_CLI names the sift binary (ctest sets it). Run with Debian's interpreter (/usr/bin/python3), which
has the proton bindings.
"""

import os
import re
import signal
import struct
import subprocess
import time

from proton import Message

CLI = os.environ.get("SIFT_CLI", "")


def sift(*args, timeout=300, input=None):
    """Runs `sift ARGS`; the CompletedProcess (text stdout and stderr)."""
    return subprocess.run([CLI] + [str(a) for a in args], capture_output=True, text=True, timeout=timeout,
                          input=input)


def read_records(data):
    """The messages of a record file's bytes (4-byte big-endian length, then the message)."""
    out, at = [], 0
    while at < len(data):
        (n,) = struct.unpack(">I", data[at:at + 4])
        out.append(data[at + 4:at + 4 + n])
        at += 4 + n
    return out


def write_records(path, messages):
    with open(path, "wb") as f:
        for m in messages:
            f.write(struct.pack(">I", len(m)))
            f.write(m)


def stored(store, stream, *filters):
    """The stored bytes of a stream's messages (those matching `filters`), in offset order."""
    r = subprocess.run([CLI, "replay", "--store", store, "--stream", stream, "-f", "amqp"] + list(filters),
                       capture_output=True, timeout=300)
    if r.returncode not in (0, 1):
        raise RuntimeError("replay failed: %s" % r.stderr.decode())
    return read_records(r.stdout)


def decode(data):
    m = Message()
    m.decode(data)
    return m


def same_message(a, b):
    """Properties, application properties and body equal (what a broker must keep)."""
    fields = ("id", "user_id", "address", "subject", "reply_to", "correlation_id", "content_type",
              "content_encoding", "group_id", "reply_to_group_id", "properties", "body")
    return all(getattr(a, f) == getattr(b, f) for f in fields)


class Serve:
    """`sift serve` on an ephemeral loopback port with its own store."""

    def __init__(self, store, *extra):
        self.store = store
        self.log = open(store + ".log", "w+")
        self.proc = subprocess.Popen([CLI, "serve", "--listen", "127.0.0.1:0", "--store", store] + list(extra),
                                     stdout=subprocess.PIPE, stderr=self.log, text=True)
        line = self.proc.stdout.readline()
        m = re.search(r"listening on \S+:(\d+)", line)
        if not m:
            self.proc.kill()
            self.log.seek(0)
            raise RuntimeError("sift serve did not start: %r %s" % (line, self.log.read()))
        self.port = int(m.group(1))

    def url(self, address, scheme="amqp", host="127.0.0.1"):
        return "%s://%s:%d/%s" % (scheme, host, self.port, address)

    def stop(self):
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        self.proc.stdout.close()
        self.log.close()


def wait_for(predicate, timeout=30, step=0.05):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return True
        time.sleep(step)
    return predicate()
