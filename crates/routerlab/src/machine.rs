//! What the machine gives a simulation: how long one dependent load takes when the data lives
//! in a working set of a given size.
//!
//! A pointer chase through a random cyclic permutation of cache lines, one line per step, so
//! that neither the hardware prefetchers nor the out-of-order core can overlap the loads. The
//! sizes at which the time jumps are the caches a run actually gets: on a shared VM the last
//! level's share changes from minute to minute, which makes a large scenario's speed swing
//! while a small one's does not (docs/performance.md, "The scaling target"). `routerlab
//! bench` reports it beside its figures; the profiling example `cache_latency` scans sizes.
//!
//! Not part of any simulation: nothing here touches simulated state.

use std::hint::black_box;
use std::time::Instant;

use crate::rng::{SimRng, StreamId};

/// `u64` words per 64-byte cache line.
const LINE_WORDS: usize = 8;

/// The largest working set probed: 1 GiB, far beyond any cache.
pub const MAX_KIB: usize = 1 << 20;

/// Nanoseconds per dependent load, averaged over `steps` loads, through a working set of
/// `kib` KiB. The cycle is drawn from a fixed seed, so that every
/// probe of a size walks the same order.
pub fn load_latency_ns(kib: usize, steps: usize) -> Result<f64, String> {
    if kib == 0 || steps == 0 {
        return Err(format!("the working set ({kib} KiB) and the steps ({steps}) must be positive"));
    }
    if kib > MAX_KIB {
        return Err(format!("a working set of {kib} KiB is too large (at most {MAX_KIB} KiB)"));
    }
    let lines = kib * 1024 / 64;
    // Sattolo's shuffle: one cycle through every line.
    let mut rng = SimRng::new(1, StreamId::Measurement(0));
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
    for _ in 0..steps {
        at = next[at];
    }
    black_box(at);
    Ok(start.elapsed().as_secs_f64() * 1e9 / steps as f64)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_small_working_set_answers_in_a_plausible_time() {
        // 16 KiB sits in any L1: a load takes a few nanoseconds, and some time. (The bound
        // leaves room for the test to be descheduled for most of a second.)
        let ns = load_latency_ns(16, 100_000).unwrap();
        assert!(ns > 0.0 && ns < 10_000.0, "{ns} ns per load");
    }

    #[test]
    fn empty_or_impossible_sizes_are_refused() {
        assert!(load_latency_ns(0, 10).unwrap_err().contains("must be positive"));
        assert!(load_latency_ns(16, 0).unwrap_err().contains("must be positive"));
        assert!(load_latency_ns(MAX_KIB + 1, 10).unwrap_err().contains("too large"));
    }
}
