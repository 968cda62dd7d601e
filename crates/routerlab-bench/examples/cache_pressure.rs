//! Competes for the shared last-level cache, as another tenant of a VM does: reads through a
//! buffer of the given size, a line at a time, over and over, for the given seconds. Run it
//! pinned to one CPU while a benchmark runs pinned to the other, to see how much a scenario's
//! speed depends on the cache share it gets (docs/performance.md, "What the machine's caches
//! are").
//!
//! ```sh
//! B=crates/routerlab-bench/target/release/examples
//! taskset -c 1 $B/cache_pressure 16 30 &     # 16 MiB, 30 s
//! taskset -c 0 $B/run_scenario python/routerlab/benchmarks/dumbbell-10g-1000.toml
//! ```

use std::hint::black_box;
use std::time::{Duration, Instant};

const LINE_WORDS: usize = 8; // 64-byte lines of u64

fn main() {
    let arg = |i: usize, default: u64| {
        std::env::args().nth(i).map_or(Ok(default), |a| a.parse::<u64>()).unwrap_or_else(|_| {
            eprintln!("usage: cache_pressure [MIB (default 16)] [SECONDS (default 60)]");
            std::process::exit(2);
        })
    };
    let (mib, seconds) = (arg(1, 16) as usize, arg(2, 60));
    // Written once, so that every page is backed before the reading starts.
    let buffer: Vec<u64> = (0..mib * 1024 * 1024 / 8).map(|i| i as u64).collect();
    let until = Instant::now() + Duration::from_secs(seconds);
    let mut sum = 0u64;
    while Instant::now() < until {
        for line in buffer.chunks_exact(LINE_WORDS) {
            sum = sum.wrapping_add(line[0]);
        }
        black_box(sum);
    }
}
