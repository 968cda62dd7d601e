//! Flow bookkeeping: connections, their carriers and transfers, and what is measured about
//! them as data arrives.

use std::collections::VecDeque;
use std::sync::Arc;

use super::{Endpoint, Simulation, SubflowOf};
use crate::engine::Event;
use crate::ids::{ConnId, EpId, HostId};
use crate::mptcp::MptcpConn;
use crate::net::packet::{PROTO_TCP, PROTO_UDP, flow_hash};
use crate::tcp::{TcpConfig, TcpSocket};
use crate::units::SimTime;
use crate::workload::{FlowSpec, Opener};

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
    pub(super) flow_hash: u32,
    pub(super) next_ip_id: u16,
    pub persistent: bool,
    /// Payload delivered in order, as last seen.
    pub(super) delivered: u64,
    pub(super) last_progress: SimTime,
    /// Longest time without the receiver getting new data so far.
    pub max_silence: SimTime,
    /// Bytes of the first write (None: bulk).
    pub size: Option<u64>,
    /// When the last data byte of a non-persistent flow reached the receiver.
    pub finished: Option<SimTime>,
    /// Transfers not yet completely delivered, in order.
    pub(super) pending: VecDeque<u32>,
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
    pub(super) target: u64,
    pub start: SimTime,
    pub end: Option<SimTime>,
}

impl Simulation {
    /// Create a TCP connection that opens at `f.start`; its first write (if any) is a transfer.
    pub fn add_connection(&mut self, f: &FlowSpec, generator: Option<u32>, tag: u64, seq: u32) -> ConnId {
        let c = ConnId(self.conns.len() as u32);
        // Ports: unique per connection, so 5-tuples differ and ECMP spreads flows.
        let (sport, dport) = (10_000 + (c.0 % 50_000) as u16, 80);
        let mut tcp = f.tcp.clone();
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
    pub(super) fn add_endpoints(
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
    pub(super) fn shared_tcp_config(&mut self, tcp: TcpConfig) -> Arc<TcpConfig> {
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

    pub(super) fn add_transfer(&mut self, c: ConnId, bytes: u64, tag: u64, seq: u32, start: SimTime) {
        let conn = &mut self.conns[c.idx()];
        conn.written += bytes;
        let id = self.transfers.len() as u32;
        self.transfers.push(Transfer { conn: c, seq, tag, bytes, target: conn.written, start, end: None });
        conn.pending.push_back(id);
    }

    pub(super) fn add_udp_flow(&mut self, src: HostId, dst: HostId, start: SimTime, group: u32) -> ConnId {
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

    /// The receiver of `c` has `delivered` bytes in order: complete transfers and the flow.
    pub(super) fn on_delivery(&mut self, c: ConnId, delivered: u64) {
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
}

/// Record new data reaching the receiver: silence tracking.
pub(super) fn note_progress(conn: &mut Connection, now: SimTime, new_bytes: u64) {
    if new_bytes == 0 {
        return;
    }
    let gap = now.saturating_sub(conn.last_progress);
    conn.max_silence = conn.max_silence.max(gap);
    conn.last_progress = now;
}

/// The (sender, receiver) endpoints of a TCP carrier, or of an MPTCP one's first subflow.
pub(super) fn tcp_ends(carrier: &Carrier, mptcp: &[MptcpConn]) -> Option<(EpId, EpId)> {
    match *carrier {
        Carrier::Tcp { sender, receiver } => Some((sender, receiver)),
        Carrier::Mptcp(m) => mptcp[m as usize].subflows.first().map(|s| (s.sender, s.receiver)),
        Carrier::Udp { .. } => None,
    }
}
