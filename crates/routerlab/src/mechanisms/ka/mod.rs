//! Kick-Ass (`papers/kick-ass.txt`): routers tell TCP endpoints an explicit rate in the length
//! of the leading IP fragment, endpoints tell routers their RTT in the length of indicator
//! packets, and endpoints fall back to TCP wherever the rate cannot be trusted — and native RCP,
//! the explicit-rate protocol it carries and is compared with.
//!
//! - **Codes** ([`encoding`]): rate ↔ leading-fragment length, F(R) = 128·ln(R/12.4392); RTT ↔
//!   indicator size 600…611 (§II-A, §II-B).
//! - **Rate** ([`rcp`]): RCP's per-link rate update (§III-A), shared by both routers.
//! - **Kick-Ass router** ([`router`]): a port stage that fragments departing packets to signal
//!   the rate and stops while its queue is over half full (§II-C2); resuming, it re-anchors the
//!   rate at the fair share of the flows it counts ([`flow_count`]); optionally it signals each
//!   flow at most once per share of an RTT ([`signal_spacing`], §V).
//! - **Native RCP router** ([`rcp_router`]): the same rate, in a header field.
//! - **Sender** ([`sender`]): rate mode (window = rate × RTT, paced) and TCP mode, with the
//!   switches of §II-C; native RCP's sender without the fallback.
//! - **Endpoint protocol** ([`endpoint`]), TCP's endpoint part (`tcp::endpoint`): the
//!   Kick-Ass-permitted option in the handshake, DF clear on a Kick-Ass pair's data, the
//!   receiver's decoding and echo, RTT indicators every 100 ms; `KaEndpoint` is the recipe that
//!   builds it with the sender.

pub mod encoding;
pub mod endpoint;
pub mod flow_count;
pub mod rcp;
pub mod rcp_router;
pub mod router;
pub mod sender;
pub mod signal_spacing;

pub use rcp::{RcpParams, RcpRate};
pub use rcp_router::RcpRouter;
pub use router::{KaParams, KaRouter, KaRouterStats};
pub use sender::{ExplicitRate, Mode, ModeStats, TcpReason};

use crate::units::SimTime;

/// Which explicit-rate protocol a connection's endpoints speak.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RateProtocol {
    /// Kick-Ass: agreed in the handshake; rates from leading-fragment lengths.
    KickAss,
    /// Native RCP: an RCP header on every segment, from the SYN on.
    Rcp,
}

/// An explicit-rate endpoint's parameters.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct KaEndpoint {
    pub protocol: RateProtocol,
    /// How often a Kick-Ass sender sends an RTT indicator (§II-B: every 100 ms).
    pub indicator_interval: SimTime,
}

impl KaEndpoint {
    pub fn new(protocol: RateProtocol) -> KaEndpoint {
        KaEndpoint { protocol, indicator_interval: SimTime::from_ms(100) }
    }
}

#[cfg(test)]
mod tests;
