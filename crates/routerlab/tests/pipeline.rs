//! A router port driven by hand, outside `Simulation`: the caller offers packets at times of its
//! choosing and runs the port's own events (a transmission done, a packet at the far end) in
//! time order — what an emulator moving real packets against a real clock does with the very
//! code the simulator runs. A plain drop-tail port, and one with CP's cutting queue (a
//! mechanism's qdisc), run here without topology, hosts or TCP.

use routerlab::builtins::AnyQdisc;
use routerlab::engine::{Event, EventQueue};
use routerlab::ids::{HostId, NodeId, PacketId, PortId};
use routerlab::mechanisms::cp::{CpParams, CpQueue};
use routerlab::net::packet::{IPV4_HEADER_BYTES, Ipv4Header, PROTO_TCP, Packet, PacketPool, TcpSegment};
use routerlab::net::port::Port;
use routerlab::qdisc::{DropCause, DropList, DropTail, DropTailParams};
use routerlab::rng::{SimRng, StreamId};
use routerlab::units::{Rate, SimTime, Size};

/// What left the far end of the link, and what the port let go of.
#[derive(Default)]
struct Outcome {
    /// (time, IP id, IP length) of each packet at the far end.
    arrived: Vec<(SimTime, u16, u16)>,
    dropped: Vec<(u16, DropCause)>,
}

/// A port, its packets and its pending events: everything a caller needs to run it.
struct Driver {
    port: Port,
    pool: PacketPool,
    events: EventQueue,
    drops: DropList,
    out: Outcome,
}

impl Driver {
    /// A 10 Mbps link of 1 ms behind `qdisc`: a 1250-byte packet takes 1 ms to send.
    fn new(qdisc: AnyQdisc) -> Driver {
        let rng = SimRng::new(1, StreamId::LinkLoss(0));
        let port = Port::new(
            PortId(0),
            NodeId(0),
            NodeId(1),
            Rate::from_mbps(10),
            SimTime::from_ms(1),
            0,
            1500,
            0.0,
            qdisc,
            rng,
        );
        Driver {
            port,
            pool: PacketPool::new(),
            events: EventQueue::new(),
            drops: DropList::new(),
            out: Outcome::default(),
        }
    }

    /// Offer a TCP segment of `payload` bytes, IP id `id`, at `now` (after running what is due).
    fn offer(&mut self, now: SimTime, id: u16, payload: u16) {
        self.run_until(now);
        let tcp =
            TcpSegment { seq: 1 + id as u64 * 1460, ack: 1, payload_len: payload, ..Default::default() };
        let total_len = (IPV4_HEADER_BYTES + tcp.header_len() + payload as u32) as u16;
        let ip = Ipv4Header {
            src: HostId(0),
            dst: HostId(1),
            id,
            protocol: PROTO_TCP,
            total_len,
            ttl: 64,
            ..Default::default()
        };
        let pkt = self.pool.alloc(Packet { ip, tcp, ..Default::default() });
        let Driver { port, pool, events, drops, out } = self;
        port.enqueue(now, pkt, pool, events, drops, &mut dropper(&mut out.dropped));
    }

    /// Run the port's events due up to `t`, in time order.
    fn run_until(&mut self, t: SimTime) {
        while let Some((at, _)) = self.events.peek() {
            if at > t {
                break;
            }
            let (at, event) = self.events.pop().unwrap();
            let Driver { port, pool, events, drops, out } = self;
            match event {
                Event::TxDone(_) => {
                    port.on_tx_done(at, pool, events, drops, &mut dropper(&mut out.dropped));
                }
                Event::Arrive(_, p, _) => {
                    port.on_arrive(p, pool, events);
                    let ip = pool.get(p).ip;
                    out.arrived.push((at, ip.id, ip.total_len));
                    pool.free(p);
                }
                Event::PortTimer(_) => port.on_stage_timer(at, events),
                other => panic!("a lone port schedules no {other:?}"),
            }
        }
    }
}

/// The port's drop callback: note the packet's id and cause, and free it.
fn dropper(dropped: &mut Vec<(u16, DropCause)>) -> impl FnMut(PacketId, DropCause, &mut PacketPool) + '_ {
    move |p, cause, pool| {
        dropped.push((pool.get(p).ip.id, cause));
        pool.free(p);
    }
}

fn droptail(packets: u64) -> AnyQdisc {
    AnyQdisc::DropTail(DropTail::new(DropTailParams { limit: Size::Packets(packets), ecn_threshold: None }))
}

fn ms(n: u64) -> SimTime {
    SimTime::from_ms(n)
}

#[test]
fn a_drop_tail_port_sends_one_packet_per_transmission_time_and_drops_beyond_its_buffer() {
    let mut d = Driver::new(droptail(3));
    // Six 1250-byte packets at once: one goes straight to the wire, three wait, two are dropped.
    for id in 0..6 {
        d.offer(SimTime::ZERO, id, 1250 - 40);
    }
    d.run_until(SimTime::from_secs(1));
    let at: Vec<(SimTime, u16)> = d.out.arrived.iter().map(|&(t, id, _)| (t, id)).collect();
    assert_eq!(at, [(ms(2), 0), (ms(3), 1), (ms(4), 2), (ms(5), 3)]);
    assert_eq!(d.out.dropped, [(4, DropCause::Overflow), (5, DropCause::Overflow)]);
    assert_eq!(d.port.queue_packets(), 0);
    assert_eq!(d.pool.live(), 0, "every packet freed");
    // The caller's clock decides: a packet offered to the idle link 10 ms later leaves at once.
    d.offer(ms(10), 6, 1250 - 40);
    d.run_until(SimTime::from_secs(1));
    assert_eq!(d.out.arrived.last().map(|&(t, id, _)| (t, id)), Some((ms(12), 6)));
}

#[test]
fn a_cp_port_driven_by_hand_cuts_what_its_data_queue_cannot_hold_and_sends_headers_first() {
    let cp = CpQueue::new(droptail(3), CpParams::default(), Rate::from_mbps(10));
    let mut d = Driver::new(AnyQdisc::Cp(Box::new(cp)));
    for id in 0..6 {
        d.offer(SimTime::ZERO, id, 1250 - 40);
    }
    d.run_until(SimTime::from_secs(1));
    // Nothing is lost: the two the data queue had no room for are cut to 52-byte headers,
    // which go out ahead of the data still queued, then the three data packets.
    assert!(d.out.dropped.is_empty(), "{:?}", d.out.dropped);
    let order: Vec<(u16, u16)> = d.out.arrived.iter().map(|&(_, id, len)| (id, len)).collect();
    assert_eq!(order, [(0, 1250), (4, 52), (5, 52), (1, 1250), (2, 1250), (3, 1250)]);
    assert_eq!(d.pool.live(), 0, "every packet freed");
}
