//! Constant-bit-rate UDP cross traffic: datagrams of a fixed size, evenly spaced at the given
//! rate, from `start` until `stop` (or the end of the run). Nothing reacts to loss.

use super::Ctx;
use crate::ids::{ConnId, HostId};
use crate::units::{Rate, SimTime};

#[derive(Clone, Debug)]
pub struct Cbr {
    pub src: HostId,
    pub dst: HostId,
    pub rate: Rate,
    /// IP bytes per datagram.
    pub packet_bytes: u32,
    pub start: SimTime,
    pub stop: Option<SimTime>,
    pub group: u32,
    flow: Option<ConnId>,
}

impl Cbr {
    pub fn new(
        src: HostId,
        dst: HostId,
        rate: Rate,
        packet_bytes: u32,
        start: SimTime,
        stop: Option<SimTime>,
        group: u32,
    ) -> Cbr {
        Cbr { src, dst, rate, packet_bytes, start, stop, group, flow: None }
    }

    pub fn start(&mut self, ctx: &mut Ctx) {
        self.flow = Some(ctx.open_udp(self.src, self.dst, self.start, self.group));
        ctx.wake(self.start, 0);
    }

    pub fn on_wake(&mut self, _slot: u32, ctx: &mut Ctx) {
        if self.stop.is_some_and(|s| ctx.now >= s) {
            return;
        }
        ctx.datagram(self.flow.expect("started"), self.packet_bytes);
        ctx.wake(ctx.now + self.rate.tx_time(self.packet_bytes as u64), 0);
    }
}
