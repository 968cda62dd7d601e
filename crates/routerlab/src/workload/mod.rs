/*! Workloads: which connections exist, between which hosts, when they start and how much they send.

A workload expands into [`FlowSpec`]s — one per connection. Static workloads are expanded
before the run:

- **bulk**: long-lived flows that send for the whole run. Each starts at `start` plus a random
  jitter drawn uniformly from `[0, jitter)` (default 10 ms) from the workload's own random
  stream, so that flows do not start in lockstep and the seed matters.
- **fixed**: flows of `size` bytes; the sender writes them and closes. Jitter defaults to 0
  (synchronized starts, as incast needs).

Flow `i` of a workload uses the `i`-th source and destination (round-robin over the lists it
names, or over the topology's default pairs).
*/

use crate::ids::HostId;
use crate::rng::SimRng;
use crate::tcp::TcpConfig;
use crate::units::SimTime;

/// One connection to simulate.
#[derive(Clone, Debug, PartialEq)]
pub struct FlowSpec {
    /// The host that sends the data (and opens the connection).
    pub src: HostId,
    pub dst: HostId,
    pub start: SimTime,
    /// Bytes to send; `None` for a bulk flow that never ends.
    pub size: Option<u64>,
    pub tcp: TcpConfig,
    /// Index of the workload (group) it belongs to.
    pub group: u32,
}

/// Parameters common to the static workloads.
#[derive(Clone, Debug, PartialEq)]
pub struct StaticFlows {
    pub flows: u32,
    /// (src, dst) for flow i is `pairs[i % pairs.len()]`.
    pub pairs: Vec<(HostId, HostId)>,
    pub start: SimTime,
    pub jitter: SimTime,
    pub size: Option<u64>,
    pub tcp: TcpConfig,
    pub group: u32,
}

/// Expand a bulk or fixed-size workload.
pub fn expand_static(w: &StaticFlows, rng: &mut SimRng) -> Vec<FlowSpec> {
    (0..w.flows as usize)
        .map(|i| {
            let (src, dst) = w.pairs[i % w.pairs.len()];
            let jitter = if w.jitter.0 > 0 { SimTime(rng.below(w.jitter.0)) } else { SimTime::ZERO };
            FlowSpec { src, dst, start: w.start + jitter, size: w.size, tcp: w.tcp, group: w.group }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::StreamId;

    #[test]
    fn jitter_is_within_bounds_and_depends_on_seed() {
        let w = StaticFlows {
            flows: 100,
            pairs: vec![(HostId(0), HostId(1)), (HostId(2), HostId(3))],
            start: SimTime::from_secs(1),
            jitter: SimTime::from_ms(10),
            size: None,
            tcp: TcpConfig::default(),
            group: 0,
        };
        let a = expand_static(&w, &mut SimRng::new(1, StreamId::Workload(0)));
        let b = expand_static(&w, &mut SimRng::new(2, StreamId::Workload(0)));
        assert!(a.iter().all(|f| f.start >= SimTime::from_secs(1) && f.start < SimTime::from_ms(1010)));
        assert_ne!(
            a.iter().map(|f| f.start).collect::<Vec<_>>(),
            b.iter().map(|f| f.start).collect::<Vec<_>>()
        );
        assert_eq!(a[1].src, HostId(2));
        assert_eq!(a[2].src, HostId(0));
    }
}
