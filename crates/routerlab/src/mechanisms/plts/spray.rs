//! PLTS's per-packet spraying policies (the paper's §III and §IV-B): for every packet that
//! has more than one equal-cost next hop, one of
//!
//! - **PLTS-RND** ([`random`]): a uniformly random next hop, from the switch's own random
//!   stream. The paper drops it after Fig. 3a: "skews in short sequences of random numbers"
//!   vary path latencies and cause reordering.
//! - **PLTS-CNT** ([`least_queue`]): the next hop whose egress queue holds the fewest bytes
//!   at that moment ("the smallest queue-size path at the router"). The paper does not say
//!   whether the packet being serialized counts: we count the queue discipline's backlog only
//!   (the bytes waiting), and break ties by port order (the first such port), so that the
//!   choice is deterministic.
//! - **PLTS-RR** ([`RoundRobin`]): round robin over the next hops. "The round robin policy is
//!   used for all the flows at all the routers": we read that as one counter per switch,
//!   shared by every flow and destination ([`RrScope::Switch`], the default); one counter per
//!   flow and direction is the option ([`RrScope::Flow`]).
//!
//! None allocates per packet: the per-flow counters grow once per new flow.

use crate::ids::PortId;
use crate::net::packet::Packet;
use crate::net::port::Port;
use crate::rng::SimRng;

/// PLTS-RND: a uniformly random one of `hops`.
#[inline]
pub fn random(hops: &[PortId], rng: &mut SimRng) -> PortId {
    hops[rng.below(hops.len() as u64) as usize]
}

/// PLTS-CNT: the one of `hops` with the fewest bytes queued; ties go to the first.
#[inline]
pub fn least_queue(hops: &[PortId], ports: &[Port]) -> PortId {
    let mut best = hops[0];
    let mut best_bytes = ports[best.idx()].queue_bytes();
    for &h in &hops[1..] {
        let b = ports[h.idx()].queue_bytes();
        if b < best_bytes {
            best = h;
            best_bytes = b;
        }
    }
    best
}

/// Which packets share a round-robin counter.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum RrScope {
    /// One counter per switch, for every flow (our reading of the paper).
    #[default]
    Switch,
    /// One counter per flow and direction at each switch.
    Flow,
}

/// PLTS-RR: the next hop after the one chosen last, among `hops`, counting per switch or
/// per flow as `scope` says.
#[derive(Clone, Debug, Default)]
pub struct RoundRobin {
    next: u32,
    /// Per-flow counters, by `2 × connection + direction`.
    per_flow: Vec<u32>,
}

impl RoundRobin {
    #[inline]
    pub fn choose(&mut self, scope: RrScope, hops: &[PortId], pkt: &Packet) -> PortId {
        let counter = match scope {
            RrScope::Switch => &mut self.next,
            RrScope::Flow => {
                // The two directions of a connection have their addresses swapped.
                let k = 2 * pkt.meta.conn.idx() + (pkt.ip.src.0 < pkt.ip.dst.0) as usize;
                if k >= self.per_flow.len() {
                    self.per_flow.resize(k + 1, 0);
                }
                &mut self.per_flow[k]
            }
        };
        let i = *counter as usize % hops.len();
        *counter = counter.wrapping_add(1);
        hops[i]
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ids::{ConnId, HostId};
    use crate::qdisc::QueueSpec;
    use crate::rng::StreamId;
    use crate::units::{Rate, SimTime};

    fn hops() -> Vec<PortId> {
        vec![PortId(0), PortId(1), PortId(2)]
    }

    fn pkt(conn: u32, src: u32, dst: u32) -> Packet {
        let mut p = Packet::default();
        p.meta.conn = ConnId(conn);
        p.ip.src = HostId(src);
        p.ip.dst = HostId(dst);
        p
    }

    #[test]
    fn round_robin_per_switch_cycles_across_flows() {
        let mut rr = RoundRobin::default();
        let picks: Vec<u32> =
            (0..6).map(|i| rr.choose(RrScope::Switch, &hops(), &pkt(i % 2, 0, 1)).0).collect();
        assert_eq!(picks, [0, 1, 2, 0, 1, 2]);
    }

    #[test]
    fn round_robin_per_flow_keeps_a_counter_per_flow_and_direction() {
        let mut rr = RoundRobin::default();
        let h = hops();
        let a: Vec<u32> = [pkt(0, 0, 1), pkt(1, 0, 1), pkt(0, 0, 1), pkt(0, 1, 0), pkt(1, 0, 1)]
            .iter()
            .map(|p| rr.choose(RrScope::Flow, &h, p).0)
            .collect();
        // Flow 0 forward: 0, 1; flow 1 forward: 0, 1; flow 0 backward starts at 0.
        assert_eq!(a, [0, 0, 1, 0, 1]);
    }

    #[test]
    fn random_is_roughly_uniform() {
        let mut rng = SimRng::new(7, StreamId::Forwarding(0));
        let mut n = [0u32; 3];
        for _ in 0..30_000 {
            n[random(&hops(), &mut rng).idx()] += 1;
        }
        assert!(n.iter().all(|&c| (9_500..10_500).contains(&c)), "{n:?}");
    }

    #[test]
    fn least_queue_picks_the_shortest_backlog_and_breaks_ties_by_port_order() {
        use crate::net::{DirSpec, Network, NodeKind, TopologySpec};
        use crate::qdisc::DropTailParams;
        use crate::units::Size;
        // A switch with three links: its egress ports are 0, 2 and 4 (each link adds two).
        let mut t = TopologySpec::default();
        let s = t.add_node("s", NodeKind::Switch);
        let queue = QueueSpec::DropTail(DropTailParams { limit: Size::Packets(100), ecn_threshold: None });
        let d = DirSpec::new(Rate::from_mbps(1), SimTime::ZERO, queue);
        for i in 0..3 {
            let h = t.add_node(format!("h{i}"), NodeKind::Host);
            t.add_duplex(s, h, &d);
        }
        let mut net = Network::build(&t, 1);
        let out = [PortId(0), PortId(2), PortId(4)];
        assert_eq!(least_queue(&out, &net.ports), PortId(0), "all empty: the first");
        let mut pool = crate::net::packet::PacketPool::new();
        let mut events = crate::engine::EventQueue::new();
        // Port 0: one packet serializing, two queued; ports 2 and 4: one serializing, one queued.
        for (port, n) in [(0usize, 3), (2, 2), (4, 2)] {
            for _ in 0..n {
                let mut p = Packet::default();
                p.ip.total_len = 1000;
                let id = pool.alloc(p);
                net.ports[port].enqueue(
                    SimTime::ZERO,
                    id,
                    &mut pool,
                    &mut events,
                    &mut net.drops,
                    &mut |_, _, _| {},
                );
            }
        }
        assert_eq!(least_queue(&out, &net.ports), PortId(2), "tie between 2 and 4: the first");
        assert_eq!(least_queue(&[PortId(4), PortId(0)], &net.ports), PortId(4));
    }
}
