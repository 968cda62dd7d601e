//! Synchronized incast: in each round every sender sends a block of `block` bytes to one
//! receiver; the next round starts when the last block of the round has been delivered (a
//! barrier, as in partition–aggregate reads), after an optional gap.
//!
//! `connect` chooses when connections open: `First` — persistent connections are opened at
//! time 0 and the rounds write on them (the handshakes are out of the way when the burst
//! comes); `WithBurst` — every block is a new connection opened at the round's start (the SYNs
//! are part of the burst).

use super::{Ctx, FlowSpec};
use crate::ids::{ConnId, HostId};
use crate::tcp::TcpConfig;
use crate::units::SimTime;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Connect {
    First,
    WithBurst,
}

#[derive(Clone, Debug)]
pub struct Incast {
    pub senders: Vec<HostId>,
    pub receiver: HostId,
    pub block: u64,
    pub rounds: u32,
    /// First round's start.
    pub start: SimTime,
    /// Pause between a round's end and the next round.
    pub gap: SimTime,
    pub connect: Connect,
    pub tcp: TcpConfig,
    pub group: u32,
    conns: Vec<ConnId>,
    round: u32,
    outstanding: usize,
}

impl Incast {
    #[allow(clippy::too_many_arguments)]
    pub fn new(
        senders: Vec<HostId>,
        receiver: HostId,
        block: u64,
        rounds: u32,
        start: SimTime,
        gap: SimTime,
        connect: Connect,
        tcp: TcpConfig,
        group: u32,
    ) -> Incast {
        Incast {
            senders,
            receiver,
            block,
            rounds,
            start,
            gap,
            connect,
            tcp,
            group,
            conns: Vec::new(),
            round: 0,
            outstanding: 0,
        }
    }

    /// Rounds completed so far.
    pub fn rounds_done(&self) -> u32 {
        self.round
    }

    pub fn start(&mut self, ctx: &mut Ctx) {
        if self.connect == Connect::First {
            for &s in &self.senders {
                let mut f = FlowSpec::new(s, self.receiver, SimTime::ZERO, Some(0), self.tcp, self.group);
                f.persistent = true;
                self.conns.push(ctx.open(f, u64::MAX, 0));
            }
        }
        if self.rounds > 0 {
            ctx.wake(self.start, 0);
        }
    }

    pub fn on_wake(&mut self, _slot: u32, ctx: &mut Ctx) {
        self.outstanding = self.senders.len();
        let r = self.round;
        match self.connect {
            Connect::First => {
                for &c in &self.conns {
                    ctx.send(c, self.block, r as u64, r);
                }
            }
            Connect::WithBurst => {
                for &s in &self.senders {
                    ctx.open(
                        FlowSpec::new(s, self.receiver, ctx.now, Some(self.block), self.tcp, self.group),
                        r as u64,
                        r,
                    );
                }
            }
        }
    }

    pub fn on_done(&mut self, tag: u64, _conn: ConnId, ctx: &mut Ctx) {
        if tag != self.round as u64 || self.outstanding == 0 {
            return;
        }
        self.outstanding -= 1;
        if self.outstanding == 0 {
            self.round += 1;
            if self.round < self.rounds {
                ctx.wake(ctx.now + self.gap, 0);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::{SimRng, StreamId};
    use crate::workload::Action;

    #[test]
    fn the_next_round_waits_for_every_block() {
        let mut g = Incast::new(
            vec![HostId(0), HostId(1), HostId(2)],
            HostId(3),
            64_000,
            2,
            SimTime::from_ms(10),
            SimTime::ZERO,
            Connect::First,
            TcpConfig::default(),
            0,
        );
        let mut rng = SimRng::new(1, StreamId::Workload(0));
        let mut a = Vec::new();
        g.start(&mut Ctx::new(SimTime::ZERO, &mut rng, &mut a, 5));
        assert_eq!(a.iter().filter(|x| matches!(x, Action::Open { .. })).count(), 3);
        assert_eq!(g.conns, vec![ConnId(5), ConnId(6), ConnId(7)]);
        a.clear();
        g.on_wake(0, &mut Ctx::new(SimTime::from_ms(10), &mut rng, &mut a, 8));
        assert_eq!(a.iter().filter(|x| matches!(x, Action::Send { bytes: 64_000, tag: 0, .. })).count(), 3);
        a.clear();
        g.on_done(0, ConnId(5), &mut Ctx::new(SimTime::from_ms(11), &mut rng, &mut a, 8));
        g.on_done(0, ConnId(6), &mut Ctx::new(SimTime::from_ms(12), &mut rng, &mut a, 8));
        assert!(a.is_empty(), "one block still missing");
        g.on_done(0, ConnId(7), &mut Ctx::new(SimTime::from_ms(13), &mut rng, &mut a, 8));
        assert_eq!(a, vec![Action::Wake { at: SimTime::from_ms(13), slot: 0 }]);
        assert_eq!(g.rounds_done(), 1);
    }
}
