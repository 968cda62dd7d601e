//! PLTS's per-packet spraying policies (the paper's §III and §IV-B): for every packet that
//! has more than one equal-cost next hop, one of
//!
//! - **PLTS-RND** ([`random`]): a uniformly random next hop, from the switch's own random
//!   stream. The paper drops it after Fig. 3a: "skews in short sequences of random numbers"
//!   vary path latencies and cause reordering.
//! - **PLTS-CNT** ([`least_queue`]): the next hop whose egress port holds the fewest bytes at
//!   that moment ("the smallest queue-size path at the router"). The paper does not say
//!   whether the packet being serialized counts, nor how ties are broken. By default
//!   ([`CntReading::Occupancy`]) we count the port's whole occupancy — the bytes waiting plus
//!   what is left of the packet in service — and break ties at random from the switch's own
//!   stream: an idle port and one that has just started a packet are then told apart, and a
//!   lone flow spreads over equal idle ports. [`CntReading::OccupancyRotating`] counts the same
//!   and breaks ties by rotation instead (the first tied port after the one chosen last, one
//!   pointer per switch): where nearly every choice is a tie between idle ports, CNT then
//!   sprays as round robin does rather than as RND. [`CntReading::WaitingFirstPort`] counts only the
//!   bytes waiting and gives ties to the first port: at low load almost every packet then takes
//!   the first port (each leaves the queue at once, so the queues all read 0) until a queue
//!   forms there.
//! - **PLTS-RR** ([`RoundRobin`]): round robin over the next hops. The paper says only that
//!   "the round robin policy is used for all the flows at all the routers" and that it
//!   "ensures that all the paths between source and destinations are utilized"; which packets
//!   share a counter is ours to choose ([`RrScope`]): one per switch for every packet, one per
//!   switch for data with pure ACKs apart, one per destination host (how routers implement
//!   per-packet load sharing: a pointer per route entry), or one per flow and direction.
//!
//! None allocates per packet: the per-flow and per-destination counters grow once per new
//! flow or destination.

use crate::ids::PortId;
use crate::net::forwarding::{BuildNextHop, NextHopPolicy};
use crate::net::packet::Packet;
use crate::net::port::Port;
use crate::rng::SimRng;
use crate::units::SimTime;

/// A spraying policy, as a scenario names it (`forwarding.policy`): what builds a switch's
/// [`Sprayer`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SprayPolicy {
    /// PLTS-RND.
    Random,
    /// PLTS-CNT.
    LeastQueue(CntReading),
    /// PLTS-RR.
    RoundRobin(RrScope),
}

impl BuildNextHop for SprayPolicy {
    fn build(&self) -> Box<dyn NextHopPolicy> {
        Box::new(Sprayer { policy: *self, rr: RoundRobin::default(), cnt_rotation: 0 })
    }
}

/// A switch's spraying: its policy and the counters it keeps.
#[derive(Debug)]
pub struct Sprayer {
    policy: SprayPolicy,
    rr: RoundRobin,
    /// PLTS-CNT's tie-breaking pointer when its ties go round (`spray-cnt-rotate`).
    cnt_rotation: u32,
}

impl NextHopPolicy for Sprayer {
    #[inline]
    fn choose(
        &mut self,
        now: SimTime,
        hops: &[PortId],
        pkt: &Packet,
        ports: &[Port],
        rng: &mut SimRng,
    ) -> PortId {
        match self.policy {
            SprayPolicy::Random => random(hops, rng),
            SprayPolicy::LeastQueue(reading) => {
                least_queue(hops, ports, now, reading, rng, &mut self.cnt_rotation)
            }
            SprayPolicy::RoundRobin(scope) => self.rr.choose(scope, hops, pkt),
        }
    }
}

/// PLTS-RND: a uniformly random one of `hops`.
#[inline]
pub fn random(hops: &[PortId], rng: &mut SimRng) -> PortId {
    hops[rng.below(hops.len() as u64) as usize]
}

/// What PLTS-CNT counts as a port's queue, and how it breaks ties.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum CntReading {
    /// Bytes waiting plus the rest of the packet in service; ties at random.
    #[default]
    Occupancy,
    /// The same occupancy; ties to the first tied port after the one chosen last.
    OccupancyRotating,
    /// Bytes waiting only; ties to the first port in order.
    WaitingFirstPort,
}

/// PLTS-CNT: the one of `hops` with the fewest bytes, as `reading` counts them; `rng` (the
/// switch's stream) breaks ties under [`CntReading::Occupancy`], `rotation` (the switch's
/// pointer) under [`CntReading::OccupancyRotating`].
#[inline]
pub fn least_queue(
    hops: &[PortId],
    ports: &[Port],
    now: SimTime,
    reading: CntReading,
    rng: &mut SimRng,
    rotation: &mut u32,
) -> PortId {
    if reading == CntReading::OccupancyRotating {
        return least_occupied_rotating(hops, ports, now, rotation);
    }
    let bytes = |h: PortId| match reading {
        CntReading::WaitingFirstPort => ports[h.idx()].queue_bytes(),
        _ => ports[h.idx()].occupancy_bytes(now),
    };
    let mut best = hops[0];
    let mut best_bytes = bytes(best);
    let mut ties = 1u64;
    for &h in &hops[1..] {
        let b = bytes(h);
        if b < best_bytes {
            (best, best_bytes, ties) = (h, b, 1);
        } else if b == best_bytes && reading == CntReading::Occupancy {
            // Reservoir choice: each of the k tied ports ends up chosen with probability 1/k.
            ties += 1;
            if rng.below(ties) == 0 {
                best = h;
            }
        }
    }
    best
}

/// The least occupied of `hops`, scanning from the port after the one chosen last, so that
/// ties go round in turn.
#[inline]
fn least_occupied_rotating(hops: &[PortId], ports: &[Port], now: SimTime, rotation: &mut u32) -> PortId {
    let n = hops.len();
    let start = *rotation as usize % n;
    let (mut best_i, mut best_bytes) = (start, ports[hops[start].idx()].occupancy_bytes(now));
    for k in 1..n {
        let i = (start + k) % n;
        let b = ports[hops[i].idx()].occupancy_bytes(now);
        if b < best_bytes {
            (best_i, best_bytes) = (i, b);
        }
    }
    *rotation = (best_i + 1) as u32;
    hops[best_i]
}

/// Which packets share a round-robin counter.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum RrScope {
    /// One counter per switch, advanced by every packet, data and ACKs alike.
    #[default]
    Switch,
    /// One counter per switch for packets carrying data, another for pure ACKs.
    SwitchData,
    /// One counter per destination host at each switch.
    Destination,
    /// One counter per flow and direction at each switch.
    Flow,
}

/// PLTS-RR: the next hop after the one chosen last, among `hops`, with a counter shared as
/// `scope` says.
#[derive(Clone, Debug, Default)]
pub struct RoundRobin {
    next: u32,
    /// Pure ACKs' counter under [`RrScope::SwitchData`].
    next_ack: u32,
    /// Per-flow counters by `2 × connection + direction`, or per-destination by host.
    keyed: Vec<u32>,
}

impl RoundRobin {
    #[inline]
    pub fn choose(&mut self, scope: RrScope, hops: &[PortId], pkt: &Packet) -> PortId {
        let counter = match scope {
            RrScope::Switch => &mut self.next,
            RrScope::SwitchData if carries_data(pkt) => &mut self.next,
            RrScope::SwitchData => &mut self.next_ack,
            // The two directions of a connection have their addresses swapped.
            RrScope::Flow => {
                keyed(&mut self.keyed, 2 * pkt.meta.conn.idx() + (pkt.ip.src.0 < pkt.ip.dst.0) as usize)
            }
            RrScope::Destination => keyed(&mut self.keyed, pkt.ip.dst.idx()),
        };
        let i = *counter as usize % hops.len();
        *counter = counter.wrapping_add(1);
        hops[i]
    }
}

/// The counter at `k`, grown on first use.
#[inline]
fn keyed(counters: &mut Vec<u32>, k: usize) -> &mut u32 {
    if k >= counters.len() {
        counters.resize(k + 1, 0);
    }
    &mut counters[k]
}

/// A TCP segment with payload, or a fragment of one (only the leading fragment has the TCP
/// header; the others are data by construction).
#[inline]
fn carries_data(pkt: &Packet) -> bool {
    !pkt.has_l4_header() || pkt.tcp.payload_len > 0
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::builtins::QueueSpec;
    use crate::ids::{ConnId, HostId};
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

    /// A switch with three 1 Mbps links; its egress ports are 0, 2 and 4 (each link adds two).
    /// Each port is handed `n` packets of 1000 bytes at time 0: one goes on the wire (8 ms at
    /// 1 Mbps), the rest wait.
    fn three_ports(loads: [usize; 3]) -> crate::net::Network {
        use crate::net::{DirSpec, Network, NodeKind, TopologySpec};
        use crate::qdisc::DropTailParams;
        use crate::units::Size;
        let mut t = TopologySpec::default();
        let s = t.add_node("s", NodeKind::Switch);
        let queue = QueueSpec::DropTail(DropTailParams { limit: Size::Packets(100), ecn_threshold: None });
        let d = DirSpec::new(Rate::from_mbps(1), SimTime::ZERO, queue);
        for i in 0..3 {
            let h = t.add_node(format!("h{i}"), NodeKind::Host);
            t.add_duplex(s, h, &d);
        }
        let mut net = Network::build(&t, 1);
        let mut pool = crate::net::packet::PacketPool::new();
        let mut events = crate::engine::EventQueue::new();
        for (i, n) in loads.into_iter().enumerate() {
            for _ in 0..n {
                let mut p = Packet::default();
                p.ip.total_len = 1000;
                let id = pool.alloc(p);
                net.ports[2 * i].enqueue(
                    SimTime::ZERO,
                    id,
                    &mut pool,
                    &mut events,
                    &mut net.drops,
                    &mut |_, _, _| {},
                );
            }
        }
        net
    }

    const OUT: [PortId; 3] = [PortId(0), PortId(2), PortId(4)];

    #[test]
    fn least_queue_counts_the_packet_in_service() {
        // Port 0 is serializing one packet, ports 2 and 4 are idle: nothing waits anywhere.
        let net = three_ports([1, 0, 0]);
        let mut rng = SimRng::new(1, StreamId::Forwarding(0));
        for _ in 0..50 {
            let p =
                least_queue(&OUT, &net.ports, SimTime::from_ms(1), CntReading::Occupancy, &mut rng, &mut 0);
            assert_ne!(p, PortId(0), "the busy port is never the least occupied");
        }
        // What is left of it shrinks as it is sent: 7/8 of 1000 bytes after 1 ms.
        assert_eq!(net.ports[0].occupancy_bytes(SimTime::from_ms(1)), 875);
        assert_eq!(net.ports[0].occupancy_bytes(SimTime::from_ms(8)), 0);
        // Counting only bytes waiting, all three read 0 and the first port wins.
        let p = least_queue(
            &OUT,
            &net.ports,
            SimTime::from_ms(1),
            CntReading::WaitingFirstPort,
            &mut rng,
            &mut 0,
        );
        assert_eq!(p, PortId(0));
    }

    #[test]
    fn least_queue_rotating_takes_ties_in_turn_and_still_avoids_the_busy_port() {
        let mut rng = SimRng::new(1, StreamId::Forwarding(0));
        let mut rotation = 0;
        let mut pick = |net: &crate::net::Network| {
            least_queue(
                &OUT,
                &net.ports,
                SimTime::ZERO,
                CntReading::OccupancyRotating,
                &mut rng,
                &mut rotation,
            )
        };
        // Three idle ports: each in turn.
        let idle = three_ports([0, 0, 0]);
        let turns: Vec<u32> = (0..6).map(|_| pick(&idle).0).collect();
        assert_eq!(turns, [0, 2, 4, 0, 2, 4]);
        // Port 2 busy: ties between 0 and 4 alternate, 2 is never chosen.
        let busy = three_ports([0, 1, 0]);
        let turns: Vec<u32> = (0..4).map(|_| pick(&busy).0).collect();
        assert_eq!(turns, [0, 4, 0, 4]);
    }

    #[test]
    fn least_queue_picks_the_least_occupied_and_spreads_ties() {
        // Port 0: one serializing, two waiting; ports 2 and 4: one serializing, one waiting.
        let net = three_ports([3, 2, 2]);
        let mut rng = SimRng::new(1, StreamId::Forwarding(0));
        let mut n = [0u32; 3];
        for _ in 0..3000 {
            let p = least_queue(&OUT, &net.ports, SimTime::ZERO, CntReading::Occupancy, &mut rng, &mut 0);
            n[p.idx() / 2] += 1;
        }
        assert_eq!(n[0], 0, "{n:?}");
        assert!(n[1].abs_diff(n[2]) < 200, "ties between 2 and 4 split evenly: {n:?}");
        // Under the first-port reading the tie goes to port 2, in the order given.
        let first = |hops: &[PortId], rng: &mut SimRng| {
            least_queue(hops, &net.ports, SimTime::ZERO, CntReading::WaitingFirstPort, rng, &mut 0)
        };
        assert_eq!(first(&OUT, &mut rng), PortId(2));
        assert_eq!(first(&[PortId(4), PortId(0), PortId(2)], &mut rng), PortId(4));
    }

    #[test]
    fn round_robin_data_only_keeps_acks_off_the_data_counter() {
        let mut rr = RoundRobin::default();
        let mut data = pkt(0, 0, 1);
        data.tcp.payload_len = 1000;
        let ack = pkt(1, 1, 0);
        let picks: Vec<u32> = [&data, &ack, &data, &ack, &data, &data]
            .iter()
            .map(|p| rr.choose(RrScope::SwitchData, &hops(), p).0)
            .collect();
        // Data: 0, 1, 2, 0; ACKs: 0, 1. With one shared counter the data would take 0, 2, 1, 2.
        assert_eq!(picks, [0, 0, 1, 1, 2, 0]);
    }

    #[test]
    fn round_robin_per_destination_keeps_a_counter_per_host() {
        let mut rr = RoundRobin::default();
        let picks: Vec<u32> = [pkt(0, 0, 1), pkt(1, 2, 1), pkt(2, 0, 3), pkt(0, 0, 1)]
            .iter()
            .map(|p| rr.choose(RrScope::Destination, &hops(), p).0)
            .collect();
        // Host 1: 0, 1, 2 across two flows; host 3 starts its own at 0.
        assert_eq!(picks, [0, 1, 0, 2]);
    }
}
