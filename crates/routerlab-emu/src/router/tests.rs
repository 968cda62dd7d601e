use super::*;
use crate::testing::{datagram, header};
use etherparse::{IpEcn, Ipv4HeaderSlice};
use routerlab::scenario::Scenario;

fn ms(n: u64) -> SimTime {
    SimTime::from_ms(n)
}

fn us(n: u64) -> SimTime {
    SimTime::from_us(n)
}

/// A dumbbell: host 0 on the left, host 1 on the right, 1 Gbps access links of 5 µs (a
/// 1250-byte datagram takes 10 µs to send) and a 10 Mbps bottleneck of 1 ms (1 ms to send)
/// behind `queue`.
fn router(queue: &str) -> Router {
    let text = format!(
        r#"
[run]
duration = "1s"
[topology]
kind = "dumbbell"
pairs = 1
access = {{ rate = "1Gbps", delay = "5us" }}
bottleneck = {{ rate = "10Mbps", delay = "1ms", queue = {queue} }}
[[workload]]
kind = "bulk"
"#
    );
    let (_, spec) = Scenario::load(&text).unwrap();
    Router::new(Network::build(&spec.topology, spec.seed))
}

/// A 1250-byte datagram from host 0 to host 1, the `k`th of its flow.
fn data(k: u32) -> Vec<u8> {
    datagram(0, 1, header(1 + k * 1210, Some(1), &[]), &[k as u8; 1210])
}

fn run(r: &mut Router, until: SimTime) -> Vec<Departure> {
    let mut out = Vec::new();
    while let Some(at) = r.next_event().filter(|&t| t <= until) {
        r.advance(at, &mut out);
    }
    out
}

/// When a datagram sent at 0 into an idle network reaches host 1: each access link's 10 µs
/// of sending and 5 µs of delay, the bottleneck's 1 ms and 1 ms.
const FIRST: u64 = 10 + 5 + 1000 + 1000 + 10 + 5;

#[test]
fn datagrams_cross_at_each_links_rate_and_delay_and_beyond_the_buffer_are_dropped() {
    let mut r = router(r#"{ kind = "droptail", limit = "3pkts" }"#);
    for k in 0..6 {
        r.receive(SimTime::ZERO, HostId(0), &data(k)).unwrap();
    }
    let out = run(&mut r, SimTime::from_secs(1));
    // One on the bottleneck's wire at once, three queued behind it, two dropped: one every
    // 1 ms at the far end, byte for byte what came in.
    let due: Vec<SimTime> = out.iter().map(|d| d.due).collect();
    assert_eq!(due, [us(FIRST), us(FIRST + 1000), us(FIRST + 2000), us(FIRST + 3000)]);
    for (k, d) in out.iter().enumerate() {
        assert_eq!((d.host, &d.bytes), (HostId(1), &data(k as u32)));
    }
    let bottleneck = r.network().port_names.iter().position(|n| n == "left->right").unwrap();
    assert_eq!(r.network().ports[bottleneck].queue_stats().total_drops(), 2);
    assert_eq!(r.held(), 0, "every datagram's bytes let go");
}

#[test]
fn the_caller_decides_the_time() {
    let mut r = router(r#"{ kind = "droptail", limit = "3pkts" }"#);
    r.receive(ms(10), HostId(0), &data(0)).unwrap();
    assert_eq!(r.next_event(), Some(ms(10) + us(15)), "at the left switch");
    let mut out = Vec::new();
    r.advance(ms(11), &mut out);
    assert!(out.is_empty(), "on the bottleneck's wire, not yet at host 1");
    r.advance(ms(50), &mut out);
    assert_eq!(
        out.iter().map(|d| d.due).collect::<Vec<_>>(),
        [ms(10) + us(FIRST)],
        "due when it was, told late"
    );
}

#[test]
fn a_marking_queue_sets_ce_in_the_bytes_that_leave() {
    let mut r = router(r#"{ kind = "droptail", limit = "100pkts", ecn_threshold = "2pkts" }"#);
    for k in 0..6 {
        r.receive(SimTime::ZERO, HostId(0), &data(k)).unwrap();
    }
    let out = run(&mut r, SimTime::from_secs(1));
    let ecn: Vec<IpEcn> = out.iter().map(|d| Ipv4HeaderSlice::from_slice(&d.bytes).unwrap().ecn()).collect();
    // The first goes straight to the wire; arrivals that find more than two waiting are marked.
    let ce = IpEcn::CongestionExperienced;
    assert_eq!(ecn, [IpEcn::Ect0, IpEcn::Ect0, IpEcn::Ect0, ce, ce, ce]);
    assert_eq!(r.held(), 0);
}

#[test]
fn what_cannot_be_read_or_has_no_host_is_refused() {
    let mut r = router(r#"{ kind = "droptail", limit = "3pkts" }"#);
    assert!(matches!(r.receive(SimTime::ZERO, HostId(0), &[0x45, 0]), Err(Refused::Unreadable(_))));
    assert_eq!(r.receive(SimTime::ZERO, HostId(9), &data(0)), Err(Refused::UnknownHost(HostId(9))));
    let to_nowhere = datagram(0, 7, header(1, None, &[]), &[]);
    assert_eq!(r.receive(SimTime::ZERO, HostId(0), &to_nowhere), Err(Refused::UnknownHost(HostId(7))));
    assert_eq!((r.held(), r.next_event()), (0, None));
}

#[test]
fn a_switch_sprays_one_flows_datagrams_over_its_equal_cost_paths() {
    // A k = 4 fat-tree, host 0 to host 4 (another pod): spray-rr at every switch.
    let text = r#"
[run]
duration = "1s"
[topology]
kind = "fat_tree"
k = 4
link = { rate = "1Gbps", delay = "10us" }
[forwarding]
policy = "spray-rr"
[[workload]]
kind = "bulk"
src = "h0"
dst = "h4"
"#;
    let (_, spec) = Scenario::load(text).unwrap();
    let mut r = Router::new(Network::build(&spec.topology, spec.seed));
    let to_h4 = |k: u32| datagram(0, 4, header(1 + k * 1210, Some(1), &[]), &[0; 1210]);
    for k in 0..8 {
        r.receive(SimTime::ZERO, HostId(0), &to_h4(k)).unwrap();
    }
    let out = run(&mut r, SimTime::from_secs(1));
    assert_eq!(out.len(), 8);
    assert!(out.iter().all(|d| d.host == HostId(4)));
    // The edge switch sent them up through both aggregation switches, alternately.
    let net = r.network();
    let sent =
        |name: &str| net.ports[net.port_names.iter().position(|n| n == name).unwrap()].stats.tx_packets;
    assert_eq!((sent("e0_0->a0_0"), sent("e0_0->a0_1")), (4, 4));
}

#[test]
fn a_captured_port_records_each_transmission_as_the_simulator_writes_it() {
    let mut r = router(r#"{ kind = "droptail", limit = "3pkts" }"#);
    let bottleneck = r.network().port_names.iter().position(|n| n == "left->right").unwrap();
    r.capture(&[routerlab::ids::PortId(bottleneck as u32)], 128, 1000);
    for k in 0..6 {
        r.receive(SimTime::ZERO, HostId(0), &data(k)).unwrap();
    }
    run(&mut r, SimTime::from_secs(1));
    let pcaps = r.pcaps();
    assert_eq!(pcaps.len(), 1);
    let (name, file) = &pcaps[0];
    assert_eq!(name, "left->right");
    // A 24-byte file header, then per packet a 16-byte record header and 128 captured bytes:
    // the four datagrams the bottleneck sent (two were dropped before it).
    assert_eq!(file.len(), 24 + 4 * (16 + 128));
    // Each record is stamped when its serialization ended: 1 ms apart.
    let stamp = |k: usize| {
        let at = 24 + k * (16 + 128);
        let word = |o: usize| u32::from_le_bytes(file[at + o..at + o + 4].try_into().unwrap()) as u64;
        word(0) * 1_000_000_000 + word(4)
    };
    assert_eq!(stamp(1) - stamp(0), 1_000_000);
}
