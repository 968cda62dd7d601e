//! DCTCP (RFC 8257; Alizadeh et al., SIGCOMM 2010).
//!
//! - Switches mark CE when the instantaneous queue exceeds K (`ecn_threshold` on a queue); the
//!   receiver echoes CE state exactly (the socket's DCTCP echo mode).
//! - The sender estimates the fraction of marked bytes once per window of data:
//!   α ← (1 − g)·α + g·F, F = bytes acknowledged with ECE / bytes acknowledged (§3.3), with
//!   g = 1/16 and α starting at 1 (Linux's `dctcp_alpha_on_init` default; the RFC leaves the
//!   initial value to the implementation).
//! - On ECN-Echo, at most once per window: cwnd ← cwnd·(1 − α/2), ssthresh ← cwnd (§3.3), but
//!   not below `min_cwnd` segments (Linux's `dctcp_ssthresh`: 2). With many flows on a small
//!   bandwidth-delay product, the floor itself can hold a standing queue above the marking
//!   threshold (50 flows × 2 segments against an 83-packet BDP).
//! - On loss it behaves as Reno (§3.3: "respond to loss as a standard TCP").
//! - Growth is Reno's.

use super::newreno::{half_flight, reno_increase};
use super::{AckSample, CongestionControl, Window};
use crate::units::SimTime;

/// DCTCP's parameters, with RFC 8257's values as defaults.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct DctcpParams {
    /// Estimation gain g (RFC 8257 §3.3: 1/16).
    pub g: f64,
    /// Initial α (Linux: 1).
    pub alpha_init: f64,
    /// The least window an ECN reduction leaves, in segments (Linux: 2).
    pub min_cwnd: u32,
}

impl Default for DctcpParams {
    fn default() -> DctcpParams {
        DctcpParams { g: 1.0 / 16.0, alpha_init: 1.0, min_cwnd: 2 }
    }
}

#[derive(Clone, Debug)]
pub struct Dctcp {
    p: DctcpParams,
    alpha: f64,
    /// The observation window ends when snd_una passes this.
    window_end: u64,
    acked: u64,
    marked: u64,
    reno_acc: u64,
}

impl Dctcp {
    pub fn new(p: DctcpParams) -> Dctcp {
        Dctcp { p, alpha: p.alpha_init, window_end: 0, acked: 0, marked: 0, reno_acc: 0 }
    }

    pub fn alpha(&self) -> f64 {
        self.alpha
    }
}

impl CongestionControl for Dctcp {
    fn name(&self) -> &'static str {
        "dctcp"
    }

    fn on_any_ack(&mut self, _w: &mut Window, ack: &AckSample) {
        self.acked += ack.delivered_bytes;
        if ack.ece {
            self.marked += ack.delivered_bytes;
        }
        if ack.snd_una > self.window_end {
            if self.acked > 0 {
                let f = self.marked as f64 / self.acked as f64;
                self.alpha = (1.0 - self.p.g) * self.alpha + self.p.g * f;
            }
            self.acked = 0;
            self.marked = 0;
            self.window_end = ack.snd_nxt;
        }
    }

    fn on_ack(&mut self, w: &mut Window, ack: &AckSample) {
        if ack.cwnd_limited {
            reno_increase(w, &mut self.reno_acc, ack.delivered_bytes);
        }
    }

    fn ssthresh_on_loss(&mut self, w: &Window, _now: SimTime, in_flight: u64) -> u64 {
        self.reno_acc = 0;
        half_flight(w, in_flight)
    }

    fn on_ecn_echo(&mut self, w: &mut Window, _now: SimTime, _in_flight: u64) -> bool {
        let reduced = (w.cwnd as f64 * (1.0 - self.alpha / 2.0)) as u64;
        w.cwnd = reduced.max(self.p.min_cwnd as u64 * w.mss);
        w.ssthresh = w.cwnd;
        self.reno_acc = 0;
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ack(bytes: u64, ece: bool, una: u64, nxt: u64) -> AckSample {
        AckSample { ece, snd_una: una, snd_nxt: nxt, ..AckSample::of_bytes(bytes) }
    }

    #[test]
    fn alpha_tracks_the_marked_fraction_once_per_window() {
        // RFC 8257 §3.3: WindowEnd starts at SND.NXT (here 0), and the ACK that passes it is
        // counted in the window it closes.
        let mut cc = Dctcp::new(DctcpParams::default());
        let mut w = Window { cwnd: 10_000, ssthresh: u64::MAX, mss: 1000 };
        cc.on_any_ack(&mut w, &ack(1000, false, 1001, 10_001));
        assert_eq!(cc.alpha(), 15.0 / 16.0, "first window: F = 0");
        cc.on_any_ack(&mut w, &ack(4000, true, 5001, 14_001));
        cc.on_any_ack(&mut w, &ack(4000, false, 9001, 18_001));
        assert_eq!(cc.alpha(), 15.0 / 16.0, "not updated before the window ends");
        cc.on_any_ack(&mut w, &ack(1000, false, 10_002, 20_001));
        // F = 4000 / 9000; α = (1 − g)·α + g·F.
        let expect = (15.0 / 16.0) * (15.0 / 16.0) + (4000.0 / 9000.0) / 16.0;
        assert!((cc.alpha() - expect).abs() < 1e-12, "{}", cc.alpha());
    }

    #[test]
    fn the_reduction_stops_at_the_minimum_window() {
        for min_cwnd in [1, 2, 4] {
            let mut cc = Dctcp::new(DctcpParams { alpha_init: 1.0, min_cwnd, ..Default::default() });
            let mut w = Window { cwnd: 3000, ssthresh: u64::MAX, mss: 1000 };
            cc.on_ecn_echo(&mut w, SimTime::ZERO, 3000);
            assert_eq!(w.cwnd, 1500u64.max(min_cwnd as u64 * 1000));
        }
    }

    #[test]
    fn ecn_echo_cuts_by_half_alpha() {
        let mut cc = Dctcp::new(DctcpParams { alpha_init: 0.5, ..Default::default() });
        let mut w = Window { cwnd: 100_000, ssthresh: u64::MAX, mss: 1000 };
        assert!(cc.on_ecn_echo(&mut w, SimTime::ZERO, 100_000));
        assert_eq!(w.cwnd, 75_000);
        assert_eq!(w.ssthresh, 75_000);
    }
}
