//! The sender's scoreboard: every segment between `snd_una` and `snd_max`, with what is known
//! about it (SACKed, presumed lost, retransmitted), and the pipe estimate of RFC 6675 §4.
//!
//! Segments keep the boundaries they were first sent with; a retransmission resends the same
//! range. The pipe — the payload bytes the sender believes are in the network — is maintained
//! incrementally: a segment contributes its payload unless it is SACKed, or presumed lost and
//! not yet retransmitted. A FIN occupies a sequence number but no room in the network (Linux
//! counts its window in packets, with the FIN riding on the last one; ns-3 counts payload bytes):
//! it takes no share of the pipe. NewReno recovery (RFC 6582) uses the same board without SACK
//! information: the pipe then equals FlightSize, less segments presumed lost and not yet resent
//! (which is what go-back-N after a timeout needs).
//!
//! Loss marking follows RFC 6675's IsLost(): a segment is lost once at least `DupThresh`
//! discontiguous SACKed segments, or more than `(DupThresh − 1)·SMSS` SACKed bytes, lie above
//! it; or, with RACK (RFC 8985), once a segment sent after it has been delivered and a
//! reordering window has passed ([`Scoreboard::mark_lost_by_time`]). A retransmission that is
//! lost again is found by RACK, by lost-retransmission detection, or by the timer.

use std::collections::VecDeque;

use crate::net::packet::{MAX_SACK_BLOCKS, SackBlock};
use crate::units::SimTime;

/// One segment on the board, as the board's users see it (built from its stored `Entry`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SentSegment {
    /// First sequence number.
    pub start: u64,
    /// One past the last sequence number (FIN included).
    pub end: u64,
    /// When last sent (first sent, while never retransmitted): RACK's send time, and the RTT
    /// sample's origin, taken only if never retransmitted (Karn).
    pub sent_at: SimTime,
    /// Times sent (1 = never retransmitted; saturates at 65 535).
    pub tx_count: u16,
    /// Transmissions of it not known lost: neither reported by an explicit notification (one
    /// loss report per cut copy) nor presumed lost by a retransmission timeout. Copies in
    /// flight at once are few; saturates at 255.
    pub unreported: u8,
    pub sacked: bool,
    /// Presumed lost (by dupACKs/SACK, the timer, or an explicit notification).
    pub lost: bool,
    /// Retransmitted since it was last presumed lost.
    pub retransmitted: bool,
    pub fin: bool,
}

impl SentSegment {
    pub fn len(&self) -> u64 {
        self.end - self.start
    }
    pub fn is_empty(&self) -> bool {
        self.end == self.start
    }
    /// Payload bytes: its length less the FIN's sequence number.
    pub fn payload_len(&self) -> u64 {
        self.len() - self.fin as u64
    }
}

/// A segment as stored: 16 bytes, four to a cache line. Every ACK reads the board's oldest
/// entry, written a round trip earlier, and with a thousand flows that line has left the
/// cache: at 48 bytes three ACKs in four missed it, at 16 one in four. A segment's start is
/// the end of the one before it (the board's `una` for the oldest), and its end is kept as
/// its low 32 bits: the board spans less than 2³² sequence numbers (a window under 4 GiB), so
/// they and `una` determine it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct Entry {
    sent_at: SimTime,
    end_low: u32,
    tx_count: u16,
    unreported: u8,
    flags: u8,
}

impl Entry {
    const SACKED: u8 = 1;
    const LOST: u8 = 2;
    const RETRANSMITTED: u8 = 4;
    const FIN: u8 = 8;

    #[inline]
    fn has(&self, flag: u8) -> bool {
        self.flags & flag != 0
    }
    #[inline]
    fn set(&mut self, flag: u8, on: bool) {
        self.flags = if on { self.flags | flag } else { self.flags & !flag };
    }
    /// The full end, given the board's `una` (at most 2³² below it).
    #[inline]
    fn end(&self, una: u64) -> u64 {
        una + self.end_low.wrapping_sub(una as u32) as u64
    }
    /// Its share of the pipe, given its length in sequence numbers: its payload, while it is
    /// neither SACKed nor presumed lost and not yet resent.
    #[inline]
    fn pipe_share(&self, len: u64) -> u64 {
        if self.has(Self::SACKED) || (self.has(Self::LOST) && !self.has(Self::RETRANSMITTED)) {
            0
        } else {
            len - self.has(Self::FIN) as u64
        }
    }
}

/// What a cumulative ACK removed from the board.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Acked {
    /// Sequence numbers acknowledged (payload and FIN).
    pub bytes: u64,
    /// Payload bytes acknowledged that were not SACKed before: delivered now for the first
    /// time. (Bytes SACKed earlier were delivered when SACKed.)
    pub newly_delivered: u64,
    /// Send time of the oldest newly acknowledged segment that was not SACKed before (those
    /// were delivered earlier), if no newly acknowledged segment was ever retransmitted (Karn's
    /// rule: otherwise no RTT sample). Linux's `first_ackt` in `tcp_clean_rtx_queue`.
    pub rtt_from: Option<SimTime>,
    /// End of the oldest newly acknowledged segment that was neither SACKed before nor ever
    /// retransmitted: an original transmission reached the receiver (F-RTO's test of a
    /// timeout, Linux's `FLAG_ORIG_SACK_ACKED` in `tcp_clean_rtx_queue`).
    pub orig_end: Option<u64>,
    pub fin_acked: bool,
    /// The most recently sent newly acknowledged segments (not SACKed before), for RACK.
    pub latest: Latest,
}

/// The most recently sent of the segments an ACK newly delivered — among those never
/// retransmitted, and among those retransmitted — by (send time, end), as RACK orders them
/// (RFC 8985 §6.2 step 2; Linux's `tcp_rack_advance`); and whether one never retransmitted
/// arrived below data delivered before it (reordering, RFC 8985's `RACK_detect_reordering`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Latest {
    pub original: Option<(SimTime, u64)>,
    pub retransmitted: Option<(SimTime, u64)>,
    pub reordering: bool,
}

impl Latest {
    /// Both ACK parts' deliveries together.
    #[inline]
    pub fn merge(&self, other: &Latest) -> Latest {
        Latest {
            original: self.original.max(other.original),
            retransmitted: self.retransmitted.max(other.retransmitted),
            reordering: self.reordering || other.reordering,
        }
    }

    /// Note a newly delivered segment; `fack` is the highest sequence delivered before the ACK.
    #[inline]
    fn note(&mut self, sent_at: SimTime, end: u64, tx_count: u16, fack: u64) {
        let slot = if tx_count == 1 { &mut self.original } else { &mut self.retransmitted };
        if slot.is_none_or(|l| (sent_at, end) > l) {
            *slot = Some((sent_at, end));
        }
        self.reordering |= tx_count == 1 && end < fack;
    }
}

/// What a SACK added to the board.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Sacked {
    /// Payload bytes newly SACKed.
    pub bytes: u64,
    /// Send time of the oldest newly SACKed segment that was never retransmitted: an RTT
    /// sample's origin, as Linux's `first_sackt` (`tcp_sacktag_one`), which `tcp_ack_update_rtt`
    /// uses when the cumulative ACK gives none.
    pub rtt_from: Option<SimTime>,
    /// The lowest end among the newly SACKed segments never retransmitted (as
    /// [`Acked::orig_end`]; Linux's `tcp_sacktag_one`).
    pub orig_end: Option<u64>,
    /// The most recently sent newly SACKed segments, for RACK.
    pub latest: Latest,
}

/// A retransmission still to be checked by lost-retransmission detection: the segment it
/// resent (by its end, which acknowledgments never change), its transmission count after the
/// retransmission (so that a later retransmission of it makes this one stale), and `snd_nxt`
/// at the time.
#[derive(Clone, Copy, Debug, Default)]
struct Retransmission {
    end: u64,
    tx_count: u16,
    retx_high: u64,
    sent_at: SimTime,
}

/// The hints and side lists below keep every operation's cost independent of the window, so
/// that a recovery in a window of thousands of segments costs no more per ACK than in one of
/// ten (the board is scanned only where it changes). Fields in the order an ACK reads them
/// (`repr(C)` keeps it): what every ACK reads in the first 96 bytes, what only SACKs and
/// recoveries read after.
#[derive(Clone, Debug, Default)]
#[repr(C)]
pub struct Scoreboard {
    segs: VecDeque<Entry>,
    /// Start of the oldest segment on the board (`snd_una` while it is not empty).
    una: u64,
    pipe: u64,
    sacked_bytes: u64,
    /// SACKed segments on the board, and one past the highest SACKed sequence number.
    sacked_segs: usize,
    high_sacked: u64,
    /// Index below which no segment is lost-and-not-retransmitted (a scan hint).
    retx_hint: usize,
    /// Index below which every unSACKed segment is presumed lost (a scan hint).
    lost_hint: usize,
    sack_cached: usize,
    /// Index of the segment ending at `high_sacked` (while there is one): where the next
    /// SACK block usually begins, and where the search for lost segments starts.
    high_sacked_at: usize,
    /// `mark_lost_by_sack` has marked all it would with these (dupthresh, mss), and no
    /// segment was SACKed since: what it marks depends on nothing else (see there).
    lost_marks_current: Option<(u32, u64)>,
    /// SACK blocks already applied (Linux's `recv_sack_cache`): every segment wholly inside
    /// one of them is SACKed, so a block repeated by the next ACK costs nothing but its new
    /// part. Pairwise apart (not touching), and not beyond the data sent when cached.
    sack_cache: [SackBlock; MAX_SACK_BLOCKS],
    /// Retransmissions in the order sent, hence in increasing `retx_high` (`snd_nxt` never
    /// decreases) and send time; entries whose segment was since acknowledged, SACKed or
    /// resent are stale and skipped.
    retransmissions: VecDeque<Retransmission>,
    /// Index below which no segment never retransmitted is a candidate for RACK's marking
    /// (all are SACKed, presumed lost, or resent: a scan hint).
    rack_hint: usize,
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
    /// SACKed segments on the board.
    pub fn sacked_segments(&self) -> usize {
        self.sacked_segs
    }
    pub fn segments(&self) -> impl Iterator<Item = SentSegment> + '_ {
        (0..self.segs.len()).map(|i| self.get(i))
    }
    pub fn first(&self) -> Option<SentSegment> {
        (!self.segs.is_empty()).then(|| self.get(0))
    }

    /// End of segment `i`.
    #[inline]
    fn end_of(&self, i: usize) -> u64 {
        self.segs[i].end(self.una)
    }
    /// Start of segment `i`: the end of the one before.
    #[inline]
    fn start_of(&self, i: usize) -> u64 {
        if i == 0 { self.una } else { self.end_of(i - 1) }
    }
    /// Index of the first segment ending above `seq` (or `len()`).
    #[inline]
    fn first_ending_above(&self, seq: u64) -> usize {
        let una = self.una;
        self.segs.partition_point(|e| e.end(una) <= seq)
    }

    /// Segment `idx`, whole.
    pub fn get(&self, idx: usize) -> SentSegment {
        let e = &self.segs[idx];
        SentSegment {
            start: self.start_of(idx),
            end: self.end_of(idx),
            sent_at: e.sent_at,
            tx_count: e.tx_count,
            unreported: e.unreported,
            sacked: e.has(Entry::SACKED),
            lost: e.has(Entry::LOST),
            retransmitted: e.has(Entry::RETRANSMITTED),
            fin: e.has(Entry::FIN),
        }
    }

    /// Record a newly sent segment (always right above everything already on the board).
    pub fn push(&mut self, start: u64, end: u64, now: SimTime, fin: bool) {
        if self.segs.is_empty() {
            self.una = start;
        }
        debug_assert!(self.segs.back().is_none_or(|e| e.end(self.una) == start));
        assert!(end - self.una < 1 << 32, "the board spans less than 2^32 sequence numbers");
        let mut e =
            Entry { sent_at: now, end_low: end as u32, tx_count: 1, unreported: 1, ..Entry::default() };
        e.set(Entry::FIN, fin);
        self.pipe += e.pipe_share(end - start);
        self.segs.push_back(e);
    }

    /// Remove everything below `ack`.
    pub fn ack_to(&mut self, ack: u64) -> Acked {
        let mut out = Acked::default();
        let mut karn_ok = true;
        let fack = self.delivered_high();
        while let Some(front) = self.segs.front().copied() {
            let (start, end) = (self.una, front.end(self.una));
            if end <= ack {
                self.segs.pop_front();
                self.una = end;
                let len = end - start;
                self.pipe -= front.pipe_share(len);
                if front.has(Entry::SACKED) {
                    self.sacked_bytes -= len;
                    self.sacked_segs -= 1;
                } else {
                    out.newly_delivered += len - front.has(Entry::FIN) as u64;
                    out.latest.note(front.sent_at, end, front.tx_count, fack);
                }
                out.bytes += len;
                out.fin_acked |= front.has(Entry::FIN);
                if front.tx_count > 1 {
                    karn_ok = false;
                } else if out.rtt_from.is_none() && !front.has(Entry::SACKED) {
                    out.rtt_from = Some(front.sent_at);
                    out.orig_end = Some(end);
                }
                self.retx_hint = self.retx_hint.saturating_sub(1);
                self.lost_hint = self.lost_hint.saturating_sub(1);
                self.rack_hint = self.rack_hint.saturating_sub(1);
                self.high_sacked_at = self.high_sacked_at.saturating_sub(1);
            } else if start < ack {
                // A partial acknowledgment of a segment: trim it.
                let cut = ack - start;
                let (before, after) = (front.pipe_share(end - start), front.pipe_share(end - ack));
                self.una = ack;
                self.pipe = self.pipe - before + after;
                if front.has(Entry::SACKED) {
                    self.sacked_bytes -= cut;
                } else {
                    out.newly_delivered += cut;
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

    /// The highest sequence number delivered — SACKed or cumulatively acknowledged — so far
    /// (RACK's `fack`).
    fn delivered_high(&self) -> u64 {
        self.highest_sacked().unwrap_or(0).max(self.una)
    }

    /// Apply SACK blocks; returns the payload bytes newly SACKed. Blocks with left ≥ right (a
    /// loss report, or garbage) are ignored here.
    pub fn apply_sack(&mut self, blocks: &[SackBlock]) -> Sacked {
        let mut newly = 0;
        let mut rtt_from: Option<SimTime> = None;
        let mut orig_end: Option<u64> = None;
        let mut latest = Latest::default();
        let fack = self.delivered_high();
        for b in blocks {
            let cached = &self.sack_cache[..self.sack_cached];
            // A block the last ACK reported too (most of a recovery's blocks) has nothing new.
            if b.left >= b.right || cached.iter().any(|c| c.left <= b.left && b.right <= c.right) {
                continue;
            }
            // Walk only the parts of the block outside the cached ones: each cached block cuts
            // the parts in one buffer into the other, and adds at most one (they are apart).
            // (Not a fresh array per cut copied back: the copy read in wide words the pairs
            // just stored, a stalled store forward.)
            let mut parts = [[(0u64, 0u64); MAX_SACK_BLOCKS + 1]; 2];
            parts[0][0] = (b.left, b.right);
            let (mut cur, mut n) = (0, 1);
            for c in cached {
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
                // A block growing at the top of the SACKed data starts where it ends.
                let mut i = if self.sacked_segs > 0 && x == self.high_sacked {
                    self.highest_sacked_index() + 1
                } else {
                    self.first_ending_above(x)
                };
                let mut start = self.start_of_or_end(i);
                while i < self.segs.len() && start < y {
                    let end = self.end_of(i);
                    let s = &mut self.segs[i];
                    if !s.has(Entry::SACKED) && start >= b.left && end <= b.right {
                        self.pipe -= s.pipe_share(end - start);
                        s.set(Entry::SACKED, true);
                        self.sacked_bytes += end - start;
                        self.sacked_segs += 1;
                        if end > self.high_sacked {
                            (self.high_sacked, self.high_sacked_at) = (end, i);
                        }
                        newly += end - start - s.has(Entry::FIN) as u64;
                        latest.note(s.sent_at, end, s.tx_count, fack);
                        if s.tx_count == 1 {
                            if rtt_from.is_none_or(|t| s.sent_at < t) {
                                rtt_from = Some(s.sent_at);
                            }
                            orig_end = Some(orig_end.map_or(end, |e| e.min(end)));
                        }
                    }
                    (i, start) = (i + 1, end);
                }
            }
        }
        self.cache_sack(blocks);
        if newly > 0 {
            self.lost_marks_current = None;
        }
        Sacked { bytes: newly, rtt_from, orig_end, latest }
    }

    /// The index of the highest SACKed segment (there is one): the hint, checked.
    #[inline]
    fn highest_sacked_index(&self) -> usize {
        let h = self.high_sacked_at;
        if h < self.segs.len() && self.end_of(h) == self.high_sacked {
            h
        } else {
            let una = self.una;
            self.segs.partition_point(|e| e.end(una) < self.high_sacked)
        }
    }

    /// Start of segment `i`, or the end of the board if `i` is past it.
    #[inline]
    fn start_of_or_end(&self, i: usize) -> u64 {
        if i < self.segs.len() { self.start_of(i) } else { self.sent() }
    }

    /// One past the highest sequence number sent (0 for an empty board).
    fn sent(&self) -> u64 {
        if self.segs.is_empty() { 0 } else { self.end_of(self.segs.len() - 1) }
    }

    /// Remember `blocks` as applied: those apart from every other, cut at the data sent.
    fn cache_sack(&mut self, blocks: &[SackBlock]) {
        let sent = self.sent();
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
    /// `dupthresh` SACKed segments or more than `(dupthresh − 1)·mss` SACKed payload bytes above it.
    /// Returns the number of segments newly marked.
    ///
    /// The SACKed data above a segment only grows as it goes down the board, so the lost
    /// segments are the unSACKed ones at or below a *frontier*, found by walking down from the
    /// highest SACKed segment; only those between `lost_hint` and the frontier can be new.
    ///
    /// Whether a segment is lost depends only on the SACKed segments above it, which only a
    /// SACK changes (an ACK removes segments below, a send adds unSACKed ones above, and
    /// nothing unmarks a segment): a call with no segment SACKed since the last has nothing
    /// to mark, and returns at once. In a recovery it is asked on every ACK.
    pub fn mark_lost_by_sack(&mut self, dupthresh: u32, mss: u64) -> usize {
        if self.sacked_segs == 0 || self.lost_marks_current == Some((dupthresh, mss)) {
            return 0;
        }
        self.lost_marks_current = Some((dupthresh, mss));
        let byte_limit = (dupthresh as u64).saturating_sub(1) * mss;
        let is_lost = |segs: u32, bytes: u64| segs >= dupthresh || bytes > byte_limit;
        let frontier = if is_lost(0, 0) {
            self.segs.len() - 1
        } else {
            let top = self.highest_sacked_index();
            let (mut segs, mut bytes) = (0u32, 0u64);
            let mut frontier = None;
            let mut end = self.end_of(top);
            for i in (0..=top).rev() {
                if is_lost(segs, bytes) {
                    frontier = Some(i);
                    break;
                }
                let start = self.start_of(i);
                if self.segs[i].has(Entry::SACKED) {
                    // Octets of data: a FIN's sequence number is none.
                    segs += 1;
                    bytes += end - start - self.segs[i].has(Entry::FIN) as u64;
                }
                end = start;
            }
            let Some(f) = frontier else { return 0 };
            f
        };
        let mut marked = 0;
        let mut start = self.start_of_or_end(self.lost_hint);
        for i in self.lost_hint..=frontier {
            let end = self.end_of(i);
            let s = &self.segs[i];
            if !s.has(Entry::SACKED) && !s.has(Entry::LOST) {
                self.presume_lost(i, end - start);
                marked += 1;
            }
            start = end;
        }
        self.lost_hint = self.lost_hint.max(frontier + 1);
        marked
    }

    /// The index of the segment holding `seq`, if outstanding.
    fn index_holding(&self, seq: u64) -> Option<usize> {
        let i = self.first_ending_above(seq);
        (i < self.segs.len() && self.start_of(i) <= seq).then_some(i)
    }

    /// The index and length of the segment holding `seq`, if outstanding and not SACKed.
    fn unsacked_holding(&self, seq: u64) -> Option<(usize, u64)> {
        let i = self.index_holding(seq).filter(|&i| !self.segs[i].has(Entry::SACKED))?;
        Some((i, self.end_of(i) - self.start_of(i)))
    }

    /// Mark segment `i` (of `len` sequence numbers, not SACKed) presumed lost and not resent:
    /// it leaves the pipe, and the next retransmission is looked for from it at the latest.
    fn presume_lost(&mut self, i: usize, len: u64) {
        let s = &mut self.segs[i];
        self.pipe -= s.pipe_share(len);
        s.set(Entry::LOST, true);
        s.set(Entry::RETRANSMITTED, false);
        self.retx_hint = self.retx_hint.min(i);
    }

    /// Presume the segment holding `seq` lost (NewReno fast retransmit, partial ACK, a loss report).
    /// Returns false if no such segment is outstanding or it is SACKed.
    pub fn mark_lost_at(&mut self, seq: u64) -> bool {
        let Some((i, len)) = self.unsacked_holding(seq) else { return false };
        self.presume_lost(i, len);
        true
    }

    /// An explicit report that a transmission of the segment holding `seq` was lost (a loss report).
    /// It is marked for resending — even a retransmission — once every transmission of it is
    /// reported lost; while a copy may still be in flight, nothing is known and nothing
    /// changes. Returns true if it is newly marked.
    pub fn mark_lost_explicitly(&mut self, seq: u64) -> bool {
        let Some((i, len)) = self.unsacked_holding(seq) else { return false };
        let s = &mut self.segs[i];
        s.unreported = s.unreported.saturating_sub(1);
        if s.unreported > 0 || (s.has(Entry::LOST) && !s.has(Entry::RETRANSMITTED)) {
            return false;
        }
        self.presume_lost(i, len);
        true
    }

    /// The segment holding `seq`, if outstanding.
    pub fn find(&self, seq: u64) -> Option<SentSegment> {
        self.index_holding(seq).map(|i| self.get(i))
    }

    /// Retransmission timeout: everything not SACKed is presumed lost.
    pub fn mark_all_lost(&mut self) {
        for s in self.segs.iter_mut() {
            if !s.has(Entry::SACKED) {
                s.set(Entry::LOST, true);
                s.set(Entry::RETRANSMITTED, false);
                s.unreported = 0; // every copy presumed lost
            }
        }
        self.pipe = 0;
        self.retx_hint = 0;
        self.lost_hint = self.segs.len();
    }

    /// A timeout found spurious (F-RTO): no segment is presumed lost any more. Those resent
    /// stay marked as resent (their copies are in flight), as Linux's
    /// `tcp_undo_cwnd_reduction` clears only `TCPCB_LOST`.
    pub fn unmark_lost(&mut self) {
        let mut pipe = 0;
        let mut start = self.una;
        for s in self.segs.iter_mut() {
            let end = s.end(self.una);
            s.set(Entry::LOST, false);
            pipe += s.pipe_share(end - start);
            start = end;
        }
        self.pipe = pipe;
        self.retx_hint = self.segs.len();
        self.lost_hint = 0;
        self.rack_hint = 0;
        self.lost_marks_current = None;
    }

    /// The first segment presumed lost and not yet retransmitted, by index.
    pub fn next_to_retransmit(&mut self) -> Option<usize> {
        while self.retx_hint < self.segs.len() {
            let s = &self.segs[self.retx_hint];
            if s.has(Entry::LOST) && !s.has(Entry::RETRANSMITTED) && !s.has(Entry::SACKED) {
                return Some(self.retx_hint);
            }
            self.retx_hint += 1;
        }
        None
    }

    /// RFC 6675 NextSeg rule (3)'s segment: the first one below the highest SACKed that is
    /// neither SACKed nor resent (nor presumed lost: rule (1) has those), by index. It scans
    /// the board, and is asked only when rules (1) and (2) have nothing to send.
    pub fn first_unsacked_below_highest_sack(&self) -> Option<usize> {
        if self.sacked_segs == 0 {
            return None;
        }
        let top = self.highest_sacked_index();
        (0..top).find(|&i| {
            let s = &self.segs[i];
            !s.has(Entry::SACKED) && !s.has(Entry::RETRANSMITTED) && !s.has(Entry::LOST)
        })
    }

    /// Record that segment `idx` (presumed lost) was retransmitted at `now`, when `snd_nxt`
    /// was as given.
    pub fn on_retransmit(&mut self, idx: usize, now: SimTime, snd_nxt: u64) {
        let len = self.end_of(idx) - self.start_of(idx);
        let e = &mut self.segs[idx];
        debug_assert!(e.has(Entry::LOST) && !e.has(Entry::RETRANSMITTED));
        e.set(Entry::RETRANSMITTED, true);
        self.pipe += e.pipe_share(len);
        self.record_resend(idx, now, snd_nxt);
    }

    /// Whether a segment in flight may have been sent before `before` — false in the usual
    /// case, where the oldest segment was sent after it and nothing was resent since the
    /// last check: then RACK has nothing to mark. (Retransmissions are listed until a check
    /// finds them stale.)
    #[inline]
    pub fn sent_before(&self, before: (SimTime, u64)) -> bool {
        let Some(front) = self.segs.front() else { return false };
        front.tx_count > 1
            || (front.sent_at, front.end(self.una)) < before
            || !self.retransmissions.is_empty()
    }

    /// Record that segment `idx`, in flight and not presumed lost, was sent again at `now` as
    /// a probe (a tail loss probe, RFC 8985 §7.3): it stays in the pipe once, and is now as
    /// old as the probe.
    pub fn on_probe(&mut self, idx: usize, now: SimTime, snd_nxt: u64) {
        debug_assert!(!self.segs[idx].has(Entry::LOST) && !self.segs[idx].has(Entry::SACKED));
        self.record_resend(idx, now, snd_nxt);
    }

    /// A further transmission of segment `idx`: counted, dated, and listed for the checks of
    /// lost retransmissions.
    fn record_resend(&mut self, idx: usize, now: SimTime, snd_nxt: u64) {
        // Resends of segments since acknowledged are stale (usually the oldest): dropped
        // here, so that the list stays as short as the resends outstanding.
        while self.retransmissions.front().is_some_and(|r| r.end <= self.una) {
            self.retransmissions.pop_front();
        }
        let end = self.end_of(idx);
        let s = &mut self.segs[idx];
        s.tx_count = s.tx_count.saturating_add(1);
        s.unreported = s.unreported.saturating_add(1);
        s.sent_at = now;
        debug_assert!(self.retransmissions.back().is_none_or(|r| r.retx_high <= snd_nxt));
        self.retransmissions.push_back(Retransmission {
            end,
            tx_count: s.tx_count,
            retx_high: snd_nxt,
            sent_at: now,
        });
    }

    /// RACK's loss detection (RFC 8985 §6.2 step 5; Linux's `tcp_rack_detect_loss`): every
    /// segment in flight — neither SACKed nor presumed lost and not yet resent — sent before
    /// `before` (the send time and end of the most recently sent segment delivered) is lost
    /// once `wait` (RACK.rtt plus the reordering window) has passed since it was last sent.
    /// Returns the number newly presumed lost, how many of them were retransmissions, and the
    /// longest time one of the others has still to wait. [`Scoreboard::sent_before`] says
    /// first, cheaply, whether any segment can be.
    ///
    /// Segments never retransmitted were sent in sequence order, so those sent before
    /// `before` are a prefix of them, walked from a hint; retransmitted ones are walked in the
    /// order they were resent.
    pub fn mark_lost_by_time(
        &mut self,
        before: (SimTime, u64),
        wait: SimTime,
        now: SimTime,
    ) -> (usize, usize, Option<SimTime>) {
        let mut marked = 0;
        let mut resent_marked = 0;
        let mut longest: Option<SimTime> = None;
        let mut judge = |sent_at: SimTime| -> bool {
            let expires = sent_at + wait;
            if expires <= now {
                return true;
            }
            let left = expires - now;
            longest = Some(longest.map_or(left, |l| l.max(left)));
            false
        };
        // Never retransmitted, in sequence (= send) order.
        let mut i = self.rack_hint;
        let mut hint_settled = false;
        let mut start = self.start_of_or_end(i);
        while i < self.segs.len() {
            let end = self.end_of(i);
            let e = self.segs[i];
            if e.tx_count == 1 {
                if (e.sent_at, end) >= before {
                    break;
                }
                if !e.has(Entry::SACKED) && !e.has(Entry::LOST) {
                    if judge(e.sent_at) {
                        self.presume_lost(i, end - start);
                        marked += 1;
                    } else if !hint_settled {
                        (self.rack_hint, hint_settled) = (i, true);
                    }
                }
            }
            (i, start) = (i + 1, end);
        }
        if !hint_settled {
            self.rack_hint = i;
        }
        // Retransmitted, in the order resent. Entries of segments acknowledged, SACKed or
        // resent since are stale and leave the list from its front; those of segments
        // presumed lost and not yet resent are skipped (F-RTO's undo may put them back in
        // flight).
        let mut k = 0;
        while k < self.retransmissions.len() {
            let r = self.retransmissions[k];
            // Resent in time order: none after this one was sent before `before`.
            if r.sent_at > before.0 {
                break;
            }
            let current = self.index_holding(r.end - 1).filter(|&j| {
                let e = &self.segs[j];
                self.end_of(j) == r.end && e.tx_count == r.tx_count && !e.has(Entry::SACKED)
            });
            let Some(j) = current else {
                if k == 0 {
                    self.retransmissions.pop_front();
                } else {
                    k += 1;
                }
                continue;
            };
            let e = self.segs[j];
            if e.has(Entry::LOST) && !e.has(Entry::RETRANSMITTED) {
                k += 1;
                continue;
            }
            // At the same time as `before`, in any order of sequence.
            if (r.sent_at, r.end) < before && judge(r.sent_at) {
                let len = r.end - self.start_of(j);
                self.presume_lost(j, len);
                resent_marked += 1;
            }
            k += 1;
        }
        (marked + resent_marked, resent_marked, longest)
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
            // The segment it resent, unless acknowledged since (a partial ACK keeps its end),
            // and only if this was its latest retransmission.
            let i = self.first_ending_above(r.end - 1);
            if i == self.segs.len() || self.end_of(i) != r.end {
                continue;
            }
            let len = r.end - self.start_of(i);
            let s = &mut self.segs[i];
            if s.has(Entry::LOST)
                && s.has(Entry::RETRANSMITTED)
                && !s.has(Entry::SACKED)
                && s.tx_count == r.tx_count
            {
                self.pipe -= s.pipe_share(len);
                s.set(Entry::RETRANSMITTED, false);
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
        self.segments()
            .map(|s| if s.sacked || (s.lost && !s.retransmitted) { 0 } else { s.payload_len() })
            .sum()
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
    fn a_segment_is_resent_on_every_explicit_loss_of_its_only_copy_however_often() {
        // A retransmission cut again, hundreds of times over (a full queue at a large
        // fan-in): each loss report names the one copy in flight, so each marks it for resending.
        let mut b = board(3);
        for round in 0..300 {
            assert!(b.mark_lost_explicitly(101), "loss report {round}");
            let i = b.next_to_retransmit().unwrap();
            b.on_retransmit(i, SimTime(100), 301);
        }
        assert_eq!(b.get(1).tx_count, 301);
        // Two copies in flight: the first loss report leaves the other unaccounted for.
        b.mark_lost_at(101);
        let i = b.next_to_retransmit().unwrap();
        b.on_retransmit(i, SimTime(100), 301);
        assert!(!b.mark_lost_explicitly(101), "a copy may still arrive");
        assert!(b.mark_lost_explicitly(101));
        // After a timeout every copy is presumed lost: the next loss report acts.
        b.mark_all_lost();
        let i = b.next_to_retransmit().unwrap();
        assert_eq!(i, 0);
        for i in 0..3 {
            b.on_retransmit(i, SimTime(100), 301);
        }
        assert!(b.mark_lost_explicitly(101));
    }

    #[test]
    fn four_entries_share_a_cache_line() {
        assert_eq!(std::mem::size_of::<Entry>(), 16);
    }

    /// What every ACK reads (the ring's header, `una`, the pipe and the counts and hints) in
    /// the first 96 bytes; the SACK cache and the retransmission list after.
    #[test]
    fn fields_every_ack_reads_come_first() {
        use std::mem::offset_of;
        assert!(offset_of!(Scoreboard, sack_cached) + 8 <= 96);
        assert!(offset_of!(Scoreboard, sack_cache) >= 96);
        assert!(offset_of!(Scoreboard, retransmissions) > offset_of!(Scoreboard, sack_cache));
    }

    /// Ends are kept as their low 32 bits: a board across a multiple of 2³² still gives every
    /// segment its whole start and end, and acknowledgments and SACKs find them.
    #[test]
    fn sequence_numbers_across_a_multiple_of_two_to_the_32() {
        let base = (3u64 << 32) - 250;
        let mut b = Scoreboard::new();
        for i in 0..5 {
            b.push(base + i * 100, base + (i + 1) * 100, SimTime(i), false);
        }
        let ends: Vec<u64> = b.segments().map(|s| s.end).collect();
        assert_eq!(ends, (1..=5).map(|i| base + i * 100).collect::<Vec<_>>());
        assert_eq!(b.find(base + 310).map(|s| s.start), Some(base + 300));
        assert_eq!(b.apply_sack(&[SackBlock { left: base + 200, right: base + 400 }]).bytes, 200);
        let a = b.ack_to(base + 150);
        assert_eq!((a.bytes, b.first().map(|s| (s.start, s.end))), (150, Some((base + 150, base + 200))));
        assert_eq!(b.pipe(), 50 + 100);
    }

    /// A block spanning as many cached blocks as an ACK carries, with gaps between them: only
    /// the gaps are new, in as many parts as there can be (one more than the cached blocks).
    #[test]
    fn a_block_across_every_cached_block_sacks_only_the_gaps() {
        let mut b = Scoreboard::new();
        for i in 0..10 {
            b.push(i * 100, (i + 1) * 100, SimTime(i), false);
        }
        let cached: Vec<SackBlock> = (0..MAX_SACK_BLOCKS as u64)
            .map(|i| SackBlock { left: 100 + 200 * i, right: 200 + 200 * i })
            .collect();
        assert_eq!(b.apply_sack(&cached).bytes, 100 * MAX_SACK_BLOCKS as u64);
        assert_eq!(b.apply_sack(&cached).bytes, 0, "the same blocks again are nothing new");
        let across = SackBlock { left: 0, right: 1000 };
        assert_eq!(b.apply_sack(&[across]).bytes, 1000 - 100 * MAX_SACK_BLOCKS as u64);
        assert!(b.segments().all(|s| s.sacked));
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
        b.on_retransmit(i, SimTime(100), 401);
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
        b.on_retransmit(i, SimTime(100), 401);
        assert_eq!(b.pipe(), 100);
        assert_eq!(b.next_to_retransmit(), Some(1));
    }

    #[test]
    fn rule_3_finds_the_first_segment_below_the_highest_sack_neither_sacked_nor_resent() {
        let mut b = board(6); // segments [1,101) … [501,601)
        assert_eq!(b.first_unsacked_below_highest_sack(), None, "no SACK yet");
        b.apply_sack(&[SackBlock { left: 101, right: 201 }, SackBlock { left: 401, right: 501 }]);
        assert_eq!(b.first_unsacked_below_highest_sack(), Some(0));
        b.mark_lost_at(1);
        let i = b.next_to_retransmit().unwrap();
        b.on_retransmit(i, SimTime(100), 601);
        assert_eq!(b.first_unsacked_below_highest_sack(), Some(2), "0 resent, 1 SACKed");
        b.apply_sack(&[SackBlock { left: 201, right: 401 }]);
        assert_eq!(b.first_unsacked_below_highest_sack(), None, "nothing unSACKed below 501 but 0");
    }

    #[test]
    fn a_retransmission_is_presumed_lost_once_later_data_is_sacked() {
        let mut b = board(4); // segments [1,101) … [301,401)
        b.mark_lost_at(1);
        let i = b.next_to_retransmit().unwrap();
        b.on_retransmit(i, SimTime(100), 401); // resent when snd_nxt was 401
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
        /// The payload newly SACKed, and the earliest send time and lowest end among the
        /// newly SACKed segments never retransmitted.
        fn apply_sack(&mut self, blocks: &[SackBlock]) -> Sacked {
            let mut out = Sacked::default();
            let fack = self.fack();
            for b in blocks {
                for s in self.segs.iter_mut() {
                    if b.left < b.right && !s.sacked && s.start >= b.left && s.end <= b.right {
                        s.sacked = true;
                        out.bytes += s.payload_len();
                        out.latest.note(s.sent_at, s.end, s.tx_count, fack);
                        if s.tx_count == 1 {
                            out.rtt_from = Some(out.rtt_from.map_or(s.sent_at, |t| t.min(s.sent_at)));
                            out.orig_end = Some(out.orig_end.map_or(s.end, |e| e.min(s.end)));
                        }
                    }
                }
            }
            out
        }
        /// The highest sequence number delivered (RACK's fack).
        fn fack(&self) -> u64 {
            let high_sacked = self.segs.iter().filter(|s| s.sacked).map(|s| s.end).max();
            high_sacked.unwrap_or(0).max(self.segs.first().map_or(0, |s| s.start))
        }
        /// RACK by a scan of every segment: those in flight sent before `before` are lost once
        /// `wait` has passed since; the longest wait left among the others.
        fn mark_lost_by_time(
            &mut self,
            before: (SimTime, u64),
            wait: SimTime,
            now: SimTime,
        ) -> (usize, usize, Option<SimTime>) {
            let (mut marked, mut resent, mut longest) = (0, 0, None::<SimTime>);
            for s in self.segs.iter_mut() {
                let in_flight = !s.sacked && (!s.lost || s.retransmitted);
                if in_flight && (s.sent_at, s.end) < before {
                    if s.sent_at + wait <= now {
                        (s.lost, s.retransmitted) = (true, false);
                        marked += 1;
                        resent += (s.tx_count > 1) as usize;
                    } else {
                        let left = s.sent_at + wait - now;
                        longest = Some(longest.map_or(left, |l| l.max(left)));
                    }
                }
            }
            (marked, resent, longest)
        }
        fn mark_lost_by_sack(&mut self, dupthresh: u32, mss: u64) -> usize {
            let (mut segs, mut bytes, mut marked) = (0, 0, 0);
            for s in self.segs.iter_mut().rev() {
                if s.sacked {
                    segs += 1;
                    bytes += s.payload_len();
                } else if (segs >= dupthresh || bytes > (dupthresh as u64 - 1) * mss) && !s.lost {
                    s.lost = true;
                    s.retransmitted = false;
                    marked += 1;
                }
            }
            marked
        }
        fn mark_lost_retransmissions(&mut self) -> usize {
            let Some(high) = self.segs.iter().rev().find(|s| s.sacked).map(|s| s.end) else { return 0 };
            let mut marked = 0;
            for s in self.segs.iter_mut() {
                if s.lost && s.retransmitted && !s.sacked && self.retx_high[&s.end] < high {
                    s.retransmitted = false;
                    marked += 1;
                }
            }
            marked
        }
        /// Returns the payload bytes acknowledged that were not SACKed before, and the end of
        /// the first whole segment among them never retransmitted.
        fn ack_to(&mut self, ack: u64) -> (u64, Option<u64>) {
            let fresh = || self.segs.iter().filter(|s| !s.sacked && s.start < ack);
            let delivered = fresh().map(|s| if s.end <= ack { s.payload_len() } else { ack - s.start }).sum();
            let orig_end = fresh().find(|s| s.end <= ack && s.tx_count == 1).map(|s| s.end);
            self.segs.retain(|s| s.end > ack);
            if let Some(f) = self.segs.first_mut() {
                f.start = f.start.max(ack);
            }
            (delivered, orig_end)
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(4096))]

        /// After any sequence of sends (the last may carry a FIN), SACKs (several blocks,
        /// touching or overlapping or not), loss marks, retransmissions, partial and whole ACKs,
        /// timeouts and their undoing, the board holds what the whole-board scans give; the
        /// incremental pipe and SACKed bytes equal a rescan; an ACK reports as newly delivered
        /// exactly the unSACKed payload it covers, and which of it was never resent; and the
        /// next segment to resend is the first lost, unresent, unSACKed one.
        #[test]
        fn matches_whole_board_scans(
            ops in proptest::collection::vec((0u8..8, 0u64..3000, 0u64..3000, 1u64..300), 1..120),
        ) {
            let (mut b, mut naive) = (Scoreboard::new(), Naive::default());
            let (mut snd_nxt, mut fin_sent) = (1, false);
            // Segments are sent in time order, several at a time; RACK's marking or the
            // lost-retransmission check, not both (either consumes the list of resends).
            let (mut clock, rack) = (0u64, ops.len() % 2 == 0);
            for (op, x, y, len) in ops {
                clock += x % 3;
                let una = b.first().map_or(snd_nxt, |s| s.start);
                let at = |v: u64| una + v % (snd_nxt - una + 1);
                match op {
                    0 | 1 if !fin_sent => {
                        let seg = (snd_nxt, snd_nxt + len);
                        fin_sent = x % 29 == 0;
                        b.push(seg.0, seg.1, SimTime(clock), fin_sent);
                        naive.segs.push(b.segments().last().unwrap());
                        snd_nxt = seg.1;
                    }
                    2 => {
                        let blocks = [
                            SackBlock { left: at(x).min(at(y)), right: at(x).max(at(y)) },
                            SackBlock { left: at(x / 2), right: at(x / 2 + len) },
                            SackBlock { left: at(y + len), right: at(y) },
                            SackBlock { left: at(y / 3), right: at(y / 3 + len / 2) },
                        ];
                        let n = 1 + (len % 4) as usize;
                        let sacked = naive.apply_sack(&blocks[..n]);
                        prop_assert_eq!(b.apply_sack(&blocks[..n]), sacked);
                    }
                    3 if rack => {
                        let before = (SimTime(clock.saturating_sub(y % 8)), at(x));
                        let (wait, now) = (SimTime(len % 4), SimTime(clock));
                        prop_assert_eq!(
                            b.mark_lost_by_time(before, wait, now),
                            naive.mark_lost_by_time(before, wait, now)
                        );
                    }
                    3 => {
                        prop_assert_eq!(b.mark_lost_by_sack(3, 100), naive.mark_lost_by_sack(3, 100));
                        prop_assert_eq!(b.mark_lost_retransmissions(), naive.mark_lost_retransmissions());
                    }
                    4 => {
                        b.mark_lost_at(at(x));
                        if let Some(s) = naive.segs.iter_mut().find(|s| s.start <= at(x) && at(x) < s.end && !s.sacked) {
                            s.lost = true;
                            s.retransmitted = false;
                        }
                    }
                    5 => {
                        let i = b.next_to_retransmit();
                        let first = naive.segs.iter().position(|s| s.lost && !s.retransmitted && !s.sacked);
                        prop_assert_eq!(i, first);
                        if let Some(i) = i {
                            b.on_retransmit(i, SimTime(clock), snd_nxt);
                            let s = &mut naive.segs[i];
                            s.retransmitted = true;
                            (s.tx_count, s.sent_at) = (s.tx_count + 1, SimTime(clock));
                            s.unreported = s.unreported.saturating_add(1);
                            naive.retx_high.insert(s.end, snd_nxt);
                        } else if let Some(last) = naive.segs.last_mut().filter(|s| !s.lost && !s.sacked && len % 3 == 0) {
                            // A tail loss probe.
                            b.on_probe(b.len() - 1, SimTime(clock), snd_nxt);
                            (last.tx_count, last.sent_at) = (last.tx_count + 1, SimTime(clock));
                            last.unreported = last.unreported.saturating_add(1);
                            naive.retx_high.insert(last.end, snd_nxt);
                        }
                    }
                    6 => {
                        let ack = una + x % (1 + (snd_nxt - una) / 2);
                        let (delivered, orig_end) = naive.ack_to(ack);
                        let acked = b.ack_to(ack);
                        prop_assert_eq!((acked.newly_delivered, acked.orig_end), (delivered, orig_end));
                    }
                    _ if len < 20 => {
                        b.mark_all_lost();
                        for s in naive.segs.iter_mut().filter(|s| !s.sacked) {
                            (s.lost, s.retransmitted, s.unreported) = (true, false, 0);
                        }
                    }
                    _ if len < 30 => {
                        b.unmark_lost();
                        for s in naive.segs.iter_mut() {
                            s.lost = false;
                        }
                    }
                    _ => {}
                }
                prop_assert_eq!(b.segments().collect::<Vec<_>>(), naive.segs.clone());
                prop_assert_eq!(b.pipe(), b.pipe_by_scan());
                let sacked: u64 = b.segments().filter(|s| s.sacked).map(|s| s.len()).sum();
                prop_assert_eq!(b.sacked_bytes(), sacked);
            }
        }
    }
}
