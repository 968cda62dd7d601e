//! Random distributions for workloads: flow and object sizes (bytes), gaps and think times
//! (seconds). Each is sampled from the owning workload's random stream by inverse transform
//! (`libm`), so draws are identical on every platform.
//!
//! - `fixed(v)`;
//! - `exponential(mean)`;
//! - `uniform(min, max)`;
//! - `pareto(shape α, mean, min, max)`: scale x_m = mean·(α − 1)/α (α > 1), draws outside
//!   [min, max] are redrawn (truncation by rejection, as ns-3's bounded Pareto does; after 1000
//!   rejections the value is clamped). `mean` is the untruncated mean: truncation lowers the
//!   realized mean — state bounds knowing that;
//! - `lognormal(mean, sigma)`: of the underlying normal's σ, scaled so the distribution's mean
//!   is `mean`;
//! - `empirical(values, probs)`: a discrete distribution.

use crate::rng::SimRng;

#[derive(Clone, Debug, PartialEq)]
pub enum Dist {
    Fixed(f64),
    Exponential { mean: f64 },
    Uniform { min: f64, max: f64 },
    Pareto { shape: f64, mean: f64, min: f64, max: f64 },
    LogNormal { mean: f64, sigma: f64 },
    Empirical { values: Vec<f64>, cdf: Vec<f64> },
}

impl Dist {
    /// Discrete distribution from values and (unnormalized) probabilities.
    pub fn empirical(values: Vec<f64>, probs: &[f64]) -> Dist {
        let total: f64 = probs.iter().sum();
        let mut acc = 0.0;
        let cdf = probs
            .iter()
            .map(|p| {
                acc += p / total;
                acc
            })
            .collect();
        Dist::Empirical { values, cdf }
    }

    pub fn sample(&self, rng: &mut SimRng) -> f64 {
        match self {
            Dist::Fixed(v) => *v,
            Dist::Exponential { mean } => rng.exponential(*mean),
            Dist::Uniform { min, max } => min + (max - min) * rng.uniform(),
            Dist::Pareto { shape, mean, min, max } => {
                let xm = mean * (shape - 1.0) / shape;
                for _ in 0..1000 {
                    let v = rng.pareto(*shape, xm);
                    if v >= *min && v <= *max {
                        return v;
                    }
                }
                rng.pareto(*shape, xm).clamp(*min, *max)
            }
            Dist::LogNormal { mean, sigma } => {
                // Box–Muller from two uniforms; mu chosen so that E[X] = mean.
                let mu = libm::log(*mean) - sigma * sigma / 2.0;
                let (u1, u2) = (1.0 - rng.uniform(), rng.uniform());
                let z = libm::sqrt(-2.0 * libm::log(u1)) * libm::cos(2.0 * std::f64::consts::PI * u2);
                libm::exp(mu + sigma * z)
            }
            Dist::Empirical { values, cdf } => {
                let u = rng.uniform();
                let i = cdf.partition_point(|&c| c <= u).min(values.len() - 1);
                values[i]
            }
        }
    }

    /// The distribution's mean (for bounded Pareto, the untruncated mean).
    pub fn mean(&self) -> f64 {
        match self {
            Dist::Fixed(v) => *v,
            Dist::Exponential { mean } | Dist::Pareto { mean, .. } | Dist::LogNormal { mean, .. } => *mean,
            Dist::Uniform { min, max } => (min + max) / 2.0,
            Dist::Empirical { values, cdf } => {
                let mut prev = 0.0;
                values
                    .iter()
                    .zip(cdf)
                    .map(|(v, c)| {
                        let p = c - prev;
                        prev = *c;
                        v * p
                    })
                    .sum()
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::StreamId;

    fn sample_mean(d: &Dist, n: usize) -> f64 {
        let mut rng = SimRng::new(9, StreamId::Workload(0));
        (0..n).map(|_| d.sample(&mut rng)).sum::<f64>() / n as f64
    }

    #[test]
    fn sample_means_match() {
        for d in [
            Dist::Exponential { mean: 0.5 },
            Dist::Uniform { min: 2.0, max: 6.0 },
            Dist::LogNormal { mean: 10_000.0, sigma: 1.0 },
            Dist::empirical(vec![1.0, 10.0, 100.0], &[0.5, 0.3, 0.2]),
            Dist::Pareto { shape: 2.5, mean: 3.0, min: 0.0, max: f64::INFINITY },
        ] {
            let m = sample_mean(&d, 400_000);
            assert!((m - d.mean()).abs() < 0.02 * d.mean(), "{d:?}: {m}");
        }
    }

    #[test]
    fn bounded_pareto_stays_in_bounds_and_is_heavy_tailed() {
        // The Kick-Ass workload: mean 100 packets, shape 1.8, 1–2000 packets.
        let d = Dist::Pareto { shape: 1.8, mean: 100.0, min: 1.0, max: 2000.0 };
        let mut rng = SimRng::new(1, StreamId::Workload(0));
        let xs: Vec<f64> = (0..200_000).map(|_| d.sample(&mut rng)).collect();
        assert!(xs.iter().all(|&x| (1.0..=2000.0).contains(&x)));
        let min = 100.0 * 0.8 / 1.8;
        assert!(xs.iter().all(|&x| x >= min));
        // Truncation at 2000 lowers the mean below 100 (the untruncated mean).
        let m = xs.iter().sum::<f64>() / xs.len() as f64;
        assert!(m < 100.0 && m > 70.0, "{m}");
        let big = xs.iter().filter(|&&x| x > 1000.0).count() as f64 / xs.len() as f64;
        assert!(big > 0.001, "a heavy tail: {big}");
    }
}
