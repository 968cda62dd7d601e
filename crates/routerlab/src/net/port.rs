//! A port: one direction of a full-duplex link — its queue, its transmitter and its pipe.
//!
//! ```text
//!   arrival ──▶ [ qdisc ] ──dequeue──▶ transmitter ──(serialization)──▶ pipe ──(delay)──▶ far node
//! ```
//! When the transmitter takes a packet from the queue, its serialization end and its arrival at
//! the far end are both known: the packet goes straight into the pipe with its arrival time.
//! The pipe is a FIFO (every packet on a link takes the same propagation delay), so only its
//! head needs a pending `Arrive` event. It is a list through the packets themselves
//! ([`PipeLink`]): each names the one behind it and its arrival time, the port only its tail.
//! A `TxDone` event, at the end of the serialization, is scheduled only when packets are
//! waiting behind it — an idle or lightly loaded link costs one event per packet, not two. A
//! port therefore has at most two events in the queue, whatever the number of packets it
//! holds.
//!
//! Serialization time counts the IP datagram plus the link's framing overhead (default 0;
//! `"38B"` models Ethernet's header, FCS, preamble and inter-frame gap).
//!
//! A packet that finds the transmitter idle (so the queue empty) on a port whose queue is a
//! plain drop-tail goes straight on the wire: the queue would only have counted it going in
//! and out, and the port counts it instead ([`Port::queue_stats`] adds it back). Most ports of
//! a large topology (a host's NIC, a switch's port towards one host) hold at most one packet
//! at a time, and then never touch their queue's memory.

use std::collections::VecDeque;

use crate::builtins::AnyQdisc;
use crate::engine::{Event, EventQueue};
use crate::ids::{NodeId, PacketId, PortId};
use crate::net::flow_epoch::FlowEpoch;
use crate::net::fragment::fragment_to_mtu;
use crate::net::packet::{PacketPool, PipeLink};
use crate::net::stage::{PortStage, QueueView};
use crate::qdisc::{DropCause, DropList, Qdisc, QdiscStats, Verdict};
use crate::rng::SimRng;
use crate::units::{Rate, SimTime, TxClock};

/// Counters of a port's transmitter, each updated by every packet (the rare ones are
/// [`LinkDrops`], at the port's end).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct PortStats {
    pub tx_packets: u64,
    /// IP bytes sent (framing excluded).
    pub tx_bytes: u64,
    /// Time the transmitter was busy.
    pub busy: SimTime,
}

/// ∫ queue length dt, for time-averaged occupancy: updated whenever the queue's length changes,
/// so never by a packet that bypasses the queue. Aligned to 8 bytes, not 16, so that it packs
/// between a port's pointers and its queue.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[repr(C, packed(8))]
struct QueueArea {
    /// In packet·ps and byte·ps.
    packets: u128,
    bytes: u128,
    /// Up to when the integrals are accounted: the queue length has not changed since.
    changed_at: SimTime,
}

/// Packets a port lost outside its queue discipline (rare, so kept off the hot lines).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct LinkDrops {
    /// Lost to the link's random loss (an impairment).
    pub link_losses: u64,
    /// Dropped because the link was down.
    pub link_down_drops: u64,
    /// Packets the stage refused before the queue (an admission stage).
    pub stage_drops: u64,
    /// Packets too large for the link with DF set (`DropCause::FragmentationNeeded`).
    pub frag_needed_drops: u64,
}

impl LinkDrops {
    pub fn total(&self) -> u64 {
        self.link_losses + self.link_down_drops + self.stage_drops + self.frag_needed_drops
    }
}

/// A port. Fields are in the order the hot path reads them (`repr(C)` keeps it), from the
/// start of a cache line: the first line holds what an arrival reads (the pipe's tail, the far
/// end, whether the link is up), whether the transmitter is free and the queue may be
/// bypassed, and the start of serialization (loss, the clock's first half); the second the
/// rest of it (the clock's rest, MTU, framing) and the counters every transmission updates,
/// the bypass counters among them: all that a packet that bypasses the queue reads. Then
/// what a packet that goes through the queue reads besides: whether there are stages, the
/// occupancy integrals, the queue discipline (a drop-tail queue's hot part ends
/// the fifth line); last what only fragments, stages and drops outside the queue use. A
/// packet that bypasses the queue thus reads the port's first [`Port::BYPASS_BYTES`], a
/// transmission from a drop-tail queue its first [`Port::TRANSMIT_BYTES`], an arrival its
/// first [`Port::ARRIVAL_BYTES`]: what the event loop prefetches for each (a unit test checks
/// the layout).
#[derive(Debug)]
#[repr(C, align(64))]
pub struct Port {
    /// The last packet put on the wire, while it has not arrived (the pipe's tail).
    pipe_tail: Option<PacketId>,
    /// End of the current (or last) serialization: the transmitter is free from then on.
    busy_until: SimTime,
    pub delay: SimTime,
    pub id: PortId,
    pub to: NodeId,
    pub up: bool,
    /// A `TxDone` event is pending (at `busy_until`).
    tx_done_pending: bool,
    /// `ready` is not empty: a plain port never reads that far.
    fragments_ready: bool,
    /// An arrival that finds the transmitter idle may skip the queue: it is a drop-tail that
    /// would hold any packet up to the MTU unchanged, and no stage watches the port.
    queue_bypass: bool,
    /// With `queue_bypass`: the empty queue's room (its capacity) in full-sized packets, so
    /// that a host asking how much its idle NIC takes reads no further than this line.
    empty_room: u32,
    /// Independent random loss probability per packet (an impairment).
    pub loss: f64,
    /// The port at this port's far end that goes back the other way, if its queue discipline
    /// watches the reverse direction (`Qdisc::wants_reverse`): it sees what arrives here.
    pub reverse_observer: Option<PortId>,
    /// The link's rate, with its serialization time as a multiplication.
    tx_clock: TxClock,
    pub framing_bytes: u32,
    /// Largest IP datagram the link carries; larger ones are fragmented at dequeue (or dropped
    /// if DF is set). An IP datagram has at most 65,535 bytes, so a larger MTU is that one.
    mtu: u16,
    /// The largest packet that bypassed the queue (for its high-water mark in bytes).
    bypassed_max_bytes: u16,
    /// Packets that bypassed the queue (counted as its own when reporting it).
    bypassed: u64,
    pub stats: PortStats,
    /// The stages around the queue, in order (admission before it, transform after it; see
    /// `net::stage`). Empty on most ports.
    stages: Vec<Box<dyn PortStage>>,
    queue_area: QueueArea,
    qdisc: AnyQdisc,
    /// Packets already taken from the queue and waiting for the transmitter (the fragments of
    /// a datagram, sent back to back).
    ready: VecDeque<PacketId>,
    /// Packets taken from the queue and transformed, not yet handed to the MTU check (only
    /// with stages).
    staged: VecDeque<PacketId>,
    /// What one stage put out, on its way through the next (only with several stages).
    stage_scratch: VecDeque<PacketId>,
    /// Earliest pending stage timer.
    pub stage_timer_at: Option<SimTime>,
    pub from: NodeId,
    loss_rng: SimRng,
    pub link_drops: LinkDrops,
}

impl Port {
    /// Bytes from its start that an arrival reads (the first line).
    pub const ARRIVAL_BYTES: usize = 64;
    /// Bytes from its start that a transmission reads on a plain port, through a drop-tail
    /// queue's hot fields.
    pub const TRANSMIT_BYTES: usize = 5 * 64;
    /// Bytes from its start that a packet reads which bypasses the queue: up to the counters.
    pub const BYPASS_BYTES: usize = 2 * 64;

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
        let mtu = mtu.min(u16::MAX as u32) as u16;
        let mut port = Port {
            id,
            from,
            to,
            tx_clock: TxClock::new(rate),
            delay,
            framing_bytes,
            mtu,
            loss,
            reverse_observer: None,
            up: true,
            queue_bypass: false,
            empty_room: 0,
            bypassed: 0,
            bypassed_max_bytes: 0,
            qdisc,
            stages: Vec::new(),
            stage_timer_at: None,
            staged: VecDeque::new(),
            stage_scratch: VecDeque::new(),
            busy_until: SimTime::ZERO,
            tx_done_pending: false,
            fragments_ready: false,
            ready: VecDeque::new(),
            pipe_tail: None,
            loss_rng,
            link_drops: LinkDrops::default(),
            stats: PortStats::default(),
            queue_area: QueueArea::default(),
        };
        port.decide_bypass();
        port
    }

    /// May arrivals at an idle transmitter skip the queue (see the module's comment)? Also
    /// notes the empty queue's room, which for a drop-tail is its capacity.
    fn decide_bypass(&mut self) {
        debug_assert_eq!(self.qdisc.len_packets(), 0, "decided before the run");
        let room = self.qdisc.room_packets().and_then(|r| u32::try_from(r).ok());
        self.queue_bypass = self.stages.is_empty()
            && self.qdisc.passes_through_when_empty(self.mtu as u64)
            && room.is_some()
            && self.qdisc.capacity_packets() == room.map(|r| r as usize);
        self.empty_room = room.unwrap_or(0);
    }

    /// Add a stage at the end of the port's chain (before the run starts).
    pub fn push_stage(&mut self, stage: Box<dyn PortStage>) {
        self.insert_stage(self.stages.len(), stage);
    }

    /// Put a stage at position `index` of the port's chain, the ones from there on moving one
    /// down (before the run starts): 0 puts it first, to see every arrival before the others.
    pub fn insert_stage(&mut self, index: usize, stage: Box<dyn PortStage>) {
        self.stages.insert(index, stage);
        self.decide_bypass();
    }

    /// Replace the queue discipline (before the run starts).
    pub fn set_qdisc(&mut self, qdisc: AnyQdisc) {
        self.qdisc = qdisc;
        self.decide_bypass();
    }

    /// The queue discipline. Its own counters miss the packets that bypassed it: read them
    /// through [`Port::queue_stats`].
    pub fn qdisc(&self) -> &AnyQdisc {
        &self.qdisc
    }

    /// The queue discipline's own state (to replace it, [`Port::set_qdisc`]).
    pub fn qdisc_mut(&mut self) -> &mut AnyQdisc {
        &mut self.qdisc
    }

    /// The queue's counters, including the packets that bypassed it.
    pub fn queue_stats(&self) -> QdiscStats {
        let mut stats = self.qdisc.stats();
        stats.count_passed_through(self.bypassed, self.bypassed_max_bytes as u64);
        stats
    }

    /// Largest IP datagram the link carries.
    pub fn mtu(&self) -> u32 {
        self.mtu as u32
    }

    /// The link's rate.
    pub fn rate(&self) -> Rate {
        self.tx_clock.rate()
    }

    /// The port's stages, in order.
    pub fn stages(&self) -> &[Box<dyn PortStage>] {
        &self.stages
    }

    /// Start logging flows' epochs (`net::flow_epoch`): in the queue if it classifies flows,
    /// else in the first stage that does. False if no part of the port can.
    pub fn record_flow_epochs(&mut self) -> bool {
        self.qdisc.record_flow_epochs() || self.stages.iter_mut().any(|s| s.record_flow_epochs())
    }

    /// The flows' epochs logged by the queue, or else by the first stage that logs them.
    pub fn flow_epochs(&self, now: SimTime) -> Option<Vec<FlowEpoch>> {
        self.qdisc.flow_epochs(now).or_else(|| self.stages.iter().find_map(|s| s.flow_epochs(now)))
    }

    /// What a stage sees of this port at `now`.
    pub fn view(&self, now: SimTime) -> QueueView {
        QueueView {
            packets: self.qdisc.len_packets(),
            bytes: self.qdisc.len_bytes(),
            capacity_packets: self.qdisc.capacity_packets(),
            rate: self.rate(),
            in_service_bytes: self.in_service_bytes(now),
        }
    }

    /// Re-arm the stages' timer if one wants an earlier wake-up than the one pending.
    fn arm_stage_timer(&mut self, now: SimTime, events: &mut EventQueue) {
        if let Some(t) = self.stages.iter().filter_map(|s| s.poll_at()).min()
            && self.stage_timer_at.is_none_or(|s| t < s)
        {
            let t = t.max(now);
            events.push(t, Event::PortTimer(self.id));
            self.stage_timer_at = Some(t);
        }
    }

    /// The stages' timer fired: every stage whose time has come runs its `on_timer`, in order.
    pub fn on_stage_timer(&mut self, now: SimTime, events: &mut EventQueue) {
        if self.stage_timer_at == Some(now) {
            self.stage_timer_at = None;
        }
        let view = self.view(now);
        for s in &mut self.stages {
            if s.poll_at().is_some_and(|t| t <= now) {
                s.on_timer(now, &view);
            }
        }
        self.arm_stage_timer(now, events);
    }

    /// Full-sized packets the queue has room for (None: unbounded). A port that may bypass
    /// its queue knows it is empty, and its room, from its first line while nothing waits.
    #[inline]
    pub fn room_packets(&self) -> Option<usize> {
        if self.queue_bypass && !self.tx_done_pending {
            return Some(self.empty_room as usize);
        }
        self.qdisc.room_packets()
    }

    /// The queue's capacity in full-sized packets (None: unbounded).
    #[inline]
    pub fn capacity_packets(&self) -> Option<usize> {
        if self.queue_bypass {
            return Some(self.empty_room as usize);
        }
        self.qdisc.capacity_packets()
    }

    /// Packets waiting in the queue (not counting the one being transmitted).
    pub fn queue_packets(&self) -> usize {
        self.qdisc.len_packets()
    }
    pub fn queue_bytes(&self) -> u64 {
        self.qdisc.len_bytes()
    }
    /// Bytes the port holds at `now`: those waiting in the queue, plus what is left to
    /// serialize of the packet on the transmitter (fragments waiting for it not counted).
    pub fn occupancy_bytes(&self, now: SimTime) -> u64 {
        self.qdisc.len_bytes() + self.in_service_bytes(now)
    }
    /// What is left to serialize at `now` of the packet on the transmitter (at least 1 byte
    /// while it is busy).
    fn in_service_bytes(&self, now: SimTime) -> u64 {
        if self.busy_until > now { self.rate().bytes_in(self.busy_until - now).max(1) } else { 0 }
    }
    /// The transmitter is serializing a packet at `now`.
    pub fn is_busy(&self, now: SimTime) -> bool {
        self.busy_until > now
    }
    /// End of the current serialization, if the transmitter is busy.
    pub fn busy_until(&self) -> SimTime {
        self.busy_until
    }

    /// Add the time since the last change, at the current length, to the occupancy integrals.
    #[inline]
    fn account_queue(&mut self, now: SimTime) {
        let area = &mut self.queue_area;
        let dt = (now - area.changed_at).0 as u128;
        if dt > 0 {
            area.packets += self.qdisc.len_packets() as u128 * dt;
            area.bytes += self.qdisc.len_bytes() as u128 * dt;
            area.changed_at = now;
        }
    }

    /// Time-averaged number of packets waiting, over [0, now].
    pub fn mean_queue_packets(&self, now: SimTime) -> f64 {
        let QueueArea { packets, changed_at, .. } = self.queue_area;
        let area = packets + self.qdisc.len_packets() as u128 * (now - changed_at).0 as u128;
        if now.0 == 0 { 0.0 } else { area as f64 / now.0 as f64 }
    }

    /// Time-averaged bytes waiting, over [0, now].
    pub fn mean_queue_bytes(&self, now: SimTime) -> f64 {
        let QueueArea { bytes, changed_at, .. } = self.queue_area;
        let area = bytes + self.qdisc.len_bytes() as u128 * (now - changed_at).0 as u128;
        if now.0 == 0 { 0.0 } else { area as f64 / now.0 as f64 }
    }

    /// Offer a packet. Packets the port lets go of are passed to `dropped`, which must free them.
    /// Returns the packet that started transmission and went on the wire, if one did (not
    /// necessarily `pkt`: see [`Port::on_tx_done`]).
    #[inline]
    pub fn enqueue(
        &mut self,
        now: SimTime,
        pkt: PacketId,
        pool: &mut PacketPool,
        events: &mut EventQueue,
        drops: &mut DropList,
        dropped: &mut impl FnMut(PacketId, DropCause, &mut PacketPool),
    ) -> Option<PacketId> {
        if !self.up {
            self.link_drops.link_down_drops += 1;
            dropped(pkt, DropCause::LinkDown, pool);
            return None;
        }
        // An idle transmitter with nothing pending has an empty queue (whatever waits behind
        // a transmission has a `TxDone` pending), and its length does not change.
        if self.queue_bypass && !self.tx_done_pending && self.busy_until <= now {
            let p = pool.get_mut(pkt);
            let len = p.ip.total_len;
            if len <= self.mtu {
                debug_assert!(self.qdisc.len_packets() == 0 && !self.fragments_ready);
                debug_assert!(self.qdisc.passes_through_when_empty(len as u64));
                p.meta.enqueued_at = now;
                self.bypassed += 1;
                self.bypassed_max_bytes = self.bypassed_max_bytes.max(len);
                return self.transmit(now, pkt, false, pool, events, dropped);
            }
        }
        self.account_queue(now);
        let refused =
            if self.stages.is_empty() { None } else { self.run_arrival_chain(now, pkt, pool, events) };
        match refused {
            // The queue keeps what it will of a refused packet (and counts it), or it is lost.
            Some(cause) if !self.qdisc.take_refused(now, pkt, cause, pool) => {
                self.link_drops.stage_drops += 1;
                dropped(pkt, cause, pool);
                return None;
            }
            Some(_) => {}
            None => match self.qdisc.enqueue(now, pkt, pool, drops) {
                Verdict::Enqueued => {}
                Verdict::Cut(_, _) => {} // the cut packet is queued; the qdisc counted the cut
                Verdict::Dropped(p, cause) | Verdict::PushedOut(p, cause) => {
                    self.lost_after_admission(now, p, pool);
                    dropped(p, cause, pool);
                }
            },
        }
        for (p, cause) in drops.drain(..) {
            self.lost_after_admission(now, p, pool);
            dropped(p, cause, pool);
        }
        if self.tx_done_pending {
            None
        } else if self.busy_until <= now {
            self.start_tx(now, pool, events, drops, dropped)
        } else {
            // Serializing a packet that had nothing behind it: now something is.
            events.push(self.busy_until, Event::TxDone(self.id));
            self.tx_done_pending = true;
            None
        }
    }

    /// Packets waiting for the transmitter, in the queue or past it.
    #[inline]
    fn has_waiting(&self) -> bool {
        self.fragments_ready
            || (!self.stages.is_empty() && !self.staged.is_empty())
            || self.qdisc.len_packets() > 0
    }

    /// Take the next packet from the queue onto the transmitter, if any, and put it on the
    /// wire (unless the link loses it). Returns the packet that went on the wire.
    fn start_tx(
        &mut self,
        now: SimTime,
        pool: &mut PacketPool,
        events: &mut EventQueue,
        drops: &mut DropList,
        dropped: &mut impl FnMut(PacketId, DropCause, &mut PacketPool),
    ) -> Option<PacketId> {
        debug_assert!(self.busy_until <= now && !self.tx_done_pending);
        self.account_queue(now);
        // A plain port (no fragments waiting, no stages) reads neither `ready` nor `staged`.
        let ready = if self.fragments_ready { self.ready.pop_front() } else { None };
        let next = match ready {
            Some(p) => Some(p),
            None => loop {
                let staged = if self.stages.is_empty() { None } else { self.staged.pop_front() };
                let p = match staged {
                    Some(p) => p,
                    None => {
                        let Some(p) = self.qdisc.dequeue(now, pool, drops) else { break None };
                        if self.stages.is_empty() {
                            p
                        } else {
                            self.run_departure_chain(now, p, pool, drops);
                            self.arm_stage_timer(now, events);
                            match self.staged.pop_front() {
                                Some(p) => p,
                                None => continue,
                            }
                        }
                    }
                };
                if pool.get(p).ip_len() <= self.mtu() {
                    break Some(p);
                }
                // Dequeue-side transform: fragment to the link's MTU, fragments back to back.
                if fragment_to_mtu(pool, p, self.mtu(), &mut self.ready) {
                    self.fragments_ready = true;
                    break self.ready.pop_front();
                }
                self.link_drops.frag_needed_drops += 1;
                drops.push((p, DropCause::FragmentationNeeded));
            },
        };
        if self.fragments_ready {
            self.fragments_ready = !self.ready.is_empty();
        }
        for (p, cause) in drops.drain(..) {
            self.lost_after_admission(now, p, pool);
            dropped(p, cause, pool);
        }
        let p = next?;
        let waiting = self.has_waiting();
        self.transmit(now, p, waiting, pool, events, dropped)
    }

    /// Serialize `p` from `now` and put it on the wire (unless the link loses it); `waiting`:
    /// packets wait behind it. Returns `p` if it went on the wire.
    #[inline]
    fn transmit(
        &mut self,
        now: SimTime,
        p: PacketId,
        waiting: bool,
        pool: &mut PacketPool,
        events: &mut EventQueue,
        dropped: &mut impl FnMut(PacketId, DropCause, &mut PacketPool),
    ) -> Option<PacketId> {
        let ip_len = pool.get(p).ip_len() as u64;
        let t = self.tx_clock.tx_time(ip_len + self.framing_bytes as u64);
        let end = now + t;
        self.busy_until = end;
        self.stats.busy += t;
        self.stats.tx_packets += 1;
        self.stats.tx_bytes += ip_len;
        if waiting {
            events.push(end, Event::TxDone(self.id));
            self.tx_done_pending = true;
        }
        if self.loss > 0.0 && self.loss_rng.bernoulli(self.loss) {
            self.link_drops.link_losses += 1;
            dropped(p, DropCause::LinkLoss, pool);
            return None;
        }
        let at = end + self.delay;
        let dst = pool.get(p).ip.dst;
        match self.pipe_tail {
            None => events.push(at, Event::Arrive(self.id, p, dst)),
            Some(tail) => pool.get_mut(tail).pipe = PipeLink::to(p, dst, at),
        }
        self.pipe_tail = Some(p);
        Some(p)
    }

    /// The transmitter finished, with packets waiting: start the next one. Returns the packet
    /// that went on the wire (None if the link lost it or nothing was left to send).
    #[inline]
    pub fn on_tx_done(
        &mut self,
        now: SimTime,
        pool: &mut PacketPool,
        events: &mut EventQueue,
        drops: &mut DropList,
        dropped: &mut impl FnMut(PacketId, DropCause, &mut PacketPool),
    ) -> Option<PacketId> {
        debug_assert!(self.tx_done_pending && self.busy_until == now);
        self.tx_done_pending = false;
        self.start_tx(now, pool, events, drops, dropped)
    }

    /// `p`, the head of the pipe, reached the far end: take it off and schedule the next
    /// arrival. (A packet on the wire when the link went down is lost: the caller checks `up`.)
    #[inline]
    pub fn on_arrive(&mut self, p: PacketId, pool: &mut PacketPool, events: &mut EventQueue) {
        let link = std::mem::take(&mut pool.get_mut(p).pipe);
        match link.next() {
            Some((next, dst, at)) => events.push(at, Event::Arrive(self.id, next, dst)),
            None => {
                debug_assert_eq!(self.pipe_tail, Some(p));
                self.pipe_tail = None;
            }
        }
    }

    /// An arrival through the stages' `on_arrival` in order: the cause if one refused it (the
    /// stages before it have heard of the loss; the queue may take it, else the caller frees
    /// it). Kept out of line: most ports have no stages.
    #[inline(never)]
    fn run_arrival_chain(
        &mut self,
        now: SimTime,
        pkt: PacketId,
        pool: &mut PacketPool,
        events: &mut EventQueue,
    ) -> Option<DropCause> {
        let view = self.view(now);
        let refused = self
            .stages
            .iter_mut()
            .enumerate()
            .find_map(|(i, s)| s.on_arrival(now, pkt, pool, &view).err().map(|cause| (i, cause)));
        self.arm_stage_timer(now, events);
        let (i, cause) = refused?;
        for s in &mut self.stages[..i] {
            s.on_lost(now, pkt, pool);
        }
        Some(cause)
    }

    /// `p`, just taken from the queue, through the stages' `on_departure` in order; what the
    /// last one puts out waits in `staged` (empty when the queue is asked for a packet).
    #[inline(never)]
    fn run_departure_chain(
        &mut self,
        now: SimTime,
        p: PacketId,
        pool: &mut PacketPool,
        drops: &mut DropList,
    ) {
        debug_assert!(self.staged.is_empty());
        let view = self.view(now);
        let (first, rest) = self.stages.split_first_mut().expect("a port with stages");
        first.on_departure(now, p, pool, &view, &mut self.staged, drops);
        for stage in rest {
            std::mem::swap(&mut self.staged, &mut self.stage_scratch);
            while let Some(p) = self.stage_scratch.pop_front() {
                stage.on_departure(now, p, pool, &view, &mut self.staged, drops);
            }
        }
    }

    /// A packet the port's stages had let in was lost: every stage hears of it.
    fn lost_after_admission(&mut self, now: SimTime, p: PacketId, pool: &PacketPool) {
        for s in &mut self.stages {
            s.on_lost(now, p, pool);
        }
    }

    /// Take the link down: everything queued or on the wire is lost.
    pub fn set_down(
        &mut self,
        now: SimTime,
        pool: &mut PacketPool,
        drops: &mut DropList,
        dropped: &mut impl FnMut(PacketId, DropCause, &mut PacketPool),
    ) {
        self.up = false;
        self.account_queue(now);
        while let Some(p) = self.ready.pop_front() {
            self.link_drops.link_down_drops += 1;
            dropped(p, DropCause::LinkDown, pool);
        }
        self.fragments_ready = false;
        while let Some(p) = self.qdisc.dequeue(now, pool, drops) {
            self.link_drops.link_down_drops += 1;
            dropped(p, DropCause::LinkDown, pool);
        }
        for (p, cause) in drops.drain(..) {
            dropped(p, cause, pool);
        }
    }
}

#[cfg(test)]
mod tests {
    use std::mem::{align_of, offset_of};

    use super::*;
    use crate::ids::HostId;
    use crate::net::packet::{Ecn, Packet, TcpSegment};
    use crate::qdisc::{DropTail, DropTailParams};
    use crate::rng::StreamId;
    use crate::units::Size;
    use proptest::prelude::*;

    fn test_limit() -> DropTailParams {
        DropTailParams { limit: Size::Packets(10), ecn_threshold: None }
    }

    /// 1 Gbps, 10 µs, MTU 1500.
    fn test_port(qdisc: AnyQdisc) -> Port {
        let rng = SimRng::new(1, StreamId::LinkLoss(0));
        Port::new(
            PortId(0),
            NodeId(0),
            NodeId(1),
            Rate::from_gbps(1),
            SimTime::from_us(10),
            0,
            1500,
            0.0,
            qdisc,
            rng,
        )
    }

    /// A stage with every hook left at its pass-through default.
    struct PassStage;
    impl PortStage for PassStage {}

    /// A stage that writes what it sees into a shared log, refuses arrivals of one payload size
    /// and, if asked, sends a copy after every packet that leaves the queue.
    struct LogStage {
        name: &'static str,
        log: std::sync::Arc<std::sync::Mutex<Vec<String>>>,
        refuse_payload: Option<u16>,
        duplicate: bool,
    }

    impl PortStage for LogStage {
        fn on_arrival(
            &mut self,
            _: SimTime,
            p: PacketId,
            pool: &mut PacketPool,
            _: &QueueView,
        ) -> Result<(), DropCause> {
            let len = pool.get(p).tcp.payload_len;
            self.log.lock().unwrap().push(format!("{} in {len}", self.name));
            if self.refuse_payload == Some(len) { Err(DropCause::Admission) } else { Ok(()) }
        }

        fn on_departure(
            &mut self,
            _: SimTime,
            p: PacketId,
            pool: &mut PacketPool,
            _: &QueueView,
            out: &mut VecDeque<PacketId>,
            _: &mut Vec<(PacketId, DropCause)>,
        ) {
            self.log.lock().unwrap().push(format!("{} out {}", self.name, pool.get(p).tcp.payload_len));
            out.push_back(p);
            if self.duplicate {
                let copy = *pool.get(p);
                out.push_back(pool.alloc(copy));
            }
        }

        fn on_lost(&mut self, _: SimTime, p: PacketId, pool: &PacketPool) {
            self.log.lock().unwrap().push(format!("{} lost {}", self.name, pool.get(p).tcp.payload_len));
        }
    }

    /// A port's stages are a chain: arrivals pass them in order until one refuses (the stages
    /// before it hear of the loss), and what leaves the queue passes them in order, each stage
    /// seeing what the one before it put out.
    #[test]
    fn stages_form_a_chain_in_order() {
        let log = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
        let stage = |name, refuse_payload, duplicate| {
            Box::new(LogStage { name, log: log.clone(), refuse_payload, duplicate })
        };
        let mut port = test_port(AnyQdisc::DropTail(DropTail::new(test_limit())));
        port.push_stage(stage("b", Some(100), false));
        port.insert_stage(0, stage("a", None, true));
        let (mut pool, mut events, mut drops) = (PacketPool::new(), EventQueue::new(), Vec::new());
        let mut causes = Vec::new();
        let mut free = |p, cause, pool: &mut PacketPool| {
            causes.push(cause);
            pool.free(p)
        };
        for len in [500, 100] {
            let seg = TcpSegment { payload_len: len, ..Default::default() };
            let p = pool.alloc(Packet::tcp_for_test(HostId(0), HostId(1), seg));
            port.enqueue(SimTime::ZERO, p, &mut pool, &mut events, &mut drops, &mut free);
        }
        let mut sent = 0;
        while let Some((t, ev)) = events.pop() {
            match ev {
                Event::TxDone(_) => {
                    port.on_tx_done(t, &mut pool, &mut events, &mut drops, &mut free);
                }
                Event::Arrive(_, p, _) => {
                    port.on_arrive(p, &mut pool, &mut events);
                    sent += 1;
                }
                e => panic!("unexpected {e:?}"),
            }
        }
        let expected = [
            "a in 500",
            "b in 500",
            "a out 500",
            "b out 500",
            "b out 500",
            "a in 100",
            "b in 100",
            "a lost 100",
        ];
        assert_eq!(*log.lock().unwrap(), expected);
        assert_eq!(sent, 2, "the packet and the copy the first stage made");
        assert_eq!(causes, [DropCause::Admission]);
        assert_eq!(port.link_drops.stage_drops, 1);
    }

    /// Three packets sent back to back arrive once each, in order, at serialization end plus
    /// delay (each arrival schedules the next); links are cleared as packets leave the wire.
    #[test]
    fn the_pipe_is_a_list_through_the_packets() {
        let mut port = test_port(AnyQdisc::DropTail(DropTail::new(test_limit())));
        let (mut pool, mut events, mut drops) = (PacketPool::new(), EventQueue::new(), Vec::new());
        let seg = TcpSegment { payload_len: 1210, ..Default::default() };
        let pkts: Vec<PacketId> =
            (0..3).map(|_| pool.alloc(Packet::tcp_for_test(HostId(0), HostId(1), seg))).collect();
        let mut free = |p, _, pool: &mut PacketPool| pool.free(p);
        for &p in &pkts {
            port.enqueue(SimTime::ZERO, p, &mut pool, &mut events, &mut drops, &mut free);
        }
        let tx = SimTime::from_us(10); // 1250 bytes at 1 Gbps
        let mut arrivals = Vec::new();
        while let Some((t, ev)) = events.pop() {
            match ev {
                Event::TxDone(_) => {
                    port.on_tx_done(t, &mut pool, &mut events, &mut drops, &mut free);
                }
                Event::Arrive(_, p, dst) => {
                    assert_eq!(dst, HostId(1));
                    port.on_arrive(p, &mut pool, &mut events);
                    assert_eq!(pool.get(p).pipe, PipeLink::default());
                    arrivals.push((t, p));
                }
                e => panic!("unexpected {e:?}"),
            }
        }
        let expected: Vec<_> =
            (1..=3u64).map(|i| (SimTime(tx.0 * i) + SimTime::from_us(10), pkts[i as usize - 1])).collect();
        assert_eq!(arrivals, expected);
        assert_eq!(port.pipe_tail, None);
    }

    /// Arrivals at the far end with the packet's ECN field, the port's counters and its
    /// queue's, and the drops by cause.
    type PortRun = (Vec<(SimTime, PacketId, Ecn)>, PortStats, (u128, u128), QdiscStats, Vec<DropCause>);

    /// Offer `arrivals` (time, TCP payload bytes, ECN-capable) to `port` and run it dry.
    fn run_port(port: &mut Port, arrivals: &[(SimTime, u32, bool)]) -> PortRun {
        let (mut pool, mut events, mut drops) = (PacketPool::new(), EventQueue::new(), Vec::new());
        let mut lost = Vec::new();
        let mut free = |p, cause, pool: &mut PacketPool| {
            lost.push(cause);
            pool.free(p)
        };
        let mut out = Vec::new();
        let mut next = arrivals.iter().peekable();
        loop {
            // What a host asks of its NIC, answered from the port's first line when it can.
            assert_eq!(port.room_packets(), port.qdisc.room_packets());
            assert_eq!(port.capacity_packets(), port.qdisc.capacity_packets());
            let due = events.peek().map(|(t, _)| t);
            match next.peek() {
                // Arrivals go first at equal times, as a link's arrival event would.
                Some(&&(t, payload_len, ect)) if due.is_none_or(|d| t <= d) => {
                    next.next();
                    let seg = TcpSegment { payload_len: payload_len as u16, ..Default::default() };
                    let mut pkt = Packet::tcp_for_test(HostId(0), HostId(1), seg);
                    pkt.ip.set_ecn(if ect { Ecn::Ect0 } else { Ecn::NotEct });
                    let p = pool.alloc(pkt);
                    port.enqueue(t, p, &mut pool, &mut events, &mut drops, &mut free);
                }
                _ => match events.pop() {
                    Some((t, Event::TxDone(_))) => {
                        port.on_tx_done(t, &mut pool, &mut events, &mut drops, &mut free);
                    }
                    Some((t, Event::Arrive(_, p, _))) => {
                        port.on_arrive(p, &mut pool, &mut events);
                        out.push((t, p, pool.get(p).ip.ecn()));
                        pool.free(p);
                    }
                    Some((_, e)) => panic!("unexpected {e:?}"),
                    None => break,
                },
            }
        }
        // Up to when the areas are accounted is bookkeeping (they do not change while the
        // queue is empty); the areas themselves are compared.
        let QueueArea { packets, bytes, .. } = port.queue_area;
        (out, port.stats.clone(), (packets, bytes), port.queue_stats(), lost)
    }

    proptest! {
        /// A packet that bypasses the queue leaves exactly as one that went through it would:
        /// the same arrivals at the far end, marks, drops, busy time, queue occupancy and queue
        /// counters, whatever the load (idle, bursts that fill the queue, oversized packets);
        /// and the port tells the queue's room as the queue would.
        #[test]
        fn bypassing_the_queue_changes_nothing_but_speed(
            arrivals in proptest::collection::vec((0u64..30_000, prop_oneof![Just(0u32), Just(1460), 0..1600u32], any::<bool>()), 0..80),
            byte_limit in any::<bool>(),
            ecn in any::<bool>(),
        ) {
            let mut t = SimTime::ZERO;
            let arrivals: Vec<_> = arrivals.into_iter().map(|(gap_ns, len, ect)| {
                t += SimTime::from_ns(gap_ns);
                (t, len, ect)
            }).collect();
            let params = DropTailParams {
                limit: if byte_limit { Size::Bytes(4500) } else { Size::Packets(3) },
                ecn_threshold: ecn.then_some(Size::Packets(1)),
            };
            let mut bypassing = test_port(AnyQdisc::DropTail(DropTail::new(params)));
            let mut queueing = test_port(AnyQdisc::DropTail(DropTail::new(params)));
            prop_assert!(bypassing.queue_bypass);
            queueing.queue_bypass = false;
            let a = run_port(&mut bypassing, &arrivals);
            let b = run_port(&mut queueing, &arrivals);
            prop_assert_eq!(&a, &b);
            let end = t + SimTime::from_ms(1); // after the last departure
            prop_assert_eq!(bypassing.mean_queue_bytes(end), queueing.mean_queue_bytes(end));
            prop_assert_eq!(queueing.bypassed, 0);
            // Every packet within the MTU that reached the port idle (the first, if it fits).
            let first_fits = arrivals.first().is_some_and(|&(_, payload, _)| payload + 40 <= 1500);
            prop_assert!(!first_fits || bypassing.bypassed > 0);
        }
    }

    /// Only a port whose queue would hold any packet unchanged and that nothing else watches
    /// lets packets past its queue.
    #[test]
    fn what_keeps_packets_in_the_queue() {
        let droptail =
            |limit, ecn_threshold| AnyQdisc::DropTail(DropTail::new(DropTailParams { limit, ecn_threshold }));
        assert!(test_port(droptail(Size::Packets(1), Some(Size::Packets(1)))).queue_bypass);
        assert!(test_port(droptail(Size::Bytes(1500), None)).queue_bypass);
        // An MTU-sized packet would not fit, or an empty queue already marks.
        assert!(!test_port(droptail(Size::Bytes(1499), None)).queue_bypass);
        assert!(!test_port(droptail(Size::Packets(0), None)).queue_bypass);
        assert!(!test_port(droptail(Size::Packets(10), Some(Size::Bytes(0)))).queue_bypass);
        // A stage sees every arrival.
        let mut observed = test_port(droptail(Size::Packets(10), None));
        observed.push_stage(Box::new(PassStage));
        assert!(!observed.queue_bypass);
        // Replacing the queue re-decides.
        let mut port = test_port(droptail(Size::Packets(0), None));
        port.set_qdisc(droptail(Size::Packets(10), None));
        assert!(port.queue_bypass);
        observed.set_qdisc(droptail(Size::Packets(10), None));
        assert!(!observed.queue_bypass);
    }

    #[test]
    fn what_a_packet_reads_is_in_the_first_lines() {
        assert_eq!(align_of::<Port>(), 64, "a port starts a cache line");
        // First line: an arrival, whether the transmitter is free and the queue may be
        // bypassed, a NIC's room.
        for end in [
            offset_of!(Port, pipe_tail) + size_of::<Option<PacketId>>(),
            offset_of!(Port, to) + 4,
            offset_of!(Port, tx_done_pending) + 1,
            offset_of!(Port, queue_bypass) + 1,
            offset_of!(Port, empty_room) + 4,
        ] {
            assert!(end <= 64, "arrival fields end at byte {end}");
        }
        const { assert!(Port::ARRIVAL_BYTES >= 64) };
        // Serialization and the counters every transmission updates, the bypass's among them,
        // by the end of the second line: all a packet that bypasses the queue reads.
        for end in [
            offset_of!(Port, loss) + 8,
            offset_of!(Port, tx_clock) + size_of::<TxClock>(),
            offset_of!(Port, mtu) + 2,
            offset_of!(Port, bypassed_max_bytes) + 2,
            offset_of!(Port, bypassed) + 8,
            offset_of!(Port, stats) + size_of::<PortStats>(),
        ] {
            assert!(end <= 2 * 64, "a bypassing packet's fields end at byte {end}");
        }
        const { assert!(Port::BYPASS_BYTES >= 2 * 64) };
        // Whether there are stages, and the occupancy integrals, in the third.
        for end in [
            offset_of!(Port, stages) + size_of::<Vec<Box<dyn PortStage>>>(),
            offset_of!(Port, queue_area) + size_of::<QueueArea>(),
        ] {
            assert!(end <= 3 * 64, "a queued packet's port fields end at byte {end}");
        }
        // A drop-tail queue's hot fields, within what a transmission prefetches.
        let port = test_port(AnyQdisc::DropTail(DropTail::new(test_limit())));
        let AnyQdisc::DropTail(q) = &port.qdisc else { unreachable!() };
        let queue_end = (q as *const DropTail as usize - &port as *const Port as usize) + DropTail::HOT_BYTES;
        assert!(queue_end <= Port::TRANSMIT_BYTES, "drop-tail hot fields end at byte {queue_end}");
    }
}
