//! LIA, the Linked Increases Algorithm: MPTCP's coupled congestion control (RFC 6356).
//!
//! Every subflow of an MPTCP connection keeps its own window, slow start and loss response
//! (halving, as NewReno); only the increase in congestion avoidance is coupled (§3): an ACK of
//! `acked` bytes grows subflow i by
//!
//! ```text
//! min(α · acked · MSS_i / cwnd_total,  acked · MSS_i / cwnd_i)
//! ```
//!
//! with α = cwnd_total · max_i(cwnd_i / rtt_i²) / (Σ_i cwnd_i / rtt_i)² (§4). The first term
//! makes the connection as a whole no more aggressive than one TCP on its best path; the
//! second keeps each subflow no more aggressive than a TCP on its own path. The connection
//! computes α and cwnd_total over its subflows ([`lia_alpha`]) and hands them to each
//! subflow's controller ([`Lia::set_coupling`]) before the subflow takes an ACK, so no
//! controller reaches into another's state.

use super::newreno::{half_flight, slow_start};
use super::{AckSample, CongestionControl, Window};
use crate::units::SimTime;

/// What a subflow needs to know about its connection: α and the sum of the windows.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct LiaCoupling {
    pub alpha: f64,
    pub cwnd_total: u64,
}

#[derive(Clone, Debug, Default)]
pub struct Lia {
    coupling: Option<LiaCoupling>,
    /// Fractional bytes of increase not yet added (the increase is computed in reals).
    carry: f64,
}

/// α of RFC 6356 §4 over the subflows' (cwnd bytes, smoothed RTT) pairs; subflows without
/// an RTT sample yet are left out. None when no subflow has one.
pub fn lia_alpha(subflows: impl IntoIterator<Item = (u64, Option<SimTime>)>) -> Option<LiaCoupling> {
    let (mut total, mut best, mut sum) = (0u64, 0f64, 0f64);
    for (cwnd, rtt) in subflows {
        total += cwnd;
        let Some(rtt) = rtt.filter(|r| *r > SimTime::ZERO) else { continue };
        let r = rtt.as_secs_f64();
        best = best.max(cwnd as f64 / (r * r));
        sum += cwnd as f64 / r;
    }
    (sum > 0.0).then(|| LiaCoupling { alpha: total as f64 * best / (sum * sum), cwnd_total: total })
}

impl Lia {
    /// The connection's current α and total window, for the next ACKs of this subflow.
    pub fn set_coupling(&mut self, c: Option<LiaCoupling>) {
        self.coupling = c;
    }
}

impl CongestionControl for Lia {
    fn name(&self) -> &'static str {
        "lia"
    }

    fn on_ack(&mut self, w: &mut Window, ack: &AckSample) {
        if !ack.cwnd_limited {
            return;
        }
        let acked = slow_start(w, ack.delivered_bytes);
        if acked == 0 {
            return;
        }
        let (a, mss, cwnd) = (acked as f64, w.mss as f64, w.cwnd as f64);
        let uncoupled = a * mss / cwnd;
        // Without a coupling (no RTT yet) the subflow grows as a lone TCP would.
        let inc = match self.coupling {
            Some(c) if c.cwnd_total > 0 => (c.alpha * a * mss / c.cwnd_total as f64).min(uncoupled),
            _ => uncoupled,
        };
        self.carry += inc;
        let whole = self.carry.floor();
        self.carry -= whole;
        w.cwnd += whole as u64;
    }

    fn ssthresh_on_loss(&mut self, w: &Window, _now: SimTime, in_flight: u64) -> u64 {
        self.carry = 0.0;
        half_flight(w, in_flight)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ack(bytes: u64) -> AckSample {
        AckSample::of_bytes(bytes)
    }

    #[test]
    fn one_subflow_is_reno() {
        let c = lia_alpha([(20_000, Some(SimTime::from_ms(10)))]).unwrap();
        assert!((c.alpha - 1.0).abs() < 1e-12);
        let mut cc = Lia::default();
        cc.set_coupling(Some(c));
        let mut w = Window { cwnd: 20_000, ssthresh: 0, mss: 1000 };
        for _ in 0..20 {
            cc.on_ack(&mut w, &ack(1000));
        }
        // One MSS per window of ACKed bytes, as NewReno (up to the rounding of each step).
        assert!((20_950..=21_000).contains(&w.cwnd), "{}", w.cwnd);
    }

    #[test]
    fn two_equal_subflows_grow_at_a_quarter_each() {
        // Equal windows and RTTs: α = 2w·(w/r²) / (2w/r)² = 1/2, and each subflow's increase is
        // α·MSS/(2w) per window = a quarter of Reno's; the pair grows at half of Reno's, and
        // halving on loss one at a time, it takes about one TCP's share.
        let r = Some(SimTime::from_ms(10));
        let c = lia_alpha([(10_000, r), (10_000, r)]).unwrap();
        assert!((c.alpha - 0.5).abs() < 1e-12);
        assert_eq!(c.cwnd_total, 20_000);
        let mut cc = Lia::default();
        cc.set_coupling(Some(c));
        let mut w = Window { cwnd: 10_000, ssthresh: 0, mss: 1000 };
        for _ in 0..40 {
            cc.on_ack(&mut w, &ack(1000));
        }
        // 40 KB acknowledged = 4 windows of the subflow: 4 × 250 B.
        assert!((10_990..=11_000).contains(&w.cwnd), "{}", w.cwnd);
    }

    #[test]
    fn a_subflow_is_never_more_aggressive_than_tcp_on_its_path() {
        // A short-RTT subflow beside a long one: α is large, yet the increase is capped at
        // the uncoupled acked·MSS/cwnd_i.
        let c =
            lia_alpha([(50_000, Some(SimTime::from_ms(1))), (1_000, Some(SimTime::from_ms(100)))]).unwrap();
        let mut cc = Lia::default();
        cc.set_coupling(Some(LiaCoupling { alpha: c.alpha * 100.0, ..c }));
        let mut w = Window { cwnd: 1_000, ssthresh: 0, mss: 1000 };
        cc.on_ack(&mut w, &ack(1000));
        assert_eq!(w.cwnd, 2_000);
    }

    #[test]
    fn the_best_path_sets_alpha() {
        // RFC 6356 §4: with one path far better, α ≈ cwnd_total / cwnd_best · (...)² — here
        // the long-RTT subflow barely counts, and α ≈ total / best's window.
        let c =
            lia_alpha([(10_000, Some(SimTime::from_ms(1))), (10_000, Some(SimTime::from_ms(1000)))]).unwrap();
        assert!((c.alpha - 2.0 / (1.001f64 * 1.001)).abs() < 1e-9, "{}", c.alpha);
        assert!(lia_alpha([(10_000, None)]).is_none());
    }

    #[test]
    fn slow_start_and_loss_are_uncoupled() {
        let mut cc = Lia::default();
        cc.set_coupling(Some(LiaCoupling { alpha: 0.01, cwnd_total: 1_000_000 }));
        let mut w = Window { cwnd: 10_000, ssthresh: u64::MAX, mss: 1000 };
        cc.on_ack(&mut w, &ack(1000));
        assert_eq!(w.cwnd, 11_000);
        assert_eq!(cc.ssthresh_on_loss(&w, SimTime::ZERO, 10_000), 5_000);
    }
}
