//! The built-in queue disciplines, dispatched statically ([`AnyQdisc`]), and the spec a
//! scenario builds them from ([`QueueSpec`]): the core's (`qdisc`) and the mechanisms' (CP's
//! cutting queue, TAQ's multi-level queue). `Custom` holds a user's own.

use crate::ids::PacketId;
use crate::mechanisms::cp::{CpParams, CpQueue};
use crate::mechanisms::taq::{TaqParams, TaqQueue};
use crate::net::flow_epoch::FlowEpoch;
use crate::net::packet::{Packet, PacketPool};
use crate::qdisc::{
    DropCause, DropTail, DropTailParams, FqCodel, FqCodelParams, Qdisc, QdiscStats, Red, RedParams, Sfq,
    SfqParams, Verdict,
};
use crate::rng::SimRng;
use crate::units::{Rate, SimTime, Size};

/// Every built-in qdisc, dispatched statically; `Custom` holds a user's own (see
/// `docs/extending.md`).
pub enum AnyQdisc {
    DropTail(DropTail),
    Red(Red),
    Sfq(Sfq),
    FqCodel(FqCodel),
    /// CP's drop processing around a data queue (`mechanisms::cp`).
    Cp(Box<CpQueue>),
    /// TAQ's multi-level queue (`mechanisms::taq`).
    Taq(Box<TaqQueue>),
    Custom(Box<dyn Qdisc + Send + Sync>),
}

macro_rules! dispatch {
    ($self:ident, $q:ident => $e:expr) => {
        match $self {
            AnyQdisc::DropTail($q) => $e,
            AnyQdisc::Red($q) => $e,
            AnyQdisc::Sfq($q) => $e,
            AnyQdisc::FqCodel($q) => $e,
            AnyQdisc::Cp($q) => $e,
            AnyQdisc::Taq($q) => $e,
            AnyQdisc::Custom($q) => $e,
        }
    };
}

impl Qdisc for AnyQdisc {
    #[inline]
    fn enqueue(
        &mut self,
        now: SimTime,
        pkt: PacketId,
        pool: &mut PacketPool,
        drops: &mut Vec<(PacketId, DropCause)>,
    ) -> Verdict {
        dispatch!(self, q => q.enqueue(now, pkt, pool, drops))
    }
    #[inline]
    fn dequeue(
        &mut self,
        now: SimTime,
        pool: &mut PacketPool,
        drops: &mut Vec<(PacketId, DropCause)>,
    ) -> Option<PacketId> {
        dispatch!(self, q => q.dequeue(now, pool, drops))
    }
    #[inline]
    fn len_packets(&self) -> usize {
        dispatch!(self, q => q.len_packets())
    }
    #[inline]
    fn len_bytes(&self) -> u64 {
        dispatch!(self, q => q.len_bytes())
    }
    fn stats(&self) -> QdiscStats {
        dispatch!(self, q => q.stats())
    }
    fn room_packets(&self) -> Option<usize> {
        dispatch!(self, q => q.room_packets())
    }
    fn capacity_packets(&self) -> Option<usize> {
        dispatch!(self, q => q.capacity_packets())
    }
    fn wants_reverse(&self) -> bool {
        dispatch!(self, q => q.wants_reverse())
    }
    fn observe_reverse(&mut self, now: SimTime, pkt: &Packet) {
        dispatch!(self, q => q.observe_reverse(now, pkt))
    }
    fn counters(&self) -> Vec<(&'static str, u64)> {
        dispatch!(self, q => q.counters())
    }
    fn overloaded(&self) -> SimTime {
        dispatch!(self, q => q.overloaded())
    }
    fn take_refused(&mut self, now: SimTime, pkt: PacketId, cause: DropCause, pool: &mut PacketPool) -> bool {
        dispatch!(self, q => q.take_refused(now, pkt, cause, pool))
    }
    fn record_flow_epochs(&mut self) -> bool {
        dispatch!(self, q => q.record_flow_epochs())
    }
    fn flow_epochs(&self, now: SimTime) -> Option<Vec<FlowEpoch>> {
        dispatch!(self, q => q.flow_epochs(now))
    }
}

impl std::fmt::Debug for AnyQdisc {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            AnyQdisc::Custom(_) => f.write_str("Custom(..)"),
            q => f.write_str(q.kind()),
        }
    }
}

impl AnyQdisc {
    /// Would this discipline queue every packet of at most `max_len` bytes that finds it empty,
    /// unchanged, and change no state but its counters? Only a plain drop-tail can say yes (RED
    /// ages its average, the fair queues and the mechanisms keep per-flow state).
    pub fn passes_through_when_empty(&self, max_len: u64) -> bool {
        match self {
            AnyQdisc::DropTail(q) => q.passes_through_when_empty(max_len),
            _ => false,
        }
    }

    pub fn kind(&self) -> &'static str {
        match self {
            AnyQdisc::DropTail(_) => "droptail",
            AnyQdisc::Red(_) => "red",
            AnyQdisc::Sfq(_) => "sfq",
            AnyQdisc::FqCodel(_) => "fq_codel",
            AnyQdisc::Cp(_) => "cp",
            AnyQdisc::Taq(_) => "taq",
            AnyQdisc::Custom(_) => "custom",
        }
    }
}

/// A queue discipline and its parameters, as a scenario specifies it.
#[derive(Clone, Debug, PartialEq)]
pub enum QueueSpec {
    DropTail(DropTailParams),
    Red(RedParams),
    Sfq(SfqParams),
    FqCodel(FqCodelParams),
    /// CP around a data queue (drop-tail or RED).
    Cp(Box<QueueSpec>, CpParams),
    /// TAQ's multi-level queue.
    Taq(TaqParams),
}

impl QueueSpec {
    /// Build the qdisc for a port of rate `rate`; `rng` is the port's own stream.
    pub fn build(&self, rng: SimRng, rate: Rate) -> AnyQdisc {
        match self {
            QueueSpec::DropTail(p) => AnyQdisc::DropTail(DropTail::new(*p)),
            // RED's idle decay counts "typical" 1500-byte packet times.
            QueueSpec::Red(p) => AnyQdisc::Red(Red::new(*p, rng, rate.tx_time(1500))),
            QueueSpec::Sfq(p) => AnyQdisc::Sfq(Sfq::new(*p, rng)),
            QueueSpec::FqCodel(p) => AnyQdisc::FqCodel(FqCodel::new(*p, rng)),
            QueueSpec::Cp(data, p) => AnyQdisc::Cp(Box::new(CpQueue::new(data.build(rng, rate), *p, rate))),
            QueueSpec::Taq(p) => AnyQdisc::Taq(Box::new(TaqQueue::new(*p, rate))),
        }
    }

    /// Where the limit is in bytes: the key that sets it (under the queue's table) and the
    /// bytes.
    pub fn byte_limit(&self) -> Option<(&'static str, u64)> {
        let limit = match self {
            QueueSpec::DropTail(p) => p.limit,
            QueueSpec::Red(p) => p.limit,
            QueueSpec::Taq(p) => p.limit,
            QueueSpec::Cp(data, _) => return data.byte_limit().map(|(_, b)| ("data.limit", b)),
            QueueSpec::FqCodel(p) => return Some(("memory_limit", p.memory_limit_bytes)),
            QueueSpec::Sfq(_) => return None,
        };
        match limit {
            Size::Bytes(b) => Some(("limit", b)),
            Size::Packets(_) => None,
        }
    }

    pub fn kind(&self) -> &'static str {
        match self {
            QueueSpec::DropTail(_) => "droptail",
            QueueSpec::Red(_) => "red",
            QueueSpec::Sfq(_) => "sfq",
            QueueSpec::FqCodel(_) => "fq_codel",
            QueueSpec::Cp(..) => "cp",
            QueueSpec::Taq(_) => "taq",
        }
    }
}
