//! PLTS's DUPACK-filtering agent (the paper's §III, "An agent to filter DUPACKs"): a host shim
//! — the hypervisor in the paper — that keeps duplicate ACKs caused by packet spraying's
//! reordering from reaching the guest's TCP, without changing that TCP.
//!
//! It watches the ACKs a host receives, per flow (the 5-tuple), remembering the last
//! acknowledgment number; a pure ACK (no payload, no SYN/FIN/RST) acknowledging the same number
//! again is a duplicate ACK, and consecutive duplicates form a *run* that a new acknowledgment
//! ends. Two variants, as the paper describes them:
//!
//! - **ECN** (switches mark with RED/ECN): duplicate ACKs are dropped unless they carry ECE;
//!   those with ECE pass, since a drop is presumed to come with congestion the network marked.
//!   A loss without any mark is left to the retransmission timer.
//! - **Percentile** (drop-tail switches; after RR-TCP): the first two duplicates of a run pass
//!   (limited transmit still works); the following ones are dropped until the run's length
//!   reaches the 90th percentile of the run lengths seen so far, and that one passes — the
//!   sender's third duplicate, so it fast-retransmits — as do the rest of the run (recovery
//!   needs them). Run lengths of 3 or more are counted per length when a run ends; with none
//!   counted yet the threshold is 3, plain TCP. A real loss makes a run as long as the window,
//!   longer than reordering's, so it still ends in a fast retransmit, late.
//!
//! - **Watch** (ours): lets everything through and only counts, so that a run without the
//!   agent's filtering reports the runs plain TCP sees (each run reaching 3 is "released").
//!
//! Our choices where the paper is silent: the counters are kept per flow (a flow's reordering
//! depends on its own paths); the percentile is the nearest-rank one ([`FilterParams`]); the
//! agent sits at the data sender's host, on its incoming ACKs; the ECN variant lets no
//! unmarked duplicate through, not even the first two.

use std::collections::HashMap;

use crate::host::{BuildShim, HostShim, Ingress};
use crate::ids::{HostId, PacketId};
use crate::net::packet::{PROTO_TCP, PacketPool, TcpFlags};
use crate::units::{Rate, SimTime};

#[derive(Clone, Copy, Debug, PartialEq)]
pub enum FilterKind {
    /// Let through only duplicate ACKs that carry ECE.
    Ecn,
    /// Hold back duplicates until the run reaches the `percentile` of past run lengths.
    Percentile,
    /// Hold nothing back; count runs as plain TCP meets them.
    Watch,
}

#[derive(Clone, Copy, Debug, PartialEq)]
pub struct FilterParams {
    pub kind: FilterKind,
    /// Percentile of past run lengths at which a run is let through: the paper's "top 90th
    /// percentile" (0.9).
    pub percentile: f64,
}

impl Default for FilterParams {
    fn default() -> FilterParams {
        FilterParams { kind: FilterKind::Percentile, percentile: 0.9 }
    }
}

/// Counters of what the agent did.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct FilterStats {
    pub dupacks: u64,
    pub dropped: u64,
    /// Runs that reached the threshold (their release triggers a fast retransmit).
    pub released_runs: u64,
    /// Runs of three duplicates or more that ended (the ones the percentile counts).
    pub ended_runs: u64,
}

/// A flow's state: the last acknowledgment seen, the current run, the run-length counters.
#[derive(Clone, Debug, Default)]
struct FlowState {
    last_ack: Option<u64>,
    run: u32,
    /// The length at which the current run is let through (fixed when the run reaches 3).
    release_at: u32,
    /// `runs[i]`: runs of length `i + 3` seen.
    runs: Vec<u64>,
    total_runs: u64,
}

impl FlowState {
    /// Nearest-rank percentile of the recorded run lengths (3 if none).
    fn threshold(&self, percentile: f64) -> u32 {
        if self.total_runs == 0 {
            return 3;
        }
        let rank = ((percentile * self.total_runs as f64).ceil() as u64).clamp(1, self.total_runs);
        let mut seen = 0;
        for (i, &n) in self.runs.iter().enumerate() {
            seen += n;
            if seen >= rank {
                return i as u32 + 3;
            }
        }
        self.runs.len() as u32 + 2
    }

    /// Whether the current run's latest duplicate (the `run`-th) goes through; counts the
    /// release of a run in `stats`.
    fn passes(&mut self, params: &FilterParams, ece: bool, stats: &mut FilterStats) -> bool {
        match params.kind {
            FilterKind::Ecn => ece,
            FilterKind::Watch => {
                if self.run == 3 {
                    stats.released_runs += 1;
                }
                true
            }
            FilterKind::Percentile => {
                if self.run == 3 {
                    self.release_at = self.threshold(params.percentile);
                }
                if self.run == self.release_at {
                    stats.released_runs += 1;
                }
                self.run < 3 || self.run >= self.release_at
            }
        }
    }

    /// Ends the current run; true if it was long enough (3 or more) to be counted.
    fn end_run(&mut self) -> bool {
        let counted = self.run >= 3;
        if counted {
            let i = (self.run - 3) as usize;
            if self.runs.len() <= i {
                self.runs.resize(i + 1, 0);
            }
            self.runs[i] += 1;
            self.total_runs += 1;
        }
        self.run = 0;
        counted
    }
}

/// The agent, one per host.
#[derive(Debug, Default)]
pub struct DupAckFilter {
    params: FilterParams,
    flows: HashMap<(HostId, HostId, u16, u16), FlowState>,
    stats: FilterStats,
}

impl DupAckFilter {
    pub fn new(params: FilterParams) -> DupAckFilter {
        DupAckFilter { params, flows: HashMap::new(), stats: FilterStats::default() }
    }

    pub fn stats(&self) -> FilterStats {
        self.stats
    }
}

impl HostShim for DupAckFilter {
    fn on_egress(&mut self, _: SimTime, pkt: PacketId, _: &mut PacketPool, out: &mut Vec<PacketId>) {
        out.push(pkt);
    }

    fn on_ingress(&mut self, _now: SimTime, pkt: PacketId, pool: &mut PacketPool) -> Ingress {
        let p = pool.get(pkt);
        let t = &p.tcp;
        if p.ip.protocol != PROTO_TCP || p.ip.is_fragment() || !t.flags.has(TcpFlags::ACK) {
            return Ingress::Deliver;
        }
        let key = (p.ip.src, p.ip.dst, t.src_port, t.dst_port);
        let pure = t.payload_len == 0
            && !t.flags.has(TcpFlags::SYN)
            && !t.flags.has(TcpFlags::FIN)
            && !t.flags.has(TcpFlags::RST);
        let (ack, ece) = (t.ack, t.flags.has(TcpFlags::ECE));
        let f = self.flows.entry(key).or_default();
        if !pure || f.last_ack != Some(ack) {
            if f.last_ack.is_none_or(|last| ack > last) {
                self.stats.ended_runs += u64::from(f.end_run());
                f.last_ack = Some(ack);
            }
            return Ingress::Deliver;
        }
        f.run += 1;
        self.stats.dupacks += 1;
        if f.passes(&self.params, ece, &mut self.stats) {
            Ingress::Deliver
        } else {
            self.stats.dropped += 1;
            pool.free(pkt);
            Ingress::Consumed
        }
    }

    fn counters(&self) -> Vec<(&'static str, u64)> {
        vec![
            ("dupacks", self.stats.dupacks),
            ("dupacks_dropped", self.stats.dropped),
            ("runs_ended", self.stats.ended_runs),
            ("runs_released", self.stats.released_runs),
        ]
    }

    fn name(&self) -> &'static str {
        "dupack-filter"
    }
}

impl BuildShim for FilterParams {
    fn build(&self, _host: HostId, _nic_rate: Rate) -> Option<Box<dyn HostShim>> {
        Some(Box::new(DupAckFilter::new(*self)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::net::packet::{Ipv4Header, Packet, TcpSegment};

    fn ack(pool: &mut PacketPool, ack: u64, ece: bool) -> PacketId {
        let mut flags = TcpFlags::ACK;
        if ece {
            flags = TcpFlags(flags.0 | TcpFlags::ECE.0);
        }
        let tcp = TcpSegment { src_port: 80, dst_port: 10_000, ack, flags, ..Default::default() };
        let ip = Ipv4Header { protocol: PROTO_TCP, src: HostId(1), dst: HostId(0), ..Default::default() };
        pool.alloc(Packet { ip, tcp, ..Default::default() })
    }

    /// Feed a sequence of (ack, ece) and return which were delivered.
    fn feed(f: &mut DupAckFilter, acks: &[(u64, bool)]) -> Vec<bool> {
        let mut pool = PacketPool::new();
        acks.iter()
            .map(|&(a, e)| {
                let p = ack(&mut pool, a, e);
                f.on_ingress(SimTime::ZERO, p, &mut pool) == Ingress::Deliver
            })
            .collect()
    }

    /// An ACK of `a` followed by `n` duplicates.
    fn run(a: u64, n: usize) -> Vec<(u64, bool)> {
        vec![(a, false); n + 1]
    }

    #[test]
    fn without_history_the_third_duplicate_passes_like_plain_tcp() {
        let mut f = DupAckFilter::new(FilterParams::default());
        assert_eq!(feed(&mut f, &run(1000, 4)), [true; 5]);
        assert_eq!(f.stats(), FilterStats { dupacks: 4, dropped: 0, released_runs: 1, ended_runs: 0 });
        feed(&mut f, &[(2000, false)]);
        assert_eq!(f.stats().ended_runs, 1, "a new acknowledgment ends the run of four");
    }

    #[test]
    fn percentile_holds_back_runs_shorter_than_the_90th_percentile_of_past_ones() {
        let mut f = DupAckFilter::new(FilterParams::default());
        // History: nine runs of 3 and one of 6 (reordering); the 90th percentile is 3.
        let mut history = Vec::new();
        for i in 0..9 {
            history.extend(run(1000 * (i + 1), 3));
        }
        history.extend(run(20_000, 6));
        feed(&mut f, &history);
        assert_eq!(f.flows.values().next().unwrap().threshold(0.9), 3);
        // Two more runs of 6 and 7: the 90th percentile of 12 runs (rank 11) is now 6.
        feed(&mut f, &[run(30_000, 6), run(40_000, 7)].concat());
        assert_eq!(f.flows.values().next().unwrap().threshold(0.9), 6);
        // A run of 5 (reordering): two pass, the rest are dropped, no fast retransmit.
        let before = f.stats();
        let got = feed(&mut f, &run(50_000, 5));
        assert_eq!(got, [true, true, true, false, false, false]);
        assert_eq!(f.stats().released_runs, before.released_runs);
        // A real loss: a run as long as the window. The 6th duplicate — the sender's third —
        // passes, and so does everything after it, so the loss is fast-retransmitted.
        let got = feed(&mut f, &run(60_000, 12));
        assert_eq!(&got[..6], [true, true, true, false, false, false]);
        assert!(got[6..].iter().all(|&d| d), "{got:?}");
        let delivered_dups = got[1..].iter().filter(|&&d| d).count();
        assert!(delivered_dups >= 3, "the sender sees three duplicates and retransmits");
        assert_eq!(f.stats().released_runs, before.released_runs + 1);
    }

    #[test]
    fn ecn_variant_passes_only_duplicates_with_ece_and_new_acks_always() {
        let mut f = DupAckFilter::new(FilterParams { kind: FilterKind::Ecn, ..Default::default() });
        let acks = [
            (1000, false),
            (1000, false),
            (1000, false),
            (1000, true),
            (1000, true),
            (2000, false),
            (2000, false),
        ];
        assert_eq!(feed(&mut f, &acks), [true, false, false, true, true, true, false]);
        assert_eq!(f.stats().dropped, 3);
    }

    #[test]
    fn watching_delivers_everything_and_counts_the_runs_plain_tcp_meets() {
        let mut f = DupAckFilter::new(FilterParams { kind: FilterKind::Watch, ..Default::default() });
        let acks = [run(1000, 2), run(2000, 5), run(3000, 3), vec![(4000, false)]].concat();
        assert!(feed(&mut f, &acks).iter().all(|&d| d));
        assert_eq!(f.stats(), FilterStats { dupacks: 10, dropped: 0, released_runs: 2, ended_runs: 2 });
    }

    #[test]
    fn segments_with_data_and_old_acks_are_not_duplicates() {
        let mut f = DupAckFilter::new(FilterParams { kind: FilterKind::Ecn, ..Default::default() });
        let mut pool = PacketPool::new();
        let first = ack(&mut pool, 1000, false);
        f.on_ingress(SimTime::ZERO, first, &mut pool);
        let data = ack(&mut pool, 1000, false);
        pool.get_mut(data).tcp.payload_len = 100;
        assert_eq!(f.on_ingress(SimTime::ZERO, data, &mut pool), Ingress::Deliver);
        assert_eq!(f.stats().dupacks, 0);
    }
}
