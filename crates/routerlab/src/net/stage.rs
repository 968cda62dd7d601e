//! Port stages: a router port's pipeline around its queue, as in a Click configuration.
//!
//! ```text
//!   arrival ──▶ stage.on_arrival (admit / refuse / rewrite) ──▶ qdisc ──▶ stage.on_departure
//!           (transform: pass, rewrite, split into several packets, drop) ──▶ MTU ──▶ link
//! ```
//!
//! A stage sees the queue it sits around through a [`QueueView`] (occupancy, capacity, link
//! rate) and may ask for a timer (`poll_at` / `on_timer`), e.g. to recompute a rate every
//! control interval. Mechanisms whose router part is not a queue discipline plug in here:
//! super-packets' admission, Kick-Ass's rate measurement and length encoding.

use std::collections::VecDeque;

use crate::ids::PacketId;
use crate::net::packet::PacketPool;
use crate::qdisc::DropCause;
use crate::units::{Rate, SimTime};

/// What a stage can see of its port.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct QueueView {
    pub packets: usize,
    pub bytes: u64,
    /// Capacity in full-sized packets, if the queue has a fixed one.
    pub capacity_packets: Option<usize>,
    pub rate: Rate,
}

/// A stage around a port's queue. Every hook has a pass-through default.
pub trait PortStage: Send + Sync {
    /// An arriving packet, before the queue: `Ok` to offer it to the queue (possibly rewritten),
    /// `Err(cause)` to refuse it (the port frees and counts it).
    fn on_arrival(
        &mut self,
        _now: SimTime,
        _pkt: PacketId,
        _pool: &mut PacketPool,
        _q: &QueueView,
    ) -> Result<(), DropCause> {
        Ok(())
    }

    /// A packet leaving the queue: push it, or what replaces it, onto `out` in transmission
    /// order; packets dropped here go into `drops`.
    fn on_departure(
        &mut self,
        _now: SimTime,
        pkt: PacketId,
        _pool: &mut PacketPool,
        _q: &QueueView,
        out: &mut VecDeque<PacketId>,
        _drops: &mut Vec<(PacketId, DropCause)>,
    ) {
        out.push_back(pkt);
    }

    /// A packet `on_arrival` let in was lost at this port afterwards: dropped by the queue
    /// (overflow, push-out, AQM) or on the way out. Called before the packet is freed.
    fn on_lost(&mut self, _now: SimTime, _pkt: PacketId, _pool: &PacketPool) {}

    /// Named counters for the results' `stages` table (e.g. SPs admitted and refused).
    fn counters(&self) -> Vec<(&'static str, u64)> {
        Vec::new()
    }

    /// When the stage next needs `on_timer`, if ever.
    fn poll_at(&self) -> Option<SimTime> {
        None
    }

    fn on_timer(&mut self, _now: SimTime, _q: &QueueView) {}

    /// Short name, for traces.
    fn name(&self) -> &'static str {
        "stage"
    }
}

/// A built-in stage and its parameters, as a scenario specifies it.
#[derive(Clone, Debug, PartialEq)]
pub enum StageSpec {
    /// Super-packet admission (`mechanisms::sp::manager`).
    Sp(crate::mechanisms::sp::SpParams),
    /// Kick-Ass's rate signalling (`mechanisms::ka::router`).
    KickAss(crate::mechanisms::ka::KaParams),
    /// Native RCP's rate stamping (`mechanisms::ka::rcp_router`).
    Rcp(crate::mechanisms::ka::RcpParams),
}

impl StageSpec {
    /// The stage for a port whose link runs at `rate`.
    pub fn build(&self, rate: Rate) -> Box<dyn PortStage> {
        use crate::mechanisms::{ka, sp};
        match self {
            StageSpec::Sp(p) => Box::new(sp::SpManager::new(*p)),
            StageSpec::KickAss(p) => Box::new(ka::KaRouter::new(*p, rate)),
            StageSpec::Rcp(p) => Box::new(ka::RcpRouter::new(*p, rate)),
        }
    }
}

impl std::fmt::Debug for dyn PortStage {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}
