//! What a scenario asks of an emulation: the hosts and the flows the real TCP stacks run, and
//! what the emulator cannot do for it — each said in a sentence, before anything is built.
//!
//! The network between the hosts is the scenario's own, whatever its queues, stages and
//! forwarding ([`crate::router`]); the hosts are Linux's, so what needs modified endpoints is
//! refused: a controller with an endpoint part (Kick-Ass's and RCP's senders), endpoints that
//! answer cut segments (CP's), host shims (the super-packet sender, the DUPACK agent), MPTCP.
//! Workloads: the flows known before the run (bulk and fixed-size, with start times); the
//! generated ones (incast rounds, web, on-off) are not emulated yet. Links run at most
//! [`MAX_RATE`]: one user-space loop keeps every link's schedule, and its wake-ups take tens of
//! microseconds, a 1500-byte packet's time at a few hundred Mbit/s.

use routerlab::sim::SimSpec;
use routerlab::tcp::cc::CcConfig;
use routerlab::units::{Rate, SimTime};

/// The fastest link the emulator takes (our choice, for a 2-core machine: 1 Gbit/s, 12 µs a
/// 1500-byte packet; each run reports how late it was, so what a faster machine sustains can
/// be read off there).
pub const MAX_RATE: Rate = Rate::from_gbps(1);

/// One TCP flow the hosts run.
#[derive(Clone, Debug, PartialEq)]
pub struct PlannedFlow {
    /// The workload it belongs to, by name.
    pub group: String,
    pub src: u32,
    pub dst: u32,
    pub start: SimTime,
    /// Bytes, or None for a bulk flow that sends until the run ends (or `stop`).
    pub size: Option<u64>,
    pub stop: Option<SimTime>,
    /// The Linux congestion control it maps to (`TCP_CONGESTION`).
    pub cc: &'static str,
    pub ecn: bool,
    pub sack: bool,
    pub mss: u32,
}

/// The hosts' part of a scenario.
#[derive(Clone, Debug, PartialEq)]
pub struct Plan {
    pub hosts: u32,
    pub host_names: Vec<String>,
    pub duration: SimTime,
    pub flows: Vec<PlannedFlow>,
}

/// The plan for `spec`, or every reason it cannot be emulated.
pub fn plan(spec: &SimSpec, host_names: Vec<String>) -> Result<Plan, Vec<String>> {
    let mut why = Vec::new();
    if !spec.host_shims.is_empty() {
        why.push(
            "host shims (the super-packet sender or attacker, the DUPACK agent) run in the simulator's hosts, \
             not in Linux's"
                .to_string(),
        );
    }
    if !spec.generators.is_empty() {
        why.push("generated workloads (incast rounds, web, on-off, CBR) are not emulated yet: use bulk or fixed flows".into());
    }
    let fastest = spec.topology.links.iter().flat_map(|l| [l.a_to_b.rate, l.b_to_a.rate]).max();
    if let Some(r) = fastest.filter(|&r| r > MAX_RATE) {
        why.push(format!(
            "a link runs at {} bit/s, above the {} bit/s the emulator takes (its user-space loop keeps \
             every link's schedule)",
            r.bps(),
            MAX_RATE.bps()
        ));
    }
    if !spec.link_changes.is_empty() {
        why.push("link events are not emulated yet".into());
    }
    let mut flows = Vec::new();
    for (i, f) in spec.flows.iter().enumerate() {
        let t = &f.tcp;
        let cc = match &t.cc {
            CcConfig::NewReno(_) => "reno",
            CcConfig::Cubic(_) => "cubic",
            CcConfig::Dctcp(_) => "dctcp",
            CcConfig::Plugin(_) => {
                why.push(format!(
                    "flow {i}: its congestion control has an endpoint part (Kick-Ass's or RCP's sender), which \
                     Linux's TCP lacks"
                ));
                continue;
            }
        };
        if t.cut_reports {
            why.push(format!("flow {i}: CP's endpoints (transport.cp) answer cut segments; Linux's do not"));
        }
        if t.mptcp.is_some() {
            why.push(format!("flow {i}: MPTCP is not emulated"));
        }
        flows.push(PlannedFlow {
            group: spec.groups.get(f.group as usize).cloned().unwrap_or_default(),
            src: f.src.0,
            dst: f.dst.0,
            start: f.start,
            size: f.size,
            stop: f.stop,
            cc,
            ecn: t.ecn || t.cc.wants_ecn(),
            sack: t.sack,
            mss: t.mss,
        });
    }
    if why.is_empty() {
        Ok(Plan { hosts: host_names.len() as u32, host_names, duration: spec.duration, flows })
    } else {
        Err(why)
    }
}
