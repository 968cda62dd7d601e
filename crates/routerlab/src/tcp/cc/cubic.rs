//! CUBIC (RFC 9438).
//!
//! - Window growth in congestion avoidance follows W_cubic(t) = C·(t − K)³ + W_max (eq. 1), t in
//!   seconds since the start of the avoidance epoch, windows in segments, with
//!   K = ∛((W_max − cwnd_epoch)/C) (eq. 2). On each ACK the target is W_cubic(t + SRTT), kept
//!   within [cwnd, 1.5·cwnd] (§4.2), and cwnd grows by (target − cwnd)/cwnd segments per segment
//!   acknowledged (§4.4, §4.5).
//! - Reno-friendly region (§4.3): W_est starts at cwnd_epoch and grows by α_cubic·acked/cwnd
//!   with α_cubic = 3(1 − β)/(1 + β) (≈ 0.53), and by `alpha_beyond_wmax` (RFC 9438: 1) once
//!   W_est ≥ W_max; if W_cubic < W_est, cwnd is set to W_est. Linux keeps α_cubic throughout
//!   (set `alpha_beyond_wmax` to 0.529 to model it). Measured here: at equal random loss rates,
//!   RFC 9438's rule gives CUBIC about 1.25× NewReno's goodput, Linux's about 1.08×
//!   (`tests/tcp.rs`, docs/tcp.md).
//! - Multiplicative decrease (§4.6): ssthresh = max(FlightSize·β, 2·SMSS), β = 0.7; W_max is the
//!   window before the reduction, lowered to W_max·(1 + β)/2 by fast convergence (§4.7) when the
//!   flow is losing ground. (Linux applies β to cwnd rather than FlightSize; they agree for a
//!   window-limited flow.)
//! - Timeout (§4.8): as Reno (cwnd = 1 SMSS), ssthresh via β, and a new epoch afterwards.
//! - Slow start ends early by HyStart (Ha and Rhee, "Taming the elephants", 2011) as Linux
//!   (≥ 5.7, `hystart_update`) runs it, on by default as in Linux and ns-3: from a window of 16
//!   segments, within each round (a window of data), it ends slow start (ssthresh = cwnd) when
//!   ACKs keep arriving within 2 ms of each other for longer than half the minimum RTT (the
//!   ACK train has spanned the path), or when the least RTT of the round's first 8 samples
//!   exceeds the minimum by clamp(min/8, 4 ms, 16 ms) (the queue has begun to grow).
//!
//! Real-valued state uses `f64` with `libm`, so results are identical on every platform.

use super::newreno::reno_increase;
use super::{AckSample, CongestionControl, Window};
use crate::units::SimTime;

/// HyStart's parameters, with Linux's values (`tcp_cubic.c`) as defaults.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct HystartParams {
    /// On (Linux's `hystart = 1`; ns-3's `HyStart`).
    pub enabled: bool,
    /// Windows below this many segments never leave slow start early (`hystart_low_window`).
    pub low_window: u32,
    /// ACKs this close together form a train (`hystart_ack_delta_us`: 2 ms).
    pub ack_delta: SimTime,
    /// Bounds of the delay increase that ends slow start (`HYSTART_DELAY_MIN`/`MAX`: 4, 16 ms).
    pub delay_min: SimTime,
    pub delay_max: SimTime,
    /// RTT samples per round before the delay test (`HYSTART_MIN_SAMPLES`: 8).
    pub min_samples: u32,
}

impl Default for HystartParams {
    fn default() -> HystartParams {
        HystartParams {
            enabled: true,
            low_window: 16,
            ack_delta: SimTime::from_ms(2),
            delay_min: SimTime::from_ms(4),
            delay_max: SimTime::from_ms(16),
            min_samples: 8,
        }
    }
}

/// CUBIC's parameters, with RFC 9438's values as defaults.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct CubicParams {
    /// C, the aggressiveness of growth (RFC 9438 §5: 0.4).
    pub c: f64,
    /// β_cubic, the multiplicative decrease factor (RFC 9438 §4.6: 0.7).
    pub beta: f64,
    /// Fast convergence (RFC 9438 §4.7: SHOULD be on).
    pub fast_convergence: bool,
    /// Reno-friendly additive increase once W_est ≥ W_max (RFC 9438 §4.3: 1; Linux: α_cubic).
    pub alpha_beyond_wmax: f64,
    pub hystart: HystartParams,
}

impl Default for CubicParams {
    fn default() -> CubicParams {
        CubicParams {
            c: 0.4,
            beta: 0.7,
            fast_convergence: true,
            alpha_beyond_wmax: 1.0,
            hystart: HystartParams::default(),
        }
    }
}

/// HyStart's state within the current round.
#[derive(Clone, Copy, Debug, Default)]
struct Hystart {
    /// Slow start was ended early (until the next timeout).
    found: bool,
    round_start: SimTime,
    last_ack: SimTime,
    /// The round ends when this is acknowledged (`snd_nxt` at its start); 0: none started.
    end_seq: u64,
    /// The least RTT among the round's first samples.
    curr_rtt: Option<SimTime>,
    samples: u32,
}

impl Hystart {
    fn reset_round(&mut self, now: SimTime, snd_nxt: u64) {
        *self = Hystart {
            found: self.found,
            round_start: now,
            last_ack: now,
            end_seq: snd_nxt,
            ..Hystart::default()
        };
    }
}

#[derive(Clone, Debug)]
pub struct Cubic {
    p: CubicParams,
    /// Window before the last reduction, segments (0 = none yet).
    w_max: f64,
    /// Start of the current avoidance epoch (None: starts with the next ACK in avoidance).
    epoch_start: Option<SimTime>,
    k: f64,
    /// Reno-friendly estimate, segments.
    w_est: f64,
    /// Fractional growth towards the next whole byte of cwnd.
    acc: f64,
    /// Slow-start accumulator (shared Reno code).
    reno_acc: u64,
    /// The least RTT seen (Linux's `delay_min`), for HyStart.
    delay_min: Option<SimTime>,
    hystart: Hystart,
}

impl Cubic {
    pub fn new(p: CubicParams) -> Cubic {
        Cubic {
            p,
            w_max: 0.0,
            epoch_start: None,
            k: 0.0,
            w_est: 0.0,
            acc: 0.0,
            reno_acc: 0,
            delay_min: None,
            hystart: Hystart::default(),
        }
    }

    /// An RTT sample `rtt` arrived with an ACK (Linux `cubictcp_acked` and `hystart_update`).
    fn on_rtt_sample(&mut self, w: &mut Window, ack: &AckSample, rtt: SimTime) {
        // Samples right after a reduction (within a second of the epoch's start) are discarded.
        if self.epoch_start.is_some_and(|e| ack.now.saturating_sub(e) < SimTime::from_secs(1)) {
            return;
        }
        let rtt = rtt.max(SimTime(1));
        let delay_min = self.delay_min.map_or(rtt, |d| d.min(rtt));
        self.delay_min = Some(delay_min);
        let hp = self.p.hystart;
        if !hp.enabled || self.hystart.found || !w.in_slow_start() {
            return;
        }
        let h = &mut self.hystart;
        if ack.snd_una > h.end_seq {
            h.reset_round(ack.now, ack.snd_nxt);
        }
        if w.cwnd < hp.low_window as u64 * w.mss {
            return;
        }
        // The ACK train: ACKs within `ack_delta` of each other for longer than half the least
        // RTT (Linux halves it for a sender that does not pace).
        if ack.now.saturating_sub(h.last_ack) <= hp.ack_delta {
            h.last_ack = ack.now;
            if ack.now.saturating_sub(h.round_start) > SimTime(delay_min.0 / 2) {
                h.found = true;
            }
        }
        // The delay increase: the round's least RTT, once it has enough samples.
        let curr = h.curr_rtt.map_or(rtt, |c| c.min(rtt));
        h.curr_rtt = Some(curr);
        if h.samples < hp.min_samples {
            h.samples += 1;
        } else if curr > delay_min + SimTime(delay_min.0 / 8).clamp(hp.delay_min, hp.delay_max) {
            h.found = true;
        }
        if h.found {
            w.ssthresh = w.cwnd;
        }
    }

    fn alpha(&self) -> f64 {
        if self.w_est >= self.w_max {
            self.p.alpha_beyond_wmax
        } else {
            3.0 * (1.0 - self.p.beta) / (1.0 + self.p.beta)
        }
    }

    fn w_cubic(&self, t: f64) -> f64 {
        let d = t - self.k;
        self.p.c * d * d * d + self.w_max
    }

    /// Remember the window before a reduction (with fast convergence).
    fn on_reduction(&mut self, w: &Window) {
        let cwnd = w.cwnd as f64 / w.mss as f64;
        self.w_max = if self.p.fast_convergence && cwnd < self.w_max {
            cwnd * (1.0 + self.p.beta) / 2.0
        } else {
            cwnd
        };
        self.epoch_start = None;
    }
}

impl CongestionControl for Cubic {
    fn name(&self) -> &'static str {
        "cubic"
    }

    fn on_any_ack(&mut self, w: &mut Window, ack: &AckSample) {
        if let Some(rtt) = ack.rtt {
            self.on_rtt_sample(w, ack, rtt);
        }
    }

    fn on_ack(&mut self, w: &mut Window, ack: &AckSample) {
        if !ack.cwnd_limited {
            return;
        }
        if w.in_slow_start() {
            reno_increase(w, &mut self.reno_acc, ack.delivered_bytes);
            return;
        }
        let mss = w.mss as f64;
        let cwnd = w.cwnd as f64 / mss;
        let start = *self.epoch_start.get_or_insert_with(|| {
            // A new epoch (RFC 9438 §4.2): K from the current window; no reduction yet means
            // the plateau is here.
            if self.w_max < cwnd {
                self.w_max = cwnd;
            }
            self.k = libm::cbrt((self.w_max - cwnd) / self.p.c);
            self.w_est = cwnd;
            ack.now
        });
        let t = (ack.now - start).as_secs_f64();
        let rtt = ack.srtt.map_or(0.0, |r| r.as_secs_f64());
        let segs_acked = ack.delivered_bytes as f64 / mss;
        self.w_est += self.alpha() * segs_acked / cwnd;
        if self.w_cubic(t) < self.w_est {
            // Reno-friendly region (§4.3): cwnd is set to W_est.
            let est = libm::floor(self.w_est * mss) as u64;
            w.cwnd = w.cwnd.max(est);
            return;
        }
        let target = self.w_cubic(t + rtt).clamp(cwnd, 1.5 * cwnd);
        if target > cwnd {
            // (target − cwnd)/cwnd segments per segment acknowledged, in bytes.
            self.acc += (target - cwnd) / cwnd * segs_acked * mss;
            let grow = libm::floor(self.acc);
            self.acc -= grow;
            w.cwnd += grow as u64;
        }
    }

    fn ssthresh_on_loss(&mut self, w: &Window, _now: SimTime, in_flight: u64) -> u64 {
        self.on_reduction(w);
        ((in_flight as f64 * self.p.beta) as u64).max(2 * w.mss)
    }

    fn on_rto(&mut self, w: &mut Window, now: SimTime, in_flight: u64, reduce: bool) {
        if reduce {
            w.ssthresh = self.ssthresh_on_loss(w, now, in_flight);
        }
        self.epoch_start = None;
        // Linux resets CUBIC's delay state and HyStart on a timeout (`bictcp_reset`).
        self.delay_min = None;
        self.hystart = Hystart::default();
        w.cwnd = w.mss;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ack(now: SimTime, bytes: u64) -> AckSample {
        AckSample { now, srtt: Some(SimTime::from_ms(100)), ..AckSample::of_bytes(bytes) }
    }

    #[test]
    fn loss_reduces_to_beta_and_returns_to_w_max_after_k() {
        let mut cc = Cubic::new(CubicParams::default());
        let mss = 1000;
        let mut w = Window { cwnd: 100 * mss, ssthresh: 0, mss };
        w.ssthresh = cc.ssthresh_on_loss(&w, SimTime::ZERO, 100 * mss);
        w.cwnd = w.ssthresh;
        assert_eq!(w.cwnd, 70 * mss);
        assert_eq!(cc.w_max, 100.0);
        // K = cbrt(30 / 0.4) ≈ 4.217 s. Feed one window of ACKs per 100 ms RTT.
        let mut t = SimTime::ZERO;
        while t < SimTime::from_ms(4200) {
            let per_ack = mss;
            for _ in 0..w.cwnd / mss {
                cc.on_ack(&mut w, &ack(t, per_ack));
            }
            t += SimTime::from_ms(100);
        }
        assert!((cc.k - 4.217).abs() < 0.01, "K = {}", cc.k);
        let cwnd = w.cwnd as f64 / mss as f64;
        // The target leads by one RTT, so at t ≈ K − RTT the window is close to the plateau.
        assert!((95.0..=101.0).contains(&cwnd), "cwnd {cwnd} segments at t ≈ K");
    }

    /// Slow start from 20 segments (above HyStart's low window), one ACK every `gap`, each
    /// carrying an RTT sample given by `rtt(round)`, over `rounds` rounds of one window each.
    /// Returns the round in which slow start ended, if it did.
    fn hystart_exit(hystart: bool, gap: SimTime, rtt: impl Fn(u32) -> SimTime, rounds: u32) -> Option<u32> {
        let p = CubicParams {
            hystart: HystartParams { enabled: hystart, ..HystartParams::default() },
            ..Default::default()
        };
        let mut cc = Cubic::new(p);
        let mss = 1000;
        let mut w = Window { cwnd: 20 * mss, ssthresh: u64::MAX, mss };
        let (mut now, mut una, mut nxt) = (SimTime::ZERO, 1, 1 + 20 * mss);
        for round in 0..rounds {
            for _ in 0..w.cwnd / mss {
                now += gap;
                una += mss;
                let a = AckSample { now, rtt: Some(rtt(round)), snd_una: una, snd_nxt: nxt, ..ack(now, mss) };
                cc.on_any_ack(&mut w, &a);
                cc.on_ack(&mut w, &a);
                nxt += if w.in_slow_start() { 2 * mss } else { mss };
                if !w.in_slow_start() {
                    return Some(round);
                }
            }
        }
        None
    }

    /// The delay test: once the round's least RTT exceeds the minimum by clamp(min/8, 4 ms,
    /// 16 ms), slow start ends; 3 ms more on a 10 ms path is below the 4 ms bound.
    #[test]
    fn hystart_leaves_slow_start_when_the_round_trip_grows() {
        let slow = SimTime::from_ms(3); // ACKs further apart than the 2 ms of a train
        let grows = |r: u32| SimTime::from_ms(if r == 0 { 10 } else { 15 });
        assert_eq!(hystart_exit(true, slow, grows, 6), Some(1));
        assert_eq!(hystart_exit(false, slow, grows, 6), None, "off: standard slow start");
        let barely = |r: u32| SimTime::from_ms(if r == 0 { 10 } else { 13 });
        assert_eq!(hystart_exit(true, slow, barely, 6), None);
    }

    /// The ACK train: ACKs within 2 ms of each other for longer than half the least RTT mean
    /// the window already spans the path.
    #[test]
    fn hystart_leaves_slow_start_when_the_ack_train_spans_half_the_rtt() {
        let rtt = |_| SimTime::from_ms(10);
        // 1 ms apart: a 20-segment round lasts 20 ms, past 5 ms in the first round.
        assert_eq!(hystart_exit(true, SimTime::from_ms(1), rtt, 6), Some(0));
        assert_eq!(hystart_exit(false, SimTime::from_ms(1), rtt, 6), None);
        // 3 ms apart: never a train.
        assert_eq!(hystart_exit(true, SimTime::from_ms(3), rtt, 6), None);
    }

    #[test]
    fn fast_convergence_lowers_w_max_when_losing_ground() {
        let mut cc = Cubic::new(CubicParams::default());
        let w = Window { cwnd: 100_000, ssthresh: 0, mss: 1000 };
        cc.ssthresh_on_loss(&w, SimTime::ZERO, 100_000);
        let w2 = Window { cwnd: 80_000, ..w };
        cc.ssthresh_on_loss(&w2, SimTime::ZERO, 80_000);
        assert!((cc.w_max - 80.0 * 0.85).abs() < 1e-9);
    }

    #[test]
    fn reno_friendly_region_grows_like_reno_on_short_paths() {
        // Small window, short RTT: W_cubic grows slowly (t is tiny), W_est dominates.
        let mut cc = Cubic::new(CubicParams::default());
        let mss = 1000;
        let mut w = Window { cwnd: 10 * mss, ssthresh: 10 * mss, mss };
        cc.w_max = 10.0;
        let mut t = SimTime::ZERO;
        for _ in 0..50 {
            for _ in 0..w.cwnd / mss {
                cc.on_ack(&mut w, &AckSample { srtt: Some(SimTime::from_ms(1)), ..ack(t, mss) });
            }
            t += SimTime::from_ms(1);
        }
        // 50 RTTs past W_max: W_est grows ~1 segment per RTT (α = 1 beyond W_max).
        let cwnd = w.cwnd as f64 / mss as f64;
        assert!((50.0..=70.0).contains(&cwnd), "cwnd {cwnd}");
    }
}
