//! Endpoint parts: what a router-assisted mechanism adds to TCP at the end hosts, beside its
//! congestion controller — a handshake option, header fields on every segment, a signal the
//! network left in the IP layer, datagrams of its own. The socket calls the part at fixed
//! points, as it calls its `Receiver` and `Scoreboard`; the part never sees the socket.
//!
//! Contract:
//! - The part is built with the controller, from the same recipe ([`BuildController`]).
//! - Both SYNs carry [`EndpointPart::syn_fields`]. When the peer's SYN (at the server) or
//!   SYN-ACK (at the client) arrives, [`EndpointPart::agree`] says whether both ends speak the
//!   protocol; if not, the socket drops the part and the connection is plain TCP.
//! - Every later segment carries [`EndpointPart::segment_fields`]; every arriving one is shown
//!   to [`EndpointPart::on_segment`], and a rate it returns goes to the controller
//!   (`CongestionControl::on_explicit_rate`).
//! - Fields are the packet's explicit-rate fields ([`RateFields`]); the part owns what they mean.

use std::fmt::Debug;

use crate::net::packet::{RateFields, TcpSegment};
use crate::net::recipe::{Params, Recipe};
use crate::tcp::cc::CongestionControl;
use crate::units::{Rate, SimTime};

/// A mechanism's endpoint part inside one TCP connection.
pub trait EndpointPart: Debug + Send + Sync {
    /// Short name, for tests and traces.
    fn name(&self) -> &'static str;

    /// The fields our SYN (or SYN-ACK) carries.
    fn syn_fields(&mut self) -> RateFields;

    /// The peer's SYN (`server`) or SYN-ACK arrived: true if both ends speak the protocol.
    fn agree(&mut self, seg: &TcpSegment, server: bool) -> bool;

    /// The fields every segment of an agreed connection carries (for the payload a full
    /// segment leaves room for, RFC 6691).
    fn fixed_fields(&self) -> RateFields;

    /// The fields of the next segment of an agreed connection (taking any pending echo).
    fn segment_fields(&mut self, srtt: Option<SimTime>) -> RateFields;

    /// A segment of an agreed connection arrived: a rate for the controller, if it brought one.
    fn on_segment(&mut self, seg: &TcpSegment) -> Option<Rate>;

    /// The IP layer reassembled a datagram whose leading fragment held `payload` bytes.
    fn on_leading_fragment(&mut self, _payload: u32) {}

    /// Whether routers may fragment this connection's segments (DF clear).
    fn allows_fragmentation(&self) -> bool {
        false
    }

    /// When the next signal datagram is due, while the connection has data to send.
    fn signal_due_at(&self, _srtt: Option<SimTime>) -> Option<SimTime> {
        None
    }

    /// The size of a signal datagram to send now (the host sends it beside the connection, DF
    /// set, and the receiving host discards it); called once `signal_due_at` has passed.
    fn take_signal(&mut self, _now: SimTime, _srtt: Option<SimTime>) -> Option<u32> {
        None
    }
}

/// Parameters that build a connection's controller and, if the mechanism has one, its endpoint
/// part (a congestion-control choice of the scenario beyond the built-in controllers).
pub trait BuildController: Params {
    fn controller(&self) -> Box<dyn CongestionControl + Send + Sync>;

    fn endpoint_part(&self) -> Option<Box<dyn EndpointPart>> {
        None
    }

    /// The controller needs ECN negotiated and the DCTCP-style echo.
    fn wants_ecn(&self) -> bool {
        false
    }
}

/// A controller recipe, as `tcp::cc::CcConfig::Plugin` holds it.
pub type ControllerRecipe = Recipe<dyn BuildController>;

impl ControllerRecipe {
    pub fn new(params: impl BuildController) -> ControllerRecipe {
        Recipe(std::sync::Arc::new(params))
    }
}
