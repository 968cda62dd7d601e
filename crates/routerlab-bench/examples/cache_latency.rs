//! How long one dependent load takes on this machine, by working-set size: a pointer chase
//! through a random cyclic permutation of cache lines, one line per step, so that neither the
//! hardware prefetchers nor the out-of-order core can overlap the loads.
//!
//! The sizes at which the time jumps are the caches a simulation actually gets: on a shared
//! VM the last level's share changes from minute to minute (docs/performance.md, "The
//! machine's caches"), which is what makes a large scenario's speed swing while a small one's
//! does not.
//!
//! ```sh
//! cargo run --release --manifest-path crates/routerlab-bench/Cargo.toml --example cache_latency
//! cargo run --release --manifest-path crates/routerlab-bench/Cargo.toml --example cache_latency -- 4096 8192
//! ```
//!
//! With arguments, only those working-set sizes (KiB) are probed.

use std::hint::black_box;
use std::time::Instant;

use routerlab::rng::{SimRng, StreamId};

const LINE_WORDS: usize = 8; // 64-byte lines of u64
const STEPS: usize = 4_000_000;

/// Nanoseconds per step of a chase through `lines` cache lines.
fn chase_ns(lines: usize, rng: &mut SimRng) -> f64 {
    // Sattolo's shuffle: one cycle through every line.
    let mut order: Vec<usize> = (0..lines).collect();
    for i in (1..lines).rev() {
        let j = rng.below(i as u64) as usize;
        order.swap(i, j);
    }
    let mut next = vec![0usize; lines * LINE_WORDS];
    for i in 0..lines {
        next[order[i] * LINE_WORDS] = order[(i + 1) % lines] * LINE_WORDS;
    }
    let mut at = 0;
    for _ in 0..lines {
        at = next[at]; // one lap to warm up
    }
    let start = Instant::now();
    for _ in 0..STEPS {
        at = next[at];
    }
    black_box(at);
    start.elapsed().as_secs_f64() * 1e9 / STEPS as f64
}

/// The sizes probed without arguments, in KiB: from well inside the L2 to well beyond the L3.
const DEFAULT_KIB: [usize; 13] =
    [64, 256, 512, 1024, 2048, 3072, 4096, 6144, 8192, 12288, 16384, 32768, 65536];

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let sizes: Vec<usize> = if args.is_empty() {
        DEFAULT_KIB.to_vec()
    } else {
        let parsed: Result<Vec<usize>, _> = args.iter().map(|a| a.parse::<usize>()).collect();
        match parsed {
            Ok(v) if v.iter().all(|&k| k > 0) => v,
            _ => {
                eprintln!("usage: cache_latency [KIB ...]  (working-set sizes, positive integers)");
                std::process::exit(2);
            }
        }
    };
    let mut rng = SimRng::new(1, StreamId::Measurement(0));
    println!("{:>10}  {:>8}", "working set", "ns/load");
    for kib in sizes {
        let lines = kib * 1024 / 64;
        println!("{:>7} KiB  {:>8.1}", kib, chase_ns(lines, &mut rng));
    }
}
