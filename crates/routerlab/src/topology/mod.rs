/*! Built-in topologies. Each is a function from its parameters to a [`TopologySpec`] plus the
default sender → receiver pairs that workloads use when they name no hosts.

- [`dumbbell`]: `pairs` senders `s0…` → switch `left` → bottleneck → switch `right` → receivers
  `r0…`. Access links connect each host to its switch; the bottleneck's queue applies in both
  directions (data left→right, ACKs right→left).
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
}

pub fn dumbbell(p: &DumbbellParams) -> BuiltTopology {
    let mut t = TopologySpec::default();
    let left = t.add_node("left", NodeKind::Switch);
    let right = t.add_node("right", NodeKind::Switch);
    t.add_link(left, right, p.bottleneck.clone(), p.bottleneck.clone());
    let mut pairs = Vec::with_capacity(p.pairs);
    for i in 0..p.pairs {
        let s = t.add_node(format!("s{i}"), NodeKind::Host);
        let r = t.add_node(format!("r{i}"), NodeKind::Host);
        t.add_link(s, left, p.access.clone(), p.access.clone());
        t.add_link(r, right, p.access.clone(), p.access.clone());
        pairs.push((format!("s{i}"), format!("r{i}")));
    }
    BuiltTopology { spec: t, pairs }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::net::Network;
    use crate::qdisc::{DropTailParams, QueueSpec};
    use crate::units::{Rate, SimTime, Size};

    fn dir(rate: Rate) -> DirSpec {
        DirSpec {
            rate,
            delay: SimTime::from_ms(1),
            queue: QueueSpec::DropTail(DropTailParams { limit: Size::Packets(100), ecn_threshold: None }),
            loss: 0.0,
            framing_bytes: 0,
        }
    }

    #[test]
    fn dumbbell_routes_every_pair_through_the_bottleneck() {
        let b = dumbbell(&DumbbellParams {
            pairs: 3,
            access: dir(Rate::from_gbps(1)),
            bottleneck: dir(Rate::from_mbps(100)),
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
}
