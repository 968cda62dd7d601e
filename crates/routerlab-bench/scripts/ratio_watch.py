"""The scaling target over time, beside the last-level cache the machine gives at that moment.

Every INTERVAL seconds, for SAMPLES samples: the cache probe (nanoseconds per dependent load
through 4 and 8 MiB, `routerlab::machine` through the extension), then `routerlab bench`'s
scaling pair (`dumbbell-1g` and `dumbbell-10g-1000`, REPEAT interleaved rounds, each run in
its own subprocess). One tab-separated line per sample; at the end, how often the target was
met and how the ratio follows the probe (Spearman's rank correlation). See
docs/performance.md, "The scaling target".

    .venv/bin/python crates/routerlab-bench/scripts/ratio_watch.py [SAMPLES [INTERVAL [REPEAT]]]

Defaults: 20 samples, 180 s apart, 5 rounds each. Run it on an otherwise idle machine: the
point is what the other tenants leave, not what a second job of ours takes.
"""

import datetime
import statistics
import sys
import time

import scipy.stats
from routerlab._core import load_latency_ns

from routerlab import bench

PROBE_KIB = (4096, 8192)
#: Loads per size, as the `cache_latency` example times them.
PROBE_STEPS = 4_000_000
MANY, BASE, SHARE = bench.SCALING
HOPS = "packet_hops_per_s"


def probe() -> list[float]:
    """Nanoseconds per load at each of PROBE_KIB."""
    return [load_latency_ns(kib, PROBE_STEPS) for kib in PROBE_KIB]


def sample(repeat: int) -> dict:
    """One reading: the probe, then `repeat` interleaved rounds of the pair."""
    ns = probe()
    results = bench.run(bench.resolve([BASE, MANY]), repeat, lambda _msg: None)
    by_name = {r["scenario"]: r for r in results}
    many, base = by_name[MANY], by_name[BASE]
    return {
        "ns": ns,
        "ratio": many[HOPS] / base[HOPS],
        "per_round": bench.lower_median(bench.round_ratios(many, base)),
        "base": base[HOPS] / 1e6,
        "many": many[HOPS] / 1e6,
    }


def main() -> None:
    usage = "usage: ratio_watch.py [SAMPLES [INTERVAL [REPEAT]]]  (positive integers)"
    try:
        args = [int(a) for a in sys.argv[1:]]
    except ValueError:
        sys.exit(usage)
    if len(args) > 3 or any(a <= 0 for a in args):
        sys.exit(usage)
    samples, interval, repeat = args + [20, 180, 5][len(args) :]
    cols = [f"ns_{k // 1024}MiB" for k in PROBE_KIB]
    print("time", *cols, "ratio", "per_round", f"{BASE}_Mhops", f"{MANY}_Mhops", sep="\t")
    got = []
    for i in range(samples):
        start = time.monotonic()
        s = sample(repeat)
        got.append(s)
        now = datetime.datetime.now().strftime("%H:%M")
        ns = [f"{x:.1f}" for x in s["ns"]]
        rest = f"{s['ratio']:.3f}\t{s['per_round']:.3f}\t{s['base']:.2f}\t{s['many']:.2f}"
        print(now, *ns, rest, sep="\t", flush=True)
        if i + 1 < samples:
            time.sleep(max(0.0, interval - (time.monotonic() - start)))
    per_round = [s["per_round"] for s in got]
    met = sum(p >= SHARE for p in per_round)
    print(
        f"# {len(got)} samples: per-round ratio median {statistics.median(per_round):.3f} "
        f"(range {min(per_round):.3f}-{max(per_round):.3f}), at or above {SHARE:g} in {met}"
    )
    for j, col in enumerate(cols):
        rho = scipy.stats.spearmanr([s["ns"][j] for s in got], per_round).statistic
        print(f"# Spearman rank correlation of the ratio with {col}: {rho:+.2f}")


if __name__ == "__main__":
    main()
