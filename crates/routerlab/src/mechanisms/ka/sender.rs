//! The sender's window rules for explicit rates: Kick-Ass's two modes (§II-C), and native RCP.
//!
//! In **rate mode** the window is the signalled rate × the smoothed RTT and the socket paces at
//! the rate (the paper's test-bed sender updates both pacing and window on each rate, §IV-A).
//! A Kick-Ass sender starts as a plain TCP sender (§II: "as it would in a normal TCP
//! connection"), its first rate arriving about an RTT after its first data, and falls back to
//! **TCP mode** (NewReno, §III-A) when
//! - a loss, three duplicate ACKs or an ECN echo says a router that signals no rate is
//!   congested (§II-C3) — it returns to rate mode once its TCP rate (cwnd / SRTT) grows past
//!   the last signalled rate;
//! - no rate has arrived for more than an RTT (§II-C2: a Kick-Ass router stops signalling when
//!   its queue is over half full, or the path lost its Kick-Ass router) — it returns as soon as
//!   rates arrive again.
//!
//! The reason is the one that ended rate mode: losses met in TCP mode do not change it (the
//! paper's two cases, §II-C2 and §II-C3, each describe one way out of rate mode and back).
//!
//! Native RCP's sender never falls back (`fallback = false`): it follows the rate from the
//! SYN-ACK on, and repairs losses without shrinking the window.

use crate::tcp::cc::{AckSample, CongestionControl, NewReno, Window, half_flight};
use crate::units::{Rate, SimTime};

/// Why a Kick-Ass sender is in TCP mode.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TcpReason {
    /// No rate heard for an RTT (or none yet).
    NoSignal,
    /// A loss, triple duplicate ACK or ECN echo.
    Congestion,
}

/// The sender's mode.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    Rate,
    Tcp(TcpReason),
}

/// Mode-change counters (a per-flow metric in the results).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ModeStats {
    pub to_rate: u64,
    pub to_tcp_no_signal: u64,
    pub to_tcp_congestion: u64,
    /// Rate mode time, up to the last switch out of it.
    pub rate_time: SimTime,
}

impl ModeStats {
    pub fn switches(&self) -> u64 {
        self.to_rate + self.to_tcp_no_signal + self.to_tcp_congestion
    }
}

/// The controller.
#[derive(Clone, Debug)]
pub struct ExplicitRate {
    /// Kick-Ass: fall back to TCP (true); native RCP: never (false).
    fallback: bool,
    mode: Mode,
    mode_since: SimTime,
    /// The last rate signalled, and when it arrived.
    rate: Option<Rate>,
    rate_at: SimTime,
    tcp: NewReno,
    pub stats: ModeStats,
}

impl ExplicitRate {
    /// Kick-Ass's sender.
    pub fn kick_ass() -> ExplicitRate {
        ExplicitRate::new(true)
    }

    /// Native RCP's sender.
    pub fn rcp() -> ExplicitRate {
        ExplicitRate::new(false)
    }

    fn new(fallback: bool) -> ExplicitRate {
        ExplicitRate {
            fallback,
            mode: Mode::Tcp(TcpReason::NoSignal),
            mode_since: SimTime::ZERO,
            rate: None,
            rate_at: SimTime::ZERO,
            tcp: NewReno::default(),
            stats: ModeStats::default(),
        }
    }

    pub fn mode(&self) -> Mode {
        self.mode
    }

    /// The last rate signalled, if any.
    pub fn last_rate(&self) -> Option<Rate> {
        self.rate
    }

    /// Time spent in rate mode up to `now`.
    pub fn rate_time(&self, now: SimTime) -> SimTime {
        let open = if self.mode == Mode::Rate { now.saturating_sub(self.mode_since) } else { SimTime::ZERO };
        self.stats.rate_time + open
    }

    fn switch(&mut self, now: SimTime, to: Mode) {
        if to == self.mode {
            return;
        }
        if self.mode == Mode::Rate {
            self.stats.rate_time += now.saturating_sub(self.mode_since);
        }
        match to {
            Mode::Rate => self.stats.to_rate += 1,
            Mode::Tcp(TcpReason::NoSignal) => self.stats.to_tcp_no_signal += 1,
            Mode::Tcp(TcpReason::Congestion) => self.stats.to_tcp_congestion += 1,
        }
        self.mode = to;
        self.mode_since = now;
    }

    /// Rate mode's window: rate × SRTT, at least one segment.
    fn set_window(&self, w: &mut Window, srtt: Option<SimTime>) {
        if let (Some(r), Some(rtt)) = (self.rate, srtt) {
            w.cwnd = r.bytes_in(rtt).max(w.mss);
        }
    }

    /// TCP mode's rate: cwnd / SRTT.
    fn tcp_rate(w: &Window, srtt: Option<SimTime>) -> Option<Rate> {
        let rtt = srtt?;
        let bps = w.cwnd as u128 * 8 * crate::units::PS_PER_S as u128 / rtt.0.max(1) as u128;
        Some(Rate(bps.min(u64::MAX as u128) as u64))
    }

    /// In TCP mode after congestion: back to rate mode once TCP's rate passes the signalled one.
    fn maybe_return(&mut self, w: &mut Window, now: SimTime, srtt: Option<SimTime>) {
        if self.mode == Mode::Tcp(TcpReason::Congestion)
            && let (Some(r), Some(tcp)) = (self.rate, Self::tcp_rate(w, srtt))
            && tcp >= r
        {
            self.switch(now, Mode::Rate);
            self.set_window(w, srtt);
        }
    }

    /// A congestion signal from the network. In rate mode, Kick-Ass falls back to TCP: a router
    /// that signals no rate is congested (§II-C3). In TCP mode the reason it left rate mode
    /// stands: a flow that left because its Kick-Ass router fell silent meets losses in TCP
    /// mode as a matter of course, and returns "on receipt of such rates" (§II-C2).
    fn on_congestion(&mut self, now: SimTime) {
        if self.fallback && self.mode == Mode::Rate {
            self.switch(now, Mode::Tcp(TcpReason::Congestion));
        }
    }
}

impl CongestionControl for ExplicitRate {
    fn name(&self) -> &'static str {
        if self.fallback { "kick-ass" } else { "rcp" }
    }

    fn explicit_rate_state(&self) -> Option<(Option<Rate>, bool)> {
        Some((self.last_rate(), self.mode() == Mode::Rate))
    }

    fn explicit_rate_totals(&self, now: SimTime) -> Option<(u64, SimTime)> {
        Some((self.stats.switches(), self.rate_time(now)))
    }

    fn as_any(&self) -> Option<&dyn std::any::Any> {
        Some(self)
    }

    fn on_explicit_rate(&mut self, w: &mut Window, now: SimTime, rate: Rate, srtt: Option<SimTime>) {
        self.rate = Some(rate);
        self.rate_at = now;
        match self.mode {
            Mode::Rate => self.set_window(w, srtt),
            Mode::Tcp(TcpReason::NoSignal) => {
                self.switch(now, Mode::Rate);
                self.set_window(w, srtt);
            }
            Mode::Tcp(TcpReason::Congestion) => self.maybe_return(w, now, srtt),
        }
    }

    fn on_ack(&mut self, w: &mut Window, ack: &AckSample) {
        match self.mode {
            Mode::Rate => {
                let rtt = ack.srtt.unwrap_or(SimTime::MAX);
                if self.fallback && ack.now.saturating_sub(self.rate_at) > rtt {
                    // Silence for more than an RTT: TCP, continuing from this window.
                    self.switch(ack.now, Mode::Tcp(TcpReason::NoSignal));
                    w.ssthresh = w.cwnd;
                } else {
                    self.set_window(w, ack.srtt);
                }
            }
            Mode::Tcp(_) => {
                self.tcp.on_ack(w, ack);
                self.maybe_return(w, ack.now, ack.srtt);
            }
        }
    }

    fn ssthresh_on_loss(&mut self, w: &Window, now: SimTime, in_flight: u64) -> u64 {
        if !self.fallback {
            return w.cwnd; // RCP repairs the loss and keeps its rate
        }
        self.on_congestion(now);
        half_flight(w, in_flight)
    }

    fn on_rto(&mut self, w: &mut Window, now: SimTime, in_flight: u64, reduce: bool) {
        if !self.fallback {
            return;
        }
        self.on_congestion(now);
        if reduce {
            w.ssthresh = half_flight(w, in_flight);
        }
        w.cwnd = w.mss;
    }

    fn on_ecn_echo(&mut self, w: &mut Window, now: SimTime, in_flight: u64) -> bool {
        if !self.fallback {
            return false;
        }
        self.on_congestion(now);
        w.ssthresh = half_flight(w, in_flight);
        w.cwnd = w.ssthresh;
        true
    }

    fn pacing_rate(&self, _w: &Window, _srtt: Option<SimTime>) -> Option<Rate> {
        if self.mode == Mode::Rate { self.rate } else { None }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ms(n: u64) -> SimTime {
        SimTime::from_ms(n)
    }
    const MSS: u64 = 1460;
    /// The window at 12 Mbit/s × 100 ms.
    const FLIGHT: u64 = 150_000;

    fn win() -> Window {
        Window { cwnd: 10 * MSS, ssthresh: u64::MAX, mss: MSS }
    }

    fn ack(now: SimTime, srtt: SimTime) -> AckSample {
        AckSample { now, srtt: Some(srtt), ..AckSample::of_bytes(MSS) }
    }

    #[test]
    fn starts_as_tcp_and_takes_the_first_rate() {
        let mut c = ExplicitRate::kick_ass();
        let mut w = win();
        assert_eq!(c.mode(), Mode::Tcp(TcpReason::NoSignal));
        assert_eq!(c.pacing_rate(&w, None), None);
        c.on_ack(&mut w, &ack(ms(100), ms(100)));
        assert_eq!(w.cwnd, 11 * MSS, "slow start until a rate arrives");
        c.on_explicit_rate(&mut w, ms(110), Rate::from_mbps(12), Some(ms(100)));
        assert_eq!(c.mode(), Mode::Rate);
        assert_eq!(w.cwnd, 150_000, "12 Mbit/s × 100 ms");
        assert_eq!(c.pacing_rate(&w, Some(ms(100))), Some(Rate::from_mbps(12)));
        assert_eq!(c.stats.to_rate, 1);
    }

    #[test]
    fn silence_for_an_rtt_means_tcp_and_the_next_rate_brings_rate_mode_back() {
        let mut c = ExplicitRate::kick_ass();
        let mut w = win();
        c.on_explicit_rate(&mut w, SimTime::ZERO, Rate::from_mbps(12), Some(ms(100)));
        c.on_ack(&mut w, &ack(ms(100), ms(100)));
        assert_eq!(c.mode(), Mode::Rate, "exactly an RTT is not more than an RTT");
        c.on_ack(&mut w, &ack(ms(101), ms(100)));
        assert_eq!(c.mode(), Mode::Tcp(TcpReason::NoSignal));
        assert_eq!(w.ssthresh, w.cwnd, "TCP mode continues in congestion avoidance");
        assert_eq!(c.pacing_rate(&w, Some(ms(100))), None);
        c.on_explicit_rate(&mut w, ms(300), Rate::from_mbps(6), Some(ms(100)));
        assert_eq!(c.mode(), Mode::Rate, "§II-C2: rates again, rate mode at once");
        assert_eq!(w.cwnd, 75_000);
        assert_eq!(c.stats.to_tcp_no_signal, 1);
        assert_eq!(c.stats.to_rate, 2);
    }

    #[test]
    fn a_loss_means_tcp_until_its_rate_passes_the_signalled_one() {
        let mut c = ExplicitRate::kick_ass();
        let mut w = win();
        let rtt = ms(100);
        c.on_explicit_rate(&mut w, SimTime::ZERO, Rate::from_mbps(12), Some(rtt));
        let ss = c.ssthresh_on_loss(&w, ms(10), w.cwnd);
        assert_eq!(c.mode(), Mode::Tcp(TcpReason::Congestion));
        assert_eq!(ss, 75_000, "NewReno halves");
        w.cwnd = ss;
        w.ssthresh = ss;
        // Rates keep coming but TCP's 6 Mbit/s is under 12: stay in TCP mode.
        c.on_explicit_rate(&mut w, ms(20), Rate::from_mbps(12), Some(rtt));
        assert_eq!(c.mode(), Mode::Tcp(TcpReason::Congestion));
        assert_eq!(w.cwnd, 75_000, "TCP mode keeps its own window");
        // Congestion avoidance grows the window; once cwnd / SRTT ≥ 12 Mbit/s, back.
        let mut t = ms(20);
        while c.mode() != Mode::Rate {
            t += ms(1);
            c.on_ack(&mut w, &ack(t, rtt));
            c.on_explicit_rate(&mut w, t, Rate::from_mbps(12), Some(rtt));
            assert!(t < SimTime::from_secs(100));
        }
        assert!(w.cwnd >= 150_000);
        assert_eq!(c.stats.to_tcp_congestion, 1);
    }

    #[test]
    fn losses_in_tcp_mode_keep_the_reason_it_left_rate_mode() {
        let mut c = ExplicitRate::kick_ass();
        let mut w = win();
        c.on_explicit_rate(&mut w, SimTime::ZERO, Rate::from_mbps(12), Some(ms(100)));
        c.on_ack(&mut w, &ack(ms(150), ms(100))); // silent router
        assert_eq!(c.mode(), Mode::Tcp(TcpReason::NoSignal));
        c.ssthresh_on_loss(&w, ms(200), w.cwnd);
        c.on_rto(&mut w, ms(300), FLIGHT, true);
        assert_eq!(c.mode(), Mode::Tcp(TcpReason::NoSignal));
        c.on_explicit_rate(&mut w, ms(400), Rate::from_mbps(12), Some(ms(100)));
        assert_eq!(c.mode(), Mode::Rate, "rates again: back at once, losses or not");
        assert_eq!(c.stats.to_tcp_congestion, 0);
    }

    #[test]
    fn timeouts_and_ecn_are_congestion_too() {
        let mut c = ExplicitRate::kick_ass();
        let mut w = win();
        c.on_explicit_rate(&mut w, SimTime::ZERO, Rate::from_mbps(12), Some(ms(100)));
        c.on_rto(&mut w, ms(10), FLIGHT, true);
        assert_eq!(c.mode(), Mode::Tcp(TcpReason::Congestion));
        assert_eq!(w.cwnd, MSS);
        let mut c = ExplicitRate::kick_ass();
        let mut w = win();
        c.on_explicit_rate(&mut w, SimTime::ZERO, Rate::from_mbps(12), Some(ms(100)));
        assert!(c.on_ecn_echo(&mut w, ms(10), FLIGHT));
        assert_eq!(c.mode(), Mode::Tcp(TcpReason::Congestion));
        assert_eq!(w.cwnd, 75_000);
    }

    #[test]
    fn rcp_never_falls_back() {
        let mut c = ExplicitRate::rcp();
        let mut w = win();
        c.on_explicit_rate(&mut w, SimTime::ZERO, Rate::from_mbps(12), Some(ms(100)));
        assert_eq!(c.ssthresh_on_loss(&w, ms(10), w.cwnd), w.cwnd);
        c.on_rto(&mut w, ms(20), FLIGHT, true);
        assert!(!c.on_ecn_echo(&mut w, ms(30), FLIGHT));
        c.on_ack(&mut w, &ack(SimTime::from_secs(5), ms(100)));
        assert_eq!(c.mode(), Mode::Rate);
        assert_eq!(w.cwnd, 150_000);
        assert_eq!(c.stats.switches(), 1);
    }

    #[test]
    fn rate_time_counts_open_and_closed_periods() {
        let mut c = ExplicitRate::kick_ass();
        let mut w = win();
        c.on_explicit_rate(&mut w, ms(100), Rate::from_mbps(12), Some(ms(100)));
        c.on_ack(&mut w, &ack(ms(300), ms(100))); // silent: TCP at 300 ms
        assert_eq!(c.rate_time(SimTime::from_secs(1)), ms(200));
        c.on_explicit_rate(&mut w, ms(500), Rate::from_mbps(12), Some(ms(100)));
        assert_eq!(c.rate_time(SimTime::from_secs(1)), ms(700));
    }
}
