//! NewReno's window rules (RFC 5681 §3.1; recovery itself is the socket's, RFC 6582).
//!
//! - Slow start: cwnd grows by the bytes acknowledged, up to ssthresh (Linux's
//!   `tcp_slow_start`; RFC 3465 byte counting without the L cap, so delayed ACKs do not slow
//!   slow start). What is left over after reaching ssthresh counts towards avoidance.
//! - Congestion avoidance: one SMSS per window's worth of acknowledged bytes (byte counting,
//!   RFC 3465 §2.1), done in integers.
//! - `RenoIncrease::PerAck` grows as ns-3's `TcpNewReno` does instead: one SMSS per ACK in slow
//!   start (RFC 5681 eq. 2) and SMSS²/cwnd per ACK, at least one byte, in avoidance (eq. 3),
//!   whatever the ACK covers. At small windows that is slower than one SMSS per window (the
//!   increments shrink as cwnd grows within the window): a flow at 2 segments needs 3 ACKs to
//!   reach 3, one at 3 needs 4.
//! - Loss: ssthresh = max(FlightSize / 2, 2·SMSS) (RFC 5681 eq. 4).
//! - The window only grows while it is the limit on sending (RFC 7661's concern; Linux's
//!   `tcp_is_cwnd_limited`).

use super::{AckSample, CongestionControl, Window};
use crate::units::SimTime;

/// How NewReno's window grows on an ACK of new data.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum RenoIncrease {
    /// By the bytes acknowledged (RFC 3465; Linux's `tcp_slow_start`, `tcp_cong_avoid_ai`).
    #[default]
    Bytes,
    /// Per ACK, whatever it covers (RFC 5681 eq. 2 and 3; ns-3's `TcpNewReno`).
    PerAck,
}

#[derive(Clone, Debug, Default)]
pub struct NewReno {
    /// Bytes acknowledged towards the next one-SMSS increase in congestion avoidance; with
    /// `PerAck`, bytes short of a whole segment not yet counted as one.
    acked_acc: u64,
    increase: RenoIncrease,
}

impl NewReno {
    pub fn new(increase: RenoIncrease) -> NewReno {
        NewReno { acked_acc: 0, increase }
    }
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

/// ns-3's `TcpNewReno::IncreaseWindow`: the ACK's whole segments (bytes short of one carried
/// over, as `TcpSocketBase` counts `segmentsAcked`); one SMSS for the first in slow start, then
/// one SMSS²/cwnd step (at least a byte) if any segment is left once cwnd reaches ssthresh.
fn per_ack_increase(w: &mut Window, short_acc: &mut u64, acked: u64) {
    *short_acc += acked;
    let mut segments = *short_acc / w.mss;
    *short_acc -= segments * w.mss;
    if segments == 0 {
        return;
    }
    if w.cwnd < w.ssthresh {
        w.cwnd += w.mss;
        segments -= 1;
    }
    if w.cwnd >= w.ssthresh && segments > 0 {
        w.cwnd += (w.mss * w.mss / w.cwnd).max(1);
    }
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
        if !ack.cwnd_limited {
            return;
        }
        match self.increase {
            RenoIncrease::Bytes => reno_increase(w, &mut self.acked_acc, ack.delivered_bytes),
            RenoIncrease::PerAck => per_ack_increase(w, &mut self.acked_acc, ack.delivered_bytes),
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
    fn per_ack_growth_counts_acks_not_bytes() {
        // Slow start: one SMSS per ACK, though each ACK covers two segments.
        let mut cc = NewReno::new(RenoIncrease::PerAck);
        let mut w = Window { cwnd: 2 * 1000, ssthresh: u64::MAX, mss: 1000 };
        cc.on_ack(&mut w, &ack(2000));
        assert_eq!(w.cwnd, 3000);
        // Bytes short of a segment wait for the rest.
        cc.on_ack(&mut w, &ack(500));
        assert_eq!(w.cwnd, 3000);
        cc.on_ack(&mut w, &ack(500));
        assert_eq!(w.cwnd, 4000);
        // Avoidance at 2 segments: SMSS²/cwnd per ACK, shrinking as cwnd grows, so the window
        // of 2 needs a third ACK to reach 3 (byte counting needs 2).
        let acks_to_grow = |increase| {
            let mut cc = NewReno::new(increase);
            let mut w = Window { cwnd: 2 * 1448, ssthresh: 2 * 1448, mss: 1448 };
            (1..).find(|_| {
                cc.on_ack(&mut w, &ack(1448));
                w.cwnd >= 3 * 1448
            })
        };
        assert_eq!(acks_to_grow(RenoIncrease::PerAck), Some(3));
        assert_eq!(acks_to_grow(RenoIncrease::Bytes), Some(2));
        // Far above SMSS² bytes the step would be zero: it is one byte.
        let mut w = Window { cwnd: 4_000_000, ssthresh: 0, mss: 1000 };
        cc.on_ack(&mut w, &ack(1000));
        assert_eq!(w.cwnd, 4_000_001);
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
