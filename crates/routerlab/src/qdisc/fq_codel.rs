//! FQ-CoDel: flow queuing with CoDel (RFC 8290; Linux `net/sched/sch_fq_codel.c`).
//!
//! Principles: packets are hashed (5-tuple, salted) into `flows` queues. Queues with packets
//! are served by deficit round robin with a `quantum` of bytes, in two lists: a queue that
//! becomes active joins the *new* list, which is served first (so sparse flows — a DNS query, a
//! TCP handshake — go ahead of bulk); when its deficit runs out it moves to the *old* list. Each
//! queue runs its own CoDel ([`super::codel`]) at dequeue. When the whole qdisc is over its packet
//! limit or memory limit, it drops from the head of the fattest queue: up to half of that queue's
//! bytes, at most `drop_batch` packets — one linear scan over a dense array of the queues'
//! backlogs, amortized over the batch, as Linux does — and adds the batch to that queue's CoDel
//! drop count.
//!
//! Parameters and defaults (Linux): `limit` 10240 packets, `flows` 1024, `quantum` 1514 bytes,
//! `target` 5 ms, `interval` 100 ms, `memory_limit` 32 MB, `ecn` on, `drop_batch` 64.
//!
//! Counters: CoDel drops (`Early`), ECN marks, overload drops: `OverMemory` when the memory
//! limit was exceeded, else `Overflow` (the packet limit; Linux counts both in
//! `drop_overlimit` and the first also in `drop_overmemory`).

use std::collections::VecDeque;

use super::codel::{CodelParams, CodelVars, codel_dequeue};
use super::{DropCause, Qdisc, QdiscStats, Verdict};
use crate::ids::PacketId;
use crate::net::packet::PacketPool;
use crate::rng::{SimRng, splitmix64};
use crate::units::SimTime;

#[derive(Clone, Copy, Debug, PartialEq)]
pub struct FqCodelParams {
    pub limit_packets: u64,
    pub memory_limit_bytes: u64,
    pub flows: u32,
    pub quantum: u32,
    pub codel: CodelParams,
    pub drop_batch: u32,
}

impl Default for FqCodelParams {
    fn default() -> FqCodelParams {
        FqCodelParams {
            limit_packets: 10_240,
            memory_limit_bytes: 32 << 20,
            flows: 1024,
            quantum: 1514,
            codel: CodelParams::default(),
            drop_batch: 64,
        }
    }
}

#[derive(Debug, Default)]
struct Flow {
    queue: VecDeque<PacketId>,
    deficit: i64,
    codel: CodelVars,
    listed: bool,
}

#[derive(Debug)]
pub struct FqCodel {
    p: FqCodelParams,
    salt: u64,
    flows: Vec<Flow>,
    /// Bytes queued in each flow, dense (the overload scan reads 4 bytes per flow).
    backlogs: Vec<u32>,
    new_flows: VecDeque<u32>,
    old_flows: VecDeque<u32>,
    packets: usize,
    bytes: u64,
    stats: QdiscStats,
}

impl FqCodel {
    pub fn new(p: FqCodelParams, mut rng: SimRng) -> FqCodel {
        FqCodel {
            salt: rng.next_u64(),
            flows: (0..p.flows).map(|_| Flow::default()).collect(),
            backlogs: vec![0; p.flows as usize],
            new_flows: VecDeque::new(),
            old_flows: VecDeque::new(),
            packets: 0,
            bytes: 0,
            stats: QdiscStats::default(),
            p,
        }
    }

    fn classify(&self, flow_hash: u32) -> usize {
        (splitmix64(flow_hash as u64 ^ self.salt) % self.p.flows as u64) as usize
    }

    /// Queue index a packet with this 5-tuple hash lands in (for tests and observers).
    pub fn queue_of(&self, flow_hash: u32) -> usize {
        self.classify(flow_hash)
    }

    /// Drop up to half of the fattest queue's bytes from its head (at most `drop_batch`), as
    /// `cause`, and count the batch in that queue's CoDel.
    fn drop_from_fattest(
        &mut self,
        pool: &mut PacketPool,
        drops: &mut Vec<(PacketId, DropCause)>,
        cause: DropCause,
    ) -> usize {
        // The first of the largest backlogs, as Linux's scan finds it.
        let mut fat = 0;
        for (i, &b) in self.backlogs.iter().enumerate() {
            if b > self.backlogs[fat] {
                fat = i;
            }
        }
        let threshold = self.backlogs[fat] / 2;
        let f = &mut self.flows[fat];
        let mut dropped_bytes = 0;
        let mut n = 0;
        while n < self.p.drop_batch && dropped_bytes < threshold.max(1) {
            let Some(pkt) = f.queue.pop_front() else { break };
            let len = pool.get(pkt).ip_len();
            self.backlogs[fat] -= len;
            dropped_bytes += len;
            self.bytes -= len as u64;
            self.packets -= 1;
            self.stats.count_drop(cause);
            drops.push((pkt, cause));
            n += 1;
        }
        f.codel.add_drops(n);
        fat
    }
}

impl Qdisc for FqCodel {
    fn enqueue(
        &mut self,
        now: SimTime,
        pkt: PacketId,
        pool: &mut PacketPool,
        drops: &mut Vec<(PacketId, DropCause)>,
    ) -> Verdict {
        let p = pool.get_mut(pkt);
        p.meta.enqueued_at = now;
        let len = p.ip_len() as u64;
        let idx = self.classify(p.meta.flow_hash);
        let f = &mut self.flows[idx];
        f.queue.push_back(pkt);
        self.backlogs[idx] = self.backlogs[idx].saturating_add(len as u32);
        if !f.listed {
            f.listed = true;
            f.deficit = self.p.quantum as i64;
            self.new_flows.push_back(idx as u32);
        }
        self.packets += 1;
        self.bytes += len;
        self.stats.enqueued += 1;
        self.stats.note_occupancy(self.packets, self.bytes);
        let over_memory = self.bytes > self.p.memory_limit_bytes;
        if self.packets as u64 > self.p.limit_packets || over_memory {
            let before = drops.len();
            let cause = if over_memory { DropCause::OverMemory } else { DropCause::Overflow };
            self.drop_from_fattest(pool, drops, cause);
            // Was the arrival itself among the victims?
            if let Some(pos) = drops[before..].iter().position(|&(d, _)| d == pkt) {
                let (d, cause) = drops.remove(before + pos);
                return Verdict::Dropped(d, cause);
            }
        }
        Verdict::Enqueued
    }

    fn dequeue(
        &mut self,
        now: SimTime,
        pool: &mut PacketPool,
        drops: &mut Vec<(PacketId, DropCause)>,
    ) -> Option<PacketId> {
        loop {
            let from_new = !self.new_flows.is_empty();
            let idx = *(if from_new { self.new_flows.front() } else { self.old_flows.front() })? as usize;
            if self.flows[idx].deficit <= 0 {
                self.flows[idx].deficit += self.p.quantum as i64;
                let list = if from_new { &mut self.new_flows } else { &mut self.old_flows };
                list.pop_front();
                self.old_flows.push_back(idx as u32);
                continue;
            }
            let before = drops.len();
            let f = &mut self.flows[idx];
            let (queue, bytes) = (&mut f.queue, &mut self.backlogs[idx]);
            let bytes_cell = std::cell::Cell::new(*bytes as u64);
            let (pkt, outcome) = codel_dequeue(
                &mut f.codel,
                &self.p.codel,
                now,
                pool,
                &mut |pool: &mut PacketPool| {
                    let p = queue.pop_front()?;
                    bytes_cell.set(bytes_cell.get() - pool.get(p).ip_len() as u64);
                    Some(p)
                },
                &mut || bytes_cell.get(),
                drops,
            );
            *bytes = bytes_cell.get() as u32;
            for &(d, _) in &drops[before..] {
                self.packets -= 1;
                self.bytes -= pool.get(d).ip_len() as u64;
            }
            self.stats.drops[DropCause::Early as usize] += outcome.drops as u64;
            self.stats.ecn_marks += outcome.marks as u64;
            match pkt {
                Some(p) => {
                    let len = pool.get(p).ip_len() as u64;
                    self.flows[idx].deficit -= len as i64;
                    self.packets -= 1;
                    self.bytes -= len;
                    self.stats.dequeued += 1;
                    return Some(p);
                }
                None => {
                    // Empty: a new flow goes to the old list (so it cannot re-enter the new
                    // list at once) if there are old flows; otherwise it leaves.
                    let list = if from_new { &mut self.new_flows } else { &mut self.old_flows };
                    list.pop_front();
                    if from_new && !self.old_flows.is_empty() {
                        self.old_flows.push_back(idx as u32);
                    } else {
                        self.flows[idx].listed = false;
                    }
                }
            }
        }
    }

    fn len_packets(&self) -> usize {
        self.packets
    }
    fn len_bytes(&self) -> u64 {
        self.bytes
    }
    fn stats(&self) -> QdiscStats {
        self.stats.clone()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::net::packet::{Ecn, Packet};
    use crate::rng::StreamId;

    fn pkt(pool: &mut PacketPool, flow_hash: u32, ecn: Ecn) -> PacketId {
        let mut p = Packet::default();
        p.ip.total_len = 1500;
        p.ip.set_ecn(ecn);
        p.meta.flow_hash = flow_hash;
        pool.alloc(p)
    }

    fn q(p: FqCodelParams) -> FqCodel {
        FqCodel::new(p, SimRng::new(1, StreamId::Qdisc(0)))
    }

    /// Two hashes that land in different queues.
    fn distinct(q: &FqCodel) -> (u32, u32) {
        let a = 1;
        let b = (2..).find(|&h| q.queue_of(h) != q.queue_of(a)).unwrap();
        (a, b)
    }

    #[test]
    fn a_sparse_flow_goes_ahead_of_a_backlogged_one() {
        let mut fq = q(FqCodelParams::default());
        let mut pool = PacketPool::new();
        let mut drops = Vec::new();
        let (bulk, sparse) = distinct(&fq);
        for _ in 0..50 {
            let id = pkt(&mut pool, bulk, Ecn::NotEct);
            fq.enqueue(SimTime(0), id, &mut pool, &mut drops);
        }
        // The bulk flow has been served a while (moved to the old list).
        for _ in 0..3 {
            fq.dequeue(SimTime(0), &mut pool, &mut drops).unwrap();
        }
        let s = pkt(&mut pool, sparse, Ecn::NotEct);
        fq.enqueue(SimTime(0), s, &mut pool, &mut drops);
        assert_eq!(fq.dequeue(SimTime(0), &mut pool, &mut drops), Some(s));
    }

    #[test]
    fn flows_share_by_bytes_round_robin() {
        let mut fq = q(FqCodelParams::default());
        let mut pool = PacketPool::new();
        let mut drops = Vec::new();
        let (a, b) = distinct(&fq);
        for _ in 0..100 {
            for h in [a, a, a, b] {
                let id = pkt(&mut pool, h, Ecn::NotEct);
                fq.enqueue(SimTime(0), id, &mut pool, &mut drops);
            }
        }
        // Over the first 100 departures the two flows get 50 each although `a` offered 3×.
        let mut from_a = 0;
        for _ in 0..100 {
            let p = fq.dequeue(SimTime(0), &mut pool, &mut drops).unwrap();
            from_a += (pool.get(p).meta.flow_hash == a) as u32;
        }
        assert!((49..=51).contains(&from_a), "{from_a}");
    }

    /// A standing queue: one packet arrives and one leaves every ms, with `standing` packets
    /// queued, so each waits `standing` ms. Above the 5 ms target for more than an interval
    /// (100 ms), CoDel drops (or marks); below target it does nothing.
    fn codel_run(standing: u64, ecn: Ecn) -> (usize, u64) {
        let mut fq = q(FqCodelParams::default());
        let mut pool = PacketPool::new();
        let mut drops = Vec::new();
        let ms = SimTime::from_ms(1);
        for i in 0..standing {
            let id = pkt(&mut pool, 7, ecn);
            fq.enqueue(SimTime(i * ms.0), id, &mut pool, &mut drops);
        }
        let mut dropped = 0;
        for i in standing..2000 {
            let t = SimTime(i * ms.0);
            let id = pkt(&mut pool, 7, ecn);
            fq.enqueue(t, id, &mut pool, &mut drops);
            // Dequeue one packet (CoDel may drop some on the way); refill what was dropped so
            // the queue stays standing.
            fq.dequeue(t, &mut pool, &mut drops);
            dropped += drops.len();
            for _ in 0..drops.len() {
                let id = pkt(&mut pool, 7, ecn);
                fq.enqueue(t, id, &mut pool, &mut Vec::new());
            }
            drops.clear();
        }
        (dropped, fq.stats().ecn_marks)
    }

    #[test]
    fn codel_controls_sojourn_time() {
        let (d, _) = codel_run(20, Ecn::NotEct);
        // After the first interval drops come faster and faster (interval/√count).
        assert!(d > 30, "a 20 ms standing queue is dropped from ({d})");
        let (d, m) = codel_run(20, Ecn::Ect0);
        assert_eq!(d, 0);
        assert!(m > 30, "ECN-capable packets are marked instead ({m})");
        let (d, m) = codel_run(3, Ecn::NotEct);
        assert_eq!((d, m), (0, 0), "below target nothing happens");
    }

    #[test]
    fn overload_drops_from_the_fattest_flow_head_first() {
        let p = FqCodelParams { limit_packets: 20, ..Default::default() };
        let mut fq = q(p);
        let mut pool = PacketPool::new();
        let mut drops = Vec::new();
        let (fat, thin) = distinct(&fq);
        let first = pkt(&mut pool, fat, Ecn::NotEct);
        fq.enqueue(SimTime(0), first, &mut pool, &mut drops);
        for _ in 0..15 {
            let id = pkt(&mut pool, fat, Ecn::NotEct);
            fq.enqueue(SimTime(0), id, &mut pool, &mut drops);
        }
        for _ in 0..4 {
            let id = pkt(&mut pool, thin, Ecn::NotEct);
            fq.enqueue(SimTime(0), id, &mut pool, &mut drops);
        }
        assert!(drops.is_empty());
        let t = pkt(&mut pool, thin, Ecn::NotEct);
        assert_eq!(fq.enqueue(SimTime(0), t, &mut pool, &mut drops), Verdict::Enqueued);
        assert_eq!(drops.len(), 8, "half of the fat flow's 16 packets");
        assert_eq!(drops[0].0, first, "from the head");
        assert!(drops.iter().all(|&(d, _)| pool.get(d).meta.flow_hash == fat));
        assert!(drops.iter().all(|&(_, cause)| cause == DropCause::Overflow), "the packet limit");
        assert_eq!(fq.len_packets(), 13);
        // The batch counts in the fat flow's CoDel (Linux: `cvars.count += i`).
        assert_eq!(fq.flows[fq.queue_of(fat)].codel.count(), 8);
        assert_eq!(fq.flows[fq.queue_of(thin)].codel.count(), 0);
    }

    /// Over the memory limit (and under the packet limit) the overload drops count as
    /// `OverMemory`, apart from the packet limit's `Overflow`.
    #[test]
    fn memory_overload_is_counted_apart_from_the_packet_limit() {
        let p = FqCodelParams { memory_limit_bytes: 10 * 1500, ..Default::default() };
        let mut fq = q(p);
        let mut pool = PacketPool::new();
        let mut drops = Vec::new();
        for _ in 0..11 {
            let id = pkt(&mut pool, 7, Ecn::NotEct);
            fq.enqueue(SimTime(0), id, &mut pool, &mut drops);
        }
        assert!(!drops.is_empty());
        let stats = fq.stats();
        assert_eq!(stats.drops[DropCause::OverMemory as usize], 6, "until half of the bytes are gone");
        assert_eq!(stats.drops[DropCause::Overflow as usize], 0);
    }
}
