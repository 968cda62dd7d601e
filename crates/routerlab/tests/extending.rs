//! The ways to extend routerlab without touching the engine, each with one small complete
//! example, and a whole mechanism built from them outside the crate (these are the examples of
//! `docs/extending.md`).

use routerlab::builtins::AnyQdisc;
use routerlab::host::{HostShim, Ingress};
use routerlab::ids::{ConnId, PacketId, PortId};
use routerlab::net::forwarding::NextHopPolicy;
use routerlab::net::packet::{Packet, PacketPool, RateFields, TcpFlags, TcpSegment};
use routerlab::net::port::Port;
use routerlab::qdisc::{DropCause, Qdisc, QdiscStats, Verdict};
use routerlab::rng::SimRng;
use routerlab::scenario::Scenario;
use routerlab::sim::Simulation;
use routerlab::tcp::cc::{AckSample, AnyCc, CcConfig, CongestionControl, Window};
use routerlab::tcp::endpoint::{BuildController, ControllerRecipe, EndpointPart};
use routerlab::units::{Rate, SimTime};
use std::collections::VecDeque;

const DUMBBELL: &str = r#"
[run]
duration = "2s"
[topology]
kind = "dumbbell"
pairs = 2
access = { rate = "1Gbps", delay = "100us" }
bottleneck = { rate = "100Mbps", delay = "2ms", queue = { kind = "droptail", limit = "100pkts" } }
[[workload]]
kind = "bulk"
"#;

fn sim(text: &str) -> Simulation {
    Simulation::new(&Scenario::load(text).unwrap().1)
}

// ---------------------------------------------------------------- 1. a queue discipline

/// Strict priority for small packets: packets under 100 bytes (ACKs, SYNs) jump the queue.
/// A FIFO of `limit` packets otherwise.
struct SmallFirst {
    small: VecDeque<PacketId>,
    large: VecDeque<PacketId>,
    bytes: u64,
    limit: usize,
    stats: QdiscStats,
}

impl Qdisc for SmallFirst {
    fn enqueue(
        &mut self,
        now: SimTime,
        pkt: PacketId,
        pool: &mut PacketPool,
        _drops: &mut Vec<(PacketId, DropCause)>,
    ) -> Verdict {
        if self.small.len() + self.large.len() >= self.limit {
            self.stats.count_drop(DropCause::Overflow);
            return Verdict::Dropped(pkt, DropCause::Overflow);
        }
        let p = pool.get_mut(pkt);
        p.meta.enqueued_at = now;
        self.bytes += p.ip_len() as u64;
        if p.ip_len() < 100 {
            self.small.push_back(pkt)
        } else {
            self.large.push_back(pkt)
        }
        self.stats.enqueued += 1;
        Verdict::Enqueued
    }
    fn dequeue(
        &mut self,
        _now: SimTime,
        pool: &mut PacketPool,
        _drops: &mut Vec<(PacketId, DropCause)>,
    ) -> Option<PacketId> {
        let p = self.small.pop_front().or_else(|| self.large.pop_front())?;
        self.bytes -= pool.get(p).ip_len() as u64;
        self.stats.dequeued += 1;
        Some(p)
    }
    fn len_packets(&self) -> usize {
        self.small.len() + self.large.len()
    }
    fn len_bytes(&self) -> u64 {
        self.bytes
    }
    fn stats(&self) -> QdiscStats {
        self.stats.clone()
    }
}

#[test]
fn a_custom_queue_discipline() {
    let mut s = sim(DUMBBELL);
    let port = s.port_named("left->right").unwrap();
    let q = SmallFirst {
        small: VecDeque::new(),
        large: VecDeque::new(),
        bytes: 0,
        limit: 100,
        stats: QdiscStats::default(),
    };
    s.set_qdisc(port, AnyQdisc::Custom(Box::new(q)));
    s.run();
    let r = s.results();
    let l = r.links.iter().find(|l| l.link == "left->right").unwrap();
    assert!(l.utilization > 0.9);
    assert!(l.drops > 0, "the custom queue's drops are counted like any other");
}

// ---------------------------------------------------------------- 2. a forwarding policy

/// Per-packet round robin over the next hops (packet spraying, in four lines).
struct RoundRobin(usize);

impl NextHopPolicy for RoundRobin {
    fn choose(
        &mut self,
        _now: SimTime,
        hops: &[PortId],
        _pkt: &Packet,
        _ports: &[Port],
        _rng: &mut SimRng,
    ) -> PortId {
        self.0 += 1;
        hops[self.0 % hops.len()]
    }
}

#[test]
fn a_custom_forwarding_policy() {
    let text = r#"
[run]
duration = "200ms"
[topology]
kind = "fat_tree"
k = 4
link = { rate = "1Gbps", delay = "10us" }
[[workload]]
kind = "bulk"
src = "h0"
dst = "h4"
"#;
    let mut s = sim(text);
    let edge = s.network().node_by_name("e0_0").unwrap();
    s.set_forwarding(edge, Box::new(RoundRobin(0)));
    s.run();
    let r = s.results();
    // The edge switch now sends the flow's packets up through both aggregation switches.
    let up: Vec<u64> = ["e0_0->a0_0", "e0_0->a0_1"]
        .iter()
        .map(|n| r.links.iter().find(|l| &l.link == n).unwrap().tx_packets)
        .collect();
    assert!(up.iter().all(|&n| n > 1000) && up[0].abs_diff(up[1]) <= 1, "{up:?}");
}

// ---------------------------------------------------------------- 3. a host shim

/// Drops every second pure ACK a host receives (ACK thinning), counting what it dropped.
struct AckThinner {
    seen: u64,
    dropped: std::sync::Arc<std::sync::atomic::AtomicU64>,
}

impl HostShim for AckThinner {
    fn on_egress(&mut self, _now: SimTime, pkt: PacketId, _pool: &mut PacketPool, out: &mut Vec<PacketId>) {
        out.push(pkt);
    }
    fn on_ingress(&mut self, _now: SimTime, pkt: PacketId, pool: &mut PacketPool) -> Ingress {
        let p = pool.get(pkt);
        if p.tcp.payload_len == 0 && p.tcp.flags == TcpFlags::ACK {
            self.seen += 1;
            if self.seen.is_multiple_of(2) {
                pool.free(pkt);
                self.dropped.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                return Ingress::Consumed;
            }
        }
        Ingress::Deliver
    }
}

#[test]
fn a_custom_host_shim() {
    let mut s = sim(DUMBBELL);
    let dropped = std::sync::Arc::new(std::sync::atomic::AtomicU64::new(0));
    let s0 = s.network().nodes[s.network().node_by_name("s0").unwrap().idx()].host.unwrap();
    s.add_shim(s0, Box::new(AckThinner { seen: 0, dropped: dropped.clone() }));
    s.run();
    let r = s.results();
    let n = dropped.load(std::sync::atomic::Ordering::Relaxed);
    assert!(n > 1000, "{n}");
    // Cumulative ACKs keep the thinned flow going (it recovers losses more slowly: half its
    // duplicate ACKs are gone too); the other, unthinned flow takes the rest of the link.
    assert!(r.flows[0].goodput_bps > 20e6, "{}", r.flows[0].goodput_bps);
    assert!(r.flows[0].goodput_bps + r.flows[1].goodput_bps > 90e6);
}

// ---------------------------------------------------------------- 4. a congestion controller

/// A fixed window of `segments` segments, whatever happens (no slow start, no backoff).
struct FixedWindow {
    segments: u64,
}

impl CongestionControl for FixedWindow {
    fn name(&self) -> &'static str {
        "fixed"
    }
    fn on_ack(&mut self, w: &mut Window, _ack: &AckSample) {
        w.cwnd = self.segments * w.mss;
    }
    fn ssthresh_on_loss(&mut self, w: &Window, _now: SimTime, _in_flight: u64) -> u64 {
        self.segments * w.mss
    }
    fn on_rto(&mut self, w: &mut Window, _now: SimTime, _in_flight: u64, _reduce: bool) {
        w.cwnd = self.segments * w.mss;
    }
}

#[test]
fn a_custom_congestion_controller() {
    let mut s = sim(DUMBBELL);
    s.set_congestion_control(ConnId(0), AnyCc::Custom(Box::new(FixedWindow { segments: 5 })));
    s.run();
    let r = s.results();
    // Five segments of 1448 bytes: the MSS less the timestamps every segment carries.
    assert_eq!(s.sender_socket(ConnId(0)).cwnd(), 5 * 1448);
    // 5 segments per RTT: the base RTT is 4.2 ms, and the other flow's queue adds up to 12 ms,
    // so between 5·1448·8/16.2 ms ≈ 3.6 Mbps and 5·1448·8/4.2 ms ≈ 13.8 Mbps.
    let g = r.flows[0].goodput_bps;
    assert!((3.6e6..13.9e6).contains(&g), "{g}");
    assert!(r.flows[1].goodput_bps > 70e6, "the other (NewReno) flow takes the rest");
}

// ---------------------------------------------------------------- 5. a port stage

/// Around a port's queue: refuses arrivals while the queue is over half full (an admission
/// rule) and splits every departing datagram over 1000 bytes in two fragments (a transform);
/// a timer counts 1 ms ticks.
#[derive(Default)]
struct HalfFullGuard {
    refused: u64,
    ticks: std::sync::Arc<std::sync::atomic::AtomicU64>,
    next_tick: SimTime,
}

impl routerlab::net::stage::PortStage for HalfFullGuard {
    fn on_arrival(
        &mut self,
        _now: SimTime,
        _pkt: PacketId,
        _pool: &mut PacketPool,
        q: &routerlab::net::stage::QueueView,
    ) -> Result<(), DropCause> {
        if q.capacity_packets.is_some_and(|c| q.packets * 2 >= c) {
            self.refused += 1;
            return Err(DropCause::Admission);
        }
        Ok(())
    }
    fn on_departure(
        &mut self,
        _now: SimTime,
        pkt: PacketId,
        pool: &mut PacketPool,
        _q: &routerlab::net::stage::QueueView,
        out: &mut VecDeque<PacketId>,
        _drops: &mut Vec<(PacketId, DropCause)>,
    ) {
        let p = pool.get_mut(pkt);
        if p.ip_len() > 1000 {
            p.ip.dont_fragment = false;
            let rest = routerlab::net::fragment::split_leading(pool, pkt, 504);
            out.push_back(pkt);
            out.push_back(rest);
        } else {
            out.push_back(pkt);
        }
    }
    fn poll_at(&self) -> Option<SimTime> {
        Some(self.next_tick)
    }
    fn on_timer(&mut self, now: SimTime, _q: &routerlab::net::stage::QueueView) {
        self.ticks.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        self.next_tick = now + SimTime::from_ms(1);
    }
}

#[test]
fn a_custom_port_stage() {
    let mut s = sim(DUMBBELL);
    let port = s.port_named("left->right").unwrap();
    let guard = HalfFullGuard::default();
    let ticks = guard.ticks.clone();
    s.add_port_stage(port, Box::new(guard));
    s.run();
    let r = s.results();
    let l = r.links.iter().find(|l| l.link == "left->right").unwrap();
    assert!(l.queue_high_water_packets <= 50, "admission keeps the queue at most half full");
    // Every data packet crossed the bottleneck as two fragments and was reassembled.
    assert!(r.flows[0].goodput_bps > 20e6 && r.flows[1].goodput_bps > 20e6);
    let stage = &s.network().ports[port.idx()].stages()[0];
    assert_eq!(stage.name(), "stage");
    assert!(l.tx_packets > 2 * 10_000);
    // The timer fired every millisecond of the 2 s run (at 0, 1, …, 1999 ms).
    assert_eq!(ticks.load(std::sync::atomic::Ordering::Relaxed), 2000);
}

// ---------------------------------------------------------------- 6. a whole mechanism

/// A sixth mechanism outside the crate, with a router part and an endpoint part, written only
/// against the extension points: routers lower a rate header on every data segment to their
/// cap (a port stage), the receiver echoes the rate it got (an endpoint part), and the sender
/// keeps a window of rate × SRTT (a controller). Both parts come from one recipe
/// (`BuildController`), which a flow's `TcpConfig` names.
#[derive(Debug)]
struct RateCapParams;

/// The router part: lowers the rate header of each departing segment to `cap`.
struct RateCap {
    cap: routerlab::units::Rate,
}

impl routerlab::net::stage::PortStage for RateCap {
    fn on_departure(
        &mut self,
        _now: SimTime,
        pkt: PacketId,
        pool: &mut PacketPool,
        _q: &routerlab::net::stage::QueueView,
        out: &mut VecDeque<PacketId>,
        _drops: &mut Vec<(PacketId, DropCause)>,
    ) {
        let xr = &mut pool.get_mut(pkt).tcp.xr;
        if xr.rate_header {
            xr.header_rate = xr.header_rate.min(self.cap);
        }
        out.push_back(pkt);
    }
}

/// The endpoint part: a rate header on every segment from the SYN on; the rate a data segment
/// arrived with goes back on the next segment, and a rate echoed to us to the controller.
#[derive(Debug, Default)]
struct RateCapEndpoint {
    echo: routerlab::units::Rate,
}

impl RateCapEndpoint {
    fn header(&mut self) -> RateFields {
        let echo = std::mem::take(&mut self.echo);
        RateFields { rate_header: true, header_rate: Rate(u64::MAX), echo, ..RateFields::default() }
    }
}

impl EndpointPart for RateCapEndpoint {
    fn name(&self) -> &'static str {
        "rate-cap"
    }
    fn syn_fields(&mut self) -> RateFields {
        self.header()
    }
    fn agree(&mut self, seg: &TcpSegment, _server: bool) -> bool {
        seg.xr.rate_header
    }
    fn fixed_fields(&self) -> RateFields {
        RateFields { rate_header: true, ..RateFields::default() }
    }
    fn segment_fields(&mut self, _srtt: Option<SimTime>) -> RateFields {
        self.header()
    }
    fn on_segment(&mut self, seg: &TcpSegment) -> Option<Rate> {
        if seg.payload_len > 0 && seg.xr.header_rate != Rate(u64::MAX) {
            self.echo = seg.xr.header_rate;
        }
        (seg.xr.echo != Rate(0)).then_some(seg.xr.echo)
    }
}

/// The controller: the window is the echoed rate × SRTT; before any echo, the initial window.
struct RateCapSender;

impl CongestionControl for RateCapSender {
    fn name(&self) -> &'static str {
        "rate-cap"
    }
    fn on_ack(&mut self, _w: &mut Window, _ack: &AckSample) {}
    fn ssthresh_on_loss(&mut self, w: &Window, _now: SimTime, _in_flight: u64) -> u64 {
        w.cwnd
    }
    fn on_explicit_rate(&mut self, w: &mut Window, _now: SimTime, rate: Rate, srtt: Option<SimTime>) {
        if let Some(rtt) = srtt {
            w.cwnd = rate.bytes_in(rtt).max(w.mss);
        }
    }
}

impl BuildController for RateCapParams {
    fn controller(&self) -> Box<dyn CongestionControl + Send + Sync> {
        Box::new(RateCapSender)
    }
    fn endpoint_part(&self) -> Option<Box<dyn EndpointPart>> {
        Some(Box::<RateCapEndpoint>::default())
    }
}

#[test]
fn a_mechanism_with_router_and_endpoint_parts() {
    // Two segments per RTT before any echo: 2 · 1448 · 8 / 4.2 ms ≈ 5.5 Mbps a flow.
    let text = DUMBBELL.replace("kind = \"bulk\"", "kind = \"bulk\"\ntransport = { init_cwnd = 2 }");
    let (_, mut spec) = Scenario::load(&text).unwrap();
    for f in &mut spec.flows {
        f.tcp.cc = CcConfig::Plugin(ControllerRecipe::new(RateCapParams));
    }
    let mut s = Simulation::new(&spec);
    let port = s.port_named("left->right").unwrap();
    s.add_port_stage(port, Box::new(RateCap { cap: Rate::from_mbps(30) }));
    s.run();
    let r = s.results();
    assert_eq!(s.sender_socket(ConnId(0)).endpoint_part().map(|p| p.name()), Some("rate-cap"));
    // Each flow follows the 30 Mbps the router signals (its window rate × SRTT), where the
    // initial window alone would give 5.5.
    for f in &r.flows {
        assert!((25e6..30.5e6).contains(&f.goodput_bps), "{}", f.goodput_bps);
    }
}
