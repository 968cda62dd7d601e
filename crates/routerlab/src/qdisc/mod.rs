/*! Queue disciplines: what a port does with packets waiting for its link.

A qdisc is `enqueue(now, pkt) -> Verdict` and `dequeue(now) -> Option<pkt>`. A verdict says what
happened to the arriving packet and hands back any packet the qdisc let go of, with the cause
(Click's rule: a drop is routable, never silent), so the port can count it and free it:

- `Enqueued` — queued as is;
- `Dropped(pkt, cause)` — refused (tail drop, early drop, admission);
- `Cut(pkt, cause)` — its payload was cut off and the header queued;
- `PushedOut(victim, cause)` — queued, and an already-queued victim evicted to make room.

Dequeue may drop too (CoDel drops at the head); such drops are pushed into the `drops` vector
the caller passes, which the port drains and reuses.

Each qdisc keeps its parameters (`Params`, whose `Default` holds documented values), its
variables, and its counters ([`QdiscStats`]) apart, as Linux's `codel_params`/`codel_vars`/
`codel_stats` do. Qdiscs get randomness only from the generator they were built with.
*/

pub mod codel;
mod droptail;
mod fifo;
mod fq_codel;
mod red;
mod sfq;

pub use codel::CodelParams;
pub use droptail::{DropTail, DropTailParams};
pub use fq_codel::{FqCodel, FqCodelParams};
pub use red::{Red, RedParams};
pub use sfq::{Sfq, SfqParams};

use crate::ids::PacketId;
use crate::net::flow_epoch::FlowEpoch;
use crate::net::packet::{Packet, PacketPool};
use crate::units::SimTime;

/// Why a packet was dropped (or cut). Counted per queue, and per cause in the results.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[repr(u8)]
pub enum DropCause {
    /// The buffer was full (tail drop).
    Overflow = 0,
    /// An AQM chose to drop early (RED, CoDel).
    Early = 1,
    /// Evicted from the queue to admit another packet.
    PushedOut = 2,
    /// Refused by an admission stage before the queue.
    Admission = 3,
    /// Payload cut off on overflow (the header goes on).
    PayloadCut = 4,
    /// Payload cut off, and even the header found no room.
    HeaderOverflow = 5,
    /// Random loss on the link (an impairment, not congestion).
    LinkLoss = 6,
    /// The link was down.
    LinkDown = 7,
    /// No route to the destination.
    NoRoute = 8,
    /// The host's NIC queue was full.
    HostQueue = 9,
    /// DF set and the packet was too large for the link.
    FragmentationNeeded = 10,
    /// The queue was over its memory limit (FQ-CoDel's `memory_limit`; Linux's
    /// `drop_overmemory`), apart from `Overflow`, its packet limit.
    OverMemory = 11,
}

pub const DROP_CAUSES: usize = 12;

impl DropCause {
    pub const ALL: [DropCause; DROP_CAUSES] = [
        DropCause::Overflow,
        DropCause::Early,
        DropCause::PushedOut,
        DropCause::Admission,
        DropCause::PayloadCut,
        DropCause::HeaderOverflow,
        DropCause::LinkLoss,
        DropCause::LinkDown,
        DropCause::NoRoute,
        DropCause::HostQueue,
        DropCause::FragmentationNeeded,
        DropCause::OverMemory,
    ];

    /// Column-friendly name, used in the results (`drops_overflow`, …).
    pub fn name(self) -> &'static str {
        match self {
            DropCause::Overflow => "overflow",
            DropCause::Early => "early",
            DropCause::PushedOut => "pushed_out",
            DropCause::Admission => "admission",
            DropCause::PayloadCut => "payload_cut",
            DropCause::HeaderOverflow => "header_overflow",
            DropCause::LinkLoss => "link_loss",
            DropCause::LinkDown => "link_down",
            DropCause::NoRoute => "no_route",
            DropCause::HostQueue => "host_queue",
            DropCause::FragmentationNeeded => "frag_needed",
            DropCause::OverMemory => "over_memory",
        }
    }

    /// True if the packet itself is lost. A cut packet is not: its header travels on.
    pub fn loses_packet(self) -> bool {
        self != DropCause::PayloadCut
    }
}

/// The outcome of an enqueue.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Verdict {
    Enqueued,
    Dropped(PacketId, DropCause),
    Cut(PacketId, DropCause),
    PushedOut(PacketId, DropCause),
}

/// Counters every qdisc keeps; those every packet updates first (`repr(C)` keeps them
/// together).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
#[repr(C)]
pub struct QdiscStats {
    pub enqueued: u64,
    pub dequeued: u64,
    /// Largest occupancy seen, in packets and bytes.
    pub high_water_packets: u64,
    pub high_water_bytes: u64,
    pub drops: [u64; DROP_CAUSES],
    /// Packets marked CE instead of dropped.
    pub ecn_marks: u64,
}

impl QdiscStats {
    #[inline]
    pub fn count_drop(&mut self, cause: DropCause) {
        self.drops[cause as usize] += 1;
    }
    /// Packets lost for congestion at this queue (cuts excluded: the header still arrives).
    pub fn total_drops(&self) -> u64 {
        DropCause::ALL.iter().filter(|c| c.loses_packet()).map(|&c| self.drops[c as usize]).sum()
    }
    #[inline]
    pub fn note_occupancy(&mut self, packets: usize, bytes: u64) {
        self.high_water_packets = self.high_water_packets.max(packets as u64);
        self.high_water_bytes = self.high_water_bytes.max(bytes);
    }
    /// Count `packets` that went past the empty queue (see [`DropTail::passes_through_when_empty`]),
    /// the largest of `max_bytes`, as the queue would have: each enqueued into an empty queue
    /// and dequeued.
    pub fn count_passed_through(&mut self, packets: u64, max_bytes: u64) {
        if packets > 0 {
            self.enqueued += packets;
            self.dequeued += packets;
            self.note_occupancy(1, max_bytes);
        }
    }
}

/// Packets a queue discipline (or a port's stage) let go of besides the one its verdict
/// names, with why: filled by the discipline, drained by the port at once.
pub type DropList = Vec<(PacketId, DropCause)>;

/// The interface every queue discipline implements.
pub trait Qdisc {
    /// Offer an arriving packet. The verdict says what became of it; queued packets evicted
    /// beyond the one a `PushedOut` names (FQ-CoDel's batch drops) go into `drops`.
    fn enqueue(
        &mut self,
        now: SimTime,
        pkt: PacketId,
        pool: &mut PacketPool,
        drops: &mut Vec<(PacketId, DropCause)>,
    ) -> Verdict;
    /// Take the next packet to transmit; packets dropped on the way go into `drops`.
    fn dequeue(
        &mut self,
        now: SimTime,
        pool: &mut PacketPool,
        drops: &mut Vec<(PacketId, DropCause)>,
    ) -> Option<PacketId>;
    fn len_packets(&self) -> usize;
    fn len_bytes(&self) -> u64;
    /// The counters, as of now (a wrapper around another queue derives them from its inner
    /// queue's).
    fn stats(&self) -> QdiscStats;
    /// How many more full-sized packets the queue would accept now, if it can tell (used for a
    /// host's backpressure on its own sockets). None: no fixed room.
    fn room_packets(&self) -> Option<usize> {
        None
    }
    /// The queue's capacity in full-sized packets, if fixed.
    fn capacity_packets(&self) -> Option<usize> {
        None
    }
    /// Whether the discipline wants to see the reverse direction's traffic: the packets that
    /// arrive at this port's node over the same link, the other way (a middlebox sees both
    /// directions of the flows it serves).
    fn wants_reverse(&self) -> bool {
        false
    }
    /// A packet arrived at this port's node from the port's far end (only if `wants_reverse`).
    fn observe_reverse(&mut self, _now: SimTime, _pkt: &Packet) {}
    /// Named counters of the discipline's own, for the results' `stages` table (beside the
    /// drop counts every queue has in `stats`).
    fn counters(&self) -> Vec<(&'static str, u64)> {
        Vec::new()
    }
    /// Time during which the arrivals outran what the discipline is sized for (a payload-cutting
    /// queue's header buffer: the links table's `cp_overload_s`); zero for a discipline without
    /// such a size.
    fn overloaded(&self) -> SimTime {
        SimTime::ZERO
    }
    /// A stage before this queue refused `pkt` for `cause`: keep what of it the queue will
    /// (a queue that turns losses into something smaller, e.g. a header), true if it took the
    /// packet, which then waits in the queue; false leaves it to be dropped. Default: false.
    fn take_refused(
        &mut self,
        _now: SimTime,
        _pkt: PacketId,
        _cause: DropCause,
        _pool: &mut PacketPool,
    ) -> bool {
        false
    }
    /// Start logging flows' epochs for the results' `flow_epochs` table (before the run);
    /// false if this part does not classify flows.
    fn record_flow_epochs(&mut self) -> bool {
        false
    }

    /// The flows' epochs logged, each flow's closed up to `now`; None if none are logged.
    fn flow_epochs(&self, _now: SimTime) -> Option<Vec<FlowEpoch>> {
        None
    }
}
