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
//! Occupancy is counted in packets, as in Click (the paper, §7).

use std::collections::HashMap;

use super::wire::SpMark;
use crate::ids::{HostId, PacketId};
use crate::net::packet::FlowKey;
use crate::net::packet::PacketPool;
use crate::net::stage::{PortStage, QueueView};
use crate::qdisc::DropCause;
use crate::units::SimTime;

/// How long an epoch is.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum SpEpoch {
    /// A configured value.
    Fixed(SimTime),
    /// Twice the largest RTT observed (the paper's choice), `initial` until the first sample.
    Observed { initial: SimTime },
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
}

impl Default for SpParams {
    fn default() -> SpParams {
        SpParams {
            max_sp_length: 16,
            reserve_weight: 0.7,
            epoch: SpEpoch::Observed { initial: SimTime::from_ms(100) },
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
    pub followers_forwarded: u64,
    /// Later packets of SPs refused or expired.
    pub followers_dropped: u64,
    /// Packets of reservation given back by the last flag, and by expiry.
    pub released_by_last: u64,
    pub released_by_expiry: u64,
}

/// The key of Algorithm 1.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
struct SpKey {
    src: HostId,
    dst: HostId,
    id: u16,
}

#[derive(Debug)]
pub struct SpManager {
    pub p: SpParams,
    /// Packets reserved for admitted SPs: the sum of both tables' entries.
    reserved: u64,
    current: HashMap<SpKey, u32>,
    previous: HashMap<SpKey, u32>,
    next_rotation: Option<SimTime>,
    /// RTT sampling: flows whose SYN passed, and when.
    syn_at: HashMap<FlowKey, SimTime>,
    max_rtt: Option<SimTime>,
    pub stats: SpStats,
}

impl SpManager {
    pub fn new(p: SpParams) -> SpManager {
        SpManager {
            p,
            reserved: 0,
            current: HashMap::new(),
            previous: HashMap::new(),
            next_rotation: None,
            syn_at: HashMap::new(),
            max_rtt: None,
            stats: SpStats::default(),
        }
    }

    /// Packets reserved for admitted SPs (spReserved).
    pub fn reserved(&self) -> u64 {
        self.reserved
    }

    /// SPs the manager holds state for.
    pub fn live_sps(&self) -> usize {
        self.current.len() + self.previous.len()
    }

    /// The sum of the live entries (what `reserved` must equal).
    pub fn live_reservations(&self) -> u64 {
        self.current.values().chain(self.previous.values()).map(|&n| n as u64).sum()
    }

    /// The current epoch length.
    pub fn epoch(&self) -> SimTime {
        match self.p.epoch {
            SpEpoch::Fixed(e) => e,
            SpEpoch::Observed { initial } => self.max_rtt.map_or(initial, |r| r + r),
        }
    }

    /// Algorithm 1 for one arriving packet: admit (true) or drop (false). `free` is the queue's
    /// free room in packets (queueSize − queueLength).
    pub fn admit(&mut self, now: SimTime, src: HostId, dst: HostId, mark: SpMark, free: usize) -> bool {
        self.rotate(now);
        let key = SpKey { src, dst, id: mark.id };
        if !mark.is_sp() || mark.first {
            let room = free as f64 - self.reserved as f64 * self.p.reserve_weight;
            let admitted = room >= self.p.max_sp_length as f64;
            let left = (mark.length as u32).saturating_sub(1);
            match (mark.is_sp(), admitted) {
                (false, true) => self.stats.regular_accepted += 1,
                (false, false) => self.stats.regular_refused += 1,
                (true, true) => self.stats.sps_admitted += 1,
                (true, false) => self.stats.sps_refused += 1,
            }
            if admitted && left > 0 && !mark.last {
                // A reused identifier replaces the old entry: give its reservation back first.
                let old = self.current.insert(key, left).or_else(|| self.previous.remove(&key));
                self.reserved = self.reserved - old.unwrap_or(0) as u64 + left as u64;
            }
            return admitted;
        }
        let table = if self.current.contains_key(&key) { &mut self.current } else { &mut self.previous };
        let Some(left) = table.get_mut(&key) else {
            self.stats.followers_dropped += 1;
            return false;
        };
        *left -= 1;
        self.reserved -= 1;
        if mark.last {
            self.reserved -= *left as u64;
            self.stats.released_by_last += *left as u64;
            table.remove(&key);
        } else if *left == 0 {
            table.remove(&key);
        }
        self.stats.followers_forwarded += 1;
        true
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

    /// Swap the tables for every epoch that ended by `now`; what falls out gives its
    /// reservation back.
    fn rotate(&mut self, now: SimTime) {
        let epoch = self.epoch();
        let next = *self.next_rotation.get_or_insert(now + epoch);
        if now < next {
            return;
        }
        let mut expired: u64 = self.previous.values().map(|&n| n as u64).sum();
        self.previous = std::mem::take(&mut self.current);
        if now >= next + epoch {
            // Two swaps due: the newer table is stale too.
            expired += self.previous.values().map(|&n| n as u64).sum::<u64>();
            self.previous.clear();
            self.next_rotation = Some(now + epoch);
        } else {
            self.next_rotation = Some(next + epoch);
        }
        self.reserved -= expired;
        self.stats.released_by_expiry += expired;
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
        if let Some((key, syn)) = FlowKey::of(p) {
            self.observe(now, key, syn, p.tcp.payload_len);
        }
        // A queue without a fixed capacity never runs out of room.
        let free = q.capacity_packets.map_or(usize::MAX, |c| c.saturating_sub(q.packets));
        if self.admit(now, p.ip.src, p.ip.dst, SpMark::read(&p.ip), free) {
            Ok(())
        } else {
            Err(DropCause::Admission)
        }
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
        assert!(m.admit(ms(0), A, B, first(1, 31), 40));
        assert_eq!(m.reserved(), 30);
        // 40 − 0.7 × 30 = 19 ≥ 16: admitted; 35 − 21 = 14 < 16: refused, regular or SP.
        assert!(m.admit(ms(0), A, B, REGULAR, 40));
        assert!(!m.admit(ms(0), A, B, REGULAR, 35));
        assert!(!m.admit(ms(0), A, B, first(2, 5), 35));
        assert_eq!(m.reserved(), 30, "a refused SP reserves nothing");
        assert_eq!(m.stats.regular_refused + m.stats.sps_refused, 2);
    }

    #[test]
    fn followers_consume_the_reservation_and_the_entry_goes_at_zero() {
        let mut m = fixed(1000);
        assert!(m.admit(ms(0), A, B, first(7, 3), 100));
        assert_eq!((m.reserved(), m.live_sps()), (2, 1));
        assert!(m.admit(ms(1), A, B, next(7, 3), 0), "an admitted SP's packet passes even into a full queue");
        assert_eq!(m.reserved(), 1);
        assert!(m.admit(ms(2), A, B, next(7, 3), 0));
        assert_eq!((m.reserved(), m.live_sps()), (0, 0));
        assert!(!m.admit(ms(3), A, B, next(7, 3), 100), "a fourth packet is not reserved");
        // The key includes both addresses: the same id from another source is another SP.
        assert!(!m.admit(ms(3), B, A, next(7, 3), 100));
    }

    #[test]
    fn a_refused_sp_never_puts_a_packet_in_the_queue() {
        let mut m = fixed(1000);
        assert!(!m.admit(ms(0), A, B, first(9, 10), 10));
        for t in 1..10 {
            assert!(!m.admit(ms(t), A, B, next(9, 10), 100), "room or not, its followers are dropped");
        }
        assert_eq!(m.stats.followers_dropped, 9);
        assert_eq!(m.reserved(), 0);
    }

    #[test]
    fn the_last_flag_gives_back_what_is_left() {
        let mut m = fixed(1000);
        assert!(m.admit(ms(0), A, B, first(3, 10), 100));
        assert!(m.admit(ms(1), A, B, next(3, 10), 100));
        assert_eq!(m.reserved(), 8);
        assert!(m.admit(ms(2), A, B, SpMark { last: true, ..next(3, 10) }, 100));
        assert_eq!((m.reserved(), m.live_sps()), (0, 0));
        assert_eq!(m.stats.released_by_last, 7);
    }

    #[test]
    fn expiry_returns_the_reservation_after_one_to_two_epochs() {
        let mut m = fixed(100);
        assert!(m.admit(ms(0), A, B, first(1, 20), 100)); // epochs end at 100, 200, …
        assert!(m.admit(ms(150), A, B, next(1, 20), 100), "one epoch old: still known");
        assert_eq!(m.reserved(), 18);
        assert!(m.admit(ms(210), A, B, REGULAR, 100)); // the 200 ms swap drops it
        assert_eq!((m.reserved(), m.live_sps()), (0, 0));
        assert_eq!(m.stats.released_by_expiry, 18);
        assert!(!m.admit(ms(220), A, B, next(1, 20), 100), "its late packets are dropped");
        // A long silence expires both tables at once.
        assert!(m.admit(ms(230), A, B, first(2, 5), 100));
        assert!(m.admit(ms(900), A, B, REGULAR, 100));
        assert_eq!(m.reserved(), 0);
    }

    #[test]
    fn the_observed_epoch_is_twice_the_largest_handshake_rtt() {
        let mut m = SpManager::new(SpParams::default());
        assert_eq!(m.epoch(), ms(100), "before any sample");
        let key = |p| FlowKey { src: A, dst: B, sport: p, dport: 80 };
        m.observe(ms(0), key(1), true, 0);
        m.observe(ms(30), key(1), false, 1000);
        m.observe(ms(10), key(2), true, 0);
        m.observe(ms(60), key(2), false, 1000);
        m.observe(ms(70), key(2), false, 1000); // not a sample: its SYN is spent
        assert_eq!(m.epoch(), ms(100));
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
                m.admit(now, src, B, mark, free);
                prop_assert_eq!(m.reserved(), m.live_reservations());
            }
        }
    }
}
