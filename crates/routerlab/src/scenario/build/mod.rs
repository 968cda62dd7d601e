//! From a parsed scenario to a [`SimSpec`]: resolve names, check what the schema cannot
//! (cross-field and topological constraints), expand workloads into flows and generators.
//!
//! Every problem is reported with its field path; all problems found are reported together.

mod checks;
mod hosts;
mod links;
mod names;
mod output;
mod topology;
mod transport;
mod workloads;

use hosts::host_shims;
use names::Names;
use output::output;
use topology::{build_topology, link_events, set_forwarding};
use workloads::{Workloads, workloads};

use super::values::Starts;
use super::{Scenario, ScenarioError};
use crate::builtins::QueueSpec;
use crate::qdisc::DropTailParams;
use crate::sim::SimSpec;
use crate::units::{SimTime, Size};

/// Queue of a link whose `queue` is not given: DropTail, 1000 packets (Linux's default
/// `txqueuelen`).
pub const DEFAULT_QUEUE: QueueSpec =
    QueueSpec::DropTail(DropTailParams { limit: Size::Packets(1000), ecn_threshold: None });
/// MTU of a link whose `mtu` is not given (Ethernet).
pub const DEFAULT_MTU: u32 = crate::net::ETHERNET_MTU;

/// A list of starts has one entry per flow; a sequence's last start is a time (it does not
/// overflow the clock).
fn check_starts(starts: &Starts, flows: usize, path: &str, p: &mut Problems) {
    use crate::workload::Starts as W;
    match &starts.0 {
        W::List(l) if l.len() != flows => {
            p.at(path.to_string(), format!("{} starts for {flows} flows (one per flow)", l.len()));
        }
        W::Every { first, step } => {
            let last = (first.0 as u128) + (step.0 as u128) * flows.saturating_sub(1) as u128;
            if last > SimTime::MAX.0 as u128 / 2 {
                p.at(path.to_string(), format!("the last of {flows} starts is beyond any run"));
            }
        }
        _ => {}
    }
}

/// Collects problems with their paths.
struct Problems(Vec<ScenarioError>);

impl Problems {
    fn at(&mut self, path: impl Into<String>, msg: impl Into<String>) {
        self.0.push(ScenarioError::at(path, msg.into()));
    }
}

fn same_unit(a: Size, b: Size) -> bool {
    matches!((a, b), (Size::Packets(_), Size::Packets(_)) | (Size::Bytes(_), Size::Bytes(_)))
}

fn amount(s: Size) -> u64 {
    match s {
        Size::Packets(n) | Size::Bytes(n) => n,
    }
}

fn positive(n: u32, path: &str, p: &mut Problems) -> bool {
    if n == 0 {
        p.at(path, "must be at least 1");
    }
    n > 0
}

/// A workload's `stop` comes after its `start`.
fn check_stop(start: SimTime, stop: Option<SimTime>, path: &str, p: &mut Problems) {
    if let Some(s) = stop
        && s <= start
    {
        p.at(format!("{path}.stop"), format!("{s} is not after the start ({start})"));
    }
}

pub(super) fn build(sc: &Scenario) -> Result<SimSpec, Vec<ScenarioError>> {
    let mut p = Problems(Vec::new());
    let Some(mut topo) = build_topology(&sc.file.topology, &mut p) else { return Err(p.0) };
    set_forwarding(&sc.file.forwarding, &mut topo.spec, &mut p);
    let names = Names::of(&topo, &mut p);
    let Workloads { flows, generators, groups } = workloads(sc, &names, &mut p);
    let link_changes = link_events(sc, &names, &mut p);
    let output = output(&sc.file.output, &names, flows.len(), &mut p);
    let host_shims = host_shims(sc, &names, &mut p);
    if !p.0.is_empty() {
        return Err(p.0);
    }
    Ok(SimSpec {
        duration: sc.file.run.duration.0,
        seed: sc.seed(),
        topology: topo.spec,
        flows,
        generators,
        groups,
        link_changes,
        reassembly_timeout: sc.file.hosts.reassembly_timeout.0,
        host_shims,
        output,
    })
}
