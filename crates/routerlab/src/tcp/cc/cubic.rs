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
//! `model = Linux` ([`CubicModel::Linux`]) runs Linux's own arithmetic instead, in whole segments
//! (as ns-3's `TcpCubic` does): its target is W_cubic(t + delay_min) truncated, so below W_max a
//! window grows at least one segment per RTT where the real-valued curve flattens out.
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

/// Which arithmetic the window update follows.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum CubicModel {
    /// RFC 9438 in real numbers: the target W_cubic(t + SRTT), cwnd grows smoothly towards it.
    #[default]
    Rfc9438,
    /// Linux's `tcp_cubic.c` (`bictcp_update`, `tcp_cong_avoid_ai`), which ns-3's `TcpCubic`
    /// follows: windows in whole segments, the target W_cubic(t + delay_min) truncated to a
    /// segment, cwnd grown by one segment every cnt = cwnd/(target − cwnd) segments acked
    /// (at least 2; 100·cwnd at or above the target), the Reno-friendly estimate counted in
    /// ACKs and reached through cnt, and W_max and ssthresh from cwnd in whole segments.
    Linux,
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
    pub model: CubicModel,
}

impl Default for CubicParams {
    fn default() -> CubicParams {
        CubicParams {
            c: 0.4,
            beta: 0.7,
            fast_convergence: true,
            alpha_beyond_wmax: 1.0,
            hystart: HystartParams::default(),
            model: CubicModel::Rfc9438,
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
    /// `CubicModel::Linux`'s state, in whole segments.
    linux: LinuxState,
}

/// Linux's `struct bictcp` fields that the real-valued model does without.
#[derive(Clone, Copy, Debug, Default)]
struct LinuxState {
    /// `bic_origin_point`: the plateau of the current epoch.
    origin: u64,
    /// `ack_cnt`: segments acked in this epoch not yet turned into `tcp_cwnd` growth.
    ack_cnt: u64,
    /// `tcp_cwnd`: the Reno-friendly estimate.
    tcp_cwnd: u64,
    /// `snd_cwnd_cnt`: segments acked towards the next whole segment of cwnd.
    cwnd_cnt: u64,
    /// Bytes acked short of a whole segment.
    bytes: u64,
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
            linux: LinuxState::default(),
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

    /// Linux's `bictcp_update` then `tcp_cong_avoid_ai`, in whole segments.
    fn linux_update(&mut self, w: &mut Window, ack: &AckSample) {
        let lx = &mut self.linux;
        lx.bytes += ack.delivered_bytes;
        let acked = lx.bytes / w.mss;
        lx.bytes %= w.mss;
        if acked == 0 {
            return;
        }
        let cwnd = (w.cwnd / w.mss).max(1);
        let last_max = self.w_max as u64;
        let start = match self.epoch_start {
            Some(e) => {
                lx.ack_cnt += acked;
                e
            }
            None => {
                lx.ack_cnt = acked;
                lx.tcp_cwnd = cwnd;
                if last_max <= cwnd {
                    self.k = 0.0;
                    lx.origin = cwnd;
                } else {
                    self.k = libm::cbrt((last_max - cwnd) as f64 / self.p.c);
                    lx.origin = last_max;
                }
                *self.epoch_start.insert(ack.now)
            }
        };
        let t = (ack.now - start + self.delay_min.unwrap_or(SimTime::ZERO)).as_secs_f64();
        let offs = (t - self.k).abs();
        let delta = libm::floor(self.p.c * offs * offs * offs).min(u32::MAX as f64) as u64;
        let target = if t < self.k { lx.origin.saturating_sub(delta) } else { lx.origin + delta };
        let mut cnt = if target > cwnd { cwnd / (target - cwnd) } else { 100 * cwnd };
        if last_max == 0 && cnt > 20 {
            cnt = 20; // the first epoch grows at least 5 % per RTT
        }
        // TCP friendliness: tcp_cwnd gains a segment every cwnd·beta_scale/8 segments acked,
        // beta_scale = 8(1 + β)/(3(1 − β)) in Linux's integer form.
        let b = (self.p.beta * 1024.0) as u64;
        let beta_scale = 8 * (1024 + b) / 3 / (1024 - b).max(1);
        let per = ((cwnd * beta_scale) >> 3).max(1);
        while lx.ack_cnt > per {
            lx.ack_cnt -= per;
            lx.tcp_cwnd += 1;
        }
        if lx.tcp_cwnd > cwnd {
            cnt = cnt.min(cwnd / (lx.tcp_cwnd - cwnd));
        }
        let cnt = cnt.max(2);
        // tcp_cong_avoid_ai(tp, cnt, acked)
        if lx.cwnd_cnt >= cnt {
            lx.cwnd_cnt = 0;
            w.cwnd += w.mss;
        }
        lx.cwnd_cnt += acked;
        if lx.cwnd_cnt >= cnt {
            let more = lx.cwnd_cnt / cnt;
            lx.cwnd_cnt -= more * cnt;
            w.cwnd += more * w.mss;
        }
    }

    /// Remember the window before a reduction (with fast convergence).
    fn on_reduction(&mut self, w: &Window) {
        if self.p.model == CubicModel::Linux {
            // bictcp_recalc_ssthresh, in whole segments.
            let cwnd = w.cwnd / w.mss;
            let b = (self.p.beta * 1024.0) as u64;
            self.w_max = if self.p.fast_convergence && (cwnd as f64) < self.w_max {
                ((cwnd * (1024 + b)) / 2048) as f64
            } else {
                cwnd as f64
            };
            self.epoch_start = None;
            return;
        }
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
        if self.p.model == CubicModel::Linux {
            self.linux_update(w, ack);
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
        if self.p.model == CubicModel::Linux {
            let b = (self.p.beta * 1024.0) as u64;
            return (w.cwnd / w.mss * b / 1024).max(2) * w.mss;
        }
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

    fn linux() -> Cubic {
        Cubic::new(CubicParams { model: CubicModel::Linux, ..CubicParams::default() })
    }

    /// Linux's reduction in whole segments: ssthresh = ⌊cwnd·717/1024⌋ segments, W_max the
    /// window before it, or ⌊cwnd·1741/2048⌋ by fast convergence when the flow lost ground.
    #[test]
    fn linux_model_reduces_in_whole_segments() {
        let mut cc = linux();
        let mss = 1000;
        let w = Window { cwnd: 101 * mss + 500, ssthresh: 0, mss };
        assert_eq!(cc.ssthresh_on_loss(&w, SimTime::ZERO, w.cwnd), 70 * mss); // ⌊101·0.7⌋
        assert_eq!(cc.w_max, 101.0);
        let lower = Window { cwnd: 90 * mss, ..w };
        cc.ssthresh_on_loss(&lower, SimTime::ZERO, lower.cwnd);
        assert_eq!(cc.w_max, (90 * 1741 / 2048) as f64);
    }

    /// The window moves in whole segments; below the plateau it gains at least one segment in
    /// every window of ACKs once the (truncated) target is a segment above it, and never more
    /// than half a window per window (cnt ≥ 2).
    #[test]
    fn linux_model_grows_in_whole_segments_at_most_half_a_window_per_round() {
        let mut cc = linux();
        let mss = 1000;
        let mut w = Window { cwnd: 100 * mss, ssthresh: 0, mss };
        w.ssthresh = cc.ssthresh_on_loss(&w, SimTime::ZERO, w.cwnd);
        w.cwnd = w.ssthresh;
        let mut t = SimTime::ZERO;
        for _ in 0..100 {
            let before = w.cwnd;
            for _ in 0..w.cwnd / mss {
                cc.on_ack(&mut w, &ack(t, mss));
                assert_eq!(w.cwnd % mss, 0, "whole segments");
            }
            assert!(w.cwnd <= before + before / 2);
            t += SimTime::from_ms(100);
        }
        // After 10 s (K ≈ 4.2 s) the window is past the old plateau of 100.
        assert!(w.cwnd > 100 * mss, "{}", w.cwnd / mss);
    }

    /// Before any loss (no W_max) Linux grows at least 5 % per round (cnt ≤ 20).
    #[test]
    fn linux_model_first_epoch_grows_five_percent_per_round() {
        let mut cc = linux();
        let mss = 1000;
        let mut w = Window { cwnd: 100 * mss, ssthresh: 100 * mss, mss };
        for _ in 0..100 {
            cc.on_ack(&mut w, &ack(SimTime::ZERO, mss));
        }
        assert!(w.cwnd >= 105 * mss, "{}", w.cwnd / mss);
        let mut rfc = Cubic::new(CubicParams::default());
        let mut v = Window { cwnd: 100 * mss, ssthresh: 100 * mss, mss };
        for _ in 0..100 {
            rfc.on_ack(&mut v, &ack(SimTime::ZERO, mss));
        }
        assert!(v.cwnd < w.cwnd, "RFC 9438 starts at its plateau: {}", v.cwnd / mss);
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
