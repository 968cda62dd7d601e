//! Measurements beyond the flow and link tables, each opt-in from `[output]`:
//!
//! - **queue samples**: every `interval`, for chosen ports, the queue length (packets, bytes) and
//!   the link's utilization over the interval (e.g. 10 ms readings of core links);
//! - **fairness slices**: Jain's index of the throughput flows got in each slice of time (e.g.
//!   20-second short-term fairness), over the flows active for the whole slice;
//! - **latency probes**: one-way delay of sampled packets from node A to node B (e.g.
//!   ToR-to-ToR latency): a packet is stamped when it reaches A (or leaves A, if A is its source
//!   host) and measured when it reaches B;
//! - **queueing delay**: a histogram of the time packets waited in a port's queue before their
//!   transmission started (queueing-delay CDFs);
//! - **flow epochs**: a part that classifies flows logs those crossing chosen ports, epoch by
//!   epoch (`net::flow_epoch`): the port's queue, or a passive observer put first among its
//!   stages;
//! - **pcap**: packets as they finish transmission on chosen ports (`net::pcap`).

use crate::ids::{ConnId, NodeId, PortId};
use crate::net::Network;
use crate::net::packet::{MetaFlags, Packet};
use crate::net::port::Port;
use crate::net::stage::StageRecipe;
use crate::rng::{SimRng, StreamId};
use crate::units::SimTime;

use super::Connection;
use super::results::jain_index;

/// A latency probe, as specified.
#[derive(Clone, Debug, PartialEq)]
pub struct LatencyProbeSpec {
    pub from: NodeId,
    pub to: NodeId,
    /// Only packets of this flow (None: any).
    pub flow: Option<ConnId>,
    /// Probability that an eligible packet is sampled.
    pub probability: f64,
    /// Stop after this many samples.
    pub max_samples: u32,
    /// Only packets that carry TCP payload (or UDP datagrams).
    pub data_only: bool,
}

#[derive(Clone, Debug, PartialEq, Default)]
pub struct MeasureSpec {
    /// Queue samples: interval and ports.
    pub queues: Option<(SimTime, Vec<PortId>)>,
    pub fairness_slice: Option<SimTime>,
    pub latency: Vec<LatencyProbeSpec>,
    pub queue_delay: Vec<PortId>,
    /// Ports whose flows' epochs are recorded (`net::flow_epoch`): by their queue, if it
    /// classifies flows, else by `flow_epoch_observer` installed first among their stages.
    pub flow_epochs: Vec<PortId>,
    pub flow_epoch_observer: Option<StageRecipe>,
    pub pcap: Vec<PortId>,
    pub pcap_snaplen: u32,
    pub pcap_max_packets: usize,
}

/// Queue samples, in columns.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct QueueSeries {
    pub t_s: Vec<f64>,
    pub port: Vec<u32>,
    pub packets: Vec<u64>,
    pub bytes: Vec<u64>,
    pub utilization: Vec<f64>,
}

#[derive(Clone, Debug, Default, PartialEq)]
pub struct FairnessSeries {
    pub start_s: Vec<f64>,
    pub end_s: Vec<f64>,
    /// None for a slice without flows.
    pub jain: Vec<Option<f64>>,
    pub flows: Vec<u32>,
    /// Flows that delivered nothing in the slice.
    pub silent_flows: Vec<u32>,
}

#[derive(Clone, Debug, Default, PartialEq)]
pub struct LatencySeries {
    pub probe: Vec<u32>,
    pub t_s: Vec<f64>,
    pub latency_s: Vec<f64>,
    pub flow_id: Vec<u32>,
}

/// A log-linear histogram of picosecond durations: 32 buckets per power of two (relative
/// error ≤ 3 %), exact in integers.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Histogram {
    counts: Vec<u64>,
    pub total: u64,
}

const SUB_BITS: u32 = 5;

impl Histogram {
    fn index(v: u64) -> usize {
        if v < (1 << SUB_BITS) {
            return v as usize;
        }
        let msb = 63 - v.leading_zeros();
        let shift = msb - SUB_BITS;
        (((shift + 1) << SUB_BITS) as u64 + ((v >> shift) & ((1 << SUB_BITS) - 1))) as usize
    }

    /// [lower, upper) of bucket `i`, in ps.
    pub fn bounds(i: usize) -> (u64, u64) {
        let i = i as u64;
        if i < (1 << SUB_BITS) {
            return (i, i + 1);
        }
        let shift = (i >> SUB_BITS) - 1;
        let lower = ((1 << SUB_BITS) + (i & ((1 << SUB_BITS) - 1))) << shift;
        (lower, lower + (1 << shift))
    }

    pub fn record(&mut self, v: SimTime) {
        let i = Histogram::index(v.0);
        if i >= self.counts.len() {
            self.counts.resize(i + 1, 0);
        }
        self.counts[i] += 1;
        self.total += 1;
    }

    /// Non-empty buckets: (lower ps, upper ps, count).
    pub fn buckets(&self) -> impl Iterator<Item = (u64, u64, u64)> + '_ {
        self.counts.iter().enumerate().filter(|(_, c)| **c > 0).map(|(i, &c)| {
            let (lo, hi) = Histogram::bounds(i);
            (lo, hi, c)
        })
    }
}

/// Sampler indices in `Event::Sample` (0 is the TCP time series).
const SAMPLE_QUEUES: u32 = 1;
const SAMPLE_FAIRNESS: u32 = 2;

#[derive(Debug)]
struct Probe {
    spec: LatencyProbeSpec,
    taken: u32,
}

#[derive(Debug)]
pub(super) struct Measurements {
    queues: Option<(SimTime, Vec<PortId>)>,
    queue_busy: Vec<SimTime>,
    pub queue_series: QueueSeries,
    fairness: Option<SimTime>,
    slice_start_delivered: Vec<u64>,
    pub fairness_series: FairnessSeries,
    probes: Vec<Probe>,
    probe_rng: SimRng,
    /// When each probed packet was stamped, by the packet's `probe_stamp` (one per sample
    /// taken, as the latency series holds).
    probe_stamps: Vec<SimTime>,
    /// Nodes where a probe starts or ends.
    watched: Vec<bool>,
    pub latency_series: LatencySeries,
    /// Per port: queueing-delay histogram, if asked for (private: `transmit_watched` follows
    /// it).
    queue_delay: Vec<Option<Histogram>>,
    /// Ports whose trackers record flow epochs.
    pub flow_epoch_ports: Vec<PortId>,
    capture: Vec<bool>,
    /// Per port: a histogram or a capture wants its transmissions. Every transmission asks,
    /// so this is dense (a byte a port) where the histograms are not.
    transmit_watched: Vec<bool>,
    captured: Vec<(PortId, SimTime, Packet)>,
    snaplen: u32,
    max_capture: usize,
}

impl Measurements {
    pub(super) fn new(spec: &MeasureSpec, net: &Network, seed: u64) -> Measurements {
        let nports = net.ports.len();
        let mut watched = vec![false; net.nodes.len()];
        for p in &spec.latency {
            watched[p.from.idx()] = true;
            watched[p.to.idx()] = true;
        }
        let mut queue_delay = vec![None; nports];
        for p in &spec.queue_delay {
            queue_delay[p.idx()] = Some(Histogram::default());
        }
        let mut capture = vec![false; nports];
        for p in &spec.pcap {
            capture[p.idx()] = true;
        }
        let transmit_watched = (0..nports).map(|i| queue_delay[i].is_some() || capture[i]).collect();
        Measurements {
            queue_busy: spec
                .queues
                .as_ref()
                .map_or(Vec::new(), |(_, ports)| vec![SimTime::ZERO; ports.len()]),
            queues: spec.queues.clone(),
            queue_series: QueueSeries::default(),
            fairness: spec.fairness_slice,
            slice_start_delivered: Vec::new(),
            fairness_series: FairnessSeries::default(),
            probes: spec.latency.iter().map(|s| Probe { spec: s.clone(), taken: 0 }).collect(),
            probe_rng: SimRng::new(seed, StreamId::Measurement(0)),
            probe_stamps: Vec::new(),
            watched,
            latency_series: LatencySeries::default(),
            queue_delay,
            flow_epoch_ports: spec.flow_epochs.clone(),
            capture,
            transmit_watched,
            captured: Vec::new(),
            snaplen: spec.pcap_snaplen,
            max_capture: spec.pcap_max_packets,
        }
    }

    /// The first time of each periodic sampler.
    pub(super) fn first_samples(&self) -> Vec<(u32, SimTime)> {
        let mut v = Vec::new();
        if let Some((i, _)) = &self.queues {
            v.push((SAMPLE_QUEUES, *i));
        }
        if let Some(s) = self.fairness {
            v.push((SAMPLE_FAIRNESS, s));
        }
        v
    }

    /// Take a periodic sample; returns when the next one is due.
    pub(super) fn sample(
        &mut self,
        index: u32,
        now: SimTime,
        net: &Network,
        conns: &[Connection],
    ) -> Option<SimTime> {
        match index {
            SAMPLE_QUEUES => {
                let (interval, ports) = self.queues.as_ref()?;
                for (k, &p) in ports.iter().enumerate() {
                    let port = &net.ports[p.idx()];
                    let busy = port.stats.busy;
                    let util = ((busy - self.queue_busy[k]).0 as f64 / interval.0 as f64).min(1.0);
                    self.queue_busy[k] = busy;
                    let s = &mut self.queue_series;
                    s.t_s.push(now.as_secs_f64());
                    s.port.push(p.0);
                    s.packets.push(port.queue_packets() as u64);
                    s.bytes.push(port.queue_bytes());
                    s.utilization.push(util);
                }
                Some(now + *interval)
            }
            SAMPLE_FAIRNESS => {
                let slice = self.fairness?;
                let start = now - slice;
                self.slice_start_delivered.resize(conns.len(), 0);
                let mut rates = Vec::new();
                for (i, c) in conns.iter().enumerate() {
                    let before = self.slice_start_delivered[i];
                    self.slice_start_delivered[i] = c.delivered;
                    let active = c.started.is_some_and(|t| t <= start) && c.finished.is_none_or(|f| f >= now);
                    if active {
                        rates.push((c.delivered - before) as f64 * 8.0 / slice.as_secs_f64());
                    }
                }
                let s = &mut self.fairness_series;
                s.start_s.push(start.as_secs_f64());
                s.end_s.push(now.as_secs_f64());
                s.jain.push(jain_index(&rates));
                s.flows.push(rates.len() as u32);
                s.silent_flows.push(rates.iter().filter(|&&r| r == 0.0).count() as u32);
                Some(now + slice)
            }
            _ => None,
        }
    }

    #[inline]
    pub(super) fn watches(&self, node: NodeId) -> bool {
        self.watched[node.idx()]
    }

    /// A packet reached `node` (or left it, for its source host).
    pub(super) fn on_arrival(&mut self, now: SimTime, node: NodeId, p: &mut Packet) {
        if p.meta.probe > 0 {
            let k = p.meta.probe as usize - 1;
            if self.probes[k].spec.to == node {
                let s = &mut self.latency_series;
                s.probe.push(k as u32);
                s.t_s.push(now.as_secs_f64());
                s.latency_s.push((now - self.probe_stamps[p.probe_stamp as usize]).as_secs_f64());
                s.flow_id.push(p.meta.conn.0);
                p.meta.probe = 0;
            }
            return;
        }
        for (k, probe) in self.probes.iter_mut().enumerate() {
            let s = &probe.spec;
            let data = p.tcp.payload_len > 0 || p.meta.flags.has(MetaFlags::UNBOUND);
            if s.from == node
                && probe.taken < s.max_samples
                && s.flow.is_none_or(|f| f == p.meta.conn)
                && (!s.data_only || data)
                && self.probe_rng.bernoulli(s.probability)
            {
                probe.taken += 1;
                p.meta.probe = k as u8 + 1;
                p.probe_stamp = u32::try_from(self.probe_stamps.len()).expect("under 2^32 latency samples");
                self.probe_stamps.push(now);
                return;
            }
        }
    }

    /// A packet started transmission on `port` at `now` and went on the wire: its queueing
    /// delay ends now; a capture stamps it at the end of its serialization (when its last bit
    /// has left, as a capture at the sender's interface would).
    #[inline]
    pub(super) fn on_transmit(&mut self, now: SimTime, port: &Port, p: &Packet) {
        let i = port.id.idx();
        if !self.transmit_watched[i] {
            return;
        }
        if let Some(h) = &mut self.queue_delay[i] {
            h.record(now.saturating_sub(p.meta.enqueued_at));
        }
        if self.capture[i] && self.captured.len() < self.max_capture {
            self.captured.push((port.id, port.busy_until(), *p));
        }
    }

    pub(super) fn pcaps(&self, net: &Network) -> Vec<(String, Vec<u8>)> {
        (0..net.ports.len())
            .filter(|&i| self.capture[i])
            .map(|i| {
                let recs = self.captured.iter().filter(|(p, _, _)| p.idx() == i).map(|(_, t, pkt)| (*t, pkt));
                (net.port_names[i].clone(), crate::net::pcap::write(recs, self.snaplen))
            })
            .collect()
    }

    /// Ports' queueing-delay histograms: (port, histogram).
    pub(super) fn queue_delays(&self) -> impl Iterator<Item = (usize, &Histogram)> {
        self.queue_delay.iter().enumerate().filter_map(|(i, h)| h.as_ref().map(|h| (i, h)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn histogram_buckets_contain_their_values() {
        let mut h = Histogram::default();
        for v in [0u64, 5, 31, 32, 33, 1000, 123_456_789, u64::MAX / 2] {
            h.record(SimTime(v));
            let (lo, hi) = Histogram::bounds(Histogram::index(v));
            assert!(lo <= v && v < hi, "{v} in [{lo}, {hi})");
            assert!(hi - lo <= lo / 32 + 1);
        }
        assert_eq!(h.total, 8);
        assert_eq!(h.buckets().map(|b| b.2).sum::<u64>(), 8);
    }
}
