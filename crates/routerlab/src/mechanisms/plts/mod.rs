//! PLTS, packet-level traffic splitting (Dixit, Prakash, Kompella — `papers/plts-packet-spraying.txt`):
//! switches spray a flow's packets over all equal-cost next hops instead of pinning the flow
//! to one path (ECMP), so that no link of a multi-rooted tree becomes a lasting hot spot.
//!
//! - **Switch** ([`spray`]): the paper's three policies — PLTS-RND (a uniformly random next
//!   hop), PLTS-CNT (the next hop with the smallest egress queue) and PLTS-RR (round robin) —
//!   selected per scenario and per switch with `[forwarding]` (`docs/scenario.md`); per-flow
//!   ECMP, the baseline, lives in [`crate::net::forwarding`].
//!
//! - **Endpoints**: reordering tolerance, either a higher duplicate-ACK threshold
//!   (`[transport] dupthresh`, a count or `"paths"`: the number of equal-cost paths between
//!   the hosts, `Network::path_count`), or the DUPACK-filtering agent ([`dupack_filter`]), a
//!   host shim that hides reordering's duplicate ACKs from an unmodified TCP
//!   (`[hosts] dupack_filter`).
//!
//! MPTCP, the other baseline, is a transport of its own: [`crate::mptcp`] (data level) and
//! [`crate::tcp::cc::Lia`] (coupled congestion control), turned on with `[transport] mptcp`.

pub mod dupack_filter;
pub mod spray;

pub use dupack_filter::{DupAckFilter, FilterKind, FilterParams};
