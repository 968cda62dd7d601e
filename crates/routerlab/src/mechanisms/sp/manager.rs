//! The SPManager: super-packet admission before an egress queue (§3.3, Algorithm 1; §4 puts
//! it, as a Click element, right before each output queue).
//!
//! Every packet is a super-packet: a regular one is an SP of length 1. On a regular packet or
//! an SP's first packet the router admits iff
//!
//! ```text
//!   queueSpace − 0.7 × spReserved ≥ maxSpLength
//! ```
//!
//! and, for an SP, reserves its `length − 1` remaining packets. A later packet of an admitted SP
//! passes and takes one packet off the reservation; a later packet of an SP the router does not
//! know (refused, or expired) is dropped; the last flag gives back whatever is left (a sender
//! that sends fewer packets than it announced). The state is keyed by (source, destination, SP
//! identifier).
//!
//! Expiry is timer-free, as in the paper: two tables, and every epoch the current one becomes
//! the previous one and the previous one is dropped, so an entry lives one to two epochs. A
//! dropped entry gives its remaining reservation back: reservations cannot leak, and
//! `spReserved` always equals the sum of the live entries. The epoch is the paper's "twice the
//! largest RTT observed": the router observes RTTs as the gap between a flow's SYN and its first
//! data packet (the sender's RTT from this router's point of view, as TAQ's tracker does); or a
//! configured value.
//!
//! Occupancy is counted in packets, as in Click (the paper, §7), or optionally in bytes
//! (free bytes in full-sized-packet units, so maxSpLength and reservations keep their meaning).
//!
//! The paper's variants, selectable ([`SpVariant`]), all sharing the epoch and the accounting:
//! - **Algorithm 1**, the exact table.
//! - **Bloom** (§4): Algorithm 1's admission test, remembered as a Bloom filter of admitted SPs
//!   and packets left per sending host ([`super::table::BloomTable`]).
//! - **Length-aware** (§7, "bases its admission decision on the length of the super-packet"):
//!   our reading — a new SP (or regular packet) needs room for itself, `length` packets, instead
//!   of maxSpLength.
//! - **RED-like** (§7, "only accepts new super-packets under a given threshold"): our reading —
//!   a new SP is admitted while RED's moving average of the queue is below a threshold;
//!   regular packets go to the queue as with no manager; no room is set aside for followers.
//!
//! The paper calls the variants unproven; `routerlab reproduce sp-*` measures them beside
//! Algorithm 1. Every variant counts how often an admitted SP lost a packet at this port after
//! its admission (the queue dropped a follower, or a follower came after its entry expired):
//! the paper's promise is "best effort", and this is how often it was broken.

use std::collections::HashSet;

use super::table::{BloomTable, ExactTable, Follower, SpKey};
use super::wire::SpMark;
use crate::ids::{HostId, PacketId};
use crate::net::packet::FlowKey;
use crate::net::packet::PacketPool;
use crate::net::stage::{PortStage, QueueView};
use crate::qdisc::DropCause;
use crate::units::{SimTime, Size};

/// How long an epoch is.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum SpEpoch {
    /// A configured value.
    Fixed(SimTime),
    /// Twice the largest RTT observed (the paper's choice), `initial` until the first sample.
    Observed { initial: SimTime },
}

/// Which admission algorithm and state the manager runs.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum SpVariant {
    Algorithm1,
    /// A filter of 2^`bits_log2` bits and `hashes` probes per generation.
    Bloom {
        bits_log2: u32,
        hashes: u32,
    },
    LengthAware,
    /// New SPs while RED's average queue (weight `w_q`) is below `threshold` × capacity.
    RedLike {
        threshold: f64,
        w_q: f64,
    },
}

impl SpVariant {
    /// The Bloom variant's defaults: 2²⁰ bits (128 KiB) and 4 hashes per generation.
    pub const BLOOM: SpVariant = SpVariant::Bloom { bits_log2: 20, hashes: 4 };
    /// The RED-like variant's defaults: half the buffer, RED's w_q = 0.002 (Floyd and Jacobson).
    pub const RED_LIKE: SpVariant = SpVariant::RedLike { threshold: 0.5, w_q: 0.002 };

    pub fn name(self) -> &'static str {
        match self {
            SpVariant::Algorithm1 => "algorithm1",
            SpVariant::Bloom { .. } => "bloom",
            SpVariant::LengthAware => "length-aware",
            SpVariant::RedLike { .. } => "red-like",
        }
    }
}

/// What the manager counts queue occupancy in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SpOccupancy {
    Packets,
    Bytes,
}

#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SpParams {
    /// maxSpLength: the free room (beyond the weighted reservations) a new SP or a regular
    /// packet needs. The paper gives no value. Ours: 16, room for a TCP initial window of 10
    /// (RFC 6928, which the paper pairs with SPs, §6.3) with some slack. The 6-bit maximum, 63,
    /// would refuse regular packets into a 100-packet queue once 37 packets wait — a queue
    /// kept two-thirds empty.
    pub max_sp_length: u32,
    /// Weight of the reservations in the admission test: 0.7, the paper's experimentally best
    /// trade-off (§3.3).
    pub reserve_weight: f64,
    pub epoch: SpEpoch,
    pub variant: SpVariant,
    pub occupancy: SpOccupancy,
    /// Per-host accounting (beyond the paper; §7 suggests penalizing senders that do not use
    /// their reservations): a host's new SP is refused while its outstanding reservations plus
    /// the new one's would exceed this many packets. None: no limit (the paper's algorithm).
    pub host_cap: Option<u32>,
}

impl Default for SpParams {
    fn default() -> SpParams {
        SpParams {
            max_sp_length: 16,
            reserve_weight: 0.7,
            epoch: SpEpoch::Observed { initial: SimTime::from_ms(100) },
            variant: SpVariant::Algorithm1,
            occupancy: SpOccupancy::Packets,
            host_cap: None,
        }
    }
}

/// What the manager decided, counted.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SpStats {
    pub regular_accepted: u64,
    pub regular_refused: u64,
    pub sps_admitted: u64,
    pub sps_refused: u64,
    /// Of those, refused by the per-host cap alone.
    pub sps_refused_host_cap: u64,
    /// Packets the admitted SPs announced (their lengths summed).
    pub sp_packets_admitted: u64,
    pub followers_forwarded: u64,
    /// Later packets of SPs refused or expired (or, Bloom, of hosts with nothing left).
    pub followers_dropped: u64,
    /// Admitted SPs that lost a packet at this port after admission.
    pub sps_partially_dropped: u64,
    /// Packets of reservation given back by the last flag, and by expiry.
    pub released_by_last: u64,
    pub released_by_expiry: u64,
    /// The largest spReserved seen.
    pub reserved_peak: u64,
}

/// The admitted SPs, in the variant's form.
#[derive(Debug)]
enum Store {
    Exact(ExactTable),
    Bloom(Box<BloomTable>),
}

#[derive(Debug)]
pub struct SpManager {
    pub p: SpParams,
    /// Packets reserved for admitted SPs: what the live generations hold.
    reserved: u64,
    store: Store,
    next_rotation: Option<SimTime>,
    /// Admitted SPs that lost a packet, this generation and the last (to count each once).
    damaged: [HashSet<SpKey>; 2],
    /// SPs whose entry expired with packets to come, at the last rotation.
    expired: Vec<SpKey>,
    /// RED-like: the moving average of the queue, in packets.
    avg_queue: f64,
    /// RTT sampling: flows whose SYN passed, and when.
    syn_at: std::collections::HashMap<FlowKey, SimTime>,
    max_rtt: Option<SimTime>,
    pub stats: SpStats,
}

impl SpManager {
    pub fn new(p: SpParams) -> SpManager {
        let store = match p.variant {
            SpVariant::Bloom { bits_log2, hashes } => {
                Store::Bloom(Box::new(BloomTable::new(bits_log2, hashes)))
            }
            _ => Store::Exact(ExactTable::new(p.host_cap.is_some())),
        };
        SpManager {
            p,
            reserved: 0,
            store,
            next_rotation: None,
            damaged: [HashSet::new(), HashSet::new()],
            expired: Vec::new(),
            avg_queue: 0.0,
            syn_at: Default::default(),
            max_rtt: None,
            stats: SpStats::default(),
        }
    }

    /// Packets reserved for admitted SPs (spReserved).
    pub fn reserved(&self) -> u64 {
        self.reserved
    }

    /// Entries the manager holds: SPs (exact table) or hosts with packets left (Bloom).
    pub fn live_sps(&self) -> usize {
        match &self.store {
            Store::Exact(t) => t.live(),
            Store::Bloom(t) => t.live(),
        }
    }

    /// The sum of the live entries (what `reserved` must equal).
    pub fn live_reservations(&self) -> u64 {
        match &self.store {
            Store::Exact(t) => t.held(),
            Store::Bloom(t) => t.held(),
        }
    }

    /// The current epoch length.
    pub fn epoch(&self) -> SimTime {
        match self.p.epoch {
            SpEpoch::Fixed(e) => e,
            SpEpoch::Observed { initial } => self.max_rtt.map_or(initial, |r| r + r),
        }
    }

    /// Algorithm 1 (or the variant) for one arriving packet: admit (true) or drop (false).
    /// `free` is the queue's free room in packets (queueSize − queueLength). The RED-like
    /// variant admits every SP here (it needs the queue's average: see `on_arrival`).
    pub fn admit(&mut self, now: SimTime, src: HostId, dst: HostId, mark: SpMark, free: f64) -> bool {
        self.admit_in(now, src, dst, mark, free, None)
    }

    fn admit_in(
        &mut self,
        now: SimTime,
        src: HostId,
        dst: HostId,
        mark: SpMark,
        free: f64,
        red: Option<(f64, f64)>,
    ) -> bool {
        self.rotate(now);
        let key = SpKey { src, dst, id: mark.id };
        if !mark.is_sp() || mark.first {
            let left = (mark.length as u32).saturating_sub(1);
            let mut admitted = self.admission_test(mark, free, red);
            if admitted
                && let Some(cap) = self.p.host_cap
                && self.host_held(src) + left as u64 > cap as u64
            {
                admitted = false;
                self.stats.sps_refused_host_cap += 1;
            }
            match (mark.is_sp(), admitted) {
                (false, true) => self.stats.regular_accepted += 1,
                (false, false) => self.stats.regular_refused += 1,
                (true, true) => {
                    self.stats.sps_admitted += 1;
                    self.stats.sp_packets_admitted += mark.length as u64;
                }
                (true, false) => self.stats.sps_refused += 1,
            }
            if admitted && left > 0 && !mark.last {
                let replaced = match &mut self.store {
                    Store::Exact(t) => t.admit(key, left),
                    Store::Bloom(t) => {
                        t.admit(key, left);
                        0
                    }
                };
                self.reserved = self.reserved - replaced as u64 + left as u64;
                self.stats.reserved_peak = self.stats.reserved_peak.max(self.reserved);
            }
            return admitted;
        }
        let verdict = match &mut self.store {
            Store::Exact(t) => t.follower(key, mark.last),
            Store::Bloom(t) => t.follower(key),
        };
        match verdict {
            Follower::Pass { released } => {
                self.reserved -= 1 + released as u64;
                self.stats.released_by_last += released as u64;
                self.stats.followers_forwarded += 1;
                true
            }
            Follower::Unknown | Follower::Exhausted => {
                self.stats.followers_dropped += 1;
                let was_admitted = verdict == Follower::Exhausted || self.expired.binary_search(&key).is_ok();
                if was_admitted {
                    self.mark_damaged(key);
                }
                false
            }
        }
    }

    /// Packets reserved for `host`'s SPs.
    pub fn host_held(&self, host: HostId) -> u64 {
        match &self.store {
            Store::Exact(t) => t.host_held(host),
            Store::Bloom(t) => t.host_held(host),
        }
    }

    /// May a regular packet or a new SP in?
    fn admission_test(&self, mark: SpMark, free: f64, red: Option<(f64, f64)>) -> bool {
        let room = free - self.reserved as f64 * self.p.reserve_weight;
        match self.p.variant {
            SpVariant::Algorithm1 | SpVariant::Bloom { .. } => room >= self.p.max_sp_length as f64,
            SpVariant::LengthAware => room >= mark.length.max(1) as f64,
            // Regular packets: the queue decides, as with no manager.
            SpVariant::RedLike { threshold, .. } => match red {
                _ if !mark.is_sp() => true,
                Some((avg, capacity)) => avg < threshold * capacity,
                None => true,
            },
        }
    }

    /// An admitted SP lost a packet: count it once.
    fn mark_damaged(&mut self, key: SpKey) {
        if !self.damaged[1].contains(&key) && self.damaged[0].insert(key) {
            self.stats.sps_partially_dropped += 1;
        }
    }

    /// A TCP segment passed: SYN-to-first-data gaps are the router's RTT samples.
    pub fn observe(&mut self, now: SimTime, key: FlowKey, syn: bool, payload: u32) {
        if !matches!(self.p.epoch, SpEpoch::Observed { .. }) {
            return;
        }
        if syn {
            self.syn_at.insert(key, now);
        } else if payload > 0
            && !self.syn_at.is_empty()
            && let Some(t) = self.syn_at.remove(&key)
        {
            let rtt = now.saturating_sub(t);
            self.max_rtt = Some(self.max_rtt.map_or(rtt, |m| m.max(rtt)));
        }
    }

    /// Swap the generations for every epoch that ended by `now`; what falls out gives its
    /// reservation back.
    fn rotate(&mut self, now: SimTime) {
        let epoch = self.epoch();
        let next = *self.next_rotation.get_or_insert(now + epoch);
        if now < next {
            return;
        }
        // A long silence: the newer generation is stale too.
        let both = now >= next + epoch;
        self.next_rotation = Some(if both { now + epoch } else { next + epoch });
        self.expired.clear();
        let given_back = match &mut self.store {
            Store::Exact(t) => t.rotate(both, &mut self.expired),
            Store::Bloom(t) => t.rotate(both),
        };
        self.reserved -= given_back;
        self.stats.released_by_expiry += given_back;
        self.damaged.swap(0, 1);
        self.damaged[0].clear();
        if both {
            self.damaged[1].clear();
        }
    }

    /// Free room and the RED-like variant's (average, capacity), in the configured unit.
    fn room(&mut self, q: &QueueView) -> (f64, Option<(f64, f64)>) {
        let Some(cap) = q.capacity_packets else { return (f64::INFINITY, None) };
        let (cap, queued) = match self.p.occupancy {
            SpOccupancy::Packets => (cap as f64, q.packets as f64),
            SpOccupancy::Bytes => (cap as f64, q.bytes as f64 / Size::FULL_PACKET_BYTES as f64),
        };
        if let SpVariant::RedLike { w_q, .. } = self.p.variant {
            self.avg_queue += w_q * (queued - self.avg_queue);
        }
        ((cap - queued).max(0.0), Some((self.avg_queue, cap)))
    }
}

impl PortStage for SpManager {
    fn on_arrival(
        &mut self,
        now: SimTime,
        pkt: PacketId,
        pool: &mut PacketPool,
        q: &QueueView,
    ) -> Result<(), DropCause> {
        let p = pool.get(pkt);
        // RTT samples only matter to an observed epoch: skip reading the 5-tuple otherwise.
        if matches!(self.p.epoch, SpEpoch::Observed { .. })
            && let Some((key, syn)) = FlowKey::of(p)
        {
            self.observe(now, key, syn, p.tcp.payload_len.into());
        }
        let (src, dst, mark) = (p.ip.src, p.ip.dst, SpMark::read(&p.ip));
        let (free, red) = self.room(q);
        if self.admit_in(now, src, dst, mark, free, red) { Ok(()) } else { Err(DropCause::Admission) }
    }

    fn on_lost(&mut self, _now: SimTime, pkt: PacketId, pool: &PacketPool) {
        let ip = &pool.get(pkt).ip;
        let mark = SpMark::read(ip);
        if mark.is_sp() {
            self.mark_damaged(SpKey { src: ip.src, dst: ip.dst, id: mark.id });
        }
    }

    fn counters(&self) -> Vec<(&'static str, u64)> {
        let s = &self.stats;
        vec![
            ("regular_accepted", s.regular_accepted),
            ("regular_refused", s.regular_refused),
            ("sps_admitted", s.sps_admitted),
            ("sps_refused", s.sps_refused),
            ("sps_refused_host_cap", s.sps_refused_host_cap),
            ("sp_packets_admitted", s.sp_packets_admitted),
            ("followers_forwarded", s.followers_forwarded),
            ("followers_dropped", s.followers_dropped),
            ("sps_partially_dropped", s.sps_partially_dropped),
            ("released_by_last", s.released_by_last),
            ("released_by_expiry", s.released_by_expiry),
            ("reserved_peak", s.reserved_peak),
            ("reserved_at_end", self.reserved),
        ]
    }

    fn name(&self) -> &'static str {
        "sp-manager"
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    const A: HostId = HostId(1);
    const B: HostId = HostId(2);

    fn ms(x: u64) -> SimTime {
        SimTime::from_ms(x)
    }

    fn fixed(epoch_ms: u64) -> SpManager {
        SpManager::new(SpParams { epoch: SpEpoch::Fixed(ms(epoch_ms)), ..Default::default() })
    }

    fn first(id: u16, length: u8) -> SpMark {
        SpMark { first: true, last: false, length, id }
    }

    fn next(id: u16, length: u8) -> SpMark {
        SpMark { first: false, last: false, length, id }
    }

    const REGULAR: SpMark = SpMark { first: false, last: false, length: 0, id: 0 };

    #[test]
    fn admission_needs_max_sp_length_of_room_beyond_the_weighted_reservations() {
        let mut m = fixed(1000);
        // Room 40: a 31-packet SP reserves 30.
        assert!(m.admit(ms(0), A, B, first(1, 31), 40.0));
        assert_eq!(m.reserved(), 30);
        // 40 − 0.7 × 30 = 19 ≥ 16: admitted; 35 − 21 = 14 < 16: refused, regular or SP.
        assert!(m.admit(ms(0), A, B, REGULAR, 40.0));
        assert!(!m.admit(ms(0), A, B, REGULAR, 35.0));
        assert!(!m.admit(ms(0), A, B, first(2, 5), 35.0));
        assert_eq!(m.reserved(), 30, "a refused SP reserves nothing");
        assert_eq!(m.stats.regular_refused + m.stats.sps_refused, 2);
    }

    #[test]
    fn followers_consume_the_reservation_and_the_entry_goes_at_zero() {
        let mut m = fixed(1000);
        assert!(m.admit(ms(0), A, B, first(7, 3), 100.0));
        assert_eq!((m.reserved(), m.live_sps()), (2, 1));
        assert!(
            m.admit(ms(1), A, B, next(7, 3), 0.0),
            "an admitted SP's packet passes even into a full queue"
        );
        assert_eq!(m.reserved(), 1);
        assert!(m.admit(ms(2), A, B, next(7, 3), 0.0));
        assert_eq!((m.reserved(), m.live_sps()), (0, 0));
        assert!(!m.admit(ms(3), A, B, next(7, 3), 100.0), "a fourth packet is not reserved");
        // The key includes both addresses: the same id from another source is another SP.
        assert!(!m.admit(ms(3), B, A, next(7, 3), 100.0));
    }

    #[test]
    fn a_refused_sp_never_puts_a_packet_in_the_queue() {
        let mut m = fixed(1000);
        assert!(!m.admit(ms(0), A, B, first(9, 10), 10.0));
        for t in 1..10 {
            assert!(!m.admit(ms(t), A, B, next(9, 10), 100.0), "room or not, its followers are dropped");
        }
        assert_eq!(m.stats.followers_dropped, 9);
        assert_eq!(m.reserved(), 0);
    }

    #[test]
    fn the_last_flag_gives_back_what_is_left() {
        let mut m = fixed(1000);
        assert!(m.admit(ms(0), A, B, first(3, 10), 100.0));
        assert!(m.admit(ms(1), A, B, next(3, 10), 100.0));
        assert_eq!(m.reserved(), 8);
        assert!(m.admit(ms(2), A, B, SpMark { last: true, ..next(3, 10) }, 100.0));
        assert_eq!((m.reserved(), m.live_sps()), (0, 0));
        assert_eq!(m.stats.released_by_last, 7);
    }

    #[test]
    fn expiry_returns_the_reservation_after_one_to_two_epochs() {
        let mut m = fixed(100);
        assert!(m.admit(ms(0), A, B, first(1, 20), 100.0)); // epochs end at 100, 200, …
        assert!(m.admit(ms(150), A, B, next(1, 20), 100.0), "one epoch old: still known");
        assert_eq!(m.reserved(), 18);
        assert!(m.admit(ms(210), A, B, REGULAR, 100.0)); // the 200 ms swap drops it
        assert_eq!((m.reserved(), m.live_sps()), (0, 0));
        assert_eq!(m.stats.released_by_expiry, 18);
        assert!(!m.admit(ms(220), A, B, next(1, 20), 100.0), "its late packets are dropped");
        // A long silence expires both tables at once.
        assert!(m.admit(ms(230), A, B, first(2, 5), 100.0));
        assert!(m.admit(ms(900), A, B, REGULAR, 100.0));
        assert_eq!(m.reserved(), 0);
    }

    #[test]
    fn the_observed_epoch_is_twice_the_largest_handshake_rtt() {
        let mut m = SpManager::new(SpParams::default());
        assert_eq!(m.epoch(), ms(100), "before any sample");
        let key = |p| FlowKey { src: A, dst: B, sport: p, dport: 80 };
        m.observe(ms(0), key(1), true, 0);
        m.observe(ms(30), key(1), false, 1000);
        assert_eq!(m.epoch(), ms(60), "the first sample replaces the initial epoch");
        m.observe(ms(10), key(2), true, 0);
        m.observe(ms(80), key(2), false, 1000);
        m.observe(ms(200), key(2), false, 1000); // not a sample: its SYN is spent
        m.observe(ms(90), key(1), false, 1000); // nor this: key 1's was taken
        assert_eq!(m.epoch(), ms(140), "twice the largest, 70 ms");
    }

    #[test]
    fn byte_occupancy_counts_small_packets_as_what_they_fill() {
        // 60 ACK-sized packets (60 B each) in a 100-packet queue: 40 packets free counted in
        // packets, but nearly the whole buffer counted in bytes.
        let q = QueueView {
            packets: 60,
            bytes: 60 * 60,
            capacity_packets: Some(100),
            rate: crate::units::Rate::from_mbps(100),
            in_service_bytes: 0,
        };
        let mut by_packets = SpManager::new(SpParams::default());
        assert_eq!(by_packets.room(&q).0, 40.0);
        let mut by_bytes = SpManager::new(SpParams { occupancy: SpOccupancy::Bytes, ..Default::default() });
        assert!((by_bytes.room(&q).0 - 97.6).abs() < 1e-9);
        // A queue without a fixed capacity never runs out of room.
        assert_eq!(by_bytes.room(&QueueView { capacity_packets: None, ..q }).0, f64::INFINITY);
    }

    #[test]
    fn the_red_like_variant_admits_new_sps_only_under_its_average_threshold() {
        let mut m = SpManager::new(SpParams { variant: SpVariant::RED_LIKE, ..Default::default() });
        let q = |packets| QueueView {
            packets,
            bytes: packets as u64 * 1500,
            capacity_packets: Some(100),
            rate: crate::units::Rate::from_mbps(100),
            in_service_bytes: 0,
        };
        // A full queue for a long while drives the average over half the buffer.
        let mut red = None;
        for _ in 0..2000 {
            red = m.room(&q(90)).1;
        }
        let (avg, cap) = red.unwrap();
        assert!(avg > 50.0 && cap == 100.0);
        assert!(!m.admit_in(ms(0), A, B, first(1, 10), 10.0, red), "a new SP is refused");
        assert!(m.admit_in(ms(0), A, B, REGULAR, 10.0, red), "regular packets are left to the queue");
        let (idle_avg, _) = SpManager::new(m.p).room(&q(90)).1.unwrap();
        assert!(m.admit_in(ms(0), A, B, first(2, 10), 10.0, Some((idle_avg, 100.0))), "under it, admitted");
    }

    proptest! {
        /// Whatever arrives, spReserved never goes negative (it would panic) and always equals
        /// the sum of the live entries.
        #[test]
        fn reservations_equal_the_live_entries(
            steps in prop::collection::vec((0u64..40, 0u16..6, 0u8..4, 0u8..12, 0usize..120), 1..300)
        ) {
            let mut m = fixed(50);
            let mut now = SimTime::ZERO;
            for (dt, id, kind, length, free) in steps {
                now += ms(dt);
                let mark = match kind {
                    0 => REGULAR,
                    1 => first(id, length),
                    2 => next(id, length),
                    _ => SpMark { last: true, ..next(id, length) },
                };
                let src = if id % 2 == 0 { A } else { B };
                m.admit(now, src, B, mark, free as f64);
                prop_assert_eq!(m.reserved(), m.live_reservations());
            }
        }
    }
}
