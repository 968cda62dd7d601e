//! TAQ's queue: five classes in three levels (TAQ paper, §4.2), fed by the flow tracker.
//!
//! Every arriving TCP segment is seen by the [`FlowTracker`] and put in one class:
//!
//! | level | class | packets |
//! |---|---|---|
//! | 1 | Recovery | retransmissions; ordered by the flow's silence, longest first |
//! | 2 | NewFlow | handshake packets; new data of new flows: in slow start, nothing lost yet |
//! | 2 | OverPenalized | new data of flows with more than 2 drops here in this and the last epoch |
//! | 2 | BelowFairShare | new data of flows sending below the fair share; other segments without payload |
//! | 3 | AboveFairShare | new data of flows sending above it |
//!
//! Level 1 is served first, but only while it has *credit*: every transmission earns it
//! `recovery_share` of a packet (up to a small burst), so retransmissions cannot take more than
//! that share of the link while the other levels have packets ("capacity limited", §4.2). Level 2
//! serves its three FIFOs in arrival order across them — OverPenalized and BelowFairShare thus
//! share in proportion to their demand, as §4.2 asks — with NewFlow capacity-limited the same
//! way as Recovery (`newflow_share`). Level 3 goes when the others have nothing. The scheduler
//! is work-conserving: a class out of credit is still served when nothing else waits.
//!
//! The fair share is fair queuing's: the link rate over the number of active flows; a flow's
//! rate is what it sent in its last epoch and the current one so far, over that time. Active, in our reading, is every
//! flow but the idle ones: a flow silent in a timeout has data waiting at its sender, and
//! leaving it out (as fair queuing would, its queue being empty) inflates the share of the
//! others exactly when TAQ is needed — most flows in timeouts.
//!
//! Readings and choices (the paper is silent or ambiguous; each is ours and a parameter):
//! - the Recovery order: "the longer the silence period, the higher the priority" (§4.2 also
//!   says "inversely proportional", which would contradict the rest of §4.1): longest first;
//! - which packet to drop when the buffer is full: one of the lowest non-empty class
//!   (AboveFairShare, then NewFlow — admission is where contention is cut —, BelowFairShare,
//!   OverPenalized, Recovery), pushed out for the arrival unless the arrival's class is higher
//!   (`drop = "push-out"`); or always the arrival (`drop = "tail"`). Which one: §4.1's
//!   prediction of the drop's effect on the flow's next state (`predict_next_state`, off by
//!   default: see its field) — the packet whose loss harms its flow least, the latest of
//!   those, and within the arrival's own class only if it harms less than dropping the
//!   arrival; without the prediction the class's tail;
//! - OverPenalized takes precedence over AboveFairShare, as §4.2 says ("automatically
//!   assigned"); `overpenalized_first = false` reserves it for flows *below* their fair share
//!   (a flow above it that is dropped is not over-penalized, and protecting it would let it
//!   keep the excess: we saw a club of flows hold the link that way while the rest timed out);
//! - NewFlow holds flows that are new — in slow start and nothing lost yet; a flow back in
//!   slow start after a timeout is classed by its rate like any other;
//! - the shares: half the link for Recovery, a quarter for NewFlow;
//! - NewFlow's capacity in connections (§4.2: "we explicitly limit the NewQueue capacity to
//!   limit the number of new connections in the system"): with `newflow_connections = K`, a
//!   NewFlow packet of a connection that has none queued there is dropped while K others
//!   have; the paper gives no K, and by default there is none (its share alone limits it);
//! - handshake packets go to NewFlow (`syns_in_newflow`), the queue of connections that have
//!   just begun; other segments without payload (pure ACKs of reverse flows) to
//!   BelowFairShare: they are small and must not starve behind data.

use std::collections::{HashMap, VecDeque};

use super::admission::{AdmissionControl, AdmissionParams, Admit};
use super::tracker::{DropOutcome, FlowKey, FlowState, FlowTracker, OneWayEpoch, TrackerParams};
use crate::ids::PacketId;
use crate::net::flow_epoch::FlowEpoch;
use crate::net::packet::{Packet, PacketPool, TcpFlags};
use crate::qdisc::{DropCause, Qdisc, QdiscStats, Verdict};
use crate::units::{Rate, SimTime, Size};

/// The five classes, from the lowest to the highest drop protection.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum TaqClass {
    AboveFairShare = 0,
    NewFlow = 1,
    BelowFairShare = 2,
    OverPenalized = 3,
    Recovery = 4,
}

pub const CLASSES: usize = 5;

impl TaqClass {
    pub const ALL: [TaqClass; CLASSES] = [
        TaqClass::AboveFairShare,
        TaqClass::NewFlow,
        TaqClass::BelowFairShare,
        TaqClass::OverPenalized,
        TaqClass::Recovery,
    ];
}

/// What to drop when the buffer is full.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TaqDrop {
    /// The tail of the lowest non-empty class, if lower than the arrival's (ours, the default).
    PushOut,
    /// Always the arrival.
    Tail,
}

#[derive(Clone, Copy, Debug, PartialEq)]
pub struct TaqParams {
    pub limit: Size,
    /// Share of transmissions Recovery may take while others wait: 0.5 (ours).
    pub recovery_share: f64,
    /// Share of transmissions NewFlow may take while others wait: 0.25 (ours).
    pub newflow_share: f64,
    /// Credit a capacity-limited class may save up, in packets: 2 (ours).
    pub credit_burst: f64,
    /// A flow with more drops than this in this and the last epoch is OverPenalized: the
    /// paper's "more than 2 packet drops".
    pub overpenalized_drops: u32,
    /// OverPenalized takes precedence over AboveFairShare: §4.2, "once a flow is penalized
    /// with more than 2 packet drops in an epoch, the flow is automatically assigned to the
    /// OverPenalized queue" (the default). Off: only flows below their fair share are.
    pub overpenalized_first: bool,
    /// Handshake packets (SYN, SYN-ACK) go to NewFlow, the queue of connections that have
    /// just begun (§4.2), where its share limits how fast new connections come in (the
    /// default). Off: to BelowFairShare, with the other segments without payload.
    pub syns_in_newflow: bool,
    /// How many connections may have packets in NewFlow at once (§4.2's NewQueue capacity);
    /// `None` (the default: the paper gives no number): no limit but its share.
    pub newflow_connections: Option<u32>,
    pub drop: TaqDrop,
    /// Choose which packet of the lowest class to drop by §4.1's prediction of the drop's
    /// effect on its flow's next state (`FlowRecord::outcome_of_a_drop`): the packet whose loss
    /// harms its flow least, the latest of those. Off (the default): the class's tail. Our
    /// reading — §4.1 gives the idea, §4.2's classes its use — and it costs a little fairness
    /// in the small packet regime (experiment taq-fairness, arm `taq-predict`).
    pub predict_next_state: bool,
    /// The duplicate-ACK threshold the prediction assumes of the senders (RFC 5681: 3).
    pub predict_dupthresh: u32,
    /// How often the fair share (active flows) is recomputed: 10 ms (ours).
    pub fair_share_refresh: SimTime,
    /// A flow is above its fair share when its rate is at least (1 + this) × the share: 0, the
    /// paper's "above the fair share" (§4.2). A margin keeps flows near the share in level 2
    /// (experiment taq-fairness, arm `taq-margin`).
    pub fair_share_margin: f64,
    /// The flow tracker's constants; one-way tracking times epochs from the handshake and each
    /// packet's time in this queue (`OneWayEpoch::Queue`), not from bursts, which TAQ's own
    /// scheduling blurs (experiment taq-epochs).
    pub tracker: TrackerParams,
    /// Admission control of flow pools (§4.3), if on (off by default: the paper evaluates TAQ
    /// with it only in §5.5).
    pub admission: Option<AdmissionParams>,
    /// Track epochs from both directions, as §3.3's "conventional mode of operation": the queue
    /// sees the ACKs coming back over its link and times each data packet to the ACK that
    /// covers it. Off: one-way tracking (`tracker.one_way`), as the paper falls back to when it
    /// sees one direction only.
    pub two_way: bool,
}

impl Default for TaqParams {
    fn default() -> TaqParams {
        TaqParams {
            limit: Size::Packets(100),
            recovery_share: 0.5,
            newflow_share: 0.25,
            credit_burst: 2.0,
            overpenalized_drops: 2,
            overpenalized_first: true,
            syns_in_newflow: true,
            newflow_connections: None,
            drop: TaqDrop::PushOut,
            predict_next_state: false,
            predict_dupthresh: 3,
            fair_share_refresh: SimTime::from_ms(10),
            fair_share_margin: 0.0,
            tracker: TrackerParams { one_way: OneWayEpoch::Queue, ..TrackerParams::default() },
            admission: None,
            two_way: false,
        }
    }
}

/// What classifying an arriving segment reads of it.
#[derive(Clone, Copy, Debug)]
struct Segment {
    /// The tracker judged it a retransmission.
    retransmission: bool,
    /// Payload bytes.
    len: u32,
    /// A handshake packet (SYN or SYN-ACK).
    syn: bool,
}

/// A queued packet: its arrival order (for level 2's FIFO across classes), its flow and, in
/// Recovery, its priority.
#[derive(Clone, Copy, Debug)]
struct Entry {
    pkt: PacketId,
    order: u64,
    key: Option<FlowKey>,
    seq: u64,
    len: u32,
    priority: u32,
}

#[derive(Debug)]
pub struct TaqQueue {
    p: TaqParams,
    rate: Rate,
    pub tracker: FlowTracker,
    pub admission: Option<AdmissionControl>,
    /// Handshake packets of flows waiting for admission, in arrival order (not in the buffer).
    held: VecDeque<(FlowKey, PacketId)>,
    classes: [VecDeque<Entry>; CLASSES],
    packets: usize,
    bytes: u64,
    order: u64,
    recovery_credit: f64,
    newflow_credit: f64,
    /// Packets each connection has in NewFlow (kept only with `newflow_connections`).
    newflow_conns: HashMap<FlowKey, u32>,
    active_flows: usize,
    next_refresh: SimTime,
    /// Packets enqueued and dropped per class.
    pub class_enqueued: [u64; CLASSES],
    pub class_drops: [u64; CLASSES],
    stats: QdiscStats,
}

impl TaqQueue {
    pub fn new(p: TaqParams, rate: Rate) -> TaqQueue {
        TaqQueue {
            tracker: FlowTracker::new(p.tracker),
            admission: p.admission.map(AdmissionControl::new),
            held: VecDeque::new(),
            classes: Default::default(),
            packets: 0,
            bytes: 0,
            order: 0,
            recovery_credit: p.credit_burst,
            newflow_credit: p.credit_burst,
            newflow_conns: HashMap::new(),
            active_flows: 0,
            next_refresh: SimTime::ZERO,
            class_enqueued: [0; CLASSES],
            class_drops: [0; CLASSES],
            stats: QdiscStats::default(),
            rate,
            p,
        }
    }

    /// The fair share, bytes per second, as last computed.
    pub fn fair_share_bps(&self) -> f64 {
        self.rate.bps() as f64 / self.active_flows.max(1) as f64
    }

    fn refresh(&mut self, now: SimTime) {
        if now < self.next_refresh {
            return;
        }
        self.next_refresh = now + self.p.fair_share_refresh;
        self.tracker.advance(now);
        self.active_flows = self.tracker.flows().filter(|(_, f)| f.state != FlowState::Idle).count();
    }

    /// Which class an arriving segment goes to (the tracker has seen it).
    fn classify(&self, now: SimTime, key: &FlowKey, seg: Segment) -> (TaqClass, u32) {
        let Segment { retransmission, len, syn } = seg;
        if syn && self.p.syns_in_newflow {
            return (TaqClass::NewFlow, 0);
        }
        let Some(f) = self.tracker.get(key) else { return (TaqClass::BelowFairShare, 0) };
        if len == 0 {
            return (TaqClass::BelowFairShare, 0);
        }
        if retransmission {
            // Longest silence first; a repeated timeout's silence outranks a first one's.
            let rank = match f.silence_state() {
                FlowState::ExtendedSilence => 2,
                FlowState::TimeoutSilence | FlowState::TimeoutRecovery => 1,
                _ => 0,
            };
            return (TaqClass::Recovery, rank * 1_000_000 + f.silent_epochs.min(999_999));
        }
        if f.state == FlowState::SlowStart && f.losses == 0 {
            return (TaqClass::NewFlow, 0);
        }
        let over_penalized = f.current.drops + f.previous.drops > self.p.overpenalized_drops;
        if over_penalized && self.p.overpenalized_first {
            (TaqClass::OverPenalized, 0)
        } else if f.rate_bps(now, &self.p.tracker) >= self.fair_share_bps() * (1.0 + self.p.fair_share_margin)
        {
            (TaqClass::AboveFairShare, 0)
        } else if over_penalized {
            (TaqClass::OverPenalized, 0)
        } else {
            (TaqClass::BelowFairShare, 0)
        }
    }

    fn push(&mut self, class: TaqClass, e: Entry, len: u64) {
        let key = e.key;
        let q = &mut self.classes[class as usize];
        if class == TaqClass::Recovery {
            // Higher priority nearer the head; arrival order among equals.
            let at = q.iter().position(|x| x.priority < e.priority).unwrap_or(q.len());
            q.insert(at, e);
        } else {
            q.push_back(e);
        }
        self.packets += 1;
        self.bytes += len;
        self.class_enqueued[class as usize] += 1;
        if class == TaqClass::NewFlow {
            self.newflow_counted(key, true);
        }
    }

    /// Keep the count of NewFlow packets per connection as one arrives (`joined`) or leaves.
    fn newflow_counted(&mut self, key: Option<FlowKey>, joined: bool) {
        let (Some(_), Some(k)) = (self.p.newflow_connections, key) else { return };
        if joined {
            *self.newflow_conns.entry(k).or_insert(0) += 1;
        } else if let Some(n) = self.newflow_conns.get_mut(&k) {
            *n -= 1;
            if *n == 0 {
                self.newflow_conns.remove(&k);
            }
        }
    }

    /// NewFlow is full: it holds packets of `newflow_connections` connections, none `key`'s.
    fn newflow_full_for(&self, key: Option<FlowKey>) -> bool {
        match (self.p.newflow_connections, key) {
            (Some(cap), Some(k)) => {
                !self.newflow_conns.contains_key(&k) && self.newflow_conns.len() >= cap as usize
            }
            _ => false,
        }
    }

    /// Tell the tracker about a dropped packet of class `class`.
    fn note_drop(&mut self, now: SimTime, class: TaqClass, e: &Entry) {
        self.class_drops[class as usize] += 1;
        if let Some(ac) = &mut self.admission {
            ac.on_drop();
        }
        if let Some(key) = e.key
            && e.len > 0
        {
            self.tracker.on_drop(now, key, e.seq, e.len, class == TaqClass::Recovery);
        }
    }

    fn take(&mut self, now: SimTime, class: TaqClass, pool: &PacketPool) -> Option<PacketId> {
        let e = self.classes[class as usize].pop_front()?;
        if class == TaqClass::NewFlow {
            self.newflow_counted(e.key, false);
        }
        if let Some(key) = e.key {
            let new_data = e.len > 0 && class != TaqClass::Recovery;
            self.tracker.on_left_queue(now, key, pool.get(e.pkt), new_data);
        }
        self.packets -= 1;
        self.bytes -= pool.get(e.pkt).ip_len() as u64;
        Some(e.pkt)
    }

    /// An arrival the admission control let through (or a released one): track, classify,
    /// queue or drop.
    fn admit(&mut self, now: SimTime, pkt: PacketId, pool: &mut PacketPool) -> Verdict {
        self.tracker.local_delay = self.rate.tx_time(self.bytes);
        let p = pool.get_mut(pkt);
        p.meta.enqueued_at = now;
        let len = p.ip_len() as u64;
        let seen = self.tracker.on_segment(now, p);
        let key = seen.map(|(k, _)| k);
        let (seq, payload) = if key.is_some() { (p.tcp.seq, p.tcp.payload_len as u32) } else { (0, 0) };
        let seg = Segment {
            retransmission: seen.is_some_and(|(_, r)| r),
            len: payload,
            syn: p.tcp.flags.has(TcpFlags::SYN),
        };
        let (class, priority) = match key {
            Some(k) => self.classify(now, &k, seg),
            None => (TaqClass::AboveFairShare, 0),
        };
        self.order += 1;
        let e = Entry { pkt, order: self.order, key, seq, len: payload, priority };
        if class == TaqClass::NewFlow && self.newflow_full_for(key) {
            // §4.2's NewQueue capacity: no room for another new connection.
            self.note_drop(now, class, &e);
            self.stats.count_drop(DropCause::Admission);
            return Verdict::Dropped(pkt, DropCause::Admission);
        }
        if !self.p.limit.exceeded_by(self.packets, self.bytes, len) {
            self.push(class, e, len);
            self.stats.enqueued += 1;
            self.stats.note_occupancy(self.packets, self.bytes);
            return Verdict::Enqueued;
        }
        let lowest = TaqClass::ALL.into_iter().find(|c| !self.classes[*c as usize].is_empty());
        let victim = match lowest {
            Some(c) if self.p.drop == TaqDrop::PushOut && c <= class => self.victim_in(c, class, &e, pool),
            _ => None,
        };
        match victim {
            Some((victim_class, i)) => {
                let queue = &mut self.classes[victim_class as usize];
                let victim = queue.remove(i).expect("in range");
                if victim_class == TaqClass::NewFlow {
                    self.newflow_counted(victim.key, false);
                }
                self.packets -= 1;
                self.bytes -= pool.get(victim.pkt).ip_len() as u64;
                self.note_drop(now, victim_class, &victim);
                self.push(class, e, len);
                self.stats.enqueued += 1;
                self.stats.count_drop(DropCause::PushedOut);
                Verdict::PushedOut(victim.pkt, DropCause::PushedOut)
            }
            _ => {
                self.note_drop(now, class, &e);
                self.stats.count_drop(DropCause::Overflow);
                Verdict::Dropped(pkt, DropCause::Overflow)
            }
        }
    }

    /// Which packet of `class` (the lowest non-empty one) to push out for arrival `e` of
    /// class `arriving`, if any: from a lower class the tail, or with `predict_next_state` the
    /// packet whose loss harms its flow least; from the arrival's own class only with the
    /// prediction, and only a packet whose loss harms less than the arrival's would.
    fn victim_in(
        &self,
        class: TaqClass,
        arriving: TaqClass,
        e: &Entry,
        pool: &PacketPool,
    ) -> Option<(TaqClass, usize)> {
        if !self.p.predict_next_state {
            return (class < arriving).then(|| (class, self.classes[class as usize].len() - 1));
        }
        let (i, harm) = self.least_harmful(class, pool)?;
        (class < arriving || harm < self.harm(e, pool)).then_some((class, i))
    }

    /// What dropping `e` is predicted to do to its flow (§4.1): handshake packets as a timeout
    /// (a lost SYN waits for the SYN timer), other packets without payload and packets of no
    /// tracked flow as nothing.
    fn harm(&self, e: &Entry, pool: &PacketPool) -> DropOutcome {
        if e.len == 0 {
            return match pool.get(e.pkt).tcp.flags.has(TcpFlags::SYN) {
                true => DropOutcome::Timeout,
                false => DropOutcome::FastRecovery,
            };
        }
        match e.key.and_then(|k| self.tracker.get(&k)) {
            Some(f) => f.outcome_of_a_drop(self.p.predict_dupthresh),
            None => DropOutcome::FastRecovery,
        }
    }

    /// The index in `class` of the packet whose drop is predicted to harm its flow least, the
    /// latest arrival among equals, and that harm.
    fn least_harmful(&self, class: TaqClass, pool: &PacketPool) -> Option<(usize, DropOutcome)> {
        let queue = self.classes[class as usize].iter().enumerate().rev();
        // `min_by_key` keeps the first of equals: scanning from the tail, the latest.
        queue.map(|(i, e)| (i, self.harm(e, pool))).min_by_key(|&(_, harm)| harm)
    }

    /// Let in the held packets of pools admitted by now; what finds no room is dropped.
    fn release_admitted(
        &mut self,
        now: SimTime,
        pool: &mut PacketPool,
        drops: &mut Vec<(PacketId, DropCause)>,
    ) {
        let Some(ac) = &mut self.admission else { return };
        if ac.waiting_pools() == 0 {
            return;
        }
        let flows = ac.release(now);
        if flows.is_empty() || self.held.is_empty() {
            return;
        }
        let (go, stay): (VecDeque<_>, VecDeque<_>) =
            std::mem::take(&mut self.held).into_iter().partition(|(k, _)| flows.contains(k));
        self.held = stay;
        for (_, pkt) in go {
            match self.admit(now, pkt, pool) {
                Verdict::Dropped(p, c) | Verdict::PushedOut(p, c) => drops.push((p, c)),
                Verdict::Enqueued | Verdict::Cut(..) => {}
            }
        }
    }
}

impl Qdisc for TaqQueue {
    fn enqueue(
        &mut self,
        now: SimTime,
        pkt: PacketId,
        pool: &mut PacketPool,
        drops: &mut Vec<(PacketId, DropCause)>,
    ) -> Verdict {
        self.refresh(now);
        self.release_admitted(now, pool, drops);
        if let Some(ac) = &mut self.admission
            && let Some((key, syn)) = FlowKey::of(pool.get(pkt))
        {
            let ack = pool.get(pkt).tcp.flags.has(TcpFlags::ACK);
            match ac.on_packet(now, key, syn, ack) {
                Admit::Pass => {}
                Admit::Hold => {
                    self.held.push_back((key, pkt));
                    return Verdict::Enqueued;
                }
                Admit::Duplicate | Admit::Reject => {
                    self.stats.count_drop(DropCause::Admission);
                    return Verdict::Dropped(pkt, DropCause::Admission);
                }
            }
        }
        self.admit(now, pkt, pool)
    }

    fn dequeue(
        &mut self,
        now: SimTime,
        pool: &mut PacketPool,
        drops: &mut Vec<(PacketId, DropCause)>,
    ) -> Option<PacketId> {
        if !self.held.is_empty() {
            self.release_admitted(now, pool, drops);
        }
        if self.packets == 0 {
            return None;
        }
        self.refresh(now);
        let burst = self.p.credit_burst;
        self.recovery_credit = (self.recovery_credit + self.p.recovery_share).min(burst);
        self.newflow_credit = (self.newflow_credit + self.p.newflow_share).min(burst);
        let nonempty = |c: TaqClass| !self.classes[c as usize].is_empty();
        // Level 1 while it has credit.
        if nonempty(TaqClass::Recovery) && self.recovery_credit >= 1.0 {
            self.recovery_credit -= 1.0;
            let pkt = self.take(now, TaqClass::Recovery, pool);
            self.stats.dequeued += 1;
            return pkt;
        }
        // Level 2: the oldest head among its classes (NewFlow only with credit).
        let head = |c: TaqClass| self.classes[c as usize].front().map(|e| (e.order, c));
        let mut pick = [TaqClass::OverPenalized, TaqClass::BelowFairShare]
            .into_iter()
            .filter_map(head)
            .chain((self.newflow_credit >= 1.0).then(|| head(TaqClass::NewFlow)).flatten())
            .min();
        // Then level 3, then whatever is left (work conservation).
        if pick.is_none() {
            pick = [TaqClass::AboveFairShare, TaqClass::NewFlow, TaqClass::Recovery]
                .into_iter()
                .find(|&c| nonempty(c))
                .map(|c| (0, c));
        }
        let (_, class) = pick?;
        match class {
            TaqClass::NewFlow => self.newflow_credit = (self.newflow_credit - 1.0).max(0.0),
            TaqClass::Recovery => self.recovery_credit = (self.recovery_credit - 1.0).max(0.0),
            _ => {}
        }
        let pkt = self.take(now, class, pool);
        self.stats.dequeued += 1;
        pkt
    }

    fn len_packets(&self) -> usize {
        self.packets
    }

    fn len_bytes(&self) -> u64 {
        self.bytes
    }

    fn stats(&self) -> QdiscStats {
        self.stats.clone()
    }

    fn room_packets(&self) -> Option<usize> {
        Some(self.p.limit.room_packets(self.packets, self.bytes))
    }

    fn capacity_packets(&self) -> Option<usize> {
        Some(self.p.limit.in_full_packets())
    }

    fn wants_reverse(&self) -> bool {
        self.p.two_way
    }

    /// An ACK of one of the queue's flows came back: the tracker's two-way RTT sample.
    fn observe_reverse(&mut self, now: SimTime, pkt: &Packet) {
        if let Some((key, _)) = FlowKey::of(pkt)
            && pkt.tcp.flags.has(TcpFlags::ACK)
        {
            self.tracker.on_ack(now, key.reversed(), pkt.tcp.ack);
        }
    }

    fn record_flow_epochs(&mut self) -> bool {
        self.tracker.record_epochs();
        true
    }

    fn flow_epochs(&self, now: SimTime) -> Option<Vec<FlowEpoch>> {
        self.tracker.closed_epochs(now)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ids::HostId;
    use crate::mechanisms::taq::admission::NotAdmitted;
    use crate::net::packet::{Packet, TcpFlags, TcpSegment};

    const MSS: u32 = 1000;

    fn ms(x: u64) -> SimTime {
        SimTime::from_ms(x)
    }

    /// A segment of the flow from host `src` (port 10 000 + src) to host 99.
    fn segment(pool: &mut PacketPool, src: u32, seq: u64, payload: u32, syn: bool) -> PacketId {
        let flags = if syn { TcpFlags::SYN } else { TcpFlags::ACK };
        let tcp = TcpSegment {
            seq,
            ack: 1,
            flags,
            payload_len: payload as u16,
            src_port: 10_000 + src as u16,
            dst_port: 80,
            ..Default::default()
        };
        pool.alloc(Packet::tcp_for_test(HostId(src), HostId(99), tcp))
    }

    fn key(src: u32) -> FlowKey {
        FlowKey { src: HostId(src), dst: HostId(99), sport: 10_000 + src as u16, dport: 80 }
    }

    struct Bench {
        q: TaqQueue,
        pool: PacketPool,
        drops: Vec<(PacketId, DropCause)>,
    }

    impl Bench {
        fn new(p: TaqParams) -> Bench {
            Bench { q: TaqQueue::new(p, Rate::from_mbps(1)), pool: PacketPool::new(), drops: Vec::new() }
        }
        fn offer(&mut self, at: SimTime, src: u32, seq: u64, payload: u32) -> (PacketId, Verdict) {
            let pkt = segment(&mut self.pool, src, seq, payload, false);
            (pkt, self.q.enqueue(at, pkt, &mut self.pool, &mut self.drops))
        }
        /// A flow that opened at 0 and sent its first segment at 100 ms (a 100 ms epoch).
        fn open(&mut self, src: u32) {
            let syn = segment(&mut self.pool, src, 0, 0, true);
            self.q.enqueue(ms(0), syn, &mut self.pool, &mut self.drops);
            self.take(ms(0));
            self.offer(ms(100), src, 1, MSS);
            self.take(ms(100));
        }
        /// The source host of the next packet out.
        fn take(&mut self, at: SimTime) -> Option<u32> {
            let pkt = self.q.dequeue(at, &mut self.pool, &mut self.drops)?;
            Some(self.pool.get(pkt).ip.src.0)
        }
        /// Flows 1 and 2 open; flow 1 then sends 30 segments at 110 ms (far above half of
        /// 1 Mbps in its epoch) and loses the first `drops` of them. Returns its next sequence.
        fn flow_1_above_its_share(&mut self, drops: u64) -> u64 {
            self.open(1);
            self.open(2);
            let mut seq = 1 + MSS as u64;
            for _ in 0..30 {
                self.offer(ms(110), 1, seq, MSS);
                seq += MSS as u64;
            }
            for i in 0..drops {
                self.q.tracker.on_drop(ms(110), key(1), 1 + MSS as u64 * (1 + i), MSS, false);
            }
            seq
        }
        /// The class a segment of flow 1 at `seq`, offered at 120 ms, goes to.
        fn class_of_flow_1(&mut self, seq: u64) -> TaqClass {
            let before = self.q.class_enqueued;
            self.offer(ms(120), 1, seq, MSS);
            let after = self.q.class_enqueued;
            TaqClass::ALL.into_iter().find(|&c| after[c as usize] > before[c as usize]).unwrap()
        }
    }

    #[test]
    fn recovery_goes_first_but_within_its_share() {
        let mut b = Bench::new(TaqParams::default());
        b.open(1); // flow 1 retransmits, flow 2 sends new data in slow start
        b.open(2);
        for i in 0..20 {
            b.offer(ms(150), 1, 1, MSS); // retransmissions of its first segment
            b.offer(ms(150), 2, 1 + MSS as u64 * (1 + i), MSS);
        }
        assert_eq!(b.q.class_enqueued[TaqClass::Recovery as usize], 20);
        assert_eq!(
            b.q.class_enqueued[TaqClass::NewFlow as usize],
            20 + 2 + 2,
            "and both SYNs and first segments"
        );
        let order: Vec<u32> = (0..20).map(|_| b.take(ms(150)).unwrap()).collect();
        assert_eq!(order[..3], [1, 1, 1], "the saved credit first");
        let recovery = order.iter().filter(|&&s| s == 1).count();
        assert!((10..=12).contains(&recovery), "about half once the credit is spent: {order:?}");
        // Work-conserving: with nothing else waiting, Recovery takes the link.
        let rest: Vec<u32> = std::iter::from_fn(|| b.take(ms(150))).collect();
        assert_eq!(rest.len(), 20);
    }

    #[test]
    fn a_longer_silence_retransmits_first() {
        let mut b = Bench::new(TaqParams::default());
        b.open(1);
        b.open(2);
        // Flow 1 loses a segment here, then falls silent: timeout, then extended silence.
        b.q.tracker.on_drop(ms(100), key(1), 1, MSS, false);
        // Flow 2 keeps sending.
        for t in [200, 300, 400, 500] {
            b.offer(ms(t), 2, b.q.tracker.get(&key(2)).unwrap().highest_seq, MSS);
            b.take(ms(t));
        }
        b.q.tracker.advance(ms(540));
        assert_eq!(b.q.tracker.state(&key(1)), Some(FlowState::ExtendedSilence));
        b.offer(ms(540), 2, 1, MSS); // flow 2 retransmits first…
        b.offer(ms(550), 1, 1, MSS); // …flow 1, after its long silence, second
        assert_eq!(b.take(ms(550)), Some(1));
        assert_eq!(b.take(ms(550)), Some(2));
    }

    #[test]
    fn new_flows_get_their_share_beside_level_two() {
        let mut b = Bench::new(TaqParams::default());
        b.open(2);
        for i in 0..40 {
            b.offer(ms(150), 3, 0, 0); // segments without payload: BelowFairShare
            b.offer(ms(150), 2, 1 + MSS as u64 * (1 + i), MSS);
        }
        let order: Vec<u32> = (0..40).map(|_| b.take(ms(150)).unwrap()).collect();
        let new = order.iter().filter(|&&s| s == 2).count();
        assert!((10..=13).contains(&new), "a quarter, plus the saved credit: {order:?}");
    }

    #[test]
    fn a_waiting_pools_handshake_is_held_outside_the_buffer_until_t_wait() {
        let admission =
            AdmissionParams { t_wait: ms(3000), not_admitted: NotAdmitted::Hold, ..Default::default() };
        let mut b = Bench::new(TaqParams { admission: Some(admission), ..Default::default() });
        b.open(1); // a flow admitted while the link was calm…
        for i in 0..200 {
            b.offer(ms(200), 1, 1 + MSS as u64 * (1 + i), MSS); // …floods the 100-packet buffer
        }
        // Host 5 answers client 99's SYN: the SYN-ACK of a new pool waits.
        let tcp = TcpSegment {
            flags: TcpFlags(TcpFlags::SYN.0 | TcpFlags::ACK.0),
            src_port: 80,
            dst_port: 7,
            ..Default::default()
        };
        let syn_ack = b.pool.alloc(Packet::tcp_for_test(HostId(5), HostId(99), tcp));
        assert_eq!(b.q.enqueue(ms(1100), syn_ack, &mut b.pool, &mut b.drops), Verdict::Enqueued);
        assert!(!b.q.admission.as_ref().unwrap().open(), "the first second lost half");
        assert_eq!(b.q.len_packets(), 100, "held, not queued");
        let again = b.pool.alloc(Packet::tcp_for_test(HostId(5), HostId(99), tcp));
        assert_eq!(
            b.q.enqueue(ms(1200), again, &mut b.pool, &mut b.drops),
            Verdict::Dropped(again, DropCause::Admission),
            "its retransmission is a duplicate"
        );
        // Flow 1 keeps the buffer overflowing; at T_wait the SYN-ACK goes in anyway.
        for t in [1500, 2500, 3500] {
            let next = b.q.tracker.get(&key(1)).unwrap().highest_seq;
            for i in 0..100 {
                b.offer(ms(t), 1, next + MSS as u64 * i, MSS);
            }
            assert!(b.q.len_packets() == 100 && b.q.held.len() == 1, "still held at {t} ms");
        }
        while b.take(ms(3600)).is_some() {}
        assert_eq!(b.q.held.len(), 1, "the queue drained before T_wait: still held");
        assert_eq!(b.take(ms(4099)), None);
        assert_eq!(b.take(ms(4100)), Some(5));
        assert_eq!(b.q.admission.as_ref().unwrap().stats.released_by_t_wait, 1);
    }

    /// Four packets fill the buffer, all NewFlow: flow 1's first (a window of 10, nothing lost:
    /// a drop means a fast retransmit), then flow 2's at the tail (a window of 2: a drop means
    /// a timeout). §4.1's prediction pushes out flow 1's packet for a higher-class arrival (a
    /// retransmission), and for an arrival of flow 2's own class drops flow 1's rather than it;
    /// without the prediction the tail goes, and a same-class arrival is dropped.
    #[test]
    fn the_predicted_next_state_chooses_the_packet_to_drop() {
        let run = |predict: bool, retransmission: bool| {
            let p = TaqParams { limit: Size::Packets(4), predict_next_state: predict, ..Default::default() };
            let mut b = Bench::new(p);
            for f in 1..=3 {
                b.open(f);
            }
            for f in [1, 1, 2, 2] {
                let next = b.q.tracker.get(&key(f)).unwrap().highest_seq;
                b.offer(ms(150), f, next, MSS);
            }
            for (f, window) in [(1, 10), (2, 2)] {
                let r = b.q.tracker.get_mut(&key(f)).unwrap();
                (r.previous.new_packets, r.current.new_packets) = (window, window);
            }
            let (src, seq) =
                if retransmission { (3, 1) } else { (2, b.q.tracker.get(&key(2)).unwrap().highest_seq) };
            let (pkt, verdict) = b.offer(ms(150), src, seq, MSS);
            match verdict {
                Verdict::PushedOut(victim, _) => Some(b.pool.get(victim).ip.src.0),
                v => {
                    assert_eq!(v, Verdict::Dropped(pkt, DropCause::Overflow));
                    None
                }
            }
        };
        assert_eq!(run(true, true), Some(1), "flow 1 recovers from a drop");
        assert_eq!(run(false, true), Some(2), "the tail");
        assert_eq!(run(true, false), Some(1), "instead of the arrival, whose flow would time out");
        assert_eq!(run(false, false), None, "the arrival");
    }

    /// §4.3 (the default): the handshake of a pool not admitted is dropped, and its retry
    /// once the pool is let in (T_wait after the first rejection, the link still congested)
    /// goes into the queue.
    #[test]
    fn a_waiting_pools_handshake_is_rejected_and_its_retry_after_t_wait_admitted() {
        let admission = AdmissionParams { t_wait: ms(3000), ..Default::default() };
        let mut b = Bench::new(TaqParams { admission: Some(admission), ..Default::default() });
        b.open(1);
        let flood = |b: &mut Bench, t: u64| {
            let next = b.q.tracker.get(&key(1)).map_or(1 + MSS as u64, |f| f.highest_seq + MSS as u64);
            for i in 0..200 {
                b.offer(ms(t), 1, next + MSS as u64 * i, MSS);
            }
        };
        flood(&mut b, 200);
        let tcp = TcpSegment {
            flags: TcpFlags(TcpFlags::SYN.0 | TcpFlags::ACK.0),
            src_port: 80,
            dst_port: 7,
            ..Default::default()
        };
        let syn_ack_at = |b: &mut Bench, t: u64| {
            let p = b.pool.alloc(Packet::tcp_for_test(HostId(5), HostId(99), tcp));
            (p, b.q.enqueue(ms(t), p, &mut b.pool, &mut b.drops))
        };
        for t in [1100, 2100] {
            let (p, v) = syn_ack_at(&mut b, t);
            assert_eq!(v, Verdict::Dropped(p, DropCause::Admission), "rejected at {t} ms");
            flood(&mut b, t + 400);
        }
        assert!(b.q.held.is_empty(), "nothing held");
        flood(&mut b, 3500);
        while b.take(ms(3600)).is_some() {}
        let (p, v) = syn_ack_at(&mut b, 4099);
        assert_eq!(v, Verdict::Dropped(p, DropCause::Admission), "rejected just before T_wait");
        let (_, v) = syn_ack_at(&mut b, 4100);
        assert_eq!(v, Verdict::Enqueued, "the retry after T_wait");
        assert!(!b.q.admission.as_ref().unwrap().open(), "the link still congested");
        assert_eq!(b.q.admission.as_ref().unwrap().stats.released_by_t_wait, 1);
    }

    /// §4.2: a flow with more than 2 drops is OverPenalized even above its fair share (the
    /// default); with `overpenalized_first` off it stays AboveFairShare.
    #[test]
    fn a_flow_dropped_more_than_twice_is_over_penalized_even_above_its_share() {
        let class_of_next = |first: bool| {
            let mut b = Bench::new(TaqParams { overpenalized_first: first, ..Default::default() });
            let seq = b.flow_1_above_its_share(3);
            b.class_of_flow_1(seq)
        };
        assert_eq!(class_of_next(true), TaqClass::OverPenalized);
        assert_eq!(class_of_next(false), TaqClass::AboveFairShare);
    }

    /// With a fair-share margin a flow just above its share stays in level 2 (BelowFairShare);
    /// without one it goes to level 3 (AboveFairShare), as §4.2 says.
    #[test]
    fn a_fair_share_margin_keeps_a_flow_near_its_share_in_level_2() {
        let class_of_next = |margin: f64| {
            let mut b = Bench::new(TaqParams { fair_share_margin: margin, ..Default::default() });
            let seq = b.flow_1_above_its_share(1); // one loss: not NewFlow, not over-penalized
            let excess =
                b.q.tracker.get(&key(1)).unwrap().rate_bps(ms(120), &b.q.p.tracker) / b.q.fair_share_bps();
            (b.class_of_flow_1(seq), excess)
        };
        let (class, excess) = class_of_next(0.0);
        assert!(excess > 1.0, "flow 1 sends above its share ({excess}×)");
        assert_eq!(class, TaqClass::AboveFairShare);
        assert_eq!(class_of_next(excess).0, TaqClass::BelowFairShare, "within (1 + {excess})× the share");
    }

    /// §4.2's NewQueue capacity: with room for two connections, a third's SYN is dropped
    /// while two have packets in NewFlow, and taken once one of them has left it.
    #[test]
    fn newflow_holds_at_most_its_capacity_in_connections() {
        let capped = TaqParams { newflow_connections: Some(2), ..Default::default() };
        for (params, third_dropped) in [(capped, true), (TaqParams::default(), false)] {
            let mut b = Bench::new(params);
            let syn = |b: &mut Bench, src| {
                let p = segment(&mut b.pool, src, 0, 0, true);
                b.q.enqueue(ms(0), p, &mut b.pool, &mut b.drops)
            };
            assert_eq!(syn(&mut b, 1), Verdict::Enqueued);
            assert_eq!(syn(&mut b, 2), Verdict::Enqueued);
            assert_eq!(syn(&mut b, 1), Verdict::Enqueued, "a connection already in NewFlow");
            let v = syn(&mut b, 3);
            assert_eq!(matches!(v, Verdict::Dropped(_, DropCause::Admission)), third_dropped, "{v:?}");
            if third_dropped {
                b.take(ms(1));
                b.take(ms(1));
                b.take(ms(1)); // both of connection 1's packets and connection 2's have left
                assert_eq!(syn(&mut b, 3), Verdict::Enqueued);
            }
        }
    }

    /// §4.2: a handshake packet is a new connection's and goes to NewFlow (the default), or
    /// with the other segments without payload to BelowFairShare.
    #[test]
    fn a_syn_goes_to_newflow() {
        for (in_newflow, class) in [(true, TaqClass::NewFlow), (false, TaqClass::BelowFairShare)] {
            let mut b = Bench::new(TaqParams { syns_in_newflow: in_newflow, ..Default::default() });
            let syn = segment(&mut b.pool, 4, 0, 0, true);
            b.q.enqueue(ms(0), syn, &mut b.pool, &mut b.drops);
            assert_eq!(b.q.class_enqueued[class as usize], 1, "syns_in_newflow = {in_newflow}");
        }
    }

    #[test]
    fn a_full_buffer_pushes_out_the_lowest_class_tail() {
        let mut b = Bench::new(TaqParams { limit: Size::Packets(4), ..Default::default() });
        b.open(1);
        b.open(2);
        b.open(3);
        let mut sent = vec![];
        for i in 0..4 {
            sent.push(b.offer(ms(150), 2, 1 + MSS as u64 * (1 + i), MSS).0);
        }
        let (_, v) = b.offer(ms(150), 1, 1, MSS); // a retransmission into a full buffer
        assert_eq!(v, Verdict::PushedOut(sent[3], DropCause::PushedOut));
        assert_eq!(b.q.tracker.get(&key(2)).unwrap().current.drops, 1, "the tracker knows");
        // A new flow's segment: NewFlow, the lowest class present, so the arrival goes.
        let (arrival, v) = b.offer(ms(150), 3, 1 + MSS as u64, MSS);
        assert_eq!(v, Verdict::Dropped(arrival, DropCause::Overflow));
        let mut tail =
            Bench::new(TaqParams { limit: Size::Packets(4), drop: TaqDrop::Tail, ..Default::default() });
        tail.open(1);
        tail.open(2);
        for i in 0..4 {
            tail.offer(ms(150), 2, 1 + MSS as u64 * (1 + i), MSS);
        }
        let (arrival, v) = tail.offer(ms(150), 1, 1, MSS);
        assert_eq!(v, Verdict::Dropped(arrival, DropCause::Overflow));
        assert_eq!(tail.q.tracker.get(&key(1)).unwrap().current.dropped_retransmissions, 1);
    }
}
