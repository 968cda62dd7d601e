//! The topology table into a built topology, its forwarding policies and its link events.

use std::collections::BTreeMap;

use crate::mechanisms::plts::spray::SprayPolicy;
use crate::mechanisms::plts::spray::{CntReading, RrScope};
use crate::net::forwarding::PolicyRecipe;
use crate::net::index::root;
use crate::net::{NodeKind, TopologySpec};
use crate::scenario::schema::{ForwardingName, Topology};
use crate::scenario::values::Duration;
use crate::topology::{self, BuiltTopology, DumbbellParams, FatTreeParams, ParkingLotParams, StarParams};
use crate::units::SimTime;

use super::names::Names;
use super::{Problems, links::dir, positive};
use crate::scenario::Scenario;
use crate::scenario::schema::LinkState;
use crate::sim::LinkChange;

/// A topology's `sender_delays`, one per sender: `None` (and a problem) when the count is
/// wrong, so that nothing is built from it.
pub(super) fn sender_delays(
    given: &Option<Vec<Duration>>,
    senders: u32,
    what: &str,
    p: &mut Problems,
) -> Option<Option<Vec<SimTime>>> {
    match given {
        Some(sd) if sd.len() != senders as usize => {
            p.at("topology.sender_delays", format!("has {} entries for {senders} {what}", sd.len()));
            None
        }
        Some(sd) => Some(Some(sd.iter().map(|x| x.0).collect())),
        None => Some(None),
    }
}

/// The largest fat-tree: k = 128 has 524 288 hosts and 20 480 switches.
pub(super) const MAX_FAT_TREE_K: u32 = 128;

pub(super) fn build_topology(t: &Topology, p: &mut Problems) -> Option<BuiltTopology> {
    let before = p.0.len();
    let built = match t {
        Topology::Dumbbell(d) => {
            positive(d.pairs, "topology.pairs", p);
            let sender_delays = sender_delays(&d.sender_delays, d.pairs, "pairs", p)?;
            topology::dumbbell(&DumbbellParams {
                pairs: d.pairs as usize,
                access: dir(&d.access, "topology.access", p),
                bottleneck: dir(&d.bottleneck, "topology.bottleneck", p),
                sender_delays,
            })
        }
        Topology::Star(s) => {
            positive(s.senders, "topology.senders", p);
            positive(s.receivers, "topology.receivers", p);
            let sender_delays = sender_delays(&s.sender_delays, s.senders, "senders", p)?;
            topology::star(&StarParams {
                senders: s.senders as usize,
                receivers: s.receivers.max(1) as usize,
                access: dir(&s.access, "topology.access", p),
                bottleneck: dir(&s.bottleneck, "topology.bottleneck", p),
                sender_delays,
            })
        }
        Topology::ParkingLot(pl) => {
            if pl.routers < 2 {
                p.at("topology.routers", format!("{}: a parking lot needs at least 2 routers", pl.routers));
            }
            let hops = pl.routers.saturating_sub(1);
            let cross_hops: Vec<usize> = match &pl.cross_hops {
                Some(h) => {
                    for (i, &x) in h.iter().enumerate() {
                        if x == 0 || x > hops {
                            p.at(
                                format!("topology.cross_hops[{i}]"),
                                format!("{x} is not a hop (hops are 1 to {hops})"),
                            );
                        }
                    }
                    h.iter().map(|&x| x as usize).collect()
                }
                None => (1..=hops as usize).collect(),
            };
            if pl.routers < 2 || cross_hops.iter().any(|&h| h == 0 || h > hops as usize) {
                return None;
            }
            topology::parking_lot(&ParkingLotParams {
                routers: pl.routers as usize,
                pairs: pl.pairs as usize,
                cross: pl.cross as usize,
                cross_hops,
                link: dir(&pl.link, "topology.link", p),
                access: dir(&pl.access, "topology.access", p),
            })
        }
        Topology::FatTree(f) => {
            if f.k < 2 || f.k % 2 == 1 || f.k > MAX_FAT_TREE_K {
                p.at(
                    "topology.k",
                    format!("{}: k must be even, from 2 to {MAX_FAT_TREE_K} (k³/4 hosts)", f.k),
                );
                return None;
            }
            let link = dir(&f.link, "topology.link", p);
            let host_link = f.host_link.as_ref().map_or(link.clone(), |l| dir(l, "topology.host_link", p));
            topology::fat_tree(&FatTreeParams { k: f.k as usize, link, host_link })
        }
        Topology::Explicit(e) => build_explicit(e, p)?,
    };
    (p.0.len() == before).then_some(built)
}

pub(super) fn build_explicit(
    e: &crate::scenario::schema::Explicit,
    p: &mut Problems,
) -> Option<BuiltTopology> {
    let mut spec = TopologySpec::default();
    let mut index: BTreeMap<&str, usize> = BTreeMap::new();
    for (i, n) in e.nodes.iter().enumerate() {
        if n.name.is_empty() {
            p.at(format!("topology.node[{i}].name"), "is empty");
        }
        if let Some(&j) = index.get(n.name.as_str()) {
            p.at(
                format!("topology.node[{i}].name"),
                format!("\"{}\" is already the name of node[{j}]", n.name),
            );
            continue;
        }
        let kind = match n.kind {
            crate::scenario::schema::NodeKindName::Host => NodeKind::Host,
            crate::scenario::schema::NodeKindName::Switch => NodeKind::Switch,
        };
        index.insert(&n.name, spec.add_node(n.name.clone(), kind));
    }
    let mut degree = vec![0usize; spec.nodes.len()];
    let mut seen = BTreeMap::new();
    for (i, l) in e.links.iter().enumerate() {
        let path = format!("topology.link[{i}]");
        let ends: Vec<Option<usize>> = l
            .between
            .iter()
            .enumerate()
            .map(|(k, name)| {
                let found = index.get(name.as_str()).copied();
                if found.is_none() {
                    p.at(format!("{path}.between[{k}]"), format!("no node is named \"{name}\""));
                }
                found
            })
            .collect();
        let (Some(a), Some(b)) = (ends[0], ends[1]) else { continue };
        if a == b {
            p.at(format!("{path}.between"), format!("a link from \"{}\" to itself", l.between[0]));
            continue;
        }
        if let Some(j) = seen.insert((a.min(b), a.max(b)), i) {
            p.at(format!("{path}.between"), format!("link[{j}] already joins these nodes"));
            continue;
        }
        let d = dir(&l.link(), &path, p);
        degree[a] += 1;
        degree[b] += 1;
        spec.add_duplex(a, b, &d);
    }
    for (i, n) in spec.nodes.iter().enumerate() {
        if n.kind == NodeKind::Host && degree[i] != 1 {
            let j = e.nodes.iter().position(|x| x.name == n.name).unwrap_or(i);
            p.at(
                format!("topology.node[{j}]"),
                format!("host \"{}\" has {} links; a host has exactly one", n.name, degree[i]),
            );
        }
    }
    check_connected(&spec, e, p);
    let pairs =
        e.pairs.as_ref().map_or(Vec::new(), |v| v.iter().map(|[a, b]| (a.clone(), b.clone())).collect());
    Some(BuiltTopology { spec, pairs })
}

/// A topology is one network: a part that no link joins to the rest is a mistake, even when
/// no flow would cross it. Reported once per separate part, at its first node.
pub(super) fn check_connected(spec: &TopologySpec, e: &crate::scenario::schema::Explicit, p: &mut Problems) {
    let mut part: Vec<u32> = (0..spec.nodes.len() as u32).collect();
    for l in &spec.links {
        let (a, b) = (root(&mut part, l.a as u32), root(&mut part, l.b as u32));
        part[a.max(b) as usize] = a.min(b);
    }
    let mut seen = std::collections::BTreeSet::from([0]);
    for n in 1..spec.nodes.len() {
        let r = root(&mut part, n as u32);
        if r != 0 && seen.insert(r) {
            let name = &spec.nodes[n].name;
            let j = e.nodes.iter().position(|x| x.name == *name).unwrap_or(n);
            p.at(
                format!("topology.node[{j}]"),
                format!(
                    "\"{name}\" is not linked, directly or through others, to \"{}\"",
                    spec.nodes[0].name
                ),
            );
        }
    }
}

/// A short description of the hosts, for error messages.
/// Every switch's forwarding policy: the scenario's default, then the per-switch overrides.
pub(super) fn set_forwarding(
    f: &crate::scenario::schema::Forwarding,
    spec: &mut TopologySpec,
    p: &mut Problems,
) {
    let spray = |p: SprayPolicy| Some(PolicyRecipe::new(p));
    let policy = |n: ForwardingName| match n {
        ForwardingName::Ecmp => None,
        ForwardingName::SprayRnd => spray(SprayPolicy::Random),
        ForwardingName::SprayCnt => spray(SprayPolicy::LeastQueue(CntReading::Occupancy)),
        ForwardingName::SprayCntRotate => spray(SprayPolicy::LeastQueue(CntReading::OccupancyRotating)),
        ForwardingName::SprayCntWaiting => spray(SprayPolicy::LeastQueue(CntReading::WaitingFirstPort)),
        ForwardingName::SprayRr => spray(SprayPolicy::RoundRobin(RrScope::Switch)),
        ForwardingName::SprayRrData => spray(SprayPolicy::RoundRobin(RrScope::SwitchData)),
        ForwardingName::SprayRrDst => spray(SprayPolicy::RoundRobin(RrScope::Destination)),
        ForwardingName::SprayRrFlow => spray(SprayPolicy::RoundRobin(RrScope::Flow)),
    };
    for n in spec.nodes.iter_mut().filter(|n| n.kind == NodeKind::Switch) {
        n.forwarding = policy(f.policy);
    }
    for (name, &which) in &f.switches {
        match spec.nodes.iter_mut().find(|n| n.name == *name) {
            Some(n) if n.kind == NodeKind::Switch => n.forwarding = policy(which),
            Some(_) => p.at(format!("forwarding.switches.{name}"), "is a host, not a switch"),
            None => p.at(format!("forwarding.switches.{name}"), "no switch of that name in the topology"),
        }
    }
}

/// The scenario's link events: links going down or up, between nodes a link joins.
pub(super) fn link_events(sc: &Scenario, names: &Names, p: &mut Problems) -> Vec<LinkChange> {
    let mut link_changes = Vec::new();
    for (i, ev) in sc.file.link_events.iter().enumerate() {
        let path = format!("link_event[{i}]");
        let a = names.node(&ev.between[0], &format!("{path}.between[0]"), p);
        let b = names.node(&ev.between[1], &format!("{path}.between[1]"), p);
        if let (Some(a), Some(b)) = (a, b) {
            if names.index.port_between(a, b).is_none() {
                p.at(
                    format!("{path}.between"),
                    format!("there is no link between \"{}\" and \"{}\"", ev.between[0], ev.between[1]),
                );
            }
            link_changes.push(LinkChange { at: ev.at.0, a, b, up: ev.state == LinkState::Up });
        }
    }

    link_changes
}
