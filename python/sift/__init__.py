"""sift: filter streams of AMQP 1.0 messages with SQL selectors, on the encoded bytes.

The Python face of libsift (the C API, sift/sift.h): a store of streams, appends, filtered replays
that yield zero-copy deliveries, filtered counts that create no Python object per match, and the
offline filter of a record file. Scans run with the interpreter's lock released, so threads (and a
Dask cluster's workers) filter in parallel.

    import sift
    store = sift.Store("/var/lib/sift")
    store.append("orders", encoded_message)
    for d in store.replay("orders", sql="region = 'eu-west' AND amount > 900"):
        print(d.offset, len(d.bytes), d.json()["application_properties"])
    n = store.count("orders", sql="color IN ('red', 'blue')")
    matches = sift.filter_file("orders.amqp", jms="JMSPriority > 6")

Filters (keyword arguments of replay, count and filter_file; all given must match): sql (a SQL filter
expression), jms (a JMS selector), properties and application_properties (a dict, or its JSON text, of
reference values in typed JSON). The language is docs/selector-language.md.

Errors raise SiftError (with .code and .status) or, for a filter that does not compile, FilterError
(also .clause, .position, .selector_code).
"""

import json as _json

from .errors import FilterError, SiftError
from . import _sift

__version__ = _sift.__version__
__all__ = ["Store", "Delivery", "Replay", "filter_file", "check_filter", "SiftError", "FilterError",
           "__version__"]

Delivery = _sift.Delivery
Replay = _sift.Replay


def _message(self):
    """The message fully decoded, as a proton.Message (python3-qpid-proton)."""
    import proton  # imported on first use: a caller that never decodes never loads Proton
    message = proton.Message()
    message.decode(bytes(self.bytes))
    return message


def _json_dict(self):
    """The message as a dict in the typed-JSON mapping (docs/typed-json.md), with "offset"."""
    return _json.loads(self.json_text())


Delivery.message = _message
Delivery.json = _json_dict


class Store:
    """A sift store: named streams of AMQP 1.0 messages in a folder.

    Store(path, create=True, read_only=False, sync=True, validate=True) opens (or, with create,
    makes) the store in `path`. read_only opens it for reading beside a process that writes to it;
    sync=False acknowledges appends before they are fsync'd (flush() makes them durable); validate
    checks every appended message strictly. Use as a context manager, or call close(): the store
    closes when it and every replay on it are gone.
    """

    def __init__(self, path, *, create=True, read_only=False, sync=True, validate=True):
        self._store = _sift._Store(str(path), create, read_only, sync, validate)

    @property
    def path(self):
        """The store's folder."""
        return self._store.path

    def close(self):
        """Releases the store (replays still running keep it open until they end)."""
        self._store.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
        return False

    def streams(self):
        """The stream names."""
        return self._store.streams()

    def create_stream(self, name, *, max_bytes=0, max_age_ms=0):
        """Creates a stream with that retention (0: no limit); nothing when it exists."""
        self._store.create_stream(name, max_bytes, max_age_ms)

    def delete_stream(self, name):
        """Deletes a stream and its messages (SiftError NotFound when there is none)."""
        self._store.delete_stream(name)

    def set_retention(self, name, *, max_bytes=0, max_age_ms=0):
        """Replaces the stream's retention and applies it at once."""
        self._store.set_retention(name, max_bytes, max_age_ms)

    def stream_info(self, name):
        """A dict: first_offset, next_offset, message_count, chunk_count, bytes, raw_bytes,
        first_timestamp_ms, last_timestamp_ms, max_bytes, max_age_ms."""
        return self._store.stream_info(name)

    def flush(self):
        """Makes every acknowledged append durable."""
        self._store.flush()

    def append(self, stream, data, *, create=True):
        """Appends one encoded AMQP 1.0 message (any bytes-like object); returns its offset.

        With create (the default) the stream is created first when missing. A malformed message
        raises SiftError with code "Malformed", naming the byte.
        """
        if create:
            try:
                return self._store.append(stream, data)
            except SiftError as e:
                if e.code != "NotFound":
                    raise
                self._store.create_stream(stream, 0, 0)
        return self._store.append(stream, data)

    def append_batch(self, stream, messages, *, create=True):
        """Appends the messages that pass their checks, in one atomic write; returns, per message,
        its offset or the SiftError that refused it."""
        if create:
            self._store.create_stream(stream, 0, 0)
        return self._store.append_batch(stream, list(messages))

    def replay(self, stream, *, sql=None, jms=None, properties=None, application_properties=None, start=None,
               end=None, start_timestamp_ms=None, end_timestamp_ms=None, follow=False, credit=1024, wait=0.2):
        """A filtered read of `stream`: an iterator of Delivery, in offset order.

        start: None or "first" (the oldest retained message), "last", "next" (only what is appended
        from now), an offset N, or -N (the last N messages); start_timestamp_ms: the first message
        appended at or after it. end: None or the first offset not delivered; end_timestamp_ms: stop
        before messages appended after it. follow: wait for appends at the end (each wait is `wait`
        seconds; the iterator never ends unless `end` is given). credit: deliveries per batch.

        A Delivery views the bytes of its batch without a copy and keeps them alive as long as it
        (or a memoryview of it) lives.
        """
        return self._store.replay(stream, sql=sql, jms=jms, properties=properties,
                                  application_properties=application_properties, start=start, end=end,
                                  start_timestamp_ms=start_timestamp_ms, end_timestamp_ms=end_timestamp_ms,
                                  follow=follow, credit=credit, wait=wait)

    def count(self, stream, *, sql=None, jms=None, properties=None, application_properties=None, start=None,
              end=None, start_timestamp_ms=None, end_timestamp_ms=None, threads=0, stats=False):
        """The number of messages of `stream` the filters match in [start, end), counted on `threads`
        threads (0: one per core) with no Python object per match. With stats, (count, dict)."""
        return self._store.count(stream, sql=sql, jms=jms, properties=properties,
                                 application_properties=application_properties, start=start, end=end,
                                 start_timestamp_ms=start_timestamp_ms, end_timestamp_ms=end_timestamp_ms,
                                 threads=threads, stats=stats)


def filter_file(path, *, sql=None, jms=None, properties=None, application_properties=None, strict=False, limit=0,
                count=False):
    """Filters a record file (docs/record-format.md) as `sift filter` does, on one thread.

    Returns the matches as a list of Delivery (offset: the record's index in the file), or, with
    count=True, their number (no Python object per match). Matches are validated in full, and every
    record with strict; a malformed record raises SiftError "Malformed" naming the record and byte.
    limit stops after that many matches (0: none).
    """
    return _sift.filter_file(str(path), sql=sql, jms=jms, properties=properties,
                             application_properties=application_properties, strict=strict, limit=limit,
                             count=count)


def check_filter(*, sql=None, jms=None, properties=None, application_properties=None):
    """Compiles the filters and returns their plan (what `sift explain` prints); raises FilterError."""
    return _sift.check_filter(sql=sql, jms=jms, properties=properties, application_properties=application_properties)
