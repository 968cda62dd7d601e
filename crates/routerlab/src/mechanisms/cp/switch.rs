//! CP's switch part: cut the payload of a packet the data queue has no room for, and send its
//! header through a small buffer served ahead of data.
//!
//! ```text
//!   arrival ─▶ data queue (drop-tail, RED, TAQ) ─no room─▶ cut payload ─▶ header buffer ─┐
//!        │                                                                  (full: drop) │
//!        └─ already cut ─────────────────────────────────────────────────▶ header buffer ┤
//!                                               dequeue: header buffer first, then data ◀┘
//! ```
//!
//! Only what the data queue lets go of for lack of buffer is turned into a cut: a tail drop
//! (`DropCause::Overflow`) or a packet pushed out to make room (`DropCause::PushedOut`, TAQ's
//! eviction of its lowest class's tail: with TAQ as the data queue, TAQ chooses the victim and
//! CP saves its header — our combination, docs/matrix.md). RED's early drops and the data
//! queue's own admission refusals (TAQ's) stay drops: they are congestion signals or policy, not
//! overflow. A packet an admission stage in front refused (the SPManager) is cut as overflow is
//! (`take_refused`). A packet with no payload to cut (a
//! SYN, a pure ACK, a bare FIN) that the data queue has no room for is already header-only: it
//! takes the header buffer as it is, unmarked — so that CP's promise of no silent loss covers
//! connection setup too. A cut packet is small ([`CpParams::cut_bytes`]: 52 bytes of IPv4,
//! TCP and timestamp option by default, the slides' 66 less Ethernet's header), so a buffer
//! below one packet holds while the input rate stays under ≈ 13.1 × the output rate (the
//! slides: 864-byte average packets / 66-byte headers); beyond that headers are dropped too.
//! Cuts and header drops are counted apart (`drops[PayloadCut]`, `drops[HeaderOverflow]`); a
//! header drop means the condition was exceeded at that moment. The condition itself is
//! metered too ([`OverloadMeter`]): the time during which the bytes arriving at the port
//! exceeded 13.1 × what the output link can send, measured over fixed windows.
//!
//! Headers are served with strict priority by default, as the slides draw it, so when they arrive faster
//! than the link sends (hundreds of senders cut at once) they starve the data queue: the data
//! waits while the link carries nothing but headers, and its senders time out with nothing
//! lost. This is not hidden: the queue counts the transmission time of every header sent while
//! data was waiting (`data_starved_us` in the results' `stages` table, with `headers_sent` and
//! `header_bytes_sent`). [`CpParams::data_share`] (ours) guarantees data a share of the link
//! while both wait.

use std::collections::VecDeque;

use crate::builtins::AnyQdisc;
use crate::ids::PacketId;
use crate::net::flow_epoch::FlowEpoch;
use crate::net::packet::{IPV4_HEADER_BYTES, PROTO_TCP, Packet, PacketPool};
use crate::qdisc::{DropCause, Qdisc, QdiscStats, Verdict};
use crate::units::{Rate, SimTime};

#[derive(Clone, Copy, Debug, PartialEq)]
pub struct CpParams {
    /// Header buffer, bytes (IP lengths, as every queue here counts them). The slides: "Extra
    /// Buffer: < 1 packet size"; 1452 B, below one 1500-byte packet, holds 27 cut packets of
    /// the default 52 B (22 if each were counted with its 14-byte Ethernet header, 66 B).
    pub header_buffer_bytes: u64,
    /// IP length of a cut packet, at least its own headers (a segment whose TCP options make
    /// them longer keeps them). The slides: "Header: 66B", an Ethernet frame of a TCP segment
    /// with timestamps: less Ethernet's 14-byte header, 52 B of IPv4 (20), TCP (20) and the
    /// timestamp option (12), whether or not the endpoints negotiated timestamps.
    pub cut_bytes: u16,
    /// Input/output rate ratio up to which a sub-packet header buffer suffices: the slides'
    /// 13.1 (864-byte average packets / 66-byte headers). Only the overload report uses it.
    pub overload_ratio: f64,
    /// The least share of the link's bytes data gets while headers and data both wait. The
    /// slides serve headers strictly first (0, the default); above 0, headers and data share
    /// the link as a weighted round robin in bytes, so that a flood of headers cannot starve
    /// the data behind them (our option, beyond the slides).
    pub data_share: f64,
    /// Window over which the input rate is compared with `overload_ratio` × the output rate.
    /// The slides give none; 100 µs (our choice) is about one datacenter RTT, long enough to
    /// read a burst's rate rather than single back-to-back packets.
    pub overload_window: SimTime,
}

impl Default for CpParams {
    fn default() -> CpParams {
        CpParams {
            header_buffer_bytes: 1452,
            cut_bytes: 52,
            data_share: 0.0,
            overload_ratio: 13.1,
            overload_window: SimTime::from_us(100),
        }
    }
}

/// Time during which the input rate exceeded `overload_ratio` × the output rate: the arrivals
/// are summed over consecutive windows (aligned to multiples of the window from time 0), and a
/// window with more than its share counts whole. Windows without arrivals cost nothing.
#[derive(Clone, Debug)]
pub struct OverloadMeter {
    window: SimTime,
    /// Bytes a window may bring without exceeding the condition.
    limit_bytes: u64,
    window_start: SimTime,
    bytes: u64,
    windows_over: u64,
}

impl OverloadMeter {
    pub fn new(params: &CpParams, output: Rate) -> OverloadMeter {
        let window = SimTime(params.overload_window.0.max(1));
        let limit = params.overload_ratio * output.bps() as f64 * window.as_secs_f64() / 8.0;
        OverloadMeter {
            window,
            limit_bytes: limit as u64,
            window_start: SimTime::ZERO,
            bytes: 0,
            windows_over: 0,
        }
    }

    #[inline]
    pub fn arrive(&mut self, now: SimTime, bytes: u64) {
        if now.0 - self.window_start.0 >= self.window.0 {
            self.windows_over += u64::from(self.bytes > self.limit_bytes);
            self.bytes = 0;
            self.window_start = SimTime(now.0 - now.0 % self.window.0);
        }
        self.bytes += bytes;
    }

    /// Total time of the windows (the current one included) that exceeded the condition.
    pub fn overloaded(&self) -> SimTime {
        SimTime((self.windows_over + u64::from(self.bytes > self.limit_bytes)) * self.window.0)
    }
}

/// A data queue with CP's drop processing around it.
#[derive(Debug)]
pub struct CpQueue {
    data: AnyQdisc,
    params: CpParams,
    headers: VecDeque<PacketId>,
    header_bytes: u64,
    /// Drops of the data queue for lack of room that became cuts or header drops: tail drops
    /// (`Overflow`), then push-outs (`PushedOut`).
    converted: [u64; 2],
    cuts: u64,
    header_drops: u64,
    headers_enqueued: u64,
    headers_dequeued: u64,
    overload: OverloadMeter,
    output: Rate,
    header_bytes_sent: u64,
    /// Transmission time of the headers sent while the data queue was not empty.
    data_starved: SimTime,
    /// While both queues wait: header bytes sent × data_share − data bytes sent ×
    /// (1 − data_share); data goes first while it is positive.
    share_balance: f64,
    /// Most bytes the header buffer held.
    pub header_high_water_bytes: u64,
    /// Most packets and bytes held in all (data queue and header buffer).
    high_water_packets: u64,
    high_water_bytes: u64,
}

/// Can CP save this packet from an overflow drop? TCP, whole (not a fragment), not cut already.
fn cuttable(p: &Packet) -> bool {
    p.ip.protocol == PROTO_TCP && !p.ip.is_fragment() && !p.tcp.cut
}

impl CpQueue {
    /// CP around `data`, at a port sending at `output`.
    pub fn new(data: AnyQdisc, params: CpParams, output: Rate) -> CpQueue {
        CpQueue {
            overload: OverloadMeter::new(&params, output),
            output,
            header_bytes_sent: 0,
            data_starved: SimTime::ZERO,
            share_balance: 0.0,
            data,
            params,
            headers: VecDeque::with_capacity(32),
            header_bytes: 0,
            converted: [0; 2],
            cuts: 0,
            header_drops: 0,
            headers_enqueued: 0,
            headers_dequeued: 0,
            header_high_water_bytes: 0,
            high_water_packets: 0,
            high_water_bytes: 0,
        }
    }

    pub fn params(&self) -> &CpParams {
        &self.params
    }

    /// Packets cut, and headers dropped for want of header buffer.
    pub fn cuts(&self) -> u64 {
        self.cuts
    }
    pub fn header_drops(&self) -> u64 {
        self.header_drops
    }
    /// Transmission time of the headers sent while data was waiting behind them.
    pub fn data_starved(&self) -> SimTime {
        self.data_starved
    }

    /// Queue a header-only packet, if the header buffer has room.
    fn admit_header(&mut self, now: SimTime, pkt: PacketId, pool: &mut PacketPool) -> bool {
        let p = pool.get_mut(pkt);
        let len = p.ip_len() as u64;
        if self.header_bytes + len > self.params.header_buffer_bytes {
            self.header_drops += 1;
            return false;
        }
        p.meta.enqueued_at = now;
        self.header_bytes += len;
        self.header_high_water_bytes = self.header_high_water_bytes.max(self.header_bytes);
        self.headers.push_back(pkt);
        self.headers_enqueued += 1;
        true
    }

    /// Cut a packet the data queue let go of for lack of room, for `cause` (a packet without
    /// payload is a header already); false if even its header found no room (it is then lost).
    fn cut_dropped(&mut self, now: SimTime, pkt: PacketId, cause: DropCause, pool: &mut PacketPool) -> bool {
        self.converted[usize::from(cause == DropCause::PushedOut)] += 1;
        self.cut(now, pkt, pool)
    }

    /// The IP length `p` has once cut: its headers, at least `cut_bytes`; a packet without
    /// payload is a header already.
    fn cut_len(&self, p: &Packet) -> u16 {
        if p.tcp.payload_len == 0 {
            return p.ip.total_len;
        }
        ((IPV4_HEADER_BYTES + p.tcp.header_len()) as u16).max(self.params.cut_bytes)
    }

    /// Cut `pkt` and queue its header; false if even the header found no room.
    fn cut(&mut self, now: SimTime, pkt: PacketId, pool: &mut PacketPool) -> bool {
        let len = self.cut_len(pool.get(pkt));
        let p = pool.get_mut(pkt);
        let has_payload = p.tcp.payload_len > 0;
        if has_payload {
            p.tcp.cut = true;
            p.ip.total_len = len;
        }
        let queued = self.admit_header(now, pkt, pool);
        if queued && has_payload {
            self.cuts += 1;
        }
        queued
    }
}

impl Qdisc for CpQueue {
    fn enqueue(
        &mut self,
        now: SimTime,
        pkt: PacketId,
        pool: &mut PacketPool,
        drops: &mut Vec<(PacketId, DropCause)>,
    ) -> Verdict {
        let arriving = pool.get(pkt);
        self.overload.arrive(now, arriving.ip_len() as u64);
        let verdict = if arriving.tcp.cut {
            // Cut upstream: it belongs in the header buffer here too.
            if self.admit_header(now, pkt, pool) {
                Verdict::Enqueued
            } else {
                Verdict::Dropped(pkt, DropCause::HeaderOverflow)
            }
        } else {
            match self.data.enqueue(now, pkt, pool, drops) {
                Verdict::Dropped(p, DropCause::Overflow) if cuttable(pool.get(p)) => {
                    if !self.cut_dropped(now, p, DropCause::Overflow, pool) {
                        Verdict::Dropped(p, DropCause::HeaderOverflow)
                    } else if pool.get(p).tcp.cut {
                        Verdict::Cut(p, DropCause::PayloadCut)
                    } else {
                        Verdict::Enqueued
                    }
                }
                Verdict::PushedOut(v, cause @ (DropCause::Overflow | DropCause::PushedOut))
                    if cuttable(pool.get(v)) =>
                {
                    if self.cut_dropped(now, v, cause, pool) {
                        Verdict::Enqueued
                    } else {
                        Verdict::PushedOut(v, DropCause::HeaderOverflow)
                    }
                }
                other => other,
            }
        };
        // Batch evictions for overflow (FQ-CoDel's) are cut too.
        let mut i = 0;
        while i < drops.len() {
            let (p, cause) = drops[i];
            if cause == DropCause::Overflow && cuttable(pool.get(p)) {
                if self.cut_dropped(now, p, DropCause::Overflow, pool) {
                    drops.swap_remove(i);
                    continue;
                }
                drops[i].1 = DropCause::HeaderOverflow;
            }
            i += 1;
        }
        self.high_water_packets = self.high_water_packets.max(self.len_packets() as u64);
        self.high_water_bytes = self.high_water_bytes.max(self.len_bytes());
        verdict
    }

    fn dequeue(
        &mut self,
        now: SimTime,
        pool: &mut PacketPool,
        drops: &mut Vec<(PacketId, DropCause)>,
    ) -> Option<PacketId> {
        let contended = !self.headers.is_empty() && self.data.len_packets() > 0;
        if contended && self.share_balance > 0.0 {
            // Data's turn: headers have had more than their share while both waited.
            if let Some(p) = self.data.dequeue(now, pool, drops) {
                self.share_balance -= pool.get(p).ip_len() as f64 * (1.0 - self.params.data_share);
                return Some(p);
            }
        }
        match self.headers.pop_front() {
            Some(h) => {
                let len = pool.get(h).ip_len() as u64;
                self.header_bytes -= len;
                self.headers_dequeued += 1;
                self.header_bytes_sent += len;
                if contended {
                    self.data_starved += self.output.tx_time(len);
                    self.share_balance += len as f64 * self.params.data_share;
                }
                Some(h)
            }
            None => self.data.dequeue(now, pool, drops),
        }
    }

    fn len_packets(&self) -> usize {
        self.data.len_packets() + self.headers.len()
    }
    fn len_bytes(&self) -> u64 {
        self.data.len_bytes() + self.header_bytes
    }
    /// The data queue's counters, with its drops for lack of room that became cuts or header
    /// drops moved to those causes, and the header buffer's packets added.
    fn stats(&self) -> QdiscStats {
        let mut s = self.data.stats();
        s.drops[DropCause::Overflow as usize] -= self.converted[0];
        s.drops[DropCause::PushedOut as usize] -= self.converted[1];
        s.drops[DropCause::PayloadCut as usize] += self.cuts;
        s.drops[DropCause::HeaderOverflow as usize] += self.header_drops;
        s.enqueued += self.headers_enqueued;
        s.dequeued += self.headers_dequeued;
        s.high_water_packets = s.high_water_packets.max(self.high_water_packets);
        s.high_water_bytes = s.high_water_bytes.max(self.high_water_bytes);
        s
    }
    fn room_packets(&self) -> Option<usize> {
        self.data.room_packets()
    }
    fn counters(&self) -> Vec<(&'static str, u64)> {
        vec![
            ("headers_sent", self.headers_dequeued),
            ("header_bytes_sent", self.header_bytes_sent),
            ("data_starved_us", self.data_starved.0 / 1_000_000),
            ("header_high_water_bytes", self.header_high_water_bytes),
        ]
    }
    fn capacity_packets(&self) -> Option<usize> {
        self.data.capacity_packets()
    }
    fn overloaded(&self) -> SimTime {
        self.overload.overloaded()
    }
    /// An admission stage in front refused `pkt` (the SPManager, our SP + CP combination,
    /// docs/matrix.md): CP cuts it as it cuts overflow, so its sender hears of the loss at
    /// once; with no room for its header it is left to be dropped as the stage decided.
    fn take_refused(&mut self, now: SimTime, pkt: PacketId, cause: DropCause, pool: &mut PacketPool) -> bool {
        let p = pool.get(pkt);
        let fits = self.header_bytes + self.cut_len(p) as u64 <= self.params.header_buffer_bytes;
        if cause != DropCause::Admission || !cuttable(p) || !fits {
            return false;
        }
        self.overload.arrive(now, p.ip_len() as u64);
        self.cut(now, pkt, pool)
    }
    // The data queue's own observation (TAQ's tracker), through CP.
    fn wants_reverse(&self) -> bool {
        self.data.wants_reverse()
    }
    fn observe_reverse(&mut self, now: SimTime, pkt: &Packet) {
        self.data.observe_reverse(now, pkt);
    }
    fn record_flow_epochs(&mut self) -> bool {
        self.data.record_flow_epochs()
    }
    fn flow_epochs(&self, now: SimTime) -> Option<Vec<FlowEpoch>> {
        self.data.flow_epochs(now)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ids::HostId;
    use crate::net::packet::TcpSegment;
    use crate::qdisc::{DropTail, DropTailParams};
    use crate::units::Size;

    fn data_packet(pool: &mut PacketPool, seq: u64, payload: u32) -> PacketId {
        let tcp = TcpSegment {
            seq,
            ack: 1,
            payload_len: payload as u16,
            src_port: 7,
            dst_port: 9,
            ..Default::default()
        };
        pool.alloc(Packet::tcp_for_test(HostId::default(), HostId::default(), tcp))
    }

    fn cp_droptail(limit: u64, header_buffer_bytes: u64) -> CpQueue {
        let data = AnyQdisc::DropTail(DropTail::new(DropTailParams {
            limit: Size::Packets(limit),
            ecn_threshold: None,
        }));
        CpQueue::new(data, CpParams { header_buffer_bytes, ..Default::default() }, Rate::from_gbps(1))
    }

    #[test]
    fn the_meter_counts_the_windows_whose_input_outran_the_ratio() {
        // 1 Gbps out, 100 µs windows: 13.1 × 12 500 B = 163 750 B may arrive per window.
        let mut m = OverloadMeter::new(&CpParams::default(), Rate::from_gbps(1));
        let w = SimTime::from_us(100);
        for i in 0..109 {
            m.arrive(SimTime(i * 10), 1500); // 163 500 B in window 0: under
        }
        assert_eq!(m.overloaded(), SimTime::ZERO);
        m.arrive(SimTime(w.0 - 1), 1500); // 165 000 B: over, while the window is still open
        assert_eq!(m.overloaded(), w);
        // Windows 1 and 2 pass without arrivals; window 3 is over, window 4 under.
        for i in 0..120 {
            m.arrive(SimTime(3 * w.0 + i), 1500);
        }
        m.arrive(SimTime(4 * w.0 + 5), 1500);
        assert_eq!(m.overloaded(), SimTime(2 * w.0));
    }

    /// TAQ as CP's data queue: a retransmission into a full buffer pushes out the tail of
    /// TAQ's lowest class, and CP cuts that victim instead of losing it: its header goes first,
    /// the retransmission keeps its place, and the push-out is counted as a cut.
    #[test]
    fn a_taq_push_out_is_cut_not_lost() {
        use crate::mechanisms::taq::{TaqParams, TaqQueue};
        let (mut pool, mut drops) = (PacketPool::new(), Vec::new());
        let taq =
            TaqQueue::new(TaqParams { limit: Size::Packets(2), ..Default::default() }, Rate::from_mbps(1));
        let mut q = CpQueue::new(AnyQdisc::Taq(Box::new(taq)), CpParams::default(), Rate::from_mbps(1));
        let first = data_packet(&mut pool, 1, 1460);
        let second = data_packet(&mut pool, 1461, 1460);
        let resent = data_packet(&mut pool, 1, 1460);
        for p in [first, second] {
            assert_eq!(q.enqueue(SimTime(0), p, &mut pool, &mut drops), Verdict::Enqueued);
        }
        assert_eq!(q.enqueue(SimTime(1), resent, &mut pool, &mut drops), Verdict::Enqueued);
        assert!(drops.is_empty());
        assert!(pool.get(second).tcp.cut, "the pushed-out tail lost its payload");
        assert_eq!(q.dequeue(SimTime(2), &mut pool, &mut drops), Some(second), "its header first");
        let s = q.stats();
        assert_eq!(s.drops[DropCause::PushedOut as usize], 0);
        assert_eq!(s.drops[DropCause::PayloadCut as usize], 1);
        assert_eq!(q.cuts(), 1);
    }

    #[test]
    fn overflow_cuts_the_payload_keeps_the_header_and_serves_it_first() {
        let (mut pool, mut drops) = (PacketPool::new(), Vec::new());
        let mut q = cp_droptail(2, 1452);
        let a = data_packet(&mut pool, 1, 1460);
        let b = data_packet(&mut pool, 1461, 1460);
        let c = data_packet(&mut pool, 2921, 1460);
        let before = *pool.get(c);
        assert_eq!(q.enqueue(SimTime(0), a, &mut pool, &mut drops), Verdict::Enqueued);
        assert_eq!(q.enqueue(SimTime(0), b, &mut pool, &mut drops), Verdict::Enqueued);
        assert_eq!(q.enqueue(SimTime(1), c, &mut pool, &mut drops), Verdict::Cut(c, DropCause::PayloadCut));
        let cut = pool.get(c);
        assert!(cut.tcp.cut);
        assert_eq!(cut.ip_len(), 52, "the slides' 66-byte header less Ethernet's 14");
        // Every header field but the length (and the cut mark) is kept, and the range it names.
        assert_eq!(
            (cut.tcp.seq, cut.tcp.payload_len, cut.ip.src, cut.ip.dst),
            (2921, 1460, before.ip.src, before.ip.dst)
        );
        assert_eq!(TcpSegment { cut: false, ..cut.tcp }, before.tcp);
        assert_eq!((q.len_packets(), q.len_bytes()), (3, 2 * 1500 + 52));
        // The header leaves first, then the data in order.
        let order: Vec<_> = std::iter::from_fn(|| q.dequeue(SimTime(2), &mut pool, &mut drops)).collect();
        assert_eq!(order, vec![c, a, b]);
        let s = q.stats();
        assert_eq!(s.drops[DropCause::PayloadCut as usize], 1);
        assert_eq!(s.drops[DropCause::Overflow as usize], 0, "a cut is not an overflow loss");
        assert_eq!(s.total_drops(), 0);
        assert_eq!((s.enqueued, s.dequeued), (3, 3));
    }

    #[test]
    fn a_full_header_buffer_drops_the_header_and_counts_it_apart() {
        let (mut pool, mut drops) = (PacketPool::new(), Vec::new());
        let mut q = cp_droptail(1, 104); // room for two 52-byte headers
        let first = data_packet(&mut pool, 1, 1460);
        q.enqueue(SimTime(0), first, &mut pool, &mut drops);
        let mut verdicts = Vec::new();
        for i in 0..3 {
            let p = data_packet(&mut pool, 1461 + i * 1460, 1460);
            verdicts.push(q.enqueue(SimTime(0), p, &mut pool, &mut drops));
        }
        assert!(matches!(verdicts[0], Verdict::Cut(_, DropCause::PayloadCut)));
        assert!(matches!(verdicts[1], Verdict::Cut(_, DropCause::PayloadCut)));
        assert!(matches!(verdicts[2], Verdict::Dropped(_, DropCause::HeaderOverflow)));
        assert_eq!((q.cuts(), q.header_drops()), (2, 1));
        let s = q.stats();
        assert_eq!(s.drops[DropCause::HeaderOverflow as usize], 1);
        assert_eq!(s.total_drops(), 1, "the header drop is a loss; the cuts are not");
        assert_eq!(q.header_high_water_bytes, 104);
    }

    #[test]
    fn a_packet_without_payload_takes_the_header_buffer_uncut_and_fragments_are_dropped() {
        let (mut pool, mut drops) = (PacketPool::new(), Vec::new());
        let mut q = cp_droptail(1, 1452);
        let first = data_packet(&mut pool, 1, 1460);
        q.enqueue(SimTime(0), first, &mut pool, &mut drops);
        let ack = data_packet(&mut pool, 1, 0);
        assert_eq!(q.enqueue(SimTime(0), ack, &mut pool, &mut drops), Verdict::Enqueued);
        assert!(!pool.get(ack).tcp.cut, "nothing was cut");
        assert_eq!(q.cuts(), 0);
        assert_eq!(q.dequeue(SimTime(0), &mut pool, &mut drops), Some(ack));
        let frag = data_packet(&mut pool, 1461, 1460);
        pool.get_mut(frag).ip.more_fragments = true;
        assert_eq!(
            q.enqueue(SimTime(0), frag, &mut pool, &mut drops),
            Verdict::Dropped(frag, DropCause::Overflow)
        );
        let upstream = data_packet(&mut pool, 2921, 1460);
        let p = pool.get_mut(upstream);
        p.tcp.cut = true;
        p.ip.total_len = 52;
        assert_eq!(q.enqueue(SimTime(0), upstream, &mut pool, &mut drops), Verdict::Enqueued);
        assert_eq!(q.cuts(), 0, "already cut upstream");
        assert_eq!(q.dequeue(SimTime(1), &mut pool, &mut drops), Some(upstream));
        assert_eq!(q.stats().drops[DropCause::Overflow as usize], 1);
    }

    #[test]
    fn with_dctcp_marking_the_data_queue_marks_at_k_and_overflow_is_still_cut() {
        use crate::net::packet::Ecn;
        let (mut pool, mut drops) = (PacketPool::new(), Vec::new());
        let data = AnyQdisc::DropTail(DropTail::new(DropTailParams {
            limit: Size::Packets(2),
            ecn_threshold: Some(Size::Packets(1)),
        }));
        let mut q = CpQueue::new(data, CpParams::default(), Rate::from_gbps(1));
        let pkts: Vec<_> = (0..3u64)
            .map(|i| {
                let p = data_packet(&mut pool, 1 + i * 1460, 1460);
                pool.get_mut(p).ip.set_ecn(Ecn::Ect0);
                p
            })
            .collect();
        assert_eq!(q.enqueue(SimTime(0), pkts[0], &mut pool, &mut drops), Verdict::Enqueued);
        assert_eq!(q.enqueue(SimTime(0), pkts[1], &mut pool, &mut drops), Verdict::Enqueued);
        assert!(matches!(q.enqueue(SimTime(0), pkts[2], &mut pool, &mut drops), Verdict::Cut(..)));
        assert_eq!(pool.get(pkts[0]).ip.ecn(), Ecn::Ect0, "below K");
        assert_eq!(pool.get(pkts[1]).ip.ecn(), Ecn::Ce, "at K");
        let s = q.stats();
        assert_eq!((s.ecn_marks, s.drops[DropCause::PayloadCut as usize]), (1, 1));
    }

    /// Queue `data` full-sized data packets, then `headers` packets cut upstream (52 bytes).
    fn data_then_headers(q: &mut CpQueue, pool: &mut PacketPool, data: u64, headers: u64) {
        let mut drops = Vec::new();
        for i in 0..data {
            let p = data_packet(pool, 1 + i * 1460, 1460);
            q.enqueue(SimTime(0), p, pool, &mut drops);
        }
        for i in 0..headers {
            let h = data_packet(pool, 1_000_000 + i * 1460, 1460);
            let p = pool.get_mut(h);
            p.tcp.cut = true;
            p.ip.total_len = 52;
            q.enqueue(SimTime(0), h, pool, &mut drops);
        }
    }

    #[test]
    fn headers_sent_while_data_waits_are_counted_as_starvation() {
        let (mut pool, mut drops) = (PacketPool::new(), Vec::new());
        let mut q = cp_droptail(2, 1452);
        // Five cut upstream: headers ahead of the two waiting data packets.
        data_then_headers(&mut q, &mut pool, 2, 5);
        while q.dequeue(SimTime(0), &mut pool, &mut drops).is_some() {}
        let header_time = Rate::from_gbps(1).tx_time(52);
        assert_eq!(q.data_starved(), SimTime(5 * header_time.0));
        // A header with no data behind it starves nothing.
        let h = data_packet(&mut pool, 1, 0);
        let mut q = cp_droptail(0, 1452);
        q.enqueue(SimTime(0), h, &mut pool, &mut drops);
        q.dequeue(SimTime(0), &mut pool, &mut drops);
        assert_eq!(q.data_starved(), SimTime::ZERO);
        let c: std::collections::HashMap<_, _> = q.counters().into_iter().collect();
        assert_eq!((c["headers_sent"], c["header_bytes_sent"]), (1, 40));
    }

    #[test]
    fn a_data_share_keeps_headers_from_starving_data() {
        // Ten data packets waiting behind a hundred cut headers.
        let run = |data_share: f64| {
            let (mut pool, mut drops) = (PacketPool::new(), Vec::new());
            let data = AnyQdisc::DropTail(DropTail::new(DropTailParams {
                limit: Size::Packets(10),
                ecn_threshold: None,
            }));
            let params = CpParams { header_buffer_bytes: 1 << 20, data_share, ..Default::default() };
            let mut q = CpQueue::new(data, params, Rate::from_gbps(1));
            data_then_headers(&mut q, &mut pool, 10, 100);
            // Bytes of data among the first 20 packets sent.
            let sent: Vec<_> = (0..20).filter_map(|_| q.dequeue(SimTime(0), &mut pool, &mut drops)).collect();
            sent.iter().map(|&p| pool.get(p)).filter(|p| !p.tcp.cut).map(|p| p.ip_len() as u64).sum::<u64>()
        };
        assert_eq!(run(0.0), 0, "strict priority: every header first");
        let with_half = run(0.5);
        // Half the bytes: one 1500-byte data packet per 29 headers of 52 bytes.
        assert!(with_half > 0 && with_half <= 1500, "{with_half}");
        // 90 % of the bytes: about three headers per data packet, 5 of the 20 packets.
        let with_most = run(0.9);
        assert_eq!(with_most, 5 * 1500);
    }
}
