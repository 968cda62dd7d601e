/*! Hosts: the layer between a host's transport endpoints and its NIC.

```text
  egress:   endpoints ──▶ shim 0 ──▶ shim 1 ──▶ … ──▶ NIC queue ──▶ link
  ingress:  link ──▶ reassembly ──▶ … shim 1 ──▶ shim 0 ──▶ endpoints
```

A **host shim** is the endpoint-side twin of a router port's pipeline: it sees every packet a
host sends and receives, and may pass it on, hold it, rewrite it, or consume it. Mechanisms
that change end hosts without changing TCP plug in here — a sender that groups segments, an
agent that filters duplicate ACKs below the guests (a hypervisor's, say). A shim owns
its state and timers; it never sees the engine.

A shim that holds packets asks to be woken with `poll_at` and releases them from `on_timer`.
A shim that consumes a packet must free it from the pool.
*/

use std::sync::Arc;

use crate::ids::{HostId, PacketId};
use crate::net::packet::PacketPool;
use crate::net::recipe::{Params, Recipe};
use crate::units::{Rate, SimTime};

/// What builds a host's shim: its parameters, as a scenario specifies them (the built-in ones
/// are the mechanisms', gathered above the core).
pub trait BuildShim: Params {
    /// The shim for host `host`, whose NIC runs at `nic_rate`; None if this host runs none.
    fn build(&self, host: HostId, nic_rate: Rate) -> Option<Box<dyn HostShim>>;
}

/// A shim every host (or some hosts) run, as the simulation spec holds it (`net::recipe`).
pub type ShimRecipe = Recipe<dyn BuildShim>;

impl ShimRecipe {
    pub fn new(params: impl BuildShim) -> ShimRecipe {
        Recipe(Arc::new(params))
    }

    pub fn build(&self, host: HostId, nic_rate: Rate) -> Option<Box<dyn HostShim>> {
        self.0.build(host, nic_rate)
    }
}

/// What became of an arriving packet at a shim.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Ingress {
    /// Pass it on towards the endpoints.
    Deliver,
    /// The shim kept or freed it; stop here.
    Consumed,
}

/// A host shim.
pub trait HostShim: Send + Sync {
    /// A packet on its way out: push it (or other packets, or nothing) onto `out`, in order.
    fn on_egress(&mut self, now: SimTime, pkt: PacketId, pool: &mut PacketPool, out: &mut Vec<PacketId>);

    /// A packet on its way in.
    fn on_ingress(&mut self, _now: SimTime, _pkt: PacketId, _pool: &mut PacketPool) -> Ingress {
        Ingress::Deliver
    }

    /// When this shim next needs `on_timer`, if ever.
    fn poll_at(&self) -> Option<SimTime> {
        None
    }

    /// A timer expired: release held packets onto `out`.
    fn on_timer(&mut self, _now: SimTime, _pool: &mut PacketPool, _out: &mut Vec<PacketId>) {}

    /// Named counters for the results' `stages` table.
    fn counters(&self) -> Vec<(&'static str, u64)> {
        Vec::new()
    }

    /// Short name, for the `stages` table.
    fn name(&self) -> &'static str {
        "shim"
    }
}

/// A host's chain of shims (empty for an unmodified host).
#[derive(Default)]
pub struct ShimChain {
    shims: Vec<Box<dyn HostShim>>,
    /// Earliest pending timer event for this host.
    pub timer_at: Option<SimTime>,
    scratch: Vec<PacketId>,
}

impl std::fmt::Debug for ShimChain {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "ShimChain({} shims)", self.shims.len())
    }
}

impl ShimChain {
    pub fn push(&mut self, shim: Box<dyn HostShim>) {
        self.shims.push(shim);
    }

    pub fn is_empty(&self) -> bool {
        self.shims.is_empty()
    }

    pub fn iter(&self) -> impl Iterator<Item = &dyn HostShim> {
        self.shims.iter().map(|s| s.as_ref())
    }

    /// Run `pkts` through every shim's egress, in order; what comes out is left in `pkts`.
    pub fn egress(&mut self, now: SimTime, pool: &mut PacketPool, pkts: &mut Vec<PacketId>) {
        for shim in &mut self.shims {
            self.scratch.clear();
            for &p in pkts.iter() {
                shim.on_egress(now, p, pool, &mut self.scratch);
            }
            std::mem::swap(pkts, &mut self.scratch);
        }
    }

    /// Run an arriving packet through the shims, last first.
    pub fn ingress(&mut self, now: SimTime, pkt: PacketId, pool: &mut PacketPool) -> Ingress {
        for shim in self.shims.iter_mut().rev() {
            if shim.on_ingress(now, pkt, pool) == Ingress::Consumed {
                return Ingress::Consumed;
            }
        }
        Ingress::Deliver
    }

    pub fn poll_at(&self) -> Option<SimTime> {
        self.shims.iter().filter_map(|s| s.poll_at()).min()
    }

    /// Fire due timers; released packets continue through the shims after the one that held
    /// them and are left in `out`.
    pub fn on_timer(&mut self, now: SimTime, pool: &mut PacketPool, out: &mut Vec<PacketId>) {
        out.clear();
        for i in 0..self.shims.len() {
            // Packets released by earlier shims pass through this one.
            self.scratch.clear();
            for &p in out.iter() {
                self.shims[i].on_egress(now, p, pool, &mut self.scratch);
            }
            if self.shims[i].poll_at().is_some_and(|t| t <= now) {
                self.shims[i].on_timer(now, pool, &mut self.scratch);
            }
            std::mem::swap(out, &mut self.scratch);
        }
    }
}
