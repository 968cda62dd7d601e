//! Forwarding: which of the equal-cost next hops a switch sends a packet to.
//!
//! - `Ecmp` (the default): per-flow, by a hash of the 5-tuple salted per switch, so that a
//!   flow keeps one path and different switches make independent choices (real switches seed
//!   their hash functions differently to avoid polarization). The 5-tuple hash is computed once
//!   by the sender and carried in the packet's metadata, so forwarding does no hashing of
//!   headers on the hot path — only one integer mix.
//!
//! Per-packet policies (spraying) plug in here too; see `docs/extending.md`.

use crate::ids::PortId;
use crate::net::packet::Packet;
use crate::net::port::Port;
use crate::rng::{SimRng, splitmix64};

#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum ForwardingPolicy {
    #[default]
    Ecmp,
}

impl ForwardingPolicy {
    pub fn name(self) -> &'static str {
        match self {
            ForwardingPolicy::Ecmp => "ecmp",
        }
    }
}

/// A node's forwarding state: its policy, hash salt and random stream.
#[derive(Clone, Debug)]
pub struct Forwarder {
    pub policy: ForwardingPolicy,
    salt: u64,
    #[allow(dead_code)]
    rng: SimRng,
}

impl Forwarder {
    pub fn new(policy: ForwardingPolicy, mut rng: SimRng) -> Forwarder {
        let salt = rng.next_u64();
        Forwarder { policy, salt, rng }
    }

    /// Pick one of `hops` (non-empty) for `pkt`.
    #[inline]
    pub fn choose(&mut self, hops: &[PortId], pkt: &Packet, _ports: &[Port]) -> PortId {
        if hops.len() == 1 {
            return hops[0];
        }
        match self.policy {
            ForwardingPolicy::Ecmp => {
                let h = splitmix64(pkt.meta.flow_hash as u64 ^ self.salt);
                hops[(h % hops.len() as u64) as usize]
            }
        }
    }
}
