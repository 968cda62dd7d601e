//! TAQ, timeout-aware queuing (Chen, Subramanian et al. — `papers/taq-timeout-aware-queuing.txt`):
//! a middlebox before a small-packet-regime bottleneck tracks every flow's approximate TCP state
//! and schedules and drops packets so that flows avoid timeouts and repeated timeouts.
//!
//! - **Tracker** ([`tracker`]): per flow (5-tuple), epochs of one middlebox-perceived RTT,
//!   per-epoch counters, and the approximate state machine of the paper's Fig. 7.
//!
//! - **Observer** ([`observer`]): the tracker, passive, on any port (`[output] flow_epochs`).
//!
//! - **Queue** ([`queue`]): five classes in three levels (§4.2) — Recovery (retransmissions,
//!   longest silence first, capacity-limited), NewFlow, OverPenalized and BelowFairShare at
//!   equal priority, AboveFairShare last — with push-out of the lowest class's tail when full:
//!   `queue = { kind = "taq", … }`.
//!
//! - **Admission control** ([`admission`]): flow pools wait while the loss rate is above the
//!   model's p_thresh, each at most T_wait (§4.3): `queue = { kind = "taq", admission = {} }`.
//!
//! The idealized Markov model of §3.1 is `routerlab model taq` (`python/routerlab/model/taq.py`).

pub mod admission;
pub mod observer;
pub mod queue;
pub mod tracker;

pub use observer::FlowObserver;
pub use queue::{TaqClass, TaqDrop, TaqParams, TaqQueue};
pub use tracker::{EpochLog, FlowKey, FlowState, FlowTracker, OneWayEpoch, TrackerParams};

/// The flow tracker watching a port: its TAQ queue's, or the passive observer among its stages.
pub fn port_tracker(port: &crate::net::port::Port) -> Option<&FlowTracker> {
    if let crate::builtins::AnyQdisc::Taq(q) = port.qdisc() {
        return Some(&q.tracker);
    }
    port.stages().iter().find_map(|s| {
        let s: &dyn std::any::Any = s.as_ref();
        s.downcast_ref::<FlowObserver>().map(|o| &o.tracker)
    })
}
