//! Where the event loop's time goes, by kind of event: an analysis build only
//! (`RUSTFLAGS="--cfg routerlab_event_cycles"`), never part of a normal one.
//!
//! The loop reads the time-stamp counter around each event, and a delivery at a host around
//! its parts (before the socket, the socket taking the segment, what follows, the socket's
//! answer), apart for data segments and segments without payload (ACKs). The counter is not
//! serializing: a load still in flight when it is read is charged to the part after, so the
//! parts' edges blur while the totals per kind hold. Reading it costs some tens of cycles per
//! event, so compare such builds with each other only (docs/performance.md, "Time per kind of
//! event").

use std::fmt::Write;

#[cfg(not(target_arch = "x86_64"))]
compile_error!("routerlab_event_cycles reads the x86-64 time-stamp counter");

/// Kinds of event, then the parts of a delivery at a host.
const NAMES: [&str; 13] = [
    "arrival at a host",
    "arrival at a switch",
    "transmitter done",
    "endpoint timer",
    "other events",
    "data: before the socket",
    "data: the socket",
    "data: after it",
    "data: the answer",
    "ACK: before the socket",
    "ACK: the socket",
    "ACK: after it",
    "ACK: the answer",
];
pub const ARRIVAL_AT_HOST: usize = 0;
pub const ARRIVAL_AT_SWITCH: usize = 1;
pub const TX_DONE: usize = 2;
pub const ENDPOINT_TIMER: usize = 3;
pub const OTHER: usize = 4;
/// The first of a delivery's four parts, for a data segment and for an ACK (no payload).
pub const DATA_PARTS: usize = 5;
pub const ACK_PARTS: usize = 9;

/// Cycles and counts per entry of [`NAMES`], and the queue's share (pop and prefetch).
#[derive(Clone, Debug, Default)]
pub struct EventCycles {
    cycles: [u64; NAMES.len()],
    counts: [u64; NAMES.len()],
    queue: u64,
}

/// The time-stamp counter.
#[inline(always)]
pub fn now() -> u64 {
    // SAFETY: `rdtsc` has no preconditions on x86-64.
    unsafe { std::arch::x86_64::_rdtsc() }
}

impl EventCycles {
    /// An event of `kind` popped at `popped`, dispatched from `dispatched` to `done`.
    #[inline(always)]
    pub fn event(&mut self, kind: usize, popped: u64, dispatched: u64, done: u64) {
        self.queue += dispatched - popped;
        self.cycles[kind] += done - dispatched;
        self.counts[kind] += 1;
    }

    /// A delivery's parts between five stamps, from `first` (`DATA_PARTS` or `ACK_PARTS`).
    #[inline(always)]
    pub fn delivery(&mut self, first: usize, stamps: [u64; 5]) {
        for i in 0..4 {
            self.cycles[first + i] += stamps[i + 1] - stamps[i];
            self.counts[first + i] += 1;
        }
    }

    /// A table: cycles per event of each kind, and per packet-hop.
    pub fn report(&self, packet_hops: u64) -> String {
        let hops = packet_hops.max(1) as f64;
        let mut out = format!("{:<24} {:>10} {:>12} {:>10}\n", "", "events", "cycles/event", "cycles/hop");
        for (i, name) in NAMES.iter().enumerate() {
            let per_event = self.cycles[i] as f64 / self.counts[i].max(1) as f64;
            let (count, per_hop) = (self.counts[i], self.cycles[i] as f64 / hops);
            let _ = writeln!(out, "{name:<24} {count:>10} {per_event:>12.1} {per_hop:>10.1}");
        }
        // The kinds of event and the queue's share; a delivery's parts are inside the first.
        let total = self.cycles[..DATA_PARTS].iter().sum::<u64>() + self.queue;
        for (name, cycles) in [("queue and prefetch", self.queue), ("all", total)] {
            let _ = writeln!(out, "{name:<24} {:>10} {:>12} {:>10.1}", "", "", cycles as f64 / hops);
        }
        out
    }
}
