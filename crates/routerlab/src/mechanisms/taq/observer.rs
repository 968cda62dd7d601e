//! A passive flow observer: TAQ's tracker on a port whatever its queue, so that flows can be
//! classified the same way under drop-tail, SFQ, RED and TAQ (the paper's flow evolution, §5.2).
//!
//! It is a port stage (`net::stage`), first in its port's chain: the port shows it every
//! arriving segment, every segment its queue lets go on the wire and every segment it loses
//! after the arrival (overflow, push-out, early drop); the observer changes nothing. A
//! pushed-out segment was judged on arrival, long before: the judgement (new or retransmitted)
//! travels with it in `MetaFlags::OBSERVED_RETX`.

use std::collections::VecDeque;

use super::tracker::{FlowKey, FlowTracker, TrackerParams};
use crate::ids::PacketId;
use crate::net::flow_epoch::FlowEpoch;
use crate::net::packet::{MetaFlags, Packet, PacketPool};
use crate::net::stage::{BuildStage, PortStage, QueueView};
use crate::qdisc::DropCause;
use crate::units::{Rate, SimTime};

#[derive(Debug)]
pub struct FlowObserver {
    pub tracker: FlowTracker,
}

impl FlowObserver {
    /// An observer that records every closed epoch.
    pub fn new(params: TrackerParams) -> FlowObserver {
        let mut tracker = FlowTracker::new(params);
        tracker.record_epochs();
        FlowObserver { tracker }
    }

    /// A packet arrived at the port, whose queue holds `local_delay` of transmission ahead of
    /// it: the handshake's epoch sample counts it, as a TAQ queue's does (the first data
    /// packet's wait here is part of its round trip).
    pub fn observe_arrival(&mut self, now: SimTime, local_delay: SimTime, p: &mut Packet) {
        self.tracker.local_delay = local_delay;
        if let Some((_, retransmission)) = self.tracker.on_segment(now, p) {
            p.meta.flags.set(MetaFlags::OBSERVED_RETX, retransmission);
        }
    }

    /// The port's queue let go a packet it had shown on arrival, onto the wire: its SYN's or new
    /// data's time in the queue times the epoch, as in a TAQ queue (`OneWayEpoch::Queue`).
    pub fn observe_departure(&mut self, now: SimTime, p: &Packet) {
        if let Some((key, _)) = FlowKey::of(p) {
            let new_data = p.tcp.payload_len > 0 && !p.meta.flags.has(MetaFlags::OBSERVED_RETX);
            self.tracker.on_left_queue(now, key, p, new_data);
        }
    }

    /// The port dropped a packet it had shown on arrival.
    pub fn observe_drop(&mut self, now: SimTime, p: &Packet) {
        if let Some((key, _)) = FlowKey::of(p)
            && p.tcp.payload_len > 0
        {
            self.tracker.on_drop(
                now,
                key,
                p.tcp.seq,
                p.tcp.payload_len.into(),
                p.meta.flags.has(MetaFlags::OBSERVED_RETX),
            );
        }
    }
}

/// The tracker's parameters build a passive observer (for `[output] flow_epochs`).
impl BuildStage for TrackerParams {
    fn build(&self, _rate: Rate) -> Box<dyn PortStage> {
        Box::new(FlowObserver::new(*self))
    }
}

impl PortStage for FlowObserver {
    fn on_arrival(
        &mut self,
        now: SimTime,
        pkt: PacketId,
        pool: &mut PacketPool,
        q: &QueueView,
    ) -> Result<(), DropCause> {
        let p = pool.get_mut(pkt);
        p.meta.enqueued_at = now; // whatever the queue: the observer times its sojourn
        self.observe_arrival(now, q.backlog_delay(), p);
        Ok(())
    }

    fn on_departure(
        &mut self,
        now: SimTime,
        pkt: PacketId,
        pool: &mut PacketPool,
        _q: &QueueView,
        out: &mut VecDeque<PacketId>,
        _drops: &mut Vec<(PacketId, DropCause)>,
    ) {
        self.observe_departure(now, pool.get(pkt));
        out.push_back(pkt);
    }

    fn on_lost(&mut self, now: SimTime, pkt: PacketId, pool: &PacketPool) {
        self.observe_drop(now, pool.get(pkt));
    }

    fn name(&self) -> &'static str {
        "flow-observer"
    }
    fn record_flow_epochs(&mut self) -> bool {
        self.tracker.record_epochs();
        true
    }

    fn flow_epochs(&self, now: SimTime) -> Option<Vec<FlowEpoch>> {
        self.tracker.closed_epochs(now)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ids::HostId;
    use crate::mechanisms::taq::OneWayEpoch;
    use crate::net::packet::{TcpFlags, TcpSegment};

    fn segment(seq: u64, len: u32, syn: bool) -> Packet {
        let flags = if syn { TcpFlags::SYN } else { TcpFlags::ACK };
        let tcp = TcpSegment {
            seq,
            flags,
            payload_len: len as u16,
            src_port: 1,
            dst_port: 2,
            ..Default::default()
        };
        Packet::tcp_for_test(HostId(0), HostId(1), tcp)
    }

    /// The handshake's epoch sample is the SYN-to-first-data gap plus the wait the first
    /// data packet has ahead of it in the port's queue.
    #[test]
    fn the_first_epoch_counts_the_local_queue() {
        let ms = SimTime::from_ms;
        for wait in [0, 50] {
            let mut o = FlowObserver::new(TrackerParams::default());
            o.observe_arrival(ms(0), ms(0), &mut segment(0, 0, true));
            let mut first = segment(1, 500, false);
            o.observe_arrival(ms(100), ms(wait), &mut first);
            let key = FlowKey::of(&first).unwrap().0;
            assert_eq!(o.tracker.get(&key).unwrap().epoch, Some(ms(100 + wait)));
        }
    }

    /// Timed from the queue, a data packet's epoch sample is the handshake's loop outside the
    /// port plus the packet's own time in its queue, read as it leaves; a retransmission's
    /// departure is no sample.
    #[test]
    fn timed_from_the_queue_a_departure_is_a_sample() {
        let ms = SimTime::from_ms;
        let params = TrackerParams { one_way: OneWayEpoch::Queue, epoch_gain: 1.0, ..Default::default() };
        let mut o = FlowObserver::new(params);
        let mut syn = segment(0, 0, true);
        syn.meta.enqueued_at = ms(0);
        o.observe_arrival(ms(0), ms(0), &mut syn);
        o.observe_departure(ms(10), &syn); // 10 ms of the handshake's 100 were spent in this queue
        let mut first = segment(1, 500, false);
        o.observe_arrival(ms(100), ms(0), &mut first);
        let key = FlowKey::of(&first).unwrap().0;
        assert_eq!(o.tracker.get(&key).unwrap().epoch, Some(ms(90)));
        let mut next = segment(501, 500, false);
        next.meta.enqueued_at = ms(120);
        o.observe_arrival(ms(120), ms(0), &mut next);
        o.observe_departure(ms(160), &next);
        assert_eq!(o.tracker.get(&key).unwrap().epoch, Some(ms(130)), "outside 90 + sojourn 40");
        let mut retx = segment(501, 500, false);
        retx.meta.enqueued_at = ms(170);
        o.observe_arrival(ms(170), ms(0), &mut retx);
        o.observe_departure(ms(400), &retx);
        assert_eq!(o.tracker.get(&key).unwrap().epoch, Some(ms(130)), "a retransmission is no sample");
    }

    #[test]
    fn a_pushed_out_retransmission_counts_as_one() {
        let mut o = FlowObserver::new(TrackerParams::default());
        let ms = SimTime::from_ms;
        o.observe_arrival(ms(0), ms(0), &mut segment(0, 0, true));
        let mut first = segment(1, 500, false);
        o.observe_arrival(ms(100), ms(0), &mut first);
        let mut retx = segment(1, 500, false);
        o.observe_arrival(ms(150), ms(0), &mut retx);
        assert!(
            !first.meta.flags.has(MetaFlags::OBSERVED_RETX) && retx.meta.flags.has(MetaFlags::OBSERVED_RETX)
        );
        // A newer segment arrives, then the queue pushes the retransmission out.
        o.observe_arrival(ms(160), ms(0), &mut segment(501, 500, false));
        o.observe_drop(ms(170), &retx);
        let key = FlowKey::of(&retx).unwrap().0;
        let f = o.tracker.get(&key).unwrap();
        assert_eq!((f.current.dropped_retransmissions, f.current.drops), (1, 0));
        // The next epoch boundary is logged: the dropped retransmission means a timeout.
        o.tracker.advance(ms(250));
        let log = o.tracker.epoch_log();
        assert_eq!(log.len(), 1);
        assert_eq!(
            (log[0].to, log[0].packets, log[0].drops),
            (crate::mechanisms::taq::FlowState::TimeoutSilence, 3, 1)
        );
    }

    /// On a port, the observer is told the backlog an arrival waits behind: the bytes queued
    /// and what is left of the packet on the transmitter.
    #[test]
    fn on_a_port_the_observer_hears_the_backlog_ahead_of_each_arrival() {
        let ms = SimTime::from_ms;
        use crate::builtins::AnyQdisc;
        use crate::engine::EventQueue;
        use crate::ids::{NodeId, PortId};
        use crate::net::port::Port;
        use crate::qdisc::{DropTail, DropTailParams};
        use crate::rng::{SimRng, StreamId};
        use crate::units::{Rate, Size};
        let queue = DropTail::new(DropTailParams { limit: Size::Packets(10), ecn_threshold: None });
        let rate = Rate::from_mbps(1);
        let rng = SimRng::new(1, StreamId::LinkLoss(0));
        let mut port = Port::new(
            PortId(0),
            NodeId(0),
            NodeId(1),
            rate,
            ms(1),
            0,
            1500,
            0.0,
            AnyQdisc::DropTail(queue),
            rng,
        );
        port.insert_stage(0, Box::new(FlowObserver::new(TrackerParams::default())));
        let (mut pool, mut events, mut drops) = (PacketPool::new(), EventQueue::new(), Vec::new());
        let mut free = |p, _, pool: &mut PacketPool| pool.free(p);
        let mut offer = |at: SimTime, port: &mut Port| {
            let p = pool.alloc(segment(1, 960, false)); // 1000 bytes: 8 ms at 1 Mbps
            port.enqueue(at, p, &mut pool, &mut events, &mut drops, &mut free);
            super::super::port_tracker(port).unwrap().local_delay
        };
        assert_eq!(offer(ms(0), &mut port), SimTime::ZERO, "an idle port");
        // 6 ms of the first packet left to send.
        assert_eq!(offer(ms(2), &mut port), ms(6));
        // 5 ms of it, and the second packet queued behind it.
        assert_eq!(offer(ms(3), &mut port), ms(13));
    }
}
