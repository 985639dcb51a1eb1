"""python/examples/dask_filter.py on a distributed.LocalCluster of two worker processes: the count
over a folder of record files is the sum of what `sift filter -f count` prints for each file; --json
gives the matches themselves; a bad filter and an empty folder are refused before any work."""
import importlib.util
import json
import os
import subprocess

import pytest
from distributed import LocalCluster

SOURCE = os.environ.get("SIFT_SOURCE_DIR", os.path.join(os.path.dirname(__file__), "..", ".."))
SIFT = os.environ.get("SIFT_CLI", "sift")
SQL = "region = 'eu-west' AND amount > 900"
FILES = 4
PER_FILE = 5000

spec = importlib.util.spec_from_file_location("dask_filter",
                                              os.path.join(SOURCE, "python", "examples", "dask_filter.py"))
dask_filter = importlib.util.module_from_spec(spec)
spec.loader.exec_module(dask_filter)


@pytest.fixture(scope="module")
def folder(tmp_path_factory):
    path = tmp_path_factory.mktemp("records")
    for i in range(FILES):
        subprocess.run([SIFT, "gen", "--count", str(PER_FILE), "--seed", str(i), "--first", str(i * PER_FILE),
                        "-o", str(path / f"part-{i}.amqp")], check=True)
    (path / "notes.txt").write_text("not a record file: left out by the pattern\n")
    return path


@pytest.fixture(scope="module")
def scheduler():
    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None) as cluster:
        assert len(cluster.workers) == 2
        yield cluster.scheduler_address


def sift_filter_count(path, *args):
    out = subprocess.run([SIFT, "filter", *args, "-f", "count", str(path)], capture_output=True, text=True)
    assert out.returncode in (0, 1), out.stderr
    return int(out.stdout)


def test_count_equals_sift_filter(folder, scheduler, capsys):
    want = sum(sift_filter_count(folder / f"part-{i}.amqp", "--sql", SQL) for i in range(FILES))
    assert want > 0
    assert dask_filter.main([str(folder), "--sql", SQL, "--scheduler", scheduler]) == 0
    assert int(capsys.readouterr().out) == want
    assert dask_filter.main([str(folder), "--jms", "JMSPriority > 100", "--scheduler", scheduler]) == 1
    assert int(capsys.readouterr().out) == 0


def test_json_matches(folder, scheduler, capsys):
    assert dask_filter.main([str(folder), "--sql", SQL, "--json", "3", "--scheduler", scheduler]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert len(lines) == 3
    for line in lines:
        record = json.loads(line)
        assert record["file"].startswith("part-") and record["application_properties"]["region"] == "eu-west"


def test_refusals(folder, tmp_path, capsys):
    assert dask_filter.main([str(folder), "--sql", "region = = 1"]) == 2
    assert "byte 9" in capsys.readouterr().err
    assert dask_filter.main([str(tmp_path)]) == 2
    assert "no files match" in capsys.readouterr().err
