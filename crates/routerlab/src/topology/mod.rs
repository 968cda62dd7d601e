/*! Built-in topologies. Each is a function from its parameters to a [`TopologySpec`] plus the
default sender → receiver pairs that workloads use when they name no hosts.

- [`dumbbell`]: `pairs` senders `s0…` → switch `left` → bottleneck → switch `right` → receivers
  `r0…`. Access links connect each host to its switch; the bottleneck's queue applies in both
  directions (data left→right, ACKs right→left). Per-pair RTTs: each sender's access link may
  have its own delay.
- [`star`]: `senders` hosts `s0…` and `receivers` hosts `r0…` on one switch `switch`; the
  switch→receiver link is the bottleneck where incast happens.
- [`parking_lot`]: routers `n0 … n{R−1}` in a chain, long flows from `s*` at `n0` to `r*` at
  `n{R−1}` crossing every hop, and cross traffic `x{h}s{j} → x{h}r{j}` over hop h only.
- [`fat_tree`]: the k-ary fat-tree of Al-Fares et al. (SIGCOMM 2008): k pods of k/2 edge and
  k/2 aggregation switches, (k/2)² core switches, k³/4 hosts; k²/4 equal-cost paths between
  hosts in different pods.
*/

use crate::net::{DirSpec, NodeKind, TopologySpec};

/// A topology with the host pairs workloads use by default.
#[derive(Clone, Debug, PartialEq)]
pub struct BuiltTopology {
    pub spec: TopologySpec,
    /// Default (sender, receiver) host names, used round-robin by workloads without `src`/`dst`.
    pub pairs: Vec<(String, String)>,
}

#[derive(Clone, Debug, PartialEq)]
pub struct DumbbellParams {
    pub pairs: usize,
    /// Access links (host ↔ switch), both directions.
    pub access: DirSpec,
    /// The bottleneck (left ↔ right), both directions.
    pub bottleneck: DirSpec,
    /// One-way delay of each sender's access link (pair i uses entry i); None: `access.delay`.
    pub sender_delays: Option<Vec<crate::units::SimTime>>,
}

pub fn dumbbell(p: &DumbbellParams) -> BuiltTopology {
    let mut t = TopologySpec::default();
    let left = t.add_node("left", NodeKind::Switch);
    let right = t.add_node("right", NodeKind::Switch);
    t.add_duplex(left, right, &p.bottleneck);
    let mut pairs = Vec::with_capacity(p.pairs);
    for i in 0..p.pairs {
        let s = t.add_node(format!("s{i}"), NodeKind::Host);
        let r = t.add_node(format!("r{i}"), NodeKind::Host);
        t.add_duplex(s, left, &sender_access(&p.access, &p.sender_delays, i));
        t.add_duplex(r, right, &p.access);
        pairs.push((format!("s{i}"), format!("r{i}")));
    }
    BuiltTopology { spec: t, pairs }
}

/// Sender i's access link: `access`, with its own delay if `sender_delays` gives one.
fn sender_access(access: &DirSpec, sender_delays: &Option<Vec<crate::units::SimTime>>, i: usize) -> DirSpec {
    let mut link = access.clone();
    if let Some(d) = sender_delays {
        link.delay = d[i];
    }
    link
}

#[derive(Clone, Debug, PartialEq)]
pub struct StarParams {
    pub senders: usize,
    pub receivers: usize,
    /// Sender ↔ switch links.
    pub access: DirSpec,
    /// Switch ↔ receiver links (the incast bottleneck).
    pub bottleneck: DirSpec,
    /// One-way delay of each sender's access link (sender i uses entry i); None: `access.delay`.
    pub sender_delays: Option<Vec<crate::units::SimTime>>,
}

pub fn star(p: &StarParams) -> BuiltTopology {
    let mut t = TopologySpec::default();
    let sw = t.add_node("switch", NodeKind::Switch);
    let mut receivers = Vec::new();
    for j in 0..p.receivers {
        let r = t.add_node(format!("r{j}"), NodeKind::Host);
        t.add_duplex(r, sw, &p.bottleneck);
        receivers.push(format!("r{j}"));
    }
    let mut pairs = Vec::new();
    for i in 0..p.senders {
        let s = t.add_node(format!("s{i}"), NodeKind::Host);
        t.add_duplex(s, sw, &sender_access(&p.access, &p.sender_delays, i));
        pairs.push((format!("s{i}"), receivers[i % p.receivers].clone()));
    }
    BuiltTopology { spec: t, pairs }
}

#[derive(Clone, Debug, PartialEq)]
pub struct ParkingLotParams {
    /// Routers in the chain (≥ 2); hops = routers − 1.
    pub routers: usize,
    /// Long flows crossing every hop.
    pub pairs: usize,
    /// Cross-traffic pairs on each hop that has cross traffic.
    pub cross: usize,
    /// Hops (1-based) that carry cross traffic.
    pub cross_hops: Vec<usize>,
    /// Router ↔ router links.
    pub link: DirSpec,
    pub access: DirSpec,
}

pub fn parking_lot(p: &ParkingLotParams) -> BuiltTopology {
    let mut t = TopologySpec::default();
    let routers: Vec<usize> = (0..p.routers).map(|i| t.add_node(format!("n{i}"), NodeKind::Switch)).collect();
    for w in routers.windows(2) {
        t.add_duplex(w[0], w[1], &p.link);
    }
    let mut pairs = Vec::new();
    for i in 0..p.pairs {
        let s = t.add_node(format!("s{i}"), NodeKind::Host);
        let r = t.add_node(format!("r{i}"), NodeKind::Host);
        t.add_duplex(s, routers[0], &p.access);
        t.add_duplex(r, routers[p.routers - 1], &p.access);
        pairs.push((format!("s{i}"), format!("r{i}")));
    }
    for &h in &p.cross_hops {
        for j in 0..p.cross {
            let s = t.add_node(format!("x{h}s{j}"), NodeKind::Host);
            let r = t.add_node(format!("x{h}r{j}"), NodeKind::Host);
            t.add_duplex(s, routers[h - 1], &p.access);
            t.add_duplex(r, routers[h], &p.access);
        }
    }
    BuiltTopology { spec: t, pairs }
}

#[derive(Clone, Debug, PartialEq)]
pub struct FatTreeParams {
    /// Pods (even, ≥ 2).
    pub k: usize,
    /// Switch ↔ switch links.
    pub link: DirSpec,
    /// Host ↔ edge links.
    pub host_link: DirSpec,
}

/// Host `i` is in pod i / (k/2)², under edge switch (i / (k/2)) mod (k/2).
pub fn fat_tree(p: &FatTreeParams) -> BuiltTopology {
    let k = p.k;
    let h = k / 2;
    let mut t = TopologySpec::default();
    let core: Vec<usize> = (0..h * h).map(|i| t.add_node(format!("c{i}"), NodeKind::Switch)).collect();
    let mut n_hosts = 0;
    for pod in 0..k {
        let aggs: Vec<usize> = (0..h).map(|a| t.add_node(format!("a{pod}_{a}"), NodeKind::Switch)).collect();
        let edges: Vec<usize> = (0..h).map(|e| t.add_node(format!("e{pod}_{e}"), NodeKind::Switch)).collect();
        for (a, &agg) in aggs.iter().enumerate() {
            // Aggregation switch a of every pod connects to core switches a·k/2 … a·k/2 + k/2 − 1.
            for c in 0..h {
                t.add_duplex(agg, core[a * h + c], &p.link);
            }
            for &edge in &edges {
                t.add_duplex(edge, agg, &p.link);
            }
        }
        for &edge in &edges {
            for _ in 0..h {
                let host = t.add_node(format!("h{n_hosts}"), NodeKind::Host);
                t.add_duplex(host, edge, &p.host_link);
                n_hosts += 1;
            }
        }
    }
    // Default pairs: each host to the host at the same position in the next pod.
    let per_pod = h * h;
    let pairs = (0..n_hosts).map(|i| (format!("h{i}"), format!("h{}", (i + per_pod) % n_hosts))).collect();
    BuiltTopology { spec: t, pairs }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::builtins::QueueSpec;
    use crate::net::Network;
    use crate::qdisc::DropTailParams;
    use crate::units::{Rate, SimTime, Size};

    fn dir(rate: Rate) -> DirSpec {
        let queue = QueueSpec::DropTail(DropTailParams { limit: Size::Packets(100), ecn_threshold: None });
        DirSpec::new(rate, SimTime::from_ms(1), queue)
    }

    #[test]
    fn dumbbell_routes_every_pair_through_the_bottleneck() {
        let b = dumbbell(&DumbbellParams {
            pairs: 3,
            access: dir(Rate::from_gbps(1)),
            bottleneck: dir(Rate::from_mbps(100)),
            sender_delays: None,
        });
        let net = Network::build(&b.spec, 1);
        assert_eq!(net.hosts.len(), 6);
        assert_eq!(net.ports.len(), 2 * 7);
        let s0 = net.node_by_name("s0").unwrap();
        let r2 = net.nodes[net.node_by_name("r2").unwrap().idx()].host.unwrap();
        assert_eq!(net.routes.distance(s0, r2), Some(3));
        let left = net.node_by_name("left").unwrap();
        let hops = net.routes.next_hops(left, r2);
        assert_eq!(hops.len(), 1);
        assert_eq!(net.port_names[hops[0].idx()], "left->right");
    }

    /// Number of shortest paths from node `n` to host `d`, along the routing DAG.
    fn paths(net: &Network, n: crate::ids::NodeId, d: crate::ids::HostId) -> usize {
        if net.nodes[n.idx()].host == Some(d) {
            return 1;
        }
        net.routes.next_hops(n, d).iter().map(|p| paths(net, net.ports[p.idx()].to, d)).sum()
    }

    #[test]
    fn fat_tree_has_the_right_counts_and_equal_cost_paths() {
        for k in [4usize, 6, 8] {
            let b = fat_tree(&FatTreeParams {
                k,
                link: dir(Rate::from_mbps(100)),
                host_link: dir(Rate::from_mbps(100)),
            });
            let net = Network::build(&b.spec, 1);
            let switches = net.nodes.iter().filter(|n| n.kind == crate::net::NodeKind::Switch).count();
            assert_eq!(net.hosts.len(), k * k * k / 4);
            assert_eq!(switches, 5 * k * k / 4, "k²/4 core + k² aggregation and edge");
            // Full duplex: host links k³/4, edge–agg k·(k/2)², agg–core k·(k/2)².
            assert_eq!(net.ports.len(), 2 * (k * k * k / 4 + 2 * k * (k / 2) * (k / 2)));
            let h = k / 2;
            let host = |i: usize| net.nodes[net.node_by_name(&format!("h{i}")).unwrap().idx()].host.unwrap();
            let h0 = net.node_by_name("h0").unwrap();
            assert_eq!(paths(&net, h0, host(1)), 1, "same edge");
            assert_eq!(paths(&net, h0, host(h)), h, "same pod: one path per aggregation switch");
            assert_eq!(paths(&net, h0, host(h * h)), h * h, "other pod: k²/4 paths through the core");
            assert_eq!(net.routes.distance(h0, host(h * h)), Some(6));
            // The event loop's guess of a switch's egress (for a prefetch) is its one next hop,
            // and no guess where ECMP has a choice or the node is a host.
            for (n, node) in net.nodes.iter().enumerate() {
                for d in 0..net.hosts.len() {
                    let (n, d) = (crate::ids::NodeId(n as u32), crate::ids::HostId(d as u32));
                    let hops = net.routes.next_hops(n, d);
                    let only =
                        (node.kind == crate::net::NodeKind::Switch && hops.len() == 1).then(|| hops[0]);
                    assert_eq!(net.routes.only_next_hop(n, d), only);
                }
            }
        }
    }

    #[test]
    fn star_and_parking_lot_shapes() {
        let s = star(&StarParams {
            senders: 5,
            receivers: 1,
            access: dir(Rate::from_gbps(1)),
            bottleneck: dir(Rate::from_gbps(1)),
            sender_delays: None,
        });
        assert_eq!(s.pairs.len(), 5);
        assert!(s.pairs.iter().all(|(_, r)| r == "r0"));
        let p = parking_lot(&ParkingLotParams {
            routers: 4,
            pairs: 2,
            cross: 1,
            cross_hops: vec![1, 3],
            link: dir(Rate::from_mbps(10)),
            access: dir(Rate::from_mbps(100)),
        });
        let net = Network::build(&p.spec, 1);
        let host = |name: &str| net.nodes[net.node_by_name(name).unwrap().idx()].host.unwrap();
        assert_eq!(
            net.routes.distance(net.node_by_name("s0").unwrap(), host("r0")),
            Some(5),
            "access + 3 hops + access"
        );
        assert_eq!(
            net.routes.distance(net.node_by_name("x3s0").unwrap(), host("x3r0")),
            Some(3),
            "one hop of the chain"
        );
        assert!(net.node_by_name("x2s0").is_none());
    }
}
