/*! Congestion control: how big the window is, decided by a pluggable controller.

The socket owns the [`Window`] (cwnd, ssthresh, SMSS) and runs loss *recovery* (which segments
to resend, RFC 6582 / RFC 6675); the controller decides how the window *grows* on ACKs and
how far it *shrinks* on congestion. This mirrors Linux's split between `tcp_input.c` and the
`tcp_congestion_ops` modules (`ssthresh`, `cong_avoid`, `cwnd_event`), with smoltcp's shape:
hooks that take explicit times and default to doing nothing.

Every hook receives `now`; no controller reads a clock or a global. Controllers defined over
reals (CUBIC, DCTCP's α) use `f64` with `libm`, so results are the same on every platform.
*/

mod cubic;
mod dctcp;
mod lia;
mod newreno;

pub use cubic::{Cubic, CubicModel, CubicParams, HystartParams};
pub use dctcp::{Dctcp, DctcpParams};
pub use lia::{Lia, LiaCoupling, lia_alpha};
pub(crate) use newreno::half_flight;
pub use newreno::{NewReno, RenoIncrease};

use crate::tcp::endpoint::ControllerRecipe;
use crate::units::{Rate, SimTime};

/// The congestion window, shared by the socket's recovery logic and the controller.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Window {
    /// Congestion window, bytes.
    pub cwnd: u64,
    /// Slow-start threshold, bytes.
    pub ssthresh: u64,
    /// Sender maximum segment size, bytes.
    pub mss: u64,
}

impl Window {
    pub fn in_slow_start(&self) -> bool {
        self.cwnd < self.ssthresh
    }
}

/// What an ACK that acknowledged new data tells the controller.
#[derive(Clone, Copy, Debug)]
pub struct AckSample {
    pub now: SimTime,
    /// Payload bytes this ACK delivered, each byte counted once over the connection: those
    /// cumulatively acknowledged that were not SACKed before, plus those newly SACKed (Linux's
    /// `acked_sacked`, `tp->delivered`'s increase; ns-3's `currentDelivered`). A byte SACKed by
    /// one ACK and covered by a later cumulative ACK counts on the first only.
    pub delivered_bytes: u64,
    /// RTT measured from this ACK (None under Karn's rule).
    pub rtt: Option<SimTime>,
    pub srtt: Option<SimTime>,
    pub min_rtt: Option<SimTime>,
    /// Bytes in flight before this ACK.
    pub in_flight: u64,
    /// The window was the limit on sending (not the application): growth is allowed.
    pub cwnd_limited: bool,
    /// The ACK carried ECN-Echo.
    pub ece: bool,
    /// Cumulative ACK point after this ACK, and the next sequence number to be sent (for
    /// controllers that act once per window of data, like DCTCP).
    pub snd_una: u64,
    pub snd_nxt: u64,
}

#[cfg(test)]
impl AckSample {
    /// For controller tests: an ACK of `bytes` at time zero, window-limited, no RTT sample, no
    /// ECE; change what a test needs with struct update syntax.
    pub(crate) fn of_bytes(bytes: u64) -> AckSample {
        AckSample {
            now: SimTime::ZERO,
            delivered_bytes: bytes,
            rtt: None,
            srtt: None,
            min_rtt: None,
            in_flight: 0,
            cwnd_limited: true,
            ece: false,
            snd_una: 0,
            snd_nxt: 0,
        }
    }
}

/// A congestion controller. All hooks have defaults except the two that define an algorithm.
pub trait CongestionControl {
    /// Short name for traces and results.
    fn name(&self) -> &'static str;

    /// Grow the window on an ACK of new data outside loss recovery.
    fn on_ack(&mut self, w: &mut Window, ack: &AckSample);

    /// The slow-start threshold after a congestion event (loss detected by duplicate ACKs,
    /// SACK, or an explicit notification), given the bytes in flight when it was detected.
    fn ssthresh_on_loss(&mut self, w: &Window, now: SimTime, in_flight: u64) -> u64;

    /// Every ACK, in or out of recovery, before any other hook (DCTCP's α estimator).
    fn on_any_ack(&mut self, _w: &mut Window, _ack: &AckSample) {}

    /// The retransmission timer expired. Default (RFC 5681 §3.1): cwnd = the loss window of
    /// one segment; ssthresh as for a loss if `reduce`. The socket passes `reduce = false` when
    /// the window was already reduced for this episode — a timeout during fast recovery, or a
    /// repeated timeout — as Linux's `tcp_enter_loss` does (RFC 5681 holds ssthresh on repeated
    /// timeouts; halving a recovery-inflated FlightSize again would overshoot).
    fn on_rto(&mut self, w: &mut Window, now: SimTime, in_flight: u64, reduce: bool) {
        if reduce {
            w.ssthresh = self.ssthresh_on_loss(w, now, in_flight);
        }
        w.cwnd = w.mss;
    }

    /// Loss recovery ended (the recovery point was acknowledged).
    fn on_recovery_exit(&mut self, _w: &mut Window, _now: SimTime) {}

    /// ECN-Echo arrived outside recovery, at most once per window (RFC 3168 §6.1.2): reduce as
    /// for a loss, without retransmitting. Returns true if the window was reduced (the socket
    /// then sets CWR). Controllers with their own ECN response (DCTCP) override this.
    fn on_ecn_echo(&mut self, w: &mut Window, now: SimTime, in_flight: u64) -> bool {
        w.ssthresh = self.ssthresh_on_loss(w, now, in_flight);
        w.cwnd = w.ssthresh;
        true
    }

    /// A rate at which to pace, if the controller wants pacing.
    fn pacing_rate(&self, _w: &Window, _srtt: Option<SimTime>) -> Option<Rate> {
        None
    }

    /// An explicit rate arrived from the network (read by the endpoint part, e.g. echoed by the receiver).
    /// Controllers that do not use explicit rates ignore it.
    fn on_explicit_rate(&mut self, _w: &mut Window, _now: SimTime, _rate: Rate, _srtt: Option<SimTime>) {}

    /// For the time series: an explicit-rate controller's last signalled rate (if any) and
    /// whether it is sending at that rate (rather than as TCP); None for any other.
    fn explicit_rate_state(&self) -> Option<(Option<Rate>, bool)> {
        None
    }

    /// For the flow table: an explicit-rate controller's switches between sending at the rate
    /// and sending as TCP, and its time at the rate up to `now`; None for any other.
    fn explicit_rate_totals(&self, _now: SimTime) -> Option<(u64, SimTime)> {
        None
    }

    /// The controller itself, for a caller that knows its type (a mechanism's tests and
    /// results); None unless the controller offers it.
    fn as_any(&self) -> Option<&dyn std::any::Any> {
        None
    }
}

/// Every built-in controller, dispatched statically; `Custom` holds any other (a mechanism's,
/// built from `CcConfig::Plugin`, or a user's own).
pub enum AnyCc {
    NewReno(NewReno),
    Cubic(Cubic),
    Dctcp(Dctcp),
    Lia(Lia),
    Custom(Box<dyn CongestionControl + Send + Sync>),
}

macro_rules! dispatch {
    ($self:ident, $c:ident => $e:expr) => {
        match $self {
            AnyCc::NewReno($c) => $e,
            AnyCc::Cubic($c) => $e,
            AnyCc::Dctcp($c) => $e,
            AnyCc::Lia($c) => $e,
            AnyCc::Custom($c) => $e,
        }
    };
}

impl CongestionControl for AnyCc {
    fn name(&self) -> &'static str {
        dispatch!(self, c => c.name())
    }
    #[inline]
    fn on_ack(&mut self, w: &mut Window, ack: &AckSample) {
        dispatch!(self, c => c.on_ack(w, ack))
    }
    fn ssthresh_on_loss(&mut self, w: &Window, now: SimTime, in_flight: u64) -> u64 {
        dispatch!(self, c => c.ssthresh_on_loss(w, now, in_flight))
    }
    #[inline]
    fn on_any_ack(&mut self, w: &mut Window, ack: &AckSample) {
        dispatch!(self, c => c.on_any_ack(w, ack))
    }
    fn on_rto(&mut self, w: &mut Window, now: SimTime, in_flight: u64, reduce: bool) {
        dispatch!(self, c => c.on_rto(w, now, in_flight, reduce))
    }
    fn on_recovery_exit(&mut self, w: &mut Window, now: SimTime) {
        dispatch!(self, c => c.on_recovery_exit(w, now))
    }
    fn on_ecn_echo(&mut self, w: &mut Window, now: SimTime, in_flight: u64) -> bool {
        dispatch!(self, c => c.on_ecn_echo(w, now, in_flight))
    }
    fn pacing_rate(&self, w: &Window, srtt: Option<SimTime>) -> Option<Rate> {
        dispatch!(self, c => c.pacing_rate(w, srtt))
    }
    fn on_explicit_rate(&mut self, w: &mut Window, now: SimTime, rate: Rate, srtt: Option<SimTime>) {
        dispatch!(self, c => c.on_explicit_rate(w, now, rate, srtt))
    }
    fn explicit_rate_state(&self) -> Option<(Option<Rate>, bool)> {
        dispatch!(self, c => c.explicit_rate_state())
    }
    fn explicit_rate_totals(&self, now: SimTime) -> Option<(u64, SimTime)> {
        dispatch!(self, c => c.explicit_rate_totals(now))
    }
    fn as_any(&self) -> Option<&dyn std::any::Any> {
        dispatch!(self, c => c.as_any())
    }
}

impl std::fmt::Debug for AnyCc {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// Which controller a flow uses, with its parameters (from the scenario).
#[derive(Clone, Debug, PartialEq)]
pub enum CcConfig {
    NewReno(RenoIncrease),
    Cubic(CubicParams),
    Dctcp(DctcpParams),
    /// Any other controller, built from its recipe with the endpoint part it may bring (an
    /// explicit-rate sender and its protocol, `tcp::endpoint`).
    Plugin(ControllerRecipe),
}

impl CcConfig {
    /// A plug-in controller's parameters, if they are a `T`.
    pub fn plugin<T: std::any::Any>(&self) -> Option<&T> {
        match self {
            CcConfig::Plugin(r) => r.params(),
            _ => None,
        }
    }

    /// Controllers that need ECN negotiated and the DCTCP-style echo.
    pub fn wants_ecn(&self) -> bool {
        match self {
            CcConfig::Dctcp(_) => true,
            CcConfig::Plugin(r) => r.0.wants_ecn(),
            _ => false,
        }
    }

    pub fn build(&self) -> AnyCc {
        match self {
            CcConfig::NewReno(increase) => AnyCc::NewReno(NewReno::new(*increase)),
            CcConfig::Cubic(p) => AnyCc::Cubic(Cubic::new(*p)),
            CcConfig::Dctcp(p) => AnyCc::Dctcp(Dctcp::new(*p)),
            CcConfig::Plugin(r) => AnyCc::Custom(r.0.controller()),
        }
    }

    /// The endpoint part this controller comes with, if any.
    pub fn endpoint_part(&self) -> Option<Box<dyn crate::tcp::endpoint::EndpointPart>> {
        match self {
            CcConfig::Plugin(r) => r.0.endpoint_part(),
            _ => None,
        }
    }
}
