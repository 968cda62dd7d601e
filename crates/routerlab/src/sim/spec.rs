//! What a simulation is built from: the expanded scenario.

use super::MeasureSpec;
use crate::host::ShimRecipe;
use crate::ids::NodeId;
use crate::net::TopologySpec;
use crate::units::SimTime;
use crate::workload::{FlowSpec, Generator};

/// Everything needed to build a simulation: the expanded scenario.
#[derive(Clone, Debug)]
pub struct SimSpec {
    pub duration: SimTime,
    pub seed: u64,
    pub topology: TopologySpec,
    /// Connections known before the run.
    pub flows: Vec<FlowSpec>,
    /// Dynamic workloads, each with the workload index its random stream derives from.
    pub generators: Vec<(u32, Generator)>,
    /// Workload (group) names, indexed by `FlowSpec::group`.
    pub groups: Vec<String>,
    /// Links going down or up: (time, node a, node b, up).
    pub link_changes: Vec<LinkChange>,
    /// IP reassembly timeout at hosts.
    pub reassembly_timeout: SimTime,
    /// The hosts' shims, in chain order: each recipe builds one per host that runs it.
    pub host_shims: Vec<ShimRecipe>,
    pub output: OutputSpec,
}

/// A scheduled failure or recovery of the link between two nodes (both directions).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LinkChange {
    pub at: SimTime,
    pub a: NodeId,
    pub b: NodeId,
    pub up: bool,
}

/// What to measure beyond the flow and link tables.
#[derive(Clone, Debug, PartialEq, Default)]
pub struct OutputSpec {
    /// Sample senders' TCP state at this interval (None: no time series).
    pub timeseries: Option<SimTime>,
    /// Flows to sample (None: all).
    pub timeseries_flows: Option<Vec<u32>>,
    pub measure: MeasureSpec,
}
