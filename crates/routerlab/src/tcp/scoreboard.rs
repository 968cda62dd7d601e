//! The sender's scoreboard: every segment between `snd_una` and `snd_max`, with what is known
//! about it (SACKed, presumed lost, retransmitted), and the pipe estimate of RFC 6675 §4.
//!
//! Segments keep the boundaries they were first sent with; a retransmission resends the same
//! range. The pipe — the bytes the sender believes are in the network — is maintained
//! incrementally: a segment contributes its length unless it is SACKed, or presumed lost and
//! not yet retransmitted. NewReno recovery (RFC 6582) uses the same board without SACK
//! information: the pipe then equals FlightSize, less segments presumed lost and not yet resent
//! (which is what go-back-N after a timeout needs).
//!
//! Loss marking follows RFC 6675's IsLost(): a segment is lost once at least `DupThresh`
//! discontiguous SACKed segments, or more than `(DupThresh − 1)·SMSS` SACKed bytes, lie above
//! it. A retransmission that is lost again is only found by the retransmission timer (as in
//! RFC 6675; Linux's RACK is not modelled).

use std::collections::VecDeque;

use crate::net::packet::{MAX_SACK_BLOCKS, SackBlock};
use crate::units::SimTime;

/// 32 bytes, two to a cache line: every ACK reads the board's oldest entry, written a round
/// trip earlier, and with a thousand flows that line has left the cache (at 48 bytes, three
/// ACKs in four missed; now one in two).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SentSegment {
    /// First sequence number.
    pub start: u64,
    /// When first sent: the RTT sample's origin, taken only if never retransmitted (Karn).
    pub first_sent_at: SimTime,
    /// Sequence numbers it spans (FIN included): a segment is at most one MSS (plus FIN).
    len: u32,
    /// The low 32 bits of `snd_nxt` when last retransmitted: data above it was sent after the
    /// retransmission. Only compared for equality with a value recorded at a retransmission of
    /// the same outstanding segment, and those lie within one window (< 2³² bytes) of each
    /// other, so the low bits decide it.
    retx_high: u32,
    /// Times sent (1 = never retransmitted).
    pub tx_count: u16,
    /// Transmissions of it that were reported lost explicitly (CP: one PACK per cut copy).
    pub explicit_losses: u16,
    pub sacked: bool,
    /// Presumed lost (by dupACKs/SACK, the timer, or an explicit notification).
    pub lost: bool,
    /// Retransmitted since it was last presumed lost.
    pub retransmitted: bool,
    pub fin: bool,
}

impl SentSegment {
    /// One past the last sequence number (FIN included).
    pub fn end(&self) -> u64 {
        self.start + self.len as u64
    }
    pub fn len(&self) -> u64 {
        self.len as u64
    }
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }
    /// Drop what lies below `seq` (a partial acknowledgment); returns the sequence numbers cut.
    fn trim_to(&mut self, seq: u64) -> u64 {
        let cut = seq.saturating_sub(self.start).min(self.len());
        self.start += cut;
        self.len -= cut as u32;
        cut
    }
    /// This segment's share of the pipe.
    fn pipe_share(&self) -> u64 {
        if self.sacked || (self.lost && !self.retransmitted) { 0 } else { self.len() }
    }
}

/// What a cumulative ACK removed from the board.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Acked {
    pub bytes: u64,
    /// Send time of the oldest newly acknowledged segment, if no newly acknowledged segment was
    /// ever retransmitted (Karn's rule: otherwise no RTT sample).
    pub rtt_from: Option<SimTime>,
    pub fin_acked: bool,
}

/// A retransmission still to be checked by lost-retransmission detection: the segment it
/// resent and `snd_nxt` at the time.
#[derive(Clone, Copy, Debug, Default)]
struct Retransmission {
    start: u64,
    retx_high: u64,
}

/// The hints and side lists below keep every operation's cost independent of the window, so
/// that a recovery in a window of thousands of segments costs no more per ACK than in one of
/// ten (the board is scanned only where it changes).
#[derive(Clone, Debug, Default)]
pub struct Scoreboard {
    segs: VecDeque<SentSegment>,
    pipe: u64,
    sacked_bytes: u64,
    /// SACKed segments on the board, and one past the highest SACKed sequence number.
    sacked_segs: usize,
    high_sacked: u64,
    /// Index below which no segment is lost-and-not-retransmitted (a scan hint).
    retx_hint: usize,
    /// Index below which every unSACKed segment is presumed lost (a scan hint).
    lost_hint: usize,
    /// Retransmissions in the order sent, hence in increasing `retx_high` (`snd_nxt` never
    /// decreases); entries whose segment was since acknowledged, SACKed or resent are stale
    /// and skipped.
    retransmissions: VecDeque<Retransmission>,
    /// SACK blocks already applied (Linux's `recv_sack_cache`): every segment wholly inside
    /// one of them is SACKed, so a block repeated by the next ACK costs nothing but its new
    /// part. Pairwise apart (not touching), and not beyond the data sent when cached.
    sack_cache: [SackBlock; MAX_SACK_BLOCKS],
    sack_cached: usize,
}

impl Scoreboard {
    /// An empty board. Its rings grow with the window (a few times per connection, never per
    /// segment) rather than being reserved: a ring sized past the window is walked round by
    /// its head and tail, every lap through lines and pages that have left the cache.
    pub fn new() -> Scoreboard {
        Scoreboard::default()
    }

    pub fn is_empty(&self) -> bool {
        self.segs.is_empty()
    }
    pub fn len(&self) -> usize {
        self.segs.len()
    }
    /// RFC 6675 pipe: bytes believed in flight.
    pub fn pipe(&self) -> u64 {
        self.pipe
    }
    pub fn sacked_bytes(&self) -> u64 {
        self.sacked_bytes
    }
    pub fn segments(&self) -> impl Iterator<Item = &SentSegment> {
        self.segs.iter()
    }
    pub fn first(&self) -> Option<&SentSegment> {
        self.segs.front()
    }

    /// Record a newly sent segment (always above everything already on the board).
    pub fn push(&mut self, start: u64, end: u64, now: SimTime, fin: bool) {
        debug_assert!(self.segs.back().is_none_or(|s| s.end() == start));
        let len = u32::try_from(end - start).expect("a segment spans less than 4 GiB");
        let seg = SentSegment {
            start,
            first_sent_at: now,
            len,
            retx_high: 0,
            tx_count: 1,
            explicit_losses: 0,
            sacked: false,
            lost: false,
            retransmitted: false,
            fin,
        };
        self.pipe += seg.len();
        self.segs.push_back(seg);
    }

    /// Remove everything below `ack`.
    pub fn ack_to(&mut self, ack: u64) -> Acked {
        let mut out = Acked::default();
        let mut karn_ok = true;
        while let Some(front) = self.segs.front_mut() {
            if front.end() <= ack {
                let seg = self.segs.pop_front().unwrap();
                self.pipe -= seg.pipe_share();
                if seg.sacked {
                    self.sacked_bytes -= seg.len();
                    self.sacked_segs -= 1;
                }
                out.bytes += seg.len();
                out.fin_acked |= seg.fin;
                if seg.tx_count > 1 {
                    karn_ok = false;
                } else if out.rtt_from.is_none() {
                    out.rtt_from = Some(seg.first_sent_at);
                }
                self.retx_hint = self.retx_hint.saturating_sub(1);
                self.lost_hint = self.lost_hint.saturating_sub(1);
            } else if front.start < ack {
                // A partial acknowledgment of a segment: trim it.
                let before = front.pipe_share();
                let cut = front.trim_to(ack);
                let after = front.pipe_share();
                self.pipe = self.pipe - before + after;
                if front.sacked {
                    self.sacked_bytes -= cut;
                }
                // The trimmed segment may now lie inside a cached block without being SACKed.
                self.sack_cached = 0;
                out.bytes += cut;
                if front.tx_count > 1 {
                    karn_ok = false;
                }
                break;
            } else {
                break;
            }
        }
        if !karn_ok {
            out.rtt_from = None;
        }
        out
    }

    /// Apply SACK blocks; returns the bytes newly SACKed. Blocks with left ≥ right (a CP PACK,
    /// or garbage) are ignored here.
    pub fn apply_sack(&mut self, blocks: &[SackBlock]) -> u64 {
        let mut newly = 0;
        for b in blocks {
            if b.left >= b.right {
                continue;
            }
            // Walk only the parts of the block outside the cached ones: each cached block cuts
            // the parts in one buffer into the other. (Not a fresh array per cut copied back:
            // the copy read in wide words the pairs just stored, a stalled store forward.)
            let mut parts = [[(0u64, 0u64); 2 * MAX_SACK_BLOCKS + 1]; 2];
            parts[0][0] = (b.left, b.right);
            let (mut cur, mut n) = (0, 1);
            for c in &self.sack_cache[..self.sack_cached] {
                let mut k = 0;
                for j in 0..n {
                    let (x, y) = parts[cur][j];
                    for part in [(x, y.min(c.left)), (x.max(c.right), y)] {
                        if part.0 < part.1 {
                            parts[1 - cur][k] = part;
                            k += 1;
                        }
                    }
                }
                (cur, n) = (1 - cur, k);
            }
            for &(x, y) in &parts[cur][..n] {
                let mut i = self.segs.partition_point(|s| s.end() <= x);
                while i < self.segs.len() && self.segs[i].start < y {
                    let s = &mut self.segs[i];
                    if !s.sacked && s.start >= b.left && s.end() <= b.right {
                        self.pipe -= s.pipe_share();
                        s.sacked = true;
                        self.sacked_bytes += s.len();
                        self.sacked_segs += 1;
                        self.high_sacked = self.high_sacked.max(s.end());
                        newly += s.len();
                    }
                    i += 1;
                }
            }
        }
        self.cache_sack(blocks);
        newly
    }

    /// Remember `blocks` as applied: those apart from every other, cut at the data sent.
    fn cache_sack(&mut self, blocks: &[SackBlock]) {
        let sent = self.segs.back().map_or(0, |s| s.end());
        let apart = |a: &SackBlock, b: &SackBlock| a.right < b.left || b.right < a.left;
        self.sack_cached = 0;
        for (i, b) in blocks.iter().enumerate() {
            let valid = b.left < b.right.min(sent);
            if self.sack_cached == MAX_SACK_BLOCKS {
                break;
            }
            if valid && blocks.iter().enumerate().all(|(j, o)| i == j || o.left >= o.right || apart(b, o)) {
                self.sack_cache[self.sack_cached] = SackBlock { left: b.left, right: b.right.min(sent) };
                self.sack_cached += 1;
            }
        }
    }

    /// RFC 6675 IsLost() over the whole board: mark every unSACKed segment that has at least
    /// `dupthresh` SACKed segments or more than `(dupthresh − 1)·mss` SACKed bytes above it.
    /// Returns the number of segments newly marked.
    ///
    /// The SACKed data above a segment only grows as it goes down the board, so the lost
    /// segments are the unSACKed ones at or below a *frontier*, found by walking down from the
    /// highest SACKed segment; only those between `lost_hint` and the frontier can be new.
    pub fn mark_lost_by_sack(&mut self, dupthresh: u32, mss: u64) -> usize {
        if self.sacked_segs == 0 {
            return 0;
        }
        let byte_limit = (dupthresh as u64).saturating_sub(1) * mss;
        let is_lost = |segs: u32, bytes: u64| segs >= dupthresh || bytes > byte_limit;
        let frontier = if is_lost(0, 0) {
            self.segs.len() - 1
        } else {
            let top = self.segs.partition_point(|s| s.end() < self.high_sacked);
            let (mut segs, mut bytes) = (0u32, 0u64);
            let mut frontier = None;
            for i in (0..=top).rev() {
                if is_lost(segs, bytes) {
                    frontier = Some(i);
                    break;
                }
                let s = &self.segs[i];
                if s.sacked {
                    segs += 1;
                    bytes += s.len();
                }
            }
            let Some(f) = frontier else { return 0 };
            f
        };
        let mut marked = 0;
        for i in self.lost_hint..=frontier {
            let s = &mut self.segs[i];
            if !s.sacked && !s.lost {
                self.pipe -= s.pipe_share();
                s.lost = true;
                s.retransmitted = false;
                marked += 1;
                self.retx_hint = self.retx_hint.min(i);
            }
        }
        self.lost_hint = self.lost_hint.max(frontier + 1);
        marked
    }

    /// Presume the segment holding `seq` lost (NewReno fast retransmit, partial ACK, a PACK).
    /// Returns false if no such segment is outstanding or it is SACKed.
    pub fn mark_lost_at(&mut self, seq: u64) -> bool {
        let i = self.segs.partition_point(|s| s.end() <= seq);
        match self.segs.get_mut(i) {
            Some(s) if s.start <= seq && !s.sacked => {
                self.pipe -= s.pipe_share();
                s.lost = true;
                s.retransmitted = false;
                self.pipe += s.pipe_share();
                self.retx_hint = self.retx_hint.min(i);
                true
            }
            _ => false,
        }
    }

    /// An explicit report that a transmission of the segment holding `seq` was lost (CP's PACK).
    /// It is marked for resending — even a retransmission — once every transmission of it is
    /// reported lost; while a copy may still be in flight, nothing is known and nothing
    /// changes. Returns true if it is newly marked.
    pub fn mark_lost_explicitly(&mut self, seq: u64) -> bool {
        let i = self.segs.partition_point(|s| s.end() <= seq);
        let Some(s) = self.segs.get_mut(i).filter(|s| s.start <= seq && !s.sacked) else {
            return false;
        };
        s.explicit_losses = s.explicit_losses.saturating_add(1);
        if s.explicit_losses < s.tx_count || (s.lost && !s.retransmitted) {
            return false;
        }
        self.pipe -= s.pipe_share();
        s.lost = true;
        s.retransmitted = false;
        self.retx_hint = self.retx_hint.min(i);
        true
    }

    /// The segment holding `seq`, if outstanding.
    pub fn find(&self, seq: u64) -> Option<&SentSegment> {
        let i = self.segs.partition_point(|s| s.end() <= seq);
        self.segs.get(i).filter(|s| s.start <= seq)
    }

    /// Retransmission timeout: everything not SACKed is presumed lost.
    pub fn mark_all_lost(&mut self) {
        for s in self.segs.iter_mut() {
            if !s.sacked {
                s.lost = true;
                s.retransmitted = false;
            }
        }
        self.pipe = 0;
        self.retx_hint = 0;
        self.lost_hint = self.segs.len();
    }

    /// The first segment presumed lost and not yet retransmitted, by index.
    pub fn next_to_retransmit(&mut self) -> Option<usize> {
        while self.retx_hint < self.segs.len() {
            let s = &self.segs[self.retx_hint];
            if s.lost && !s.retransmitted && !s.sacked {
                return Some(self.retx_hint);
            }
            self.retx_hint += 1;
        }
        None
    }

    pub fn get(&self, idx: usize) -> &SentSegment {
        &self.segs[idx]
    }

    /// Record that segment `idx` was retransmitted, when `snd_nxt` was as given.
    pub fn on_retransmit(&mut self, idx: usize, snd_nxt: u64) {
        let s = &mut self.segs[idx];
        debug_assert!(s.lost && !s.retransmitted);
        s.retransmitted = true;
        s.retx_high = snd_nxt as u32; // the low bits: see `SentSegment::retx_high`
        s.tx_count = s.tx_count.saturating_add(1);
        self.pipe += s.len();
        debug_assert!(self.retransmissions.back().is_none_or(|r| r.retx_high <= snd_nxt));
        self.retransmissions.push_back(Retransmission { start: s.start, retx_high: snd_nxt });
    }

    /// Lost-retransmission detection (Linux's `tcp_mark_lost_retrans`): a retransmission is
    /// presumed lost again once data sent after it — above `snd_nxt` at the time it was resent —
    /// has been SACKed while it has not. Returns the number of segments marked for resending.
    ///
    /// Only the retransmissions sent while `snd_nxt` was below the highest SACK qualify: a
    /// prefix of the list, consumed as it is checked.
    pub fn mark_lost_retransmissions(&mut self) -> usize {
        let Some(high) = self.highest_sacked() else { return 0 };
        let mut marked = 0;
        while let Some(r) = self.retransmissions.front().copied() {
            if r.retx_high >= high {
                break;
            }
            self.retransmissions.pop_front();
            // The segment it resent, or what a partial ACK left of it; if that is gone, a later
            // one, which qualifies only if it too was resent at `retx_high` (then rightly).
            let i = self.segs.partition_point(|s| s.end() <= r.start);
            let Some(s) = self.segs.get_mut(i) else { continue };
            if s.lost && s.retransmitted && !s.sacked && s.retx_high == r.retx_high as u32 {
                self.pipe -= s.len();
                s.retransmitted = false;
                self.retx_hint = self.retx_hint.min(i);
                marked += 1;
            }
        }
        marked
    }

    /// Highest SACKed sequence number (one past), or None.
    pub fn highest_sacked(&self) -> Option<u64> {
        (self.sacked_segs > 0).then_some(self.high_sacked)
    }

    #[cfg(test)]
    fn pipe_by_scan(&self) -> u64 {
        self.segs.iter().map(|s| s.pipe_share()).sum()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn board(n: u64) -> Scoreboard {
        let mut b = Scoreboard::new();
        for i in 0..n {
            b.push(1 + i * 100, 1 + (i + 1) * 100, SimTime(i), false);
        }
        b
    }

    #[test]
    fn two_entries_share_a_cache_line() {
        assert_eq!(std::mem::size_of::<SentSegment>(), 32);
    }

    #[test]
    fn cumulative_ack_removes_and_samples_oldest() {
        let mut b = board(4);
        let a = b.ack_to(201);
        assert_eq!(a.bytes, 200);
        assert_eq!(a.rtt_from, Some(SimTime(0)));
        assert_eq!(b.pipe(), 200);
    }

    #[test]
    fn karn_no_sample_when_a_retransmission_is_acked() {
        let mut b = board(3);
        assert!(b.mark_lost_at(1));
        let i = b.next_to_retransmit().unwrap();
        b.on_retransmit(i, 401);
        let a = b.ack_to(201);
        assert_eq!(a.rtt_from, None);
    }

    #[test]
    fn three_sacked_segments_mark_the_hole_lost() {
        let mut b = board(5);
        b.apply_sack(&[SackBlock { left: 101, right: 401 }]);
        assert_eq!(b.pipe(), 200);
        assert_eq!(b.mark_lost_by_sack(3, 100), 1);
        assert_eq!(b.pipe(), 100);
        assert_eq!(b.next_to_retransmit(), Some(0));
        // Segment 4 (above the SACKed range) is not lost.
        assert!(!b.get(4).lost);
    }

    #[test]
    fn timeout_marks_everything_but_sacked_lost() {
        let mut b = board(4);
        b.apply_sack(&[SackBlock { left: 201, right: 301 }]);
        b.mark_all_lost();
        assert_eq!(b.pipe(), 0);
        let i = b.next_to_retransmit().unwrap();
        b.on_retransmit(i, 401);
        assert_eq!(b.pipe(), 100);
        assert_eq!(b.next_to_retransmit(), Some(1));
    }

    #[test]
    fn a_retransmission_is_presumed_lost_once_later_data_is_sacked() {
        let mut b = board(4); // segments [1,101) … [301,401)
        b.mark_lost_at(1);
        let i = b.next_to_retransmit().unwrap();
        b.on_retransmit(i, 401); // resent when snd_nxt was 401
        b.push(401, 501, SimTime(6), false);
        b.apply_sack(&[SackBlock { left: 101, right: 401 }]);
        assert_eq!(b.mark_lost_retransmissions(), 0, "nothing sent after it is SACKed yet");
        b.apply_sack(&[SackBlock { left: 401, right: 501 }]);
        assert_eq!(b.mark_lost_retransmissions(), 1);
        assert_eq!(b.next_to_retransmit(), Some(0));
        assert_eq!(b.pipe(), 0);
    }

    /// The board as specified, by whole-board scans: what the hints and caches must reproduce.
    #[derive(Default)]
    struct Naive {
        segs: Vec<SentSegment>,
        /// `snd_nxt` at each segment's last retransmission, whole, by the segment's end.
        retx_high: std::collections::BTreeMap<u64, u64>,
    }

    impl Naive {
        fn apply_sack(&mut self, blocks: &[SackBlock]) -> u64 {
            let mut newly = 0;
            for b in blocks {
                for s in self.segs.iter_mut() {
                    if b.left < b.right && !s.sacked && s.start >= b.left && s.end() <= b.right {
                        s.sacked = true;
                        newly += s.len();
                    }
                }
            }
            newly
        }
        fn mark_lost_by_sack(&mut self, dupthresh: u32, mss: u64) -> usize {
            let (mut segs, mut bytes, mut marked) = (0, 0, 0);
            for s in self.segs.iter_mut().rev() {
                if s.sacked {
                    segs += 1;
                    bytes += s.len();
                } else if (segs >= dupthresh || bytes > (dupthresh as u64 - 1) * mss) && !s.lost {
                    s.lost = true;
                    s.retransmitted = false;
                    marked += 1;
                }
            }
            marked
        }
        fn mark_lost_retransmissions(&mut self) -> usize {
            let Some(high) = self.segs.iter().rev().find(|s| s.sacked).map(|s| s.end()) else { return 0 };
            let mut marked = 0;
            for s in self.segs.iter_mut() {
                if s.lost && s.retransmitted && !s.sacked && self.retx_high[&s.end()] < high {
                    s.retransmitted = false;
                    marked += 1;
                }
            }
            marked
        }
        fn ack_to(&mut self, ack: u64) {
            self.segs.retain(|s| s.end() > ack);
            if let Some(f) = self.segs.first_mut() {
                f.trim_to(ack);
            }
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(4096))]

        /// After any sequence of sends, SACKs (several blocks, touching or overlapping or not),
        /// loss marks, retransmissions, partial and whole ACKs and timeouts, the board holds
        /// what the whole-board scans give; the incremental pipe and SACKed bytes equal a
        /// rescan; and the next segment to resend is the first lost, unresent, unSACKed one.
        #[test]
        fn matches_whole_board_scans(
            ops in proptest::collection::vec((0u8..8, 0u64..3000, 0u64..3000, 1u64..300), 1..120),
        ) {
            let (mut b, mut naive) = (Scoreboard::new(), Naive::default());
            let mut snd_nxt = 1;
            for (op, x, y, len) in ops {
                let una = b.first().map_or(snd_nxt, |s| s.start);
                let at = |v: u64| una + v % (snd_nxt - una + 1);
                match op {
                    0 | 1 => {
                        let seg = (snd_nxt, snd_nxt + len);
                        b.push(seg.0, seg.1, SimTime(x), false);
                        naive.segs.push(*b.segments().last().unwrap());
                        snd_nxt = seg.1;
                    }
                    2 => {
                        let blocks = [
                            SackBlock { left: at(x).min(at(y)), right: at(x).max(at(y)) },
                            SackBlock { left: at(x / 2), right: at(x / 2 + len) },
                            SackBlock { left: at(y + len), right: at(y) },
                        ];
                        let n = 1 + (len % 3) as usize;
                        prop_assert_eq!(b.apply_sack(&blocks[..n]), naive.apply_sack(&blocks[..n]));
                    }
                    3 => {
                        prop_assert_eq!(b.mark_lost_by_sack(3, 100), naive.mark_lost_by_sack(3, 100));
                        prop_assert_eq!(b.mark_lost_retransmissions(), naive.mark_lost_retransmissions());
                    }
                    4 => {
                        b.mark_lost_at(at(x));
                        if let Some(s) = naive.segs.iter_mut().find(|s| s.start <= at(x) && at(x) < s.end() && !s.sacked) {
                            s.lost = true;
                            s.retransmitted = false;
                        }
                    }
                    5 => {
                        let i = b.next_to_retransmit();
                        let first = naive.segs.iter().position(|s| s.lost && !s.retransmitted && !s.sacked);
                        prop_assert_eq!(i, first);
                        if let Some(i) = i {
                            b.on_retransmit(i, snd_nxt);
                            let s = &mut naive.segs[i];
                            (s.retransmitted, s.retx_high) = (true, snd_nxt as u32);
                            s.tx_count += 1;
                            naive.retx_high.insert(s.end(), snd_nxt);
                        }
                    }
                    6 => {
                        let ack = una + x % (1 + (snd_nxt - una) / 2);
                        b.ack_to(ack);
                        naive.ack_to(ack);
                    }
                    _ if len < 20 => {
                        b.mark_all_lost();
                        for s in naive.segs.iter_mut().filter(|s| !s.sacked) {
                            (s.lost, s.retransmitted) = (true, false);
                        }
                    }
                    _ => {}
                }
                prop_assert_eq!(b.segments().copied().collect::<Vec<_>>(), naive.segs.clone());
                prop_assert_eq!(b.pipe(), b.pipe_by_scan());
                let sacked: u64 = b.segments().filter(|s| s.sacked).map(|s| s.len()).sum();
                prop_assert_eq!(b.sacked_bytes(), sacked);
            }
        }
    }
}
