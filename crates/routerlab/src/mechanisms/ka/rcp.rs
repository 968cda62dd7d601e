//! RCP's rate computation (Dukkipati, Kobayashi, Zhang-Shen, McKeown, IWQoS 2005): one rate R
//! offered to every flow through an output link, updated every control interval T by
//!
//! ```text
//!   R ← R · (1 + (T/d) · (α·(C − y) − β·q/d) / C)
//! ```
//!
//! with C the link rate, y the input rate measured over the last interval, q the queue at its
//! end and d the average RTT of the flows. Spare capacity raises R, a standing queue lowers it.
//! Kick-Ass's router (§III-A) and native RCP's share this computation; they differ in where d
//! comes from (RTT indicators, or the RCP header) and in how R reaches the endpoints.
//!
//! Everything here is over reals (bytes/s, seconds): plain arithmetic, the same on every platform.

use crate::units::{Rate, SimTime};

/// RCP's parameters.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RcpParams {
    /// Gain on spare capacity. 0.1: the value RCP's authors simulate with and show stable
    /// (Dukkipati et al., IWQoS 2005; Dukkipati's thesis, 2007).
    pub alpha: f64,
    /// Gain on the queue. 1.0, as above.
    pub beta: f64,
    /// Control interval T; never longer than the average RTT d (ns-2 RCP: Tq = min(d, 10 ms)).
    pub interval: SimTime,
    /// R before the first update, as a fraction of C. 0.05: ns-2 RCP's `init_rate_fact_`.
    pub initial_rate_fraction: f64,
    /// d before any RTT was heard of. 200 ms: ns-2 RCP's initial `avg_rtt_`.
    pub initial_rtt: SimTime,
    /// Weight of each new RTT sample in d's moving average. 0.02: ns-2 RCP's `RTT_GAIN` ("on
    /// the order of 1/number of flows"). The first sample replaces `initial_rtt` outright.
    pub rtt_gain: f64,
    /// R never falls below this (ns-2 RCP clamps at a minimum packets-per-RTT, which Kick-Ass's
    /// fallback must be able to go under: ours is 10 Kbit/s, under Kick-Ass's 120 Kbit/s).
    pub min_rate: Rate,
    /// The least factor one update may apply to R. RCP's law has no bound (ns-2 RCP clamps
    /// only at its floor), so a queue far above C·d — 1000 packets at 10 Mbit/s — takes R to
    /// the floor in one interval, from which spare capacity raises it by at most α·T/d per
    /// interval. 0.5: R at most halves per interval, as a TCP window per RTT; our choice, the
    /// papers are silent. 0 leaves the law unbounded.
    pub max_decrease: f64,
    /// Hold R while the router is not signalling (Kick-Ass's TCP mode, §II-C2). Off by default:
    /// the paper does not call for it, and a held rate can be stale when signalling resumes
    /// (the Kick-Ass router re-anchors R at the fair share instead, `KaParams::reanchor`).
    pub hold_while_silent: bool,
}

impl Default for RcpParams {
    fn default() -> RcpParams {
        RcpParams {
            alpha: 0.1,
            beta: 1.0,
            interval: SimTime::from_ms(10),
            initial_rate_fraction: 0.05,
            initial_rtt: SimTime::from_ms(200),
            rtt_gain: 0.02,
            min_rate: Rate::from_kbps(10),
            max_decrease: 0.5,
            hold_while_silent: false,
        }
    }
}

/// One output link's RCP state.
#[derive(Clone, Debug)]
pub struct RcpRate {
    params: RcpParams,
    /// C, bytes per second.
    capacity: f64,
    /// R, bytes per second.
    rate: f64,
    /// d, seconds.
    avg_rtt: f64,
    rtt_samples: u64,
    /// Bytes that arrived since the last update.
    input_bytes: u64,
    last_update: SimTime,
    next_update: SimTime,
    /// Updates done (for tests and counters).
    pub updates: u64,
}

impl RcpRate {
    pub fn new(params: RcpParams, link: Rate) -> RcpRate {
        let capacity = link.bps() as f64 / 8.0;
        let mut r = RcpRate {
            params,
            capacity,
            rate: capacity * params.initial_rate_fraction,
            avg_rtt: params.initial_rtt.as_secs_f64(),
            rtt_samples: 0,
            input_bytes: 0,
            last_update: SimTime::ZERO,
            next_update: SimTime::ZERO,
            updates: 0,
        };
        r.next_update = r.interval();
        r.rate = r.clamped(r.rate);
        r
    }

    /// The rate offered to each flow.
    pub fn rate(&self) -> Rate {
        Rate((self.rate * 8.0).round() as u64)
    }

    /// C, the link's rate.
    pub fn capacity(&self) -> Rate {
        Rate((self.capacity * 8.0).round() as u64)
    }

    /// Set R (within the floor and C), outside the law: the Kick-Ass router's re-anchoring.
    pub fn set_rate(&mut self, rate: Rate) {
        self.rate = self.clamped(rate.bps() as f64 / 8.0);
    }

    /// The average RTT d.
    pub fn avg_rtt(&self) -> SimTime {
        SimTime((self.avg_rtt * 1e12).round() as u64)
    }

    /// When the next update is due.
    pub fn next_update(&self) -> SimTime {
        self.next_update
    }

    /// A packet of `bytes` arrived at the link (counted in y whether or not it is queued).
    #[inline]
    pub fn on_input(&mut self, bytes: u32) {
        self.input_bytes += bytes as u64;
    }

    /// An RTT sample from an endpoint.
    pub fn on_rtt_sample(&mut self, rtt: SimTime) {
        let s = rtt.as_secs_f64();
        self.avg_rtt =
            if self.rtt_samples == 0 { s } else { self.avg_rtt + self.params.rtt_gain * (s - self.avg_rtt) };
        self.rtt_samples += 1;
    }

    /// T: the control interval, at most d.
    fn interval(&self) -> SimTime {
        self.params.interval.min(self.avg_rtt()).max(SimTime::from_us(1))
    }

    fn clamped(&self, r: f64) -> f64 {
        // A floor above the capacity (validation refuses it) must not panic here.
        r.clamp((self.params.min_rate.bps() as f64 / 8.0).min(self.capacity), self.capacity)
    }

    /// The control interval ended: update R from the input since the last update and the queue
    /// `queue_bytes` now. `silent`: the router is not signalling (see `hold_while_silent`).
    pub fn update(&mut self, now: SimTime, queue_bytes: u64, silent: bool) {
        let t = (now - self.last_update).as_secs_f64();
        if t > 0.0 && !(silent && self.params.hold_while_silent) {
            let y = self.input_bytes as f64 / t;
            let d = self.avg_rtt;
            let (c, q) = (self.capacity, queue_bytes as f64);
            let p = &self.params;
            let ratio = 1.0 + (t / d) * (p.alpha * (c - y) - p.beta * q / d) / c;
            self.rate = self.clamped(self.rate * ratio.max(p.max_decrease));
            self.updates += 1;
        }
        self.input_bytes = 0;
        self.last_update = now;
        self.next_update = now + self.interval();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ms(n: u64) -> SimTime {
        SimTime::from_ms(n)
    }

    /// Feed `flows` senders that each send at R (as RCP endpoints do) into a link with no
    /// queue, for `secs` seconds; return the rate.
    fn converge(link: Rate, flows: f64, rtt: SimTime, secs: u64) -> (RcpRate, Vec<f64>) {
        let mut r = RcpRate::new(RcpParams::default(), link);
        r.on_rtt_sample(rtt);
        let mut trace = Vec::new();
        let mut now = SimTime::ZERO;
        while now < SimTime::from_secs(secs) {
            let next = r.next_update();
            let offered = flows * r.rate().bps() as f64 / 8.0 * (next - now).as_secs_f64();
            let cap = link.bps() as f64 / 8.0 * (next - now).as_secs_f64();
            r.on_input(offered.min(cap * 1.5) as u32);
            now = next;
            r.update(now, 0, false);
            trace.push(r.rate().bps() as f64);
        }
        (r, trace)
    }

    #[test]
    fn the_rate_converges_to_the_fair_share() {
        let link = Rate::from_mbps(150);
        let (r, _) = converge(link, 10.0, ms(100), 30);
        let share = r.rate().bps() as f64 / 15e6;
        assert!((share - 1.0).abs() < 0.02, "R = {} (C/N = 15 Mbit/s)", r.rate());
    }

    #[test]
    fn spare_capacity_raises_the_rate_and_a_queue_lowers_it() {
        let link = Rate::from_mbps(100);
        let mut r = RcpRate::new(RcpParams::default(), link);
        r.on_rtt_sample(ms(50));
        let r0 = r.rate();
        r.update(ms(10), 0, false); // nothing arrived: all capacity spare
        let r1 = r.rate();
        assert!(r1 > r0);
        // Input exactly C, but a standing queue of one RTT's worth: R must fall.
        r.on_input((100e6 / 8.0 * 0.01) as u32);
        r.update(ms(20), (100e6 / 8.0 * 0.05) as u64, false);
        assert!(r.rate() < r1);
        // The formula, by hand: 1 + (T/d)(α(C − 0) − 0)/C = 1 + 0.2 · 0.1.
        assert!((r1.bps() as f64 / r0.bps() as f64 - 1.02).abs() < 1e-6);
    }

    #[test]
    fn the_rate_stays_between_the_floor_and_the_link_rate() {
        let link = Rate::from_mbps(10);
        let mut r = RcpRate::new(RcpParams::default(), link);
        r.on_rtt_sample(ms(10));
        for k in 1..2000 {
            r.update(SimTime::from_ms(10 * k), 0, false);
        }
        assert_eq!(r.rate(), link);
        for k in 2000..4000 {
            r.on_input(1_000_000);
            r.update(SimTime::from_ms(10 * k), 10_000_000, false);
        }
        assert_eq!(r.rate(), RcpParams::default().min_rate);
    }

    #[test]
    fn the_interval_is_at_most_the_average_rtt() {
        let mut r = RcpRate::new(RcpParams::default(), Rate::from_gbps(10));
        assert_eq!(r.next_update(), ms(10));
        r.on_rtt_sample(SimTime::from_us(200));
        r.update(ms(10), 0, false);
        assert_eq!(r.next_update(), ms(10) + SimTime::from_us(200));
    }

    #[test]
    fn the_average_rtt_takes_the_first_sample_then_moves_slowly() {
        let mut r = RcpRate::new(RcpParams::default(), Rate::from_mbps(10));
        assert_eq!(r.avg_rtt(), ms(200));
        r.on_rtt_sample(ms(100));
        assert_eq!(r.avg_rtt(), ms(100));
        r.on_rtt_sample(ms(200));
        assert_eq!(r.avg_rtt(), ms(102));
    }

    #[test]
    fn with_hold_while_silent_a_silent_router_holds_its_rate() {
        let hold = RcpParams { hold_while_silent: true, ..RcpParams::default() };
        let mut r = RcpRate::new(hold, Rate::from_mbps(10));
        r.on_rtt_sample(ms(10));
        let before = r.rate();
        r.on_input(1_000_000);
        r.update(ms(10), 1_000_000, true);
        assert_eq!(r.rate(), before);
        // By default a silent router's rate follows the law.
        let mut r = RcpRate::new(RcpParams::default(), Rate::from_mbps(10));
        r.on_rtt_sample(ms(10));
        r.on_input(1_000_000);
        r.update(ms(10), 1_000_000, true);
        assert!(r.rate() < before);
    }

    /// A queue far above C·d would send R to its floor in one update; R falls by at most
    /// `max_decrease` per update instead (and by the law's own factor when that is milder).
    #[test]
    fn one_update_lowers_the_rate_by_at_most_max_decrease() {
        let link = Rate::from_mbps(10);
        let run = |max_decrease: f64| {
            let p = RcpParams { max_decrease, initial_rate_fraction: 0.5, ..RcpParams::default() };
            let mut r = RcpRate::new(p, link);
            r.on_rtt_sample(ms(100));
            r.on_input((10e6 / 8.0 * 0.01) as u32); // y = C
            r.update(ms(10), 1000 * 1500, false); // 1000 packets: q/(C·d) = 12
            r.rate().bps() as f64 / 5e6
        };
        assert!((run(0.5) - 0.5).abs() < 1e-6, "{}", run(0.5));
        assert_eq!(run(0.0) * 5e6, RcpParams::default().min_rate.bps() as f64, "unbounded: the floor");
        // A mild queue: the law's factor, 1 − (T/d)·β·q/(d·C) = 1 − 0.1 · 0.12.
        let p = RcpParams { initial_rate_fraction: 0.5, ..RcpParams::default() };
        let mut r = RcpRate::new(p, link);
        r.on_rtt_sample(ms(100));
        r.on_input((10e6 / 8.0 * 0.01) as u32);
        r.update(ms(10), 10 * 1500, false);
        assert!((r.rate().bps() as f64 / 5e6 - (1.0 - 0.1 * 0.12)).abs() < 1e-6);
    }
}
