//! A network on real datagrams, without I/O: the simulator's `Network` — every switch's
//! forwarding, every port's queue discipline and stages, serialization at each link's rate and
//! its propagation delay — driven by a caller that brings the hosts' datagrams and the time, as
//! `tests/pipeline.rs` drives one port. Only the hosts are outside: real ones.
//!
//! Contract:
//! - [`Router::receive`] reads a datagram host `h` sent ([`crate::frame`]) and offers it, at
//!   `now`, to `h`'s NIC port (the access link's rate, delay and queue, as in the simulator).
//!   A datagram that cannot be read, or comes from or goes to a host the network lacks, is
//!   refused with the reason and never enters a port.
//! - [`Router::next_event`] says when the router next needs the caller; [`Router::advance`]
//!   runs everything due up to `now`, in time order: a datagram at a switch is forwarded by the
//!   switch's policy (ECMP, spraying) to its next port; one at a host is handed back — its
//!   bytes ([`crate::frame::encode`]), the host, and the time it was due there: the ideal
//!   schedule the caller is to keep. What a caller does late is its own timing error, to
//!   measure against `due`.
//! - Every datagram's bytes are held from `receive` until the last of its pieces has reached a
//!   host or been dropped; [`Router::held`] counts them (zero once the network is idle).
//! - Ports asked to ([`Router::capture`]) record each packet as it finishes transmission, as
//!   the simulator's `[output] pcap` does; [`Router::pcaps`] writes them as its pcap files.

use routerlab::engine::{Event, EventQueue};
use routerlab::ids::{HostId, NodeId, PacketId};
use routerlab::net::Network;
use routerlab::net::packet::{IPV4_HEADER_BYTES, Packet, PacketPool};
use routerlab::qdisc::{DropCause, Qdisc};
use routerlab::units::SimTime;

use crate::frame::{Decoder, FrameError, encode};

/// A datagram that reached a host.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Departure {
    pub host: HostId,
    /// When it was due there: every hop's queueing, serialization and propagation done.
    pub due: SimTime,
    pub bytes: Vec<u8>,
}

/// Why a datagram was not taken.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Refused {
    Unreadable(FrameError),
    /// It came from, or is addressed to, a host the network does not have.
    UnknownHost(HostId),
}

/// A datagram's bytes, held while pieces of it are in the router.
#[derive(Debug)]
struct Held {
    bytes: Vec<u8>,
    /// IP payload bytes not yet accounted for by a departure or a drop.
    outstanding: i64,
}

/// A network of switches between real hosts.
pub struct Router {
    net: Network,
    pool: PacketPool,
    events: EventQueue,
    decoder: Decoder,
    held: Vec<Option<Held>>,
    free_slots: Vec<u32>,
    /// What the ports let go of, until its bytes are settled (the ports count it too).
    dropped: Vec<(PacketId, DropCause)>,
    /// Datagrams a switch had no route for.
    pub no_route_drops: u64,
    /// Per port: whether its transmissions are captured; what was, up to `max_capture`.
    capturing: Vec<bool>,
    captured: Vec<(usize, SimTime, Packet)>,
    max_capture: usize,
    snaplen: u32,
}

impl Router {
    /// The switches and links of `net` (from `Network::build`), its hosts outside.
    pub fn new(mut net: Network) -> Router {
        let mut events = EventQueue::new();
        for p in &mut net.ports {
            p.on_stage_timer(SimTime::ZERO, &mut events); // the stages' first timers
        }
        Router {
            net,
            pool: PacketPool::new(),
            events,
            decoder: Decoder::new(),
            held: Vec::new(),
            free_slots: Vec::new(),
            dropped: Vec::new(),
            no_route_drops: 0,
            capturing: Vec::new(),
            captured: Vec::new(),
            max_capture: 0,
            snaplen: 0,
        }
    }

    /// Capture the transmissions of `ports`, at most `max_packets` in all, `snaplen` bytes each.
    pub fn capture(&mut self, ports: &[routerlab::ids::PortId], snaplen: u32, max_packets: usize) {
        self.capturing = vec![false; self.net.ports.len()];
        for p in ports {
            self.capturing[p.idx()] = true;
        }
        (self.snaplen, self.max_capture) = (snaplen, max_packets);
    }

    /// The captures as pcap files: `(port name, file bytes)`, as the simulator writes them.
    pub fn pcaps(&self) -> Vec<(String, Vec<u8>)> {
        (0..self.capturing.len())
            .filter(|&i| self.capturing[i])
            .map(|i| {
                let recs = self.captured.iter().filter(|c| c.0 == i).map(|(_, t, p)| (*t, p));
                (self.net.port_names[i].clone(), routerlab::net::pcap::write(recs, self.snaplen))
            })
            .collect()
    }

    /// `sent` went on port `port`'s wire: captured if the port is.
    fn on_transmit(&mut self, port: usize, sent: Option<PacketId>) {
        if let Some(p) = sent
            && self.capturing.get(port).copied().unwrap_or(false)
            && self.captured.len() < self.max_capture
        {
            self.captured.push((port, self.net.ports[port].busy_until(), *self.pool.get(p)));
        }
    }

    pub fn network(&self) -> &Network {
        &self.net
    }

    /// Datagrams whose bytes the router holds.
    pub fn held(&self) -> usize {
        self.held.iter().filter(|h| h.is_some()).count()
    }

    /// Offer a datagram host `from` sent, at `now`.
    pub fn receive(&mut self, now: SimTime, from: HostId, datagram: &[u8]) -> Result<(), Refused> {
        let Some(&nic) = self.net.host_nic.get(from.idx()) else { return Err(Refused::UnknownHost(from)) };
        let slot = self.free_slots.pop().unwrap_or(self.held.len() as u32);
        let p = self.decoder.decode(datagram, slot).map_err(|e| {
            self.free_slots.push(slot);
            Refused::Unreadable(e)
        })?;
        if p.ip.dst.idx() >= self.net.hosts.len() {
            self.free_slots.push(slot);
            return Err(Refused::UnknownHost(p.ip.dst));
        }
        let outstanding = i64::from(p.ip.total_len) - i64::from(IPV4_HEADER_BYTES);
        let held = Some(Held { bytes: datagram[..usize::from(p.ip.total_len)].to_vec(), outstanding });
        match self.held.get_mut(slot as usize) {
            Some(h) => *h = held,
            None => self.held.push(held),
        }
        let pkt = self.pool.alloc(p);
        self.enqueue(now, nic.idx(), pkt);
        Ok(())
    }

    /// Offer `pkt` to port `port`.
    fn enqueue(&mut self, now: SimTime, port: usize, pkt: PacketId) {
        let Router { net, pool, events, dropped, .. } = self;
        let note = &mut |p, cause, _: &mut PacketPool| dropped.push((p, cause));
        let sent = net.ports[port].enqueue(now, pkt, pool, events, &mut net.drops, note);
        self.on_transmit(port, sent);
        self.settle_drops();
    }

    /// When the router next needs `advance`, if it holds anything.
    pub fn next_event(&mut self) -> Option<SimTime> {
        self.events.peek().map(|(at, _)| at)
    }

    /// Run what is due up to `now`, appending the datagrams that reached their link's far end.
    pub fn advance(&mut self, now: SimTime, out: &mut Vec<Departure>) {
        while let Some((at, _)) = self.events.peek() {
            if at > now {
                break;
            }
            let (at, event) = self.events.pop().unwrap();
            match event {
                Event::TxDone(port) => {
                    let Router { net, pool, events, dropped, .. } = self;
                    let note = &mut |p, cause, _: &mut PacketPool| dropped.push((p, cause));
                    let sent = net.ports[port.idx()].on_tx_done(at, pool, events, &mut net.drops, note);
                    self.on_transmit(port.idx(), sent);
                    self.settle_drops();
                }
                Event::Arrive(port, p, _) => self.arrive(at, port.idx(), p, out),
                Event::PortTimer(port) => self.net.ports[port.idx()].on_stage_timer(at, &mut self.events),
                other => unreachable!("a network without endpoints schedules no {other:?}"),
            }
        }
    }

    /// `p` reached the far end of `port`'s link at `now`: a host takes it, a switch forwards it.
    fn arrive(&mut self, now: SimTime, port: usize, p: PacketId, out: &mut Vec<Departure>) {
        let link = &mut self.net.ports[port];
        link.on_arrive(p, &mut self.pool, &mut self.events);
        let (to, up, reverse) = (link.to, link.up, link.reverse_observer);
        if !up {
            self.net.ports[port].link_drops.link_down_drops += 1;
            self.settle(p);
            return;
        }
        if let Some(q) = reverse {
            self.net.ports[q.idx()].qdisc_mut().observe_reverse(now, self.pool.get(p));
        }
        self.pool.get_mut(p).meta.hops += 1;
        match self.net.node_host[to.idx()] {
            Some(host) => out.push(self.depart(host, now, p)),
            None => self.forward(now, to, p),
        }
    }

    /// At switch `node`: on to the port its forwarding policy chooses.
    fn forward(&mut self, now: SimTime, node: NodeId, p: PacketId) {
        let pkt = self.pool.get(p);
        let hops = self.net.routes.next_hops(node, pkt.ip.dst);
        if hops.is_empty() {
            self.no_route_drops += 1;
            self.settle(p);
            return;
        }
        let out = self.net.nodes[node.idx()].forwarder.choose(now, hops, pkt, &self.net.ports);
        self.enqueue(now, out.idx(), p);
    }

    /// `p` reached `host` at `due`: its bytes, and its slot's account.
    fn depart(&mut self, host: HostId, due: SimTime, p: PacketId) -> Departure {
        let pkt = *self.pool.get(p);
        let held = self.held[pkt.meta.dst_ep.idx()].as_ref().expect("a departing packet's bytes are held");
        let bytes = encode(&pkt, &held.bytes);
        self.settle(p);
        Departure { host, due, bytes }
    }

    /// Free what the ports dropped, and settle their bytes.
    fn settle_drops(&mut self) {
        while let Some((p, _cause)) = self.dropped.pop() {
            self.settle(p);
        }
    }

    /// `p` left the network (at a host, or dropped): free it, and once every piece of its
    /// datagram has, the datagram's bytes. A cut segment stands for its whole datagram.
    fn settle(&mut self, p: PacketId) {
        let pkt: Packet = *self.pool.get(p);
        self.pool.free(p);
        let slot = pkt.meta.dst_ep.idx();
        let h = self.held[slot].as_mut().expect("held");
        h.outstanding -= if pkt.tcp.cut && pkt.has_l4_header() {
            h.outstanding
        } else {
            i64::from(pkt.ip.total_len) - i64::from(IPV4_HEADER_BYTES)
        };
        if h.outstanding <= 0 {
            self.held[slot] = None;
            self.free_slots.push(slot as u32);
        }
    }
}

#[cfg(test)]
mod tests;
