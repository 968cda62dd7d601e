//! Kick-Ass's and native RCP's endpoint part inside TCP (`tcp::endpoint`): the handshake that
//! agrees on the protocol, DF clear on a Kick-Ass pair's data (§IV-C), the receiver's decoding
//! of the leading-fragment length and its echo (§II-A), RTT indicators every 100 ms (§II-B);
//! RCP's header on every segment from the SYN on, its rate echoed back.

use super::encoding::{decode_length, indicator_size};
use super::{ExplicitRate, KaEndpoint, RateProtocol};
use crate::net::packet::{RateFields, TcpFlags, TcpSegment};
use crate::tcp::cc::CongestionControl;
use crate::tcp::endpoint::{BuildController, EndpointPart};
use crate::units::{PS_PER_US, Rate, SimTime};

impl BuildController for KaEndpoint {
    fn controller(&self) -> Box<dyn CongestionControl + Send + Sync> {
        Box::new(match self.protocol {
            RateProtocol::KickAss => ExplicitRate::kick_ass(),
            RateProtocol::Rcp => ExplicitRate::rcp(),
        })
    }

    fn endpoint_part(&self) -> Option<Box<dyn EndpointPart>> {
        Some(Box::new(RateEndpoint {
            params: *self,
            agreed: false,
            echo: Rate(0),
            echo_length: 0,
            next_indicator_at: SimTime::ZERO,
        }))
    }
}

/// One connection's end of the explicit-rate protocol.
#[derive(Debug)]
pub struct RateEndpoint {
    params: KaEndpoint,
    /// Both ends speak it (Kick-Ass: agreed in the handshake; RCP: its header on the SYN).
    agreed: bool,
    /// A rate to echo on the next segment (`RateFields::echo`), `Rate(0)` for none, and the
    /// leading-fragment length it was read from (its wire form; 0 for RCP's).
    echo: Rate,
    echo_length: u16,
    /// Kick-Ass: when the next RTT indicator is due (while sending).
    next_indicator_at: SimTime,
}

impl RateEndpoint {
    pub fn protocol(&self) -> RateProtocol {
        self.params.protocol
    }

    fn kick_ass(&self) -> bool {
        self.params.protocol == RateProtocol::KickAss
    }
}

impl EndpointPart for RateEndpoint {
    fn name(&self) -> &'static str {
        if self.kick_ass() { "kick-ass" } else { "rcp" }
    }

    /// Kick-Ass-permitted; RCP's header, with the SYN's rate echoed on the SYN-ACK.
    fn syn_fields(&mut self) -> RateFields {
        match self.params.protocol {
            RateProtocol::KickAss => RateFields { fragment_rate_permitted: true, ..Default::default() },
            RateProtocol::Rcp => {
                let echo = std::mem::replace(&mut self.echo, Rate(0));
                RateFields { rate_header: true, header_rate: Rate(u64::MAX), echo, ..Default::default() }
            }
        }
    }

    fn agree(&mut self, seg: &TcpSegment, server: bool) -> bool {
        self.agreed = match self.params.protocol {
            RateProtocol::KickAss => seg.xr.fragment_rate_permitted,
            RateProtocol::Rcp => seg.xr.rate_header,
        };
        if server && self.agreed && !self.kick_ass() && seg.xr.header_rate.0 != u64::MAX {
            self.echo = seg.xr.header_rate; // the SYN's rate, back on the SYN-ACK
        }
        self.agreed
    }

    fn fixed_fields(&self) -> RateFields {
        RateFields { rate_header: !self.kick_ass(), ..Default::default() }
    }

    fn segment_fields(&mut self, srtt: Option<SimTime>) -> RateFields {
        let echo = std::mem::replace(&mut self.echo, Rate(0));
        let echo_length = std::mem::take(&mut self.echo_length);
        match self.params.protocol {
            RateProtocol::KickAss => RateFields { echo, echo_length, ..Default::default() },
            RateProtocol::Rcp => RateFields {
                rate_header: true,
                header_rate: Rate(u64::MAX),
                header_rtt_us: srtt.map_or(0, |r| (r.ps() / PS_PER_US) as u32),
                echo,
                ..Default::default()
            },
        }
    }

    /// A rate echoed to us goes to the controller; an RCP data segment's (or SYN's) rate is
    /// echoed back on our next segment.
    fn on_segment(&mut self, seg: &TcpSegment) -> Option<Rate> {
        if !self.kick_ass()
            && seg.xr.rate_header
            && (seg.payload_len > 0 || seg.flags.has(TcpFlags::SYN))
            && seg.xr.header_rate.0 != u64::MAX
        {
            self.echo = seg.xr.header_rate;
        }
        (seg.xr.echo.0 != 0).then_some(seg.xr.echo)
    }

    /// A Kick-Ass receiver decodes the rate and echoes it on its next segment.
    fn on_leading_fragment(&mut self, payload: u32) {
        if self.agreed
            && self.kick_ass()
            && let Some(r) = decode_length(payload)
        {
            self.echo = r;
            self.echo_length = payload as u16; // a code, at most 1480
        }
    }

    /// A Kick-Ass pair leaves DF clear on its data, so routers may fragment it (§IV-C).
    fn allows_fragmentation(&self) -> bool {
        self.agreed && self.kick_ass()
    }

    /// A Kick-Ass sender with data in flight or waiting sends an RTT indicator every
    /// `indicator_interval` (§II-B), once it has an RTT estimate.
    fn signal_due_at(&self, srtt: Option<SimTime>) -> Option<SimTime> {
        (self.agreed && self.kick_ass() && srtt.is_some()).then_some(self.next_indicator_at)
    }

    fn take_signal(&mut self, now: SimTime, srtt: Option<SimTime>) -> Option<u32> {
        self.next_indicator_at = now + self.params.indicator_interval;
        Some(indicator_size(srtt?))
    }
}
