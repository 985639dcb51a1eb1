#!/usr/bin/env python3
"""Checks that the specifications state contracts, not run figures.

    check_run_figures.py REPO_ROOT

A run figure is what one run on one machine measured: a rate, a per-item cost, a ratio between measured
runs, a share measured on some data, a time with a fraction of a unit. Those live with the benchmarks
that produce them (bench/DECISIONS.md, bench/RESULTS.md); the specifications name the tunable and the
benchmark command that sets it. This check reads
- the documents docs/*.md and the public headers include/sift/*.h (all of their text),
- the comments of the source folders (base/ amqp/ engine/ selector/ storage/ tools/ capi/ python/):
  `//` and `/* */` in C and C++ files, `#` in CMake files, shell scripts and Python (with its
  docstrings),
and fails (exit 1, one line per hit: file:line: text) on
- a rate: a number followed by a unit per second (`78,000 msgs/s`, `1.3 GB/s`, `12 GiB/s`, `5 ops/s`),
  or by a word and "per second" (`500,000 deliveries per second`);
- a per-item cost: a number of ns, µs, us, ms or s followed by "per", "each", "a" or "an" and a word,
  or by "/" and a word (`1.5 ns per byte`, `0.15 ms each`, `3 ns/message`);
- a measured time: one with a fraction of a unit (`4.65 s`, `0.049 s`, `52.6 ms`), which a contract
  does not state, except an interval after "every" (`every 0.5 s`) and the first step of a back-off
  ("0.1 s, doubling"); or any time after "about" or "took" (`about 10 us`, `took 48 s`);
- a ratio: a number followed by "x" (`1.4x the time`, `36.4x`, `1.55-2.1x`; a lone 0 before x is a
  hexadecimal prefix, `0x53`, `0x…`, never a ratio), or a number of "times" followed by a comparison
  (`30 times fewer`, `3.5 times less`, `2 times as fast`);
- a share measured on data: a percentage with a decimal fraction written against its number
  (`19.2%`; `5.5 % 0.0` is the modulo operator), any percentage followed by a comparison
  (`7% slower`, `40% faster`), or an estimated one (`about 15%`);
- the phrases that place a figure on a machine or in time: "this machine", "this disk", "this virtual
  disk", "N-core", "machine measured", "during development", "measured on", "measured at".
Code is not prose: Markdown code spans and fenced blocks, and `code spans` in comments, are formats,
commands and examples, and are not read (a figure there is an example of a format: `stored=20.0%`). The few phrases that match a pattern but state a contract
are listed in ALLOWED, each with its reason.
"""
import io
import os
import re
import sys
import tokenize

SOURCE_DIRS = ("base", "amqp", "engine", "selector", "storage", "tools", "capi", "python")
SKIP_DIRS = {".git", "__pycache__", "node_modules"}
C_SUFFIXES = (".h", ".cc", ".c", ".cpp", ".map.in")
HASH_SUFFIXES = (".cmake", ".cmake.in", ".pc.in", ".sh")

NUMBER = r"(?<![\w.,])\d[\d,]*(?:\.\d+)?"
PATTERNS = [
    ("rate", re.compile(NUMBER + r"\s?(?:[KMG]\s?)?(?:msgs?|messages|records|ops|queries|lines|chunks|bytes|"
                        r"[KMGT]i?B|B)/s(?:ec)?\b")),
    ("rate", re.compile(NUMBER + r"\s(?:[\w-]+\s)?per\ssecond\b")),
    ("per-item cost", re.compile(NUMBER + r"\s?(?:ns|µs|us|ms|s)\s(?:per|each|an?)\b(?:\s\w)?")),
    ("per-item cost", re.compile(NUMBER + r"\s?(?:ns|µs|us|ms)/\w")),
    ("measured time", re.compile(r"(?<!every )(?<![\w.,])\d+\.\d+\s?(?:s|ms|µs|us|ns|min)\b(?!,?\sdoubling)")),
    ("measured time", re.compile(r"\b(?:about|took)\s(?:about\s)?" + NUMBER +
                                 r"\s?(?:s|ms|µs|us|ns|min|seconds|minutes)\b")),
    ("ratio", re.compile(r"(?<![\w.,])(?!0x|0\d)\d+(?:\.\d+)?(?:-\d+(?:\.\d+)?)?x(?![\w…])")),
    ("ratio", re.compile(NUMBER + r"\stimes\s(?:less|more|fewer|faster|slower|smaller|larger|higher|lower|as\s)",
                         re.IGNORECASE)),
    ("measured share", re.compile(r"(?<![\w.,])\d+\.\d+%")),
    ("measured share", re.compile(r"(?<![\w.,])\d+(?:\.\d+)?%\s(?:slower|faster|smaller|larger|less|more|fewer)\b")),
    ("measured share", re.compile(r"\babout\s\d+(?:\.\d+)?%")),
    ("machine or time of a run", re.compile(r"\bthis (?:virtual )?(?:machine|disk)\b|\b\d+-core\b|\bmachine measured\b|"
                                            r"\bduring development\b|\bmeasured (?:on|at)\b", re.IGNORECASE)),
]

# (file, phrase, reason): a line of that file holding the phrase is not reported for it. Each states a
# contract or an example of a format, not something a run measured.
ALLOWED = [
    ("tools/serve/login_throttle.h", "2x longer for every further failure",
     "the back-off's rule: each failure doubles the delay"),
    ("engine/bloom_filter.h", "about 0.1% false positives",
     "the Bloom filter's rate, computed from kBloomBitsPerText and kBloomProbes, not measured"),
    ("engine/chunk_summary_builder.h", "rate of about 0.1%",
     "the same computed Bloom filter rate"),
    ("storage/term_index.h", "about 0.1% for the 70",
     "a 16-bit fingerprint's chance among 70 others (70 / 65536), computed, not measured"),
    ("docs/store-format.md", "0.1% of lookups in a partition of 70 terms",
     "the same computed fingerprint collision rate"),
    ("tools/synthetic/synthetic_orders.h", "10 ms per message",
     "the generator's contract: each message's creation-time is 10 ms after the one before"),
    ("tools/sift/run_report.h", "sift: stats: scanned 1000000, matched 12493, 9012345 msgs/s",
     "an example of the --stats line's format"),
    ("tools/sift/run_report.h", "MB (1620.3 MB/s)",
     "the end of the same example, wrapped"),
]


def strip_code_spans(text, in_span):
    """The text with `code spans` blanked out; in_span carries an unclosed span to the next line."""
    out = []
    for ch in text:
        if ch == "`":
            in_span = not in_span
            out.append(" ")
        else:
            out.append(" " if in_span else ch)
    return "".join(out), in_span


def markdown_lines(lines):
    """(line number, prose) of a Markdown document: fenced blocks and code spans left out."""
    fenced = False
    in_span = False
    for n, line in enumerate(lines, 1):
        if line.lstrip().startswith("```"):
            fenced = not fenced
            continue
        if fenced:
            continue
        if not line.strip():
            in_span = False  # a code span ends with its paragraph
            continue
        prose, in_span = strip_code_spans(line, in_span)
        yield n, prose


def c_comment_lines(lines):
    """(line number, comment text) of a C or C++ file: // comments and /* */ blocks, outside literals."""
    in_block = False
    for n, line in enumerate(lines, 1):
        comment = []
        i = 0
        in_string = None
        while i < len(line):
            if in_block:
                end = line.find("*/", i)
                if end < 0:
                    comment.append(line[i:])
                    break
                comment.append(line[i:end])
                in_block = False
                i = end + 2
                continue
            ch = line[i]
            if in_string:
                if ch == "\\":
                    i += 2
                    continue
                if ch == in_string:
                    in_string = None
            elif ch in "\"'":
                in_string = ch
            elif line.startswith("//", i):
                comment.append(line[i + 2:])
                break
            elif line.startswith("/*", i):
                in_block = True
                i += 2
                continue
            i += 1
        if comment:
            yield n, " ".join(comment)


def hash_comment_lines(lines):
    """(line number, comment text) of a CMake file or shell script: from a # outside a quoted string."""
    for n, line in enumerate(lines, 1):
        in_string = False
        for i, ch in enumerate(line):
            if ch == '"' and (i == 0 or line[i - 1] != "\\"):
                in_string = not in_string
            elif ch == "#" and not in_string:
                yield n, line[i + 1:]
                break


def python_comment_lines(text):
    """(line number, text) of a Python file's comments and docstrings (string statements)."""
    try:
        tokens = list(tokenize.generate_tokens(io.StringIO(text).readline))
    except (tokenize.TokenError, SyntaxError):
        return
    previous = tokenize.NEWLINE
    for tok in tokens:
        if tok.type == tokenize.COMMENT:
            yield tok.start[0], tok.string[1:]
        elif tok.type == tokenize.STRING and previous in (tokenize.NEWLINE, tokenize.NL, tokenize.INDENT,
                                                           tokenize.DEDENT):
            for k, part in enumerate(tok.string.split("\n")):
                yield tok.start[0] + k, part
        if tok.type not in (tokenize.COMMENT,):
            previous = tok.type


def comment_lines(path, text):
    """The comment lines of a file of the source folders, by its kind; nothing for other files."""
    name = os.path.basename(path)
    lines = text.split("\n")
    if name.endswith(".py") or name.endswith(".pyi"):
        yield from python_comment_lines(text)
    elif name.endswith(C_SUFFIXES):
        yield from c_comment_lines(lines)
    elif name == "CMakeLists.txt" or name.endswith(HASH_SUFFIXES) or lines[0].startswith("#!"):
        yield from hash_comment_lines(lines[1:] if lines[0].startswith("#!") else lines)


def files(root):
    docs = os.path.join(root, "docs")
    if os.path.isdir(docs):
        for f in sorted(os.listdir(docs)):
            if f.endswith(".md"):
                yield os.path.join(docs, f), "markdown"
    include = os.path.join(root, "include", "sift")
    if os.path.isdir(include):
        for f in sorted(os.listdir(include)):
            if f.endswith(".h"):
                yield os.path.join(include, f), "header"
    for folder in SOURCE_DIRS:
        for dirpath, dirnames, names in os.walk(os.path.join(root, folder)):
            dirnames[:] = sorted(d for d in dirnames if d not in SKIP_DIRS)
            for f in sorted(names):
                yield os.path.join(dirpath, f), "comments"


def lines_to_read(path, kind, text):
    if kind == "markdown":
        return markdown_lines(text.split("\n"))
    if kind == "header":
        # The whole public header, code spans in its comments left out.
        return ((n, strip_code_spans(line, False)[0]) for n, line in enumerate(text.split("\n"), 1))
    return ((n, strip_code_spans(line, False)[0]) for n, line in comment_lines(path, text))


def main():
    root = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else ".")
    hits = []
    for path, kind in files(root):
        rel = os.path.relpath(path, root)
        try:
            with open(path, encoding="utf-8") as f:
                text = f.read()
        except (UnicodeDecodeError, OSError):
            continue
        if not text:
            continue
        raw = text.split("\n")
        for n, prose in lines_to_read(path, kind, text):
            found = [what for what, pattern in PATTERNS if pattern.search(prose)]
            if not found:
                continue
            line = raw[n - 1] if n - 1 < len(raw) else prose
            if any(rel == f and phrase in line for f, phrase, _ in ALLOWED):
                continue
            hits.append("%s:%d: %s (%s)" % (rel, n, line.strip(), ", ".join(sorted(set(found)))))
    for h in hits:
        print(h)
    print("check_run_figures: %d line(s) with run figures" % len(hits))
    return 1 if hits else 0


if __name__ == "__main__":
    sys.exit(main())
