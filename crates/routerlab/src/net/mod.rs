/*! The network: nodes, ports (directed links), routing and forwarding.

A [`Network`] is built from a [`TopologySpec`] — a list of named nodes (hosts and switches) and
full-duplex links, each direction with its own rate, delay, queue and impairments. Built-in
topologies (dumbbell, …) are functions that produce a `TopologySpec`; see
[`crate::topology`]. Hosts have exactly one link (their NIC); switches any number.

Node ids, port ids and host ids are dense indices, assigned in the order of the spec, so every
table is a `Vec` and every iteration order is deterministic.
*/

pub mod flow_epoch;
pub mod forwarding;
pub mod fragment;
pub mod index;
pub mod packet;
pub mod pcap;
pub mod port;
pub mod recipe;
pub mod routing;
pub mod stage;

use crate::builtins::QueueSpec;
use crate::ids::{HostId, NodeId, PortId};
use crate::rng::{SimRng, StreamId};
use crate::units::{Rate, SimTime};
use forwarding::{Forwarder, PolicyRecipe};
use index::TopologyIndex;
use port::Port;
use routing::RoutingTable;
use stage::StageRecipe;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NodeKind {
    Host,
    Switch,
}

/// One direction of a link, as specified.
#[derive(Clone, Debug, PartialEq)]
pub struct DirSpec {
    pub rate: Rate,
    pub delay: SimTime,
    pub queue: QueueSpec,
    /// Independent random loss probability (0 = none).
    pub loss: f64,
    /// Per-packet link-layer overhead in bytes (0 = count the IP datagram only).
    pub framing_bytes: u32,
    /// Largest IP datagram carried without fragmentation (1500: Ethernet).
    pub mtu: u32,
    /// Loss of the reverse direction when this spec describes both directions of a link
    /// (see [`TopologySpec::add_duplex`]); None: as `loss`.
    pub reverse_loss: Option<f64>,
    /// The stages around the queue, in order (installed where this direction leaves a switch,
    /// not a host).
    pub stages: Vec<StageRecipe>,
}

/// Ethernet's MTU: the largest IP datagram an Ethernet link carries unfragmented.
pub const ETHERNET_MTU: u32 = 1500;

impl DirSpec {
    /// A direction with no loss, no framing overhead and Ethernet's MTU.
    pub fn new(rate: Rate, delay: SimTime, queue: QueueSpec) -> DirSpec {
        DirSpec {
            rate,
            delay,
            queue,
            loss: 0.0,
            framing_bytes: 0,
            mtu: ETHERNET_MTU,
            reverse_loss: None,
            stages: Vec::new(),
        }
    }
}

#[derive(Clone, Debug, PartialEq)]
pub struct NodeSpec {
    pub name: String,
    pub kind: NodeKind,
    /// The switch's per-packet policy; None: per-flow ECMP.
    pub forwarding: Option<PolicyRecipe>,
}

/// A full-duplex link between nodes `a` and `b` (indices into the node list).
#[derive(Clone, Debug, PartialEq)]
pub struct LinkSpec {
    pub a: usize,
    pub b: usize,
    pub a_to_b: DirSpec,
    pub b_to_a: DirSpec,
}

#[derive(Clone, Debug, PartialEq, Default)]
pub struct TopologySpec {
    pub nodes: Vec<NodeSpec>,
    pub links: Vec<LinkSpec>,
}

impl TopologySpec {
    pub fn add_node(&mut self, name: impl Into<String>, kind: NodeKind) -> usize {
        self.nodes.push(NodeSpec { name: name.into(), kind, forwarding: None });
        self.nodes.len() - 1
    }
    pub fn add_link(&mut self, a: usize, b: usize, a_to_b: DirSpec, b_to_a: DirSpec) {
        self.links.push(LinkSpec { a, b, a_to_b, b_to_a });
    }
    /// A full-duplex link whose directions share `d`, except that b→a has `d.reverse_loss`.
    pub fn add_duplex(&mut self, a: usize, b: usize, d: &DirSpec) {
        let mut back = d.clone();
        back.loss = d.reverse_loss.unwrap_or(d.loss);
        self.add_link(a, b, d.clone(), back);
    }

    pub fn node_index(&self, name: &str) -> Option<usize> {
        self.nodes.iter().position(|n| n.name == name)
    }
    pub fn hosts(&self) -> impl Iterator<Item = (usize, &NodeSpec)> {
        self.nodes.iter().enumerate().filter(|(_, n)| n.kind == NodeKind::Host)
    }
}

#[derive(Debug)]
pub struct Node {
    pub name: String,
    pub kind: NodeKind,
    /// Egress ports.
    pub ports: Vec<PortId>,
    pub host: Option<HostId>,
    pub forwarder: Forwarder,
}

#[derive(Debug)]
pub struct Network {
    pub nodes: Vec<Node>,
    pub ports: Vec<Port>,
    /// Host id → node.
    pub hosts: Vec<NodeId>,
    /// Host id → its NIC (egress) port.
    pub host_nic: Vec<PortId>,
    /// Node → its host id, if a host: what every arrival asks, kept dense (8 bytes a node)
    /// so that it stays in cache where `nodes` (names, port lists) would not.
    pub node_host: Vec<Option<HostId>>,
    /// Port → the node at its far end, and whether that is a host: what the event loop's
    /// prefetch asks of every arrival (at a host it loads the whole packet, at a switch the
    /// packet's forwarding part and the port it will leave by), dense so that it stays in cache.
    pub port_far_end: Vec<(NodeId, bool)>,
    pub routes: RoutingTable,
    /// Port names, `"a->b"`.
    pub port_names: Vec<String>,
    /// Scratch list for a port's extra drops (one for all ports: it stays in cache, and an
    /// empty one is all a plain port ever sees).
    pub drops: crate::qdisc::DropList,
}

impl Network {
    /// Point each port whose queue discipline watches the reverse direction at the port that
    /// carries it (the far end's port back), so that arrivals over that port reach it. Call
    /// once the disciplines are installed.
    pub fn wire_reverse_observers(&mut self) {
        for port in self.ports.iter_mut() {
            port.reverse_observer = None;
        }
        for q in 0..self.ports.len() {
            if !crate::qdisc::Qdisc::wants_reverse(self.ports[q].qdisc()) {
                continue;
            }
            let (from, to) = (self.ports[q].from, self.ports[q].to);
            let back = self.nodes[to.idx()].ports.iter().copied().find(|r| self.ports[r.idx()].to == from);
            if let Some(r) = back {
                self.ports[r.idx()].reverse_observer = Some(self.ports[q].id);
            }
        }
    }

    /// Build the network. The spec must be valid (see `scenario` validation): every host has
    /// exactly one link.
    pub fn build(spec: &TopologySpec, seed: u64) -> Network {
        // Hosts, each node's ports and the ports' names are numbered by the index, which
        // answers a scenario's check the same way without building anything.
        let index = TopologyIndex::new(spec);
        let hosts = index.host_nodes().to_vec();
        let nodes: Vec<Node> = spec
            .nodes
            .iter()
            .enumerate()
            .map(|(i, n)| Node {
                name: n.name.clone(),
                kind: n.kind,
                ports: index.ports_of(NodeId(i as u32)).to_vec(),
                host: index.host_of(NodeId(i as u32)),
                forwarder: Forwarder::new(
                    n.forwarding.as_ref(),
                    SimRng::new(seed, StreamId::Forwarding(i as u32)),
                ),
            })
            .collect();
        let mut ports = Vec::with_capacity(index.port_count());
        for l in &spec.links {
            for (from, to, d) in [(l.a, l.b, &l.a_to_b), (l.b, l.a, &l.b_to_a)] {
                let id = PortId(ports.len() as u32);
                let qdisc = d.queue.build(SimRng::new(seed, StreamId::Qdisc(id.0)), d.rate);
                let mut port = Port::new(
                    id,
                    NodeId(from as u32),
                    NodeId(to as u32),
                    d.rate,
                    d.delay,
                    d.framing_bytes,
                    d.mtu,
                    d.loss,
                    qdisc,
                    SimRng::new(seed, StreamId::LinkLoss(id.0)),
                );
                if spec.nodes[from].kind == NodeKind::Switch {
                    for stage in &d.stages {
                        port.push_stage(stage.build(d.rate));
                    }
                }
                ports.push(port);
            }
        }
        let port_names = (0..index.port_count() as u32).map(|p| index.port_name(PortId(p))).collect();
        let host_nic = hosts.iter().map(|n| nodes[n.idx()].ports[0]).collect();
        let node_host: Vec<Option<HostId>> = nodes.iter().map(|n| n.host).collect();
        let port_far_end = ports.iter().map(|p| (p.to, node_host[p.to.idx()].is_some())).collect();
        let node_ports: Vec<Vec<PortId>> = nodes.iter().map(|n| n.ports.clone()).collect();
        let routes = RoutingTable::build(&node_ports, &ports, &hosts);
        Network {
            nodes,
            ports,
            hosts,
            host_nic,
            node_host,
            port_far_end,
            routes,
            port_names,
            drops: Vec::new(),
        }
    }

    /// Recompute routes after a link changed state.
    pub fn recompute_routes(&mut self) {
        let node_ports: Vec<Vec<PortId>> = self.nodes.iter().map(|n| n.ports.clone()).collect();
        self.routes = RoutingTable::build(&node_ports, &self.ports, &self.hosts);
    }

    /// Equal-cost (shortest) paths from host `src` to host `dst` over the current routes: 1 on
    /// a dumbbell, (k/2)² between pods of a k-ary fat-tree, 0 if unreachable.
    pub fn path_count(&self, src: HostId, dst: HostId) -> u64 {
        // Paths from a node = the sum over its next hops; memoized, since paths share nodes.
        fn count(net: &Network, node: NodeId, dst: HostId, memo: &mut [Option<u64>]) -> u64 {
            if node == net.hosts[dst.idx()] {
                return 1;
            }
            if let Some(n) = memo[node.idx()] {
                return n;
            }
            let n = net
                .routes
                .next_hops(node, dst)
                .iter()
                .map(|p| count(net, net.ports[p.idx()].to, dst, memo))
                .sum();
            memo[node.idx()] = Some(n);
            n
        }
        count(self, self.hosts[src.idx()], dst, &mut vec![None; self.nodes.len()])
    }

    /// The ports a flow with this 5-tuple hash crosses from `src` to `dst` under per-flow
    /// ECMP (MPTCP looks for subflow ports that land on distinct paths).
    pub fn ecmp_path(&self, src: HostId, dst: HostId, flow_hash: u32) -> Vec<PortId> {
        let (mut node, end) = (self.hosts[src.idx()], self.hosts[dst.idx()]);
        let mut path = Vec::new();
        while node != end {
            let hops = self.routes.next_hops(node, dst);
            if hops.is_empty() {
                break;
            }
            let p = self.nodes[node.idx()].forwarder.ecmp(hops, flow_hash);
            path.push(p);
            node = self.ports[p.idx()].to;
        }
        path
    }

    pub fn host_name(&self, h: HostId) -> &str {
        &self.nodes[self.hosts[h.idx()].idx()].name
    }

    /// The port from node `a` to node `b`, if they are linked.
    pub fn port_between(&self, a: NodeId, b: NodeId) -> Option<PortId> {
        self.nodes[a.idx()].ports.iter().copied().find(|p| self.ports[p.idx()].to == b)
    }

    pub fn node_by_name(&self, name: &str) -> Option<NodeId> {
        self.nodes.iter().position(|n| n.name == name).map(|i| NodeId(i as u32))
    }
}
