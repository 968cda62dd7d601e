//! A router on real datagrams, without I/O: the simulator's ports — queue disciplines, stages,
//! serialization at the link's rate, propagation delay — driven by a caller that brings the
//! datagrams and the time, as `tests/pipeline.rs` drives one port.
//!
//! Contract:
//! - [`Router::receive`] reads a datagram ([`crate::frame`]) and offers it, at `now`, to the
//!   port its destination host is routed by. A datagram that cannot be read, or whose host has
//!   no route, is refused with the reason and never enters a port.
//! - [`Router::next_event`] says when the router next needs the caller; [`Router::advance`]
//!   runs everything due up to `now`, in time order, and hands back each datagram that
//!   reached the far end of its link: its bytes ([`crate::frame::encode`]), the port, and the
//!   time it was due there — the ideal schedule the caller is to keep. What a caller does late
//!   is its own timing error, to measure against `due`.
//! - Every datagram's bytes are held from `receive` until the last of its pieces has left or
//!   been dropped; [`Router::held`] counts them (zero once the router is idle).

use routerlab::engine::{Event, EventQueue};
use routerlab::ids::{HostId, PacketId};
use routerlab::net::packet::{IPV4_HEADER_BYTES, PacketPool};
use routerlab::net::port::Port;
use routerlab::qdisc::{DropCause, DropList};
use routerlab::units::SimTime;

use crate::frame::{Decoder, FrameError, encode};

/// A datagram at the far end of its port's link.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Departure {
    /// Index of the port (as given to [`Router::new`]).
    pub port: usize,
    /// When it was due at the far end: serialization and propagation done.
    pub due: SimTime,
    pub bytes: Vec<u8>,
}

/// Why a datagram was not taken.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Refused {
    Unreadable(FrameError),
    NoRoute(HostId),
}

/// A datagram's bytes, held while pieces of it are in the router.
#[derive(Debug)]
struct Held {
    bytes: Vec<u8>,
    /// IP payload bytes not yet accounted for by a departure or a drop.
    outstanding: i64,
}

/// Ports and a route to each host.
#[derive(Debug)]
pub struct Router {
    ports: Vec<Port>,
    /// The port index each destination host is reached by.
    routes: Vec<Option<usize>>,
    pool: PacketPool,
    events: EventQueue,
    drops: DropList,
    decoder: Decoder,
    held: Vec<Option<Held>>,
    free_slots: Vec<u32>,
    /// Drops so far, by cause (the ports count them too, in their statistics).
    dropped: Vec<(PacketId, DropCause)>,
}

impl Router {
    /// A router of `ports` (each port's `id` must be its index) reaching host `h` by port
    /// `routes[h]`.
    pub fn new(ports: Vec<Port>, routes: Vec<Option<usize>>) -> Router {
        for (i, p) in ports.iter().enumerate() {
            assert_eq!(p.id.idx(), i, "a port's id is its index");
        }
        let mut router = Router {
            ports,
            routes,
            pool: PacketPool::new(),
            events: EventQueue::new(),
            drops: DropList::new(),
            decoder: Decoder::new(),
            held: Vec::new(),
            free_slots: Vec::new(),
            dropped: Vec::new(),
        };
        for p in &mut router.ports {
            p.on_stage_timer(SimTime::ZERO, &mut router.events); // the stages' first timers
        }
        router
    }

    pub fn ports(&self) -> &[Port] {
        &self.ports
    }

    /// Datagrams whose bytes the router holds.
    pub fn held(&self) -> usize {
        self.held.iter().filter(|h| h.is_some()).count()
    }

    /// Offer a datagram that arrived at `now`.
    pub fn receive(&mut self, now: SimTime, datagram: &[u8]) -> Result<(), Refused> {
        let slot = self.free_slots.pop().unwrap_or(self.held.len() as u32);
        let p = self.decoder.decode(datagram, slot).map_err(|e| {
            self.free_slots.push(slot);
            Refused::Unreadable(e)
        })?;
        let Some(port) = self.routes.get(p.ip.dst.idx()).copied().flatten() else {
            self.free_slots.push(slot);
            return Err(Refused::NoRoute(p.ip.dst));
        };
        let outstanding = i64::from(p.ip.total_len) - i64::from(IPV4_HEADER_BYTES);
        let held = Some(Held { bytes: datagram[..usize::from(p.ip.total_len)].to_vec(), outstanding });
        match self.held.get_mut(slot as usize) {
            Some(h) => *h = held,
            None => self.held.push(held),
        }
        let pkt = self.pool.alloc(p);
        let Router { ports, pool, events, drops, dropped, .. } = self;
        ports[port].enqueue(now, pkt, pool, events, drops, &mut |p, cause, _| dropped.push((p, cause)));
        self.settle_drops();
        Ok(())
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
            let Router { ports, pool, events, drops, dropped, .. } = self;
            let mut note = |p, cause, _: &mut PacketPool| dropped.push((p, cause));
            match event {
                Event::TxDone(port) => {
                    ports[port.idx()].on_tx_done(at, pool, events, drops, &mut note);
                }
                Event::Arrive(port, p, _) => {
                    ports[port.idx()].on_arrive(p, pool, events);
                    out.push(self.depart(port.idx(), at, p));
                }
                Event::PortTimer(port) => ports[port.idx()].on_stage_timer(at, events),
                other => unreachable!("a router schedules no {other:?}"),
            }
            self.settle_drops();
        }
    }

    /// `p` reached the far end of `port`'s link at `due`: its bytes, and its slot's account.
    fn depart(&mut self, port: usize, due: SimTime, p: PacketId) -> Departure {
        let pkt = *self.pool.get(p);
        self.pool.free(p);
        let slot = pkt.meta.dst_ep.idx();
        let held = self.held[slot].as_ref().expect("a departing packet's bytes are held");
        let bytes = encode(&pkt, &held.bytes);
        self.account(slot, &pkt);
        Departure { port, due, bytes }
    }

    /// Free what the ports dropped, and their slots' share.
    fn settle_drops(&mut self) {
        while let Some((p, _cause)) = self.dropped.pop() {
            let pkt = *self.pool.get(p);
            self.pool.free(p);
            self.account(pkt.meta.dst_ep.idx(), &pkt);
        }
    }

    /// A piece of a held datagram left or was dropped: once all of it has, free its bytes. A
    /// cut segment stands for its whole datagram.
    fn account(&mut self, slot: usize, pkt: &routerlab::net::packet::Packet) {
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
