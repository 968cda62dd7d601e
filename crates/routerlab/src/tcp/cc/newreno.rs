//! NewReno's window rules (RFC 5681 §3.1; recovery itself is the socket's, RFC 6582).
//!
//! - Slow start: cwnd grows by the bytes acknowledged, up to ssthresh (Linux's
//!   `tcp_slow_start`; RFC 3465 byte counting without the L cap, so delayed ACKs do not slow
//!   slow start). What is left over after reaching ssthresh counts towards avoidance.
//! - Congestion avoidance: one SMSS per window's worth of acknowledged bytes (byte counting,
//!   RFC 3465 §2.1), done in integers.
//! - Loss: ssthresh = max(FlightSize / 2, 2·SMSS) (RFC 5681 eq. 4).
//! - The window only grows while it is the limit on sending (RFC 7661's concern; Linux's
//!   `tcp_is_cwnd_limited`).

use super::{AckSample, CongestionControl, Window};
use crate::units::SimTime;

#[derive(Clone, Debug, Default)]
pub struct NewReno {
    /// Bytes acknowledged towards the next one-SMSS increase in congestion avoidance.
    acked_acc: u64,
}

/// Slow start then avoidance on `acked` bytes; shared with controllers that reuse Reno growth.
pub(crate) fn reno_increase(w: &mut Window, acked_acc: &mut u64, acked: u64) {
    let in_slow_start = w.in_slow_start();
    let acked = slow_start(w, acked);
    if in_slow_start && acked == 0 {
        return;
    }
    *acked_acc += acked;
    if *acked_acc >= w.cwnd {
        let steps = *acked_acc / w.cwnd;
        *acked_acc -= steps * w.cwnd;
        w.cwnd += steps * w.mss;
    }
}

/// Slow start on `acked` bytes, up to ssthresh; returns the bytes left over for avoidance.
pub(crate) fn slow_start(w: &mut Window, acked: u64) -> u64 {
    if w.cwnd >= w.ssthresh {
        return acked;
    }
    let grow = acked.min(w.ssthresh - w.cwnd);
    w.cwnd += grow;
    acked - grow
}

/// RFC 5681 eq. 4.
pub(crate) fn half_flight(w: &Window, in_flight: u64) -> u64 {
    (in_flight / 2).max(2 * w.mss)
}

impl CongestionControl for NewReno {
    fn name(&self) -> &'static str {
        "newreno"
    }

    fn on_ack(&mut self, w: &mut Window, ack: &AckSample) {
        if ack.cwnd_limited {
            reno_increase(w, &mut self.acked_acc, ack.delivered_bytes);
        }
    }

    fn ssthresh_on_loss(&mut self, w: &Window, _now: SimTime, in_flight: u64) -> u64 {
        self.acked_acc = 0;
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
    fn slow_start_doubles_per_window_then_avoidance_adds_one_mss() {
        let mut cc = NewReno::default();
        let mut w = Window { cwnd: 10 * 1000, ssthresh: u64::MAX, mss: 1000 };
        for _ in 0..10 {
            cc.on_ack(&mut w, &ack(1000));
        }
        assert_eq!(w.cwnd, 20_000);
        w.ssthresh = 20_000;
        for _ in 0..20 {
            cc.on_ack(&mut w, &ack(1000));
        }
        assert_eq!(w.cwnd, 21_000);
    }

    #[test]
    fn slow_start_overshoot_spills_into_avoidance() {
        let mut cc = NewReno::default();
        let mut w = Window { cwnd: 9_000, ssthresh: 10_000, mss: 1000 };
        cc.on_ack(&mut w, &ack(2000));
        assert_eq!(w.cwnd, 10_000);
        assert_eq!(cc.acked_acc, 1000);
    }

    #[test]
    fn no_growth_when_application_limited() {
        let mut cc = NewReno::default();
        let mut w = Window { cwnd: 10_000, ssthresh: u64::MAX, mss: 1000 };
        cc.on_ack(&mut w, &AckSample { cwnd_limited: false, ..ack(1000) });
        assert_eq!(w.cwnd, 10_000);
    }

    #[test]
    fn loss_halves_flight_with_a_floor_of_two_segments() {
        let mut cc = NewReno::default();
        let w = Window { cwnd: 10_000, ssthresh: u64::MAX, mss: 1000 };
        assert_eq!(cc.ssthresh_on_loss(&w, SimTime::ZERO, 10_000), 5_000);
        assert_eq!(cc.ssthresh_on_loss(&w, SimTime::ZERO, 1_000), 2_000);
    }
}
