#!/usr/bin/env python3
"""bench/report.py: writes bench/RESULTS.md from the result files of one `bench/run --all`.

    bench/report.py --results DIR --out FILE

Reads, from DIR: filter-summary.md (bench/plot.py), whole.md (bench/whole/run), skip.md and skip.png
(bench/skip/run), codec.json, selector.json and storage.json (Google Benchmark JSON), history.md and
history.json (bench/history/run, when present), python.md and python.png (bench/python/run, when
present), hoard.md (bench/serve/hoard, when present), serve.md
(bench/serve/run), and commands.txt (the command of each part, one `name: command` per line). Every
figure it writes is one of those files' figures, with the command that measured it; the targets are
checked here against the same figures. Nothing is carried over from an earlier run.
"""
import argparse
import json
import os
import re
import subprocess

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def read(path):
    with open(path, encoding="utf-8") as f:
        return f.read()


def md_tables(text):
    """Every Markdown table in text, as (header cells, rows of cells), in order."""
    tables, header, rows = [], None, []
    for line in text.splitlines() + [""]:
        if line.startswith("|"):
            cells = [c.strip() for c in line.strip().strip("|").split("|")]
            if header is None:
                header = cells
            elif not all(set(c) <= set("-: ") for c in cells):
                rows.append(cells)
        elif header is not None:
            tables.append((header, rows))
            header, rows = None, []
    return tables


def ratio(cell):
    m = re.match(r"\*{0,2}([0-9.]+)x", cell)
    return float(m.group(1)) if m else None


def bench_json(path):
    """name -> median entry (aggregate 'median' when repeated, else the single run)."""
    data = json.loads(read(path))
    out = {}
    # In the order the benchmarks are defined (--benchmark_enable_random_interleaving shuffles the runs).
    order = lambda b: (b.get("family_index", 0), b.get("per_family_instance_index", 0))
    for b in sorted(data["benchmarks"], key=order):
        if b.get("run_type") == "aggregate" and b.get("aggregate_name") != "median":
            continue
        name = b.get("run_name", b["name"])
        out[name] = b
    return out


def per_item_ns(b):
    if "items_per_second" in b and b["items_per_second"] > 0:
        return 1e9 / b["items_per_second"]
    if "time/msg" in b:
        return b["time/msg"] * 1e9
    return None


def machine():
    model = ""
    for line in read("/proc/cpuinfo").splitlines():
        if line.startswith("model name"):
            model = line.split(":", 1)[1].strip()
            break
    commit = subprocess.run(["git", "-C", ROOT, "rev-parse", "--short", "HEAD"], capture_output=True,
                            text=True).stdout.strip()
    dirty = subprocess.run(["git", "-C", ROOT, "status", "--porcelain", "--untracked-files=no", "--", ".",
                            ":!bench/RESULTS.md", ":!bench/results"], capture_output=True, text=True).stdout.strip()
    date = subprocess.run(["date", "-u", "+%Y-%m-%d %H:%M UTC"], capture_output=True, text=True).stdout.strip()
    return model, os.cpu_count(), commit + (" with uncommitted changes" if dirty else ""), date


def check(rows, want, got, met):
    rows.append(f"| {want[0]} | {want[1]} | {got} | {'yes' if met else '**no**'} |")


def write_part(w, text):
    """Writes a part's own Markdown report under this report's headings (each heading one level deeper)
    up to its "## Targets" section, and returns that section's text (empty when it has none)."""
    body, _, target_text = text.strip().partition("\n## Targets")
    for line in body.splitlines():
        w("#" + line if line.startswith("#") else line)
    w("")
    return target_text


def python_section(r, commands, w, targets):
    """python.md (bench/python/run) under this report's headings, its targets among the others."""
    target_text = write_part(w, read(os.path.join(r, "python.md")))
    w("![python](results/python.png)")
    w("")
    for cells in md_tables(target_text)[0][1] if md_tables(target_text) else []:
        check(targets, (f"Python: {cells[0]}", "as named"), cells[1], cells[2] == "yes")


def broker_section(r, commands, w, targets):
    """broker.md (bench/broker/run): sift's publish and capture rates beside a Proton C++ client, and
    broker-full-scale.md (bench/broker/full_scale), under this report's headings."""
    target_text = write_part(w, read(os.path.join(r, "broker.md")))
    for cells in md_tables(target_text)[0][1] if md_tables(target_text) else []:
        check(targets, (cells[0], cells[1]), cells[2], cells[3] == "yes")
    shown = os.path.join(r, "broker-full-scale.md")
    if os.path.exists(shown):
        write_part(w, read(shown))


def history_section(r, commands, w, targets):
    """Replays of history from disk (bench/history/run): raw and compressed, cold and warm."""
    h = json.loads(read(os.path.join(r, "history.json")))
    w("## History beyond memory: replays from disk, compressed chunks")
    w("")
    w(f"`{commands.get('history', 'bench/history/run')}`:")
    w("")
    for line in read(os.path.join(r, "history.md")).strip().splitlines():
        w(line)
    w("")
    first, second = h["readme_first_seconds"], h["readme_second_seconds"]
    check(targets, ("README main job: its replay against the same replay run again", "<= 1.5x"),
          f"{first / second:.2f}x", first / second <= 1.5)
    raw_bytes = h["stored"]["raw"]
    if h["cold"]:
        cat, full, one = h["cat_seconds"], h["full_cold_seconds"], h["one_cold_seconds"]
        x = cat["raw"] / full["raw"]
        check(targets, ("cold full replay of the raw store against the disk (`cat`), same bytes", ">= 0.8x"),
              f"{x:.2f}x", x >= 0.8)
        check(targets, ("cold one-customer query, whole process", "<= 0.1 s"), f"{one['raw']:.3f} s",
              one["raw"] <= 0.1)
        # The compressed store read cold: against what the disk or the warm scan allows, and the raw store.
        ratio = raw_bytes / h["stored"]["zstd"]
        disk_rate = raw_bytes / cat["raw"]
        warm_rate = raw_bytes / h["full_warm_seconds"]["zstd"]
        limit = min(disk_rate * ratio, warm_rate)
        got = raw_bytes / full["zstd"]
        check(targets, ("cold full replay of the zstd store against min(disk x ratio, its warm rate)", ">= 0.8x"),
              f"{got / limit:.2f}x", got / limit >= 0.8)
        check(targets, ("cold full replay, zstd store against raw store", ">= 1.0x the speed"),
              f"{full['raw'] / full['zstd']:.2f}x", full["zstd"] <= full["raw"])
    share = h["one_summary_bytes"] / h["all_summary_bytes"]
    check(targets, ("one customer: summary bytes read, against the summaries of every chunk", "<= 0.1x"),
          f"{share:.2f}x ({h['one_summary_bytes'] / 1e6:.1f} of {h['all_summary_bytes'] / 1e6:.1f} MB)", share <= 0.1)
    for profile, most in (("orders", 0.30), ("wide", 0.35)):
        share = h["shares"][f"{profile}/zstd"]
        check(targets, (f"zstd store of {profile}, summaries included, against the record file", f"<= {most:.0%}"),
              f"{share:.1%}", share <= most)
    n = h["newest_warm_seconds"]
    check(targets, ("warm replay of the newest 1,000,000 messages, zstd against raw", ">= 0.95x the speed"),
          f"{n['raw'] / n['zstd']:.2f}x", n["raw"] / n["zstd"] >= 0.95)
    f = h["full_warm_seconds"]
    check(targets, ("warm full replay, zstd against raw", ">= 0.5x the speed"), f"{f['raw'] / f['zstd']:.2f}x",
          f["raw"] / f["zstd"] >= 0.5)
    a = h["append_seconds"]
    check(targets, ("`sift append` with zstd against raw, whole process, on disk", ">= 0.9x the speed"),
          f"{a['raw'] / a['zstd']:.2f}x", a["raw"] / a["zstd"] >= 0.9)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--results", required=True)
    ap.add_argument("--out", required=True)
    args = ap.parse_args()
    r = args.results
    commands = dict(line.split(": ", 1) for line in read(os.path.join(r, "commands.txt")).splitlines() if ": " in line)
    model, cpus, commit, date = machine()
    out, targets = [], []
    w = out.append

    w("# Benchmark results")
    w("")
    w(f"Written by `bench/report.py` at commit `{commit}`, {date}, from the result files `bench/run` writes "
      "to `bench/results/` (kept out of git: this report and its plots are what is committed): "
      f"each part's figures are from the last run of the command given with them (`{commands.get('all', 'bench/run --all')}` "
      "runs the filter, whole-command, skipping, codec, selector, storage, serve (publishing and consuming, and "
      "consumers that never read) and history parts; the broker and "
      f"Python parts have runs of their own), on {cpus}-core machines of one kind, Debian 12, g++ 12 `-O3` "
      f"(release preset); parts run in different sessions may come from different CPU models (this report was "
      f"written on {model}). The machine is shared and noisy: absolute rates "
      "move up to 2x between runs, so every figure is read as a ratio to the baseline measured in the same "
      "run. The baseline is Qpid Proton decoding every message (`pn_message_decode`) and evaluating the same "
      "selector on what it decoded. History lives in git.")
    w("")

    # What users time.
    whole = read(os.path.join(r, "whole.md")).strip().splitlines()
    w("## What users time: whole commands")
    w("")
    w(f"`{commands['whole']}`: " + whole[0])
    out.extend(whole[1:])
    w("")
    rows = {t[0]: t for t in md_tables("\n".join(whole))[0][1]}
    def whole_ratio(prefix):
        for k, row in rows.items():
            if k.startswith(prefix):
                return ratio(row[3])
        return None
    x = whole_ratio("`sift filter --sql \"color = 'zzz'\" -f count FILE`")
    check(targets, ("`sift filter` of a nothing-matching selector, whole process", ">= 10x"), f"{x}x", x and x >= 10)
    x = whole_ratio("`sift filter -f json FILE`")
    check(targets, ("`sift filter -f json` of every record, whole process", ">= 1.0x"), f"{x}x", x and x >= 1.0)
    for label, key in (("fsync per batch", "`sift append FILE`"), ("`--no-sync`", "`sift append --no-sync FILE`")):
        x = whole_ratio(key)
        check(targets, (f"`sift append FILE`, {label}, against decode only", ">= 1.0x"), f"{x}x", x and x >= 1.0)

    # Chunk skipping.
    skip = read(os.path.join(r, "skip.md")).strip().splitlines()
    w("## Chunk skipping: replays that do not read what cannot match")
    w("")
    out.extend(skip)
    w("")
    w("![chunk skipping](results/skip.png)")
    w("")
    st = md_tables("\n".join(skip))[0][1]
    for row in st:
        x = ratio(row[4])
        if row[0].startswith("one customer"):
            check(targets, ("one customer, whole process, skip against `--no-skip`", ">= 20x"), f"{x}x", x and x >= 20)
        elif row[0].startswith("IN of 10"):
            check(targets, ("IN of 10 customers, whole process", ">= 5x"), f"{x}x", x and x >= 5)
        elif row[0].startswith("amount range"):
            m = re.search(r"([0-9.]+) s / ([0-9.]+) s", row[3])
            cost = float(m.group(1)) / float(m.group(2)) if m else None
            check(targets, ("random range: time with summaries against `--no-skip`", "<= 1.03x"),
                  f"{cost:.3f}x" if cost else "?", cost is not None and cost <= 1.03)
    text = "\n".join(skip)
    appends = text.split("Append (")[-1] if "Append (" in text else ""
    disk, _, memory = appends.partition("Store in memory")
    for where, part in (("store on disk", disk), ("store in memory", memory)):
        for profile, x in re.findall(r"(orders|wide) [0-9.]+ s \[[^]]*\] with summaries, [^(]*\(\*\*([0-9.]+)x\*\*", part):
            check(targets, (f"append with summaries against without, {profile}, {where}", "<= 1.10x"), f"{x}x",
                  float(x) <= 1.10)
    for profile, pct in re.findall(r"(orders|wide) [0-9]+ messages: ([0-9.]+)%", text):
        check(targets, (f"summary bytes, {profile}", "<= 2%"), f"{pct}%", float(pct) <= 2)

    # Filter throughput.
    fs = read(os.path.join(r, "filter-summary.md"))
    header, sel = md_tables(fs)[0]
    col = {h: i for i, h in enumerate(header)}
    w("## Filter throughput: scan, scan + full decode, scan + typed JSON")
    w("")
    w(f"`{commands['filter']}`: 1,000,000 `orders` (p8) and 200,000 `wide` (p32) messages from "
      "`sift gen --seed 1`, the selector `customer = 'cust-99999'` planted in exactly the share shown, the "
      "customer property first or last; M msgs/s on one thread (CPU time), the median of 3 runs interleaved at "
      "random with the other rows for scan, full decode, typed JSON and the baseline. \"Full decode\" is "
      "`Delivery::ToProton` of every match; \"typed JSON\" is its JSON line. All rows, the selector shapes, the "
      "store through consumers and thread scaling are under \"Filter benchmark, every row\" below.")
    w("")
    w("| shape | customer | selectivity | scan | scan + full decode | scan + typed JSON | baseline | scan / base | decode / base | JSON / base |")
    w("|---|---|---|---|---|---|---|---|---|---|")
    for row in sel:
        if row[col["selectivity"]] not in ("0.001%", "10%", "50%", "100%"):
            continue
        cells = [row[col[k]] for k in ("shape", "customer", "selectivity", "sift scan", "sift scan + delivery",
                                        "sift scan + typed JSON", "baseline", "scan / baseline",
                                        "scan+delivery / baseline", "scan+JSON / baseline")]
        w("| " + " | ".join(cells) + " |")
        decode = ratio(row[col["scan+delivery / baseline"]])
        where = f"{row[col['shape']]}/{row[col['customer']]}"
        if row[col["selectivity"]] == "50%":
            check(targets, (f"scan + full decode at 50%, {where}", ">= 1.5x"), f"{decode}x", decode and decode >= 1.5)
        if row[col["selectivity"]] == "100%":
            check(targets, (f"scan + full decode at 100%, {where}", ">= 0.9x"), f"{decode}x", decode and decode >= 0.9)
    w("")
    for h, rows_ in md_tables(fs)[1:]:
        if h and "paired ratio" in h:
            w("The reject path measured paired (the targets read this): sift_scan and the baseline filter the "
              "same blocks of 50,000 records in alternating turns, which goes first alternating too, each turn "
              "from a cold cache and timed on the thread's CPU clock, so both meet the same machine; median of "
              "3 runs. Beside it, the ratio of the separate rows above:")
            w("")
            w("| " + " | ".join(h) + " |")
            w("|" + "---|" * len(h))
            for row in rows_:
                w("| " + " | ".join(row) + " |")
            w("")
    for h, rows_ in md_tables(fs)[1:]:
        if h and h[0] == "target":
            for row in rows_:
                check(targets, (row[0], row[1]), row[2], row[3] == "yes")
    w("![selectivity](results/filter-selectivity.png)")
    w("")

    # Codec.
    codec = bench_json(os.path.join(r, "codec.json"))
    w("## Codec: validation, full decode, typed JSON, chunk summaries")
    w("")
    w(f"`{commands['codec']}` (medians; CPU time per message, one thread; the baseline is `pn_message_decode` "
      "of the same messages in the same run):")
    w("")
    w("| benchmark | orders | wide |")
    w("|---|---|---|")
    base = {p: codec.get(f"BM_ProtonDecodeSynthetic/{p}") for p in ("orders", "wide")}
    def cells(name_of, against_base=True):
        got = []
        for i, p in enumerate(("orders", "wide")):
            b = codec.get(name_of(i, p))
            if b is None:
                got.append("-")
                continue
            ns = per_item_ns(b)
            text = f"{ns / 1000:.2f} µs"
            if "bytes_per_second" in b:
                text += f", {b['bytes_per_second'] / 1e9:.2f} GB/s"
            if against_base and base[p] is not None:
                text += f" ({ns / per_item_ns(base[p]):.2f}x the baseline's time)"
            got.append(text)
        return got
    lines = [
        ("`pn_message_decode` (baseline)", lambda i, p: f"BM_ProtonDecodeSynthetic/{p}", False),
        ("`DecodeToProton` (full decode)", lambda i, p: f"BM_DecodeToProtonSynthetic/{p}", True),
        ("`DecodeToTypedJson`", lambda i, p: f"BM_TypedJson/{i}", True),
        ("`Validate` (strict, 100,000 distinct values)", lambda i, p: f"BM_Validate/profile:{i}/distinct:100000", True),
        ("`ChunkSummaryBuilder` (summaries of 1 MiB chunks)", lambda i, p: f"BM_ChunkSummary/{p}", True),
        ("`Validate`, then `ChunkSummaryBuilder::Add`, chunk by chunk", lambda i, p: f"BM_ValidateThenSummary/{p}",
         True),
        ("`ChunkSummaryBuilder::AddChecked` (both in one walk, what `sift append` does)",
         lambda i, p: f"BM_CheckedSummary/{p}", True),
    ]
    for label, name_of, against in lines:
        c = cells(name_of, against)
        w(f"| {label} | {c[0]} | {c[1]} |")
        if label.startswith("`DecodeToProton`"):
            # The target reads the paired run (BM_FullDecodePaired: the two decoders in alternating turns of
            # 500 messages, so that both meet the machine's conditions of the moment); the rows above, each
            # decoder run on its own, are shown beside it.
            paired = {p: codec.get(f"BM_FullDecodePaired/{p}") for p in ("orders", "wide")}
            got = []
            for p in ("orders", "wide"):
                b = paired[p]
                if b and "ratio" in b:
                    got.append(f"{b['sift_ns_per_msg'] / 1000:.2f} µs against {b['proton_ns_per_msg'] / 1000:.2f} µs "
                               f"(**{b['ratio']:.2f}x**)")
                    check(targets, (f"full decode against `pn_message_decode` (paired), {p}", "<= 1.0x the time"),
                          f"{b['ratio']:.2f}x", b["ratio"] <= 1.0)
                else:
                    got.append("-")
                    check(targets, (f"full decode against `pn_message_decode` (paired), {p}", "<= 1.0x the time"),
                          "not measured", False)
            w(f"| `DecodeToProton` against `pn_message_decode`, paired (alternating turns of 500 messages) | "
              f"{got[0]} | {got[1]} |")
        if label.startswith("`Validate` (strict"):
            for i, p in enumerate(("orders", "wide")):
                b = codec.get(f"BM_Validate/profile:{i}/distinct:100000")
                if b and "bytes_per_second" in b:
                    gbs = b["bytes_per_second"] / 1e9
                    check(targets, (f"strict validation, {p}", ">= 1.5 GB/s"), f"{gbs:.2f} GB/s", gbs >= 1.5)
    w("")
    small = [(n, codec.get(f"BM_SmallChunkSummary/{n}")) for n in (1, 16)]
    if all(b is not None and "per_chunk" in b for _, b in small):
        parts = [f"{n} message{'s' if n > 1 else ''}: {b['per_chunk'] * 1e6:.2f} µs, "
                 f"{b['allocs_per_chunk']:.1f} allocations, {b['summary_bytes']:.0f} summary bytes"
                 for n, b in small]
        w("Summaries of small chunks (`BM_SmallChunkSummary`, orders; what a group commit of single appends "
          "builds, validation included), per chunk: " + "; ".join(parts) + ".")
        w("")

    # Selector reject path.
    sel_json = bench_json(os.path.join(r, "selector.json"))
    regexp_rows = {}
    w("## Selector: the reject path")
    w("")
    w(f"`{commands['selector']}`: the messages of 1,000,000 `orders` that each selector does not find TRUE; "
      "ns per message, medians:")
    w("")
    w("| selector | sift (`MessageFilter`) | baseline | ratio | allocations per message |")
    w("|---|---|---|---|---|")
    for name, b in sel_json.items():
        m = re.match(r"BM_SiftFilter/(.+)/rejected$", name)
        if not m:
            continue
        base_b = next((v for k, v in sel_json.items() if k.startswith(f"BM_ProtonDecode/{m.group(1)}/rejected")), None)
        ns = per_item_ns(b)
        bns = per_item_ns(base_b) if base_b else None
        allocs = b.get("allocs/msg", b.get("allocs_per_msg", "-"))
        w(f"| {m.group(1)} | {ns:.1f} | {bns:.0f} | {bns / ns:.1f}x | {allocs} |" if bns else f"| {m.group(1)} | {ns:.1f} | - | - | {allocs} |")
        if m.group(1).startswith("regexp_") and bns:
            regexp_rows[m.group(1)] = (bns / ns, allocs)
    w("")
    if regexp_rows:
        w("The `regexp_*` rows are `REGEXP_LIKE` (re2) beside the LIKE or equality they can stand for: "
          "`regexp_prefix_subject` `REGEXP_LIKE(p.subject, '^orders\\.')` beside `like_prefix_subject`; "
          "`regexp_like_re2` `REGEXP_LIKE(customer, '^cust-[0-9]1.*7$')` beside `like_re2` (its literal `cust-` is "
          "in every message, so the prefilter cannot help and re2 runs on each); `regexp_one_customer` "
          "`REGEXP_LIKE(customer, '^cust-25630$')` (an equality to the prefilter); `regexp_digits` "
          "`REGEXP_LIKE(customer, 'cust-0[0-9]{3}7')` (the required literal `cust-0`).")
        w("")
        helped = [regexp_rows[k] for k in ("regexp_prefix_subject", "regexp_one_customer") if k in regexp_rows]
        if helped:
            low = min(x for x, _ in helped)
            most = max(float(a) for _, a in regexp_rows.values())
            check(targets, ("REGEXP_LIKE reject path where the prefilter helps, against the baseline", ">= 15x"),
                  f"{low:.1f}x", low >= 15.0)
            check(targets, ("REGEXP_LIKE reject path, allocations per message after warm-up", "0"),
                  f"{most:.2g}", most < 1e-6)

    # REGEXP_LIKE: hostile patterns.
    hostile = [(n, b) for n, b in sel_json.items() if n.startswith("BM_RegexpHostile/") and "time_per_byte" in b]
    if hostile:
        w("## REGEXP_LIKE: cost per byte of text whatever the pattern")
        w("")
        w(f"`{commands['selector']}` (same run): `RegexpMatcher` (re2, the default limits: 1 MiB of memory, "
          "1,024 program instructions) over 64 KiB of text that the pattern never matches, so the search runs to "
          "the end: nested quantifiers, the largest counted repetitions the limits let through, patterns whose "
          "DFA has exponentially many states, a long alternation (bench/selector/selector_bench.cc, "
          "`BM_RegexpHostile`):")
        w("")
        w("| pattern | program instructions | ns per byte of text |")
        w("|---|---|---|")
        worst_re = 0.0
        for name, b in hostile:
            nsb = b["time_per_byte"] * 1e9
            worst_re = max(worst_re, nsb)
            w(f"| `{name}` | {b.get('program', 0):.0f} | {nsb:,.2f} |")
        w("")
        w(f"The bound. re2 never backtracks: every pattern is one pass over the text. While the DFA states a text "
          f"leads to fit in the memory limit the pass costs about 1.5 ns per byte (the nested quantifiers above); "
          f"when they do not (a large counted repetition, `a[ab]{{20}}c`), re2 simulates the compiled program, "
          f"at a cost per byte that grows with its instructions, which `Limits::max_regexp_program` caps at "
          f"1,024: the worst pattern measured costs **{worst_re / 1000:.1f} µs per byte of text**, and a pattern "
          f"that would cost more is refused when the filter is compiled (`regexp-too-large`).")
        w("")
        check(targets, ("REGEXP_LIKE, the hostile set (the bound per byte of text)", "<= 10 µs per byte"),
              f"{worst_re / 1000:.2f} µs", worst_re <= 10000.0)

    # LIKE whatever the pattern.
    w("## LIKE: cost per byte of text whatever the pattern")
    w("")
    w(f"`{commands['selector']}` (same run): `LikeMatcher` over 64 KiB of text built so the search never stops early; "
      "`BM_LikeHostile` is `'%' + 500 a + '_' + 500 a + 'b%'` (1,004 bytes) over 64 KiB of `a`, beside re2 on the same "
      "expression; `BM_LikeWorst/*` the worst pattern for each kind of search (bench/selector/selector_bench.cc):")
    w("")
    w("| benchmark | ns per byte of text |")
    w("|---|---|")
    worst = 0.0
    for name, b in sel_json.items():
        if not re.match(r"BM_Like(Hostile|Worst)", name):
            continue
        if "time_per_byte" in b:
            nsb = b["time_per_byte"] * 1e9
        elif b.get("bytes_per_second"):
            nsb = 1e9 / b["bytes_per_second"]
        else:
            continue
        if "Re2" not in name:
            worst = max(worst, nsb)
        w(f"| `{name}` | {nsb:.2f} |" if "Re2" not in name else f"| `{name}` (re2, for comparison) | {nsb:,.0f} |")
    w("")
    if worst:
        check(targets, ("LIKE, the hostile pattern and the worst of each search", "<= 5 ns per byte"),
              f"{worst:.2f} ns", worst <= 5.0)

    # Storage.
    storage = bench_json(os.path.join(r, "storage.json"))
    w("## Storage")
    w("")
    w(f"`{commands['storage']}`:")
    w("")
    w("| benchmark | msgs/s |")
    w("|---|---|")
    for name, b in storage.items():
        if "items_per_second" in b:
            w(f"| `{name}` | {b['items_per_second']:,.0f} |")
    w("")

    # History from disk.
    if os.path.exists(os.path.join(r, "history.json")):
        history_section(r, commands, w, targets)

    # Serve.
    w("## Serve: loopback publish and consume")
    w("")
    w(f"`{commands['serve']}`: producers publish `sift gen` orders to one `sift-serve` stream over loopback, "
      "each message acknowledged once durable (fsync), then consumers attach at the first offset with an SQL "
      "filter and each receives every match (the counts, the filter's matches and the stream's length are in "
      "the header); without and with TLS and SASL PLAIN (a `--users` file), and without chunk summaries "
      "(`--no-summary`); the settings take turns run after run (plain with and without summaries for "
      "`--summary-runs` runs, the others for `--runs`); runs sorted, median in bold:")
    w("")
    serve = read(os.path.join(r, "serve.md")).strip()
    out.extend(serve.splitlines())
    w("")
    published = {}
    for row in md_tables(serve)[0][1]:
        m = re.search(r"\*\*([0-9]+)\*\*", row[1])
        if m:
            published[row[0]] = int(m.group(1))
    plain = published.get("plain")
    bare = next((v for k, v in published.items() if k.startswith("plain, no chunk summaries")), None)
    if plain and bare:
        x = bare / plain
        w(f"Publishing with chunk summaries took {x:.2f}x the time it took without them ({plain:,} against "
          f"{bare:,} msgs/s, medians).")
        w("")
        check(targets, ("publish with summaries against without, `sift serve` (4 producers, durable)", "<= 1.10x"),
              f"{x:.2f}x", x <= 1.10)
    else:
        check(targets, ("publish with summaries against without, `sift serve` (4 producers, durable)", "<= 1.10x"),
              "?", False)

    # Consumers that never read (bench/serve/hoard), when present.
    if os.path.exists(os.path.join(r, "hoard.md")):
        target_text = write_part(w, read(os.path.join(r, "hoard.md")))
        for cells in md_tables(target_text)[0][1] if md_tables(target_text) else []:
            check(targets, (cells[0], cells[1]), cells[2], cells[3] == "yes")

    # The Python package and the Dask example (bench/python/run), when present.
    if os.path.exists(os.path.join(r, "python.md")):
        python_section(r, commands, w, targets)

    # sift between brokers (bench/broker/run, bench/broker/full_scale), when present.
    if os.path.exists(os.path.join(r, "broker.md")):
        broker_section(r, commands, w, targets)

    # The filter benchmark's own summary, whole: the tables above pick rows from it.
    w("## Filter benchmark, every row")
    w("")
    w(f"`{commands['filter']}` (bench/plot.py's summary of its JSON).")
    w("")
    write_part(w, fs)

    # Targets.
    w("## Targets")
    w("")
    w("Each checked against the figures above, from this run only.")
    w("")
    w("| target | wanted | measured | met |")
    w("|---|---|---|---|")
    out.extend(targets)
    with open(args.out, "w", encoding="utf-8") as f:
        f.write("\n".join(out) + "\n")


if __name__ == "__main__":
    main()
