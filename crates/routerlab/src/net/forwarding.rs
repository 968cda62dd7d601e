//! Forwarding: which of the equal-cost next hops a switch sends a packet to.
//!
//! - Per flow (ECMP, the default): by a hash of the 5-tuple salted per switch, so that a flow
//!   keeps one path and different switches make independent choices (real switches seed
//!   their hash functions differently to avoid polarization). The 5-tuple hash is computed once
//!   by the sender and carried in the packet's metadata, so forwarding does no hashing of
//!   headers on the hot path — only one integer mix.
//!
//! - Per packet: a [`NextHopPolicy`] the switch asks for every packet that has more than one
//!   next hop, built from the scenario's [`PolicyRecipe`] (the built-in ones are gathered
//!   above the core) or installed by hand (see `docs/extending.md`).

use std::sync::Arc;

use crate::ids::PortId;
use crate::net::packet::Packet;
use crate::net::port::Port;
use crate::net::recipe::{Params, Recipe};
use crate::rng::{SimRng, splitmix64};
use crate::units::SimTime;

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

/// What builds a switch's per-packet policy: its parameters, as a scenario specifies them.
pub trait BuildNextHop: Params {
    fn build(&self) -> Box<dyn NextHopPolicy>;
}

/// A switch's per-packet policy, as a topology spec holds it (`net::recipe`).
pub type PolicyRecipe = Recipe<dyn BuildNextHop>;

impl PolicyRecipe {
    pub fn new(params: impl BuildNextHop) -> PolicyRecipe {
        Recipe(Arc::new(params))
    }

    pub fn build(&self) -> Box<dyn NextHopPolicy> {
        self.0.build()
    }
}

/// A node's forwarding state: its per-packet policy, if any (ECMP otherwise), hash salt and
/// random stream.
pub struct Forwarder {
    salt: u64,
    rng: SimRng,
    per_packet: Option<Box<dyn NextHopPolicy>>,
}

impl std::fmt::Debug for Forwarder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let p = if self.per_packet.is_some() { "per-packet" } else { "ecmp" };
        write!(f, "Forwarder({p})")
    }
}

impl Forwarder {
    /// A forwarder by `policy` (per-flow ECMP if None), drawing its hash salt from `rng` first.
    pub fn new(policy: Option<&PolicyRecipe>, mut rng: SimRng) -> Forwarder {
        let salt = rng.next_u64();
        Forwarder { salt, rng, per_packet: policy.map(|p| p.build()) }
    }

    /// Replace the policy with a custom one.
    pub fn set_custom(&mut self, policy: Box<dyn NextHopPolicy>) {
        self.per_packet = Some(policy);
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
        match &mut self.per_packet {
            None => self.ecmp(hops, pkt.meta.flow_hash),
            Some(p) => p.choose(now, hops, pkt, ports, &mut self.rng),
        }
    }
}
