/*! Workloads: which connections exist, between which hosts, when they start and how much they send.

Static workloads expand into [`FlowSpec`]s — one per connection — before the run:

- **bulk**: long-lived flows that send for the whole run. Each starts at `start` plus a random
  jitter drawn uniformly from `[0, jitter)` (default 10 ms) from the workload's own random
  stream, so that flows do not start in lockstep and the seed matters.
- **fixed**: flows of `size` bytes; the sender writes them and closes. Jitter defaults to 0
  (synchronized starts, as incast needs).

Flow `i` of a workload uses the `i`-th source and destination (round-robin over the lists it
names, or over the topology's default pairs). Permutation traffic and flow lists from CSV files
also expand statically (in `scenario`).

Dynamic workloads are [`Generator`]s driven by the simulation: they open connections, write
more data on them, and send datagrams, in reaction to wake-ups they schedule and to the
completion of the transfers they started:

- [`onoff::OnOff`]: clients alternating between off periods and flows (Kick-Ass's workload);
- [`incast::Incast`]: synchronized rounds of blocks from many senders to one receiver;
- [`web::Web`]: web-session pools — pages of objects fetched over up to k parallel
  connections, with think times (TAQ's setting);
- [`cbr::Cbr`]: constant-bit-rate UDP cross traffic.

A generator acts only through its [`Ctx`]: it never sees the simulation, so it is a small,
testable state machine.
*/

pub mod cbr;
pub mod dist;
pub mod incast;
pub mod onoff;
pub mod web;

use crate::ids::{ConnId, HostId};
use crate::rng::SimRng;
use crate::tcp::TcpConfig;
use crate::units::SimTime;

/// Which end opens the connection.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum Opener {
    /// The data sender connects (an upload, a bulk transfer).
    #[default]
    Sender,
    /// The data receiver connects and the sender answers (a client fetching an object; the
    /// request itself is not modelled: the server sends once the handshake completes).
    Receiver,
}

/// One connection to simulate.
#[derive(Clone, Debug, PartialEq)]
pub struct FlowSpec {
    /// The host that sends the data.
    pub src: HostId,
    pub dst: HostId,
    pub start: SimTime,
    /// Bytes the sender writes at the start; `None` for a bulk flow that never ends.
    pub size: Option<u64>,
    /// Keep the connection open after the first write (more writes follow), instead of
    /// closing it.
    pub persistent: bool,
    pub opener: Opener,
    pub tcp: TcpConfig,
    /// Index of the workload (group) it belongs to.
    pub group: u32,
    /// A bulk flow's application stops writing at this time: what it has sent is completed,
    /// then the connection closes.
    pub stop: Option<SimTime>,
}

impl FlowSpec {
    /// A flow sent by `src`, opened by it, closed after `size` bytes (or bulk).
    pub fn new(
        src: HostId,
        dst: HostId,
        start: SimTime,
        size: Option<u64>,
        tcp: TcpConfig,
        group: u32,
    ) -> FlowSpec {
        FlowSpec { src, dst, start, size, persistent: false, opener: Opener::Sender, tcp, group, stop: None }
    }
}

/// Something a generator asks the simulation to do.
#[derive(Clone, Debug, PartialEq)]
pub enum Action {
    /// Create a connection (it starts at `flow.start`); its first write is a transfer with this
    /// tag and sequence number.
    Open { flow: Box<FlowSpec>, tag: u64, seq: u32 },
    /// Write `bytes` more on an open connection: a new transfer.
    Send { conn: ConnId, bytes: u64, tag: u64, seq: u32 },
    /// Create a UDP flow record (for datagrams and results).
    OpenUdp { src: HostId, dst: HostId, start: SimTime, group: u32 },
    /// Send one UDP datagram of `bytes` IP bytes on a UDP flow.
    Datagram { flow: ConnId, bytes: u32 },
    /// Call `on_wake(slot)` at `at`.
    Wake { at: SimTime, slot: u32 },
}

/// A generator's window on the simulation.
pub struct Ctx<'a> {
    pub now: SimTime,
    pub rng: &'a mut SimRng,
    actions: &'a mut Vec<Action>,
    next_conn: u32,
}

impl<'a> Ctx<'a> {
    /// `next_conn`: the id the next created connection will get.
    pub fn new(now: SimTime, rng: &'a mut SimRng, actions: &'a mut Vec<Action>, next_conn: u32) -> Ctx<'a> {
        Ctx { now, rng, actions, next_conn }
    }

    /// Open a connection; returns the id it will have.
    pub fn open(&mut self, flow: FlowSpec, tag: u64, seq: u32) -> ConnId {
        let id = ConnId(self.next_conn);
        self.next_conn += 1;
        self.actions.push(Action::Open { flow: Box::new(flow), tag, seq });
        id
    }

    pub fn send(&mut self, conn: ConnId, bytes: u64, tag: u64, seq: u32) {
        self.actions.push(Action::Send { conn, bytes, tag, seq });
    }

    pub fn open_udp(&mut self, src: HostId, dst: HostId, start: SimTime, group: u32) -> ConnId {
        let id = ConnId(self.next_conn);
        self.next_conn += 1;
        self.actions.push(Action::OpenUdp { src, dst, start, group });
        id
    }

    pub fn datagram(&mut self, flow: ConnId, bytes: u32) {
        self.actions.push(Action::Datagram { flow, bytes });
    }

    pub fn wake(&mut self, at: SimTime, slot: u32) {
        self.actions.push(Action::Wake { at, slot });
    }
}

/// Every dynamic workload.
#[derive(Clone, Debug)]
pub enum Generator {
    OnOff(onoff::OnOff),
    Incast(incast::Incast),
    Web(web::Web),
    Cbr(cbr::Cbr),
}

impl Generator {
    /// Called once, at time 0.
    pub fn start(&mut self, ctx: &mut Ctx) {
        match self {
            Generator::OnOff(g) => g.start(ctx),
            Generator::Incast(g) => g.start(ctx),
            Generator::Web(g) => g.start(ctx),
            Generator::Cbr(g) => g.start(ctx),
        }
    }

    pub fn on_wake(&mut self, slot: u32, ctx: &mut Ctx) {
        match self {
            Generator::OnOff(g) => g.on_wake(slot, ctx),
            Generator::Incast(g) => g.on_wake(slot, ctx),
            Generator::Web(g) => g.on_wake(slot, ctx),
            Generator::Cbr(g) => g.on_wake(slot, ctx),
        }
    }

    /// A transfer this generator started was completely delivered.
    pub fn on_done(&mut self, tag: u64, conn: ConnId, ctx: &mut Ctx) {
        match self {
            Generator::OnOff(g) => g.on_done(tag, ctx),
            Generator::Incast(g) => g.on_done(tag, conn, ctx),
            Generator::Web(g) => g.on_done(tag, ctx),
            Generator::Cbr(_) => {}
        }
    }
}

/// Parameters common to the static workloads.
#[derive(Clone, Debug, PartialEq)]
pub struct StaticFlows {
    pub flows: u32,
    /// (src, dst) for flow i is `pairs[i % pairs.len()]`.
    pub pairs: Vec<(HostId, HostId)>,
    pub start: Starts,
    pub jitter: SimTime,
    pub size: Option<u64>,
    pub tcp: TcpConfig,
    pub group: u32,
    /// Bulk flows: when their application stops writing.
    pub stop: Option<SimTime>,
}

/// Expand a bulk or fixed-size workload.
pub fn expand_static(w: &StaticFlows, rng: &mut SimRng) -> Vec<FlowSpec> {
    (0..w.flows as usize)
        .map(|i| {
            let (src, dst) = w.pairs[i % w.pairs.len()];
            let jitter = if w.jitter.0 > 0 { SimTime(rng.below(w.jitter.0)) } else { SimTime::ZERO };
            FlowSpec {
                stop: w.stop,
                ..FlowSpec::new(src, dst, w.start.at(i) + jitter, w.size, w.tcp.clone(), w.group)
            }
        })
        .collect()
}

/// When flows (or connections) start: all at one time, flow i at `first + i·step`, or flow i
/// at the i-th time of a list (as long as the flows; the scenario checks it).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Starts {
    At(SimTime),
    Every { first: SimTime, step: SimTime },
    List(Vec<SimTime>),
}

impl Starts {
    /// The start of flow `i`.
    pub fn at(&self, i: usize) -> SimTime {
        match self {
            Starts::At(t) => *t,
            Starts::Every { first, step } => SimTime(first.0.saturating_add(step.0.saturating_mul(i as u64))),
            Starts::List(l) => l[i],
        }
    }

    /// The latest start among `n` flows.
    pub fn last(&self, n: usize) -> SimTime {
        match self {
            Starts::List(l) => l.iter().copied().max().unwrap_or(SimTime::ZERO),
            _ => self.at(n.saturating_sub(1)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::StreamId;

    #[test]
    fn jitter_is_within_bounds_and_depends_on_seed() {
        let w = StaticFlows {
            flows: 100,
            pairs: vec![(HostId(0), HostId(1)), (HostId(2), HostId(3))],
            start: Starts::At(SimTime::from_secs(1)),
            jitter: SimTime::from_ms(10),
            size: None,
            tcp: TcpConfig::default(),
            group: 0,
            stop: None,
        };
        let a = expand_static(&w, &mut SimRng::new(1, StreamId::Workload(0)));
        let b = expand_static(&w, &mut SimRng::new(2, StreamId::Workload(0)));
        assert!(a.iter().all(|f| f.start >= SimTime::from_secs(1) && f.start < SimTime::from_ms(1010)));
        assert_ne!(
            a.iter().map(|f| f.start).collect::<Vec<_>>(),
            b.iter().map(|f| f.start).collect::<Vec<_>>()
        );
        assert_eq!(a[1].src, HostId(2));
        assert_eq!(a[2].src, HostId(0));
    }
}
