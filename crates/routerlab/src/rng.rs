//! Random number streams: one independent generator per component, derived from the run seed.
//!
//! No component ever shares a generator with another, so adding a random element in one place
//! (say, a RED queue) does not shift the draws of another (the workload's start times). A
//! stream is named by a [`StreamId`] — a component kind and an index — and seeded from
//! `splitmix64(seed ⊕ hash(kind, index))`; the generator is xoshiro256++ (`rand_xoshiro`).
//!
//! Continuous distributions are sampled by inverse transform with `libm`'s pure-Rust `log`,
//! so that a run draws the same numbers on every platform.

use rand_core::{Rng as _, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;

/// What a random stream belongs to. The discriminant is part of the stream's identity.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum StreamId {
    /// A workload entry (start jitter, sizes, gaps), by its index in the scenario.
    Workload(u32),
    /// A queue discipline (RED, SFQ perturbation, …), by port index.
    Qdisc(u32),
    /// Random loss on a link, by port index.
    LinkLoss(u32),
    /// Forwarding decisions at a node (ECMP hash salt, random spraying), by node index.
    Forwarding(u32),
    /// A host shim or endpoint-side mechanism, by endpoint index.
    Endpoint(u32),
    /// Sampling decisions of measurement (which packets to sample), by sampler index.
    Measurement(u32),
}

impl StreamId {
    fn key(self) -> u64 {
        let (kind, idx) = match self {
            StreamId::Workload(i) => (1u64, i),
            StreamId::Qdisc(i) => (2, i),
            StreamId::LinkLoss(i) => (3, i),
            StreamId::Forwarding(i) => (4, i),
            StreamId::Endpoint(i) => (5, i),
            StreamId::Measurement(i) => (6, i),
        };
        (kind << 32) | idx as u64
    }
}

/// SplitMix64 finalizer: a bijective mix used to turn structured keys into seeds.
pub fn splitmix64(mut z: u64) -> u64 {
    z = z.wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// A component's private random stream.
#[derive(Clone, Debug)]
pub struct SimRng(Xoshiro256PlusPlus);

impl SimRng {
    pub fn new(run_seed: u64, stream: StreamId) -> SimRng {
        let seed = splitmix64(run_seed ^ splitmix64(stream.key()));
        SimRng(Xoshiro256PlusPlus::seed_from_u64(seed))
    }

    pub fn next_u64(&mut self) -> u64 {
        self.0.next_u64()
    }

    /// Uniform in [0, 1) with 53 bits of precision.
    pub fn uniform(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 * (1.0 / (1u64 << 53) as f64)
    }

    /// Uniform integer in [0, n) without modulo bias (Lemire's method). `n` must be > 0.
    pub fn below(&mut self, n: u64) -> u64 {
        debug_assert!(n > 0);
        let mut m = self.next_u64() as u128 * n as u128;
        if (m as u64) < n {
            let threshold = n.wrapping_neg() % n;
            while (m as u64) < threshold {
                m = self.next_u64() as u128 * n as u128;
            }
        }
        (m >> 64) as u64
    }

    /// True with probability `p`.
    pub fn bernoulli(&mut self, p: f64) -> bool {
        self.uniform() < p
    }

    /// Exponential with the given mean.
    pub fn exponential(&mut self, mean: f64) -> f64 {
        // 1 - U lies in (0, 1], so the log is finite.
        -mean * libm::log(1.0 - self.uniform())
    }

    /// Pareto with shape `alpha` and scale (minimum) `xm`.
    pub fn pareto(&mut self, alpha: f64, xm: f64) -> f64 {
        xm / libm::pow(1.0 - self.uniform(), 1.0 / alpha)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn streams_are_reproducible_and_independent() {
        let a1: Vec<u64> = (0..4)
            .map({
                let mut r = SimRng::new(7, StreamId::Workload(0));
                move |_| r.next_u64()
            })
            .collect();
        let mut r = SimRng::new(7, StreamId::Workload(0));
        let a2: Vec<u64> = (0..4).map(|_| r.next_u64()).collect();
        assert_eq!(a1, a2);
        let mut other = SimRng::new(7, StreamId::Workload(1));
        assert_ne!(a1[0], other.next_u64());
        let mut other_seed = SimRng::new(8, StreamId::Workload(0));
        assert_ne!(a1[0], other_seed.next_u64());
    }

    #[test]
    fn below_is_in_range_and_roughly_uniform() {
        let mut r = SimRng::new(1, StreamId::Qdisc(0));
        let mut counts = [0u32; 6];
        for _ in 0..60_000 {
            counts[r.below(6) as usize] += 1;
        }
        for c in counts {
            assert!((9_000..11_000).contains(&c), "{counts:?}");
        }
    }

    #[test]
    fn exponential_and_pareto_means() {
        let mut r = SimRng::new(3, StreamId::Workload(2));
        let n = 200_000;
        let mean_exp: f64 = (0..n).map(|_| r.exponential(0.5)).sum::<f64>() / n as f64;
        assert!((mean_exp - 0.5).abs() < 0.01, "{mean_exp}");
        // Pareto(alpha=3, xm=2) has mean alpha*xm/(alpha-1) = 3.
        let mean_par: f64 = (0..n).map(|_| r.pareto(3.0, 2.0)).sum::<f64>() / n as f64;
        assert!((mean_par - 3.0).abs() < 0.05, "{mean_par}");
    }
}
