#!/usr/bin/env python3
"""Random regular expressions and texts, with Python's `re` answer for each: the independent matcher of
tests/selector/regexp_differential_test.cc, which checks REGEXP_LIKE (re2) against it.

The patterns use only syntax both engines read the same way: literals (ASCII, two- and three-byte code
points), `.`, classes and ranges, negated classes, `\\d`, `\\D`, `\\b`, groups, non-capturing groups,
alternation (top level and nested), `*` `+` `?` `{n}` `{n,m}` and their non-greedy forms, `^` and `$`,
and the flags i, m, s (Python with re.ASCII, so `\\d` and `\\b` are ASCII in both). The texts hold no
upper-case non-ASCII letter and no character with a special case folding, where re2 folds Unicode and
re.ASCII does not; a text holds a line break only under the m flag, because Python's `$` also matches
before a final line break and re2's does not.

Output: one line per case, `pattern-hex flags text-hex 0|1` (1: re.search finds a match), each of the
first three `-` when empty.

Usage: regexp_reference.py --count N --seed S --out FILE
"""
import argparse
import random
import re

LITERALS = ["a", "b", "c", "A", "B", "0", "1", "-", "\u00e9", "\u65e5", "x"]
ESCAPED = ["\\.", "\\-", "\\*", "\\(", "\\$"]
CLASSES = ["[ab]", "[^a]", "[a-c]", "[0-9]", "[^0-9b]", "[a\u00e9]", "[-x]", "\\d", "\\D", "."]
TEXT_CHARS = ["a", "b", "c", "A", "B", "0", "1", "-", ".", "\u00e9", "\u65e5", "x", "*", "(", "$", " "]


def atom(rng, depth, budget):
    r = rng.random()
    if r < 0.45:
        return rng.choice(LITERALS)
    if r < 0.55:
        return rng.choice(ESCAPED)
    if r < 0.78:
        return rng.choice(CLASSES)
    if r < 0.82:
        return "\\b"
    if depth < 3:
        inner = "|".join(sequence(rng, depth + 1, rng.randint(1, 3), budget) for _ in range(rng.randint(1, 3)))
        return ("(?:" if rng.random() < 0.4 else "(") + inner + ")"
    return rng.choice(LITERALS)


class Budget:
    """Unbounded repetitions left to the pattern being built: Python's `re` backtracks, and a pattern
    with many of them (or one around a group that holds a choice) can take exponential time, which is
    what re2 exists to avoid; the texts are short, so two keep every search fast."""

    def __init__(self):
        self.unbounded = 2


def quantified(rng, depth, budget):
    a = atom(rng, depth, budget)
    if a == "\\b":
        return a
    r = rng.random()
    if r < 0.6:
        return a
    group = a.startswith("(")
    choices = ["?", "{2}", "{1,3}", "{0,2}"]
    if budget.unbounded > 0 and not group:
        choices += ["*", "+", "{2,}"]
    q = rng.choice(choices)
    if q in ("*", "+", "{2,}"):
        budget.unbounded -= 1
    if rng.random() < 0.15:
        q += "?"
    return a + q


def sequence(rng, depth, length, budget):
    return "".join(quantified(rng, depth, budget) for _ in range(length))


def pattern(rng):
    budget = Budget()
    run = ""
    top = [sequence(rng, 0, rng.randint(0, 6), budget)]
    if rng.random() < 0.4:  # a run of literals, which the compiler derives required texts from
        run = "".join(rng.choice(LITERALS + ESCAPED) for _ in range(rng.randint(2, 5)))
        top[0] = top[0] + run + sequence(rng, 0, rng.randint(0, 3), budget)
    if rng.random() < 0.12:
        top.append(sequence(rng, 0, rng.randint(1, 4), budget))
    p = "|".join(top)
    if rng.random() < 0.35:
        p = "^" + p
    if rng.random() < 0.3:
        p = p + "$"
    return p, run.replace("\\", "")


def text(rng, multi_line):
    chars = TEXT_CHARS + (["\n"] if multi_line else [])
    return "".join(rng.choice(chars) for _ in range(rng.randint(0, 12)))


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--count", type=int, required=True)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--out", required=True)
    args = parser.parse_args()
    rng = random.Random(args.seed)
    written = 0
    with open(args.out, "w", encoding="ascii") as out:
        while written < args.count:
            p, run = pattern(rng)
            flags = "".join(f for f in "ims" if rng.random() < 0.2)
            py_flags = re.ASCII
            py_flags |= re.IGNORECASE if "i" in flags else 0
            py_flags |= re.MULTILINE if "m" in flags else 0
            py_flags |= re.DOTALL if "s" in flags else 0
            compiled = re.compile(p, py_flags)
            # A pattern gets several texts: some made of its own literals, so that matches are common.
            for _ in range(4):
                t = text(rng, "m" in flags)
                if rng.random() < 0.5:
                    t = "".join(c for c in p if c in TEXT_CHARS and c not in "$(*")[:12] + t
                    if rng.random() < 0.5:
                        t = t[::-1]
                if run and rng.random() < 0.5:
                    t = text(rng, "m" in flags)[:4] + run + t[:6]
                found = compiled.search(t) is not None
                out.write("%s %s %s %d\n" % (p.encode().hex() or "-", flags or "-", t.encode().hex() or "-", int(found)))
                written += 1


if __name__ == "__main__":
    main()
