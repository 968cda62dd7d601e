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

One concept per file: `spec` (what a simulation is built from), `wiring` (building it),
`flows` (connections, carriers, transfers), `event_loop` (the loop, forwarding and delivery),
`egress` (an endpoint's output into its host's NIC), `multipath` (MPTCP's subflows), and the
measurements: `measure`, `sampling`, `results`.
*/

#[cfg(routerlab_event_cycles)]
pub mod cycles;
mod egress;
mod event_loop;
mod flows;
mod measure;
mod multipath;
pub mod probe;
mod results;
mod sampling;
mod spec;
mod wiring;

pub use flows::{Carrier, Connection, Transfer};
pub use measure::{Histogram, LatencyProbeSpec, MeasureSpec};
pub use results::{FlowRow, LinkRow, Results, StageRows, Summary, TransferRow, jain_index};
pub use sampling::{FlowSampler, TimeSeries};
pub use spec::{LinkChange, OutputSpec, SimSpec};

use std::sync::Arc;

use crate::engine::EventQueue;
use crate::host::ShimChain;
use crate::ids::{ConnId, EpId, HostId, PacketId, PortId};
use crate::mptcp::MptcpConn;
use crate::net::Network;
use crate::net::fragment::Reassembler;
use crate::net::packet::FlowKey;
use crate::net::packet::PacketPool;
use crate::rng::SimRng;
use crate::tcp::{TcpConfig, TcpSocket};
use crate::units::SimTime;
use crate::workload::{Action, Generator};
use flows::tcp_ends;
use measure::Measurements;

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
