//! TCP timestamps (RFC 7323): the option's clock, and round-trip times from its echoes.
//!
//! - Every segment of a connection that negotiated the option (both SYNs carried it) carries
//!   `TSval`, the sender's timestamp clock, and `TSecr`, the receiver's `TS.Recent` (§3).
//! - `TS.Recent` takes the `TSval` of a segment that is not above the last acknowledgment sent
//!   (§4.3; Linux's `tcp_replace_ts_recent` with `rcv_wup`): an in-order segment, or the
//!   retransmission that fills a hole; not one that arrives out of order. With delayed ACKs an
//!   ACK thus echoes the earliest segment it acknowledges. (The receiver keeps it:
//!   [`super::receiver::Receiver::on_timestamp`].)
//! - Round-trip times, as Linux takes them (`tcp_ack_update_rtt`): from the send time of the
//!   oldest newly acknowledged segment when none of them was ever retransmitted (Karn's rule),
//!   exact; otherwise, on an ACK that advances `snd_una`, from the echo: the clock's ticks since
//!   `TSecr`, at least one. The echo makes the sample unambiguous, so it also comes after a
//!   timeout (and the RTO's backoff collapses on the first ACK of the retransmission, RFC 6298
//!   §5.7 being met by a valid sample) and from a SYN-ACK that answers a retransmitted SYN.
//!
//! The clock ticks every `tick` (Linux: 1 ms, `TCP_TS_HZ`; ns-3: 1 ms). It reads 1 at time
//! zero: Linux adds a random per-connection offset, and reads a zero echo as "none".

use crate::units::SimTime;

/// The timestamp clock of one endpoint.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TsClock {
    pub tick: SimTime,
}

impl TsClock {
    /// `TSval` at `now`.
    #[inline]
    pub fn value(self, now: SimTime) -> u32 {
        (now.0 / self.tick.0.max(1)).wrapping_add(1) as u32
    }

    /// The round-trip time an echo of `ecr` gives at `now`: whole ticks since it was sent, at
    /// least one (Linux's `tcp_rtt_tsopt_us`); `None` for no echo (0) or one from the future.
    pub fn rtt_from_echo(self, now: SimTime, ecr: u32) -> Option<SimTime> {
        if ecr == 0 {
            return None;
        }
        let ticks = self.value(now).wrapping_sub(ecr);
        if ticks > i32::MAX as u32 {
            return None;
        }
        Some(SimTime(self.tick.0.saturating_mul(ticks.max(1) as u64)))
    }
}

/// `a` is at or after `b` in the clock's modular order (RFC 7323 §5.2).
#[inline]
pub fn at_or_after(a: u32, b: u32) -> bool {
    a.wrapping_sub(b) <= i32::MAX as u32
}

#[cfg(test)]
mod tests {
    use super::*;

    const MS: TsClock = TsClock { tick: SimTime::from_ms(1) };

    #[test]
    fn the_clock_counts_ticks_from_one() {
        assert_eq!(MS.value(SimTime::ZERO), 1);
        assert_eq!(MS.value(SimTime::from_us(999)), 1);
        assert_eq!(MS.value(SimTime::from_ms(1)), 2);
        assert_eq!(MS.value(SimTime::from_secs(10)), 10_001);
    }

    #[test]
    fn an_echo_gives_whole_ticks_and_at_least_one() {
        let sent = MS.value(SimTime::from_us(10_400));
        assert_eq!(MS.rtt_from_echo(SimTime::from_us(30_100), sent), Some(SimTime::from_ms(20)));
        // A 100 µs round trip within one tick reads as one tick, as in Linux.
        assert_eq!(MS.rtt_from_echo(SimTime::from_us(10_500), sent), Some(SimTime::from_ms(1)));
        assert_eq!(MS.rtt_from_echo(SimTime::from_ms(5), 0), None, "no echo");
        assert_eq!(MS.rtt_from_echo(SimTime::from_ms(5), sent), None, "an echo from the future");
    }

    #[test]
    fn order_wraps() {
        assert!(at_or_after(5, 5) && at_or_after(6, 5) && !at_or_after(5, 6));
        assert!(at_or_after(2, u32::MAX - 1), "after the wrap");
    }
}
