//! Port stages: a router port's pipeline around its queue, as in a Click configuration.
//!
//! ```text
//!   arrival ──▶ stage 1 ──▶ stage 2 ──▶ … (admit / refuse / rewrite, in order) ──▶ qdisc
//!   qdisc ──▶ stage 1 ──▶ stage 2 ──▶ … (transform: pass, rewrite, split, drop) ──▶ MTU ──▶ link
//! ```
//!
//! A port holds any number of stages, in order: an arrival passes each stage's `on_arrival`
//! front to back until one refuses it (the stages before the refusing one hear of it through
//! `on_lost`); a packet the queue lets go passes each stage's `on_departure` front to back,
//! each stage seeing what the one before it put out. A packet lost after its admission (by the
//! queue, on the way out, to the MTU) is reported to every stage through `on_lost`.
//!
//! A stage sees the queue it sits around through a [`QueueView`] (occupancy, capacity, link
//! rate) and may ask for a timer (`poll_at` / `on_timer`), e.g. to recompute a rate every
//! control interval. Mechanisms whose router part is not a queue discipline plug in here
//! (admission, rate measurement and stamping, passive flow observers); a stage is found again
//! by its type (`PortStage: Any`, e.g. to read an observer's log after a run).

use std::any::Any;
use std::collections::VecDeque;
use std::sync::Arc;

use crate::ids::PacketId;
use crate::net::flow_epoch::FlowEpoch;
use crate::net::packet::PacketPool;
use crate::net::recipe::{Params, Recipe};
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
    /// What is left to serialize of the packet on the transmitter (at least 1 byte while it
    /// is busy, 0 when idle): with `bytes`, the backlog an arrival waits behind.
    pub in_service_bytes: u64,
}

impl QueueView {
    /// How long an arrival waits before its own serialization starts.
    pub fn backlog_delay(&self) -> SimTime {
        self.rate.tx_time(self.bytes + self.in_service_bytes)
    }
}

/// A stage around a port's queue. Every hook has a pass-through default.
pub trait PortStage: Any + Send + Sync {
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
    /// Start logging flows' epochs for the results' `flow_epochs` table (before the run);
    /// false if this part does not classify flows.
    fn record_flow_epochs(&mut self) -> bool {
        false
    }

    /// The flows' epochs logged, each flow's closed up to `now`; None if none are logged.
    fn flow_epochs(&self, _now: SimTime) -> Option<Vec<FlowEpoch>> {
        None
    }
}

/// What builds a port stage once its port's rate is known: a stage's parameters, as a
/// scenario specifies them. The built-in stages' are gathered above the core
/// (`builtins::StageSpec`); any `Debug` type can be one.
pub trait BuildStage: Params {
    fn build(&self, rate: Rate) -> Box<dyn PortStage>;
}

/// A stage to install on a port, as a topology spec holds it (`net::recipe`).
pub type StageRecipe = Recipe<dyn BuildStage>;

impl StageRecipe {
    pub fn new(params: impl BuildStage) -> StageRecipe {
        Recipe(Arc::new(params))
    }

    /// The stage for a port whose link runs at `rate`.
    pub fn build(&self, rate: Rate) -> Box<dyn PortStage> {
        self.0.build(rate)
    }
}

impl std::fmt::Debug for dyn PortStage {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}
