//! Routing tables: for every switch and destination host, the egress ports on shortest paths.
//!
//! Paths are shortest by hop count (links that are down are skipped), computed by one
//! breadth-first search per destination over the reversed graph; hosts do not forward, so a
//! search never passes through one. Ties are kept: every neighbour one hop closer to the
//! destination is a next hop, so fat-trees get their full set of equal-cost paths and
//! forwarding policies (ECMP, spraying) choose among them. Next hops are stored in port order,
//! so the tables — and any choice among them — are deterministic.
//!
//! Only switches have rows: a host's one route is its NIC. The table is switches × hosts, not
//! nodes × hosts — a dumbbell of 1000 pairs has 2 rows, not 2002 — which keeps it small and
//! in cache.

use std::collections::VecDeque;

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
    /// Hop distance from each switch to each host (`UNREACHABLE` if none).
    dist: Vec<u32>,
    /// The node of each host.
    host_nodes: Vec<NodeId>,
}

impl RoutingTable {
    /// Build from the ports of each node (`node_ports[n]` lists node n's egress ports).
    pub fn build(node_ports: &[Vec<PortId>], ports: &[Port], host_nodes: &[NodeId]) -> RoutingTable {
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
        let nic = (0..n)
            .map(|u| {
                let p = &ports[node_ports[u].first()?.idx()];
                (row[u] == HOST && p.up).then_some((p.id, p.to))
            })
            .collect();
        // Reverse adjacency: for each node, the ports that lead into it.
        let mut incoming: Vec<Vec<PortId>> = vec![Vec::new(); n];
        for p in ports {
            if p.up {
                incoming[p.to.idx()].push(p.id);
            }
        }
        let rows = switches as usize;
        let mut entries = vec![NO_ROUTE; rows * h];
        let mut table_ports = Vec::new();
        let mut dist_all = vec![UNREACHABLE; rows * h];
        let mut dist = vec![UNREACHABLE; n];
        let mut queue = VecDeque::new();
        for (hi, &dst) in host_nodes.iter().enumerate() {
            dist.fill(UNREACHABLE);
            dist[dst.idx()] = 0;
            queue.clear();
            queue.push_back(dst);
            while let Some(v) = queue.pop_front() {
                for &pid in &incoming[v.idx()] {
                    let u = ports[pid.idx()].from;
                    if dist[u.idx()] == UNREACHABLE {
                        dist[u.idx()] = dist[v.idx()] + 1;
                        // A host is reached but not passed through.
                        if row[u.idx()] != HOST {
                            queue.push_back(u);
                        }
                    }
                }
            }
            for u in (0..n).filter(|&u| row[u] != HOST && dist[u] != UNREACHABLE) {
                let r = row[u] as usize;
                dist_all[r * h + hi] = dist[u];
                let off = table_ports.len() as u32;
                for &pid in &node_ports[u] {
                    let p = &ports[pid.idx()];
                    let next = p.to.idx();
                    let forwards = next == dst.idx() || row[next] != HOST;
                    if p.up && forwards && dist[next] != UNREACHABLE && dist[next] + 1 == dist[u] {
                        table_ports.push(pid);
                    }
                }
                let len = table_ports.len() as u32 - off;
                let first = table_ports.get(off as usize).copied().unwrap_or(NO_ROUTE.first);
                entries[r * h + hi] = Route { first, off, len };
            }
        }
        RoutingTable {
            hosts: h,
            row,
            nic,
            entries,
            ports: table_ports,
            dist: dist_all,
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
                let d = self.dist[r as usize * self.hosts + dst.idx()];
                (d != UNREACHABLE).then_some(d)
            }
        }
    }
}
