"""What a run costs beyond another, per source line and per packet-hop.

Two profiles of the same binary on two scenarios that differ in one respect (e.g. 100 and
1000 flows of the 10 Gbps dumbbell) are mapped to the innermost routerlab source line of each
sample (or cache miss), divided by each run's packet-hops, and subtracted: the lines whose
cost per hop grows most come first. See docs/performance.md, "How to profile".

    flows_diff.py perf BINARY HOPS_A A.data[,A2.data…] HOPS_B B.data[,B2.data…]
    flows_diff.py cachegrind COLUMN HOPS_A A.out[:SETUP_A.out] HOPS_B B.out[:SETUP_B.out]

perf: `perf record -F 20000 -e cpu-clock` files (several runs of a scenario, comma-separated,
are averaged); each sample is 1/20000 s. cachegrind: `--cachegrind-out-file` files, COLUMN
one of its events (DLmr, D1mr, Ir, …); a second file after a colon, from a run of the same
scenario lasting 1 µs, is subtracted as its set-up.
"""

import collections
import re
import subprocess
import sys

SAMPLE_NS = 1e9 / 20000
SRC = re.compile(r".*/crates/routerlab/src/")
# The first executable mapping a process records is its program's text.
MMAP = re.compile(r"\[0x(\w+)\(0x(\w+)\) @ 0x(\w+) [^\]]*\]: r-xp ")


def run(*args, stdin=None):
    """A command's standard output."""
    return subprocess.run(args, input=stdin, capture_output=True, text=True).stdout


def perf_lines(binary, files):
    """Average samples per source line over the perf files."""
    text_delta = 0  # the executable segment's virtual address minus its file offset
    for line in run("readelf", "-lW", binary).splitlines():
        f = line.split()
        if f and f[0] == "LOAD" and "E" in f[-2]:
            text_delta = int(f[2], 16) - int(f[1], 16)
    counts = collections.Counter()
    for path in files:
        mmaps = run("perf", "script", "-i", path, "--show-mmap-events")
        m = MMAP.search(mmaps)
        if m is None:
            sys.exit(f"{path}: no executable mapping recorded (not a `perf record` of a program?)")
        start, size, pgoff = (int(x, 16) for x in m.groups())
        ips = run("perf", "script", "-i", path, "-F", "ip")
        for ip in map(lambda s: int(s, 16), ips.split()):
            if start <= ip < start + size:
                counts[ip - start + pgoff + text_delta] += 1
    where = source_lines(binary, sorted(counts))
    lines = collections.Counter()
    for addr, n in counts.items():
        lines[where.get(addr, "?")] += n * SAMPLE_NS / len(files)
    return lines


def source_lines(binary, addrs):
    """Address → the innermost routerlab source line it was inlined from, with the library
    line it lies in (if any) in angle brackets."""
    frames = {}  # address → its source lines, innermost first
    out = run("addr2line", "-e", binary, "-a", "-i", stdin="\n".join(map(hex, addrs)))
    for line in out.splitlines():
        if line.startswith("0x"):
            frames[cur := int(line, 16)] = []
        else:
            frames[cur].append(SRC.sub("", line.split(" (discriminator")[0]))
    where = {}
    for addr, lines in frames.items():
        inner = lines[0] if lines else "?"
        own = next((f for f in lines if "/rustc/" not in f), inner)
        where[addr] = own if own == inner else f"{own}  <{inner.split('/library/')[-1]}>"
    return where


def cachegrind_lines(column, spec):
    """Events per source line of a cachegrind file, less those of its set-up run."""
    result = collections.Counter()
    for sign, path in zip((1, -1), spec.split(":"), strict=False):
        at, current = None, None  # the column's field on a line (after the line number)
        for line in open(path):
            if line.startswith("events:"):
                at = 1 + line.split()[1:].index(column)
            elif line.startswith("fl="):
                current = SRC.sub("", line[3:].strip())
            elif line[:1].isdigit() and current:
                fields = line.split()
                if len(fields) > at:  # trailing zero counts are left out
                    result[f"{current}:{fields[0]}"] += sign * int(fields[at])
    return result


def main(argv):
    if len(argv) != 7 or argv[1] not in ("perf", "cachegrind"):
        sys.exit(__doc__)
    tool, arg, hops_a, a, hops_b, b = argv[1:]
    if tool == "perf":
        la, lb = perf_lines(arg, a.split(",")), perf_lines(arg, b.split(","))
        unit = "ns"
    else:
        la, lb = cachegrind_lines(arg, a), cachegrind_lines(arg, b)
        unit = arg
    ha, hb = int(hops_a), int(hops_b)
    per_hop = [(la[k] / ha, lb[k] / hb, k) for k in set(la) | set(lb)]
    rows = sorted(((y - x, x, y, k) for x, y, k in per_hop), reverse=True)
    print(f"{unit} per hop: A {sum(la.values()) / ha:.3f}, B {sum(lb.values()) / hb:.3f}")
    print(f"{'B - A':>8} {'A':>8} {'B':>8}  source line")
    for diff, x, y, k in rows[:50]:
        print(f"{diff:8.3f} {x:8.3f} {y:8.3f}  {k}")


if __name__ == "__main__":
    main(sys.argv)
