//! Forwarding: which of the equal-cost next hops a switch sends a packet to.
//!
//! - `Ecmp` (the default): per-flow, by a hash of the 5-tuple salted per switch, so that a
//!   flow keeps one path and different switches make independent choices (real switches seed
//!   their hash functions differently to avoid polarization). The 5-tuple hash is computed once
//!   by the sender and carried in the packet's metadata, so forwarding does no hashing of
//!   headers on the hot path — only one integer mix.
//!
//! - The PLTS spraying policies ([`crate::mechanisms::plts::spray`]): per packet, a random next
//!   hop (`SprayRandom`), the least-occupied one (`SprayLeastQueue`, two readings) or round
//!   robin (`SprayRoundRobin`, a counter per switch, per switch for data only, per destination
//!   or per flow).
//!
//! Other per-packet policies plug in through [`NextHopPolicy`]: a node given one asks it for
//! every packet that has more than one next hop (see `docs/extending.md`).

use crate::ids::PortId;
use crate::mechanisms::plts::spray::{self, CntReading, RoundRobin, RrScope};
use crate::net::packet::Packet;
use crate::net::port::Port;
use crate::rng::{SimRng, splitmix64};
use crate::units::SimTime;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum ForwardingPolicy {
    /// Per flow, by hash.
    #[default]
    Ecmp,
    /// PLTS-RND.
    SprayRandom,
    /// PLTS-CNT.
    SprayLeastQueue(CntReading),
    /// PLTS-RR.
    SprayRoundRobin(RrScope),
}

impl ForwardingPolicy {
    pub fn name(self) -> &'static str {
        match self {
            ForwardingPolicy::Ecmp => "ecmp",
            ForwardingPolicy::SprayRandom => "spray-rnd",
            ForwardingPolicy::SprayLeastQueue(CntReading::Occupancy) => "spray-cnt",
            ForwardingPolicy::SprayLeastQueue(CntReading::OccupancyRotating) => "spray-cnt-rotate",
            ForwardingPolicy::SprayLeastQueue(CntReading::WaitingFirstPort) => "spray-cnt-waiting",
            ForwardingPolicy::SprayRoundRobin(RrScope::Switch) => "spray-rr",
            ForwardingPolicy::SprayRoundRobin(RrScope::SwitchData) => "spray-rr-data",
            ForwardingPolicy::SprayRoundRobin(RrScope::Destination) => "spray-rr-dst",
            ForwardingPolicy::SprayRoundRobin(RrScope::Flow) => "spray-rr-flow",
        }
    }
}

/// A per-packet choice among equal-cost next hops.
pub trait NextHopPolicy: Send + Sync {
    /// Pick one of `hops` (at least two) for `pkt` at `now`; `ports` gives every port's state
    /// (e.g. its queue length), `rng` the node's own random stream.
    fn choose(
        &mut self,
        now: SimTime,
        hops: &[PortId],
        pkt: &Packet,
        ports: &[Port],
        rng: &mut SimRng,
    ) -> PortId;
}

/// A node's forwarding state: its policy, hash salt and random stream.
pub struct Forwarder {
    pub policy: ForwardingPolicy,
    salt: u64,
    rng: SimRng,
    rr: RoundRobin,
    /// PLTS-CNT's tie-breaking pointer when its ties go round (`spray-cnt-rotate`).
    cnt_rotation: u32,
    custom: Option<Box<dyn NextHopPolicy>>,
}

impl std::fmt::Debug for Forwarder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let p = if self.custom.is_some() { "custom" } else { self.policy.name() };
        write!(f, "Forwarder({p})")
    }
}

impl Forwarder {
    pub fn new(policy: ForwardingPolicy, mut rng: SimRng) -> Forwarder {
        let salt = rng.next_u64();
        Forwarder { policy, salt, rng, rr: RoundRobin::default(), cnt_rotation: 0, custom: None }
    }

    /// Replace the built-in policy with a custom one.
    pub fn set_custom(&mut self, policy: Box<dyn NextHopPolicy>) {
        self.custom = Some(policy);
    }

    /// The next hop per-flow ECMP gives a 5-tuple hash at this switch (whatever its policy).
    #[inline]
    pub fn ecmp(&self, hops: &[PortId], flow_hash: u32) -> PortId {
        let h = splitmix64(flow_hash as u64 ^ self.salt);
        hops[(h % hops.len() as u64) as usize]
    }

    /// Pick one of `hops` (non-empty) for `pkt` at `now`.
    #[inline]
    pub fn choose(&mut self, now: SimTime, hops: &[PortId], pkt: &Packet, ports: &[Port]) -> PortId {
        if hops.len() == 1 {
            return hops[0];
        }
        if let Some(c) = &mut self.custom {
            return c.choose(now, hops, pkt, ports, &mut self.rng);
        }
        match self.policy {
            ForwardingPolicy::Ecmp => self.ecmp(hops, pkt.meta.flow_hash),
            ForwardingPolicy::SprayRandom => spray::random(hops, &mut self.rng),
            ForwardingPolicy::SprayLeastQueue(reading) => {
                spray::least_queue(hops, ports, now, reading, &mut self.rng, &mut self.cnt_rotation)
            }
            ForwardingPolicy::SprayRoundRobin(scope) => self.rr.choose(scope, hops, pkt),
        }
    }
}
