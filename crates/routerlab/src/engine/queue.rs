//! The event queue: two binary min-heaps keyed on `(time, sequence)`, one for packet events
//! (a port's transmitter and pipe) and one for everything else (endpoint timers, workloads,
//! samples), popped in the order of their merged keys.
//!
//! The key packs the time (picoseconds, high 64 bits) and a monotonically increasing sequence
//! number (low 64 bits, shared by both heaps) into one `u128`, so that a comparison is a
//! single integer compare and ties resolve in insertion order — across the two heaps as
//! within one: the split changes nothing in the order of events. It keeps the heap that is
//! touched on every packet free of the timers, which are many (one per endpoint) and rarely
//! due: with 1000 flows that is about half the entries, one level less to sift per packet
//! event. Entries are 32 bytes; the heaps never shrink, so a steady-state run allocates
//! nothing.

use std::collections::BinaryHeap;

use super::Event;
use crate::units::SimTime;

#[derive(Clone, Copy, Debug)]
struct Entry {
    key: u128,
    event: Event,
}

// `BinaryHeap` is a max-heap: the earliest key must compare greatest.
impl PartialEq for Entry {
    fn eq(&self, other: &Entry) -> bool {
        self.key == other.key
    }
}
impl Eq for Entry {}
impl PartialOrd for Entry {
    fn partial_cmp(&self, other: &Entry) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}
impl Ord for Entry {
    #[inline]
    fn cmp(&self, other: &Entry) -> std::cmp::Ordering {
        other.key.cmp(&self.key)
    }
}

/// The standard library's binary heap does the sifting: holes instead of swaps, and a pop
/// that moves the hole to the bottom before sifting the last entry up (the last entry
/// almost always belongs near the bottom), without bounds checks.
#[derive(Default, Debug)]
pub struct EventQueue {
    /// `TxDone` and `Arrive`: at most two per port.
    packets: BinaryHeap<Entry>,
    /// Every other event.
    timers: BinaryHeap<Entry>,
    seq: u64,
}

impl EventQueue {
    pub fn new() -> EventQueue {
        EventQueue {
            packets: BinaryHeap::with_capacity(1024),
            timers: BinaryHeap::with_capacity(1024),
            seq: 0,
        }
    }

    pub fn len(&self) -> usize {
        self.packets.len() + self.timers.len()
    }

    pub fn is_empty(&self) -> bool {
        self.packets.is_empty() && self.timers.is_empty()
    }

    /// The earliest entry of the two heaps.
    #[inline]
    fn first(&self) -> Option<&Entry> {
        match (self.packets.peek(), self.timers.peek()) {
            (Some(a), Some(b)) => Some(if a.key < b.key { a } else { b }),
            (a, b) => a.or(b),
        }
    }

    /// Schedule `event` at `at`.
    #[inline]
    pub fn push(&mut self, at: SimTime, event: Event) {
        let e = Entry { key: ((at.0 as u128) << 64) | self.seq as u128, event };
        match event {
            Event::TxDone(_) | Event::Arrive(..) => self.packets.push(e),
            _ => self.timers.push(e),
        }
        self.seq += 1;
    }

    /// Time of the earliest event, if any.
    #[inline]
    pub fn peek_time(&self) -> Option<SimTime> {
        self.first().map(|e| SimTime((e.key >> 64) as u64))
    }

    /// The earliest event and its time, if any.
    #[inline]
    pub fn peek(&self) -> Option<(SimTime, &Event)> {
        self.first().map(|e| (SimTime((e.key >> 64) as u64), &e.event))
    }

    /// Remove and return the earliest event.
    #[inline]
    pub fn pop(&mut self) -> Option<(SimTime, Event)> {
        let from_timers = match (self.packets.peek(), self.timers.peek()) {
            (Some(a), Some(b)) => b.key < a.key,
            (None, _) => true,
            _ => false,
        };
        let e = if from_timers { self.timers.pop() } else { self.packets.pop() };
        e.map(|e| (SimTime((e.key >> 64) as u64), e.event))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ids::PortId;
    use proptest::prelude::*;

    #[test]
    fn ties_fire_in_insertion_order() {
        let mut q = EventQueue::new();
        q.push(SimTime(5), Event::TxDone(PortId(1)));
        q.push(SimTime(5), Event::TxDone(PortId(2)));
        q.push(SimTime(3), Event::TxDone(PortId(3)));
        q.push(SimTime(5), Event::TxDone(PortId(4)));
        let order: Vec<_> = std::iter::from_fn(|| q.pop()).collect();
        assert_eq!(
            order,
            vec![
                (SimTime(3), Event::TxDone(PortId(3))),
                (SimTime(5), Event::TxDone(PortId(1))),
                (SimTime(5), Event::TxDone(PortId(2))),
                (SimTime(5), Event::TxDone(PortId(4))),
            ]
        );
    }

    proptest! {
        #[test]
        fn pops_in_time_then_insertion_order(times in proptest::collection::vec(0u64..50, 0..200)) {
            let mut q = EventQueue::new();
            // Even indices are packet events, odd ones timers: the two heaps interleave.
            for (i, &t) in times.iter().enumerate() {
                let ev = if i % 2 == 0 { Event::TxDone(PortId(i as u32)) } else { Event::Sample(i as u32) };
                q.push(SimTime(t), ev);
            }
            let mut expected: Vec<(u64, u32)> = times.iter().enumerate().map(|(i, &t)| (t, i as u32)).collect();
            expected.sort();
            let got: Vec<(u64, u32)> = std::iter::from_fn(|| q.pop())
                .map(|(t, e)| match e {
                    Event::TxDone(PortId(i)) | Event::Sample(i) => (t.0, i),
                    _ => unreachable!(),
                })
                .collect();
            prop_assert_eq!(got, expected);
        }
    }
}
