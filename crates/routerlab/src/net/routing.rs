//! Routing tables: for every switch and destination host, the egress ports on shortest paths.
//!
//! Paths are shortest by hop count (links that are down are skipped), computed by breadth-first
//! search over the reversed graph; hosts do not forward, so a search never passes through one.
//! Ties are kept: every neighbour one hop closer to the destination is a next hop, so fat-trees
//! get their full set of equal-cost paths and forwarding policies (per-flow ECMP, per-packet spreading) choose among
//! them. Next hops are stored in port order, so the tables — and any choice among them — are
//! deterministic.
//!
//! Only switches have rows: a host's one route is its NIC. The table is switches × hosts, not
//! nodes × hosts — a dumbbell of 1000 pairs has 2 rows, not 2002 — which keeps it small and
//! in cache.
//!
//! Since hosts do not forward, every host reached from the same switches (those with a link
//! into it: its *attachment*) is as far from every switch and has the same next hops
//! everywhere but at those switches. So the search runs once per attachment, not per host —
//! 512 times instead of 8192 on a k = 32 fat-tree — and equal sets of next hops are stored
//! once: a fat-tree switch has a handful of distinct sets (up, or one port down), not one
//! per host. A k = 32 fat-tree's tables (8192 hosts) are built in a fraction of a second, in
//! the 126 MB of their entries; a search and a stored set per host took 5.7 s and 560 MB more.

use std::collections::HashMap;

use crate::ids::{HostId, NodeId, PortId};
use crate::net::port::Port;

/// No row: the node is a host.
const HOST: u32 = u32::MAX;
const UNREACHABLE: u32 = u32::MAX;

/// The equal-cost egress ports from one switch to one host: `len` of them at `off` in
/// `RoutingTable::ports`, the first also inline, so that a single path (the common case, and
/// what the event loop's prefetch asks) is read without a second lookup.
#[derive(Clone, Copy, Debug)]
struct Route {
    first: PortId,
    off: u32,
    len: u32,
}

const NO_ROUTE: Route = Route { first: PortId(u32::MAX), off: 0, len: 0 };

/// The sets of two or more next hops, each stored once in `ports` however many routes share it.
struct RouteSets {
    ports: Vec<PortId>,
    offsets: HashMap<Vec<PortId>, u32>,
    /// Each switch's last route: a switch's routes to most attachments are one set (a fat-tree
    /// edge switch's way up), found again here without hashing it.
    last: Vec<Route>,
}

impl RouteSets {
    fn new(switches: usize) -> RouteSets {
        RouteSets { ports: Vec::new(), offsets: HashMap::new(), last: vec![NO_ROUTE; switches] }
    }

    /// The route of switch `row` through `next_hops` (not empty).
    fn route(&mut self, row: usize, next_hops: &[PortId]) -> Route {
        let (first, len) = (next_hops[0], next_hops.len() as u32);
        if len == 1 {
            return Route { first, off: 0, len };
        }
        let last = self.last[row];
        if last.len == len && self.ports[last.off as usize..(last.off + len) as usize] == *next_hops {
            return last;
        }
        let off = match self.offsets.get(next_hops) {
            Some(&off) => off,
            None => {
                let off = self.ports.len() as u32;
                self.ports.extend_from_slice(next_hops);
                self.offsets.insert(next_hops.to_vec(), off);
                off
            }
        };
        self.last[row] = Route { first, off, len };
        self.last[row]
    }
}

#[derive(Clone, Debug, Default)]
pub struct RoutingTable {
    hosts: usize,
    /// Row of each node in `entries` and `dist` (`HOST` for hosts).
    row: Vec<u32>,
    /// A host node's NIC port and the node at its far end, if the link is up (None for
    /// switches).
    nic: Vec<Option<(PortId, NodeId)>>,
    /// Indexed by `row * hosts + host`.
    entries: Vec<Route>,
    ports: Vec<PortId>,
    /// Hop distance from each switch to the hosts of each attachment (`UNREACHABLE` if none),
    /// indexed by `row * attachments + attachment`.
    dist: Vec<u32>,
    attachments: usize,
    /// Each host's attachment.
    attachment: Vec<u32>,
    /// The node of each host.
    host_nodes: Vec<NodeId>,
}

impl RoutingTable {
    /// Build from the ports of each node (`node_ports[n]` lists node n's egress ports, in port
    /// order).
    pub fn build(node_ports: &[Vec<PortId>], ports: &[Port], host_nodes: &[NodeId]) -> RoutingTable {
        debug_assert!(node_ports.iter().all(|ps| ps.is_sorted()), "a node's ports in port order");
        let n = node_ports.len();
        let h = host_nodes.len();
        let mut row = vec![0u32; n];
        for &node in host_nodes {
            row[node.idx()] = HOST;
        }
        let mut switches = 0u32;
        for r in row.iter_mut().filter(|r| **r != HOST) {
            *r = switches;
            switches += 1;
        }
        let is_switch = |v: NodeId| row[v.idx()] != HOST;
        let nic = (0..n)
            .map(|u| {
                let p = &ports[node_ports[u].first()?.idx()];
                (row[u] == HOST && p.up).then_some((p.id, p.to))
            })
            .collect();
        // Each node's up ports and where they lead, in port order: the searches read these
        // 8 bytes a port many times, not the ports themselves.
        let out: Vec<Vec<(PortId, NodeId)>> = node_ports
            .iter()
            .map(|ps| {
                ps.iter().map(|&pid| &ports[pid.idx()]).filter(|p| p.up).map(|p| (p.id, p.to)).collect()
            })
            .collect();
        // Reverse adjacency from switches: for each node, the up ports from switches into it.
        let mut incoming: Vec<Vec<PortId>> = vec![Vec::new(); n];
        for p in ports.iter().filter(|p| p.up && is_switch(p.from)) {
            incoming[p.to.idx()].push(p.id);
        }
        // Each host's attachment: the switches with an up link into it (`attached`, in node
        // order); and the hosts of each attachment (`members`, in host order).
        let mut attachment_of: HashMap<Vec<NodeId>, u32> = HashMap::new();
        let mut attachment = Vec::with_capacity(h);
        let mut members: Vec<Vec<usize>> = Vec::new();
        let mut attached: Vec<Vec<NodeId>> = Vec::new();
        for (hi, &dst) in host_nodes.iter().enumerate() {
            let mut from: Vec<NodeId> =
                incoming[dst.idx()].iter().map(|&pid| ports[pid.idx()].from).collect();
            from.sort();
            from.dedup();
            let a = *attachment_of.entry(from).or_insert_with_key(|from| {
                attached.push(from.clone());
                members.push(Vec::new());
                (members.len() - 1) as u32
            });
            attachment.push(a);
            members[a as usize].push(hi);
        }
        let rows = switches as usize;
        let attachments = members.len();
        let mut entries = vec![NO_ROUTE; rows * h];
        let mut sets = RouteSets::new(rows);
        let mut dist_all = vec![UNREACHABLE; rows * attachments];
        let mut dist = vec![UNREACHABLE; n];
        // The switches one search reached, in the order reached (a queue that is never popped
        // from the front: `next` walks it).
        let mut reached: Vec<NodeId> = Vec::new();
        let mut next_hops = Vec::new();
        for (a, (hosts, attached_to)) in members.iter().zip(&attached).enumerate() {
            for v in reached.drain(..) {
                dist[v.idx()] = UNREACHABLE;
            }
            for &s in attached_to {
                dist[s.idx()] = 1;
                reached.push(s);
            }
            let mut next = 0;
            while let Some(&v) = reached.get(next) {
                next += 1;
                for &pid in &incoming[v.idx()] {
                    let u = ports[pid.idx()].from;
                    if dist[u.idx()] == UNREACHABLE {
                        dist[u.idx()] = dist[v.idx()] + 1;
                        reached.push(u);
                    }
                }
            }
            for &u in &reached {
                let (u, r) = (u.idx(), row[u.idx()] as usize);
                dist_all[r * attachments + a] = dist[u];
                if dist[u] == 1 {
                    // The last hop: the links into each host itself (found among the host's few
                    // incoming links, not the switch's many outgoing ones: a switch may have a
                    // hundred thousand hosts; both lists are in port order).
                    for &hi in hosts {
                        next_hops.clear();
                        next_hops.extend(
                            incoming[host_nodes[hi].idx()]
                                .iter()
                                .filter(|&&pid| ports[pid.idx()].from.idx() == u),
                        );
                        entries[r * h + hi] = sets.route(r, &next_hops);
                    }
                } else {
                    next_hops.clear();
                    next_hops.extend(
                        out[u]
                            .iter()
                            .filter(|&&(_, to)| {
                                is_switch(to)
                                    && dist[to.idx()] != UNREACHABLE
                                    && dist[to.idx()] + 1 == dist[u]
                            })
                            .map(|&(p, _)| p),
                    );
                    let route = sets.route(r, &next_hops);
                    for &hi in hosts {
                        entries[r * h + hi] = route;
                    }
                }
            }
        }
        RoutingTable {
            hosts: h,
            row,
            nic,
            entries,
            ports: sets.ports,
            dist: dist_all,
            attachments,
            attachment,
            host_nodes: host_nodes.to_vec(),
        }
    }

    /// Equal-cost egress ports from `node` towards `dst` (empty if unreachable or at `dst`).
    #[inline]
    pub fn next_hops(&self, node: NodeId, dst: HostId) -> &[PortId] {
        match self.switch_route(node, dst) {
            Some(e) => match e.len {
                1 => std::slice::from_ref(&e.first),
                n => &self.ports[e.off as usize..(e.off + n) as usize],
            },
            None => match &self.nic[node.idx()] {
                Some((port, _)) if self.distance(node, dst).is_some_and(|d| d > 0) => {
                    std::slice::from_ref(port)
                }
                _ => &[],
            },
        }
    }

    /// The egress port from switch `node` towards `dst` if there is exactly one (None at a
    /// host, or with several or none): the event loop's guess, for a prefetch, of where an
    /// arriving packet will go.
    #[inline]
    pub fn only_next_hop(&self, node: NodeId, dst: HostId) -> Option<PortId> {
        self.switch_route(node, dst).filter(|e| e.len == 1).map(|e| e.first)
    }

    /// The routes of switch `node` towards `dst` (None if `node` is a host).
    #[inline]
    fn switch_route(&self, node: NodeId, dst: HostId) -> Option<&Route> {
        let r = self.row[node.idx()];
        (r != HOST).then(|| &self.entries[r as usize * self.hosts + dst.idx()])
    }

    /// Hop count from `node` to host `dst`, if reachable.
    pub fn distance(&self, node: NodeId, dst: HostId) -> Option<u32> {
        let to = self.host_nodes[dst.idx()];
        match self.row[node.idx()] {
            _ if node == to => Some(0),
            HOST => {
                // Through the NIC: straight to `dst`, or to a switch that reaches it.
                let (_, next) = self.nic[node.idx()]?;
                if next == to {
                    Some(1)
                } else if self.row[next.idx()] != HOST {
                    self.distance(next, dst).map(|d| d + 1)
                } else {
                    None
                }
            }
            r => {
                let d = self.dist[r as usize * self.attachments + self.attachment[dst.idx()] as usize];
                (d != UNREACHABLE).then_some(d)
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::builtins::AnyQdisc;
    use crate::qdisc::{DropTail, DropTailParams};
    use crate::rng::{SimRng, StreamId};
    use crate::units::{Rate, SimTime, Size};
    use proptest::prelude::*;

    /// The tables as first written: one search from every host, one stored set per route. The
    /// oracle the shared searches and sets must agree with.
    fn reference(
        node_ports: &[Vec<PortId>],
        ports: &[Port],
        host_nodes: &[NodeId],
    ) -> Vec<Vec<(Vec<PortId>, Option<u32>)>> {
        let n = node_ports.len();
        let is_host = |u: usize| host_nodes.iter().any(|h| h.idx() == u);
        let mut incoming: Vec<Vec<PortId>> = vec![Vec::new(); n];
        for p in ports.iter().filter(|p| p.up) {
            incoming[p.to.idx()].push(p.id);
        }
        let mut out = vec![Vec::new(); n];
        for &dst in host_nodes {
            let mut dist = vec![UNREACHABLE; n];
            dist[dst.idx()] = 0;
            let mut queue = std::collections::VecDeque::from([dst]);
            while let Some(v) = queue.pop_front() {
                for &pid in &incoming[v.idx()] {
                    let u = ports[pid.idx()].from;
                    if dist[u.idx()] == UNREACHABLE {
                        dist[u.idx()] = dist[v.idx()] + 1;
                        if !is_host(u.idx()) {
                            queue.push_back(u);
                        }
                    }
                }
            }
            for u in (0..n).filter(|&u| !is_host(u)) {
                let hops = if dist[u] == UNREACHABLE {
                    Vec::new()
                } else {
                    node_ports[u]
                        .iter()
                        .map(|&pid| &ports[pid.idx()])
                        .filter(|p| {
                            let next = p.to.idx();
                            p.up && (next == dst.idx() || !is_host(next))
                                && dist[next] != UNREACHABLE
                                && dist[next] + 1 == dist[u]
                        })
                        .map(|p| p.id)
                        .collect()
                };
                out[u].push((hops, (dist[u] != UNREACHABLE).then_some(dist[u])));
            }
        }
        out
    }

    fn port(id: u32, from: u32, to: u32, up: bool) -> Port {
        let q = AnyQdisc::DropTail(DropTail::new(DropTailParams {
            limit: Size::Packets(10),
            ecn_threshold: None,
        }));
        let rng = SimRng::new(1, StreamId::LinkLoss(id));
        let mut p = Port::new(
            PortId(id),
            NodeId(from),
            NodeId(to),
            Rate::from_gbps(1),
            SimTime::from_us(1),
            0,
            1500,
            0.0,
            q,
            rng,
        );
        p.up = up;
        p
    }

    proptest! {
        /// On random graphs (hosts with one or several links, hosts linked to hosts, parallel
        /// links, links down), every switch's next hops and distance to every host are the
        /// reference's.
        #[test]
        fn shared_searches_give_every_route_of_one_search_per_host(
            switches in 1u32..7,
            hosts in 1u32..9,
            links in proptest::collection::vec((0u32..16, 0u32..16, any::<bool>(), 0u8..4), 0..40),
        ) {
            let n = switches + hosts;
            let host_nodes: Vec<NodeId> = (switches..n).map(NodeId).collect();
            let mut ports = Vec::new();
            let mut node_ports = vec![Vec::new(); n as usize];
            for (a, b, both, down) in links {
                let (a, b) = (a % n, b % n);
                if a == b {
                    continue;
                }
                let ends: &[(u32, u32)] = if both { &[(a, b), (b, a)] } else { &[(a, b)] };
                for &(from, to) in ends {
                    let id = ports.len() as u32;
                    ports.push(port(id, from, to, down != 0));
                    node_ports[from as usize].push(PortId(id));
                }
            }
            let table = RoutingTable::build(&node_ports, &ports, &host_nodes);
            let expected = reference(&node_ports, &ports, &host_nodes);
            for u in 0..switches {
                for (hi, _) in host_nodes.iter().enumerate() {
                    let (hops, dist) = &expected[u as usize][hi];
                    let dst = HostId(hi as u32);
                    prop_assert_eq!(table.next_hops(NodeId(u), dst), &hops[..], "switch {} host {}", u, hi);
                    prop_assert_eq!(table.distance(NodeId(u), dst), *dist);
                    prop_assert_eq!(table.only_next_hop(NodeId(u), dst), (hops.len() == 1).then(|| hops[0]));
                }
            }
        }
    }
}
