//! On-off senders (the Kick-Ass paper's workload, §III-B): each client starts in the off state,
//! waits a random gap, sends one flow of a random size, and when that flow is completely
//! delivered goes back to the off state. Gaps and sizes come from the workload's distributions
//! (e.g. exponential gaps with mean 0.5 s; Pareto sizes, shape 1.8, mean 100 packets, bounded
//! to 1–2000 packets).

use super::dist::Dist;
use super::{Ctx, FlowSpec};
use crate::ids::HostId;
use crate::tcp::TcpConfig;
use crate::units::SimTime;

#[derive(Clone, Debug)]
pub struct OnOff {
    /// (sender, receiver) per client.
    pub clients: Vec<(HostId, HostId)>,
    /// Flow sizes, bytes.
    pub size: Dist,
    /// Off periods, seconds.
    pub off: Dist,
    pub start: SimTime,
    /// No flow starts at or after this time.
    pub stop: Option<SimTime>,
    pub tcp: TcpConfig,
    pub group: u32,
    flows_started: Vec<u32>,
}

impl OnOff {
    pub fn new(
        clients: Vec<(HostId, HostId)>,
        size: Dist,
        off: Dist,
        start: SimTime,
        stop: Option<SimTime>,
        tcp: TcpConfig,
        group: u32,
    ) -> OnOff {
        let n = clients.len();
        OnOff { clients, size, off, start, stop, tcp, group, flows_started: vec![0; n] }
    }

    fn schedule_next(&mut self, client: usize, from: SimTime, ctx: &mut Ctx) {
        let gap = SimTime::from_secs_f64_bounded(self.off.sample(ctx.rng));
        let at = from + gap;
        if self.stop.is_none_or(|s| at < s) {
            ctx.wake(at, client as u32);
        }
    }

    pub fn start(&mut self, ctx: &mut Ctx) {
        for c in 0..self.clients.len() {
            self.schedule_next(c, self.start, ctx);
        }
    }

    pub fn on_wake(&mut self, slot: u32, ctx: &mut Ctx) {
        let c = slot as usize;
        let (src, dst) = self.clients[c];
        let size = (self.size.sample(ctx.rng).round() as u64).max(1);
        let seq = self.flows_started[c];
        self.flows_started[c] += 1;
        ctx.open(FlowSpec::new(src, dst, ctx.now, Some(size), self.tcp.clone(), self.group), c as u64, seq);
    }

    pub fn on_done(&mut self, tag: u64, ctx: &mut Ctx) {
        self.schedule_next(tag as usize, ctx.now, ctx);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::{SimRng, StreamId};
    use crate::workload::Action;

    #[test]
    fn clients_alternate_between_gaps_and_flows() {
        let mut g = OnOff::new(
            vec![(HostId(0), HostId(1)), (HostId(2), HostId(3))],
            Dist::Fixed(15_000.0),
            Dist::Exponential { mean: 0.5 },
            SimTime::ZERO,
            None,
            TcpConfig::default(),
            0,
        );
        let mut rng = SimRng::new(1, StreamId::Workload(0));
        let mut actions = Vec::new();
        g.start(&mut Ctx::new(SimTime::ZERO, &mut rng, &mut actions, 0));
        assert_eq!(actions.len(), 2);
        assert!(actions.iter().all(|a| matches!(a, Action::Wake { .. })));
        actions.clear();
        g.on_wake(1, &mut Ctx::new(SimTime::from_ms(300), &mut rng, &mut actions, 0));
        match &actions[0] {
            Action::Open { flow, tag, seq } => {
                assert_eq!(
                    (flow.src, flow.dst, flow.size, *tag, *seq),
                    (HostId(2), HostId(3), Some(15_000), 1, 0)
                );
                assert_eq!(flow.start, SimTime::from_ms(300));
            }
            a => panic!("{a:?}"),
        }
        actions.clear();
        g.on_done(1, &mut Ctx::new(SimTime::from_ms(400), &mut rng, &mut actions, 1));
        assert!(matches!(actions[0], Action::Wake { at, slot: 1 } if at > SimTime::from_ms(400)));
    }
}
