//! The event queue: a binary min-heap keyed on `(time, sequence)`.
//!
//! The key packs the time (picoseconds, high 64 bits) and a monotonically increasing sequence
//! number (low 64 bits) into one `u128`, so that a comparison is a single integer compare and
//! ties resolve in insertion order. Entries are 32 bytes; the heap never shrinks, so a
//! steady-state run allocates nothing.

use super::Event;
use crate::units::SimTime;

#[derive(Clone, Copy, Debug)]
struct Entry {
    key: u128,
    event: Event,
}

#[derive(Default, Debug)]
pub struct EventQueue {
    heap: Vec<Entry>,
    seq: u64,
}

impl EventQueue {
    pub fn new() -> EventQueue {
        EventQueue { heap: Vec::with_capacity(1024), seq: 0 }
    }

    pub fn len(&self) -> usize {
        self.heap.len()
    }

    pub fn is_empty(&self) -> bool {
        self.heap.is_empty()
    }

    /// Schedule `event` at `at`.
    #[inline]
    pub fn push(&mut self, at: SimTime, event: Event) {
        let key = ((at.0 as u128) << 64) | self.seq as u128;
        self.seq += 1;
        self.heap.push(Entry { key, event });
        self.sift_up(self.heap.len() - 1);
    }

    /// Time of the earliest event, if any.
    #[inline]
    pub fn peek_time(&self) -> Option<SimTime> {
        self.heap.first().map(|e| SimTime((e.key >> 64) as u64))
    }

    /// The earliest event and its time, if any.
    #[inline]
    pub fn peek(&self) -> Option<(SimTime, &Event)> {
        self.heap.first().map(|e| (SimTime((e.key >> 64) as u64), &e.event))
    }

    /// Remove and return the earliest event.
    #[inline]
    pub fn pop(&mut self) -> Option<(SimTime, Event)> {
        let last = self.heap.pop()?;
        let top = if self.heap.is_empty() {
            last
        } else {
            let top = std::mem::replace(&mut self.heap[0], last);
            self.sift_down(0);
            top
        };
        Some((SimTime((top.key >> 64) as u64), top.event))
    }

    #[inline]
    fn sift_up(&mut self, mut i: usize) {
        let item = self.heap[i];
        while i > 0 {
            let parent = (i - 1) / 2;
            if self.heap[parent].key <= item.key {
                break;
            }
            self.heap[i] = self.heap[parent];
            i = parent;
        }
        self.heap[i] = item;
    }

    #[inline]
    fn sift_down(&mut self, mut i: usize) {
        let n = self.heap.len();
        let item = self.heap[i];
        loop {
            let left = 2 * i + 1;
            if left >= n {
                break;
            }
            let right = left + 1;
            let child = if right < n && self.heap[right].key < self.heap[left].key { right } else { left };
            if self.heap[child].key >= item.key {
                break;
            }
            self.heap[i] = self.heap[child];
            i = child;
        }
        self.heap[i] = item;
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
            for (i, &t) in times.iter().enumerate() {
                q.push(SimTime(t), Event::Sample(i as u32));
            }
            let mut expected: Vec<(u64, u32)> = times.iter().enumerate().map(|(i, &t)| (t, i as u32)).collect();
            expected.sort();
            let got: Vec<(u64, u32)> = std::iter::from_fn(|| q.pop())
                .map(|(t, e)| match e { Event::Sample(i) => (t.0, i), _ => unreachable!() })
                .collect();
            prop_assert_eq!(got, expected);
        }
    }
}
