//! What checking a scenario asks of its topology — which nodes are hosts, what the ports are
//! called, which link joins two nodes, whether one host can reach another — answered from the
//! [`TopologySpec`] alone, without building the [`Network`](super::Network) — which takes its
//! numbering of hosts and ports, and the ports' names, from here.
//!
//! Building the network makes every port (queue, random streams, 704 bytes each) and the
//! routing tables; a 100,000-pair dumbbell's takes 0.3 s and 380 MB, and the run
//! builds its own. The answers here are the network's, numbered the same way: hosts in node
//! order, and for link `i` the port `2i` from `a` to `b` and `2i + 1` back. Reachability
//! follows the routing tables' rule (`routing`): hosts do not forward, and a host sends only
//! through its NIC (its first link), so host `s` reaches host `d` if its NIC leads straight to
//! `d`, or to a switch connected through switches to one with a link into `d`. Links are all
//! up before the run starts.

use super::{NodeKind, TopologySpec};
use crate::ids::{HostId, NodeId, PortId};

pub struct TopologyIndex<'a> {
    spec: &'a TopologySpec,
    node_host: Vec<Option<HostId>>,
    host_nodes: Vec<NodeId>,
    /// Per node, the ports leaving it, in port order (a host's first is its NIC).
    node_ports: Vec<Vec<PortId>>,
    /// Per switch, its component of the switch-only graph (a node index; hosts map to
    /// themselves).
    component: Vec<u32>,
    /// Per component (by its node index), the smallest MTU of a port between two of its
    /// switches, that port, and whether every such port has that MTU.
    core_mtu: Vec<Option<(u32, PortId, bool)>>,
}

impl<'a> TopologyIndex<'a> {
    pub fn new(spec: &'a TopologySpec) -> TopologyIndex<'a> {
        let mut node_host = Vec::with_capacity(spec.nodes.len());
        let mut host_nodes = Vec::new();
        for (i, n) in spec.nodes.iter().enumerate() {
            node_host.push((n.kind == NodeKind::Host).then(|| {
                host_nodes.push(NodeId(i as u32));
                HostId(host_nodes.len() as u32 - 1)
            }));
        }
        let mut node_ports = vec![Vec::new(); spec.nodes.len()];
        let mut parent: Vec<u32> = (0..spec.nodes.len() as u32).collect();
        for (i, l) in spec.links.iter().enumerate() {
            node_ports[l.a].push(PortId(2 * i as u32));
            node_ports[l.b].push(PortId(2 * i as u32 + 1));
            let switch = |n: usize| spec.nodes[n].kind == NodeKind::Switch;
            if switch(l.a) && switch(l.b) {
                let (ra, rb) = (root(&mut parent, l.a as u32), root(&mut parent, l.b as u32));
                parent[ra.max(rb) as usize] = ra.min(rb);
            }
        }
        let component: Vec<u32> = (0..spec.nodes.len() as u32).map(|n| root(&mut parent, n)).collect();
        let mut core_mtu: Vec<Option<(u32, PortId, bool)>> = vec![None; spec.nodes.len()];
        for (i, l) in spec.links.iter().enumerate() {
            if spec.nodes[l.a].kind == NodeKind::Switch && spec.nodes[l.b].kind == NodeKind::Switch {
                for (port, mtu) in [(2 * i as u32, l.a_to_b.mtu), (2 * i as u32 + 1, l.b_to_a.mtu)] {
                    let c = &mut core_mtu[component[l.a] as usize];
                    *c = Some(match *c {
                        None => (mtu, PortId(port), true),
                        Some((m, _, _)) if mtu < m => (mtu, PortId(port), false),
                        Some((m, p, same)) => (m, p, same && mtu == m),
                    });
                }
            }
        }
        TopologyIndex { spec, node_host, host_nodes, node_ports, component, core_mtu }
    }

    pub fn host_count(&self) -> usize {
        self.host_nodes.len()
    }

    /// Ports: two per link.
    pub fn port_count(&self) -> usize {
        2 * self.spec.links.len()
    }

    /// The node of each host, by host id.
    pub fn host_nodes(&self) -> &[NodeId] {
        &self.host_nodes
    }

    /// The ports leaving node `n`, in port order (a host's first is its NIC).
    pub fn ports_of(&self, n: NodeId) -> &[PortId] {
        &self.node_ports[n.idx()]
    }

    /// The host a node is, if it is one.
    pub fn host_of(&self, n: NodeId) -> Option<HostId> {
        self.node_host[n.idx()]
    }

    pub fn host_name(&self, h: HostId) -> &'a str {
        &self.spec.nodes[self.host_nodes[h.idx()].idx()].name
    }

    /// The nodes port `p` leads from and to: link `p / 2`, one way or back.
    fn ends(&self, p: PortId) -> (usize, usize) {
        let l = &self.spec.links[p.idx() / 2];
        if p.0.is_multiple_of(2) { (l.a, l.b) } else { (l.b, l.a) }
    }

    /// The node a port leads to.
    fn far_end(&self, p: PortId) -> usize {
        self.ends(p).1
    }

    /// The port from node `a` to node `b`, if they are linked (the first, as the network's).
    pub fn port_between(&self, a: NodeId, b: NodeId) -> Option<PortId> {
        self.node_ports[a.idx()].iter().copied().find(|&p| self.far_end(p) == b.idx())
    }

    /// The port named `"from->to"` (the network's port names), if any.
    pub fn port_named(&self, name: &str) -> Option<PortId> {
        (0..self.port_count() as u32).map(PortId).find(|&p| {
            let (from, to) = self.port_ends(p);
            name.len() == from.len() + 2 + to.len()
                && name.starts_with(from)
                && name[from.len()..].starts_with("->")
                && name.ends_with(to)
        })
    }

    /// The name of port `p`: `"from->to"`.
    pub fn port_name(&self, p: PortId) -> String {
        let (from, to) = self.port_ends(p);
        format!("{from}->{to}")
    }

    fn port_ends(&self, p: PortId) -> (&'a str, &'a str) {
        let (from, to) = self.ends(p);
        (&self.spec.nodes[from].name, &self.spec.nodes[to].name)
    }

    /// Every port that leaves a switch, in port order.
    pub fn switch_ports(&self) -> Vec<PortId> {
        (0..self.port_count() as u32)
            .map(PortId)
            .filter(|&p| self.spec.nodes[self.ends(p).0].kind == NodeKind::Switch)
            .collect()
    }

    /// Whether host `s` can send to host `d` (the routing tables' answer, which is yes for
    /// `s == d`; see the module). A host without a link reaches no other.
    pub fn reaches(&self, s: HostId, d: HostId) -> bool {
        if s == d {
            return true;
        }
        let (s, d) = (self.host_nodes[s.idx()], self.host_nodes[d.idx()].idx());
        let Some(&nic) = self.node_ports[s.idx()].first() else { return false };
        let next = self.far_end(nic);
        if next == d {
            return true;
        }
        if self.node_host[next].is_some() {
            return false;
        }
        let c = self.component[next];
        self.node_ports[d]
            .iter()
            .map(|&p| self.far_end(p))
            .any(|n| self.node_host[n].is_none() && self.component[n] == c)
    }

    /// The smallest MTU a packet from host `s` to host `d` meets, and the port where, for a
    /// pair that `reaches`: the sender's NIC, the last hop into `d`, and between switches —
    /// when the path crosses a link between two — their MTU if all of them in that part of the
    /// network have the same one. (Where they differ the middle is not checked here: a packet
    /// too large for it is dropped there, counted as `frag_needed`.)
    pub fn smallest_mtu(&self, s: HostId, d: HostId) -> Option<(u32, PortId)> {
        let (s, d) = (self.host_nodes[s.idx()], self.host_nodes[d.idx()].idx());
        let nic = *self.node_ports[s.idx()].first()?;
        let mut smallest = (self.mtu(nic), nic);
        let first = self.far_end(nic);
        if first == d {
            return Some(smallest);
        }
        // The port into d from a switch of the first switch's part of the network.
        let c = self.component[first];
        let last = self.node_ports[d]
            .iter()
            .map(|&p| PortId(p.0 ^ 1))
            .find(|&p| self.node_host[self.ends(p).0].is_none() && self.component[self.ends(p).0] == c)?;
        if self.mtu(last) < smallest.0 {
            smallest = (self.mtu(last), last);
        }
        if self.ends(last).0 != first
            && let Some((mtu, port, true)) = self.core_mtu[c as usize]
            && mtu < smallest.0
        {
            smallest = (mtu, port);
        }
        Some(smallest)
    }

    fn mtu(&self, p: PortId) -> u32 {
        let l = &self.spec.links[p.idx() / 2];
        if p.0.is_multiple_of(2) { l.a_to_b.mtu } else { l.b_to_a.mtu }
    }
}

/// Union-find root of `n`, halving the path on the way.
pub(crate) fn root(parent: &mut [u32], mut n: u32) -> u32 {
    while parent[n as usize] != n {
        parent[n as usize] = parent[parent[n as usize] as usize];
        n = parent[n as usize];
    }
    n
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::builtins::QueueSpec;
    use crate::net::{DirSpec, Network, NodeKind, TopologySpec};
    use crate::qdisc::DropTailParams;
    use crate::units::{Rate, SimTime, Size};
    use proptest::prelude::*;

    fn topology(switches: u32, hosts: u32, links: &[(u32, u32)]) -> TopologySpec {
        let mut spec = TopologySpec::default();
        for i in 0..switches {
            spec.add_node(format!("s{i}"), NodeKind::Switch);
        }
        for i in 0..hosts {
            spec.add_node(format!("h{i}"), NodeKind::Host);
        }
        let queue = QueueSpec::DropTail(DropTailParams { limit: Size::Packets(10), ecn_threshold: None });
        let d = DirSpec::new(Rate::from_mbps(1), SimTime::ZERO, queue);
        let n = switches + hosts;
        for &(a, b) in links {
            let (a, b) = ((a % n) as usize, (b % n) as usize);
            if a != b {
                spec.add_link(a, b, d.clone(), d.clone());
            }
        }
        spec
    }

    proptest! {
        /// On random graphs (hosts with no link, one or several, hosts linked to hosts,
        /// parallel links, switches in several pieces), every answer is the built network's.
        #[test]
        fn answers_as_the_built_network(
            switches in 0u32..6,
            hosts in 1u32..8,
            nics in proptest::collection::vec(0u32..14, 8),
            links in proptest::collection::vec((0u32..14, 0u32..14), 0..30),
        ) {
            // The network needs a NIC on every host: each host's first link, then the rest.
            let n = switches + hosts;
            let first: Vec<(u32, u32)> = (switches..n)
                .map(|h| (h, if nics[(h - switches) as usize] % n == h { (h + 1) % n } else { nics[(h - switches) as usize] }))
                .collect();
            let spec = topology(switches, hosts, &[first, links].concat());
            prop_assume!(n > 1);
            let net = Network::build(&spec, 0);
            let index = TopologyIndex::new(&spec);
            prop_assert_eq!(index.host_count(), net.hosts.len());
            for (i, name) in net.port_names.iter().enumerate() {
                prop_assert_eq!(&index.port_name(PortId(i as u32)), name);
                // The first port of that name, as a search of the network's names finds it.
                let first = net.port_names.iter().position(|n| n == name).unwrap();
                prop_assert_eq!(index.port_named(name), Some(PortId(first as u32)));
            }
            prop_assert_eq!(index.port_named("s0->"), None);
            let switch_ports: Vec<PortId> = net
                .ports
                .iter()
                .filter(|p| net.nodes[p.from.idx()].kind == NodeKind::Switch)
                .map(|p| p.id)
                .collect();
            prop_assert_eq!(index.switch_ports(), switch_ports);
            for a in 0..n {
                prop_assert_eq!(index.host_of(NodeId(a)), net.nodes[a as usize].host);
                for b in 0..n {
                    prop_assert_eq!(index.port_between(NodeId(a), NodeId(b)), net.port_between(NodeId(a), NodeId(b)));
                }
            }
            for s in 0..hosts {
                prop_assert_eq!(index.host_name(HostId(s)), net.host_name(HostId(s)));
                for d in 0..hosts {
                    let routed = net.routes.distance(net.hosts[s as usize], HostId(d)).is_some();
                    prop_assert_eq!(index.reaches(HostId(s), HostId(d)), routed, "{} to {}", s, d);
                }
            }
        }
    }

    #[test]
    fn a_host_reaches_across_switches_but_not_through_a_host() {
        // h0 - s0 - s1 - h1, and h2 - h3 - s2 (a host between h2 and the switches), and h4
        // without a link.
        let spec = topology(3, 5, &[(3, 0), (0, 1), (1, 4), (5, 6), (6, 2)]);
        let index = TopologyIndex::new(&spec);
        let (h0, h1, h2, h3, h4) = (HostId(0), HostId(1), HostId(2), HostId(3), HostId(4));
        assert!(index.reaches(h0, h1) && index.reaches(h1, h0));
        assert!(index.reaches(h2, h3), "one link, host to host");
        assert!(!index.reaches(h2, h0), "h2's NIC leads to a host, which does not forward");
        assert!(!index.reaches(h3, h0), "s2 is not connected to s0 and s1");
        assert!(!index.reaches(h4, h0) && !index.reaches(h0, h4), "h4 has no link");
    }
}
