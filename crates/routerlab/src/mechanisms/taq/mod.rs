//! TAQ, timeout-aware queuing (Chen, Subramanian et al. — `papers/taq-timeout-aware-queuing.txt`):
//! a middlebox before a small-packet-regime bottleneck tracks every flow's approximate TCP state
//! and schedules and drops packets so that flows avoid timeouts and repeated timeouts.
//!
//! - **Tracker** ([`tracker`]): per flow (5-tuple), epochs of one middlebox-perceived RTT,
//!   per-epoch counters, and the approximate state machine of the paper's Fig. 7. Usable on its
//!   own, as a passive observer.
//!
//! The idealized Markov model of §3.1 is `routerlab model taq` (`python/routerlab/model/taq.py`).
//! The multi-level priority queue and admission control follow.

pub mod tracker;

pub use tracker::{FlowKey, FlowState, FlowTracker, TrackerParams};
