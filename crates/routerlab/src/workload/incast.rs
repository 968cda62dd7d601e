//! Synchronized incast: in each round every sender sends a block of `block` bytes to one
//! receiver; the next round starts when the last block of the round has been delivered (a
//! barrier, as in partition–aggregate reads), after an optional gap.
//!
//! `connect` chooses when connections open: `First` — persistent connections are opened before
//! the rounds (at `opens`: all at time 0 by default, or spread, since hundreds of simultaneous
//! SYNs overflow a packet-counted buffer) and the rounds write on them (the handshakes are out
//! of the way when the burst comes); `WithBurst` — every block is a new connection opened at
//! the round's start (the SYNs are part of the burst).
//!
//! `jitter` delays each sender's block by a uniform random time in [0, jitter) from the
//! round's start: the servers' response times of a real partition–aggregate read, and what
//! makes replicates with different seeds differ.

use super::{Ctx, FlowSpec, Starts};
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
    /// `First`: when sender i's connection opens.
    pub opens: Starts,
    /// Each block starts at the round's start + uniform [0, jitter).
    pub jitter: SimTime,
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
            opens: Starts::At(SimTime::ZERO),
            jitter: SimTime::ZERO,
            tcp,
            group,
            conns: Vec::new(),
            round: 0,
            outstanding: 0,
        }
    }

    /// Each sender's block starts at a uniform random time in [0, jitter) after the round's.
    pub fn with_jitter(mut self, jitter: SimTime) -> Incast {
        self.jitter = jitter;
        self
    }

    /// `First`: sender i's connection opens at `opens.at(i)` instead of time 0.
    pub fn with_opens(mut self, opens: Starts) -> Incast {
        self.opens = opens;
        self
    }

    /// Rounds completed so far.
    pub fn rounds_done(&self) -> u32 {
        self.round
    }

    pub fn start(&mut self, ctx: &mut Ctx) {
        if self.connect == Connect::First {
            for (i, &s) in self.senders.iter().enumerate() {
                let mut f =
                    FlowSpec::new(s, self.receiver, self.opens.at(i), Some(0), self.tcp.clone(), self.group);
                f.persistent = true;
                self.conns.push(ctx.open(f, u64::MAX, 0));
            }
        }
        if self.rounds > 0 {
            ctx.wake(self.start, 0);
        }
    }

    /// Slot 0: a round starts; slot i + 1: sender i's (jittered) block starts.
    pub fn on_wake(&mut self, slot: u32, ctx: &mut Ctx) {
        if slot > 0 {
            self.send_block(slot as usize - 1, ctx);
            return;
        }
        self.outstanding = self.senders.len();
        for i in 0..self.senders.len() {
            if self.jitter == SimTime::ZERO {
                self.send_block(i, ctx);
            } else {
                let at = ctx.now + SimTime(ctx.rng.below(self.jitter.0));
                ctx.wake(at, i as u32 + 1);
            }
        }
    }

    fn send_block(&mut self, i: usize, ctx: &mut Ctx) {
        let r = self.round;
        match self.connect {
            Connect::First => ctx.send(self.conns[i], self.block, r as u64, r),
            Connect::WithBurst => {
                let f = FlowSpec::new(
                    self.senders[i],
                    self.receiver,
                    ctx.now,
                    Some(self.block),
                    self.tcp.clone(),
                    self.group,
                );
                ctx.open(f, r as u64, r);
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

    /// Three senders of 64 000-byte blocks to host 3, connections opened first, the first
    /// round at 10 ms and each next one as soon as the last block arrives.
    fn three_senders(rounds: u32) -> Incast {
        Incast::new(
            vec![HostId(0), HostId(1), HostId(2)],
            HostId(3),
            64_000,
            rounds,
            SimTime::from_ms(10),
            SimTime::ZERO,
            Connect::First,
            TcpConfig::default(),
            0,
        )
    }

    #[test]
    fn the_next_round_waits_for_every_block() {
        let mut g = three_senders(2);
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

    #[test]
    fn jittered_blocks_start_within_the_jitter_of_the_round() {
        let jitter = SimTime::from_ms(2);
        let mut g = three_senders(1).with_jitter(jitter);
        let mut rng = SimRng::new(1, StreamId::Workload(0));
        let mut a = Vec::new();
        g.start(&mut Ctx::new(SimTime::ZERO, &mut rng, &mut a, 0));
        a.clear();
        let now = SimTime::from_ms(10);
        g.on_wake(0, &mut Ctx::new(now, &mut rng, &mut a, 3));
        let wakes: Vec<_> = a
            .iter()
            .filter_map(|x| if let Action::Wake { at, slot } = x { Some((*at, *slot)) } else { None })
            .collect();
        assert_eq!(
            wakes.iter().map(|w| w.1).collect::<Vec<_>>(),
            vec![1, 2, 3],
            "no block is sent before its time"
        );
        assert!(wakes.iter().all(|&(at, _)| at >= now && at < now + jitter));
        assert!(wakes.iter().any(|&(at, _)| at != wakes[0].0), "the delays are random");
        a.clear();
        g.on_wake(2, &mut Ctx::new(wakes[1].0, &mut rng, &mut a, 3));
        assert_eq!(a, vec![Action::Send { conn: ConnId(1), bytes: 64_000, tag: 0, seq: 0 }]);
    }
}
