"""The Python package sift against python3-qpid-proton: stores, appends, replays with zero-copy
deliveries, counts, filter_file, errors with their codes and positions, the interpreter's lock released
during scans, and the type hints shipped with the package."""
import json
import os
import struct
import threading
import time

import proton
import pytest

import sift

REGIONS = ["eu-west", "us-east", "ap-south"]
COLORS = ["red", "blue", "green", "black"]


def order(i):
    """Order i, encoded by Proton: its application properties are a function of i."""
    m = proton.Message()
    m.id = "order-%d" % i
    m.subject = "orders"
    m.priority = i % 10
    m.properties = {"region": REGIONS[i % 3], "amount": i % 1000, "color": COLORS[i % 4],
                    "vip": i % 7 == 0}
    m.body = {"n": i}
    return m.encode()


def expected(i, sql_like):
    """The reference answer for the filters the tests use, from order i's values."""
    region, amount, color = REGIONS[i % 3], i % 1000, COLORS[i % 4]
    return sql_like(region, amount, color, i % 10)


N = 5000
SQL = "region = 'eu-west' AND amount > 500 AND color IN ('red', 'blue')"


def sql_ref(region, amount, color, priority):
    return region == "eu-west" and amount > 500 and color in ("red", "blue")


@pytest.fixture(scope="module")
def messages():
    return [order(i) for i in range(N)]


@pytest.fixture(scope="module")
def store_path(tmp_path_factory, messages):
    path = tmp_path_factory.mktemp("store") / "s"
    with sift.Store(path, sync=False) as store:
        outcomes = store.append_batch("orders", messages[:N // 2])
        assert outcomes == list(range(N // 2))
        for m in messages[N // 2:]:
            store.append("orders", m)
        store.flush()
    return path


def test_version():
    assert sift.__version__.count(".") == 2
    assert sift.__version__ == sift._sift.__version__


def test_replay_offsets_bytes_zero_copy(store_path, messages):
    with sift.Store(store_path) as store:
        want = [i for i in range(N) if expected(i, sql_ref)]
        # A small credit: many batches, and every delivery kept past the polls after its own.
        got = list(store.replay("orders", sql=SQL, credit=7))
        assert [d.offset for d in got] == want
        for d in got:
            view = d.bytes
            assert isinstance(view, memoryview) and view.readonly
            assert view == messages[d.offset]
            assert len(d) == len(messages[d.offset])
            assert bytes(memoryview(d)) == messages[d.offset]  # the buffer protocol on the delivery
            assert d.timestamp_ms > 0
        # The memoryview outlives the delivery and the replay.
        view = next(iter(store.replay("orders", start=10))).bytes
        del got
        assert view == messages[10]


def test_message_and_json(store_path, messages):
    with sift.Store(store_path) as store:
        d = next(iter(store.replay("orders", start=42)))
        m = d.message()
        assert isinstance(m, proton.Message)
        ref = proton.Message()
        ref.decode(messages[42])
        assert m.id == ref.id == "order-42"
        assert m.properties == ref.properties
        assert m.body == ref.body
        j = d.json()
        assert j["offset"] == 42
        assert j["properties"]["message_id"] == "order-42"
        assert j["application_properties"]["region"] == REGIONS[42 % 3]
        assert j["application_properties"]["amount"] == {"type": "long", "value": 42} or \
            j["application_properties"]["amount"] == 42
        assert json.loads(d.json_text()) == j


def test_count_matches_replay(store_path):
    with sift.Store(store_path, read_only=True) as store:
        for kwargs in [dict(sql=SQL), dict(jms="JMSPriority > 6"), dict(application_properties={"region": "&p:us-"}),
                       dict(properties={"subject": "orders"}, sql="vip"), dict()]:
            n = store.count("orders", **kwargs)
            assert n == sum(1 for _ in store.replay("orders", **kwargs)), kwargs
            assert store.count("orders", threads=1, **kwargs) == n
        assert store.count("orders") == N
        assert store.count("orders", sql=SQL) == sum(1 for i in range(N) if expected(i, sql_ref))
        n, stats = store.count("orders", sql=SQL, stats=True)
        assert stats["matched"] == n and stats["scanned"] == N
        # Ranges: [100, 200), the last 10, from the end, by timestamp.
        assert store.count("orders", start=100, end=200) == 100
        assert store.count("orders", start=-10) == 10
        assert store.count("orders", start="last") == 1
        assert store.count("orders", start_timestamp_ms=0, end_timestamp_ms=2 ** 62) == N
        assert [d.offset for d in store.replay("orders", start=-3)] == [N - 3, N - 2, N - 1]


def test_follow(tmp_path, messages):
    with sift.Store(tmp_path / "f", sync=False) as store:
        store.create_stream("live")
        replay = store.replay("live", start="next", follow=True, end=3, wait=0.05)

        def produce():
            time.sleep(0.1)
            for m in messages[:3]:
                store.append("live", m)
        t = threading.Thread(target=produce)
        t.start()
        got = [d.offset for d in replay]
        t.join()
        assert got == [0, 1, 2]
        assert replay.position == 3
        assert replay.stats()["matched"] == 3


def test_streams_and_retention(tmp_path, messages):
    with sift.Store(tmp_path / "r") as store:
        store.create_stream("a", max_bytes=1 << 30)
        store.create_stream("b")
        assert store.streams() == ["a", "b"]
        info = store.stream_info("a")
        assert info["max_bytes"] == 1 << 30 and info["message_count"] == 0
        store.set_retention("a", max_age_ms=60000)
        assert store.stream_info("a")["max_age_ms"] == 60000
        assert store.append("a", messages[0]) == 0
        assert store.append("a", bytearray(messages[1])) == 1
        assert store.append("a", memoryview(messages[2])) == 2
        assert store.stream_info("a")["message_count"] == 3
        store.delete_stream("b")
        assert store.streams() == ["a"]
        assert store.append("new", messages[0]) == 0  # created on first append
        with pytest.raises(sift.SiftError) as e:
            store.append("other", messages[0], create=False)
        assert e.value.code == "NotFound"


def test_append_batch_outcomes(tmp_path, messages):
    with sift.Store(tmp_path / "b") as store:
        out = store.append_batch("s", [messages[0], b"\x00\x53\x77\xa1\x20x", messages[1]])
        assert out[0] == 0 and out[2] == 1
        assert isinstance(out[1], sift.SiftError) and out[1].code == "Malformed"
        assert "byte" in out[1].message


def test_errors(tmp_path, store_path, messages):
    with sift.Store(store_path, read_only=True) as store:
        with pytest.raises(sift.FilterError) as e:
            store.count("orders", sql="region = 'eu-west'", jms="amount > > 3")
        assert e.value.code == "InvalidArgument" and e.value.status == 1
        assert e.value.clause == 1 and e.value.position == 9 and e.value.selector_code == "syntax"
        assert "jms filter 1, byte 9" in str(e.value)
        assert isinstance(e.value, ValueError)
        with pytest.raises(sift.FilterError) as e:
            list(store.replay("orders", application_properties="[1]"))
        assert e.value.position is None and e.value.selector_code == ""
        with pytest.raises(sift.SiftError) as e:
            store.count("nope")
        assert e.value.code == "NotFound"
        with pytest.raises(sift.SiftError) as e:
            store.append("orders", messages[0], create=False)
        assert e.value.code == "NotSupported"
        with pytest.raises(ValueError):
            store.replay("orders", start="middle")
    with pytest.raises(sift.SiftError) as e:
        sift.Store(tmp_path / "missing", create=False)
    assert e.value.code == "NotFound"
    with sift.Store(tmp_path / "busy"):
        with pytest.raises(sift.SiftError) as e:
            sift.Store(tmp_path / "busy")
        assert e.value.code == "Busy"
    with sift.Store(tmp_path / "m") as store:
        with pytest.raises(sift.SiftError) as e:
            store.append("s", b"\x00\x53\x77\xa1\x20x")
        assert e.value.code == "Malformed" and "byte" in e.value.message
    closed = sift.Store(tmp_path / "c")
    closed.close()
    with pytest.raises(sift.SiftError):
        closed.streams()
    with pytest.raises(sift.FilterError) as e:
        sift.check_filter(sql="a = ")
    assert e.value.selector_code == "unexpected-end"
    assert "region" in sift.check_filter(sql="region = 'x'")


def write_records(path, messages):
    with open(path, "wb") as f:
        for m in messages:
            f.write(struct.pack(">I", len(m)))
            f.write(m)


def test_filter_file(tmp_path, messages):
    path = tmp_path / "orders.amqp"
    write_records(path, messages)
    got = sift.filter_file(path, sql=SQL)
    want = [i for i in range(N) if expected(i, sql_ref)]
    assert [d.offset for d in got] == want
    assert all(d.bytes == messages[d.offset] for d in got)
    assert sift.filter_file(path, sql=SQL, count=True) == len(want)
    assert sift.filter_file(str(path), count=True) == N
    assert len(sift.filter_file(path, sql=SQL, limit=5)) == 5
    assert got[0].json()["offset"] == want[0]
    with pytest.raises(sift.SiftError) as e:
        sift.filter_file(tmp_path / "none.amqp")
    assert e.value.code == "NotFound"
    bad = tmp_path / "bad.amqp"
    with open(bad, "wb") as f:
        f.write(struct.pack(">I", 100) + b"\x00\x53")
    with pytest.raises(sift.SiftError) as e:
        sift.filter_file(bad, count=True)
    assert e.value.code == "Malformed" and "record 0" in e.value.message


def test_lock_released_during_scans(tmp_path, messages):
    """A Python thread runs while filter_file and count scan: they hold no interpreter lock."""
    path = tmp_path / "big.amqp"
    write_records(path, messages * 60)  # 300,000 records
    with sift.Store(tmp_path / "g", sync=False) as store:
        store.append_batch("o", messages * 20)
        ticks = [0]
        running = [True]

        def spin():
            while running[0]:
                ticks[0] += 1
        t = threading.Thread(target=spin)
        t.start()
        try:
            time.sleep(0.05)
            for scan in (lambda: sift.filter_file(path, sql=SQL, count=True),
                         lambda: store.count("o", sql="amount > 100 AND color = 'red'", threads=1)):
                # A scan can finish in a few milliseconds, less than it may take a busy machine to
                # schedule the spinning thread: scan again until the scans have run for 0.2 s.
                ran, elapsed, scans = 0, 0.0, 0
                while elapsed < 0.2:
                    started = time.perf_counter()
                    before = ticks[0]
                    scan()
                    ran += ticks[0] - before
                    elapsed += time.perf_counter() - started
                    scans += 1
                # The spinning thread ran during the scans (with the lock held it would not run at all).
                assert ran > 1000, (ran, elapsed, scans)
        finally:
            running[0] = False
            t.join()


def test_type_hints_and_docstrings():
    here = os.path.dirname(sift.__file__)
    assert os.path.exists(os.path.join(here, "__init__.pyi"))
    assert os.path.exists(os.path.join(here, "py.typed"))
    for obj in (sift, sift.Store, sift.Store.replay, sift.Store.count, sift.filter_file, sift.SiftError,
                sift.FilterError, sift.Delivery.message, sift.Delivery.json):
        assert obj.__doc__, obj
