/*! The discrete-event engine: simulated time, the event queue, and the events themselves.

The engine knows nothing of TCP, queues or mechanisms. It orders [`Event`]s by
`(time, sequence number)`: two events at the same picosecond fire in the order they were
scheduled, so a run is a pure function of its scenario and seed.

Events are small plain enums that name *what* is due (a port finished serializing, the head of
a link's pipe arrived, an endpoint's timer) by index; packets never travel inside events. Each
busy link has at most one pending transmit event and one pending arrival event (htsim's
strength), so the queue's size scales with links and endpoints, not with packets in flight.
*/

mod queue;

pub use queue::EventQueue;

use crate::ids::{ConnId, EpId, HostId, PortId};

/// Something that is due at a given simulated time.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Event {
    /// The port finished serializing the packet it was transmitting.
    TxDone(PortId),
    /// The packet at the head of the port's pipe reached the far end of the link.
    Arrive(PortId),
    /// An endpoint asked to be woken (retransmission, delayed ACK, pacing, …).
    EndpointTimer(EpId),
    /// A host's shims asked to be woken (e.g. to release buffered packets).
    HostTimer(HostId),
    /// A connection's application starts (opens the connection and has data to send).
    ConnStart(ConnId),
    /// An application-level action of a workload, by workload-defined index (next object,
    /// next on-period, …).
    Workload { workload: u32, slot: u32 },
    /// Periodic measurement sampling, by sampler index.
    Sample(u32),
    /// A scheduled topology change (link failure or recovery), by index in the scenario.
    LinkChange(u32),
    /// A mechanism-defined timer at a port (epoch swaps, rate updates), by port.
    PortTimer(PortId),
}
