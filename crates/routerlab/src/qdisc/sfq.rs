//! SFQ: stochastic fairness queueing (McKenney, INFOCOM 1990; Linux `net/sched/sch_sfq.c`).
//!
//! Packets are hashed (5-tuple, salted) into `divisor` buckets; active buckets are served round
//! robin, each a `quantum` of bytes per turn (deficit round robin, as Linux does). When the
//! qdisc holds more than `limit` packets, or a bucket more than `depth`, the packet at the tail
//! of the longest bucket is dropped — often the arrival itself. With `perturb`, the hash salt
//! changes every that often, so that flows sharing a bucket do not share it forever.
//!
//! Parameters and defaults (Linux): `limit` 127 packets, `depth` 127, `divisor` 1024,
//! `quantum` 1514 bytes, `perturb` off.
//!
//! Counters: overflow drops.

use std::collections::VecDeque;

use super::{DropCause, Qdisc, QdiscStats, Verdict};
use crate::ids::PacketId;
use crate::net::packet::PacketPool;
use crate::rng::{SimRng, splitmix64};
use crate::units::SimTime;

#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SfqParams {
    pub limit: u32,
    pub depth: u32,
    pub divisor: u32,
    pub quantum: u32,
    /// Change the hash salt this often (None: never).
    pub perturb: Option<SimTime>,
}

impl Default for SfqParams {
    fn default() -> SfqParams {
        SfqParams { limit: 127, depth: 127, divisor: 1024, quantum: 1514, perturb: None }
    }
}

#[derive(Debug, Default)]
struct Bucket {
    queue: VecDeque<PacketId>,
    deficit: i64,
    active: bool,
}

#[derive(Debug)]
pub struct Sfq {
    p: SfqParams,
    rng: SimRng,
    salt: u64,
    next_perturb: SimTime,
    buckets: Vec<Bucket>,
    active: VecDeque<u32>,
    packets: usize,
    bytes: u64,
    stats: QdiscStats,
}

impl Sfq {
    pub fn new(p: SfqParams, mut rng: SimRng) -> Sfq {
        Sfq {
            salt: rng.next_u64(),
            next_perturb: p.perturb.unwrap_or(SimTime::MAX),
            buckets: (0..p.divisor).map(|_| Bucket::default()).collect(),
            active: VecDeque::new(),
            packets: 0,
            bytes: 0,
            stats: QdiscStats::default(),
            rng,
            p,
        }
    }

    fn bucket_of(&self, flow_hash: u32) -> usize {
        (splitmix64(flow_hash as u64 ^ self.salt) % self.p.divisor as u64) as usize
    }

    fn perturb(&mut self, now: SimTime) {
        if let Some(period) = self.p.perturb {
            while now >= self.next_perturb {
                self.salt = self.rng.next_u64();
                self.next_perturb += period;
            }
        }
    }
}

impl Qdisc for Sfq {
    fn enqueue(
        &mut self,
        now: SimTime,
        pkt: PacketId,
        pool: &mut PacketPool,
        _drops: &mut Vec<(PacketId, DropCause)>,
    ) -> Verdict {
        self.perturb(now);
        let p = pool.get_mut(pkt);
        p.meta.enqueued_at = now;
        let len = p.ip_len() as u64;
        let b = self.bucket_of(p.meta.flow_hash);
        let bucket = &mut self.buckets[b];
        bucket.queue.push_back(pkt);
        if !bucket.active {
            bucket.active = true;
            bucket.deficit = self.p.quantum as i64;
            self.active.push_back(b as u32);
        }
        self.packets += 1;
        self.bytes += len;
        if self.packets as u32 > self.p.limit || bucket.queue.len() as u32 > self.p.depth {
            // Drop from the tail of the longest bucket (lowest index on ties).
            let longest = (0..self.buckets.len())
                .max_by_key(|&i| (self.buckets[i].queue.len(), std::cmp::Reverse(i)))
                .unwrap();
            let victim = self.buckets[longest].queue.pop_back().unwrap();
            self.packets -= 1;
            self.bytes -= pool.get(victim).ip_len() as u64;
            self.stats.count_drop(DropCause::Overflow);
            if victim == pkt {
                return Verdict::Dropped(pkt, DropCause::Overflow);
            }
            self.stats.enqueued += 1;
            return Verdict::PushedOut(victim, DropCause::Overflow);
        }
        self.stats.enqueued += 1;
        self.stats.note_occupancy(self.packets, self.bytes);
        Verdict::Enqueued
    }

    fn dequeue(
        &mut self,
        _now: SimTime,
        pool: &mut PacketPool,
        _drops: &mut Vec<(PacketId, DropCause)>,
    ) -> Option<PacketId> {
        loop {
            let b = *self.active.front()? as usize;
            let bucket = &mut self.buckets[b];
            let Some(&head) = bucket.queue.front() else {
                bucket.active = false;
                self.active.pop_front();
                continue;
            };
            if bucket.deficit <= 0 {
                bucket.deficit += self.p.quantum as i64;
                self.active.pop_front();
                self.active.push_back(b as u32);
                continue;
            }
            bucket.queue.pop_front();
            let len = pool.get(head).ip_len() as u64;
            bucket.deficit -= len as i64;
            if bucket.queue.is_empty() {
                bucket.active = false;
                self.active.pop_front();
            }
            self.packets -= 1;
            self.bytes -= len;
            self.stats.dequeued += 1;
            return Some(head);
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
    use crate::net::packet::Packet;
    use crate::rng::StreamId;

    fn pkt(pool: &mut PacketPool, flow_hash: u32) -> PacketId {
        let mut p = Packet::default();
        p.ip.total_len = 1500;
        p.meta.flow_hash = flow_hash;
        pool.alloc(p)
    }

    #[test]
    fn backlogged_flows_get_equal_service_and_the_longest_loses_on_overflow() {
        let mut q =
            Sfq::new(SfqParams { limit: 40, ..Default::default() }, SimRng::new(3, StreamId::Qdisc(1)));
        let mut pool = PacketPool::new();
        let mut drops = Vec::new();
        // Four flows in distinct buckets; flow 0 offers 4× the others.
        let mut hashes = vec![1u32];
        let mut h = 2;
        while hashes.len() < 4 {
            if hashes.iter().all(|&x| q.bucket_of(x) != q.bucket_of(h)) {
                hashes.push(h);
            }
            h += 1;
        }
        let mut overflow_victims = [0u32; 4];
        let mut served = [0u32; 4];
        for round in 0..2000 {
            for (i, &fh) in hashes.iter().enumerate() {
                for _ in 0..(if i == 0 { 4 } else { 1 }) {
                    let id = pkt(&mut pool, fh);
                    match q.enqueue(SimTime(round), id, &mut pool, &mut drops) {
                        Verdict::Dropped(v, _) | Verdict::PushedOut(v, _) => {
                            let k = hashes.iter().position(|&x| x == pool.get(v).meta.flow_hash).unwrap();
                            overflow_victims[k] += 1;
                            pool.free(v);
                        }
                        _ => {}
                    }
                }
            }
            // The link serves 4 packets per round (less than the 7 offered).
            for _ in 0..4 {
                let p = q.dequeue(SimTime(round), &mut pool, &mut drops).unwrap();
                let k = hashes.iter().position(|&x| x == pool.get(p).meta.flow_hash).unwrap();
                served[k] += 1;
                pool.free(p);
            }
        }
        // Fair share: each flow gets about a quarter; the aggressive flow bears the drops.
        for s in served {
            assert!((1900..=2100).contains(&s), "{served:?}");
        }
        assert!(
            overflow_victims[0] > 5000 && overflow_victims[1..].iter().all(|&v| v < 100),
            "{overflow_victims:?}"
        );
    }
}
