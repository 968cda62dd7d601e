//! The receiving half of a TCP endpoint: reassembly, acknowledgments, SACK blocks, ECN echo.
//!
//! - In-order data advances `rcv_nxt`; out-of-order data is kept as disjoint intervals. The
//!   application reads in-order data at once and the advertised window is the whole buffer: it
//!   does not shrink while holes are open (as in Linux), so duplicate ACKs keep the same window
//!   and count as duplicates (RFC 5681 §2, condition e).
//! - ACK policy (RFC 1122 §4.2.3.2, RFC 5681 §4.2): with delayed ACKs, acknowledge at least every
//!   `count`-th full segment and within `timeout`; acknowledge at once a segment that is out of
//!   order, a duplicate, or fills a hole. Without delayed ACKs, every segment is acknowledged.
//! - SACK blocks (RFC 2018 §4): the first block holds the most recently received segment, the
//!   others repeat the most recently reported blocks.
//! - Timestamps (RFC 7323 §4.3): `TS.Recent`, the `TSval` the next ACK echoes, is taken from a
//!   segment not above the last acknowledgment sent (`tcp::timestamps`).
//! - ECN echo: classic (RFC 3168 §6.1.3) sets ECE on every ACK from a CE arrival until a CWR
//!   arrives; DCTCP (RFC 8257 §3.2) echoes exactly the CE state of the data acknowledged,
//!   sending an ACK at once when that state changes so that no change is hidden by a delayed ACK.

use std::collections::VecDeque;

use crate::net::packet::{SackBlock, SackList};
use crate::units::SimTime;

/// How the receiver echoes congestion experienced.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum EcnEcho {
    #[default]
    Off,
    Classic,
    Dctcp,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DelayedAck {
    /// Acknowledge at least every this many full-sized segments (RFC 1122: 2).
    pub count: u32,
    /// …and no later than this after the first unacknowledged one.
    pub timeout: SimTime,
}

/// What the arrival of a segment means for acknowledgment.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AckNeed {
    /// Nothing new to acknowledge (e.g. a pure ACK arrived).
    None,
    /// Acknowledge by the delayed-ACK deadline.
    Delayed,
    /// Acknowledge now.
    Now,
}

/// Fields in the order an in-order segment reads them (`repr(C)` keeps it): what every data
/// segment and its ACK read first, then out-of-order and cut state, then counters.
#[derive(Clone, Debug)]
#[repr(C)]
pub struct Receiver {
    /// Next sequence number expected.
    pub rcv_nxt: u64,
    /// Bytes of payload delivered in order.
    pub delivered_bytes: u64,
    buf_bytes: u64,
    /// `rcv_nxt` when the last ACK was sent (Linux's `rcv_wup`, RFC 7323's Last.ACK.sent).
    rcv_wup: u64,
    /// RFC 7323 `TS.Recent`: the timestamp the next segment echoes.
    ts_recent: u32,
    /// Sequence number of the peer's FIN, once seen.
    pub fin_seq: Option<u64>,
    /// Out-of-order intervals above `rcv_nxt`, sorted and disjoint.
    ooo: Vec<SackBlock>,
    delayed: Option<DelayedAck>,
    pub delack_at: Option<SimTime>,
    /// Segments received since the last ACK was sent.
    unacked_segs: u32,
    ecn: EcnEcho,
    ack_now: bool,
    /// Classic: echo ECE until CWR. DCTCP: CE state of the last data received.
    ece: bool,
    pub fin_received: bool,
    /// A D-SACK block is owed (`dsack_block`): read on every segment sent, so kept here.
    dsack_owed: bool,
    /// DCTCP: an ACK owed for the data before a CE change, with the old ECE value.
    flush: Option<(u64, bool)>,
    /// Loss reports owed, one per cut segment, oldest first: sent with the next segments (at
    /// once), as many per segment as its SACK option has room for.
    reports: VecDeque<SackBlock>,
    ooo_bytes: u64,
    /// Sequence numbers of recently received out-of-order segments, most recent first; each
    /// stands for the interval that now contains it.
    recent: [u64; 4],
    recent_len: usize,
    /// Duplicate segments received: data all below `rcv_nxt` or all already held out of
    /// order. The network never duplicates, so each is a spurious retransmission (or the late
    /// original of one).
    pub dup_segments: u64,
    /// Cut segments received (payload cut off by a router).
    pub cut_segments: u64,
    /// SACK blocks cover the FIN's sequence number once the FIN has arrived (Linux's
    /// `tcp_data_queue_ofo` SACKs a segment's `end_seq`, FIN included). Off: blocks end at
    /// the payload, so a FIN-carrying segment is never SACKed.
    sack_fin: bool,
    /// Report duplicate segments in D-SACK blocks (RFC 2883; Linux's `tcp_dsack`, on).
    dsack: bool,
    /// The last duplicate received since the last ACK, to report first in the next one.
    dsack_block: SackBlock,
}

impl Receiver {
    pub fn new(buf_bytes: u64, delayed: Option<DelayedAck>, ecn: EcnEcho) -> Receiver {
        Receiver {
            rcv_nxt: 0,
            rcv_wup: 0,
            ts_recent: 0,
            ooo: Vec::new(),
            ooo_bytes: 0,
            recent: [0; 4],
            recent_len: 0,
            delivered_bytes: 0,
            fin_seq: None,
            fin_received: false,
            buf_bytes,
            delayed,
            ecn,
            unacked_segs: 0,
            ack_now: false,
            delack_at: None,
            ece: false,
            flush: None,
            dup_segments: 0,
            reports: VecDeque::new(),
            cut_segments: 0,
            sack_fin: false,
            dsack: false,
            dsack_owed: false,
            dsack_block: SackBlock::default(),
        }
    }

    pub fn set_ecn(&mut self, ecn: EcnEcho) {
        self.ecn = ecn;
    }

    /// The peer's SYN was received: data starts after it.
    pub fn on_syn(&mut self, seq: u64) {
        self.rcv_nxt = seq + 1;
        self.ack_now = true;
    }

    /// A segment starting at `seq` carried the timestamp `ts_val` (RFC 7323 §4.3): it becomes
    /// `TS.Recent` if the segment is not above the last acknowledgment sent and the clock did
    /// not go back. Call before the segment itself.
    pub fn on_timestamp(&mut self, seq: u64, ts_val: u32) {
        if seq <= self.rcv_wup && super::timestamps::at_or_after(ts_val, self.ts_recent) {
            self.ts_recent = ts_val;
        }
    }

    /// The timestamp to echo (`TSecr`) on the next segment.
    pub fn ts_recent(&self) -> u32 {
        self.ts_recent
    }

    /// Advertised window.
    pub fn window(&self) -> u32 {
        self.buf_bytes.min(u32::MAX as u64) as u32
    }

    /// A segment occupying `[seq, seq+len)` (payload, then FIN if `fin`) arrived.
    pub fn on_segment(
        &mut self,
        now: SimTime,
        seq: u64,
        len: u32,
        fin: bool,
        ce: bool,
        cwr: bool,
    ) -> AckNeed {
        let len = len as u64;
        self.update_ecn(ce, cwr, len > 0 || fin);
        if len == 0 && !fin {
            return AckNeed::None;
        }
        if fin {
            self.fin_seq = Some(seq + len);
        }
        let end = seq + len;
        let need = if end + fin as u64 <= self.rcv_nxt {
            // A bare FIN's copy is its sequence number: in a block only with `sack_fin`.
            self.on_duplicate(seq, end + (fin && self.sack_fin) as u64);
            AckNeed::Now
        } else if seq > self.rcv_nxt {
            let before = self.ooo_bytes;
            self.insert_ooo(seq, end);
            if self.ooo_bytes == before && len > 0 {
                self.on_duplicate(seq, end);
            }
            AckNeed::Now
        } else {
            let had_holes = !self.ooo.is_empty();
            if end > self.rcv_nxt {
                self.delivered_bytes += end - self.rcv_nxt;
                self.rcv_nxt = end;
            }
            self.pull_ooo();
            if had_holes { AckNeed::Now } else { AckNeed::Delayed }
        };
        if let Some(f) = self.fin_seq
            && self.rcv_nxt == f
            && !self.fin_received
        {
            self.rcv_nxt += 1;
            self.fin_received = true;
            return self.need(now, AckNeed::Now);
        }
        self.need(now, need)
    }

    fn update_ecn(&mut self, ce: bool, cwr: bool, carries_data: bool) {
        match self.ecn {
            EcnEcho::Off => {}
            EcnEcho::Classic => {
                if cwr {
                    self.ece = false;
                }
                if ce {
                    self.ece = true;
                }
            }
            EcnEcho::Dctcp => {
                if carries_data && ce != self.ece {
                    // RFC 8257 §3.2: acknowledge what came before the change at once, with the
                    // old ECE value (Linux: `dctcp_ece_ack_update` sends for the prior rcv_nxt).
                    if self.unacked_segs > 0 {
                        self.flush = Some((self.rcv_nxt, self.ece));
                        self.unacked_segs = 0;
                        self.delack_at = None;
                    }
                    self.ece = ce;
                }
            }
        }
    }

    fn need(&mut self, now: SimTime, need: AckNeed) -> AckNeed {
        match need {
            AckNeed::None => {}
            AckNeed::Now => {
                self.unacked_segs += 1;
                self.ack_now = true;
            }
            AckNeed::Delayed => {
                self.unacked_segs += 1;
                match self.delayed {
                    None => self.ack_now = true,
                    Some(d) => {
                        if self.unacked_segs >= d.count {
                            self.ack_now = true;
                        } else if self.delack_at.is_none() {
                            self.delack_at = Some(now + d.timeout);
                        }
                    }
                }
            }
        }
        if self.ack_now { AckNeed::Now } else { need }
    }

    /// Is an ACK due at `now`?
    pub fn ack_due(&self, now: SimTime) -> bool {
        self.ack_now || self.delack_at.is_some_and(|t| t <= now)
    }

    /// Force an ACK at the next opportunity (e.g. to answer a retransmitted SYN-ACK).
    pub fn request_ack(&mut self) {
        self.ack_now = true;
    }

    /// A segment whose payload `[seq, seq+len)` a switch cut off arrived. Owe a loss report naming
    /// the range (unless it is old data), and acknowledge at once. Its CE mark counts as a data
    /// segment's would (classic echo, and DCTCP's echo state: the congestion it met upstream
    /// of the cut is real), though it delivers nothing.
    pub fn on_cut(&mut self, now: SimTime, seq: u64, len: u32, ce: bool) -> AckNeed {
        self.cut_segments += 1;
        self.update_ecn(ce, false, len > 0);
        let end = seq + len as u64;
        if end > self.rcv_nxt && len > 0 {
            self.reports.push_back(SackBlock::lost_range(seq.max(self.rcv_nxt), end));
        }
        self.need(now, AckNeed::Now)
    }

    /// loss reports owed.
    pub fn reports_owed(&self) -> usize {
        self.reports.len()
    }

    /// The oldest loss reports owed, at most `room`, for the next segment's SACK option.
    pub fn loss_reports(&self, room: usize) -> SackList {
        let mut list = SackList::new();
        for &b in self.reports.iter().take(room) {
            list.push(b);
        }
        list
    }

    /// An ACK (pure or piggybacked) was just sent, carrying the oldest `reports_sent` loss reports owed.
    /// If more are owed, another ACK is due at once.
    pub fn on_ack_sent(&mut self, reports_sent: usize) {
        self.rcv_wup = self.rcv_nxt;
        self.reports.drain(..reports_sent.min(self.reports.len()));
        self.unacked_segs = 0;
        self.ack_now = !self.reports.is_empty();
        self.delack_at = None;
        self.dsack_owed = false;
    }

    /// A segment whose data had all arrived before: counted, and reported by the next ACK
    /// with D-SACK.
    fn on_duplicate(&mut self, seq: u64, end: u64) {
        self.dup_segments += 1;
        if self.dsack && end > seq {
            (self.dsack_owed, self.dsack_block) = (true, SackBlock { left: seq, right: end });
        }
    }

    /// With D-SACK, the duplicate to report first (RFC 2883 §4), followed by the out-of-order
    /// block that holds it, if any (§4 (2): so the sender can tell it from a SACK).
    pub fn push_dsack_blocks(&self, list: &mut SackList, max: usize) {
        if !self.dsack_owed {
            return;
        }
        let d = self.dsack_block;
        if list.len() < max
            && list.push(d)
            && let Some(b) = self.ooo.iter().find(|b| b.left <= d.left && d.right <= b.right)
            && list.len() < max
        {
            list.push(self.as_reported(*b));
        }
    }

    /// A D-SACK block is owed.
    pub fn dsack_pending(&self) -> bool {
        self.dsack_owed
    }

    /// DCTCP: an ACK `(ack, ece)` to send before anything else, for data preceding a CE change.
    pub fn take_flush(&mut self) -> Option<(u64, bool)> {
        self.flush.take()
    }

    /// ECE flag for the next ACK.
    pub fn ece(&self) -> bool {
        self.ece
    }

    /// SACK blocks for the next ACK, most recent first (RFC 2018).
    pub fn sack_blocks(&self) -> SackList {
        let mut list = SackList::new();
        self.push_sack_blocks(&mut list, crate::net::packet::MAX_SACK_BLOCKS);
        list
    }

    /// Append the SACK blocks for the next ACK to `list` until it holds `max`, skipping
    /// blocks already in it.
    pub fn push_sack_blocks(&self, list: &mut SackList, max: usize) {
        for &rep in &self.recent[..self.recent_len] {
            if list.len() >= max {
                return;
            }
            if let Some(b) = self.ooo.iter().find(|b| b.left <= rep && rep < b.right)
                && let b = self.as_reported(*b)
                && !list.as_slice().contains(&b)
                && !list.push(b)
            {
                return;
            }
        }
    }

    /// With `sack_fin` (see there).
    pub fn with_sack_fin(mut self, on: bool) -> Receiver {
        self.sack_fin = on;
        self
    }

    /// With D-SACK (see `dsack`).
    pub fn with_dsack(mut self, on: bool) -> Receiver {
        self.dsack = on;
        self
    }

    /// An out-of-order interval as a SACK block: with `sack_fin`, the one ending where the FIN
    /// sits takes in its sequence number.
    fn as_reported(&self, b: SackBlock) -> SackBlock {
        if self.sack_fin && self.fin_seq == Some(b.right) {
            SackBlock { left: b.left, right: b.right + 1 }
        } else {
            b
        }
    }

    pub fn has_ooo(&self) -> bool {
        !self.ooo.is_empty()
    }
    pub fn ooo_bytes(&self) -> u64 {
        self.ooo_bytes
    }

    fn insert_ooo(&mut self, left: u64, right: u64) {
        if right > left {
            let i = self.ooo.partition_point(|b| b.right < left);
            let mut j = i;
            let mut nb = SackBlock { left, right };
            while j < self.ooo.len() && self.ooo[j].left <= right {
                nb.left = nb.left.min(self.ooo[j].left);
                nb.right = nb.right.max(self.ooo[j].right);
                j += 1;
            }
            let removed: u64 = self.ooo[i..j].iter().map(|b| b.right - b.left).sum();
            // Mostly the segment grows one interval (the one it continues) or opens one.
            match j - i {
                0 => self.ooo.insert(i, nb),
                1 => self.ooo[i] = nb,
                _ => drop(self.ooo.splice(i..j, [nb])),
            }
            self.ooo_bytes = self.ooo_bytes - removed + (nb.right - nb.left);
        }
        // Most recent first; drop the oldest if full.
        let n = self.recent_len.min(self.recent.len() - 1);
        self.recent.copy_within(0..n, 1);
        self.recent[0] = left;
        self.recent_len = n + 1;
    }

    /// Move intervals that `rcv_nxt` has reached into the in-order stream.
    fn pull_ooo(&mut self) {
        while let Some(b) = self.ooo.first().copied() {
            if b.left > self.rcv_nxt {
                break;
            }
            self.ooo.remove(0);
            self.ooo_bytes -= b.right - b.left;
            if b.right > self.rcv_nxt {
                self.delivered_bytes += b.right - self.rcv_nxt;
                self.rcv_nxt = b.right;
            }
        }
        // Forget recency entries now below rcv_nxt.
        let mut k = 0;
        for i in 0..self.recent_len {
            if self.recent[i] >= self.rcv_nxt {
                self.recent[k] = self.recent[i];
                k += 1;
            }
        }
        self.recent_len = k;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn rx(delayed: Option<DelayedAck>) -> Receiver {
        let mut r = Receiver::new(1 << 20, delayed, EcnEcho::Off);
        r.on_syn(0);
        r.on_ack_sent(0);
        r
    }

    const DA: DelayedAck = DelayedAck { count: 2, timeout: SimTime::from_ms(40) };

    #[test]
    fn in_order_without_delayed_acks_acks_every_segment() {
        let mut r = rx(None);
        assert_eq!(r.on_segment(SimTime(0), 1, 100, false, false, false), AckNeed::Now);
        assert_eq!(r.rcv_nxt, 101);
    }

    /// A FIN-carrying segment out of order: with `sack_fin` its block takes in the FIN's
    /// sequence number (as Linux's), without it the block ends at the payload; the FIN is
    /// delivered in order either way.
    #[test]
    fn a_fin_out_of_order_is_sacked_with_its_sequence_number() {
        for on in [true, false] {
            let mut r = rx(None).with_sack_fin(on);
            r.on_segment(SimTime(0), 101, 100, true, false, false);
            let right = if on { 202 } else { 201 };
            assert_eq!(r.sack_blocks().as_slice(), [SackBlock { left: 101, right }]);
            r.on_segment(SimTime(1), 1, 100, false, false, false);
            assert!(r.fin_received && r.rcv_nxt == 202 && r.delivered_bytes == 200);
        }
    }

    #[test]
    fn delayed_ack_every_second_segment_or_timeout() {
        let mut r = rx(Some(DA));
        assert_eq!(r.on_segment(SimTime(0), 1, 100, false, false, false), AckNeed::Delayed);
        assert_eq!(r.delack_at, Some(SimTime::from_ms(40)));
        assert!(!r.ack_due(SimTime::from_ms(39)));
        assert!(r.ack_due(SimTime::from_ms(40)));
        assert_eq!(r.on_segment(SimTime(1), 101, 100, false, false, false), AckNeed::Now);
        r.on_ack_sent(0);
        assert!(r.delack_at.is_none());
    }

    #[test]
    fn a_cut_segment_is_answered_at_once_even_with_delayed_acks() {
        // The first segment after an ACK would wait for a second one or the timer; a cut one
        // does not: its loss report goes out at once.
        let mut r = rx(Some(DA));
        assert_eq!(r.on_cut(SimTime(1), 1, 100, false), AckNeed::Now);
        assert!(r.ack_due(SimTime(1)));
        let reports = r.loss_reports(4);
        assert_eq!(reports.len(), 1);
        assert_eq!(reports.as_slice()[0].as_lost_range(), Some((1, 101)));
    }

    #[test]
    fn packs_beyond_one_options_room_wait_for_the_next_ack() {
        // Five cut segments before the ACK goes out: three fit beside timestamps, two follow.
        let mut r = rx(None);
        for i in 0..5u64 {
            r.on_cut(SimTime(1), 1 + 100 * i, 100, false);
        }
        let first = r.loss_reports(3);
        assert_eq!(first.len(), 3);
        assert_eq!(first.as_slice()[0].as_lost_range(), Some((1, 101)));
        r.on_ack_sent(3);
        assert!(r.ack_due(SimTime(1)), "the rest go at once");
        let rest = r.loss_reports(3);
        assert_eq!(rest.len(), 2);
        assert_eq!(rest.as_slice()[1].as_lost_range(), Some((401, 501)));
        r.on_ack_sent(2);
        assert!(!r.ack_due(SimTime(1)));
        assert_eq!(r.reports_owed(), 0);
    }

    #[test]
    fn a_ce_mark_on_a_cut_segment_sets_dctcps_echo() {
        let mut r = Receiver::new(1 << 20, None, EcnEcho::Dctcp);
        r.on_cut(SimTime(1), 1, 100, true);
        assert!(r.ece(), "the congestion the segment met before it was cut is echoed");
    }

    #[test]
    fn out_of_order_is_acked_at_once_with_sack_blocks_most_recent_first() {
        let mut r = rx(Some(DA));
        assert_eq!(r.on_segment(SimTime(0), 201, 100, false, false, false), AckNeed::Now);
        assert_eq!(r.on_segment(SimTime(0), 501, 100, false, false, false), AckNeed::Now);
        let s = r.sack_blocks();
        assert_eq!(s.as_slice(), &[SackBlock { left: 501, right: 601 }, SackBlock { left: 201, right: 301 }]);
        // Extending the older block brings it to the front.
        r.on_segment(SimTime(0), 301, 100, false, false, false);
        assert_eq!(r.sack_blocks().as_slice()[0], SackBlock { left: 201, right: 401 });
        assert_eq!(r.ooo_bytes(), 300);
        // Filling the hole delivers everything contiguous.
        assert_eq!(r.on_segment(SimTime(0), 1, 200, false, false, false), AckNeed::Now);
        assert_eq!(r.rcv_nxt, 401);
        assert_eq!(r.delivered_bytes, 400);
        assert_eq!(r.sack_blocks().as_slice(), &[SackBlock { left: 501, right: 601 }]);
    }

    #[test]
    fn a_duplicate_is_reported_first_in_the_next_ack_with_dsack() {
        let dsack_blocks = |r: &Receiver| {
            let mut list = SackList::new();
            r.push_dsack_blocks(&mut list, 3);
            list.as_slice().to_vec()
        };
        let mut r = rx(None).with_dsack(true);
        r.on_segment(SimTime(0), 1, 100, false, false, false);
        r.on_ack_sent(0);
        r.on_segment(SimTime(0), 1, 100, false, false, false);
        assert_eq!(dsack_blocks(&r), [SackBlock { left: 1, right: 101 }], "below the cumulative ACK");
        r.on_ack_sent(0);
        assert!(dsack_blocks(&r).is_empty(), "reported once");
        // Within held out-of-order data: the block that holds it follows (RFC 2883 §4 (2)).
        r.on_segment(SimTime(0), 201, 100, false, false, false);
        r.on_segment(SimTime(0), 301, 100, false, false, false);
        r.on_segment(SimTime(0), 201, 100, false, false, false);
        assert_eq!(
            dsack_blocks(&r),
            [SackBlock { left: 201, right: 301 }, SackBlock { left: 201, right: 401 }]
        );
        let mut off = rx(None);
        off.on_segment(SimTime(0), 1, 100, false, false, false);
        off.on_segment(SimTime(0), 1, 100, false, false, false);
        assert!(dsack_blocks(&off).is_empty(), "without D-SACK");
    }

    /// A second copy of a bare FIN (a resent FIN the first copy of which arrived) is a
    /// duplicate of one sequence number: D-SACKed as that number where SACK blocks cover the
    /// FIN, else not D-SACKed at all; never as an empty block, which would end the list.
    #[test]
    fn a_duplicate_bare_fin_is_dsacked_as_its_sequence_number_or_not_at_all() {
        for sack_fin in [true, false] {
            let mut r = rx(None).with_dsack(true).with_sack_fin(sack_fin);
            r.on_segment(SimTime(0), 1, 100, false, false, false);
            r.on_segment(SimTime(0), 101, 0, true, false, false);
            r.on_ack_sent(0);
            assert_eq!(r.on_segment(SimTime(0), 101, 0, true, false, false), AckNeed::Now);
            assert_eq!(r.dup_segments, 1);
            let mut list = SackList::new();
            r.push_dsack_blocks(&mut list, 3);
            let expected: &[SackBlock] = if sack_fin { &[SackBlock { left: 101, right: 102 }] } else { &[] };
            assert_eq!(list.as_slice(), expected, "sack_fin {sack_fin}");
        }
    }

    #[test]
    fn duplicate_is_acked_at_once_and_counted() {
        let mut r = rx(Some(DA));
        r.on_segment(SimTime(0), 1, 100, false, false, false);
        r.on_ack_sent(0);
        assert_eq!(r.on_segment(SimTime(0), 1, 100, false, false, false), AckNeed::Now);
        assert_eq!(r.dup_segments, 1);
        // Out of order: a second copy of held data is a duplicate, new data beside it is not.
        r.on_segment(SimTime(0), 201, 100, false, false, false);
        r.on_segment(SimTime(0), 201, 100, false, false, false);
        assert_eq!(r.dup_segments, 2);
        r.on_segment(SimTime(0), 251, 100, false, false, false);
        assert_eq!(r.dup_segments, 2, "partly new");
    }

    #[test]
    fn fin_consumes_a_sequence_number() {
        let mut r = rx(None);
        r.on_segment(SimTime(0), 1, 100, true, false, false);
        assert!(r.fin_received);
        assert_eq!(r.rcv_nxt, 102);
        assert_eq!(r.delivered_bytes, 100);
    }

    #[test]
    fn classic_ecn_echoes_until_cwr() {
        let mut r = Receiver::new(1 << 20, None, EcnEcho::Classic);
        r.on_syn(0);
        r.on_segment(SimTime(0), 1, 100, false, true, false);
        assert!(r.ece());
        r.on_segment(SimTime(0), 101, 100, false, false, false);
        assert!(r.ece(), "keeps echoing");
        r.on_segment(SimTime(0), 201, 100, false, false, true);
        assert!(!r.ece(), "CWR stops the echo");
    }

    #[test]
    fn dctcp_echo_follows_ce_and_flushes_on_change() {
        let mut r = Receiver::new(1 << 20, Some(DA), EcnEcho::Dctcp);
        r.on_syn(0);
        r.on_ack_sent(0);
        assert_eq!(r.on_segment(SimTime(0), 1, 100, false, false, false), AckNeed::Delayed);
        // CE arrives while one segment is unacknowledged: the earlier segment is acknowledged
        // at once with the old (clear) ECE, and the CE segment starts a new delayed ACK.
        assert_eq!(r.on_segment(SimTime(0), 101, 100, false, true, false), AckNeed::Delayed);
        assert_eq!(r.take_flush(), Some((101, false)));
        assert!(r.ece());
        r.on_ack_sent(0);
        r.on_segment(SimTime(0), 201, 100, false, false, false);
        assert!(!r.ece());
    }

    proptest! {
        /// Segments arriving in any order, overlapping or not: the receiver holds what a
        /// byte-by-byte model holds (the in-order point, the bytes held above it), and its SACK
        /// blocks are whole runs of held bytes, apart, the first holding the latest segment
        /// received out of order.
        #[test]
        fn reassembly_matches_a_byte_model(segs in proptest::collection::vec((1u64..400, 1u32..60), 1..60)) {
            let mut r = rx(None);
            let mut held = vec![false; 500];
            for (seq, len) in segs {
                let end = (seq + len as u64).min(held.len() as u64);
                let out_of_order = seq > r.rcv_nxt;
                r.on_segment(SimTime(0), seq, (end - seq) as u32, false, false, false);
                held[seq as usize..end as usize].fill(true);
                let rcv_nxt = (1..held.len()).find(|&i| !held[i]).unwrap_or(held.len()) as u64;
                prop_assert_eq!(r.rcv_nxt, rcv_nxt);
                prop_assert_eq!(r.delivered_bytes, rcv_nxt - 1);
                prop_assert_eq!(r.ooo_bytes(), held[rcv_nxt as usize..].iter().filter(|&&h| h).count() as u64);
                let blocks = r.sack_blocks();
                for b in blocks.as_slice() {
                    prop_assert!(b.left > rcv_nxt && b.left < b.right);
                    prop_assert!(held[b.left as usize..b.right as usize].iter().all(|&h| h));
                    prop_assert!(!held[b.left as usize - 1], "a block starts a run");
                    prop_assert!(b.right as usize == held.len() || !held[b.right as usize], "and ends it");
                }
                if out_of_order && end > seq {
                    let first = blocks.as_slice()[0];
                    prop_assert!(first.left <= seq && seq < first.right);
                }
            }
        }
    }
}
