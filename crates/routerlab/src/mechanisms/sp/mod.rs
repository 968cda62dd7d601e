//! Super-packets (`papers/super-packets.txt`): a sender groups packets into a super-packet (SP)
//! that routers admit or refuse as a whole — all or nothing — so that a flow's drop rate is
//! decoupled from the MTU and short flows' windows survive congestion.
//!
//! - **On the wire** ([`wire`]): first flag, last flag and 6-bit length in the IPv4 ToS byte,
//!   the SP identifier in the IPv4 identification field (§3.2).
//! - **Router** ([`manager`]): the SPManager before an egress queue — Algorithm 1 (§3.3) with
//!   its timer-free expiry over two tables swapped every epoch.
//!
//! Still to come (issue 7): the sender shim, the paper's variants (Bloom filter with per-host
//! counters, length-aware and RED-like admission), byte occupancy, scenario keys and the
//! `sp-*` experiments.

pub mod manager;
pub mod wire;

pub use manager::{SpManager, SpParams, SpStats};
pub use wire::SpMark;
