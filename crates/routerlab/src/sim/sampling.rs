//! Periodic sampling of the senders' TCP state (opt-in: `[output] timeseries = "10ms"`).
//!
//! Every `interval`, one row per selected flow: the sender's cwnd, ssthresh, SRTT, RTO, bytes in
//! flight, the rate it sent payload at since the previous sample (retransmissions included), the
//! rate the receiver got new data in order since then, and its loss-recovery state. Rows accumulate in columns, ready for `timeseries.parquet`.

use crate::ids::ConnId;
use crate::tcp::cc::CongestionControl;
use crate::tcp::{State, TcpSocket};
use crate::units::SimTime;

/// Columns of the time series.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct TimeSeries {
    pub t_s: Vec<f64>,
    pub flow_id: Vec<u32>,
    pub cwnd_bytes: Vec<u64>,
    /// None while ssthresh is still "infinite" (before the first reduction).
    pub ssthresh_bytes: Vec<Option<u64>>,
    pub srtt_s: Vec<Option<f64>>,
    pub rto_s: Vec<f64>,
    pub in_flight_bytes: Vec<u64>,
    pub send_rate_bps: Vec<f64>,
    /// New payload delivered in order to the receiver since the previous sample, as a rate.
    pub delivered_bps: Vec<f64>,
    pub state: Vec<&'static str>,
    /// Explicit-rate senders: the last rate signalled (None before the first, and for other
    /// senders) and whether the sender follows it (rate mode) or runs TCP.
    pub signalled_rate_bps: Vec<Option<f64>>,
    pub rate_mode: Vec<Option<bool>>,
}

/// The flow sampler's configuration and state.
#[derive(Clone, Debug)]
pub struct FlowSampler {
    pub interval: SimTime,
    /// Flows to sample (all if the scenario names none).
    pub flows: Vec<ConnId>,
    last_sent: Vec<u64>,
    last_delivered: Vec<u64>,
    pub series: TimeSeries,
}

impl FlowSampler {
    pub fn new(interval: SimTime, flows: Vec<ConnId>) -> FlowSampler {
        let n = flows.len();
        FlowSampler {
            interval,
            flows,
            last_sent: vec![0; n],
            last_delivered: vec![0; n],
            series: TimeSeries::default(),
        }
    }

    /// Record one row per flow; `flow(c)` gives connection c's sending socket and the bytes its
    /// receiver has had delivered in order.
    pub fn sample<'a>(&mut self, now: SimTime, flow: impl Fn(ConnId) -> (&'a TcpSocket, u64)) {
        let secs = self.interval.as_secs_f64();
        for (i, &c) in self.flows.iter().enumerate() {
            let (s, delivered) = flow(c);
            let sent = s.stats().payload_bytes_sent;
            let rate = (sent - self.last_sent[i]) as f64 * 8.0 / secs;
            self.last_sent[i] = sent;
            let delivered_rate = (delivered - self.last_delivered[i]) as f64 * 8.0 / secs;
            self.last_delivered[i] = delivered;
            let ts = &mut self.series;
            ts.t_s.push(now.as_secs_f64());
            ts.flow_id.push(c.0);
            ts.cwnd_bytes.push(s.cwnd());
            ts.ssthresh_bytes.push((s.ssthresh() != u64::MAX).then_some(s.ssthresh()));
            ts.srtt_s.push(s.srtt().map(|r| r.as_secs_f64()));
            ts.rto_s.push(s.rto().as_secs_f64());
            ts.in_flight_bytes.push(s.in_flight());
            ts.send_rate_bps.push(rate);
            ts.delivered_bps.push(delivered_rate);
            ts.state.push(state_name(s));
            let (rate, mode) = match s.cc().explicit_rate_state() {
                Some((rate, in_rate_mode)) => (rate.map(|r| r.bps() as f64), Some(in_rate_mode)),
                None => (None, None),
            };
            ts.signalled_rate_bps.push(rate);
            ts.rate_mode.push(mode);
        }
    }
}

/// The sender's state for the time series: the loss-recovery state while connected.
fn state_name(s: &TcpSocket) -> &'static str {
    match s.state() {
        State::Closed if s.snd_nxt() == 0 => "idle",
        State::SynSent | State::SynReceived | State::Listen => "handshake",
        State::Closed => "closed",
        _ if s.all_acked() && s.snd_nxt() > 1 && s.state() != State::Established => "closed",
        _ => s.ca_state().name(),
    }
}
