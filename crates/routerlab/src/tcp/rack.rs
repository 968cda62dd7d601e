//! RACK-TLP (RFC 8985), as Linux runs it (`net/ipv4/tcp_recovery.c`, `tcp_send_loss_probe`):
//! loss detection by time instead of by counting duplicate ACKs, and a probe that turns a
//! tail loss into a SACK.
//!
//! **RACK** remembers the most recently sent segment that has been delivered (SACKed or
//! cumulatively acknowledged): its send time, its end and the RTT it measured. A segment sent
//! before it and still in flight is lost once that RTT plus a reordering window has passed
//! since it was sent ([`crate::tcp::scoreboard::Scoreboard::mark_lost_by_time`]). The window is
//! a quarter of the minimum RTT, at most SRTT; it is zero in a recovery, or once `dupthresh`
//! segments are SACKed, as long as no reordering has been seen (Linux's `tcp_rack_reo_wnd`).
//! A segment still within its window is checked again by the reordering timer. Because
//! retransmissions carry their own send time, a lost retransmission is found the same way.
//!
//! **TLP**: with SACK, in the open or CWR state, when 2·SRTT (plus Linux's timer slack, or
//! the worst-case delayed ACK with one segment in flight) passes without an ACK, and before
//! the RTO, one probe goes out: a new segment if the peer's window takes one, else the last
//! segment again. Its ACK or SACK lets RACK find the losses of the tail in a fast recovery
//! instead of a timeout. When the ACK that follows shows the probe repaired a loss, the
//! window is reduced once (Linux's `tcp_process_tlp_ack`).
//!
//! With D-SACK (RFC 2883) the reordering window grows by a quarter of the minimum RTT per
//! round trip that reports a duplicate, up to SRTT, and shrinks back after 16 recoveries
//! without one. TLP's test that both copies of a probed segment arrived is the pure
//! duplicate ACK the probe draws (its D-SACK is not read apart, unlike Linux's
//! `FLAG_DSACK_TLP`). Not modelled: Linux's adaptive `tp->reordering`.

use super::scoreboard::Latest;
use crate::units::SimTime;

/// Recoveries that keep a reordering window grown by D-SACKs (RFC 8985 §6.2 step 4; Linux's
/// `TCP_RACK_RECOVERY_THRESH`).
pub const REO_WND_PERSIST: u8 = 16;

/// RACK's reordering window is this fraction of the minimum RTT (RFC 8985 §6.2 step 4:
/// `RACK.min_RTT / 4`; Linux's `tcp_rack_reo_wnd`: `tcp_min_rtt(tp) >> 2`).
pub const REO_WND_MIN_RTT_DIVISOR: u64 = 4;

/// RACK's state for one sender (RFC 8985 §6.1's `RACK.xmit_ts`, `RACK.end_seq`, `RACK.rtt`,
/// `RACK.reordering_seen`).
#[derive(Clone, Copy, Debug, Default)]
pub struct Rack {
    /// Send time and end of the most recently sent segment delivered.
    latest: Option<(SimTime, u64)>,
    /// The RTT measured by the most recently sent segment of the last ACK that delivered one.
    rtt: SimTime,
    /// A segment never retransmitted was delivered below one delivered earlier.
    reordering_seen: bool,
    /// `latest` or `rtt` changed since the last detection (Linux's `rack.advanced`).
    advanced: bool,
    /// The reordering window in quarters of the minimum RTT (`RACK.reo_wnd_mult`): grown by
    /// one per round trip that brings a D-SACK, back to one after `REO_WND_PERSIST`
    /// recoveries without.
    reo_wnd_mult: u8,
    reo_wnd_persist: u8,
    /// `snd_nxt` when the window last grew: a D-SACK counts again once SND.UNA passes it
    /// (`RACK.dsack_round`).
    dsack_round: Option<u64>,
}

impl Rack {
    /// An ACK newly delivered these segments (RFC 8985 §6.2 steps 2 and 3). A retransmitted
    /// segment whose RTT would be shorter than the minimum RTT was delivered by an earlier
    /// copy, and tells nothing of its last send (ignored, as Linux's `tcp_rack_advance`); so
    /// is one whose ACK echoes a timestamp older than its last send (the caller's test).
    #[inline]
    pub fn on_delivered(&mut self, now: SimTime, latest: &Latest, min_rtt: Option<SimTime>) {
        self.reordering_seen |= latest.reordering;
        let credible = |&(sent, _): &(SimTime, u64)| min_rtt.is_some_and(|m| now.saturating_sub(sent) >= m);
        let retransmitted = latest.retransmitted.filter(credible);
        let Some(newest) = latest.original.max(retransmitted) else { return };
        self.rtt = now.saturating_sub(newest.0);
        self.advanced = true;
        if self.latest.is_none_or(|l| newest > l) {
            self.latest = Some(newest);
        }
    }

    /// What a detection compares with, if the state advanced since the last: the most
    /// recently sent segment delivered, and the RTT it measured. Consumes the advance.
    pub fn take_advance(&mut self) -> Option<((SimTime, u64), SimTime)> {
        if !self.advanced {
            return None;
        }
        self.advanced = false;
        self.reference()
    }

    /// The most recently sent segment delivered and the RTT it measured, if one was.
    pub fn reference(&self) -> Option<((SimTime, u64), SimTime)> {
        self.latest.map(|l| (l, self.rtt))
    }

    /// The reordering window (RFC 8985 §6.2 step 4, Linux's `tcp_rack_reo_wnd`): none in a
    /// recovery or once `dupthresh` segments are SACKed, unless reordering was seen; else a
    /// quarter of the minimum RTT per step (one, more after D-SACKs), at most SRTT.
    pub fn reo_wnd(
        &self,
        in_recovery: bool,
        sacked_segments: usize,
        dupthresh: u32,
        min_rtt: Option<SimTime>,
        srtt: Option<SimTime>,
    ) -> SimTime {
        if !self.reordering_seen && (in_recovery || sacked_segments >= dupthresh as usize) {
            return SimTime::ZERO;
        }
        let Some(min_rtt) = min_rtt else { return SimTime::ZERO };
        let window = SimTime(min_rtt.0 / REO_WND_MIN_RTT_DIVISOR * self.mult() as u64);
        srtt.map_or(window, |s| window.min(s))
    }

    /// An ACK arrived, with or without a D-SACK (RFC 8985 §6.2 step 4, `RACK_update_reo_wnd`):
    /// the first D-SACK of a round trip widens the reordering window by a step — a duplicate
    /// is a retransmission the window was too short to avoid.
    pub fn on_ack(&mut self, dsack: bool, snd_una: u64, snd_nxt: u64) {
        if self.dsack_round.is_some_and(|r| snd_una >= r) {
            self.dsack_round = None;
        }
        if dsack && self.dsack_round.is_none() {
            self.dsack_round = Some(snd_nxt);
            self.reo_wnd_mult = self.mult().saturating_add(1);
            self.reo_wnd_persist = REO_WND_PERSIST;
        }
    }

    /// A fast or timeout recovery ended: after `REO_WND_PERSIST` of them with no D-SACK, the
    /// window is back to one step.
    pub fn on_recovery_exit(&mut self) {
        self.reo_wnd_persist = self.reo_wnd_persist.saturating_sub(1);
        if self.reo_wnd_persist == 0 {
            self.reo_wnd_mult = 1;
        }
    }

    /// Steps of the reordering window (at least one).
    fn mult(&self) -> u8 {
        self.reo_wnd_mult.max(1)
    }
}

/// A tail loss probe outstanding (Linux's `tlp_high_seq` and `tlp_retrans`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Probe {
    /// `snd_nxt` when the probe was sent.
    pub high_seq: u64,
    /// The probe resent the last segment (rather than sending new data).
    pub resent: bool,
}

/// What an ACK says of an outstanding probe (Linux's `tcp_process_tlp_ack`, without DSACK).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ProbeOutcome {
    /// Nothing yet: the probe stays outstanding.
    Pending,
    /// The episode is over with no loss shown: new data acknowledged, or a duplicate ACK
    /// that the probe's copy of a segment already delivered drew.
    NoLoss,
    /// The ACK passed the probe's `high_seq` after a resent probe: the original was lost and
    /// the probe repaired it; the window is to be reduced once.
    Repaired,
}

impl Probe {
    /// `advanced`: SND.UNA moved; `duplicate`: a pure duplicate ACK (no data, no new SACK).
    pub fn on_ack(&self, ack: u64, advanced: bool, duplicate: bool) -> ProbeOutcome {
        if ack < self.high_seq {
            ProbeOutcome::Pending
        } else if !self.resent {
            ProbeOutcome::NoLoss
        } else if ack > self.high_seq {
            ProbeOutcome::Repaired
        } else if !advanced && duplicate {
            ProbeOutcome::NoLoss
        } else {
            ProbeOutcome::Pending
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn latest(original: Option<(u64, u64)>, retransmitted: Option<(u64, u64)>) -> Latest {
        let t = |o: Option<(u64, u64)>| o.map(|(s, e)| (SimTime(s), e));
        Latest { original: t(original), retransmitted: t(retransmitted), reordering: false }
    }

    #[test]
    fn the_reference_is_the_most_recently_sent_delivered_segment() {
        let mut r = Rack::default();
        r.on_delivered(SimTime(100), &latest(Some((40, 5)), None), Some(SimTime(50)));
        assert_eq!(r.take_advance(), Some(((SimTime(40), 5), SimTime(60))));
        assert_eq!(r.take_advance(), None, "consumed");
        // An older segment delivered later: its RTT is taken, the reference stays.
        r.on_delivered(SimTime(120), &latest(Some((30, 3)), None), Some(SimTime(50)));
        assert_eq!(r.take_advance(), Some(((SimTime(40), 5), SimTime(90))));
    }

    #[test]
    fn a_retransmission_acknowledged_sooner_than_the_minimum_rtt_is_ignored() {
        let mut r = Rack::default();
        r.on_delivered(SimTime(100), &latest(None, Some((80, 9))), Some(SimTime(50)));
        assert_eq!(r.take_advance(), None, "20 < min RTT 50: the original was acknowledged");
        r.on_delivered(SimTime(140), &latest(None, Some((80, 9))), Some(SimTime(50)));
        assert_eq!(r.take_advance(), Some(((SimTime(80), 9), SimTime(60))));
    }

    #[test]
    fn the_reordering_window_is_zero_in_recovery_until_reordering_is_seen() {
        let mut r = Rack::default();
        let (min_rtt, srtt) = (Some(SimTime(400)), Some(SimTime(1000)));
        assert_eq!(r.reo_wnd(false, 1, 3, min_rtt, srtt), SimTime(100));
        assert_eq!(r.reo_wnd(true, 1, 3, min_rtt, srtt), SimTime::ZERO);
        assert_eq!(r.reo_wnd(false, 3, 3, min_rtt, srtt), SimTime::ZERO);
        assert_eq!(r.reo_wnd(false, 1, 3, min_rtt, Some(SimTime(60))), SimTime(60), "at most SRTT");
        r.on_delivered(SimTime(10), &Latest { reordering: true, ..Latest::default() }, min_rtt);
        assert_eq!(r.reo_wnd(true, 5, 3, min_rtt, srtt), SimTime(100));
    }

    #[test]
    fn a_probe_of_new_data_ends_without_loss_a_resent_one_shows_a_repair_beyond_it() {
        let new = Probe { high_seq: 100, resent: false };
        assert_eq!(new.on_ack(90, true, false), ProbeOutcome::Pending);
        assert_eq!(new.on_ack(100, true, false), ProbeOutcome::NoLoss);
        let resent = Probe { high_seq: 100, resent: true };
        assert_eq!(resent.on_ack(100, true, false), ProbeOutcome::Pending);
        assert_eq!(resent.on_ack(100, false, true), ProbeOutcome::NoLoss, "the probe's duplicate");
        assert_eq!(resent.on_ack(150, true, false), ProbeOutcome::Repaired);
    }
}
