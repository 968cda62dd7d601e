//! Routing tables: for every node and destination host, the egress ports on shortest paths.
//!
//! Paths are shortest by hop count (links that are down are skipped), computed by one
//! breadth-first search per destination over the reversed graph. Ties are kept: every
//! neighbour one hop closer to the destination is a next hop, so fat-trees get their full set
//! of equal-cost paths and forwarding policies (ECMP, spraying) choose among them. Next hops
//! are stored in port order, so the tables — and any choice among them — are deterministic.

use std::collections::VecDeque;

use crate::ids::{HostId, NodeId, PortId};
use crate::net::port::Port;

#[derive(Clone, Debug, Default)]
pub struct RoutingTable {
    hosts: usize,
    /// `(offset, len)` into `ports`, indexed by `node * hosts + host`.
    entries: Vec<(u32, u16)>,
    ports: Vec<PortId>,
    /// Hop distance from each node to each host (`u32::MAX` if unreachable).
    dist: Vec<u32>,
}

impl RoutingTable {
    /// Build from the ports of each node (`node_ports[n]` lists node n's egress ports).
    pub fn build(node_ports: &[Vec<PortId>], ports: &[Port], host_nodes: &[NodeId]) -> RoutingTable {
        let n = node_ports.len();
        let h = host_nodes.len();
        // Reverse adjacency: for each node, the ports that lead into it.
        let mut incoming: Vec<Vec<PortId>> = vec![Vec::new(); n];
        for p in ports {
            if p.up {
                incoming[p.to.idx()].push(p.id);
            }
        }
        let mut entries = vec![(0u32, 0u16); n * h];
        let mut table_ports = Vec::new();
        let mut dist_all = vec![u32::MAX; n * h];
        let mut dist = vec![u32::MAX; n];
        let mut queue = VecDeque::new();
        for (hi, &dst) in host_nodes.iter().enumerate() {
            dist.fill(u32::MAX);
            dist[dst.idx()] = 0;
            queue.clear();
            queue.push_back(dst);
            while let Some(v) = queue.pop_front() {
                for &pid in &incoming[v.idx()] {
                    let u = ports[pid.idx()].from;
                    if dist[u.idx()] == u32::MAX {
                        dist[u.idx()] = dist[v.idx()] + 1;
                        queue.push_back(u);
                    }
                }
            }
            for u in 0..n {
                dist_all[u * h + hi] = dist[u];
                if u == dst.idx() || dist[u] == u32::MAX {
                    continue;
                }
                let off = table_ports.len() as u32;
                for &pid in &node_ports[u] {
                    let p = &ports[pid.idx()];
                    if p.up && dist[p.to.idx()] != u32::MAX && dist[p.to.idx()] + 1 == dist[u] {
                        table_ports.push(pid);
                    }
                }
                entries[u * h + hi] = (off, (table_ports.len() as u32 - off) as u16);
            }
        }
        RoutingTable { hosts: h, entries, ports: table_ports, dist: dist_all }
    }

    /// Equal-cost egress ports from `node` towards `dst` (empty if unreachable or at `dst`).
    #[inline]
    pub fn next_hops(&self, node: NodeId, dst: HostId) -> &[PortId] {
        let (off, len) = self.entries[node.idx() * self.hosts + dst.idx()];
        &self.ports[off as usize..off as usize + len as usize]
    }

    /// Hop count from `node` to host `dst`, if reachable.
    pub fn distance(&self, node: NodeId, dst: HostId) -> Option<u32> {
        let d = self.dist[node.idx() * self.hosts + dst.idx()];
        (d != u32::MAX).then_some(d)
    }
}
