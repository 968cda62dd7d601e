//! PLTS, packet-level traffic splitting (Dixit, Prakash, Kompella — `papers/plts-packet-spraying.txt`):
//! switches spray a flow's packets over all equal-cost next hops instead of pinning the flow
//! to one path (ECMP), so that no link of a multi-rooted tree becomes a lasting hot spot.
//!
//! - **Switch** ([`spray`]): the paper's three policies — PLTS-RND (a uniformly random next
//!   hop), PLTS-CNT (the next hop with the smallest egress queue) and PLTS-RR (round robin) —
//!   selected per scenario and per switch with `[forwarding]` (`docs/scenario.md`); per-flow
//!   ECMP, the baseline, lives in [`crate::net::forwarding`].
//!
//! The endpoint parts (dupthresh adjustment, the DUPACK-filtering agent) and MPTCP follow.

pub mod spray;
