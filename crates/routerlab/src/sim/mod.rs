/*! The simulation: one world that owns the clock, the event queue, the packet arena, the network
and the endpoints, and runs the event loop.

```text
 ConnStart ─▶ endpoint ─poll_transmit─▶ host NIC port ─TxDone─▶ pipe ─Arrive─▶ switch ─forward─▶ port …
                 ▲                                                                             │
                 └────────────── on_segment ◀──────── host ◀──────── Arrive ◀──────────────────┘
```

Everything is driven from [`Simulation::step`]: pop the earliest event, advance the clock,
dispatch. Endpoints are sans-IO sockets; after anything happens to one, the simulation drains
its output into the host's NIC and (re)arms its timer from `poll_at`. Timers are lazy: an
endpoint has at most one pending timer event at the earliest time it asked for; a later
deadline (the usual case: the RTO moves forward on every ACK) schedules nothing.
*/

mod results;
mod sampling;

pub use results::{FlowRow, LinkRow, Results, Summary};
pub use sampling::{FlowSampler, TimeSeries};

use crate::engine::{Event, EventQueue};
use crate::ids::{ConnId, EpId, HostId, NodeId, PacketId};
use crate::net::packet::{IPV4_HEADER_BYTES, Ipv4Header, PROTO_TCP, Packet, PacketMeta, PacketPool};
use crate::net::{Network, NodeKind, TopologySpec};
use crate::qdisc::DropCause;
use crate::rng::splitmix64;
use crate::tcp::{Outgoing, TcpSocket};
use crate::units::SimTime;
use crate::workload::FlowSpec;

/// Everything needed to build a simulation: the expanded scenario.
#[derive(Clone, Debug, PartialEq)]
pub struct SimSpec {
    pub duration: SimTime,
    pub seed: u64,
    pub topology: TopologySpec,
    pub flows: Vec<FlowSpec>,
    /// Workload (group) names, indexed by `FlowSpec::group`.
    pub groups: Vec<String>,
    pub output: OutputSpec,
}

/// What to measure beyond the flow and link tables.
#[derive(Clone, Debug, PartialEq, Default)]
pub struct OutputSpec {
    /// Sample senders' TCP state at this interval (None: no time series).
    pub timeseries: Option<SimTime>,
    /// Flows to sample (None: all).
    pub timeseries_flows: Option<Vec<u32>>,
}

/// Sampler indices in `Event::Sample`.
const SAMPLE_FLOWS: u32 = 0;

/// One side of a connection.
#[derive(Debug)]
struct Endpoint {
    sock: TcpSocket,
    host: HostId,
    peer_host: HostId,
    conn: ConnId,
    peer: EpId,
    /// Earliest pending timer event, if any.
    timer_at: Option<SimTime>,
    flow_hash: u32,
    next_ip_id: u16,
}

/// A connection and what is measured about it.
#[derive(Debug, Clone)]
pub struct Connection {
    pub sender: EpId,
    pub receiver: EpId,
    pub src: HostId,
    pub dst: HostId,
    pub size: Option<u64>,
    pub group: u32,
    pub start_at: SimTime,
    /// When the first SYN was sent.
    pub started: Option<SimTime>,
    /// When the last data byte reached the receiver.
    pub finished: Option<SimTime>,
}

/// Counters of the run as a whole.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct RunCounters {
    pub events: u64,
    /// Packets that crossed a link (each crossing counts once).
    pub packet_hops: u64,
    pub no_route_drops: u64,
}

pub struct Simulation {
    now: SimTime,
    end: SimTime,
    events: EventQueue,
    pool: PacketPool,
    net: Network,
    eps: Vec<Endpoint>,
    conns: Vec<Connection>,
    groups: Vec<String>,
    counters: RunCounters,
    flow_sampler: Option<FlowSampler>,
}

impl Simulation {
    pub fn new(spec: &SimSpec) -> Simulation {
        let net = Network::build(&spec.topology, spec.seed);
        let mut sim = Simulation {
            now: SimTime::ZERO,
            end: spec.duration,
            events: EventQueue::new(),
            pool: PacketPool::new(),
            net,
            eps: Vec::with_capacity(spec.flows.len() * 2),
            conns: Vec::with_capacity(spec.flows.len()),
            groups: spec.groups.clone(),
            counters: RunCounters::default(),
            flow_sampler: None,
        };
        for f in &spec.flows {
            sim.add_connection(f);
        }
        if let Some(interval) = spec.output.timeseries {
            let flows = match &spec.output.timeseries_flows {
                Some(ids) => ids.iter().map(|&i| ConnId(i)).collect(),
                None => (0..sim.conns.len() as u32).map(ConnId).collect(),
            };
            sim.flow_sampler = Some(FlowSampler::new(interval, flows));
            if interval < sim.end {
                sim.events.push(interval, Event::Sample(SAMPLE_FLOWS));
            }
        }
        sim
    }

    /// Create a connection whose sender opens it at `f.start`.
    pub fn add_connection(&mut self, f: &FlowSpec) -> ConnId {
        let c = ConnId(self.conns.len() as u32);
        let sender = EpId(self.eps.len() as u32);
        let receiver = EpId(sender.0 + 1);
        // Ports: unique per connection, so 5-tuples differ and ECMP spreads flows.
        let sport = 10_000 + (c.0 % 50_000) as u16;
        let dport = 80;
        let hash = splitmix64(
            ((f.src.0 as u64) << 32)
                ^ f.dst.0 as u64
                ^ ((sport as u64) << 48)
                ^ ((dport as u64) << 16)
                ^ PROTO_TCP as u64,
        ) as u32;
        let mut rx_sock = TcpSocket::new(f.tcp, dport, sport);
        rx_sock.listen();
        self.eps.push(Endpoint {
            sock: TcpSocket::new(f.tcp, sport, dport),
            host: f.src,
            peer_host: f.dst,
            conn: c,
            peer: receiver,
            timer_at: None,
            flow_hash: hash,
            next_ip_id: 0,
        });
        self.eps.push(Endpoint {
            sock: rx_sock,
            host: f.dst,
            peer_host: f.src,
            conn: c,
            peer: sender,
            timer_at: None,
            flow_hash: hash,
            next_ip_id: 0,
        });
        self.conns.push(Connection {
            sender,
            receiver,
            src: f.src,
            dst: f.dst,
            size: f.size,
            group: f.group,
            start_at: f.start,
            started: None,
            finished: None,
        });
        if f.start < self.end {
            self.events.push(f.start.max(self.now), Event::ConnStart(c));
        }
        c
    }

    pub fn now(&self) -> SimTime {
        self.now
    }
    pub fn end(&self) -> SimTime {
        self.end
    }
    pub fn is_done(&self) -> bool {
        self.now >= self.end
    }
    pub fn counters(&self) -> &RunCounters {
        &self.counters
    }
    pub fn network(&self) -> &Network {
        &self.net
    }
    pub fn connections(&self) -> &[Connection] {
        &self.conns
    }
    pub fn packets(&self) -> &PacketPool {
        &self.pool
    }
    /// The sending socket of connection `c`.
    pub fn sender_socket(&self, c: ConnId) -> &TcpSocket {
        &self.eps[self.conns[c.idx()].sender.idx()].sock
    }
    pub fn receiver_socket(&self, c: ConnId) -> &TcpSocket {
        &self.eps[self.conns[c.idx()].receiver.idx()].sock
    }

    /// Run until the end of the simulation.
    pub fn run(&mut self) {
        while !self.step(u64::MAX) {}
    }

    /// Process up to `max_events` events; returns true when the run is over.
    pub fn step(&mut self, max_events: u64) -> bool {
        let mut budget = max_events;
        while budget > 0 {
            match self.events.peek_time() {
                Some(t) if t < self.end => {}
                _ => {
                    self.now = self.end;
                    return true;
                }
            }
            let (t, ev) = self.events.pop().unwrap();
            self.now = t;
            self.counters.events += 1;
            budget -= 1;
            self.dispatch(ev);
        }
        false
    }

    #[inline]
    fn dispatch(&mut self, ev: Event) {
        let now = self.now;
        match ev {
            Event::TxDone(p) => {
                let Simulation { net, pool, events, .. } = self;
                net.ports[p.idx()].on_tx_done(now, pool, events, &mut free_dropped);
            }
            Event::Arrive(p) => {
                let port = &mut self.net.ports[p.idx()];
                let pkt = port.on_arrive(&mut self.events);
                let (to, up) = (port.to, port.up);
                self.counters.packet_hops += 1;
                if up {
                    self.pool.get_mut(pkt).meta.hops += 1;
                    self.deliver(to, pkt);
                } else {
                    port.stats.link_down_drops += 1;
                    self.pool.free(pkt);
                }
            }
            Event::EndpointTimer(ep) => {
                let e = &mut self.eps[ep.idx()];
                if e.timer_at == Some(now) {
                    e.timer_at = None;
                }
                if e.sock.poll_at().is_some_and(|t| t <= now) {
                    e.sock.on_timer(now);
                }
                self.service(ep);
            }
            Event::ConnStart(c) => self.start_connection(c),
            Event::Sample(SAMPLE_FLOWS) => {
                let Simulation { flow_sampler, eps, conns, events, end, .. } = self;
                if let Some(fs) = flow_sampler {
                    fs.sample(now, |c| &eps[conns[c.idx()].sender.idx()].sock);
                    if now + fs.interval < *end {
                        events.push(now + fs.interval, Event::Sample(SAMPLE_FLOWS));
                    }
                }
            }
            Event::Workload { .. } | Event::Sample(_) | Event::LinkChange(_) | Event::PortTimer(_) => {}
        }
    }

    fn start_connection(&mut self, c: ConnId) {
        let conn = &mut self.conns[c.idx()];
        conn.started = Some(self.now);
        let sender = conn.sender;
        let sock = &mut self.eps[sender.idx()].sock;
        sock.connect();
        match conn.size {
            Some(bytes) => {
                sock.send(bytes);
                sock.close();
            }
            None => sock.send(u64::MAX >> 2),
        }
        self.service(sender);
    }

    /// A packet reached `node`.
    #[inline]
    fn deliver(&mut self, node: NodeId, pkt: PacketId) {
        let now = self.now;
        let n = &mut self.net.nodes[node.idx()];
        match n.kind {
            NodeKind::Switch => {
                let p = self.pool.get(pkt);
                let hops = self.net.routes.next_hops(node, p.ip.dst);
                if hops.is_empty() {
                    self.counters.no_route_drops += 1;
                    self.pool.free(pkt);
                    return;
                }
                let out = n.forwarder.choose(hops, p, &self.net.ports);
                let Simulation { net, pool, events, .. } = self;
                net.ports[out.idx()].enqueue(now, pkt, pool, events, &mut free_dropped);
            }
            NodeKind::Host => {
                let p = *self.pool.get(pkt);
                self.pool.free(pkt);
                debug_assert_eq!(Some(p.ip.dst), n.host);
                let ep = p.meta.dst_ep;
                self.eps[ep.idx()].sock.on_segment(now, p.ip.ecn(), &p.tcp);
                let conn = &mut self.conns[p.meta.conn.idx()];
                if conn.receiver == ep
                    && conn.finished.is_none()
                    && conn.size.is_some_and(|s| self.eps[ep.idx()].sock.delivered_bytes() >= s)
                {
                    conn.finished = Some(now);
                }
                self.service(ep);
            }
        }
    }

    /// Drain an endpoint's output into its host's NIC and re-arm its timer.
    fn service(&mut self, ep: EpId) {
        let now = self.now;
        let Simulation { eps, pool, net, events, .. } = self;
        let e = &mut eps[ep.idx()];
        let nic = net.host_nic[e.host.idx()];
        let port = &mut net.ports[nic.idx()];
        let (src, dst, conn, peer, hash) = (e.host, e.peer_host, e.conn, e.peer, e.flow_hash);
        let ip_id = &mut e.next_ip_id;
        e.sock.poll_transmit(now, &mut |out: &Outgoing| {
            let total = IPV4_HEADER_BYTES + out.seg.header_len() + out.seg.payload_len;
            let mut ip = Ipv4Header {
                src,
                dst,
                id: *ip_id,
                tos: 0,
                dont_fragment: true,
                more_fragments: false,
                frag_offset: 0,
                total_len: total.min(u16::MAX as u32) as u16,
                protocol: PROTO_TCP,
                ttl: 64,
            };
            *ip_id = ip_id.wrapping_add(1);
            ip.set_ecn(out.ecn);
            let meta =
                PacketMeta { conn, dst_ep: peer, flow_hash: hash, created_at: now, ..Default::default() };
            let id = pool.alloc(Packet { ip, tcp: out.seg, meta });
            port.enqueue(now, id, pool, events, &mut free_dropped);
        });
        if let Some(t) = e.sock.poll_at()
            && e.timer_at.is_none_or(|s| t < s)
        {
            let t = t.max(now);
            events.push(t, Event::EndpointTimer(ep));
            e.timer_at = Some(t);
        }
    }

    /// Collect the results (tables and summary) at the current time.
    pub fn results(&self) -> Results {
        results::collect(self)
    }
}

#[inline]
fn free_dropped(p: PacketId, _cause: DropCause, pool: &mut PacketPool) {
    pool.free(p);
}
