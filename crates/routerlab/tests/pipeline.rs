//! A router port driven by hand, outside `Simulation`: the caller offers packets at times of its
//! choosing and runs the port's own events (a transmission done, a packet at the far end) in
//! time order — what an emulator moving real packets against a real clock does with the very
//! code the simulator runs. A plain drop-tail port, one with CP's cutting queue (a mechanism's
//! qdisc), and one with a chain of stages (Kick-Ass's router, then a tap) run here without
//! topology, hosts or TCP.

use routerlab::builtins::AnyQdisc;
use routerlab::engine::{Event, EventQueue};
use routerlab::ids::{HostId, NodeId, PacketId, PortId};
use routerlab::mechanisms::cp::{CpParams, CpQueue};
use routerlab::mechanisms::ka::encoding::decode_length;
use routerlab::mechanisms::ka::{KaParams, KaRouter};
use routerlab::net::packet::{IPV4_HEADER_BYTES, Ipv4Header, PROTO_TCP, Packet, PacketPool, TcpSegment};
use routerlab::net::port::Port;
use routerlab::net::stage::{PortStage, QueueView};
use routerlab::qdisc::{DropCause, DropList, DropTail, DropTailParams};
use routerlab::rng::{SimRng, StreamId};
use routerlab::units::{Rate, SimTime, Size};

/// What left the far end of the link, and what the port let go of.
#[derive(Default)]
struct Outcome {
    /// (time, IP id, IP length, fragment offset in bytes) of each packet at the far end.
    arrived: Vec<(SimTime, u16, u16, u32)>,
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
                    out.arrived.push((at, ip.id, ip.total_len, ip.frag_offset as u32 * 8));
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
    let at: Vec<(SimTime, u16)> = d.out.arrived.iter().map(|&(t, id, ..)| (t, id)).collect();
    assert_eq!(at, [(ms(2), 0), (ms(3), 1), (ms(4), 2), (ms(5), 3)]);
    assert_eq!(d.out.dropped, [(4, DropCause::Overflow), (5, DropCause::Overflow)]);
    assert_eq!(d.port.queue_packets(), 0);
    assert_eq!(d.pool.live(), 0, "every packet freed");
    // The caller's clock decides: a packet offered to the idle link 10 ms later leaves at once.
    d.offer(ms(10), 6, 1250 - 40);
    d.run_until(SimTime::from_secs(1));
    assert_eq!(d.out.arrived.last().map(|&(t, id, ..)| (t, id)), Some((ms(12), 6)));
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
    let order: Vec<(u16, u16)> = d.out.arrived.iter().map(|&(_, id, len, _)| (id, len)).collect();
    assert_eq!(order, [(0, 1250), (4, 52), (5, 52), (1, 1250), (2, 1250), (3, 1250)]);
    assert_eq!(d.pool.live(), 0, "every packet freed");
}

/// A stage that only counts what passes it.
#[derive(Default)]
struct Tap {
    arrivals: usize,
    departures: usize,
}

impl PortStage for Tap {
    fn on_arrival(
        &mut self,
        _: SimTime,
        _: PacketId,
        _: &mut PacketPool,
        _: &QueueView,
    ) -> Result<(), DropCause> {
        self.arrivals += 1;
        Ok(())
    }
    fn on_departure(
        &mut self,
        _: SimTime,
        pkt: PacketId,
        _: &mut PacketPool,
        _: &QueueView,
        out: &mut std::collections::VecDeque<PacketId>,
        _: &mut Vec<(PacketId, DropCause)>,
    ) {
        self.departures += 1;
        out.push_back(pkt);
    }
}

#[test]
fn a_chain_of_stages_driven_by_hand_signals_a_rate_in_each_leading_fragment() {
    let mut d = Driver::new(droptail(100));
    d.port.push_stage(Box::new(KaRouter::new(KaParams::default(), Rate::from_mbps(10))));
    d.port.push_stage(Box::new(Tap::default()));
    d.port.on_stage_timer(SimTime::ZERO, &mut d.events); // the stages' first timers
    // Five 1500-byte datagrams (DF clear), 2 ms apart, over 50 ms of the router's clock.
    for id in 0..5 {
        d.offer(ms(2 * id as u64), id, 1460);
    }
    d.run_until(ms(50));
    // Each arrived as a leading fragment whose payload length is a rate code, then the rest:
    // the datagram's 1480 bytes of IP payload, all of them.
    for id in 0..5 {
        let parts: Vec<_> = d.out.arrived.iter().filter(|a| a.1 == id).collect();
        assert_eq!(parts.len(), 2, "datagram {id}: {parts:?}");
        let lead = u32::from(parts[0].2) - IPV4_HEADER_BYTES;
        assert_eq!(parts[0].3, 0);
        assert!(decode_length(lead).is_some(), "{lead} bytes is a rate code");
        assert_eq!(parts[1].3, lead, "the rest follows at the leading fragment's end");
        assert_eq!(lead + u32::from(parts[1].2) - IPV4_HEADER_BYTES, 1480);
    }
    // The stages ran in chain order: the tap, after the router, saw each datagram arrive once
    // and leave as two fragments; the router's timer ran on the caller's clock.
    let tap = (d.port.stages()[1].as_ref() as &dyn std::any::Any).downcast_ref::<Tap>().unwrap();
    assert_eq!((tap.arrivals, tap.departures), (5, 10));
    let updates = d.port.stages()[0].counters().into_iter().find(|c| c.0 == "rate_updates").unwrap().1;
    assert!(updates > 0);
    assert_eq!(d.pool.live(), 0, "every packet freed");
}
