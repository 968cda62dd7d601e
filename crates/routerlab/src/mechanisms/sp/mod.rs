//! Super-packets (`papers/super-packets.txt`): a sender groups packets into a super-packet (SP)
//! that routers admit or refuse as a whole — all or nothing — so that a flow's drop rate is
//! decoupled from the MTU and short flows' windows survive congestion.
//!
//! - **On the wire** ([`wire`]): first flag, last flag and 6-bit length in the IPv4 ToS byte,
//!   the SP identifier in the IPv4 identification field (§3.2).
//! - **Router** ([`manager`]): the SPManager before an egress queue — Algorithm 1 (§3.3) with
//!   its timer-free expiry over two generations swapped every epoch ([`table`]), and the
//!   paper's variants: Bloom filter ([`bloom`]) with per-host counts, length-aware and
//!   RED-like admission.
//! - **Sender** ([`sender`]): a host shim that holds a flow's segments until it has been quiet
//!   for T_buffer and sends them back to back as one SP (§4).
//! - **Attacker** ([`attacker`]): a host sending only first packets (§7's denial of service).

pub mod attacker;
pub mod bloom;
pub mod manager;
pub mod sender;
pub mod table;
pub mod wire;

pub use attacker::{SpAttacker, SpAttackerSpec};
pub use manager::{SpEpoch, SpManager, SpOccupancy, SpParams, SpStats, SpVariant};
pub use sender::{SpSender, SpSenderParams, SpSenderSpec};
pub use wire::SpMark;
