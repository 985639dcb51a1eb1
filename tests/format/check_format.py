#!/usr/bin/env python3
"""Fails when a C++ source of the repository differs from what clang-format makes of it.

    check_format.py SOURCE_DIR [--fix]

The style is the repository's .clang-format. Files are the C++ sources git tracks (every *.cc and *.h
under the source folder when it is not a git checkout). With --fix the files are rewritten instead.
Prints each differing file and the first lines of its difference, and exits 1 if there is any.
"""
import difflib
import os
import re
import shutil
import subprocess
import sys


def sources(root):
    try:
        out = subprocess.run(["git", "-C", root, "ls-files", "*.cc", "*.h"], check=True, capture_output=True,
                             text=True).stdout
        files = [f for f in out.splitlines() if f]
        if files:
            return files
    except (OSError, subprocess.CalledProcessError):
        pass
    found = []
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = [d for d in dirnames if not d.startswith(".") and not d.startswith("build")]
        for f in filenames:
            if f.endswith((".cc", ".h")):
                found.append(os.path.relpath(os.path.join(dirpath, f), root))
    return sorted(found)


def differing(tool, root, files):
    """The files clang-format would change, found by one --dry-run over all of them (a process per file
    costs ten times as much), in the order given."""
    flagged = set()
    for start in range(0, len(files), 500):
        batch = files[start:start + 500]
        r = subprocess.run([tool, "--style=file", "--dry-run", "-Werror", "-ferror-limit=1"] + batch,
                           capture_output=True, text=True, cwd=root)
        for line in r.stderr.splitlines():
            m = re.match(r"^(.+?):\d+:\d+: error: ", line)
            if m:
                flagged.add(os.path.relpath(os.path.join(root, m.group(1)), root))
        if r.returncode != 0 and not flagged.intersection(batch):
            return batch  # failed without naming a file: check every one of them
    return [f for f in files if f in flagged]


def main():
    if len(sys.argv) < 2:
        print(__doc__, file=sys.stderr)
        return 2
    root = os.path.abspath(sys.argv[1])
    fix = "--fix" in sys.argv[2:]
    tool = shutil.which("clang-format-14") or shutil.which("clang-format")
    if tool is None:
        print("check_format: clang-format is not installed (tools/setup-debian installs it)", file=sys.stderr)
        return 2
    bad = 0
    for rel in differing(tool, root, sources(root)):
        path = os.path.join(root, rel)
        with open(path, encoding="utf-8") as f:
            before = f.read()
        after = subprocess.run([tool, "--style=file", "--assume-filename=" + path], input=before, check=True,
                               capture_output=True, text=True, cwd=root).stdout
        if after == before:
            continue
        bad += 1
        if fix:
            with open(path, "w", encoding="utf-8") as f:
                f.write(after)
            continue
        diff = list(difflib.unified_diff(before.splitlines(), after.splitlines(), rel, rel + " (clang-format)",
                                         lineterm="", n=1))
        print("\n".join(diff[:12]))
    if bad and not fix:
        print(f"check_format: {bad} file(s) differ from clang-format; run tests/format/check_format.py . --fix",
              file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
