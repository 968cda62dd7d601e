//! Native RCP's router (the baseline Kick-Ass is measured against, §III): the same rate
//! computation ([`super::rcp`]), carried in a header field instead of packet lengths.
//!
//! Every packet of an RCP flow carries RCP's header (as an option, see
//! `net::packet::RateFields`): the sender asks for an unbounded rate, and each RCP router the
//! packet leaves through lowers the field to its own R (ns-2 RCP's `fill_in_feedback`, at
//! dequeue), so it arrives with the path's smallest rate. Because the SYN carries the header
//! too, a sender learns its rate from the SYN-ACK, one RTT before a Kick-Ass sender can
//! (§III-C2). The RTT field of every packet feeds the average RTT d.

use std::collections::VecDeque;

use super::rcp::{RcpParams, RcpRate};
use crate::ids::PacketId;
use crate::net::packet::PacketPool;
use crate::net::stage::{PortStage, QueueView};
use crate::qdisc::DropCause;
use crate::units::{Rate, SimTime};

/// Native RCP's stage for one output port.
#[derive(Debug)]
pub struct RcpRouter {
    rcp: RcpRate,
    /// Packets whose rate field this router lowered.
    pub stamped: u64,
}

impl RcpRouter {
    pub fn new(params: RcpParams, link: Rate) -> RcpRouter {
        RcpRouter { rcp: RcpRate::new(params, link), stamped: 0 }
    }

    pub fn rate(&self) -> Rate {
        self.rcp.rate()
    }
}

impl PortStage for RcpRouter {
    fn on_arrival(
        &mut self,
        _now: SimTime,
        pkt: PacketId,
        pool: &mut PacketPool,
        _q: &QueueView,
    ) -> Result<(), DropCause> {
        let p = pool.get(pkt);
        self.rcp.on_input(p.ip.total_len as u32);
        if p.tcp.xr.rate_header && p.tcp.xr.header_rtt_us > 0 && p.has_l4_header() {
            self.rcp.on_rtt_sample(SimTime::from_us(p.tcp.xr.header_rtt_us as u64));
        }
        Ok(())
    }

    fn on_departure(
        &mut self,
        _now: SimTime,
        pkt: PacketId,
        pool: &mut PacketPool,
        _q: &QueueView,
        out: &mut VecDeque<PacketId>,
        _drops: &mut Vec<(PacketId, DropCause)>,
    ) {
        let p = pool.get_mut(pkt);
        let r = self.rcp.rate();
        if p.tcp.xr.rate_header && p.has_l4_header() && p.tcp.xr.header_rate > r {
            p.tcp.xr.header_rate = r;
            self.stamped += 1;
        }
        out.push_back(pkt);
    }

    fn poll_at(&self) -> Option<SimTime> {
        Some(self.rcp.next_update())
    }

    fn on_timer(&mut self, now: SimTime, q: &QueueView) {
        self.rcp.update(now, q.bytes, false);
    }

    fn counters(&self) -> Vec<(&'static str, u64)> {
        vec![
            ("stamped", self.stamped),
            ("rate_kbps_at_end", self.rcp.rate().bps() / 1000),
            ("avg_rtt_us_at_end", self.rcp.avg_rtt().ps() / crate::units::PS_PER_US),
            ("rate_updates", self.rcp.updates),
        ]
    }

    fn name(&self) -> &'static str {
        "rcp-router"
    }
}
