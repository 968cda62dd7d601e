//! TAQ's admission control (TAQ paper, §4.3): above a loss rate of p_thresh, timeouts take over
//! (the model's tipping point), so a TAQ middlebox stops letting new *flow pools* in until the
//! loss rate falls below it again.
//!
//! - A **flow pool** is a set of flows from one source started within a short time (§4.3: "from
//!   the same source to different destinations that are all initiated within a short
//!   time-period (e.g. a few seconds)"). Our reading, for sessions longer than a few seconds: a
//!   source's pool lives while any of its flows was seen within `pool_gap`; a flow the source
//!   starts then belongs to it. The source is the host that opened the connection — the sender
//!   of a SYN, the receiver of a SYN-ACK — so the rule works on whichever direction the
//!   middlebox's queue carries.
//! - A flow is admitted if its pool is (commitments to admitted pools are honoured, §5.5), or if
//!   it opens a new pool while the measured loss rate is below `p_thresh × admit_factor` ("a
//!   threshold slightly smaller than p_thresh as a congestion avoidance strategy") and no pool
//!   is waiting before it.
//! - A pool that is not admitted *waits*. Its flows' handshake packets are rejected (dropped)
//!   and the middlebox announces the wait: the pool is guaranteed admission `t_wait` after its
//!   first rejection (§4.3: "after a specific wait time, T_wait, the user is guaranteed
//!   admission for one flow pool"; T_wait is "less than the TCP SYN connection timeout; hence,
//!   the TCP connection request is still alive in timeout phase and a future SYN retry can be
//!   admitted"). The endpoints' own retries find the pool admitted; no endpoint reads the
//!   announcement, which is counted (`AdmissionStats`) as a proxy would show it to its user.
//!   Or (`NotAdmitted::Hold`, beyond the paper) the handshake packets are held, one per flow,
//!   and sent on admission; retransmissions of a held packet are dropped as duplicates.
//! - Waiting pools are let in first come, first served, one per loss window while the loss
//!   rate is low, and each after at most `t_wait` whatever the loss rate.
//! - The loss rate is the middlebox's own: drops over admitted arrivals, in windows of
//!   `loss_window`; the last complete window's rate is the one used.
//!
//! Packets of a flow whose handshake the middlebox never saw (started before it was
//! installed) pass: they are not new flows. Fair sharing across pools instead of flows, which
//! §4.3 mentions as possible, is not done: the queue's fair share stays per flow.
//!
//! Sans-IO, like the tracker: the TAQ queue calls it with the time and holds the packets.

use std::collections::{HashMap, VecDeque};

use super::tracker::FlowKey;
use crate::ids::HostId;
use crate::units::SimTime;

#[derive(Clone, Copy, Debug, PartialEq)]
pub struct AdmissionParams {
    /// The loss rate beyond which timeouts take over: 0.1, the paper's p_thresh (§4.3, from
    /// the model of §3).
    pub p_thresh: f64,
    /// New pools are admitted below `p_thresh × admit_factor`: 0.9 (ours, for the paper's
    /// "slightly smaller" threshold).
    pub admit_factor: f64,
    /// A source's pool lives while one of its flows was seen within this: 3 s (ours, for the
    /// paper's "a few seconds").
    pub pool_gap: SimTime,
    /// A waiting pool is admitted after at most this: 3 s (ours; the paper: "small (few
    /// seconds) and less than the TCP SYN connection timeout").
    pub t_wait: SimTime,
    /// Window of the loss-rate measurement: 1 s (ours).
    pub loss_window: SimTime,
    /// What happens to a handshake packet of a pool not admitted: rejected (the paper's) or
    /// held until admission.
    pub not_admitted: NotAdmitted,
}

/// What happens to a handshake packet of a waiting pool.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum NotAdmitted {
    /// Dropped; a retry after the pool's admission passes (§4.3).
    #[default]
    Reject,
    /// Held at the middlebox (one per flow) and sent when the pool is admitted.
    Hold,
}

impl Default for AdmissionParams {
    fn default() -> AdmissionParams {
        AdmissionParams {
            p_thresh: 0.1,
            admit_factor: 0.9,
            pool_gap: SimTime::from_secs(3),
            t_wait: SimTime::from_secs(3),
            loss_window: SimTime::from_secs(1),
            not_admitted: NotAdmitted::Reject,
        }
    }
}

/// What to do with a packet.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Admit {
    /// Let it through to the queue.
    Pass,
    /// Hold it until its pool is admitted.
    Hold,
    /// Drop it: a retransmission of a handshake packet already held.
    Duplicate,
    /// Drop it: a handshake packet of a pool not admitted yet.
    Reject,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum PoolState {
    Admitted,
    Waiting { since: SimTime },
}

#[derive(Clone, Copy, Debug)]
struct Pool {
    state: PoolState,
    last_seen: SimTime,
}

/// Counters, for results and tests.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct AdmissionStats {
    pub pools_admitted_at_once: u64,
    pub pools_waited: u64,
    /// Waiting pools let in because the loss rate fell, and because T_wait ran out.
    pub released_by_loss: u64,
    pub released_by_t_wait: u64,
    /// Handshake packets rejected, and the waits announced with them (the time left until
    /// the pool's guaranteed admission), summed.
    pub rejections: u64,
    pub announced_wait: SimTime,
}

#[derive(Clone, Debug)]
pub struct AdmissionControl {
    pub p: AdmissionParams,
    pools: HashMap<HostId, Pool>,
    /// Waiting pools, first come first served.
    waiting: VecDeque<HostId>,
    /// Admitted flows and their pool (None: a flow older than the middlebox's knowledge).
    admitted: HashMap<FlowKey, Option<HostId>>,
    /// Flows of waiting pools (a held or rejected handshake), and their pool.
    waiting_flows: HashMap<FlowKey, HostId>,
    window_start: SimTime,
    arrivals: u64,
    drops: u64,
    /// The last complete window's loss rate.
    pub loss_rate: f64,
    last_release: Option<SimTime>,
    pub stats: AdmissionStats,
}

impl AdmissionControl {
    pub fn new(p: AdmissionParams) -> AdmissionControl {
        AdmissionControl {
            p,
            pools: HashMap::new(),
            waiting: VecDeque::new(),
            admitted: HashMap::new(),
            waiting_flows: HashMap::new(),
            window_start: SimTime::ZERO,
            arrivals: 0,
            drops: 0,
            loss_rate: 0.0,
            last_release: None,
            stats: AdmissionStats::default(),
        }
    }

    /// Whether the measured loss rate lets a new pool in.
    pub fn open(&self) -> bool {
        self.loss_rate < self.p.p_thresh * self.p.admit_factor
    }

    /// A packet of flow `key` arrived; `syn` and `ack` are its TCP flags.
    pub fn on_packet(&mut self, now: SimTime, key: FlowKey, syn: bool, ack: bool) -> Admit {
        self.roll(now);
        if let Some(&pool) = self.admitted.get(&key) {
            if let Some(p) = pool.and_then(|s| self.pools.get_mut(&s)) {
                p.last_seen = now;
            }
            self.arrivals += 1;
            return Admit::Pass;
        }
        if let Some(&source) = self.waiting_flows.get(&key) {
            return self.not_admitted(now, source, true);
        }
        if !syn {
            // Not a handshake: a flow older than our knowledge of it.
            self.admitted.insert(key, None);
            self.arrivals += 1;
            return Admit::Pass;
        }
        let source = if ack { key.dst } else { key.src };
        // A waiting pool stays, however long its flows' retries take.
        let alive = self.pools.get(&source).filter(|p| {
            matches!(p.state, PoolState::Waiting { .. }) || now.saturating_sub(p.last_seen) <= self.p.pool_gap
        });
        let state = match alive {
            Some(pool) => pool.state,
            None => {
                let state = if self.open() && self.waiting.is_empty() {
                    self.stats.pools_admitted_at_once += 1;
                    PoolState::Admitted
                } else {
                    self.stats.pools_waited += 1;
                    self.waiting.push_back(source);
                    PoolState::Waiting { since: now }
                };
                self.pools.insert(source, Pool { state, last_seen: now });
                state
            }
        };
        self.pools.get_mut(&source).expect("inserted").last_seen = now;
        match state {
            PoolState::Admitted => {
                self.admitted.insert(key, Some(source));
                self.arrivals += 1;
                Admit::Pass
            }
            PoolState::Waiting { .. } => {
                self.waiting_flows.insert(key, source);
                self.not_admitted(now, source, false)
            }
        }
    }

    /// A handshake packet of waiting pool `source` (`again`: its flow's packet was seen
    /// before): held, or dropped as a duplicate of a held one; or rejected, announcing the wait
    /// left until the pool's guaranteed admission.
    fn not_admitted(&mut self, now: SimTime, source: HostId, again: bool) -> Admit {
        match self.p.not_admitted {
            NotAdmitted::Hold if again => Admit::Duplicate,
            NotAdmitted::Hold => Admit::Hold,
            NotAdmitted::Reject => {
                if let Some(PoolState::Waiting { since }) = self.pools.get(&source).map(|p| p.state) {
                    self.stats.rejections += 1;
                    self.stats.announced_wait += (since + self.p.t_wait).saturating_sub(now);
                }
                Admit::Reject
            }
        }
    }

    /// An admitted packet was dropped here.
    pub fn on_drop(&mut self) {
        self.drops += 1;
    }

    /// Admit the waiting pools whose time has come; returns the flows whose held packet may now
    /// go, in a deterministic order.
    pub fn release(&mut self, now: SimTime) -> Vec<FlowKey> {
        self.roll(now);
        let mut released = Vec::new();
        while let Some(&source) = self.waiting.front() {
            let Some(PoolState::Waiting { since }) = self.pools.get(&source).map(|p| p.state) else {
                self.waiting.pop_front();
                continue;
            };
            let paced = self.last_release.is_none_or(|t| now >= t + self.p.loss_window);
            if now >= since + self.p.t_wait {
                self.stats.released_by_t_wait += 1;
            } else if self.open() && paced {
                self.stats.released_by_loss += 1;
            } else {
                break;
            }
            self.waiting.pop_front();
            self.last_release = Some(now);
            let pool = self.pools.get_mut(&source).expect("waiting pool");
            pool.state = PoolState::Admitted;
            pool.last_seen = now;
            released.push(source);
        }
        if released.is_empty() {
            return Vec::new();
        }
        let mut flows: Vec<(FlowKey, HostId)> =
            self.waiting_flows.iter().filter(|(_, s)| released.contains(s)).map(|(k, s)| (*k, *s)).collect();
        flows.sort_unstable();
        for (k, s) in &flows {
            self.waiting_flows.remove(k);
            self.admitted.insert(*k, Some(*s));
        }
        flows.into_iter().map(|(k, _)| k).collect()
    }

    /// Pools waiting now.
    pub fn waiting_pools(&self) -> usize {
        self.waiting.len()
    }

    fn roll(&mut self, now: SimTime) {
        if now < self.window_start + self.p.loss_window {
            return;
        }
        self.loss_rate = if self.arrivals > 0 { self.drops as f64 / self.arrivals as f64 } else { 0.0 };
        self.arrivals = 0;
        self.drops = 0;
        let windows = (now - self.window_start).ps() / self.p.loss_window.ps();
        self.window_start += SimTime::from_ps(windows * self.p.loss_window.ps());
        if windows > 1 {
            self.loss_rate = 0.0; // a whole window without traffic
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ms(x: u64) -> SimTime {
        SimTime::from_ms(x)
    }

    /// Flow `i` opened by client host `client` to server 100 + i, seen as the server's SYN-ACK.
    fn flow(client: u32, i: u16) -> FlowKey {
        FlowKey { src: HostId(100 + i as u32), dst: HostId(client), sport: 80, dport: 10_000 + i }
    }

    /// An admitted long flow whose packets set the loss rate of the window starting at `at`:
    /// `drops` in 100 arrivals.
    fn load(ac: &mut AdmissionControl, at: SimTime, drops: u64) {
        let bulk = FlowKey { src: HostId(1), dst: HostId(2), sport: 1, dport: 2 };
        for _ in 0..100 {
            ac.on_packet(at, bulk, false, true);
        }
        for _ in 0..drops {
            ac.on_drop();
        }
    }

    fn congested() -> AdmissionControl {
        congested_with(AdmissionParams { not_admitted: NotAdmitted::Hold, ..Default::default() })
    }

    fn congested_with(p: AdmissionParams) -> AdmissionControl {
        let mut ac = AdmissionControl::new(p);
        load(&mut ac, ms(0), 20);
        assert!(ac.release(ms(1000)).is_empty()); // closes the first window: loss 0.2
        assert!(!ac.open());
        ac
    }

    #[test]
    fn a_new_pool_is_admitted_while_the_loss_is_low() {
        let mut ac = AdmissionControl::new(AdmissionParams::default());
        assert_eq!(ac.on_packet(ms(10), flow(7, 0), true, true), Admit::Pass);
        assert_eq!(ac.on_packet(ms(20), flow(7, 0), false, true), Admit::Pass, "and its data");
        assert_eq!(ac.stats.pools_admitted_at_once, 1);
    }

    #[test]
    fn a_pool_waits_whole_and_is_let_in_whole() {
        let mut ac = congested();
        // Client 7 opens three connections within a second: one pool, held.
        for i in 0..3 {
            assert_eq!(ac.on_packet(ms(1100 + 300 * i as u64), flow(7, i), true, true), Admit::Hold);
        }
        assert_eq!(ac.on_packet(ms(1500), flow(7, 0), true, true), Admit::Duplicate, "a SYN-ACK again");
        assert_eq!(ac.waiting_pools(), 1);
        // The loss falls: the next window closes at 2 s with 0.05.
        load(&mut ac, ms(1900), 5);
        assert!(ac.release(ms(1900)).is_empty(), "still the congested window");
        let released = ac.release(ms(2000));
        assert!(ac.open());
        assert_eq!(released, vec![flow(7, 0), flow(7, 1), flow(7, 2)]);
        assert_eq!(ac.stats.released_by_loss, 1);
        // A fourth connection of the admitted pool passes, however congested the link.
        load(&mut ac, ms(2500), 50);
        load(&mut ac, ms(3000), 50);
        assert!(!ac.open());
        assert_eq!(ac.on_packet(ms(3100), flow(7, 3), true, true), Admit::Pass);
    }

    #[test]
    fn t_wait_bounds_the_wait_whatever_the_loss() {
        let mut ac = congested();
        assert_eq!(ac.on_packet(ms(1200), flow(7, 0), true, true), Admit::Hold);
        assert_eq!(ac.on_packet(ms(1300), flow(8, 0), true, true), Admit::Hold);
        for t in (1300..4200).step_by(100) {
            load(&mut ac, ms(t), 30); // loss 0.3 all along
            assert!(ac.release(ms(t)).is_empty(), "nobody before T_wait ({t} ms)");
        }
        assert_eq!(ac.release(ms(4200)), vec![flow(7, 0)], "client 7 waited 3 s");
        assert_eq!(ac.release(ms(4250)), vec![]);
        assert_eq!(ac.release(ms(4300)), vec![flow(8, 0)], "client 8 too");
        assert_eq!(ac.stats.released_by_t_wait, 2);
    }

    #[test]
    fn waiting_pools_go_first_come_one_per_window() {
        let mut ac = congested();
        ac.on_packet(ms(1100), flow(7, 0), true, true);
        ac.on_packet(ms(1200), flow(8, 0), true, true);
        ac.release(ms(2000)); // the window of 1–2 s had no traffic: the loss is 0
        assert!(ac.open());
        assert_eq!(ac.stats.released_by_loss, 1);
        assert_eq!(ac.on_packet(ms(2100), flow(9, 0), true, true), Admit::Hold, "8 is still waiting");
        assert_eq!(ac.release(ms(2500)), vec![], "one pool per loss window");
        assert_eq!(ac.release(ms(3000)), vec![flow(8, 0)]);
        assert_eq!(ac.release(ms(4000)), vec![flow(9, 0)]);
    }

    /// §4.3: a waiting pool's handshake is rejected, with the wait until its guaranteed
    /// admission announced; the endpoint's retry after that admission passes.
    #[test]
    fn a_rejected_handshake_passes_on_a_retry_after_its_pool_is_let_in() {
        let mut ac = congested_with(AdmissionParams::default());
        assert_eq!(ac.on_packet(ms(1100), flow(7, 0), true, true), Admit::Reject);
        assert_eq!(ac.on_packet(ms(2100), flow(7, 0), true, true), Admit::Reject, "too early");
        for t in (1100..4100).step_by(100) {
            load(&mut ac, ms(t), 30); // loss 0.3 all along
        }
        assert_eq!(ac.release(ms(4100)), vec![flow(7, 0)], "T_wait after the first rejection");
        assert_eq!(ac.on_packet(ms(4200), flow(7, 0), true, true), Admit::Pass, "the retry");
        assert_eq!(ac.on_packet(ms(4300), flow(7, 0), false, true), Admit::Pass, "and its data");
        assert_eq!(ac.stats.rejections, 2);
        assert_eq!(ac.stats.announced_wait, ms(3000 + 2000));
    }

    /// A waiting pool is one pool however far apart its flows' retries come (a SYN's backoff
    /// soon exceeds `pool_gap`): it keeps its place and its announced admission time.
    #[test]
    fn a_waiting_pool_outlives_the_pool_gap() {
        let p = AdmissionParams { t_wait: ms(30_000), ..Default::default() };
        let mut ac = congested_with(p);
        assert_eq!(ac.on_packet(ms(1100), flow(7, 0), true, true), Admit::Reject);
        assert_eq!(ac.on_packet(ms(9100), flow(7, 1), true, true), Admit::Reject);
        assert_eq!(ac.waiting_pools(), 1);
        assert_eq!(ac.stats.announced_wait, ms(30_000 + 22_000));
    }

    #[test]
    fn a_pool_ends_when_its_source_falls_quiet() {
        let mut ac =
            AdmissionControl::new(AdmissionParams { not_admitted: NotAdmitted::Hold, ..Default::default() });
        assert_eq!(ac.on_packet(ms(0), flow(7, 0), true, true), Admit::Pass);
        ac.on_packet(ms(2000), flow(7, 0), false, true);
        load(&mut ac, ms(4000), 30);
        load(&mut ac, ms(5000), 30);
        assert!(!ac.open());
        assert_eq!(
            ac.on_packet(ms(5000), flow(7, 1), true, true),
            Admit::Pass,
            "within 3 s of its last packet"
        );
        for t in [6000, 7000, 8000] {
            load(&mut ac, ms(t), 30);
        }
        assert_eq!(ac.on_packet(ms(8100), flow(7, 2), true, true), Admit::Hold, "a new pool");
    }
}
