#!/usr/bin/env python3
"""Checks that the layers include only what is below them.

base/ is the bottom (byte order, text codecs, the AMQP value model and field names); selector/ knows
the language and nothing of AMQP's encoding; storage/ knows chunks and RocksDB; amqp/ is the
codec, which knows encodings but neither the language nor the store; engine/ joins them; include/sift/
is the embedding API; capi/ (the C API, libsift) sits on the engine, and may reach its internals
(the offline filter of a record file); python/ (the Python package) sees the C API alone; tools/
and bench/ sit on top. A project include ("dir/x.h") that points up or
sideways is reported with its file and line, and the test fails.

Usage: check_layers.py ROOT
"""
import os
import re
import sys

# Folder (relative to the root) -> the project folders its files may include from.
ALLOWED = {
    "base": {"base"},
    "selector": {"base", "selector"},
    "storage": {"base", "storage"},
    "amqp": {"base", "amqp"},
    "engine": {"base", "selector", "storage", "engine", "amqp", "sift"},
    "include/sift": {"sift"},
    "capi": {"sift", "capi", "engine", "amqp"},
    "python": {"sift"},
}
# Single headers a layer may include beyond its folders: sift/options.h holds the store's settings as
# plain values the embedding API and storage share (no behaviour, standard headers only).
# sift/status.h holds the one Status that storage returns and the API hands on (standard headers only).
EXCEPTIONS = {("storage", "sift/options.h"), ("storage", "sift/status.h")}
PROJECT_DIRS = ("base/", "amqp/", "selector/", "storage/", "engine/", "tools/", "bench/", "tests/", "sift/", "capi/", "python/")
INCLUDE = re.compile(r'^\s*#\s*include\s*"([^"]+)"')


def layer_of(path):
    best = None
    for folder in ALLOWED:
        if path == folder or path.startswith(folder + "/"):
            if best is None or len(folder) > len(best):
                best = folder
    return best


def target_of(header):
    """The folder an include names, at the granularity of ALLOWED."""
    return header.split("/", 1)[0]


def main():
    root = sys.argv[1]
    problems = []
    checked = 0
    for folder in ALLOWED:
        for dirpath, _, files in os.walk(os.path.join(root, folder)):
            for name in files:
                if not name.endswith((".h", ".cc")):
                    continue
                full = os.path.join(dirpath, name)
                rel = os.path.relpath(full, root)
                layer = layer_of(rel)
                checked += 1
                with open(full, encoding="utf-8") as f:
                    for number, line in enumerate(f, 1):
                        m = INCLUDE.match(line)
                        if not m or not m.group(1).startswith(PROJECT_DIRS):
                            continue
                        target = target_of(m.group(1))
                        if target not in ALLOWED[layer] and (layer, m.group(1)) not in EXCEPTIONS:
                            problems.append(f"{rel}:{number}: includes \"{m.group(1)}\", but {layer}/ may include "
                                            f"only from {', '.join(sorted(ALLOWED[layer]))}")
    for p in problems:
        print(p)
    if checked == 0:
        print("check_layers: no source files found under " + root)
        return 1
    print(f"check_layers: {checked} files, {len(problems)} problems")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
