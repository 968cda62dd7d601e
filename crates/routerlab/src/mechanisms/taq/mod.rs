//! TAQ, timeout-aware queuing (Chen, Subramanian et al. — `papers/taq-timeout-aware-queuing.txt`):
//! a middlebox before a small-packet-regime bottleneck tracks every flow's approximate TCP state
//! and schedules and drops packets so that flows avoid timeouts and repeated timeouts.
//!
//! - **Tracker** ([`tracker`]): per flow (5-tuple), epochs of one middlebox-perceived RTT,
//!   per-epoch counters, and the approximate state machine of the paper's Fig. 7. Usable on its
//!   own, as a passive observer.
//!
//! - **Queue** ([`queue`]): five classes in three levels (§4.2) — Recovery (retransmissions,
//!   longest silence first, capacity-limited), NewFlow, OverPenalized and BelowFairShare at
//!   equal priority, AboveFairShare last — with push-out of the lowest class's tail when full:
//!   `queue = { kind = "taq", … }`.
//!
//! The idealized Markov model of §3.1 is `routerlab model taq` (`python/routerlab/model/taq.py`).
//! Admission control (§4.3) follows.

pub mod queue;
pub mod tracker;

pub use queue::{TaqClass, TaqDrop, TaqParams, TaqQueue};
pub use tracker::{FlowKey, FlowState, FlowTracker, TrackerParams};
