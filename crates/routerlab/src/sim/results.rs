//! Results of a run: one row per flow, per transfer and per link direction, the optional
//! measurement series, and a summary. Definitions are in `docs/scenario.md` (Results):
//!
//! - `start_s`: when the flow's first SYN (or datagram) was sent (the scheduled start if it
//!   never started before the end of the run).
//! - `fct_s`: from `start_s` to the arrival of the last data byte at the receiver; empty for
//!   bulk and persistent flows and for unfinished ones.
//! - `goodput_bps`: payload bytes delivered in order to the receiver × 8, divided by the time
//!   from `start_s` to the flow's end (its completion, or the end of the run).
//! - `max_silence_s`: the longest time the receiver got no new data — from the start to the
//!   first delivery, between deliveries, and (for flows still running) from the last delivery
//!   to the end of the run.
//! - `retransmissions`, `timeouts`: data retransmissions and retransmission-timer expirations
//!   with data outstanding at the data sender; `spurious_timeouts`: those of them F-RTO found
//!   spurious and undid; `loss_probes`: tail loss probes it sent (RFC 8985 §7);
//!   `syn_timeouts`: expirations of its SYN timer
//!   (counted apart: a lost SYN costs a whole initial RTO); `fast_recoveries`: recovery episodes entered
//!   without a timeout (duplicate ACKs, SACK or an explicit signal such as a loss report).
//! - `loss_detection_s`: the mean, over the segments the sender retransmitted, of the time
//!   from a segment's first transmission to its first retransmission (the payload-cutting slides'
//!   "detection time"); empty if it retransmitted nothing. `retransmitted_segments`: how many segments
//!   that mean is over (each retransmitted at least once).
//! - `spurious_retransmissions`: data segments the receiver got twice (every copy after the
//!   first: the network never duplicates, so each was an unneeded retransmission or the late
//!   original of one — reordering mistaken for loss, or a timeout that fired too early).
//! - summary `goodput_bps`: all delivered payload × 8 / simulated time; `drops`: packets lost
//!   to queues, link losses, failed links and missing routes (cuts excluded: the header
//!   arrives); `jain_index`: Jain's index of `goodput_bps` over the TCP flows that started
//!   (missing if none did); `jain_short_mean`: the mean of the fairness slices' indices, over
//!   the slices that had flows (a slice before any flow started has no index).

use super::measure::{FairnessSeries, LatencySeries, QueueSeries};
use super::{Carrier, Simulation};
use crate::units::SimTime;
use std::collections::HashMap;

use crate::net::flow_epoch::FlowEpoch;
use crate::net::packet::FlowKey;
use crate::net::port::Port;
use crate::qdisc::{DropCause, Qdisc};
use crate::tcp::TcpStats;
use crate::tcp::cc::CongestionControl;

#[derive(Clone, Debug, PartialEq)]
pub struct FlowRow {
    pub flow_id: u32,
    pub group: String,
    pub protocol: &'static str,
    pub src: String,
    pub dst: String,
    pub size_bytes: Option<u64>,
    pub start_s: f64,
    pub fct_s: Option<f64>,
    pub bytes_acked: u64,
    pub bytes_delivered: u64,
    pub goodput_bps: f64,
    pub retransmissions: u64,
    pub spurious_retransmissions: u64,
    pub fast_recoveries: u64,
    pub timeouts: u64,
    pub spurious_timeouts: u64,
    pub loss_probes: u64,
    pub syn_timeouts: u64,
    pub loss_detection_s: Option<f64>,
    pub retransmitted_segments: u64,
    pub max_silence_s: f64,
    /// Explicit-rate senders: switches between rate and TCP mode, and the time spent following
    /// a signalled rate (`CongestionControl::explicit_rate_totals`). Empty for other flows.
    pub rate_mode_switches: Option<u64>,
    pub rate_mode_s: Option<f64>,
}

#[derive(Clone, Debug, PartialEq)]
pub struct TransferRow {
    pub transfer_id: u32,
    pub flow_id: u32,
    pub group: String,
    /// Workload-defined: the round (incast), the page (web), the flow's index (on-off).
    pub seq: u32,
    pub size_bytes: u64,
    pub start_s: f64,
    pub end_s: Option<f64>,
}

#[derive(Clone, Debug, PartialEq)]
pub struct LinkRow {
    pub link: String,
    pub rate_bps: u64,
    pub tx_packets: u64,
    pub tx_bytes: u64,
    pub utilization: f64,
    pub drops: u64,
    /// Packets whose payload was cut (not counted in `drops`), and header-only packets dropped
    /// for want of header buffer (counted in `drops`).
    pub cuts: u64,
    pub header_drops: u64,
    /// Time during which the input outran what the queue is sized for (`Qdisc::overloaded`:
    /// a payload-cutting queue's header buffer, 13.1 × the output rate).
    pub cp_overload_s: f64,
    pub ecn_marks: u64,
    pub queue_high_water_packets: u64,
    /// Time-averaged queue length (packets waiting, not the one being transmitted).
    pub mean_queue_packets: f64,
    pub mean_queue_bytes: f64,
}

impl LinkRow {
    /// The row of port `p`, named `name`, over `[0, now]`.
    pub fn of_port(p: &Port, name: &str, now: SimTime) -> LinkRow {
        let qs = p.queue_stats();
        LinkRow {
            link: name.to_string(),
            rate_bps: p.rate().bps(),
            tx_packets: p.stats.tx_packets,
            tx_bytes: p.stats.tx_bytes,
            utilization: if now.0 > 0 { p.stats.busy.min(now).0 as f64 / now.0 as f64 } else { 0.0 },
            drops: qs.total_drops() + p.link_drops.total(),
            cuts: qs.drops[DropCause::PayloadCut as usize],
            header_drops: qs.drops[DropCause::HeaderOverflow as usize],
            cp_overload_s: p.qdisc().overloaded().as_secs_f64(),
            ecn_marks: qs.ecn_marks,
            queue_high_water_packets: qs.high_water_packets,
            mean_queue_packets: p.mean_queue_packets(now),
            mean_queue_bytes: p.mean_queue_bytes(now),
        }
    }
}

#[derive(Clone, Debug, PartialEq)]
pub struct Summary {
    pub sim_seconds: f64,
    pub events: u64,
    pub packet_hops: u64,
    pub goodput_bps: f64,
    pub drops: u64,
    pub jain_index: Option<f64>,
    pub flows: u64,
    pub flows_completed: u64,
    /// Application transfers (incast blocks, web objects, on-off bursts, sized flows).
    pub transfers: u64,
    pub transfers_completed: u64,
    /// From the first connection's start to the last new data delivered: the time the
    /// workload was moving data (a run may idle long after its last round).
    pub active_seconds: f64,
    /// All delivered payload × 8 / `active_seconds`; none if nothing was delivered.
    pub active_goodput_bps: Option<f64>,
    pub retransmissions: u64,
    pub timeouts: u64,
    pub spurious_timeouts: u64,
    pub loss_probes: u64,
    pub syn_timeouts: u64,
    /// Mean of the short-term Jain indices, if fairness slices were measured.
    pub jain_short_mean: Option<f64>,
}

/// Queueing-delay histogram rows: (link, lower s, upper s, count).
pub type QueueDelayRows = Vec<(String, f64, f64, u64)>;

/// Closed epochs of the flows crossing a port, as its tracker saw them.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct FlowEpochRows {
    pub link: Vec<String>,
    pub flow_id: Vec<u32>,
    pub end_s: Vec<f64>,
    pub from_state: Vec<&'static str>,
    pub to_state: Vec<&'static str>,
    pub packets: Vec<u32>,
    pub drops: Vec<u32>,
    pub epochs: Vec<u32>,
}

/// Counters of the mechanisms' stages (router ports) and host shims, one row per counter.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct StageRows {
    /// A port (`"a->b"`) or a host.
    pub at: Vec<String>,
    pub stage: Vec<&'static str>,
    pub counter: Vec<&'static str>,
    pub value: Vec<u64>,
}

impl StageRows {
    /// Each counter of `stage`, summed over every port and host that has one.
    pub fn totals(&self, stage: &str) -> HashMap<&'static str, u64> {
        let mut out = HashMap::new();
        for i in (0..self.at.len()).filter(|&i| self.stage[i] == stage) {
            *out.entry(self.counter[i]).or_default() += self.value[i];
        }
        out
    }

    fn push(&mut self, at: &str, stage: &'static str, counters: Vec<(&'static str, u64)>) {
        for (counter, value) in counters {
            self.at.push(at.to_string());
            self.stage.push(stage);
            self.counter.push(counter);
            self.value.push(value);
        }
    }
}

#[derive(Clone, Debug, PartialEq)]
pub struct Results {
    pub summary: Summary,
    pub flows: Vec<FlowRow>,
    pub transfers: Vec<TransferRow>,
    pub links: Vec<LinkRow>,
    /// Per-flow TCP state samples, if the scenario asked for them.
    pub timeseries: Option<super::TimeSeries>,
    pub queues: Option<QueueSeries>,
    pub fairness: Option<FairnessSeries>,
    pub latency: Option<LatencySeries>,
    pub queue_delay: Option<QueueDelayRows>,
    pub flow_epochs: Option<FlowEpochRows>,
    pub stages: Option<StageRows>,
}

/// Jain's fairness index, (Σx)² / (n·Σx²): 1 for equal shares, all-zero ones included; none
/// for an empty set, which has no shares to compare.
pub fn jain_index(xs: &[f64]) -> Option<f64> {
    let n = xs.len() as f64;
    let sum: f64 = xs.iter().sum();
    let sq: f64 = xs.iter().map(|x| x * x).sum();
    match (xs.is_empty(), sq == 0.0) {
        (true, _) => None,
        (false, true) => Some(1.0),
        (false, false) => Some(sum * sum / (n * sq)),
    }
}

/// From the first connection's start to the last new data any receiver got (zero if none did).
fn active_span(sim: &Simulation) -> SimTime {
    let first = sim.conns.iter().filter_map(|c| c.started).min();
    let last = sim.conns.iter().filter(|c| c.delivered > 0).map(|c| c.last_progress).max();
    match (first, last) {
        (Some(first), Some(last)) => last.saturating_sub(first),
        _ => SimTime::ZERO,
    }
}

/// The mean of the indices there are, if any.
fn mean_of_present(xs: &[Option<f64>]) -> Option<f64> {
    let present: Vec<f64> = xs.iter().flatten().copied().collect();
    (!present.is_empty()).then(|| present.iter().sum::<f64>() / present.len() as f64)
}

pub(super) fn collect(sim: &Simulation) -> Results {
    let now = sim.now;
    let group = |g: u32| sim.groups.get(g as usize).cloned().unwrap_or_default();
    let mut flows = Vec::with_capacity(sim.conns.len());
    let mut tcp_goodputs = Vec::new();
    let mut delivered_total = 0u64;
    let (mut retx_total, mut to_total, mut syn_to_total, mut spurious_to_total) = (0, 0, 0, 0);
    let mut probes_total = 0;
    for (i, c) in sim.conns.iter().enumerate() {
        let start = c.started.unwrap_or(c.start_at);
        let end = c.finished.unwrap_or(now);
        let span = end.saturating_sub(start).as_secs_f64();
        let (protocol, delivered, acked, st, spurious) = match c.carrier {
            Carrier::Tcp { sender, receiver } => {
                let (snd, rcv) = (&sim.eps[sender.idx()].sock, &sim.eps[receiver.idx()].sock);
                let dups = rcv.receiver().dup_segments;
                ("tcp", rcv.delivered_bytes(), snd.bytes_acked(), snd.stats().clone(), dups)
            }
            Carrier::Mptcp(m) => {
                // The stream as the application sees it; counters summed over the subflows.
                let mc = &sim.mptcp[m as usize];
                let mut st = TcpStats::default();
                let mut dups = 0;
                for sf in &mc.subflows {
                    let s = sim.eps[sf.sender.idx()].sock.stats();
                    st.retransmissions += s.retransmissions;
                    st.timeouts += s.timeouts;
                    st.spurious_timeouts += s.spurious_timeouts;
                    st.loss_probes += s.loss_probes;
                    st.syn_timeouts += s.syn_timeouts;
                    st.fast_recoveries += s.fast_recoveries;
                    st.first_retransmissions += s.first_retransmissions;
                    st.loss_detection += s.loss_detection;
                    dups += sim.eps[sf.receiver.idx()].sock.receiver().dup_segments;
                }
                ("mptcp", mc.data_ack(), mc.data_ack(), st, dups)
            }
            Carrier::Udp { delivered_bytes, .. } => {
                ("udp", delivered_bytes, delivered_bytes, TcpStats::default(), 0)
            }
        };
        let (retx, timeouts) = (st.retransmissions, st.timeouts);
        let rate_mode = match c.carrier {
            Carrier::Tcp { sender, .. } => sim.eps[sender.idx()]
                .sock
                .cc()
                .explicit_rate_totals(end)
                .map(|(switches, at_rate)| (switches, at_rate.as_secs_f64())),
            _ => None,
        };
        delivered_total += delivered;
        retx_total += retx;
        to_total += timeouts;
        syn_to_total += st.syn_timeouts;
        spurious_to_total += st.spurious_timeouts;
        probes_total += st.loss_probes;
        let goodput = if c.started.is_some() && span > 0.0 { delivered as f64 * 8.0 / span } else { 0.0 };
        if c.started.is_some() && c.is_tcp() {
            tcp_goodputs.push(goodput);
        }
        // Silence: the tail since the last delivery counts for flows still running.
        let tail = if c.finished.is_none() && c.started.is_some() {
            now.saturating_sub(c.last_progress)
        } else {
            Default::default()
        };
        flows.push(FlowRow {
            flow_id: i as u32,
            group: group(c.group),
            protocol,
            src: sim.net.host_name(c.src).to_string(),
            dst: sim.net.host_name(c.dst).to_string(),
            size_bytes: if c.persistent { Some(c.written) } else { c.size },
            start_s: start.as_secs_f64(),
            fct_s: c.finished.map(|f| (f - start).as_secs_f64()),
            bytes_acked: acked,
            bytes_delivered: delivered,
            goodput_bps: goodput,
            retransmissions: retx,
            spurious_retransmissions: spurious,
            fast_recoveries: st.fast_recoveries,
            timeouts,
            spurious_timeouts: st.spurious_timeouts,
            loss_probes: st.loss_probes,
            syn_timeouts: st.syn_timeouts,
            loss_detection_s: (st.first_retransmissions > 0)
                .then(|| st.loss_detection.as_secs_f64() / st.first_retransmissions as f64),
            retransmitted_segments: st.first_retransmissions,
            max_silence_s: c.max_silence.max(tail).as_secs_f64(),
            rate_mode_switches: rate_mode.map(|m| m.0),
            rate_mode_s: rate_mode.map(|m| m.1),
        });
    }
    let transfers = sim
        .transfers
        .iter()
        .enumerate()
        .map(|(i, t)| TransferRow {
            transfer_id: i as u32,
            flow_id: t.conn.0,
            group: group(sim.conns[t.conn.idx()].group),
            seq: t.seq,
            size_bytes: t.bytes,
            // The first transfer of a connection starts with its first SYN.
            start_s: sim.conns[t.conn.idx()]
                .started
                .filter(|&s| s > t.start)
                .unwrap_or(t.start)
                .as_secs_f64(),
            end_s: t.end.map(|e| e.as_secs_f64()),
        })
        .collect();
    let secs = now.as_secs_f64();
    let mut drops_total = sim.counters.no_route_drops;
    let links = sim
        .net
        .ports
        .iter()
        .map(|p| {
            let row = LinkRow::of_port(p, &sim.net.port_names[p.id.idx()], now);
            drops_total += row.drops;
            row
        })
        .collect();
    let active = active_span(sim);
    let m = &sim.measure;
    let fairness = (!m.fairness_series.start_s.is_empty()).then(|| m.fairness_series.clone());
    let summary = Summary {
        sim_seconds: secs,
        events: sim.counters.events,
        packet_hops: sim.counters.packet_hops,
        goodput_bps: if secs > 0.0 { delivered_total as f64 * 8.0 / secs } else { 0.0 },
        drops: drops_total,
        jain_index: jain_index(&tcp_goodputs),
        flows: sim.conns.len() as u64,
        flows_completed: sim.conns.iter().filter(|c| c.finished.is_some()).count() as u64,
        transfers: sim.transfers.len() as u64,
        transfers_completed: sim.transfers.iter().filter(|t| t.end.is_some()).count() as u64,
        active_seconds: active.as_secs_f64(),
        active_goodput_bps: (delivered_total > 0 && active > SimTime::ZERO)
            .then(|| delivered_total as f64 * 8.0 / active.as_secs_f64()),
        retransmissions: retx_total,
        timeouts: to_total,
        spurious_timeouts: spurious_to_total,
        loss_probes: probes_total,
        syn_timeouts: syn_to_total,
        jain_short_mean: fairness.as_ref().and_then(|f| mean_of_present(&f.jain)),
    };
    let queue_delay: QueueDelayRows = m
        .queue_delays()
        .flat_map(|(i, h)| {
            let name = &sim.net.port_names[i];
            h.buckets().map(move |(lo, hi, n)| (name.clone(), lo as f64 * 1e-12, hi as f64 * 1e-12, n))
        })
        .collect();
    Results {
        summary,
        flows,
        transfers,
        links,
        timeseries: sim.flow_sampler.as_ref().map(|f| f.series.clone()),
        queues: (!m.queue_series.t_s.is_empty()).then(|| m.queue_series.clone()),
        fairness,
        latency: (!m.latency_series.t_s.is_empty()).then(|| m.latency_series.clone()),
        queue_delay: m.queue_delays().next().is_some().then_some(queue_delay),
        flow_epochs: flow_epochs(sim),
        stages: stages(sim),
    }
}

/// Every stage's, queue discipline's and shim's own counters; None if the run had none.
fn stages(sim: &Simulation) -> Option<StageRows> {
    let mut rows = StageRows::default();
    for p in &sim.net.ports {
        let at = &sim.net.port_names[p.id.idx()];
        for s in p.stages() {
            rows.push(at, s.name(), s.counters());
        }
        rows.push(at, p.qdisc().kind(), p.qdisc().counters());
    }
    for (h, hs) in sim.hosts.iter().enumerate() {
        let name = &sim.net.nodes[sim.net.hosts[h].idx()].name;
        for shim in hs.shims.iter() {
            rows.push(name, shim.name(), shim.counters());
        }
    }
    (!rows.at.is_empty()).then_some(rows)
}

/// The epoch logs of the ports asked for, closed up to the end of the run. A flow is named by
/// its connection (the tracker knows only 5-tuples; a 5-tuple no endpoint has is left out).
fn flow_epochs(sim: &Simulation) -> Option<FlowEpochRows> {
    let ports = &sim.measure.flow_epoch_ports;
    if ports.is_empty() {
        return None;
    }
    let conn_of: HashMap<FlowKey, u32> = sim.flow_keys().map(|(k, c)| (k, c.0)).collect();
    let mut rows = FlowEpochRows::default();
    for &port in ports {
        let Some(log) = sim.net.ports[port.idx()].flow_epochs(sim.now) else { continue };
        let mut log: Vec<(u32, FlowEpoch)> =
            log.into_iter().filter_map(|e| Some((*conn_of.get(&e.key)?, e))).collect();
        // Closing order across flows follows the part's hash map: sort for determinism.
        log.sort_by_key(|(flow, e)| (*flow, e.end, e.key));
        for (flow, e) in log {
            rows.link.push(sim.net.port_names[port.idx()].clone());
            rows.flow_id.push(flow);
            rows.end_s.push(e.end.as_secs_f64());
            rows.from_state.push(e.from);
            rows.to_state.push(e.to);
            rows.packets.push(e.packets);
            rows.drops.push(e.drops);
            rows.epochs.push(e.epochs);
        }
    }
    Some(rows)
}

#[cfg(test)]
mod tests {
    use super::jain_index;

    #[test]
    fn jain_index_bounds() {
        assert!((jain_index(&[1.0, 1.0, 1.0]).unwrap() - 1.0).abs() < 1e-12);
        assert!((jain_index(&[1.0, 0.0, 0.0, 0.0]).unwrap() - 0.25).abs() < 1e-12);
        assert_eq!(jain_index(&[0.0, 0.0]), Some(1.0), "all equal, at zero");
        assert_eq!(jain_index(&[]), None, "no flows: no index");
    }

    /// A slice without flows (before any started) has no index and does not pull the mean.
    #[test]
    fn the_short_term_mean_skips_slices_without_flows() {
        assert_eq!(super::mean_of_present(&[None, Some(0.5), Some(0.7)]), Some(0.6));
        assert_eq!(super::mean_of_present(&[None, None]), None);
    }
}
