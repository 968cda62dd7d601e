//! A two-socket harness for protocol tests: sockets `a` (client) and `b` (server) joined by a
//! delay line of infinite rate, with a filter that may drop chosen segments. Time advances from
//! event to event (deliveries and the sockets' own timers), exactly as the simulator does.

use super::TcpConfig;
use super::socket::{Outgoing, TcpSocket};
use crate::net::packet::Ecn;
use crate::units::SimTime;

/// Which way a segment travels.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Dir {
    AtoB,
    BtoA,
}

/// A segment on the wire, with its send time.
#[derive(Clone, Copy, Debug)]
pub struct Sent {
    pub at: SimTime,
    pub dir: Dir,
    pub out: Outgoing,
}

/// Decides whether to drop a segment: (direction, index, segment). The index counts data
/// segments (payload > 0) and control segments (SYN, pure ACKs) separately, per direction: data
/// index 0 is the first data segment, control index 0 the SYN.
pub type DropFilter = Box<dyn FnMut(Dir, usize, &Outgoing) -> bool>;
/// Rewrites a segment's ECN field in flight.
pub type EcnMarker = Box<dyn FnMut(Dir, usize, &Outgoing) -> Ecn>;
/// Rewrites any field of a segment in flight (e.g. a router stamping a rate header).
pub type Rewriter = Box<dyn FnMut(Dir, &mut Outgoing)>;
/// The payload of the leading fragment a segment arrives in, if a router fragmented it.
pub type Fragmenter = Box<dyn FnMut(Dir, usize, &Outgoing) -> Option<u32>>;
/// Extra delay for a segment (reordering it behind later ones).
pub type Holder = Box<dyn FnMut(Dir, usize, &Outgoing) -> SimTime>;

pub struct Harness {
    pub a: TcpSocket,
    pub b: TcpSocket,
    pub now: SimTime,
    /// One-way delay.
    pub delay: SimTime,
    /// Serialization time per data segment from a to b (0 = infinite rate). Spacing data
    /// packets models a bottleneck well enough for ACK clocking.
    pub spacing: SimTime,
    wire: Vec<(SimTime, u64, Dir, Outgoing, Option<u32>)>,
    seq: u64,
    last_a_departure: SimTime,
    /// Every segment sent, in order (dropped ones included).
    pub log: Vec<Sent>,
    /// Return true to drop a segment; gets the index of the segment among those sent in `dir`.
    pub drop: DropFilter,
    /// Rewrite a segment's ECN field in flight (e.g. to mark CE).
    pub mark: EcnMarker,
    /// Return true to have a switch cut a data segment's payload: it arrives as a header.
    pub cut: DropFilter,
    pub rewrite: Rewriter,
    pub fragment: Fragmenter,
    pub hold: Holder,
    /// Signal datagrams the endpoint parts sent: (time, direction, size).
    pub indicators: Vec<(SimTime, Dir, u32)>,
    /// Segments sent so far, per direction: [control, data].
    sent_count: [[usize; 2]; 2],
}

impl Harness {
    pub fn new(cfg_a: TcpConfig, cfg_b: TcpConfig, delay: SimTime) -> Harness {
        let mut b = TcpSocket::new(cfg_b, 80, 10_000);
        b.listen();
        Harness {
            a: TcpSocket::new(cfg_a, 10_000, 80),
            b,
            now: SimTime::ZERO,
            delay,
            spacing: SimTime::ZERO,
            wire: Vec::new(),
            seq: 0,
            last_a_departure: SimTime::ZERO,
            log: Vec::new(),
            drop: Box::new(|_, _, _| false),
            mark: Box::new(|_, _, o| o.ecn),
            cut: Box::new(|_, _, _| false),
            rewrite: Box::new(|_, _| {}),
            fragment: Box::new(|_, _, _| None),
            hold: Box::new(|_, _, _| SimTime::ZERO),
            indicators: Vec::new(),
            sent_count: [[0; 2]; 2],
        }
    }

    /// Open the connection and have `a` send `bytes` (then close if `close`).
    pub fn start(&mut self, bytes: u64, close: bool) {
        self.a.connect();
        self.a.send(bytes);
        if close {
            self.a.close();
        }
        self.poll();
    }

    /// Let both sockets send what they may now (after the test changed one).
    pub fn poll(&mut self) {
        let now = self.now;
        let mut outs: Vec<(Dir, Outgoing)> = Vec::new();
        self.a.poll_transmit(now, &mut |o: &Outgoing| outs.push((Dir::AtoB, *o)));
        self.b.poll_transmit(now, &mut |o: &Outgoing| outs.push((Dir::BtoA, *o)));
        for (dir, sock) in [(Dir::AtoB, &mut self.a), (Dir::BtoA, &mut self.b)] {
            if let Some(size) = sock.poll_signal_datagram(now) {
                self.indicators.push((now, dir, size));
            }
        }
        for (dir, mut o) in outs {
            let kind = (o.seg.payload_len > 0) as usize;
            let idx = self.sent_count[dir as usize][kind];
            self.sent_count[dir as usize][kind] += 1;
            self.log.push(Sent { at: now, dir, out: o });
            if (self.drop)(dir, idx, &o) {
                continue;
            }
            o.ecn = (self.mark)(dir, idx, &o);
            if o.seg.payload_len > 0 && (self.cut)(dir, idx, &o) {
                o.seg.cut = true;
            }
            (self.rewrite)(dir, &mut o);
            let lead = (self.fragment)(dir, idx, &o);
            let held = (self.hold)(dir, idx, &o);
            let mut depart = now;
            if dir == Dir::AtoB && o.seg.payload_len > 0 && self.spacing > SimTime::ZERO {
                depart = self.last_a_departure.max(now) + self.spacing;
                self.last_a_departure = depart;
            }
            self.wire.push((depart + self.delay + held, self.seq, dir, o, lead));
            self.seq += 1;
        }
    }

    /// Advance to `until`, delivering segments and firing timers.
    pub fn run_until(&mut self, until: SimTime) {
        loop {
            let next_wire = self.wire.iter().map(|w| (w.0, w.1)).min();
            let next_timer = [self.a.poll_at(), self.b.poll_at()].into_iter().flatten().min();
            let t = match (next_wire.map(|w| w.0), next_timer) {
                (Some(a), Some(b)) => a.min(b),
                (Some(a), None) => a,
                (None, Some(b)) => b,
                (None, None) => break,
            };
            if t > until {
                break;
            }
            self.now = t.max(self.now);
            // Deliver everything due now, in send order.
            let mut due: Vec<(SimTime, u64, Dir, Outgoing, Option<u32>)> = Vec::new();
            self.wire.retain(|w| {
                if w.0 <= t {
                    due.push(*w);
                    false
                } else {
                    true
                }
            });
            due.sort_by_key(|w| (w.0, w.1));
            // Like the simulator: each arrival is followed by the sockets' output.
            for (_, _, dir, o, lead) in due {
                let to = if dir == Dir::AtoB { &mut self.b } else { &mut self.a };
                if let Some(len) = lead {
                    to.on_leading_fragment(len);
                }
                to.on_segment(self.now, o.ecn, &o.seg);
                self.poll();
            }
            if self.a.poll_at().is_some_and(|x| x <= self.now) {
                self.a.on_timer(self.now);
            }
            if self.b.poll_at().is_some_and(|x| x <= self.now) {
                self.b.on_timer(self.now);
            }
            self.poll();
        }
        self.now = self.now.max(until);
    }

    /// Data segments a sent (retransmissions included), in order.
    pub fn data_sent(&self) -> impl Iterator<Item = &Sent> {
        self.log.iter().filter(|s| s.dir == Dir::AtoB && s.out.seg.payload_len > 0)
    }
}
