use super::*;
use crate::testing::{datagram, header};
use etherparse::{IpEcn, Ipv4HeaderSlice};
use routerlab::builtins::AnyQdisc;
use routerlab::ids::{NodeId, PortId};
use routerlab::qdisc::{DropTail, DropTailParams};
use routerlab::rng::{SimRng, StreamId};
use routerlab::units::{Rate, Size};

fn ms(n: u64) -> SimTime {
    SimTime::from_ms(n)
}

/// Hosts 0 and 1 on either side: port 0 leads to host 1, port 1 to host 0, each 10 Mbps and
/// 1 ms (a 1250-byte datagram takes 1 ms to send) behind a drop-tail of `limit` packets that
/// marks ECN-capable packets above `mark_above` (DCTCP's threshold), if given.
fn router(limit: u64, mark_above: Option<u64>) -> Router {
    let port = |i: u32| {
        let q = DropTail::new(DropTailParams {
            limit: Size::Packets(limit),
            ecn_threshold: mark_above.map(Size::Packets),
        });
        let rng = SimRng::new(1, StreamId::LinkLoss(i));
        let (rate, delay) = (Rate::from_mbps(10), ms(1));
        Port::new(PortId(i), NodeId(0), NodeId(1 + i), rate, delay, 0, 1500, 0.0, AnyQdisc::DropTail(q), rng)
    };
    Router::new(vec![port(0), port(1)], vec![Some(1), Some(0)])
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

#[test]
fn datagrams_leave_at_the_links_rate_after_its_delay_and_beyond_the_buffer_are_dropped() {
    let mut r = router(3, None);
    for k in 0..6 {
        r.receive(SimTime::ZERO, &data(k)).unwrap();
    }
    let out = run(&mut r, SimTime::from_secs(1));
    // One on the wire at once, three queued, two dropped: at the far end 1 ms of sending and
    // 1 ms of delay after each start, byte for byte what came in.
    let due: Vec<SimTime> = out.iter().map(|d| d.due).collect();
    assert_eq!(due, [ms(2), ms(3), ms(4), ms(5)]);
    for (k, d) in out.iter().enumerate() {
        assert_eq!((d.port, &d.bytes), (0, &data(k as u32)));
    }
    assert_eq!(r.ports()[0].queue_stats().total_drops(), 2);
    assert_eq!(r.held(), 0, "every datagram's bytes let go");
}

#[test]
fn the_caller_decides_the_time() {
    let mut r = router(3, None);
    r.receive(ms(10), &data(0)).unwrap();
    assert_eq!(r.next_event(), Some(ms(12)), "at the far end: 1 ms of sending, 1 ms of delay");
    let mut out = Vec::new();
    r.advance(ms(11), &mut out);
    assert!(out.is_empty(), "sent, not yet at the far end");
    r.advance(ms(50), &mut out);
    assert_eq!(out.iter().map(|d| d.due).collect::<Vec<_>>(), [ms(12)], "due when it was, told late");
}

#[test]
fn a_marking_queue_sets_ce_in_the_bytes_that_leave() {
    let mut r = router(100, Some(2));
    for k in 0..6 {
        r.receive(SimTime::ZERO, &data(k)).unwrap();
    }
    let out = run(&mut r, SimTime::from_secs(1));
    let ecn: Vec<IpEcn> = out.iter().map(|d| Ipv4HeaderSlice::from_slice(&d.bytes).unwrap().ecn()).collect();
    // The first goes straight to the wire; arrivals that find more than two waiting are marked.
    let ce = IpEcn::CongestionExperienced;
    assert_eq!(ecn, [IpEcn::Ect0, IpEcn::Ect0, IpEcn::Ect0, ce, ce, ce]);
    assert_eq!(r.held(), 0);
}

#[test]
fn what_cannot_be_read_or_routed_is_refused() {
    let mut r = router(3, None);
    assert!(matches!(r.receive(SimTime::ZERO, &[0x45, 0]), Err(Refused::Unreadable(_))));
    let to_nowhere = datagram(0, 7, header(1, None, &[]), &[]);
    assert_eq!(r.receive(SimTime::ZERO, &to_nowhere), Err(Refused::NoRoute(HostId(7))));
    assert_eq!((r.held(), r.next_event()), (0, None));
}
