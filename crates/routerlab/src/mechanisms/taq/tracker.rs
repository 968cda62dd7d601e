//! TAQ's per-flow tracker: the approximate TCP state of every flow crossing a middlebox
//! (TAQ paper, §3.3 and Fig. 7, with the predictions of §4.1).
//!
//! A flow is a 5-tuple seen in the data direction. Its time is cut into *epochs* of one
//! middlebox-perceived RTT. The epoch is estimated, in order of preference:
//! - from two-way traffic, when the middlebox sees the ACKs: the time from a data packet to the
//!   ACK that covers it (the part of the RTT beyond the middlebox) plus the part before it, the
//!   shortest time yet from such an ACK to the flow's next new data packet (a sender in
//!   recovery or after a timeout sends no new data for a while: the shortest gap is its path),
//!   smoothed;
//! - from the handshake: the gap between the SYN and the first data packet, plus the delay of
//!   the observer's own queue (which the handshake, timed on arrival, does not see);
//! - refined with one-way traffic (`OneWayEpoch`), by default as the paper does, by the bursts
//!   that open each epoch: a packet after a gap of at least half an epoch starts a burst, and
//!   the time since the previous burst, if within 1.5 epochs (an ACK-clocked burst, not a
//!   timeout), is a sample. A queue that spreads a flow's few packets over its RTT makes
//!   fractions of the RTT pass as samples, and the estimate feeds on itself (experiment
//!   taq-epochs). `OneWayEpoch::Queue` instead anchors every packet's sample to the handshake:
//!   the loop the handshake timed outside the observer's queue (the SYN-to-first-data gap less
//!   what the SYN waited in the queue) plus the time each of the flow's packets spent in
//!   the queue, sampled as it leaves (`on_departure`) — the RTT, wherever this queue is the only
//!   one whose delay varies. A TAQ queue and a passive observer's port report departures.
//!
//! Per epoch it counts new packets (sequence above the highest seen), retransmitted packets
//! (not above it), and the middlebox's drops of each; the previous epoch's counters are kept.
//! When an epoch ends, the flow moves between the states of Fig. 7. The figure's arrows are
//! not described in the text; these are ours, each from the paper's description of the states
//! (§3.3) and of the effect of drops (§4.1):
//!
//! | from | epoch's evidence | to | why |
//! |---|---|---|---|
//! | any | a retransmission dropped here | timeout silence (extended, from timeout recovery) | §4.1: "when a retransmitted packet is dropped, a flow hits a timeout state" |
//! | slow start, normal | new packets dropped here | loss recovery | §4.1, normal packet loss |
//! | slow start, normal | retransmissions, nothing dropped here | loss recovery | §4.1: losses elsewhere adjust the state |
//! | slow start | new packets grew by less than 1.5× | normal | §3.3: slow start is "significant growth", normal "small linear growth" |
//! | loss recovery | every drop answered by a retransmission, new packets flowing | normal | §4.1, "may return back to a normal state" |
//! | timeout recovery | the same | slow start | §4.1, "will recover to a slow start state" |
//! | slow start, normal | silent, drops unanswered | timeout silence | a flow that cannot recover by fast retransmit falls silent until its timer |
//! | slow start, normal | silent, nothing unanswered | idle | the dummy state of §3.3: nothing to send |
//! | any | silent after its FIN, nothing unanswered | idle | the sender closed: nothing to send |
//! | loss recovery | silent | timeout silence | fast recovery keeps sending; silence means the timer |
//! | timeout recovery | silent | extended silence | a repeated timeout (§3.3) |
//! | timeout silence | silent beyond 2 epochs | extended silence | longer than a simple timeout (T₀ = 2 RTT, §3.1.1) |
//! | timeout / extended silence | retransmissions | timeout recovery | §3.3 |
//! | timeout / extended silence, idle | new packets only | slow start | a restart after idle or a timeout |
//!
//! All of this is sans-IO: the caller (a TAQ queue, or a passive observer on any port) hands
//! the tracker what it sees with the time; nothing reads a clock.

use std::collections::HashMap;

use crate::net::flow_epoch::FlowEpoch;
pub use crate::net::packet::FlowKey;
use crate::net::packet::{Packet, TcpFlags};
use crate::units::SimTime;

/// The approximate states of Fig. 7, plus the idle state for flows with nothing to send.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum FlowState {
    SlowStart,
    Normal,
    LossRecovery,
    TimeoutSilence,
    TimeoutRecovery,
    ExtendedSilence,
    Idle,
}

impl FlowState {
    pub fn name(self) -> &'static str {
        match self {
            FlowState::SlowStart => "slow_start",
            FlowState::Normal => "normal",
            FlowState::LossRecovery => "loss_recovery",
            FlowState::TimeoutSilence => "timeout_silence",
            FlowState::TimeoutRecovery => "timeout_recovery",
            FlowState::ExtendedSilence => "extended_silence",
            FlowState::Idle => "idle",
        }
    }

    /// A state in which the flow sends nothing.
    pub fn is_silent(self) -> bool {
        matches!(self, FlowState::TimeoutSilence | FlowState::ExtendedSilence | FlowState::Idle)
    }
}

/// How a flow's epoch is refined from one direction's packets alone.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum OneWayEpoch {
    /// From the bursts that open each epoch (the paper's §3.3).
    #[default]
    Bursts,
    /// The handshake's loop outside the observer's queue plus the queue's current delay.
    Queue,
}

/// The tracker's constants. The paper names none of them; each is our choice, written down.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct TrackerParams {
    /// How one-way traffic refines the epoch: the paper's bursts.
    pub one_way: OneWayEpoch,
    /// Weight of a new sample in the epoch's moving average (the paper: "a weighted moving
    /// average"); 1/8, RFC 6298's weight for SRTT.
    pub epoch_gain: f64,
    /// The epoch before any sample: 100 ms.
    pub initial_epoch: SimTime,
    /// A packet after a gap of at least this fraction of the epoch opens a burst: 0.5.
    pub burst_gap: f64,
    /// A burst-to-burst interval longer than this many epochs is not an epoch sample (it
    /// spans a timeout): 1.5.
    pub burst_max: f64,
    /// Slow start continues while an epoch's new packets grow by at least this factor: 1.5
    /// (exponential growth doubles them, linear growth adds one).
    pub slow_start_growth: f64,
    /// A timeout silence longer than this many epochs is an extended one: 2, the model's
    /// simple timeout T₀ = 2 RTT (§3.1.1).
    pub extended_after: u32,
}

impl Default for TrackerParams {
    fn default() -> TrackerParams {
        TrackerParams {
            one_way: OneWayEpoch::Bursts,
            epoch_gain: 0.125,
            initial_epoch: SimTime::from_ms(100),
            burst_gap: 0.5,
            burst_max: 1.5,
            slow_start_growth: 1.5,
            extended_after: 2,
        }
    }
}

/// What one more drop of a flow's new data would likely make of it (§4.1, "predicting the next
/// state"), from the least to the most harmful.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum DropOutcome {
    /// A single loss in a window large enough for duplicate ACKs: fast retransmit.
    FastRecovery,
    /// Another loss in a window that already lost one here: "multiple losses are much harder
    /// to deal with".
    MultipleLoss,
    /// A window too small to signal the loss with duplicate ACKs: the flow times out.
    Timeout,
    /// A flow just back from a timeout, or silent in one: the loss makes the timeouts repeat.
    RepeatedTimeout,
}

/// One epoch's counts.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct EpochCounters {
    pub new_packets: u32,
    pub retransmissions: u32,
    /// New packets the middlebox dropped.
    pub drops: u32,
    /// Retransmissions the middlebox dropped.
    pub dropped_retransmissions: u32,
    /// Payload bytes seen (new and retransmitted).
    pub bytes: u64,
}

impl EpochCounters {
    fn packets(&self) -> u32 {
        self.new_packets + self.retransmissions
    }
}

impl FlowRecord {
    /// §4.1's prediction for a drop of one of this flow's new packets: the window estimate is
    /// the new packets of the last or the current epoch (the paper's "number of new packets
    /// observed in an epoch as a rough measure of the window size"); a window of `dupthresh`
    /// or fewer cannot produce the duplicate ACKs a fast retransmit needs.
    pub fn outcome_of_a_drop(&self, dupthresh: u32) -> DropOutcome {
        match self.state {
            FlowState::TimeoutSilence | FlowState::TimeoutRecovery | FlowState::ExtendedSilence => {
                DropOutcome::RepeatedTimeout
            }
            _ if self.previous.new_packets.max(self.current.new_packets) <= dupthresh => DropOutcome::Timeout,
            _ if self.current.drops > 0 || self.unanswered_drops > 0 => DropOutcome::MultipleLoss,
            _ => DropOutcome::FastRecovery,
        }
    }
}

/// What the tracker knows of one flow.
#[derive(Clone, Debug)]
pub struct FlowRecord {
    pub state: FlowState,
    /// The epoch estimate, once there is a sample.
    pub epoch: Option<SimTime>,
    pub current: EpochCounters,
    pub previous: EpochCounters,
    /// Highest sequence number (end of a segment) seen.
    pub highest_seq: u64,
    /// Drops here not yet answered by a retransmission.
    pub unanswered_drops: u32,
    /// Epochs of the current silence (0 while the flow sends).
    pub silent_epochs: u32,
    /// The state before the current silence began (the paper's memory of "the last normal
    /// transmission").
    pub before_silence: FlowState,
    /// Epochs completed.
    pub epochs: u64,
    /// Drops here and retransmissions seen, over the flow's life.
    pub losses: u64,
    epoch_start: SimTime,
    syn_at: Option<SimTime>,
    /// What the latest SYN waited in the observer's queue (`OneWayEpoch::Queue`).
    syn_delay: SimTime,
    /// The loop the handshake timed outside the observer's queue (`OneWayEpoch::Queue`).
    outside: Option<SimTime>,
    last_packet: Option<SimTime>,
    last_burst: Option<SimTime>,
    two_way: bool,
    /// Two-way sampling: a new data packet's end sequence and time; then the time its ACK passed
    /// and how long it took.
    probe: Option<(u64, SimTime)>,
    acked: Option<(SimTime, SimTime)>,
    /// Two-way sampling: the shortest time seen from an ACK to the next new data packet.
    upstream: Option<SimTime>,
    /// The last data packet seen: its sequence number and whether it was a retransmission.
    last_seen: Option<(u64, bool)>,
    /// The sender's FIN passed: once its drops are answered, silence means nothing to send.
    fin_seen: bool,
}

impl FlowRecord {
    /// The state that describes the flow's silence: the current one if silent or recovering
    /// from a timeout, else the one before its last silence.
    pub fn silence_state(&self) -> FlowState {
        if self.state.is_silent() || self.state == FlowState::TimeoutRecovery {
            self.state
        } else {
            self.before_silence
        }
    }

    /// The flow's sending rate, bits per second, over the last epoch and the current one so
    /// far (one epoch alone is too short: a small-window flow sends its window in one burst).
    pub fn rate_bps(&self, now: SimTime, p: &TrackerParams) -> f64 {
        let span = epoch(self, p) + now.saturating_sub(self.epoch_start);
        (self.previous.bytes + self.current.bytes) as f64 * 8.0 / span.as_secs_f64()
    }

    fn new(now: SimTime) -> FlowRecord {
        FlowRecord {
            state: FlowState::SlowStart,
            epoch: None,
            current: EpochCounters::default(),
            previous: EpochCounters::default(),
            highest_seq: 0,
            unanswered_drops: 0,
            silent_epochs: 0,
            before_silence: FlowState::SlowStart,
            epochs: 0,
            losses: 0,
            epoch_start: now,
            syn_at: None,
            syn_delay: SimTime::ZERO,
            outside: None,
            last_packet: None,
            last_burst: None,
            two_way: false,
            probe: None,
            acked: None,
            upstream: None,
            last_seen: None,
            fin_seen: false,
        }
    }
}

/// One closed epoch (or a run of identical silent ones), for the flow-evolution record.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct EpochLog {
    /// When the (last) epoch ended.
    pub end: SimTime,
    pub key: FlowKey,
    pub from: FlowState,
    pub to: FlowState,
    /// Packets the flow sent in the epoch, and how many of them were dropped here.
    pub packets: u32,
    pub drops: u32,
    /// Epochs this entry stands for (more than 1 only for a long silence, closed in one step).
    pub epochs: u32,
}

/// Every flow seen, with its record.
#[derive(Clone, Debug, Default)]
pub struct FlowTracker {
    pub params: TrackerParams,
    /// The delay of the observer's own queue, if it has one: a handshake seen on arrival does
    /// not include it, though every packet of the flow will wait it out.
    pub local_delay: SimTime,
    flows: HashMap<FlowKey, FlowRecord>,
    /// Closed epochs, if asked for ([`FlowTracker::record_epochs`]).
    log: Option<Vec<EpochLog>>,
}

impl FlowTracker {
    pub fn new(params: TrackerParams) -> FlowTracker {
        FlowTracker { params, local_delay: SimTime::ZERO, flows: HashMap::new(), log: None }
    }

    /// Keep a record of every epoch closed from now on.
    pub fn record_epochs(&mut self) {
        self.log.get_or_insert_with(Vec::new);
    }

    /// The epochs closed so far, in the order they were closed (per flow, in time order).
    pub fn epoch_log(&self) -> &[EpochLog] {
        self.log.as_deref().unwrap_or(&[])
    }

    /// The epochs logged, each flow's closed up to `now` (a copy of the tracker is advanced:
    /// this one is left as it is), for the results' `flow_epochs` table.
    pub fn closed_epochs(&self, now: SimTime) -> Option<Vec<FlowEpoch>> {
        self.log.as_ref()?;
        let mut t = self.clone();
        t.advance(now);
        let record = |e: &EpochLog| FlowEpoch {
            end: e.end,
            key: e.key,
            from: e.from.name(),
            to: e.to.name(),
            packets: e.packets,
            drops: e.drops,
            epochs: e.epochs,
        };
        Some(t.epoch_log().iter().map(record).collect())
    }

    /// A data-direction TCP segment passed: `seq` its first sequence number, `len` its payload.
    pub fn on_data(&mut self, now: SimTime, key: FlowKey, seq: u64, len: u32, syn: bool) {
        let p = self.params;
        let f = self.flows.entry(key).or_insert_with(|| FlowRecord::new(now));
        roll(f, key, now, &p, &mut self.log);
        if syn {
            // The latest SYN: a retransmitted one means the earlier was lost, and the gap from
            // it would measure the SYN timer, not the path.
            f.syn_at = Some(now);
            f.syn_delay = SimTime::ZERO; // until this SYN leaves the queue (`on_departure`)
            f.highest_seq = f.highest_seq.max(seq + 1);
            return;
        }
        if len == 0 {
            return; // a pure ACK of the reverse direction's data: not a data packet
        }
        if let Some(syn_at) = f.syn_at.take()
            && f.epoch.is_none()
        {
            let gap = now.saturating_sub(syn_at);
            let first = match p.one_way {
                OneWayEpoch::Bursts => gap,
                OneWayEpoch::Queue => *f.outside.insert(gap.saturating_sub(f.syn_delay)),
            };
            sample(f, now, first + self.local_delay, &p);
        }
        let end = seq + len as u64;
        f.last_seen = Some((seq, end <= f.highest_seq));
        f.current.bytes += len as u64;
        if end > f.highest_seq {
            f.highest_seq = end;
            f.current.new_packets += 1;
            if let Some((at, downstream)) = f.acked.take() {
                f.two_way = true;
                let gap = now.saturating_sub(at);
                let upstream = *f.upstream.insert(f.upstream.map_or(gap, |u| u.min(gap)));
                sample(f, now, downstream + upstream, &p);
            }
            if f.probe.is_none() {
                f.probe = Some((end, now));
            }
        } else {
            f.current.retransmissions += 1;
            f.losses += 1;
            f.unanswered_drops = f.unanswered_drops.saturating_sub(1);
            // A loss elsewhere: the probe's ACK waits for the hole to be filled.
            if f.probe.is_some_and(|(end, _)| seq < end) {
                f.probe = None;
            }
        }
        if !f.two_way {
            match (p.one_way, f.outside) {
                (OneWayEpoch::Queue, Some(_)) => {} // sampled as its packets leave the queue
                _ => burst(f, now, &p),
            }
        }
        f.last_packet = Some(now);
    }

    /// Whether departures are read: one-way timing from the queue (`OneWayEpoch::Queue`).
    pub fn wants_departures(&self) -> bool {
        self.params.one_way == OneWayEpoch::Queue
    }

    /// `p`, of `key`, left the observer's queue. Its SYN and its new data time the epoch
    /// (`new_data`: payload judged new on arrival); retransmissions say nothing of the ACK
    /// clock (Karn's rule leaves them out of the senders' RTT too).
    pub fn on_left_queue(&mut self, now: SimTime, key: FlowKey, p: &Packet, new_data: bool) {
        let syn = p.tcp.flags.has(TcpFlags::SYN);
        if self.wants_departures() && (new_data || syn) {
            self.on_departure(now, key, now.saturating_sub(p.meta.enqueued_at), syn);
        }
    }

    /// A packet of `key` (its SYN, or new data) left the observer's queue after `sojourn` in it.
    /// With `OneWayEpoch::Queue` (and no ACKs seen), a data packet's RTT sample is the
    /// handshake's loop outside the queue plus that sojourn; the SYN's sojourn is what the
    /// handshake's gap held of this queue.
    pub fn on_departure(&mut self, now: SimTime, key: FlowKey, sojourn: SimTime, syn: bool) {
        let p = self.params;
        let Some(f) = self.flows.get_mut(&key) else { return };
        if syn {
            f.syn_delay = sojourn;
        } else if let (false, Some(outside)) = (f.two_way, f.outside) {
            sample(f, now, outside + sojourn, &p);
        }
    }

    /// A packet passed in the data direction: if it is a TCP segment (not a fragment), track it
    /// (data, SYN, FIN) and return its flow and whether it carries payload counted as a
    /// retransmission.
    pub fn on_segment(&mut self, now: SimTime, p: &Packet) -> Option<(FlowKey, bool)> {
        let (key, syn) = FlowKey::of(p)?;
        self.on_data(now, key, p.tcp.seq, p.tcp.payload_len.into(), syn);
        if p.tcp.flags.has(TcpFlags::FIN) {
            self.on_fin(key);
        }
        Some((key, p.tcp.payload_len > 0 && self.last_was_retransmission(&key) == Some(true)))
    }

    /// The flow's FIN passed in the data direction: the sender has nothing more to send.
    pub fn on_fin(&mut self, key: FlowKey) {
        if let Some(f) = self.flows.get_mut(&key) {
            f.fin_seen = true;
        }
    }

    /// An ACK of the flow passed in the reverse direction (`key` is the data direction's).
    pub fn on_ack(&mut self, now: SimTime, key: FlowKey, ack: u64) {
        let p = self.params;
        let Some(f) = self.flows.get_mut(&key) else { return };
        roll(f, key, now, &p, &mut self.log);
        if let Some((end, sent)) = f.probe
            && ack >= end
        {
            f.probe = None;
            f.acked = Some((now, now.saturating_sub(sent)));
        }
    }

    /// Whether `on_data` counted the segment it saw last as a retransmission (None: no data
    /// seen yet).
    pub fn last_was_retransmission(&self, key: &FlowKey) -> Option<bool> {
        self.flows.get(key).and_then(|f| f.last_seen.map(|(_, retx)| retx))
    }

    /// The middlebox dropped a data packet of the flow (`on_data` saw it pass): a new one or a
    /// retransmission, as it was counted then.
    pub fn on_drop(&mut self, now: SimTime, key: FlowKey, seq: u64, _len: u32, retransmission: bool) {
        let p = self.params;
        let Some(f) = self.flows.get_mut(&key) else { return };
        roll(f, key, now, &p, &mut self.log);
        f.losses += 1;
        if retransmission {
            f.current.dropped_retransmissions += 1;
        } else {
            f.current.drops += 1;
            f.unanswered_drops += 1;
        }
        if f.probe.is_some_and(|(end, _)| seq < end) {
            // Its ACK will not come, or only once the hole is filled: no sample from it.
            f.probe = None;
        }
    }

    /// Close the epochs that ended by `now` (call before reading states at a given time).
    pub fn advance(&mut self, now: SimTime) {
        let p = self.params;
        for (key, f) in self.flows.iter_mut() {
            roll(f, *key, now, &p, &mut self.log);
        }
    }

    pub fn get(&self, key: &FlowKey) -> Option<&FlowRecord> {
        self.flows.get(key)
    }

    #[cfg(test)]
    pub(crate) fn get_mut(&mut self, key: &FlowKey) -> Option<&mut FlowRecord> {
        self.flows.get_mut(key)
    }

    pub fn state(&self, key: &FlowKey) -> Option<FlowState> {
        self.flows.get(key).map(|f| f.state)
    }

    pub fn len(&self) -> usize {
        self.flows.len()
    }

    pub fn is_empty(&self) -> bool {
        self.flows.is_empty()
    }

    pub fn flows(&self) -> impl Iterator<Item = (&FlowKey, &FlowRecord)> {
        self.flows.iter()
    }
}

fn epoch(f: &FlowRecord, p: &TrackerParams) -> SimTime {
    f.epoch.unwrap_or(p.initial_epoch).max(SimTime::from_us(1))
}

/// A new epoch sample, smoothed. The first one also starts the epochs afresh at `now`: the
/// flow's first burst opens its first epoch.
fn sample(f: &mut FlowRecord, now: SimTime, s: SimTime, p: &TrackerParams) {
    if s == SimTime::ZERO {
        return;
    }
    f.epoch = Some(match f.epoch {
        None => {
            f.epoch_start = now;
            s
        }
        Some(e) => SimTime::from_ps(
            (e.ps() as f64 * (1.0 - p.epoch_gain) + s.ps() as f64 * p.epoch_gain).round() as u64,
        ),
    });
}

/// One-way refinement: bursts one epoch apart.
fn burst(f: &mut FlowRecord, now: SimTime, p: &TrackerParams) {
    let e = epoch(f, p).as_secs_f64();
    let gap = f.last_packet.map(|t| now.saturating_sub(t).as_secs_f64());
    if gap.is_none_or(|g| g >= p.burst_gap * e) {
        if let Some(prev) = f.last_burst {
            let interval = now.saturating_sub(prev);
            if f.epoch.is_some() && interval.as_secs_f64() <= p.burst_max * e {
                sample(f, now, interval, p);
            }
        }
        f.last_burst = Some(now);
    }
}

/// Close every epoch that ended by `now` (logging each, if `log` is kept).
fn roll(f: &mut FlowRecord, key: FlowKey, now: SimTime, p: &TrackerParams, log: &mut Option<Vec<EpochLog>>) {
    if f.last_seen.is_none() {
        return; // the handshake: epochs begin with the first data
    }
    let mut e = epoch(f, p);
    if now < f.epoch_start + e {
        return;
    }
    close(f, key, f.epoch_start + e, p, log);
    f.epoch_start += e;
    // Empty epochs: after a few, transitions stop changing anything but the silence length.
    let mut steps = 0;
    loop {
        e = epoch(f, p);
        if now < f.epoch_start + e {
            return;
        }
        let left = (now - f.epoch_start).ps() / e.ps();
        if steps > p.extended_after + 2 {
            f.silent_epochs += left as u32;
            f.epochs += left;
            f.epoch_start += SimTime::from_ps(left * e.ps());
            f.previous = EpochCounters::default();
            if let Some(log) = log {
                let (from, to) = (f.state, f.state);
                let epochs = left as u32;
                log.push(EpochLog { end: f.epoch_start, key, from, to, packets: 0, drops: 0, epochs });
            }
            return;
        }
        close(f, key, f.epoch_start + e, p, log);
        f.epoch_start += e;
        steps += 1;
    }
}

/// End the current epoch (at `end`): move the flow to its next state.
fn close(f: &mut FlowRecord, key: FlowKey, end: SimTime, p: &TrackerParams, log: &mut Option<Vec<EpochLog>>) {
    let c = f.current;
    let next = next_state(f, &c, p);
    if let Some(log) = log {
        let drops = c.drops + c.dropped_retransmissions;
        log.push(EpochLog { end, key, from: f.state, to: next, packets: c.packets(), drops, epochs: 1 });
    }
    if c.packets() == 0 {
        if f.silent_epochs == 0 {
            f.before_silence = f.state;
        }
        f.silent_epochs += 1;
    } else {
        f.silent_epochs = 0;
    }
    f.state = next;
    f.previous = c;
    f.current = EpochCounters::default();
    f.epochs += 1;
}

/// The transitions of the table in the module's documentation.
fn next_state(f: &FlowRecord, c: &EpochCounters, p: &TrackerParams) -> FlowState {
    use FlowState::*;
    let s = f.state;
    if c.dropped_retransmissions > 0 {
        return if s == TimeoutRecovery || s == ExtendedSilence { ExtendedSilence } else { TimeoutSilence };
    }
    if c.packets() == 0 {
        if f.fin_seen && f.unanswered_drops == 0 {
            return Idle;
        }
        return match s {
            SlowStart | Normal if f.unanswered_drops > 0 => TimeoutSilence,
            SlowStart | Normal => Idle,
            LossRecovery => TimeoutSilence,
            TimeoutRecovery => ExtendedSilence,
            TimeoutSilence if f.silent_epochs + 1 > p.extended_after => ExtendedSilence,
            other => other,
        };
    }
    match s {
        TimeoutSilence | ExtendedSilence if c.retransmissions > 0 => TimeoutRecovery,
        TimeoutSilence | ExtendedSilence | Idle => SlowStart,
        SlowStart | Normal if c.drops > 0 || c.retransmissions > 0 => LossRecovery,
        SlowStart => {
            let grew = c.new_packets as f64 >= p.slow_start_growth * f.previous.new_packets as f64;
            if f.previous.new_packets == 0 || grew { SlowStart } else { Normal }
        }
        LossRecovery if c.drops > 0 => LossRecovery,
        LossRecovery if f.unanswered_drops == 0 && c.new_packets > 0 => Normal,
        TimeoutRecovery if c.drops == 0 && f.unanswered_drops == 0 && c.new_packets > 0 => SlowStart,
        other => other,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ids::HostId;

    const MSS: u32 = 1000;

    fn key() -> FlowKey {
        FlowKey { src: HostId(0), dst: HostId(1), sport: 10_000, dport: 80 }
    }

    fn ms(x: u64) -> SimTime {
        SimTime::from_ms(x)
    }

    /// A tracker that learned a 100 ms epoch from the handshake (SYN at 0, data from 100 ms).
    fn started() -> FlowTracker {
        let mut t = FlowTracker::new(TrackerParams { initial_epoch: ms(1000), ..Default::default() });
        t.on_data(ms(0), key(), 0, 0, true);
        t
    }

    /// `n` new segments at `at`, continuing the sequence.
    fn send_new(t: &mut FlowTracker, at: SimTime, n: u32) {
        for _ in 0..n {
            let seq = t.get(&key()).unwrap().highest_seq;
            t.on_data(at, key(), seq, MSS, false);
        }
    }

    fn last_retx(t: &FlowTracker) -> bool {
        t.last_was_retransmission(&key()).unwrap()
    }

    fn state(t: &mut FlowTracker, at: SimTime) -> FlowState {
        t.advance(at);
        t.state(&key()).unwrap()
    }

    /// §4.1's prediction: a flow in or just out of a timeout repeats it; a window of the
    /// duplicate-ACK threshold or less times out; a second loss in a window is a multiple loss;
    /// otherwise a fast retransmit.
    #[test]
    fn a_drops_predicted_outcome_follows_the_state_the_window_and_earlier_drops() {
        let record = |state, window, drops| {
            let mut r = FlowRecord::new(SimTime::ZERO);
            (r.state, r.previous.new_packets, r.current.drops) = (state, window, drops);
            r.outcome_of_a_drop(3)
        };
        assert_eq!(record(FlowState::Normal, 8, 0), DropOutcome::FastRecovery);
        assert_eq!(record(FlowState::Normal, 8, 1), DropOutcome::MultipleLoss);
        assert_eq!(record(FlowState::Normal, 3, 0), DropOutcome::Timeout);
        assert_eq!(record(FlowState::TimeoutRecovery, 8, 0), DropOutcome::RepeatedTimeout);
        assert_eq!(record(FlowState::ExtendedSilence, 8, 0), DropOutcome::RepeatedTimeout);
    }

    #[test]
    fn the_handshake_gives_the_first_epoch() {
        let mut t = started();
        send_new(&mut t, ms(100), 1);
        assert_eq!(t.get(&key()).unwrap().epoch, Some(ms(100)));
    }

    #[test]
    fn a_queue_anchored_epoch_is_the_handshakes_outside_loop_plus_the_queues_delay() {
        // The SYN waits 20 ms in the queue; data follows 120 ms after it: 100 ms outside, an
        // epoch of 120 ms while the queue holds 20 ms. Then the flow's packets, which come every
        // 30 ms, spread by the queue, spend 50 ms in it: the epoch follows to 150 ms, whatever
        // their spacing.
        let mut t = FlowTracker::new(TrackerParams { one_way: OneWayEpoch::Queue, ..Default::default() });
        t.on_data(ms(0), key(), 0, 0, true);
        t.on_departure(ms(20), key(), ms(20), true);
        t.local_delay = ms(20);
        send_new(&mut t, ms(120), 1);
        assert_eq!(t.get(&key()).unwrap().epoch, Some(ms(120)));
        for i in 1..100 {
            send_new(&mut t, ms(120 + 30 * i), 1);
            t.on_departure(ms(170 + 30 * i), key(), ms(50), false);
        }
        let e = t.get(&key()).unwrap().epoch.unwrap().as_secs_f64();
        assert!((e - 0.15).abs() < 1e-6, "{e}");
    }

    #[test]
    fn a_retransmitted_syn_times_the_handshake_from_itself() {
        let mut t = started();
        t.on_data(ms(1000), key(), 0, 0, true); // the first SYN was lost; its timer fired
        send_new(&mut t, ms(1100), 1);
        assert_eq!(t.get(&key()).unwrap().epoch, Some(ms(100)));
    }

    #[test]
    fn two_way_traffic_gives_the_whole_rtt() {
        let mut t = started();
        send_new(&mut t, ms(100), 1); // epoch 100 ms from the handshake
        let end = t.get(&key()).unwrap().highest_seq;
        t.on_ack(ms(130), key(), end); // 30 ms beyond the middlebox
        send_new(&mut t, ms(180), 1); // 50 ms before it: 80 ms in all
        let e = t.get(&key()).unwrap().epoch.unwrap().as_secs_f64();
        assert!((e - (0.1 * 0.875 + 0.08 * 0.125)).abs() < 1e-9, "{e}");
    }

    #[test]
    fn one_way_bursts_refine_the_epoch_but_a_timeout_gap_does_not() {
        let mut t = started();
        send_new(&mut t, ms(100), 2); // the handshake says 100 ms; the flow's RTT is 140 ms
        for i in 1..=40 {
            send_new(&mut t, ms(100 + 140 * i), 2);
        }
        let e = t.get(&key()).unwrap().epoch.unwrap().as_secs_f64();
        assert!((e - 0.14).abs() < 0.002, "{e}");
        send_new(&mut t, ms(100 + 140 * 40 + 1000), 2); // after a one-second silence
        let after = t.get(&key()).unwrap().epoch.unwrap().as_secs_f64();
        assert_eq!(after, e);
    }

    #[test]
    fn slow_start_becomes_normal_when_growth_turns_linear() {
        let mut t = started();
        for (i, n) in [1, 2, 4, 8].into_iter().enumerate() {
            send_new(&mut t, ms(100 + 100 * i as u64), n);
        }
        assert_eq!(state(&mut t, ms(499)), FlowState::SlowStart);
        send_new(&mut t, ms(500), 9);
        assert_eq!(state(&mut t, ms(600)), FlowState::Normal);
    }

    #[test]
    fn a_drop_leads_to_loss_recovery_and_its_retransmission_back_to_normal() {
        let mut t = started();
        send_new(&mut t, ms(100), 4);
        send_new(&mut t, ms(200), 5);
        assert_eq!(state(&mut t, ms(300)), FlowState::Normal);
        send_new(&mut t, ms(300), 5);
        let lost = t.get(&key()).unwrap().highest_seq - MSS as u64;
        t.on_drop(ms(300), key(), lost, MSS, last_retx(&t));
        assert_eq!(state(&mut t, ms(400)), FlowState::LossRecovery);
        t.on_data(ms(400), key(), lost, MSS, false); // the retransmission
        send_new(&mut t, ms(400), 2);
        assert_eq!(state(&mut t, ms(500)), FlowState::Normal);
    }

    #[test]
    fn silence_in_recovery_is_a_timeout_that_extends_then_recovers() {
        let mut t = started();
        send_new(&mut t, ms(100), 2);
        send_new(&mut t, ms(200), 2);
        let lost = t.get(&key()).unwrap().highest_seq - MSS as u64;
        t.on_drop(ms(200), key(), lost, MSS, last_retx(&t));
        assert_eq!(state(&mut t, ms(300)), FlowState::LossRecovery);
        assert_eq!(state(&mut t, ms(400)), FlowState::TimeoutSilence, "no retransmission: the timer");
        assert_eq!(state(&mut t, ms(500)), FlowState::TimeoutSilence);
        assert_eq!(state(&mut t, ms(600)), FlowState::ExtendedSilence, "beyond T0 = 2 epochs");
        assert_eq!(t.get(&key()).unwrap().before_silence, FlowState::LossRecovery);
        t.on_data(ms(650), key(), lost, MSS, false);
        assert_eq!(state(&mut t, ms(700)), FlowState::TimeoutRecovery);
        assert_eq!(t.get(&key()).unwrap().silent_epochs, 0);
        send_new(&mut t, ms(700), 2);
        assert_eq!(state(&mut t, ms(800)), FlowState::SlowStart);
    }

    #[test]
    fn a_dropped_retransmission_means_a_timeout_and_again_a_longer_one() {
        let mut t = started();
        send_new(&mut t, ms(100), 3);
        let lost = t.get(&key()).unwrap().highest_seq - MSS as u64;
        t.on_drop(ms(100), key(), lost, MSS, last_retx(&t));
        assert_eq!(state(&mut t, ms(200)), FlowState::LossRecovery);
        t.on_data(ms(200), key(), lost, MSS, false);
        t.on_drop(ms(200), key(), lost, MSS, last_retx(&t));
        assert_eq!(t.get(&key()).unwrap().current.dropped_retransmissions, 1);
        assert_eq!(state(&mut t, ms(300)), FlowState::TimeoutSilence);
        t.on_data(ms(450), key(), lost, MSS, false);
        assert_eq!(state(&mut t, ms(500)), FlowState::TimeoutRecovery);
        t.on_data(ms(500), key(), lost, MSS, false);
        t.on_drop(ms(500), key(), lost, MSS, last_retx(&t));
        assert_eq!(state(&mut t, ms(600)), FlowState::ExtendedSilence, "a repeated timeout");
    }

    #[test]
    fn a_closed_flow_silent_in_loss_recovery_is_idle_not_in_a_timeout() {
        let mut t = started();
        send_new(&mut t, ms(100), 2);
        let lost = t.get(&key()).unwrap().highest_seq - MSS as u64;
        t.on_drop(ms(100), key(), lost, MSS, last_retx(&t));
        assert_eq!(state(&mut t, ms(200)), FlowState::LossRecovery);
        t.on_data(ms(200), key(), lost, MSS, false); // the retransmission, then the FIN
        t.on_fin(key());
        assert_eq!(state(&mut t, ms(300)), FlowState::LossRecovery);
        assert_eq!(state(&mut t, ms(400)), FlowState::Idle, "silent: closed, not a timeout");
    }

    #[test]
    fn silence_without_unanswered_drops_is_idle_and_ends_in_slow_start() {
        let mut t = started();
        send_new(&mut t, ms(100), 3);
        send_new(&mut t, ms(200), 3);
        assert_eq!(state(&mut t, ms(300)), FlowState::Normal);
        assert_eq!(state(&mut t, ms(400)), FlowState::Idle);
        assert_eq!(state(&mut t, ms(5_000)), FlowState::Idle);
        assert!(t.get(&key()).unwrap().silent_epochs >= 40);
        send_new(&mut t, ms(5_000), 2);
        assert_eq!(state(&mut t, ms(5_100)), FlowState::SlowStart);
    }

    #[test]
    fn retransmissions_without_drops_here_mean_losses_elsewhere() {
        let mut t = started();
        send_new(&mut t, ms(100), 3);
        send_new(&mut t, ms(200), 3);
        let old = t.get(&key()).unwrap().highest_seq - 2 * MSS as u64;
        t.on_data(ms(300), key(), old, MSS, false);
        assert_eq!(state(&mut t, ms(400)), FlowState::LossRecovery);
    }
}
