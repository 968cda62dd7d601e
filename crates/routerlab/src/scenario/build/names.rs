//! Names resolved against the topology: nodes, hosts, links, and whether a host reaches
//! another.

use std::collections::BTreeMap;

use crate::ids::{HostId, NodeId, PortId};
use crate::mechanisms::ka::{KaEndpoint, RateProtocol};
use crate::net::index::TopologyIndex;
use crate::net::packet::{IPV4_HEADER_BYTES, TCP_HEADER_BYTES};
use crate::scenario::values::HostList;
use crate::tcp::TcpConfig;
use crate::topology::BuiltTopology;

use super::Problems;

pub(super) fn host_hint(names: &[&str]) -> String {
    match names.len() {
        0 => "the topology has no hosts".into(),
        n if n <= 6 => format!("hosts are: {}", names.join(", ")),
        n => format!("hosts are: {}, … ({n} in all)", names[..4].join(", ")),
    }
}

/// Name resolution against the topology (its index: nothing is built).
pub(super) struct Names<'a> {
    pub(super) index: TopologyIndex<'a>,
    pub(super) by_name: BTreeMap<&'a str, NodeId>,
    pub(super) host_names: Vec<&'a str>,
    pub(super) pairs: Vec<(&'a str, &'a str)>,
}

impl<'a> Names<'a> {
    pub(super) fn node(&self, name: &str, path: &str, p: &mut Problems) -> Option<NodeId> {
        let n = self.by_name.get(name).copied();
        if n.is_none() {
            p.at(path, format!("no node is named \"{name}\""));
        }
        n
    }

    pub(super) fn host(&self, name: &str, path: &str, p: &mut Problems) -> Option<HostId> {
        match self.by_name.get(name) {
            None => {
                p.at(path, format!("unknown host \"{name}\" ({})", host_hint(&self.host_names)));
                None
            }
            Some(&n) => {
                let h = self.index.host_of(n);
                if h.is_none() {
                    p.at(path, format!("\"{name}\" is a switch, not a host"));
                }
                h
            }
        }
    }

    /// Resolve a host list (`key` at `path`), or the default pairs' side when absent.
    pub(super) fn hosts(
        &self,
        list: &Option<HostList>,
        path: &str,
        key: &str,
        side: usize,
        p: &mut Problems,
    ) -> Vec<HostId> {
        match list {
            Some(l) => l
                .0
                .iter()
                .enumerate()
                .filter_map(|(k, n)| {
                    let at =
                        if l.0.len() > 1 { format!("{path}.{key}[{k}]") } else { format!("{path}.{key}") };
                    self.host(n, &at, p)
                })
                .collect(),
            None => {
                if self.pairs.is_empty() {
                    p.at(
                        format!("{path}.{key}"),
                        "missing (this topology has no default pairs: name the hosts)",
                    );
                }
                self.pairs
                    .iter()
                    .filter_map(|pr| self.host(if side == 0 { pr.0 } else { pr.1 }, path, p))
                    .collect()
            }
        }
    }

    pub(super) fn all_hosts(&self) -> Vec<HostId> {
        (0..self.index.host_count() as u32).map(HostId).collect()
    }

    /// Check that data can flow from `s` to `d`.
    pub(super) fn reachable(&self, s: HostId, d: HostId, path: &str, p: &mut Problems) -> bool {
        if s == d {
            p.at(path, format!("a flow from {} to itself", self.index.host_name(s)));
            return false;
        }
        let ok = self.index.reaches(s, d);
        if !ok {
            p.at(
                path,
                format!(
                    "no path from {} to {} (the topology is disconnected)",
                    self.index.host_name(s),
                    self.index.host_name(d)
                ),
            );
        }
        ok
    }

    /// Check that a full segment of `tcp` fits every link from each sender to its receiver
    /// (TCP sets DF and routerlab does no path MTU discovery); reports the first that does
    /// not. Kick-Ass leaves DF clear (§IV-C of its paper): its segments may be fragmented.
    pub(super) fn check_segments_fit(
        &self,
        pairs: impl IntoIterator<Item = (HostId, HostId)>,
        tcp: &TcpConfig,
        path: &str,
        p: &mut Problems,
    ) {
        if tcp.cc.plugin::<KaEndpoint>().is_some_and(|e| e.protocol == RateProtocol::KickAss) {
            return;
        }
        let packet = IPV4_HEADER_BYTES + TCP_HEADER_BYTES + tcp.mss;
        let misfit = pairs.into_iter().find_map(|(s, d)| {
            let (mtu, port) = self.index.smallest_mtu(s, d)?;
            (packet > mtu).then_some((s, d, mtu, port))
        });
        if let Some((s, d, mtu, port)) = misfit {
            p.at(
                path,
                format!(
                    "a full segment ({packet} B: mss {} and 40 B of headers) does not fit the {mtu}-byte \
                     MTU of {} on the way from {} to {}; lower transport.mss to {} or less, or raise \
                     the link's mtu",
                    tcp.mss,
                    self.index.port_name(port),
                    self.index.host_name(s),
                    self.index.host_name(d),
                    mtu.saturating_sub(IPV4_HEADER_BYTES + TCP_HEADER_BYTES),
                ),
            );
        }
    }

    pub(super) fn link(&self, name: &str, path: &str, p: &mut Problems) -> Option<PortId> {
        let port = self.index.port_named(name);
        if port.is_none() {
            let example = match self.index.port_count() {
                0 => String::new(),
                _ => format!(", e.g. \"{}\"", self.index.port_name(PortId(0))),
            };
            p.at(path, format!("no link is named \"{name}\" (links are named \"from->to\"{example})"));
        }
        port
    }

    /// The names of a built topology; its `pairs` checked to name hosts.
    pub(super) fn of(topo: &'a BuiltTopology, p: &mut Problems) -> Names<'a> {
        let names = Names {
            index: TopologyIndex::new(&topo.spec),
            by_name: topo
                .spec
                .nodes
                .iter()
                .enumerate()
                .map(|(i, n)| (n.name.as_str(), NodeId(i as u32)))
                .collect(),
            host_names: topo.spec.hosts().map(|(_, n)| n.name.as_str()).collect(),
            pairs: topo.pairs.iter().map(|(a, b)| (a.as_str(), b.as_str())).collect(),
        };
        for (i, (a, b)) in names.pairs.iter().enumerate() {
            names.host(a, &format!("topology.pairs[{i}][0]"), p);
            names.host(b, &format!("topology.pairs[{i}][1]"), p);
        }
        names
    }
}
