//! DropTail: a FIFO that refuses arrivals once full.
//!
//! Parameters
//! - `limit`: capacity in packets (`"100pkts"`) or in bytes (`"150KB"`); no default — a
//!   scenario always states its buffer.
//! - `ecn_threshold` (optional): DCTCP-style marking — an ECN-capable arrival that finds the
//!   instantaneous queue at or above K (packets or bytes, like `limit`) is marked CE instead of
//!   being left alone (RFC 8257 §3.1; Alizadeh et al., "Data Center TCP", SIGCOMM 2010).
//!   Arrivals that are not ECN-capable are unaffected. Overflow still drops.
//!
//! Counters: enqueued, dequeued, overflow drops, ECN marks, high-water mark.

use super::fifo::PacketFifo;
use super::{DropCause, Qdisc, QdiscStats, Verdict};
use crate::ids::PacketId;
use crate::net::packet::{Ecn, PacketPool};
use crate::units::{SimTime, Size};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DropTailParams {
    pub limit: Size,
    pub ecn_threshold: Option<Size>,
}

/// Fields in the order every packet reads them (`repr(C)` keeps it): a port's queue is then
/// about two cache lines.
#[derive(Debug)]
#[repr(C)]
pub struct DropTail {
    fifo: PacketFifo,
    params: DropTailParams,
    stats: QdiscStats,
}

impl DropTail {
    /// Bytes from its start that every packet reads: the FIFO, the limit, and the first four
    /// counters.
    pub const HOT_BYTES: usize = std::mem::offset_of!(DropTail, stats) + 4 * 8;

    pub fn new(params: DropTailParams) -> DropTail {
        DropTail { fifo: PacketFifo::default(), params, stats: QdiscStats::default() }
    }

    /// Would every packet of at most `max_len` bytes arriving at the empty queue be queued
    /// unchanged: held by the limit, and not marked (a threshold of 0 marks at an empty
    /// queue)? Then an idle port may put such a packet straight on the wire ([`Port`]'s queue
    /// bypass), and the queue would have done nothing but count it.
    ///
    /// [`Port`]: crate::net::port::Port
    pub fn passes_through_when_empty(&self, max_len: u64) -> bool {
        !self.params.limit.exceeded_by(0, 0, max_len)
            && self.params.ecn_threshold.is_none_or(|k| !PacketFifo::default().at_or_above(k))
    }
}

impl Qdisc for DropTail {
    fn enqueue(
        &mut self,
        now: SimTime,
        pkt: PacketId,
        pool: &mut PacketPool,
        _drops: &mut Vec<(PacketId, DropCause)>,
    ) -> Verdict {
        let p = pool.get_mut(pkt);
        let len = p.ip_len() as u64;
        if self.fifo.would_exceed(self.params.limit, len) {
            self.stats.count_drop(DropCause::Overflow);
            return Verdict::Dropped(pkt, DropCause::Overflow);
        }
        if let Some(k) = self.params.ecn_threshold
            && p.ip.ecn().is_ect()
            && self.fifo.at_or_above(k)
        {
            p.ip.set_ecn(Ecn::Ce);
            self.stats.ecn_marks += 1;
        }
        let (packets, bytes) = self.fifo.push(now, pkt, pool);
        self.stats.enqueued += 1;
        self.stats.note_occupancy(packets, bytes);
        Verdict::Enqueued
    }

    fn dequeue(
        &mut self,
        _now: SimTime,
        pool: &mut PacketPool,
        _drops: &mut Vec<(PacketId, DropCause)>,
    ) -> Option<PacketId> {
        let pkt = self.fifo.pop(pool)?;
        self.stats.dequeued += 1;
        Some(pkt)
    }

    fn len_packets(&self) -> usize {
        self.fifo.len()
    }
    fn len_bytes(&self) -> u64 {
        self.fifo.bytes()
    }
    fn stats(&self) -> QdiscStats {
        self.stats.clone()
    }
    fn capacity_packets(&self) -> Option<usize> {
        Some(self.params.limit.in_full_packets())
    }
    fn room_packets(&self) -> Option<usize> {
        Some(self.fifo.room_packets(self.params.limit))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::net::packet::Packet;

    fn pkt(pool: &mut PacketPool, len: u16, ecn: Ecn) -> PacketId {
        let mut p = Packet::default();
        p.ip.total_len = len;
        p.ip.set_ecn(ecn);
        pool.alloc(p)
    }

    #[test]
    fn packet_limit_drops_the_arrival_when_full() {
        let mut pool = PacketPool::new();
        let mut q = DropTail::new(DropTailParams { limit: Size::Packets(2), ecn_threshold: None });
        let a = pkt(&mut pool, 1500, Ecn::NotEct);
        let b = pkt(&mut pool, 1500, Ecn::NotEct);
        let c = pkt(&mut pool, 40, Ecn::NotEct);
        assert_eq!(q.enqueue(SimTime(0), a, &mut pool, &mut Vec::new()), Verdict::Enqueued);
        assert_eq!(q.enqueue(SimTime(0), b, &mut pool, &mut Vec::new()), Verdict::Enqueued);
        assert_eq!(
            q.enqueue(SimTime(0), c, &mut pool, &mut Vec::new()),
            Verdict::Dropped(c, DropCause::Overflow)
        );
        let mut drops = Vec::new();
        assert_eq!(q.dequeue(SimTime(1), &mut pool, &mut drops), Some(a));
        assert_eq!(q.len_bytes(), 1500);
        assert_eq!(q.stats().drops[DropCause::Overflow as usize], 1);
        assert_eq!(q.stats().high_water_packets, 2);
    }

    #[test]
    fn byte_limit_counts_bytes() {
        let mut pool = PacketPool::new();
        let mut q = DropTail::new(DropTailParams { limit: Size::Bytes(3000), ecn_threshold: None });
        let a = pkt(&mut pool, 1500, Ecn::NotEct);
        let b = pkt(&mut pool, 1460, Ecn::NotEct);
        let c = pkt(&mut pool, 41, Ecn::NotEct);
        let d = pkt(&mut pool, 40, Ecn::NotEct);
        assert_eq!(q.enqueue(SimTime(0), a, &mut pool, &mut Vec::new()), Verdict::Enqueued);
        assert_eq!(q.enqueue(SimTime(0), b, &mut pool, &mut Vec::new()), Verdict::Enqueued);
        assert!(matches!(q.enqueue(SimTime(0), c, &mut pool, &mut Vec::new()), Verdict::Dropped(..)));
        assert_eq!(q.enqueue(SimTime(0), d, &mut pool, &mut Vec::new()), Verdict::Enqueued);
    }

    #[test]
    fn threshold_marks_ect_arrivals_only() {
        let mut pool = PacketPool::new();
        let k = Size::Packets(1);
        let mut q = DropTail::new(DropTailParams { limit: Size::Packets(10), ecn_threshold: Some(k) });
        let first = pkt(&mut pool, 1500, Ecn::Ect0);
        let second = pkt(&mut pool, 1500, Ecn::Ect0);
        let legacy = pkt(&mut pool, 1500, Ecn::NotEct);
        q.enqueue(SimTime(0), first, &mut pool, &mut Vec::new());
        q.enqueue(SimTime(0), second, &mut pool, &mut Vec::new());
        q.enqueue(SimTime(0), legacy, &mut pool, &mut Vec::new());
        assert_eq!(pool.get(first).ip.ecn(), Ecn::Ect0, "queue was below K");
        assert_eq!(pool.get(second).ip.ecn(), Ecn::Ce, "queue at K");
        assert_eq!(pool.get(legacy).ip.ecn(), Ecn::NotEct, "not ECN-capable");
        assert_eq!(q.stats().ecn_marks, 1);
    }
}
