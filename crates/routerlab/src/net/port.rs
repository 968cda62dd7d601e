//! A port: one direction of a full-duplex link — its queue, its transmitter and its pipe.
//!
//! ```text
//!   arrival ──▶ [ qdisc ] ──dequeue──▶ transmitter ──(serialization)──▶ pipe ──(delay)──▶ far node
//! ```
//! The transmitter holds at most one packet; when it finishes (`TxDone`) the packet enters the
//! pipe, which is a FIFO because every packet on a link takes the same propagation delay, so
//! only the head of the pipe needs a pending `Arrive` event. A busy port therefore has at most
//! two events in the queue, whatever the number of packets it holds.
//!
//! Serialization time counts the IP datagram plus the link's framing overhead (default 0;
//! `"38B"` models Ethernet's header, FCS, preamble and inter-frame gap).

use std::collections::VecDeque;

use crate::engine::{Event, EventQueue};
use crate::ids::{NodeId, PacketId, PortId};
use crate::net::fragment::fragment_to_mtu;
use crate::net::packet::PacketPool;
use crate::net::stage::{PortStage, QueueView};
use crate::qdisc::{AnyQdisc, DropCause, Qdisc, Verdict};
use crate::rng::SimRng;
use crate::units::{Rate, SimTime};

/// Counters of a port's transmitter and link.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct PortStats {
    pub tx_packets: u64,
    /// IP bytes sent (framing excluded).
    pub tx_bytes: u64,
    /// Time the transmitter was busy.
    pub busy: SimTime,
    pub link_losses: u64,
    pub link_down_drops: u64,
    /// ∫ queue length dt, in packet·ps and byte·ps (for time-averaged occupancy).
    pub queue_area_packets: u128,
    pub queue_area_bytes: u128,
    /// When the queue length last changed.
    pub queue_changed_at: SimTime,
}

#[derive(Debug)]
pub struct Port {
    pub id: PortId,
    pub from: NodeId,
    pub to: NodeId,
    pub rate: Rate,
    pub delay: SimTime,
    pub framing_bytes: u32,
    /// Largest IP datagram the link carries; larger ones are fragmented at dequeue (or dropped
    /// if DF is set).
    pub mtu: u32,
    /// Independent random loss probability per packet (an impairment).
    pub loss: f64,
    pub up: bool,
    pub qdisc: AnyQdisc,
    /// Optional stage around the queue (admission before, transform after).
    stage: Option<Box<dyn PortStage>>,
    /// Earliest pending stage timer.
    pub stage_timer_at: Option<SimTime>,
    /// Packets taken from the queue and transformed, not yet handed to the MTU check.
    staged: VecDeque<PacketId>,
    tx: Option<PacketId>,
    /// Packets already taken from the queue and waiting for the transmitter (the fragments of
    /// a datagram, sent back to back).
    ready: VecDeque<PacketId>,
    pipe: VecDeque<(SimTime, PacketId)>,
    /// Packets a dequeue-side stage dropped, drained by the caller.
    drops: Vec<(PacketId, DropCause)>,
    loss_rng: SimRng,
    pub stats: PortStats,
}

impl Port {
    #[allow(clippy::too_many_arguments)]
    pub fn new(
        id: PortId,
        from: NodeId,
        to: NodeId,
        rate: Rate,
        delay: SimTime,
        framing_bytes: u32,
        mtu: u32,
        loss: f64,
        qdisc: AnyQdisc,
        loss_rng: SimRng,
    ) -> Port {
        Port {
            id,
            from,
            to,
            rate,
            delay,
            framing_bytes,
            mtu,
            loss,
            up: true,
            qdisc,
            stage: None,
            stage_timer_at: None,
            staged: VecDeque::new(),
            tx: None,
            ready: VecDeque::new(),
            pipe: VecDeque::new(),
            drops: Vec::new(),
            loss_rng,
            stats: PortStats::default(),
        }
    }

    /// Install a stage around the queue (before the run starts).
    pub fn set_stage(&mut self, stage: Box<dyn PortStage>) {
        self.stage = Some(stage);
    }

    pub fn stage(&self) -> Option<&dyn PortStage> {
        self.stage.as_deref()
    }

    /// What a stage sees of this port.
    pub fn view(&self) -> QueueView {
        QueueView {
            packets: self.qdisc.len_packets(),
            bytes: self.qdisc.len_bytes(),
            capacity_packets: self.qdisc.capacity_packets(),
            rate: self.rate,
        }
    }

    /// Re-arm the stage's timer if it wants an earlier wake-up than the one pending.
    fn arm_stage_timer(&mut self, now: SimTime, events: &mut EventQueue) {
        if let Some(t) = self.stage.as_ref().and_then(|s| s.poll_at())
            && self.stage_timer_at.is_none_or(|s| t < s)
        {
            let t = t.max(now);
            events.push(t, Event::PortTimer(self.id));
            self.stage_timer_at = Some(t);
        }
    }

    /// The stage's timer fired.
    pub fn on_stage_timer(&mut self, now: SimTime, events: &mut EventQueue) {
        if self.stage_timer_at == Some(now) {
            self.stage_timer_at = None;
        }
        let view = self.view();
        if let Some(s) = &mut self.stage
            && s.poll_at().is_some_and(|t| t <= now)
        {
            s.on_timer(now, &view);
        }
        self.arm_stage_timer(now, events);
    }

    /// Packets waiting in the queue (not counting the one being transmitted).
    pub fn queue_packets(&self) -> usize {
        self.qdisc.len_packets()
    }
    pub fn queue_bytes(&self) -> u64 {
        self.qdisc.len_bytes()
    }
    pub fn is_busy(&self) -> bool {
        self.tx.is_some()
    }
    /// Packets on the wire.
    pub fn in_pipe(&self) -> usize {
        self.pipe.len()
    }

    /// Add the time since the last change, at the current length, to the occupancy integrals.
    #[inline]
    fn account_queue(&mut self, now: SimTime) {
        let dt = (now - self.stats.queue_changed_at).0 as u128;
        if dt > 0 {
            self.stats.queue_area_packets += self.qdisc.len_packets() as u128 * dt;
            self.stats.queue_area_bytes += self.qdisc.len_bytes() as u128 * dt;
            self.stats.queue_changed_at = now;
        }
    }

    /// Time-averaged number of packets waiting, over [0, now].
    pub fn mean_queue_packets(&self, now: SimTime) -> f64 {
        let area = self.stats.queue_area_packets
            + self.qdisc.len_packets() as u128 * (now - self.stats.queue_changed_at).0 as u128;
        if now.0 == 0 { 0.0 } else { area as f64 / now.0 as f64 }
    }

    /// Time-averaged bytes waiting, over [0, now].
    pub fn mean_queue_bytes(&self, now: SimTime) -> f64 {
        let area = self.stats.queue_area_bytes
            + self.qdisc.len_bytes() as u128 * (now - self.stats.queue_changed_at).0 as u128;
        if now.0 == 0 { 0.0 } else { area as f64 / now.0 as f64 }
    }

    /// Offer a packet. Packets the port lets go of are passed to `dropped`, which must free them.
    #[inline]
    pub fn enqueue(
        &mut self,
        now: SimTime,
        pkt: PacketId,
        pool: &mut PacketPool,
        events: &mut EventQueue,
        dropped: &mut impl FnMut(PacketId, DropCause, &mut PacketPool),
    ) {
        if !self.up {
            self.stats.link_down_drops += 1;
            dropped(pkt, DropCause::LinkDown, pool);
            return;
        }
        self.account_queue(now);
        if self.stage.is_some() {
            let view = self.view();
            let verdict = self.stage.as_mut().unwrap().on_arrival(now, pkt, pool, &view);
            self.arm_stage_timer(now, events);
            if let Err(cause) = verdict {
                dropped(pkt, cause, pool);
                return;
            }
        }
        match self.qdisc.enqueue(now, pkt, pool, &mut self.drops) {
            Verdict::Enqueued => {}
            Verdict::Dropped(p, cause) => dropped(p, cause, pool),
            Verdict::Cut(_, _) => {} // the cut packet is queued; the qdisc counted the cut
            Verdict::PushedOut(victim, cause) => dropped(victim, cause, pool),
        }
        for (p, cause) in self.drops.drain(..) {
            dropped(p, cause, pool);
        }
        if self.tx.is_none() {
            self.start_tx(now, pool, events, dropped);
        }
    }

    /// Take the next packet from the queue onto the transmitter, if any.
    fn start_tx(
        &mut self,
        now: SimTime,
        pool: &mut PacketPool,
        events: &mut EventQueue,
        dropped: &mut impl FnMut(PacketId, DropCause, &mut PacketPool),
    ) {
        debug_assert!(self.tx.is_none());
        self.account_queue(now);
        let next = match self.ready.pop_front() {
            Some(p) => Some(p),
            None => loop {
                let p = match self.staged.pop_front() {
                    Some(p) => p,
                    None => {
                        let Some(p) = self.qdisc.dequeue(now, pool, &mut self.drops) else { break None };
                        if self.stage.is_none() {
                            p
                        } else {
                            let view = self.view();
                            let stage = self.stage.as_mut().unwrap();
                            stage.on_departure(now, p, pool, &view, &mut self.staged, &mut self.drops);
                            self.arm_stage_timer(now, events);
                            match self.staged.pop_front() {
                                Some(p) => p,
                                None => continue,
                            }
                        }
                    }
                };
                if pool.get(p).ip_len() <= self.mtu {
                    break Some(p);
                }
                // Dequeue-side transform: fragment to the link's MTU, fragments back to back.
                if fragment_to_mtu(pool, p, self.mtu, &mut self.ready) {
                    break self.ready.pop_front();
                }
                self.drops.push((p, DropCause::FragmentationNeeded));
            },
        };
        for (p, cause) in self.drops.drain(..) {
            dropped(p, cause, pool);
        }
        if let Some(p) = next {
            let wire = pool.get(p).ip_len() as u64 + self.framing_bytes as u64;
            let t = self.rate.tx_time(wire);
            self.tx = Some(p);
            self.stats.busy += t;
            events.push(now + t, Event::TxDone(self.id));
        }
    }

    /// The transmitter finished: put the packet on the wire and start the next one. Returns the
    /// packet that went on the wire (None if the link dropped it).
    #[inline]
    pub fn on_tx_done(
        &mut self,
        now: SimTime,
        pool: &mut PacketPool,
        events: &mut EventQueue,
        dropped: &mut impl FnMut(PacketId, DropCause, &mut PacketPool),
    ) -> Option<PacketId> {
        let p = self.tx.take().expect("TxDone without a packet");
        self.stats.tx_packets += 1;
        self.stats.tx_bytes += pool.get(p).ip_len() as u64;
        let sent = if !self.up {
            self.stats.link_down_drops += 1;
            dropped(p, DropCause::LinkDown, pool);
            None
        } else if self.loss > 0.0 && self.loss_rng.bernoulli(self.loss) {
            self.stats.link_losses += 1;
            dropped(p, DropCause::LinkLoss, pool);
            None
        } else {
            let at = now + self.delay;
            if self.pipe.is_empty() {
                events.push(at, Event::Arrive(self.id));
            }
            self.pipe.push_back((at, p));
            Some(p)
        };
        self.start_tx(now, pool, events, dropped);
        sent
    }

    /// The head of the pipe reached the far end: hand it over and schedule the next arrival.
    #[inline]
    pub fn on_arrive(&mut self, events: &mut EventQueue) -> PacketId {
        let (_, p) = self.pipe.pop_front().expect("Arrive with an empty pipe");
        if let Some(&(at, _)) = self.pipe.front() {
            events.push(at, Event::Arrive(self.id));
        }
        p
    }

    /// Take the link down: everything queued or on the wire is lost.
    pub fn set_down(
        &mut self,
        now: SimTime,
        pool: &mut PacketPool,
        dropped: &mut impl FnMut(PacketId, DropCause, &mut PacketPool),
    ) {
        self.up = false;
        self.account_queue(now);
        while let Some(p) = self.ready.pop_front() {
            self.stats.link_down_drops += 1;
            dropped(p, DropCause::LinkDown, pool);
        }
        while let Some(p) = self.qdisc.dequeue(now, pool, &mut self.drops) {
            self.stats.link_down_drops += 1;
            dropped(p, DropCause::LinkDown, pool);
        }
        for (p, cause) in self.drops.drain(..) {
            dropped(p, cause, pool);
        }
    }
}
