//! RED: Random Early Detection (Floyd & Jacobson, "Random Early Detection Gateways for
//! Congestion Avoidance", IEEE/ACM ToN 1993), with gentle mode (Floyd, 2000) and ECN marking
//! (RFC 3168 §7), as ns-2's `red.cc` runs it (and ns-3's `RedQueueDisc`, which follows it).
//!
//! On every arrival the average queue is updated, `avg ← (1 − w_q)·avg + w_q·q`; after an idle
//! period the average decays as if `m` small packets had been sent, `avg ← (1 − w_q)^m · avg`,
//! with m = idle time / the transmission time of a typical packet (§11 of the paper). The queue
//! is idle whenever it is empty: an arrival that is dropped into an empty queue leaves it idle,
//! and a new idle period starts at once (Linux does so when its dequeue finds the queue empty
//! after the drop), so the average keeps decaying while flows wait for their timers. Then, if
//! the arrival finds at least `early_min_queue` packets waiting (ns-2's `qlen > 1`: RED does
//! not drop into a nearly empty queue, however high its lagging average):
//! - `avg < min_th`: enqueue;
//! - `min_th ≤ avg < max_th`: p_b = max_p·(avg − min_th)/(max_th − min_th), spread by the count
//!   of arrivals since the last drop (the paper's uniform spacing); the arrival is dropped —
//!   or, if it is ECN-capable and `ecn` is on, marked CE — with probability p_a. With `wait`
//!   (ns-2's `wait_`, on by default there and in ns-3) p_a = 0 until count·p_b reaches 1, then
//!   p_b/(2 − count·p_b): drops come 1/p_b to 2/p_b arrivals apart. Without it p_a = p_b/(1 −
//!   count·p_b) (the paper's): 1 to 1/p_b apart. The first arrival after the average enters
//!   the region only starts the count;
//! - `max_th ≤ avg < 2·max_th` in gentle mode: p_b rises linearly from max_p to 1;
//! - above that (or above max_th without gentle mode): drop every arrival (`harddrop`, ns-2's
//!   behaviour and RFC 3168 §7's advice for a persistently full queue); without `harddrop`,
//!   mark ECN-capable arrivals there too, as Linux's `sch_red` does unless `TC_RED_HARDDROP`.
//!
//! A hard `limit` still applies (tail drop).
//!
//! Parameters and defaults (ns-2's RED defaults, which most papers used): `min_th` 5 packets,
//! `max_th` 15 packets (3 × min_th, as Floyd recommends), `max_p` 0.1, `w_q` 0.002, gentle on,
//! `wait` on, `early_min_queue` 2, ECN off, hard drop on. Linux's `sch_red` is `wait` off,
//! `early_min_queue` 0, `harddrop` off. Thresholds and `limit` in packets or bytes (byte mode
//! compares bytes).
//!
//! Counters: early drops (`Early`), ECN marks, overflow drops.

use super::fifo::PacketFifo;
use super::{DropCause, Qdisc, QdiscStats, Verdict};
use crate::ids::PacketId;
use crate::net::packet::{Ecn, PacketPool};
use crate::rng::SimRng;
use crate::units::{SimTime, Size};

#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RedParams {
    pub limit: Size,
    pub min_th: Size,
    pub max_th: Size,
    pub max_p: f64,
    pub w_q: f64,
    pub gentle: bool,
    pub ecn: bool,
    /// Above the marking region, drop ECN-capable arrivals too (ns-2); off: mark them (Linux).
    pub harddrop: bool,
    /// ns-2's `wait_`: at least 1/p_b arrivals between early drops (see the module).
    pub wait: bool,
    /// Packets an arrival must find waiting for RED to drop or mark it (ns-2: 2).
    pub early_min_queue: u32,
}

impl RedParams {
    /// ns-2's defaults for everything but the hard limit.
    pub fn with_limit(limit: Size) -> RedParams {
        RedParams {
            limit,
            min_th: Size::Packets(5),
            max_th: Size::Packets(15),
            max_p: 0.1,
            w_q: 0.002,
            gentle: true,
            ecn: false,
            harddrop: true,
            // ns-2's `Queue/RED set wait_ true` (ns-default.tcl); ns-3's `Wait` is true too.
            wait: true,
            // ns-2's `red.cc` (and ns-3's `nQueued > 1`): no drop into a nearly empty queue.
            early_min_queue: 2,
        }
    }
}

#[derive(Debug)]
pub struct Red {
    p: RedParams,
    fifo: PacketFifo,
    avg: f64,
    /// Arrivals since the last early drop or mark (ns-2's `count`).
    count: u64,
    /// The last arrival found the average in the drop region (ns-2's `old`).
    in_region: bool,
    /// When the queue went idle (None while busy).
    idle_since: Option<SimTime>,
    /// Transmission time of a typical (1500-byte) packet, for the idle decay.
    typical_tx: SimTime,
    rng: SimRng,
    stats: QdiscStats,
}

fn amount(s: Size) -> f64 {
    match s {
        Size::Packets(n) | Size::Bytes(n) => n as f64,
    }
}

impl Red {
    pub fn new(p: RedParams, rng: SimRng, typical_tx: SimTime) -> Red {
        Red {
            fifo: PacketFifo::default(),
            p,
            avg: 0.0,
            count: 0,
            in_region: false,
            idle_since: Some(SimTime::ZERO),
            typical_tx,
            rng,
            stats: QdiscStats::default(),
        }
    }

    /// The current average queue (packets or bytes, as the thresholds).
    pub fn avg(&self) -> f64 {
        self.avg
    }

    fn instantaneous(&self) -> f64 {
        self.fifo.amount(self.p.min_th) as f64
    }

    fn update_avg(&mut self, now: SimTime) {
        if let Some(t) = self.idle_since.take() {
            let m = (now - t).0 as f64 / self.typical_tx.0.max(1) as f64;
            self.avg *= libm::pow(1.0 - self.p.w_q, m);
        } else {
            self.avg = (1.0 - self.p.w_q) * self.avg + self.p.w_q * self.instantaneous();
        }
    }

    /// The early drop/mark probability p_b for the current average (None: above the region
    /// where marking is allowed — drop).
    pub fn p_b(&self) -> Option<f64> {
        let (min, max) = (amount(self.p.min_th), amount(self.p.max_th));
        let avg = self.avg;
        if avg < min {
            Some(0.0)
        } else if avg < max {
            Some(self.p.max_p * (avg - min) / (max - min))
        } else if self.p.gentle && avg < 2.0 * max {
            Some(self.p.max_p + (1.0 - self.p.max_p) * (avg - max) / max)
        } else {
            None
        }
    }
}

impl Qdisc for Red {
    fn enqueue(
        &mut self,
        now: SimTime,
        pkt: PacketId,
        pool: &mut PacketPool,
        _drops: &mut Vec<(PacketId, DropCause)>,
    ) -> Verdict {
        let verdict = self.admit(now, pkt, pool);
        self.idle_if_empty(now);
        verdict
    }

    fn dequeue(
        &mut self,
        now: SimTime,
        pool: &mut PacketPool,
        _drops: &mut Vec<(PacketId, DropCause)>,
    ) -> Option<PacketId> {
        let pkt = self.fifo.pop(pool)?;
        self.stats.dequeued += 1;
        self.idle_if_empty(now);
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
}

impl Red {
    /// An empty queue is idle from `now` (after a departure, or an arrival it did not keep).
    fn idle_if_empty(&mut self, now: SimTime) {
        if self.fifo.is_empty() {
            self.idle_since = Some(now);
        }
    }

    /// p_a: p_b spread by the count of arrivals since the last drop (ns-2's `modify_p`).
    fn spaced(&self, pb: f64) -> f64 {
        let c = self.count as f64 * pb;
        let pa = match self.p.wait {
            true if c < 1.0 => 0.0,
            true if c < 2.0 => pb / (2.0 - c),
            false if c < 1.0 => pb / (1.0 - c),
            _ => 1.0,
        };
        pa.min(1.0)
    }

    /// Whether the arrival is dropped or marked early: None: no; Some(forced) — forced above
    /// the marking region (where `harddrop` drops even ECN-capable arrivals).
    fn early(&mut self, waiting: usize) -> Option<bool> {
        self.count += 1;
        let spared = waiting < self.p.early_min_queue as usize;
        let pb = match self.p_b() {
            Some(pb) if pb > 0.0 && !spared => pb,
            None if !spared => return Some(true),
            _ => {
                self.in_region = false;
                return None;
            }
        };
        if !self.in_region {
            // The average has just entered the region: start counting.
            self.in_region = true;
            self.count = 1;
            return None;
        }
        if self.rng.bernoulli(self.spaced(pb)) {
            self.count = 0;
            return Some(false);
        }
        None
    }

    /// Update the average, then enqueue, mark or drop the arrival.
    fn admit(&mut self, now: SimTime, pkt: PacketId, pool: &mut PacketPool) -> Verdict {
        let waiting = self.fifo.len();
        self.update_avg(now);
        let len = pool.get(pkt).ip_len() as u64;
        if let Some(forced) = self.early(waiting) {
            let p = pool.get_mut(pkt);
            if self.p.ecn && p.ip.ecn().is_ect() && !(forced && self.p.harddrop) {
                p.ip.set_ecn(Ecn::Ce);
                self.stats.ecn_marks += 1;
            } else {
                self.stats.count_drop(DropCause::Early);
                return Verdict::Dropped(pkt, DropCause::Early);
            }
        }
        if self.fifo.would_exceed(self.p.limit, len) {
            self.stats.count_drop(DropCause::Overflow);
            return Verdict::Dropped(pkt, DropCause::Overflow);
        }
        let (packets, bytes) = self.fifo.push(now, pkt, pool);
        self.stats.enqueued += 1;
        self.stats.note_occupancy(packets, bytes);
        Verdict::Enqueued
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::net::packet::Packet;
    use crate::rng::StreamId;

    fn pkt(pool: &mut PacketPool, ecn: Ecn) -> PacketId {
        let mut p = Packet::default();
        p.ip.total_len = 1500;
        p.ip.set_ecn(ecn);
        pool.alloc(p)
    }

    /// With w_q = 1 the average is the instantaneous queue: hold the queue at `q` packets and
    /// offer many arrivals; the fraction dropped is 1/E[X], X the arrivals from one drop to the
    /// next, whose survival function is the product of (1 − p_a(count)) over the counts —
    /// p_a by ns-2's rule, with or without `wait`.
    fn expected_fraction(pb: f64, wait: bool) -> f64 {
        if pb == 0.0 {
            return 0.0;
        }
        let pa = |count: f64| {
            let c = count * pb;
            let p = match wait {
                true if c < 1.0 => 0.0,
                true if c < 2.0 => pb / (2.0 - c),
                false if c < 1.0 => pb / (1.0 - c),
                _ => 1.0,
            };
            f64::min(p, 1.0)
        };
        let (mut survive, mut mean_gap) = (1.0, 0.0);
        for k in 1.. {
            mean_gap += survive; // P(X ≥ k)
            survive *= 1.0 - pa(k as f64);
            if survive <= 0.0 {
                break;
            }
        }
        1.0 / mean_gap
    }

    fn red_holding(q: usize, params: RedParams, pool: &mut PacketPool) -> Red {
        let mut red = Red::new(params, SimRng::new(1, StreamId::Qdisc(0)), SimTime::from_us(12));
        for _ in 0..q {
            let id = pkt(pool, Ecn::NotEct);
            red.fifo.push(SimTime::ZERO, id, pool);
        }
        red.idle_since = None;
        red
    }

    /// (fraction dropped, p_b, smallest number of arrivals from one drop to the next).
    fn drop_fraction(q: usize, gentle: bool, wait: bool) -> (f64, Option<f64>, u64) {
        let mut pool = PacketPool::new();
        let params = RedParams { w_q: 1.0, gentle, wait, ..RedParams::with_limit(Size::Packets(1000)) };
        let mut red = red_holding(q, params, &mut pool);
        let mut drops = Vec::new();
        let n = 200_000;
        let (mut dropped, mut since, mut min_gap) = (0, 0u64, u64::MAX);
        for _ in 0..n {
            let id = pkt(&mut pool, Ecn::NotEct);
            since += 1;
            match red.enqueue(SimTime(1), id, &mut pool, &mut drops) {
                Verdict::Dropped(p, _) => {
                    dropped += 1;
                    if dropped > 1 {
                        min_gap = min_gap.min(since);
                    }
                    since = 0;
                    pool.free(p);
                }
                _ => {
                    // Keep the queue length constant: take one out.
                    let out = red.dequeue(SimTime(1), &mut pool, &mut drops).unwrap();
                    pool.free(out);
                    red.idle_since = None;
                }
            }
        }
        (dropped as f64 / n as f64, red.p_b(), min_gap)
    }

    #[test]
    fn drop_probability_follows_the_red_curve_with_and_without_wait() {
        for wait in [false, true] {
            for q in [7usize, 10, 13] {
                let (f, pb, min_gap) = drop_fraction(q, false, wait);
                let pb = pb.unwrap();
                let expect = expected_fraction(pb, wait);
                assert!((f - expect).abs() < 0.01 + 0.05 * expect, "q={q} wait={wait}: {f} vs {expect}");
                // With wait, drops are at least 1/p_b arrivals apart.
                if wait {
                    assert!(min_gap as f64 >= (1.0 / pb).floor(), "q={q}: gap {min_gap}, p_b {pb}");
                } else {
                    assert!(min_gap < (1.0 / pb).floor() as u64, "q={q}: gap {min_gap}, p_b {pb}");
                }
            }
        }
        // wait spaces drops out: fewer of them at the same average.
        assert!(drop_fraction(10, false, true).0 < 0.75 * drop_fraction(10, false, false).0);
        // Above max_th without gentle mode: everything dropped.
        assert_eq!(drop_fraction(16, false, true).0, 1.0);
        // Gentle: between max_th and 2·max_th p_b rises from max_p to 1 (avg 20 → p_b = 0.4).
        let (f, pb, _) = drop_fraction(20, true, false);
        assert!((pb.unwrap() - 0.4).abs() < 1e-9);
        let expect = expected_fraction(0.4, false);
        assert!((expect - 0.75).abs() < 1e-12);
        assert!((f - expect).abs() < 0.02, "{f} vs {expect}");
        assert_eq!(drop_fraction(31, true, true).0, 1.0);
    }

    /// However high the (lagging) average, an arrival that finds fewer than `early_min_queue`
    /// packets waiting is neither dropped nor marked (ns-2's `qlen > 1`); with 0, it is.
    #[test]
    fn a_nearly_empty_queue_is_not_dropped_into() {
        for (min_queue, waiting, dropped) in [(2, 0, false), (2, 1, false), (2, 2, true), (0, 0, true)] {
            let params =
                RedParams { early_min_queue: min_queue, ..RedParams::with_limit(Size::Packets(100)) };
            let mut pool = PacketPool::new();
            let mut red = red_holding(waiting, params, &mut pool);
            red.avg = 40.0; // above 2·max_th: a forced drop where RED drops at all
            let id = pkt(&mut pool, Ecn::NotEct);
            let v = red.enqueue(SimTime(1), id, &mut pool, &mut Vec::new());
            assert_eq!(matches!(v, Verdict::Dropped(..)), dropped, "{min_queue} {waiting}");
        }
    }

    #[test]
    fn ecn_capable_arrivals_are_marked_instead_of_dropped() {
        let mut pool = PacketPool::new();
        let params =
            RedParams { w_q: 1.0, max_p: 1.0, ecn: true, ..RedParams::with_limit(Size::Packets(1000)) };
        let mut red = Red::new(params, SimRng::new(1, StreamId::Qdisc(0)), SimTime::from_us(12));
        for _ in 0..15 {
            let id = pkt(&mut pool, Ecn::Ect0);
            red.enqueue(SimTime(0), id, &mut pool, &mut Vec::new());
        }
        let (marks, drops) = (red.stats().ecn_marks, red.stats().drops[DropCause::Early as usize]);
        assert!(marks > 0);
        assert_eq!(drops, 0);
    }

    /// Above 2·max_th (gentle) an ECN-capable arrival is dropped with `harddrop` (ns-2) and
    /// marked without it (Linux); one that is not ECN-capable is dropped either way.
    #[test]
    fn above_the_marking_region_harddrop_decides_between_drop_and_mark() {
        for harddrop in [true, false] {
            let mut pool = PacketPool::new();
            let params =
                RedParams { w_q: 1.0, ecn: true, harddrop, ..RedParams::with_limit(Size::Packets(1000)) };
            let mut red = Red::new(params, SimRng::new(1, StreamId::Qdisc(0)), SimTime::from_us(12));
            // 40 queued (a queue of 40 packets, the average with w_q = 1): above 2·max_th = 30.
            for _ in 0..40 {
                let id = pkt(&mut pool, Ecn::NotEct);
                red.fifo.push(SimTime(0), id, &mut pool);
            }
            red.idle_since = None;
            let ect = pkt(&mut pool, Ecn::Ect0);
            let v = red.enqueue(SimTime(0), ect, &mut pool, &mut Vec::new());
            assert_eq!(matches!(v, Verdict::Enqueued), !harddrop, "harddrop {harddrop}");
            if !harddrop {
                assert_eq!(pool.get(ect).ip.ecn(), Ecn::Ce);
            }
            let not_ect = pkt(&mut pool, Ecn::NotEct);
            let v = red.enqueue(SimTime(0), not_ect, &mut pool, &mut Vec::new());
            assert!(matches!(v, Verdict::Dropped(_, DropCause::Early)));
        }
    }

    #[test]
    fn average_decays_while_idle() {
        let mut pool = PacketPool::new();
        let mut red = Red::new(
            RedParams::with_limit(Size::Packets(100)),
            SimRng::new(1, StreamId::Qdisc(0)),
            SimTime::from_us(12),
        );
        red.avg = 10.0;
        red.idle_since = Some(SimTime::ZERO);
        // 500 typical packet times idle: avg × 0.998^500 ≈ 3.67.
        let id = pkt(&mut pool, Ecn::NotEct);
        red.enqueue(SimTime::from_us(6000), id, &mut pool, &mut Vec::new());
        assert!((red.avg() - 10.0 * 0.998f64.powi(500)).abs() < 1e-6, "{}", red.avg());
    }

    /// An arrival dropped into an empty queue leaves it empty: the idle period goes on from
    /// the drop, so the average keeps decaying with time (without it, a queue whose average
    /// sat above 2·max_th dropped every later arrival and the link stopped).
    #[test]
    fn a_dropped_arrival_does_not_end_the_idle_period() {
        let mut pool = PacketPool::new();
        // Linux's rule: RED drops into an empty queue too.
        let mut red = Red::new(
            RedParams { early_min_queue: 0, ..RedParams::with_limit(Size::Packets(100)) },
            SimRng::new(1, StreamId::Qdisc(0)),
            SimTime::from_us(12),
        );
        red.avg = 100.0;
        red.idle_since = Some(SimTime::ZERO);
        let id = pkt(&mut pool, Ecn::Ect0);
        // After 500 packet times the average is 36.7, above 2·max_th: dropped.
        let v = red.enqueue(SimTime::from_us(6000), id, &mut pool, &mut Vec::new());
        assert!(matches!(v, Verdict::Dropped(_, DropCause::Early)));
        assert_eq!(red.len_packets(), 0);
        // 500 more packet times later the idle decay has gone on: 100 × 0.998^1000.
        let id = pkt(&mut pool, Ecn::Ect0);
        red.enqueue(SimTime::from_us(12_000), id, &mut pool, &mut Vec::new());
        assert!((red.avg() - 100.0 * 0.998f64.powi(1000)).abs() < 1e-6, "{}", red.avg());
    }
}
