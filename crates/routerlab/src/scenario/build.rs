//! From a parsed scenario to a [`SimSpec`]: resolve names, check what the schema cannot
//! (cross-field and topological constraints), expand workloads into flows.
//!
//! Every problem is reported with its field path; all problems found are reported together.

use std::collections::BTreeMap;

use super::schema::{Cc, CubicCc, DctcpCc, Link, Queue, Topology, Transport, Workload};
use super::values::{ByteSize, Duration, PositiveDuration};
use super::{Scenario, ScenarioError};
use crate::ids::{HostId, NodeId};
use crate::net::{DirSpec, Network, NodeKind};
use crate::qdisc::{DropTailParams, QueueSpec};
use crate::rng::{SimRng, StreamId};
use crate::sim::{OutputSpec, SimSpec};
use crate::tcp::cc::{CcConfig, CubicParams, DctcpParams};
use crate::tcp::{DelayedAck, RtoParams, TcpConfig};
use crate::topology::{self, BuiltTopology, DumbbellParams};
use crate::units::{SimTime, Size};
use crate::workload::{StaticFlows, expand_static};

/// Queue of a link whose `queue` is not given: DropTail, 1000 packets (Linux's default
/// `txqueuelen`).
pub const DEFAULT_QUEUE: QueueSpec =
    QueueSpec::DropTail(DropTailParams { limit: Size::Packets(1000), ecn_threshold: None });

impl Default for CubicCc {
    fn default() -> CubicCc {
        let p = CubicParams::default();
        CubicCc {
            c: p.c,
            beta: p.beta,
            fast_convergence: p.fast_convergence,
            alpha_beyond_wmax: p.alpha_beyond_wmax,
        }
    }
}

impl Default for DctcpCc {
    fn default() -> DctcpCc {
        let p = DctcpParams::default();
        DctcpCc { g: p.g, alpha_init: p.alpha_init }
    }
}

impl Default for Transport {
    fn default() -> Transport {
        let d = TcpConfig::default();
        let da = DelayedAck { count: 2, timeout: SimTime::from_ms(40) };
        Transport {
            cc: Cc::NewReno,
            mss: d.mss,
            init_cwnd: d.init_cwnd,
            min_rto: Duration(d.rto.min),
            max_rto: Duration(d.rto.max),
            rto_granularity: Duration(d.rto.granularity),
            initial_rto: PositiveDuration(d.rto.initial),
            syn_rto: PositiveDuration(d.syn_rto),
            dupthresh: d.dupthresh,
            sack: d.sack,
            limited_transmit: d.limited_transmit,
            lost_retransmit_detection: d.lost_retransmit_detection,
            delayed_ack: d.delayed_ack.is_some(),
            delayed_ack_count: d.delayed_ack.unwrap_or(da).count,
            delayed_ack_timeout: PositiveDuration(d.delayed_ack.unwrap_or(da).timeout),
            rcv_buf: ByteSize(d.rcv_buf),
            ecn: d.ecn,
            pacing: d.pacing,
        }
    }
}

impl Transport {
    pub fn tcp_config(&self) -> TcpConfig {
        let d = TcpConfig::default();
        TcpConfig {
            cc: match self.cc {
                Cc::NewReno => CcConfig::NewReno,
                Cc::Cubic(p) => CcConfig::Cubic(CubicParams {
                    c: p.c,
                    beta: p.beta,
                    fast_convergence: p.fast_convergence,
                    alpha_beyond_wmax: p.alpha_beyond_wmax,
                }),
                Cc::Dctcp(p) => CcConfig::Dctcp(DctcpParams { g: p.g, alpha_init: p.alpha_init }),
            },
            mss: self.mss,
            init_cwnd: self.init_cwnd,
            rto: RtoParams {
                initial: self.initial_rto.0,
                min: self.min_rto.0,
                max: self.max_rto.0,
                granularity: self.rto_granularity.0,
            },
            syn_rto: self.syn_rto.0,
            rto_after_syn_timeout: d.rto_after_syn_timeout,
            dupthresh: self.dupthresh,
            sack: self.sack,
            limited_transmit: self.limited_transmit,
            lost_retransmit_detection: self.lost_retransmit_detection,
            delayed_ack: self
                .delayed_ack
                .then_some(DelayedAck { count: self.delayed_ack_count, timeout: self.delayed_ack_timeout.0 }),
            rcv_buf: self.rcv_buf.0,
            ecn: self.ecn,
            pacing: self.pacing,
        }
    }

    /// Constraints between fields; `path` is where this transport was written.
    pub(super) fn check(&self, path: &str, errs: &mut Vec<ScenarioError>) {
        let mut err = |key: &str, msg: String| errs.push(ScenarioError::at(format!("{path}.{key}"), msg));
        if !(64..=65_495).contains(&self.mss) {
            err("mss", format!("{} is not a possible MSS (expected 64 to 65495 bytes)", self.mss));
        }
        if self.init_cwnd == 0 {
            err("init_cwnd", "must be at least 1 segment".into());
        }
        if self.dupthresh == 0 {
            err("dupthresh", "must be at least 1".into());
        }
        if self.delayed_ack_count == 0 {
            err("delayed_ack_count", "must be at least 1".into());
        }
        if self.max_rto.0 == SimTime::ZERO {
            err("max_rto", "must be positive".into());
        }
        match self.cc {
            Cc::Cubic(p) => {
                if !(p.c > 0.0 && p.c.is_finite()) {
                    err("cc.c", format!("{} is not a possible C (expected > 0)", p.c));
                }
                if !(p.alpha_beyond_wmax > 0.0 && p.alpha_beyond_wmax.is_finite()) {
                    err(
                        "cc.alpha_beyond_wmax",
                        format!("{} is not a possible increase (expected > 0)", p.alpha_beyond_wmax),
                    );
                }
                if !(p.beta > 0.0 && p.beta < 1.0) {
                    err("cc.beta", format!("{} is not a possible β (expected 0 < β < 1)", p.beta));
                }
            }
            Cc::Dctcp(p) => {
                if !(p.g > 0.0 && p.g <= 1.0) {
                    err("cc.g", format!("{} is not a possible gain (expected 0 < g ≤ 1)", p.g));
                }
                if !(0.0..=1.0).contains(&p.alpha_init) {
                    err("cc.alpha_init", format!("{} is not a possible α (expected 0 to 1)", p.alpha_init));
                }
            }
            Cc::NewReno => {}
        }
        if self.min_rto.0 > self.max_rto.0 {
            err("min_rto", format!("{} is above max_rto ({})", self.min_rto.0, self.max_rto.0));
        }
    }
}

fn dir(link: &Link) -> DirSpec {
    DirSpec {
        rate: link.rate.0,
        delay: link.delay.0,
        queue: link.queue.as_ref().map_or(DEFAULT_QUEUE, queue_spec),
        loss: link.loss.map_or(0.0, |p| p.0),
        framing_bytes: link.framing.unwrap_or(0),
    }
}

fn queue_spec(q: &Queue) -> QueueSpec {
    match q {
        Queue::DropTail(d) => QueueSpec::DropTail(DropTailParams {
            limit: d.limit.0,
            ecn_threshold: d.ecn_threshold.map(|t| t.0),
        }),
    }
}

fn build_topology(t: &Topology, errs: &mut Vec<ScenarioError>) -> Option<BuiltTopology> {
    match t {
        Topology::Dumbbell(d) => {
            if d.pairs == 0 {
                errs.push(ScenarioError::at("topology.pairs", "must be at least 1".into()));
                return None;
            }
            Some(topology::dumbbell(&DumbbellParams {
                pairs: d.pairs as usize,
                access: dir(&d.access),
                bottleneck: dir(&d.bottleneck),
            }))
        }
    }
}

/// A short description of the hosts, for error messages.
fn host_hint(names: &[&str]) -> String {
    match names.len() {
        0 => "the topology has no hosts".into(),
        n if n <= 6 => format!("hosts are: {}", names.join(", ")),
        n => format!("hosts are: {}, … ({n} in all)", names[..4].join(", ")),
    }
}

pub(super) fn build(sc: &Scenario) -> Result<SimSpec, Vec<ScenarioError>> {
    let mut errs = Vec::new();
    let Some(topo) = build_topology(&sc.file.topology, &mut errs) else {
        return Err(errs);
    };
    let net = Network::build(&topo.spec, 0);
    let mut by_name: BTreeMap<&str, NodeId> = BTreeMap::new();
    for (i, n) in topo.spec.nodes.iter().enumerate() {
        by_name.insert(n.name.as_str(), NodeId(i as u32));
    }
    let host_names: Vec<&str> = topo.spec.hosts().map(|(_, n)| n.name.as_str()).collect();
    let host_of = |name: &str| -> Result<HostId, String> {
        match by_name.get(name) {
            None => Err(format!("unknown host \"{name}\" ({})", host_hint(&host_names))),
            Some(&n) => net.nodes[n.idx()].host.ok_or_else(|| format!("\"{name}\" is a switch, not a host")),
        }
    };
    let default_pairs: Vec<(&str, &str)> = topo.pairs.iter().map(|(a, b)| (a.as_str(), b.as_str())).collect();

    let mut flows = Vec::new();
    let mut groups: Vec<String> = Vec::new();
    for (i, w) in sc.file.workloads.iter().enumerate() {
        let path = format!("workload[{i}]");
        let (kind, name, n_flows, src, dst, start, jitter, size) = match w {
            Workload::Bulk(b) => ("bulk", &b.name, b.flows, &b.src, &b.dst, b.start.0, b.jitter.0, None),
            Workload::Fixed(f) => {
                ("fixed", &f.name, f.flows, &f.src, &f.dst, f.start.0, f.jitter.0, Some(f.size.0))
            }
        };
        let group = name.clone().unwrap_or_else(|| format!("{kind}-{i}"));
        if let Some(j) = groups.iter().position(|g| *g == group) {
            errs.push(ScenarioError::at(
                format!("{path}.name"),
                format!("\"{group}\" is already the name of workload[{j}]"),
            ));
        }
        groups.push(group);
        if n_flows == Some(0) {
            errs.push(ScenarioError::at(format!("{path}.flows"), "must be at least 1".into()));
            continue;
        }
        // Resolve the source and destination lists (defaulting to the topology's pairs).
        let resolve = |list: &Option<super::values::HostList>,
                       key: &str,
                       side: usize,
                       errs: &mut Vec<ScenarioError>| {
            let names: Vec<&str> = match list {
                Some(l) => l.0.iter().map(String::as_str).collect(),
                None => default_pairs.iter().map(|p| if side == 0 { p.0 } else { p.1 }).collect(),
            };
            let mut ids = Vec::new();
            for (k, n) in names.iter().enumerate() {
                match host_of(n) {
                    Ok(h) => ids.push(h),
                    Err(m) => {
                        let p = if list.as_ref().is_some_and(|l| l.0.len() > 1) {
                            format!("{path}.{key}[{k}]")
                        } else {
                            format!("{path}.{key}")
                        };
                        errs.push(ScenarioError::at(p, m));
                    }
                }
            }
            ids
        };
        let srcs = resolve(src, "src", 0, &mut errs);
        let dsts = resolve(dst, "dst", 1, &mut errs);
        if srcs.is_empty() || dsts.is_empty() {
            continue;
        }
        let pairs: Vec<(HostId, HostId)> =
            (0..srcs.len().max(dsts.len())).map(|k| (srcs[k % srcs.len()], dsts[k % dsts.len()])).collect();
        let mut ok = true;
        for &(s, d) in &pairs {
            let (sn, dn) = (net.hosts[s.idx()], net.hosts[d.idx()]);
            if s == d {
                errs.push(ScenarioError::at(
                    path.clone(),
                    format!("a flow from {} to itself", net.host_name(s)),
                ));
                ok = false;
            } else if net.routes.distance(sn, d).is_none() {
                errs.push(ScenarioError::at(
                    path.clone(),
                    format!(
                        "no path from {} to {} (the topology is disconnected)",
                        net.host_name(s),
                        net.nodes[dn.idx()].name
                    ),
                ));
                ok = false;
            }
        }
        if !ok {
            continue;
        }
        // Default: one flow per (src, dst) pair.
        let n_flows = n_flows.unwrap_or(pairs.len() as u32);
        let tcp = sc.workload_transports[i].tcp_config();
        let spec = StaticFlows { flows: n_flows, pairs, start, jitter, size, tcp, group: i as u32 };
        let mut rng = SimRng::new(sc.seed(), StreamId::Workload(i as u32));
        flows.extend(expand_static(&spec, &mut rng));
    }
    let out = &sc.file.output;
    if let Some(ids) = &out.timeseries_flows {
        for (k, &id) in ids.iter().enumerate() {
            if id as usize >= flows.len() {
                errs.push(ScenarioError::at(
                    format!("output.timeseries_flows[{k}]"),
                    format!("there is no flow {id} (flow ids are 0 to {})", flows.len().saturating_sub(1)),
                ));
            }
        }
        if out.timeseries.is_none() {
            errs.push(ScenarioError::at(
                "output.timeseries_flows",
                "has no effect without output.timeseries".into(),
            ));
        }
    }
    let output = OutputSpec {
        timeseries: out.timeseries.map(|d| d.0),
        timeseries_flows: out.timeseries_flows.clone(),
    };
    debug_assert!(topo.spec.nodes.iter().any(|n| n.kind == NodeKind::Host));
    if errs.is_empty() {
        Ok(SimSpec {
            duration: sc.file.run.duration.0,
            seed: sc.seed(),
            topology: topo.spec,
            flows,
            groups,
            output,
        })
    } else {
        Err(errs)
    }
}
