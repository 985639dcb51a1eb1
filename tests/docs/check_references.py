#!/usr/bin/env python3
"""Checks that the repository stands alone: every document it mentions is in it.

    check_references.py REPO_ROOT

Fails (exit 1, one line per problem: file:line: what) on
- a relative Markdown link ([text](path)) in a .md file whose target does not exist;
- a mention of a Markdown document (`something.md`, `docs/x.md`) in any source, script or document
  that names no file of the repository (a path is looked up from the repository root and from the
  mentioning file's folder; a bare name must be the name of some file in the repository);
- a mention of an issue number (the word "issue" followed by a number): the tracker is not part of the repository.
Build folders, .git and node_modules are not read. The benchmarks' result files (bench/results/, kept
out of git) do not count as part of the repository, so the check answers the same on a fresh clone;
the benchmark scripts may name the result files they write (RESULT_FILES).
"""
import os
import re
import sys

SKIP_DIRS = {".git", "build", "node_modules", "__pycache__"}
TEXT_SUFFIXES = (".md", ".cc", ".h", ".c", ".py", ".txt", ".json", ".cmake", ".sh", ".js", ".yml", ".yaml")
LINK = re.compile(r"\[[^\]]*\]\(([^)\s]+)\)")
MENTION = re.compile(r"(?<![\w/.-])((?:[\w.-]+/)*[\w-][\w.-]*\.md)\b")
# What bench/run and the other benchmark scripts write to bench/results/ (and report.py reads).
RESULT_FILES = {"filter-summary.md", "whole.md", "skip.md", "history.md", "serve.md", "broker.md",
                "broker-full-scale.md", "python.md", "hoard.md"}
ISSUE = re.compile(r"\bissues? #?\d+\b", re.IGNORECASE)


def text_files(root):
    for dirpath, dirnames, files in os.walk(root):
        dirnames[:] = [d for d in dirnames if d not in SKIP_DIRS and not d.startswith("build")]
        if dirpath == os.path.join(root, "bench", "results"):
            continue
        for f in files:
            path = os.path.join(dirpath, f)
            if f.endswith(TEXT_SUFFIXES) or f in ("run", "setup-debian", "CMakeLists.txt") or (
                    os.access(path, os.X_OK) and not f.endswith((".png", ".rec", ".amqp"))):
                yield path


def main():
    root = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else ".")
    names = set()
    results = os.path.join(root, "bench", "results")
    for dirpath, dirnames, files in os.walk(root):
        dirnames[:] = [d for d in dirnames if d not in SKIP_DIRS and not d.startswith("build")]
        if dirpath != results:
            names.update(files)
    problems = []
    for path in text_files(root):
        rel = os.path.relpath(path, root)
        if rel == os.path.join("tests", "docs", "check_references.py"):
            continue  # its own examples
        try:
            with open(path, encoding="utf-8") as f:
                lines = f.read().split("\n")
        except (UnicodeDecodeError, OSError):
            continue
        here = os.path.dirname(path)
        for n, line in enumerate(lines, 1):
            if path.endswith(".md"):
                for target in LINK.findall(line):
                    if re.match(r"^[a-z]+:", target) or target.startswith("#"):
                        continue
                    target = target.split("#")[0]
                    if target and not os.path.exists(os.path.join(here, target)):
                        problems.append("%s:%d: broken link to %s" % (rel, n, target))
            for doc in MENTION.findall(line):
                if rel.startswith("bench" + os.sep) and os.path.basename(doc) in RESULT_FILES and (
                        "/" not in doc or doc.startswith("bench/results/")):
                    continue  # a result file the benchmark scripts write
                if "/" in doc:
                    if not (os.path.exists(os.path.join(root, doc)) or os.path.exists(os.path.join(here, doc))):
                        problems.append("%s:%d: mentions %s, which is not in the repository" % (rel, n, doc))
                elif doc not in names:
                    problems.append("%s:%d: mentions %s, which is not in the repository" % (rel, n, doc))
            for m in ISSUE.findall(line):
                problems.append("%s:%d: mentions an issue number (%s)" % (rel, n, m))
    for p in problems:
        print(p)
    print("check_references: %d problem(s)" % len(problems))
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
