/*! The simulation: one world that owns the clock, the event queue, the packet arena, the network,
the hosts and their endpoints, the workload generators and the measurements, and runs the
event loop.

```text
 workload ─▶ endpoint ─poll_transmit─▶ host shims ─▶ NIC port ─▶ pipe ─Arrive─▶ switch ─forward─▶ port …
                 ▲                                                                                   │
                 └── on_segment ◀── host shims ◀── reassembly ◀── host ◀────────── Arrive ◀──────────┘
```

Everything is driven from [`Simulation::step`]: pop the earliest event, advance the clock,
dispatch. Endpoints are sans-IO sockets; after anything happens to one, the simulation drains
its output through the host's shims into its NIC and (re)arms its timer from `poll_at`. Timers
are lazy: an endpoint (or a host's shim chain) has at most one pending timer event, at the
earliest time it asked for; a later deadline — the usual case, as the RTO moves forward on
every ACK — schedules nothing.

Workload generators act through [`Action`]s: the simulation applies them (creating
connections, writing data, sending datagrams, scheduling wake-ups) and tells a generator when a
transfer it started has been completely delivered.
*/

#[cfg(routerlab_event_cycles)]
pub mod cycles;
mod measure;
pub mod probe;
mod results;
mod sampling;

pub use measure::{Histogram, LatencyProbeSpec, MeasureSpec};
pub use results::{FlowRow, LinkRow, Results, StageRows, Summary, TransferRow};
pub use sampling::{FlowSampler, TimeSeries};

use std::collections::VecDeque;
use std::sync::Arc;

use crate::engine::{Event, EventQueue};
use crate::host::{Ingress, ShimChain};
use crate::ids::{ConnId, EpId, HostId, NodeId, PacketId, PortId};
use crate::mechanisms::taq::{FlowKey, FlowObserver, TaqParams};
use crate::mptcp::{MptcpConn, Subflow};
use crate::net::fragment::Reassembler;
use crate::net::packet::{
    Ecn, IPV4_HEADER_BYTES, Ipv4Header, MetaFlags, PROTO_TCP, PROTO_UDP, Packet, PacketMeta, PacketPool,
    PipeLink, TcpSegment, UDP_HEADER_BYTES,
};
use crate::net::port::Port;
use crate::net::{Network, TopologySpec};
use crate::qdisc::{AnyQdisc, DropCause, Qdisc};
use crate::rng::{SimRng, StreamId, splitmix64};
use crate::tcp::MptcpPaths;
use crate::tcp::cc::{AnyCc, Lia, lia_alpha};
use crate::tcp::{TcpConfig, TcpSocket, Transmit};
use crate::units::SimTime;
use crate::workload::{Action, Ctx, FlowSpec, Generator, Opener};
use measure::Measurements;

/// Everything needed to build a simulation: the expanded scenario.
#[derive(Clone, Debug)]
pub struct SimSpec {
    pub duration: SimTime,
    pub seed: u64,
    pub topology: TopologySpec,
    /// Connections known before the run.
    pub flows: Vec<FlowSpec>,
    /// Dynamic workloads, each with the workload index its random stream derives from.
    pub generators: Vec<(u32, Generator)>,
    /// Workload (group) names, indexed by `FlowSpec::group`.
    pub groups: Vec<String>,
    /// Links going down or up: (time, node a, node b, up).
    pub link_changes: Vec<LinkChange>,
    /// IP reassembly timeout at hosts.
    pub reassembly_timeout: SimTime,
    /// PLTS's DUPACK-filtering agent on every host, if any.
    pub dupack_filter: Option<crate::mechanisms::plts::FilterParams>,
    /// The super-packet sender shim on every host, if any connection uses super-packets.
    pub sp_sender: Option<SpSenderSpec>,
    /// Hosts sending only first packets of super-packets of the given length (sp-dos).
    pub sp_attackers: Vec<(HostId, u32)>,
    pub output: OutputSpec,
}

/// The SP sender shim's settings (`mechanisms::sp::sender`).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SpSenderSpec {
    /// T_buffer; None: five full-sized packets at each host's own link rate (the paper's).
    pub t_buffer: Option<SimTime>,
    pub max_length: u32,
    /// §5.3's fixed-length SPs without buffering (None: the paper's buffering sender).
    pub fixed_length: Option<u32>,
}

/// A scheduled failure or recovery of the link between two nodes (both directions).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LinkChange {
    pub at: SimTime,
    pub a: NodeId,
    pub b: NodeId,
    pub up: bool,
}

/// What to measure beyond the flow and link tables.
#[derive(Clone, Debug, PartialEq, Default)]
pub struct OutputSpec {
    /// Sample senders' TCP state at this interval (None: no time series).
    pub timeseries: Option<SimTime>,
    /// Flows to sample (None: all).
    pub timeseries_flows: Option<Vec<u32>>,
    pub measure: MeasureSpec,
}

/// Sampler indices in `Event::Sample`.
const SAMPLE_FLOWS: u32 = 0;

/// One side of a TCP connection. The simulator's own fields come first (`repr(C)` keeps the
/// order), right before the start of the socket, which every segment reads. Aligned to cache
/// lines, so that the socket's hot-first layout maps to the same lines in every endpoint.
#[derive(Debug)]
#[repr(C, align(64))]
struct Endpoint {
    /// Earliest pending timer event, if any.
    timer_at: Option<SimTime>,
    /// The MPTCP subflow this endpoint is one end of, if any.
    subflow: Option<SubflowOf>,
    host: HostId,
    peer_host: HostId,
    conn: ConnId,
    peer: EpId,
    /// Waiting for room in its host's NIC queue.
    blocked: bool,
    sock: TcpSocket,
}

/// Which MPTCP connection and subflow an endpoint belongs to, and which end it is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct SubflowOf {
    mptcp: u32,
    index: u32,
    sender: bool,
}

/// How a flow is carried.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Carrier {
    Tcp {
        sender: EpId,
        receiver: EpId,
    },
    /// Multipath TCP: `Simulation::mptcp[i]`, its subflows' endpoints listed there.
    Mptcp(u32),
    /// Datagrams, counted at both ends.
    Udp {
        sent_bytes: u64,
        delivered_bytes: u64,
    },
}

/// A flow (a TCP connection or a UDP stream) and what is measured about it. Fields are in
/// the order the hot path reads them (`repr(C)` keeps it): what every packet sent or
/// delivered reads, in the first cache line; what rarely changes after.
#[derive(Debug, Clone)]
#[repr(C)]
pub struct Connection {
    pub carrier: Carrier,
    flow_hash: u32,
    next_ip_id: u16,
    pub persistent: bool,
    /// Payload delivered in order, as last seen.
    delivered: u64,
    last_progress: SimTime,
    /// Longest time without the receiver getting new data so far.
    pub max_silence: SimTime,
    /// Bytes of the first write (None: bulk).
    pub size: Option<u64>,
    /// When the last data byte of a non-persistent flow reached the receiver.
    pub finished: Option<SimTime>,
    /// Transfers not yet completely delivered, in order.
    pending: VecDeque<u32>,
    pub src: HostId,
    pub dst: HostId,
    pub opener: Opener,
    pub group: u32,
    pub start_at: SimTime,
    /// When the first SYN (or datagram) was sent.
    pub started: Option<SimTime>,
    /// Generator to tell about completed transfers.
    pub generator: Option<u32>,
    /// Bytes the application wrote so far.
    pub written: u64,
}

impl Connection {
    /// Carried by TCP (single- or multipath).
    pub fn is_tcp(&self) -> bool {
        !matches!(self.carrier, Carrier::Udp { .. })
    }
}

/// An application-level transfer: one write's worth of data, from the write (or the first
/// SYN) to the arrival of its last byte.
#[derive(Debug, Clone, PartialEq)]
pub struct Transfer {
    pub conn: ConnId,
    pub seq: u32,
    pub tag: u64,
    pub bytes: u64,
    /// Cumulative delivered bytes at which this transfer is complete.
    target: u64,
    pub start: SimTime,
    pub end: Option<SimTime>,
}

/// Per-host state below the endpoints. What every packet asks of a host is kept apart in
/// dense arrays instead: whether it has shims (`Simulation::host_has_shims`), and which
/// endpoints wait for room in its NIC (`Simulation::nic_waiters`).
#[derive(Debug)]
struct HostState {
    shims: ShimChain,
    reassembly: Reassembler,
}

/// A dynamic workload and its random stream.
struct GeneratorSlot {
    generator: Generator,
    rng: SimRng,
}

/// Counters of the run as a whole.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct RunCounters {
    pub events: u64,
    /// Packets that crossed a link (each crossing counts once).
    pub packet_hops: u64,
    pub no_route_drops: u64,
    pub reassembly_failures: u64,
}

pub struct Simulation {
    now: SimTime,
    end: SimTime,
    events: EventQueue,
    pool: PacketPool,
    net: Network,
    eps: Vec<Endpoint>,
    conns: Vec<Connection>,
    mptcp: Vec<MptcpConn>,
    transfers: Vec<Transfer>,
    hosts: Vec<HostState>,
    /// Per host, whether it has shims: asked for every packet a host sends or receives, from
    /// a dense array rather than each host's own line.
    host_has_shims: Vec<bool>,
    /// Per host, the endpoints waiting for room in its NIC queue, and how many hosts have any:
    /// every transmission of a host's NIC asks, and the count answers without a look at the
    /// host's list (which, with a thousand hosts, is rarely in cache).
    nic_waiters: Vec<Vec<EpId>>,
    hosts_with_nic_waiters: usize,
    /// The last few distinct TCP configurations endpoints were built from, for the next ones
    /// built alike to share (see `shared_tcp_config`).
    tcp_configs: Vec<Arc<TcpConfig>>,
    generators: Vec<GeneratorSlot>,
    groups: Vec<String>,
    link_changes: Vec<LinkChange>,
    counters: RunCounters,
    flow_sampler: Option<FlowSampler>,
    measure: Measurements,
    /// Scratch buffers, reused so that the hot path does not allocate.
    egress: Vec<PacketId>,
    actions: Vec<Action>,
    #[cfg(routerlab_event_cycles)]
    cycles: cycles::EventCycles,
}

impl Simulation {
    pub fn new(spec: &SimSpec) -> Simulation {
        let net = Network::build(&spec.topology, spec.seed);
        let hosts: Vec<HostState> = (0..net.hosts.len())
            .map(|h| {
                let mut shims = ShimChain::default();
                if let Some(params) = spec.dupack_filter {
                    shims.push(Box::new(crate::mechanisms::plts::DupAckFilter::new(params)));
                }
                if let Some(s) = spec.sp_sender {
                    use crate::mechanisms::sp::{SpSender, SpSenderParams};
                    let mut params = SpSenderParams::for_link(net.ports[net.host_nic[h].idx()].rate());
                    params.t_buffer = s.t_buffer.unwrap_or(params.t_buffer);
                    params.max_length = s.max_length;
                    params.fixed_length = s.fixed_length;
                    shims.push(Box::new(SpSender::new(params)));
                }
                for &(_, length) in spec.sp_attackers.iter().filter(|(a, _)| a.idx() == h) {
                    shims.push(Box::new(crate::mechanisms::sp::SpAttacker::new(length)));
                }
                HostState { shims, reassembly: Reassembler::new(spec.reassembly_timeout) }
            })
            .collect();
        let host_has_shims = hosts.iter().map(|h| !h.shims.is_empty()).collect();
        let nic_waiters = vec![Vec::new(); hosts.len()];
        let measure = Measurements::new(&spec.output.measure, &net, spec.seed);
        let mut sim = Simulation {
            now: SimTime::ZERO,
            end: spec.duration,
            events: EventQueue::new(),
            pool: PacketPool::new(),
            net,
            eps: Vec::with_capacity(spec.flows.len() * 2),
            conns: Vec::with_capacity(spec.flows.len()),
            mptcp: Vec::new(),
            transfers: Vec::with_capacity(spec.flows.len()),
            hosts,
            nic_waiters,
            hosts_with_nic_waiters: 0,
            tcp_configs: Vec::new(),
            host_has_shims,
            generators: Vec::new(),
            groups: spec.groups.clone(),
            link_changes: spec.link_changes.clone(),
            counters: RunCounters::default(),
            flow_sampler: None,
            measure,
            egress: Vec::with_capacity(64),
            actions: Vec::new(),
            #[cfg(routerlab_event_cycles)]
            cycles: Default::default(),
        };
        for &port in &spec.output.measure.flow_epochs {
            let port = &mut sim.net.ports[port.idx()];
            match port.qdisc_mut() {
                AnyQdisc::Taq(q) => q.tracker.record_epochs(),
                // A passive copy of a TAQ queue's tracker, with its defaults: all queues classified alike.
                _ => port.set_observer(FlowObserver::new(TaqParams::default().tracker)),
            }
        }
        sim.net.wire_reverse_observers();
        // Stages the topology installed may want their first timer.
        for port in &mut sim.net.ports {
            if port.stage().is_some() {
                port.on_stage_timer(SimTime::ZERO, &mut sim.events);
            }
        }
        for f in &spec.flows {
            sim.add_connection(f, None, 0, 0);
        }
        for (i, c) in spec.link_changes.iter().enumerate() {
            if c.at < sim.end {
                sim.events.push(c.at, Event::LinkChange(i as u32));
            }
        }
        for (w, g) in &spec.generators {
            sim.generators.push(GeneratorSlot {
                generator: g.clone(),
                rng: SimRng::new(spec.seed, StreamId::Workload(*w)),
            });
        }
        for g in 0..sim.generators.len() {
            sim.run_generator(g as u32, |w, ctx| w.start(ctx));
        }
        if let Some(interval) = spec.output.timeseries {
            let flows = match &spec.output.timeseries_flows {
                Some(ids) => ids.iter().map(|&i| ConnId(i)).collect(),
                // Every TCP flow known before the run (not CBR's UDP streams).
                None => (0..sim.conns.len() as u32)
                    .map(ConnId)
                    .filter(|&c| tcp_ends(&sim.conns[c.idx()].carrier, &sim.mptcp).is_some())
                    .collect(),
            };
            sim.flow_sampler = Some(FlowSampler::new(interval, flows));
            if interval <= sim.end {
                sim.events.push(interval, Event::Sample(SAMPLE_FLOWS));
            }
        }
        for (index, at) in sim.measure.first_samples() {
            if at <= sim.end {
                sim.events.push(at, Event::Sample(index));
            }
        }
        sim
    }

    /// Create a TCP connection that opens at `f.start`; its first write (if any) is a transfer.
    pub fn add_connection(&mut self, f: &FlowSpec, generator: Option<u32>, tag: u64, seq: u32) -> ConnId {
        let c = ConnId(self.conns.len() as u32);
        // Ports: unique per connection, so 5-tuples differ and ECMP spreads flows.
        let (sport, dport) = (10_000 + (c.0 % 50_000) as u16, 80);
        let mut tcp = f.tcp;
        if tcp.dupthresh_from_paths {
            let paths = self.net.path_count(f.src, f.dst).min(u64::from(u32::MAX)) as u32;
            tcp.dupthresh = tcp.dupthresh.max(paths);
        }
        let hash = flow_hash(f.src, f.dst, sport, dport, PROTO_TCP);
        let carrier = match tcp.mptcp {
            None => {
                let (sender, receiver) = self.add_endpoints(f, tcp, c, (sport, dport), None);
                Carrier::Tcp { sender, receiver }
            }
            Some(m) => self.add_mptcp(f, tcp, c, m),
        };
        self.conns.push(Connection {
            carrier,
            src: f.src,
            dst: f.dst,
            size: f.size,
            persistent: f.persistent,
            opener: f.opener,
            group: f.group,
            start_at: f.start,
            started: None,
            finished: None,
            generator,
            written: 0,
            pending: VecDeque::new(),
            flow_hash: hash,
            next_ip_id: 0,
            delivered: 0,
            last_progress: f.start,
            max_silence: SimTime::ZERO,
        });
        if let Some(n) = f.size.filter(|&n| n > 0) {
            self.add_transfer(c, n, tag, seq, f.start);
        }
        if f.start < self.end {
            self.events.push(f.start.max(self.now), Event::ConnStart(c));
        }
        if let Some(stop) = f.stop.filter(|&t| t < self.end) {
            self.events.push(stop.max(f.start).max(self.now), Event::ConnStop(c));
        }
        c
    }

    /// The two endpoints of one TCP connection (or MPTCP subflow) of flow `f`.
    fn add_endpoints(
        &mut self,
        f: &FlowSpec,
        tcp: TcpConfig,
        c: ConnId,
        (sport, dport): (u16, u16),
        subflow: Option<(u32, u32)>,
    ) -> (EpId, EpId) {
        let sender = EpId(self.eps.len() as u32);
        let receiver = EpId(sender.0 + 1);
        let tcp = self.shared_tcp_config(tcp);
        let mut snd = TcpSocket::new(tcp.clone(), sport, dport);
        let mut rcv = TcpSocket::new(tcp, dport, sport);
        match f.opener {
            Opener::Sender => rcv.listen(),
            Opener::Receiver => snd.listen(),
        }
        let ends = [(snd, f.src, f.dst, receiver, true), (rcv, f.dst, f.src, sender, false)];
        for (sock, host, peer_host, peer, is_sender) in ends {
            let subflow = subflow.map(|(mptcp, index)| SubflowOf { mptcp, index, sender: is_sender });
            self.eps.push(Endpoint {
                sock,
                host,
                peer_host,
                conn: c,
                peer,
                timer_at: None,
                blocked: false,
                subflow,
            });
        }
        (sender, receiver)
    }

    /// The shared copy of `tcp`: every segment reads its endpoint's configuration, and one copy
    /// stays in cache. Only the last few distinct configurations are remembered, so building
    /// many flows with distinct ones stays linear (those then get copies of their own, which is
    /// only slower).
    fn shared_tcp_config(&mut self, tcp: TcpConfig) -> Arc<TcpConfig> {
        const REMEMBERED: usize = 8;
        if let Some(c) = self.tcp_configs.iter().find(|c| ***c == tcp) {
            return c.clone();
        }
        if self.tcp_configs.len() == REMEMBERED {
            self.tcp_configs.remove(0);
        }
        let c = Arc::new(tcp);
        self.tcp_configs.push(c.clone());
        c
    }

    /// An MPTCP connection's subflows, each on its own source port: drawn and left to ECMP
    /// (`MptcpPaths::Hashed`), or searched so that the subflows' ECMP paths differ while unused
    /// paths remain (`Distinct`, up to `PORT_TRIES` ports each). The sender opens every
    /// subflow, whichever end the workload says opens the connection.
    fn add_mptcp(&mut self, f: &FlowSpec, tcp: TcpConfig, c: ConnId, m: crate::tcp::MptcpConfig) -> Carrier {
        const PORT_TRIES: u32 = 64;
        let f = &FlowSpec { opener: Opener::Sender, ..f.clone() };
        let id = self.mptcp.len() as u32;
        let dport = 80;
        let mut used: Vec<Vec<PortId>> = Vec::new();
        let mut subflows = Vec::with_capacity(m.subflows as usize);
        let mut candidate = 0u32;
        for i in 0..m.subflows {
            // A spread of ports per connection (an ephemeral range's draws, deterministically).
            let port_of = |j: u32| 10_000 + ((c.0.wrapping_mul(7919).wrapping_add(j)) % 50_000) as u16;
            let hash_of = |j: u32| flow_hash(f.src, f.dst, port_of(j), dport, PROTO_TCP);
            let chosen = match m.paths {
                MptcpPaths::Hashed => candidate,
                MptcpPaths::Distinct => (candidate..candidate + PORT_TRIES)
                    .map(|j| (j, self.net.ecmp_path(f.src, f.dst, hash_of(j))))
                    .find(|(_, path)| !used.contains(path))
                    .map_or(candidate, |(j, path)| {
                        used.push(path);
                        j
                    }),
            };
            candidate = chosen + 1;
            let sport = port_of(chosen);
            let (sender, receiver) = self.add_endpoints(f, tcp, c, (sport, dport), Some((id, i)));
            if m.coupled {
                self.eps[sender.idx()].sock.set_cc(AnyCc::Lia(Lia::default()));
            }
            subflows.push(Subflow { sender, receiver, flow_hash: hash_of(chosen) });
        }
        self.mptcp.push(MptcpConn::new(subflows, tcp.rcv_buf));
        Carrier::Mptcp(id)
    }

    fn add_transfer(&mut self, c: ConnId, bytes: u64, tag: u64, seq: u32, start: SimTime) {
        let conn = &mut self.conns[c.idx()];
        conn.written += bytes;
        let id = self.transfers.len() as u32;
        self.transfers.push(Transfer { conn: c, seq, tag, bytes, target: conn.written, start, end: None });
        conn.pending.push_back(id);
    }

    fn add_udp_flow(&mut self, src: HostId, dst: HostId, start: SimTime, group: u32) -> ConnId {
        let c = ConnId(self.conns.len() as u32);
        self.conns.push(Connection {
            carrier: Carrier::Udp { sent_bytes: 0, delivered_bytes: 0 },
            src,
            dst,
            size: None,
            persistent: false,
            opener: Opener::Sender,
            group,
            start_at: start,
            started: None,
            finished: None,
            generator: None,
            written: 0,
            pending: VecDeque::new(),
            flow_hash: flow_hash(src, dst, 20_000 + (c.0 % 40_000) as u16, 9, PROTO_UDP),
            next_ip_id: 0,
            delivered: 0,
            last_progress: start,
            max_silence: SimTime::ZERO,
        });
        c
    }

    /// Give a host a shim (at the end of its chain).
    pub fn add_shim(&mut self, host: HostId, shim: Box<dyn crate::host::HostShim>) {
        self.hosts[host.idx()].shims.push(shim);
        self.host_has_shims[host.idx()] = true;
    }

    /// Replace a port's queue discipline (before the run starts).
    pub fn set_qdisc(&mut self, port: PortId, qdisc: crate::qdisc::AnyQdisc) {
        self.net.ports[port.idx()].set_qdisc(qdisc);
        self.net.wire_reverse_observers();
    }

    /// Install a stage (admission / transform / timer) around a port's queue.
    pub fn set_port_stage(&mut self, port: PortId, stage: Box<dyn crate::net::stage::PortStage>) {
        self.net.ports[port.idx()].set_stage(stage);
        self.net.ports[port.idx()].on_stage_timer(self.now, &mut self.events);
    }

    /// Replace the congestion controller of a TCP connection's sender (before it starts).
    pub fn set_congestion_control(&mut self, c: ConnId, cc: crate::tcp::cc::AnyCc) {
        match self.conns[c.idx()].carrier {
            Carrier::Tcp { sender, .. } => self.eps[sender.idx()].sock.set_cc(cc),
            Carrier::Mptcp(_) => panic!("flow {} is MPTCP: its subflows' controller is LIA", c.0),
            Carrier::Udp { .. } => {}
        }
    }

    /// Replace a node's forwarding policy with a custom one.
    pub fn set_forwarding(&mut self, node: NodeId, policy: Box<dyn crate::net::forwarding::NextHopPolicy>) {
        self.net.nodes[node.idx()].forwarder.set_custom(policy);
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
    /// Analysis builds: the loop's cycles by kind of event (see [`cycles`]).
    #[cfg(routerlab_event_cycles)]
    pub fn event_cycles(&self) -> &cycles::EventCycles {
        &self.cycles
    }
    pub fn network(&self) -> &Network {
        &self.net
    }
    pub fn network_mut(&mut self) -> &mut Network {
        &mut self.net
    }
    pub fn connections(&self) -> &[Connection] {
        &self.conns
    }
    pub fn transfers(&self) -> &[Transfer] {
        &self.transfers
    }
    pub fn packets(&self) -> &PacketPool {
        &self.pool
    }
    pub fn generators(&self) -> impl Iterator<Item = &Generator> {
        self.generators.iter().map(|g| &g.generator)
    }
    /// The sending socket of TCP connection `c` (of an MPTCP connection: its first subflow's).
    pub fn sender_socket(&self, c: ConnId) -> &TcpSocket {
        &self.eps[self.tcp_ends(c).0.idx()].sock
    }
    pub fn receiver_socket(&self, c: ConnId) -> &TcpSocket {
        &self.eps[self.tcp_ends(c).1.idx()].sock
    }
    /// The sending sockets of an MPTCP connection's subflows (one for a TCP connection).
    pub fn subflow_senders(&self, c: ConnId) -> impl Iterator<Item = &TcpSocket> {
        let eps: Vec<EpId> = match self.conns[c.idx()].carrier {
            Carrier::Mptcp(m) => self.mptcp[m as usize].subflows.iter().map(|s| s.sender).collect(),
            _ => vec![self.tcp_ends(c).0],
        };
        eps.into_iter().map(|e| &self.eps[e.idx()].sock)
    }
    /// The (sender, receiver) endpoints of a TCP connection, or of an MPTCP one's first subflow.
    fn tcp_ends(&self, c: ConnId) -> (EpId, EpId) {
        tcp_ends(&self.conns[c.idx()].carrier, &self.mptcp).unwrap_or_else(|| panic!("flow {} is UDP", c.0))
    }

    /// Run until the end of the simulation.
    pub fn run(&mut self) {
        while !self.step(u64::MAX) {}
    }

    /// Process up to `max_events` events; returns true when the run is over.
    pub fn step(&mut self, max_events: u64) -> bool {
        let mut budget = max_events;
        while budget > 0 {
            match self.events.peek() {
                Some((t, _)) if t < self.end => {}
                // Samples due exactly at the end are taken (the last slice, the last reading).
                Some((t, Event::Sample(_))) if t == self.end => {}
                _ => {
                    self.now = self.end;
                    return true;
                }
            }
            #[cfg(routerlab_event_cycles)]
            let popped = cycles::now();
            let (t, ev) = self.events.pop().unwrap();
            self.prefetch_for_next_event();
            self.now = t;
            self.counters.events += 1;
            budget -= 1;
            #[cfg(routerlab_event_cycles)]
            let (kind, dispatched) = (self.event_kind(&ev), cycles::now());
            self.dispatch(ev);
            #[cfg(routerlab_event_cycles)]
            self.cycles.event(kind, popped, dispatched, cycles::now());
        }
        false
    }

    /// Analysis builds: which of [`cycles`]' kinds `ev` is.
    #[cfg(routerlab_event_cycles)]
    fn event_kind(&self, ev: &Event) -> usize {
        match *ev {
            Event::Arrive(port, ..) if self.net.port_far_end[port.idx()].1 => cycles::ARRIVAL_AT_HOST,
            Event::Arrive(..) => cycles::ARRIVAL_AT_SWITCH,
            Event::TxDone(_) => cycles::TX_DONE,
            Event::EndpointTimer(_) => cycles::ENDPOINT_TIMER,
            _ => cycles::OTHER,
        }
    }

    /// Start loading what the next event will touch while this one runs.
    #[inline]
    fn prefetch_for_next_event(&mut self) {
        match self.events.peek() {
            Some((_, &Event::Arrive(port, pkt, dst))) => {
                let (node, at_host) = self.net.port_far_end[port.idx()];
                self.pool.prefetch(pkt, at_host);
                crate::engine::prefetch_first(&self.net.ports[port.idx()], Port::ARRIVAL_BYTES);
                // At a switch with one way on, the port the packet will leave by (with several,
                // the choice needs the packet): what a packet that bypasses its queue reads,
                // for a port that is not busy is the one whose lines are cold.
                if !at_host && let Some(egress) = self.net.routes.only_next_hop(node, dst) {
                    crate::engine::prefetch_first(&self.net.ports[egress.idx()], Port::BYPASS_BYTES);
                }
            }
            Some((_, &Event::TxDone(port))) => {
                crate::engine::prefetch_first(&self.net.ports[port.idx()], Port::TRANSMIT_BYTES)
            }
            Some((_, &Event::EndpointTimer(ep))) => crate::engine::prefetch(&self.eps[ep.idx()]),
            _ => {}
        }
    }

    #[inline]
    fn dispatch(&mut self, ev: Event) {
        let now = self.now;
        match ev {
            Event::TxDone(p) => {
                let Simulation { net, pool, events, measure, .. } = self;
                let port = &mut net.ports[p.idx()];
                if let Some(sent) = port.on_tx_done(now, pool, events, &mut net.drops, &mut free_dropped) {
                    measure.on_transmit(now, port, pool.get(sent));
                }
                // A host's NIC made room: wake the sockets it pushed back on.
                if self.hosts_with_nic_waiters > 0
                    && let Some(h) = net.node_host[port.from.idx()]
                    && !self.nic_waiters[h.idx()].is_empty()
                {
                    let mut waiting = std::mem::take(&mut self.nic_waiters[h.idx()]);
                    self.hosts_with_nic_waiters -= 1;
                    for &ep in &waiting {
                        self.eps[ep.idx()].blocked = false;
                        self.service(ep);
                    }
                    let first = waiting[0];
                    waiting.clear();
                    let blocked = &mut self.nic_waiters[h.idx()];
                    if blocked.is_empty() {
                        *blocked = waiting; // keep the allocation
                    } else if blocked[0] == first {
                        // Those still blocked re-registered in the order they were woken, so
                        // the first would take every room forever: it goes last, and rooms go
                        // round robin among the host's sockets.
                        blocked.rotate_left(1);
                    }
                }
            }
            Event::Arrive(p, pkt, _) => {
                let port = &mut self.net.ports[p.idx()];
                port.on_arrive(pkt, &mut self.pool, &mut self.events);
                let (to, up, reverse) = (port.to, port.up, port.reverse_observer);
                self.counters.packet_hops += 1;
                if up {
                    if let Some(q) = reverse {
                        self.net.ports[q.idx()].qdisc_mut().observe_reverse(now, self.pool.get(pkt));
                    }
                    self.pool.get_mut(pkt).meta.hops += 1;
                    self.deliver(to, pkt);
                } else {
                    self.net.ports[p.idx()].link_drops.link_down_drops += 1;
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
            Event::HostTimer(h) => {
                let mut out = std::mem::take(&mut self.egress);
                let hs = &mut self.hosts[h.idx()];
                if hs.shims.timer_at == Some(now) {
                    hs.shims.timer_at = None;
                }
                hs.shims.on_timer(now, &mut self.pool, &mut out);
                self.enqueue_at_nic(h, &mut out);
                self.egress = out;
                self.arm_host_timer(h);
            }
            Event::ConnStart(c) => self.start_connection(c),
            Event::ConnStop(c) => {
                if let Carrier::Tcp { sender, .. } = self.conns[c.idx()].carrier {
                    self.eps[sender.idx()].sock.stop_writing();
                    self.service(sender);
                }
            }
            Event::Workload { workload, slot } => self.run_generator(workload, |g, ctx| g.on_wake(slot, ctx)),
            Event::Sample(SAMPLE_FLOWS) => {
                let Simulation { flow_sampler, eps, conns, mptcp, events, end, .. } = self;
                if let Some(fs) = flow_sampler {
                    // An MPTCP connection is sampled on its first subflow.
                    fs.sample(now, |c| {
                        let conn = &conns[c.idx()];
                        let (sender, _) =
                            tcp_ends(&conn.carrier, mptcp).expect("time series cover TCP flows");
                        (&eps[sender.idx()].sock, conn.delivered)
                    });
                    if now + fs.interval <= *end {
                        events.push(now + fs.interval, Event::Sample(SAMPLE_FLOWS));
                    }
                }
            }
            Event::Sample(index) => {
                let next = self.measure.sample(index, now, &self.net, &self.conns);
                if let Some(at) = next.filter(|&t| t <= self.end) {
                    self.events.push(at, Event::Sample(index));
                }
            }
            Event::LinkChange(i) => self.change_link(i as usize),
            Event::PortTimer(p) => self.net.ports[p.idx()].on_stage_timer(now, &mut self.events),
        }
    }

    fn start_connection(&mut self, c: ConnId) {
        let conn = &mut self.conns[c.idx()];
        conn.started = Some(self.now);
        if let Carrier::Mptcp(m) = conn.carrier {
            // The data level takes the writes; every subflow opens at once, from the sender.
            let mc = &mut self.mptcp[m as usize];
            mc.write(conn.size.unwrap_or(u64::MAX >> 2));
            for sf in &mc.subflows {
                self.eps[sf.sender.idx()].sock.connect();
            }
            self.service_subflows(m);
            return;
        }
        let Carrier::Tcp { sender, receiver } = conn.carrier else { return };
        let (size, persistent, opener) = (conn.size, conn.persistent, conn.opener);
        let sock = &mut self.eps[sender.idx()].sock;
        match size {
            Some(bytes) => {
                sock.send(bytes);
                if !persistent {
                    sock.close();
                }
            }
            None => sock.send(u64::MAX >> 2),
        }
        let opener_ep = match opener {
            Opener::Sender => sender,
            Opener::Receiver => receiver,
        };
        self.eps[opener_ep.idx()].sock.connect();
        self.service(opener_ep);
    }

    /// Let generator `g` act, then apply what it asked for.
    fn run_generator(&mut self, g: u32, f: impl FnOnce(&mut Generator, &mut Ctx)) {
        let mut actions = std::mem::take(&mut self.actions);
        let slot = &mut self.generators[g as usize];
        let mut ctx = Ctx::new(self.now, &mut slot.rng, &mut actions, self.conns.len() as u32);
        f(&mut slot.generator, &mut ctx);
        for a in actions.drain(..) {
            self.apply(g, a);
        }
        self.actions = actions;
    }

    fn apply(&mut self, g: u32, a: Action) {
        match a {
            Action::Open { flow, tag, seq } => {
                self.add_connection(&flow, Some(g), tag, seq);
            }
            Action::Send { conn, bytes, tag, seq } => {
                let now = self.now;
                self.add_transfer(conn, bytes, tag, seq, now);
                match self.conns[conn.idx()].carrier {
                    Carrier::Tcp { sender, .. } => {
                        self.eps[sender.idx()].sock.send(bytes);
                        self.service(sender);
                    }
                    Carrier::Mptcp(m) => {
                        self.mptcp[m as usize].write(bytes);
                        self.service_subflows(m);
                    }
                    Carrier::Udp { .. } => {}
                }
            }
            Action::OpenUdp { src, dst, start, group } => {
                self.add_udp_flow(src, dst, start, group);
            }
            Action::Datagram { flow, bytes } => self.send_datagram(flow, bytes),
            Action::Wake { at, slot } => {
                if at < self.end {
                    self.events.push(at.max(self.now), Event::Workload { workload: g, slot });
                }
            }
        }
    }

    fn send_datagram(&mut self, c: ConnId, bytes: u32) {
        let now = self.now;
        let conn = &mut self.conns[c.idx()];
        conn.started.get_or_insert(now);
        if let Carrier::Udp { sent_bytes, .. } = &mut conn.carrier {
            *sent_bytes += bytes as u64;
        }
        let total = bytes.clamp(IPV4_HEADER_BYTES + UDP_HEADER_BYTES, u16::MAX as u32);
        let (src, hash) = (conn.src, conn.flow_hash);
        let p = udp_datagram(src, conn.dst, total, false, &mut conn.next_ip_id, c, hash, MetaFlags::UNBOUND);
        let mut out = std::mem::take(&mut self.egress);
        out.push(self.pool.alloc(p));
        self.host_egress(src, &mut out);
        self.egress = out;
    }

    fn change_link(&mut self, i: usize) {
        let ch = self.link_changes[i];
        let Simulation { net, pool, .. } = self;
        for (x, y) in [(ch.a, ch.b), (ch.b, ch.a)] {
            if let Some(p) = net.port_between(x, y) {
                if ch.up {
                    net.ports[p.idx()].up = true;
                } else {
                    net.ports[p.idx()].set_down(self.now, pool, &mut net.drops, &mut free_dropped);
                }
            }
        }
        net.recompute_routes();
    }

    /// A packet reached `node`.
    #[inline]
    fn deliver(&mut self, node: NodeId, pkt: PacketId) {
        let now = self.now;
        if self.measure.watches(node) {
            self.measure.on_arrival(now, node, self.pool.get_mut(pkt));
        }
        match self.net.node_host[node.idx()] {
            None => {
                let p = self.pool.get(pkt);
                let hops = self.net.routes.next_hops(node, p.ip.dst);
                if hops.is_empty() {
                    self.counters.no_route_drops += 1;
                    self.pool.free(pkt);
                    return;
                }
                let out = self.net.nodes[node.idx()].forwarder.choose(now, hops, p, &self.net.ports);
                let Simulation { net, pool, events, measure, .. } = self;
                let port = &mut net.ports[out.idx()];
                if let Some(sent) = port.enqueue(now, pkt, pool, events, &mut net.drops, &mut free_dropped) {
                    measure.on_transmit(now, port, pool.get(sent));
                }
            }
            Some(host) => self.deliver_to_host(host, pkt),
        }
    }

    fn deliver_to_host(&mut self, host: HostId, mut pkt: PacketId) {
        #[cfg(routerlab_event_cycles)]
        let arrived = cycles::now();
        let now = self.now;
        let hs = &mut self.hosts[host.idx()];
        let mut lead_payload = None;
        if self.pool.get(pkt).ip.is_fragment() {
            let frag = *self.pool.get(pkt);
            self.pool.free(pkt);
            let before = hs.reassembly.timed_out;
            let whole = hs.reassembly.accept(now, &frag);
            self.counters.reassembly_failures += hs.reassembly.timed_out - before;
            let Some(whole) = whole else { return };
            lead_payload = Some(whole.lead_payload);
            pkt = self.pool.alloc(whole.packet);
        }
        if self.pool.get(pkt).meta.flags.has(MetaFlags::DISCARD) {
            self.pool.free(pkt); // nobody listens: a Kick-Ass RTT indicator has done its job
            return;
        }
        if self.host_has_shims[host.idx()] {
            let verdict = hs.shims.ingress(now, pkt, &mut self.pool);
            self.arm_host_timer(host);
            if verdict == Ingress::Consumed {
                return;
            }
        }
        let p = self.pool.get(pkt);
        debug_assert_eq!(p.ip.dst, host);
        let (c, ep) = (p.meta.conn, p.meta.dst_ep);
        if p.meta.flags.has(MetaFlags::UNBOUND) {
            let payload = p.ip_len().saturating_sub(IPV4_HEADER_BYTES + UDP_HEADER_BYTES) as u64;
            self.pool.free(pkt);
            let conn = &mut self.conns[c.idx()];
            if let Carrier::Udp { delivered_bytes, .. } = &mut conn.carrier {
                *delivered_bytes += payload;
            }
            note_progress(conn, now, payload);
            return;
        }
        if let Some(s) = self.eps[ep.idx()].subflow {
            let p = *p;
            self.pool.free(pkt);
            self.subflow_segment(ep, s, &p);
            return;
        }
        // What the socket's answer will need (its flow, its host's NIC as far as a packet
        // that bypasses the queue reads), loaded while the socket works.
        crate::engine::prefetch(&self.conns[c.idx()]);
        crate::engine::prefetch_first(
            &self.net.ports[self.net.host_nic[host.idx()].idx()],
            Port::BYPASS_BYTES,
        );
        // The segment is read where it lies (a copy of the packet would cost more than the
        // socket's work on a pure ACK), then its slot is freed.
        let e = &mut self.eps[ep.idx()];
        if let Some(len) = lead_payload {
            e.sock.on_leading_fragment(len);
        }
        #[cfg(routerlab_event_cycles)]
        let (parts, at_socket) =
            (if p.tcp.payload_len > 0 { cycles::DATA_PARTS } else { cycles::ACK_PARTS }, cycles::now());
        e.sock.on_segment(now, p.ip.ecn(), &p.tcp);
        #[cfg(routerlab_event_cycles)]
        let taken = cycles::now();
        self.pool.free(pkt);
        let conn = &self.conns[c.idx()];
        if matches!(conn.carrier, Carrier::Tcp { receiver, .. } if receiver == ep) {
            let delivered = self.eps[ep.idx()].sock.delivered_bytes();
            if delivered > conn.delivered {
                self.on_delivery(c, delivered);
            }
        }
        #[cfg(routerlab_event_cycles)]
        let answering = cycles::now();
        self.service(ep);
        #[cfg(routerlab_event_cycles)]
        self.cycles.delivery(parts, [arrived, at_socket, taken, answering, cycles::now()]);
    }

    /// A segment for one end of an MPTCP subflow. At the sender, LIA's coupling is refreshed
    /// before the ACK is taken, and the data-level ACK it brings may open the connection's
    /// window for every subflow; at the receiver, newly in-order subflow data joins the stream.
    fn subflow_segment(&mut self, ep: EpId, s: SubflowOf, p: &Packet) {
        let now = self.now;
        let m = s.mptcp as usize;
        if s.sender {
            if matches!(self.eps[ep.idx()].sock.cc(), AnyCc::Lia(_)) {
                let coupling = lia_alpha(self.mptcp[m].subflows.iter().map(|sf| {
                    let sock = &self.eps[sf.sender.idx()].sock;
                    (sock.cwnd(), sock.srtt())
                }));
                if let AnyCc::Lia(lia) = self.eps[ep.idx()].sock.cc_mut() {
                    lia.set_coupling(coupling);
                }
            }
            self.eps[ep.idx()].sock.on_segment(now, p.ip.ecn(), &p.tcp);
            if self.mptcp[m].on_ack_at_sender() {
                self.service_subflows(s.mptcp);
            } else {
                self.service(ep);
            }
            return;
        }
        let sock = &mut self.eps[ep.idx()].sock;
        sock.on_segment(now, p.ip.ecn(), &p.tcp);
        let data_ack = self.mptcp[m].on_subflow_delivered(s.index as usize, sock.delivered_bytes());
        let c = self.eps[ep.idx()].conn;
        if data_ack > self.conns[c.idx()].delivered {
            self.on_delivery(c, data_ack);
        }
        self.service(ep);
    }

    /// Let every subflow of MPTCP connection `m` send what it now can.
    fn service_subflows(&mut self, m: u32) {
        for i in 0..self.mptcp[m as usize].subflows.len() {
            let sender = self.mptcp[m as usize].subflows[i].sender;
            self.service(sender);
        }
    }

    /// The receiver of `c` has `delivered` bytes in order: complete transfers and the flow.
    fn on_delivery(&mut self, c: ConnId, delivered: u64) {
        let now = self.now;
        let conn = &mut self.conns[c.idx()];
        note_progress(conn, now, delivered - conn.delivered);
        conn.delivered = delivered;
        if !conn.persistent && conn.finished.is_none() && conn.size.is_some_and(|s| delivered >= s) {
            conn.finished = Some(now);
        }
        // Complete transfers in order; a generator told of one may open more connections.
        loop {
            let conn = &mut self.conns[c.idx()];
            let Some(&t) = conn.pending.front() else { return };
            let tr = &mut self.transfers[t as usize];
            if tr.target > delivered {
                return;
            }
            conn.pending.pop_front();
            tr.end = Some(now);
            let (g, tag) = (conn.generator, tr.tag);
            if let Some(g) = g {
                self.run_generator(g, |w, ctx| w.on_done(tag, c, ctx));
            }
        }
    }

    /// Drain an endpoint's output into its host and re-arm its timer.
    fn service(&mut self, ep: EpId) {
        let now = self.now;
        let mut out = std::mem::take(&mut self.egress);
        let Simulation { eps, pool, conns, net, mptcp, .. } = self;
        let e = &mut eps[ep.idx()];
        let (src, dst, conn, peer) = (e.host, e.peer_host, e.conn, e.peer);
        e.sock.set_tx_budget(nic_data_budget(&net.ports[net.host_nic[src.idx()].idx()]));
        let c = &mut conns[conn.idx()];
        let mut hash = c.flow_hash;
        if let Some(s) = e.subflow {
            let m = &mut mptcp[s.mptcp as usize];
            hash = m.subflows[s.index as usize].flow_hash;
            if s.sender {
                // The scheduler: hand this subflow what its window has room for.
                let sock = &mut e.sock;
                let n = m.assign(s.index as usize, sock.bytes_acked(), sock.cwnd(), sock.mss());
                sock.send(n);
                if m.all_assigned() && !c.persistent && c.size.is_some() {
                    sock.close();
                }
            }
        }
        let sp_sender = e.sock.config().sp;
        let dont_fragment = !e.sock.allows_fragmentation();
        e.sock.poll_transmit(
            now,
            &mut SegmentsToPackets {
                pool,
                out: &mut out,
                next_ip_id: &mut c.next_ip_id,
                src,
                dst,
                conn,
                peer,
                flow_hash: hash,
                dont_fragment,
                sp_sender,
            },
        );
        if let Some(size) = e.sock.poll_rtt_indicator(now) {
            // A Kick-Ass RTT indicator (§II-B): DF set, on the connection's path (its flow hash),
            // discarded by the receiving host. We send it as a datagram of its own; the paper
            // does not say what carries it.
            let flags = MetaFlags::DISCARD;
            let ind = udp_datagram(src, dst, size, true, &mut c.next_ip_id, conn, hash, flags);
            out.push(pool.alloc(ind));
        }
        if let Some(t) = e.sock.poll_at()
            && e.timer_at.is_none_or(|s| t < s)
        {
            let t = t.max(now);
            self.events.push(t, Event::EndpointTimer(ep));
            e.timer_at = Some(t);
        }
        if e.sock.tx_blocked() && !e.blocked {
            e.blocked = true;
            let waiters = &mut self.nic_waiters[src.idx()];
            self.hosts_with_nic_waiters += waiters.is_empty() as usize;
            waiters.push(ep);
        }
        if !out.is_empty() {
            self.host_egress(src, &mut out);
        }
        self.egress = out;
    }

    /// Packets leaving a host: through its shims, then into its NIC.
    fn host_egress(&mut self, host: HostId, pkts: &mut Vec<PacketId>) {
        if self.host_has_shims[host.idx()] {
            self.hosts[host.idx()].shims.egress(self.now, &mut self.pool, pkts);
            self.arm_host_timer(host);
        }
        self.enqueue_at_nic(host, pkts);
    }

    fn enqueue_at_nic(&mut self, host: HostId, pkts: &mut Vec<PacketId>) {
        let now = self.now;
        let node = self.net.hosts[host.idx()];
        let watch = self.measure.watches(node);
        let Simulation { net, pool, events, measure, .. } = self;
        let port = &mut net.ports[net.host_nic[host.idx()].idx()];
        for p in pkts.drain(..) {
            if watch {
                measure.on_arrival(now, node, pool.get_mut(p));
            }
            if let Some(sent) = port.enqueue(now, p, pool, events, &mut net.drops, &mut free_dropped) {
                measure.on_transmit(now, port, pool.get(sent));
            }
        }
    }

    fn arm_host_timer(&mut self, host: HostId) {
        let hs = &mut self.hosts[host.idx()];
        if let Some(t) = hs.shims.poll_at()
            && hs.shims.timer_at.is_none_or(|s| t < s)
        {
            let t = t.max(self.now);
            self.events.push(t, Event::HostTimer(host));
            hs.shims.timer_at = Some(t);
        }
    }

    /// Collect the results (tables and summary) at the current time.
    pub fn results(&self) -> Results {
        results::collect(self)
    }

    /// Every TCP endpoint's 5-tuple (as its outgoing packets carry it) and connection.
    pub fn flow_keys(&self) -> impl Iterator<Item = (FlowKey, ConnId)> + '_ {
        self.eps.iter().map(|e| {
            let (sport, dport) = e.sock.ports();
            (FlowKey { src: e.host, dst: e.peer_host, sport, dport }, e.conn)
        })
    }

    /// Capture files of the ports asked for, as (link name, pcap bytes).
    pub fn pcaps(&self) -> Vec<(String, Vec<u8>)> {
        self.measure.pcaps(&self.net)
    }

    /// The port between two named nodes, if any.
    pub fn port_named(&self, name: &str) -> Option<PortId> {
        self.net.port_names.iter().position(|n| n == name).map(|i| PortId(i as u32))
    }
}

/// An endpoint's segments written straight into packet slots (see [`Transmit`]), under the
/// IP header and metadata of its connection.
struct SegmentsToPackets<'a> {
    pool: &'a mut PacketPool,
    out: &'a mut Vec<PacketId>,
    next_ip_id: &'a mut u16,
    src: HostId,
    dst: HostId,
    conn: ConnId,
    peer: EpId,
    flow_hash: u32,
    dont_fragment: bool,
    sp_sender: bool,
}

impl Transmit for SegmentsToPackets<'_> {
    #[inline]
    fn emit(&mut self, ecn: Ecn, _retransmission: bool, write: impl FnOnce(&mut TcpSegment)) {
        let id = *self.next_ip_id;
        *self.next_ip_id = id.wrapping_add(1);
        let SegmentsToPackets { src, dst, conn, peer, flow_hash, dont_fragment, sp_sender, .. } = *self;
        self.out.push(self.pool.alloc_with(|p| {
            write(&mut p.tcp);
            let total = IPV4_HEADER_BYTES + p.tcp.header_len() + p.tcp.payload_len as u32;
            p.ip = Ipv4Header {
                src,
                dst,
                id,
                tos: 0,
                dont_fragment,
                more_fragments: false,
                frag_offset: 0,
                total_len: total.min(u16::MAX as u32) as u16,
                protocol: PROTO_TCP,
                ttl: 64,
            };
            p.ip.set_ecn(ecn);
            p.meta = PacketMeta {
                conn,
                dst_ep: peer,
                flow_hash,
                flags: if sp_sender { MetaFlags::SP_SENDER } else { MetaFlags::NONE },
                ..Default::default()
            };
            p.pipe = PipeLink::default();
        }));
    }
}

/// Data segments a host's sockets may hand its NIC now. Data may fill at most half of the NIC
/// queue, the rest is kept for the host's ACKs and control packets, so a host never drops its
/// own packets (Linux's TCP small queues keep a socket's data in the qdisc far shorter).
fn nic_data_budget(nic: &Port) -> u32 {
    match (nic.room_packets(), nic.capacity_packets()) {
        (Some(room), Some(cap)) => room.saturating_sub(cap / 2).min(u32::MAX as usize) as u32,
        _ => u32::MAX,
    }
}

/// Record new data reaching the receiver: silence tracking.
fn note_progress(conn: &mut Connection, now: SimTime, new_bytes: u64) {
    if new_bytes == 0 {
        return;
    }
    let gap = now.saturating_sub(conn.last_progress);
    conn.max_silence = conn.max_silence.max(gap);
    conn.last_progress = now;
}

/// Hash of a 5-tuple, computed once per flow (forwarding salts it per switch).
fn flow_hash(src: HostId, dst: HostId, sport: u16, dport: u16, proto: u8) -> u32 {
    splitmix64(
        ((src.0 as u64) << 32)
            ^ dst.0 as u64
            ^ ((sport as u64) << 48)
            ^ ((dport as u64) << 16)
            ^ proto as u64,
    ) as u32
}

/// The (sender, receiver) endpoints of a TCP carrier, or of an MPTCP one's first subflow.
fn tcp_ends(carrier: &Carrier, mptcp: &[MptcpConn]) -> Option<(EpId, EpId)> {
    match *carrier {
        Carrier::Tcp { sender, receiver } => Some((sender, receiver)),
        Carrier::Mptcp(m) => mptcp[m as usize].subflows.first().map(|s| (s.sender, s.receiver)),
        Carrier::Udp { .. } => None,
    }
}

/// A UDP datagram a host sends itself (CBR cross traffic, Kick-Ass's RTT indicators):
/// `total_len` IP bytes, the next IP id of its connection.
#[allow(clippy::too_many_arguments)]
fn udp_datagram(
    src: HostId,
    dst: HostId,
    total_len: u32,
    dont_fragment: bool,
    ip_id: &mut u16,
    conn: ConnId,
    flow_hash: u32,
    flags: MetaFlags,
) -> Packet {
    let ip = Ipv4Header {
        src,
        dst,
        id: *ip_id,
        dont_fragment,
        total_len: total_len as u16,
        protocol: PROTO_UDP,
        ttl: 64,
        ..Default::default()
    };
    *ip_id = ip_id.wrapping_add(1);
    let meta = PacketMeta { conn, flow_hash, flags, ..Default::default() };
    Packet { ip, meta, ..Default::default() }
}

#[inline]
fn free_dropped(p: PacketId, _cause: DropCause, pool: &mut PacketPool) {
    pool.free(p);
}
