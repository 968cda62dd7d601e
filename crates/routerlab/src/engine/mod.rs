/*! The discrete-event engine: simulated time, the event queue, and the events themselves.

The engine knows nothing of TCP, queues or mechanisms. It orders [`Event`]s by
`(time, sequence number)`: two events at the same picosecond fire in the order they were
scheduled, so a run is a pure function of its scenario and seed.

Events are small plain enums that name *what* is due (a port finished serializing, the head of
a link's pipe arrived, an endpoint's timer) by index; packets never travel inside events. Each
busy link has at most one pending transmit event and one pending arrival event (htsim's
strength), so the queue's size scales with links and endpoints, not with packets in flight.
*/

mod heap;
mod queue;

pub use queue::EventQueue;

use crate::ids::{ConnId, EpId, HostId, PacketId, PortId};

/// Ask the CPU to start loading `*r` into cache (its first [`PREFETCH_BYTES`] at most); a hint
/// with no effect on results. The event loop calls it for the state the next event will touch
/// (its port, its packet) while the current event runs, hiding the cache misses of large
/// simulations.
#[inline(always)]
pub fn prefetch<T>(r: &T) {
    prefetch_first(r, PREFETCH_BYTES);
}

/// Like [`prefetch`], for the first `bytes` of `*r` (for objects whose hot fields are laid out
/// first and whose callers know how far they read).
#[inline(always)]
pub fn prefetch_first<T>(r: &T, bytes: usize) {
    let start = (r as *const T).cast::<i8>();
    let len = std::mem::size_of::<T>().min(bytes);
    if std::mem::align_of::<T>() >= 64 {
        // A line-aligned object (a port): its lines are known at compile time, a few
        // prefetch instructions in a row.
        let mut offset = 0;
        while offset < len {
            prefetch_line(start.wrapping_add(offset));
            offset += 64;
        }
        return;
    }
    // Every cache line the first `len` bytes touch, wherever the object starts: from the
    // start of its first line (at most 63 bytes before it) in steps of a line, each address
    // kept inside the object (the analysis build reads it).
    let before = start as usize & 63;
    let mut offset = 0;
    while offset < before + len {
        prefetch_line(start.wrapping_sub(before).wrapping_add(offset).max(start));
        offset += 64;
    }
}

/// Bytes of an object [`prefetch`] loads: the hot fields come first in the structs it is used
/// on (packets, ports).
pub const PREFETCH_BYTES: usize = 192;

#[inline(always)]
fn prefetch_line(p: *const i8) {
    #[cfg(all(target_arch = "x86_64", not(routerlab_prefetch_as_load)))]
    // SAFETY: a prefetch never faults and has no architectural effect, whatever the address.
    #[allow(unused_unsafe)]
    unsafe {
        use std::arch::x86_64::{_MM_HINT_T0, _mm_prefetch};
        _mm_prefetch::<_MM_HINT_T0>(p);
    }
    // Analysis builds: a real load instead, so that cachegrind (which ignores prefetch
    // instructions) charges the misses a prefetch takes to the prefetch, and what it reports
    // elsewhere is what prefetching leaves (docs/performance.md).
    #[cfg(routerlab_prefetch_as_load)]
    // SAFETY: `p` is inside the object being prefetched (see `prefetch`).
    // (The value must be used: valgrind drops loads whose result is dead.)
    unsafe {
        std::hint::black_box(std::ptr::read_volatile(p));
    }
    #[cfg(not(any(target_arch = "x86_64", routerlab_prefetch_as_load)))]
    let _ = p;
}

/// Something that is due at a given simulated time.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Event {
    /// The port finished serializing the packet it was transmitting.
    TxDone(PortId),
    /// The packet at the head of the port's pipe reached the far end of the link. The packet
    /// and its destination host are named so that the loop can prefetch the packet, and at a
    /// switch the port it will leave by, while the event before it runs.
    Arrive(PortId, PacketId, HostId),
    /// An endpoint asked to be woken (retransmission, delayed ACK, pacing, …).
    EndpointTimer(EpId),
    /// A host's shims asked to be woken (e.g. to release buffered packets).
    HostTimer(HostId),
    /// A connection's application starts (opens the connection and has data to send).
    ConnStart(ConnId),
    /// A bulk connection's application stops writing (it closes once what it sent is through).
    ConnStop(ConnId),
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
