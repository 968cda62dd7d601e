//! A binary min-heap of event-queue entries, ordered by `(time, sequence)`.
//!
//! `std::collections::BinaryHeap` would do the same job, but its sift keeps the moving element
//! in a stack slot written as 8-byte words and read back as 16-byte vectors, a failed
//! store-to-load forward on every pop. Here elements
//! only ever move whole (swaps), and the heap is a plain vector.

use super::Event;

/// An event and its key: the time it is due (picoseconds) and its insertion number, which
/// orders events due at the same time.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Entry {
    pub time: u64,
    pub seq: u64,
    pub event: Event,
}

impl Entry {
    /// Due before `other`.
    #[inline(always)]
    fn before(&self, other: &Entry) -> bool {
        (self.time, self.seq) < (other.time, other.seq)
    }
}

#[derive(Debug, Default)]
pub(super) struct MinHeap {
    v: Vec<Entry>,
}

impl MinHeap {
    pub fn with_capacity(n: usize) -> MinHeap {
        MinHeap { v: Vec::with_capacity(n) }
    }

    #[inline]
    pub fn len(&self) -> usize {
        self.v.len()
    }

    #[inline]
    pub fn is_empty(&self) -> bool {
        self.v.is_empty()
    }

    /// The earliest entry.
    #[inline]
    pub fn peek(&self) -> Option<&Entry> {
        self.v.first()
    }

    #[inline]
    pub fn push(&mut self, e: Entry) {
        let mut i = self.v.len();
        self.v.push(e);
        while i > 0 {
            let parent = (i - 1) / 2;
            if !self.v[i].before(&self.v[parent]) {
                break;
            }
            self.v.swap(i, parent);
            i = parent;
        }
    }

    /// Remove and return the earliest entry.
    #[inline]
    pub fn pop(&mut self) -> Option<Entry> {
        let last = self.v.pop()?;
        if self.v.is_empty() {
            return Some(last);
        }
        let top = std::mem::replace(&mut self.v[0], last);
        let n = self.v.len();
        let mut i = 0;
        loop {
            let left = 2 * i + 1;
            if left >= n {
                break;
            }
            let right = left + 1;
            let child = if right < n && self.v[right].before(&self.v[left]) { right } else { left };
            if !self.v[child].before(&self.v[i]) {
                break;
            }
            self.v.swap(i, child);
            i = child;
        }
        Some(top)
    }

    /// Every entry, in no particular order; the heap is left empty.
    pub fn drain(&mut self) -> std::vec::Drain<'_, Entry> {
        self.v.drain(..)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        /// Pops come out in (time, seq) order, whatever the interleaving of pushes and pops.
        #[test]
        fn pops_in_key_order(ops in proptest::collection::vec((0u64..50, any::<bool>()), 0..500)) {
            let mut heap = MinHeap::default();
            let mut reference = std::collections::BTreeSet::new();
            for (seq, &(time, pop)) in ops.iter().enumerate() {
                if pop {
                    let got = heap.pop().map(|e| (e.time, e.seq));
                    let want = reference.pop_first();
                    prop_assert_eq!(got, want);
                } else {
                    heap.push(Entry { time, seq: seq as u64, event: Event::Sample(0) });
                    reference.insert((time, seq as u64));
                }
                prop_assert_eq!(heap.len(), reference.len());
                prop_assert_eq!(heap.peek().map(|e| (e.time, e.seq)), reference.first().copied());
            }
        }
    }
}
