#!/usr/bin/python3
"""Filters a folder of record files on a Dask cluster: one dask.bag partition per file, each filtered
by sift.filter_file on a worker (the interpreter's lock released while it scans).

    dask_filter.py FOLDER [--sql EXPR] [--jms EXPR] [--application-properties JSON] [--properties JSON]
                   [--pattern GLOB] [--workers N] [--scheduler ADDRESS] [--json N] [--time]

Prints the number of matching messages over every file (the sum of what `sift filter -f count` prints
for each), or with --json N the first N matches as typed JSON lines (file, record index and message).
Without --scheduler it starts a distributed.LocalCluster of N worker processes (default 2), one thread
each, on the machine it runs on. On a real cluster, start a scheduler (`dask scheduler`) and workers
that see the same folder (`dask worker tcp://SCHEDULER:8786 --nthreads 1` on each machine, the folder
on a shared file system or copied to the same path, and the sift package installed there too), then
pass --scheduler tcp://SCHEDULER:8786: the code is the same, only the client connects elsewhere.
"""
import argparse
import glob
import json
import os
import sys
import time


def count_file(path, filters):
    """The matches in one record file (runs on a worker)."""
    import sift
    return sift.filter_file(path, count=True, **filters)


def matches_file(path, filters, limit):
    """Up to `limit` matches of one file as typed JSON dicts, with the file they came from."""
    import sift
    out = []
    for d in sift.filter_file(path, limit=limit, **filters):
        record = d.json()
        record["file"] = os.path.basename(path)
        out.append(record)
    return out


def filter_folder(client, files, filters, json_limit=0):
    """Counts (or, with json_limit, takes up to that many matches of) `files` on the client's cluster."""
    import dask.bag as db
    bag = db.from_sequence(files, npartitions=len(files))
    if json_limit:
        lists = bag.map(matches_file, filters, json_limit).compute()
        return [record for records in lists for record in records][:json_limit]
    return bag.map(count_file, filters).sum().compute()


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("folder")
    parser.add_argument("--sql")
    parser.add_argument("--jms")
    parser.add_argument("--properties")
    parser.add_argument("--application-properties")
    parser.add_argument("--pattern", default="*.amqp", help="which files of the folder (default *.amqp)")
    parser.add_argument("--workers", type=int, default=2, help="LocalCluster worker processes (default 2)")
    parser.add_argument("--scheduler", help="connect to this scheduler instead of starting a LocalCluster")
    parser.add_argument("--json", type=int, default=0, metavar="N", help="print the first N matches as JSON")
    parser.add_argument("--time", action="store_true", help="print the filtering time on stderr")
    args = parser.parse_args(argv)

    files = sorted(glob.glob(os.path.join(args.folder, args.pattern)))
    if not files:
        print(f"dask_filter: {args.folder}: no files match {args.pattern}", file=sys.stderr)
        return 2
    filters = {k: v for k, v in [("sql", args.sql), ("jms", args.jms), ("properties", args.properties),
                                 ("application_properties", args.application_properties)] if v is not None}
    import sift
    try:
        sift.check_filter(**filters)  # a bad filter is reported here, not by every worker
    except sift.FilterError as e:
        print(f"dask_filter: {e}", file=sys.stderr)
        return 2

    from distributed import Client, LocalCluster
    cluster = None
    if args.scheduler:
        client = Client(args.scheduler)
    else:
        cluster = LocalCluster(n_workers=args.workers, threads_per_worker=1, processes=True,
                               dashboard_address=None)
        client = Client(cluster)
    try:
        started = time.perf_counter()
        try:
            result = filter_folder(client, [os.path.abspath(f) for f in files], filters, args.json)
        except sift.SiftError as e:
            print(f"dask_filter: {e}", file=sys.stderr)
            return 3 if e.code in ("NotFound", "IOError") else 2
        elapsed = time.perf_counter() - started
    finally:
        client.close()
        if cluster is not None:
            cluster.close()
    if args.json:
        for record in result:
            print(json.dumps(record, separators=(",", ":")))
    else:
        print(result)
    if args.time:
        print(f"dask_filter: {len(files)} files filtered in {elapsed:.3f} s", file=sys.stderr)
    return 0 if (result if not args.json else len(result)) else 1


if __name__ == "__main__":
    sys.exit(main())
