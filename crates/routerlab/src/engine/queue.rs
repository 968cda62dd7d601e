//! The event queue: a calendar queue (Brown, CACM 1988) keyed on `(time, sequence)`, whose
//! cost per event does not grow with the number of pending events.
//!
//! The key is the time (picoseconds) and a monotonically increasing sequence number, so that
//! ties resolve in insertion order. Time is cut into buckets of `2^shift` picoseconds, and an
//! event goes to one of three places by its bucket `b`, relative to the current bucket `cur`:
//!
//! - `b <= cur`: the *hot* binary heap ([`super::heap`]), which holds the earliest events and
//!   is all that [`EventQueue::pop`] looks at;
//! - `cur < b < cur + BUCKETS`: an unsorted list per bucket (the *ring*), linked through a
//!   slab of entries, with a bitmap of non-empty buckets;
//! - further out (retransmission timers, samples): the *far* binary heap.
//!
//! When the hot heap runs dry, `cur` moves to the next non-empty bucket (a bitmap scan), the far
//! entries that are now within reach move to the ring, and that bucket's list moves to the hot
//! heap. Each event is thus pushed onto a short list, moved once, and popped from a heap of a
//! few entries. The bucket width adapts to the event density, to about one event in eight
//! buckets: most buckets then hold one event or one group due at the same instant, so the
//! hot heap seldom has to order anything, and the branches that ask "is this bucket done?"
//! and "which entry is next?" are seldom mispredicted.
//! The width changes the speed, never the order, which is always that of the keys. Nothing is
//! allocated in the steady state: the slab, the heaps and the lists keep their capacity.

use super::Event;
use super::heap::{Entry, MinHeap};
use crate::units::SimTime;

/// Buckets in the ring. At the aimed-for density the ring reaches about 8000 mean event spacings
/// ahead: past a fat-tree's link delays, not always past a WAN link's, whose arrivals then
/// wait in the far heap (one per busy link: see `net::port`); measured, no slower for it.
const BUCKETS: usize = 1 << 16;
const WORDS: usize = BUCKETS / 64;
/// No next entry in a bucket's list.
const NIL: u32 = u32::MAX;
/// Pops between two checks of the bucket width.
const ADAPT_EVERY: u32 = 8192;
/// Aimed-for events per bucket, and the band outside which the width changes. Measured: from 2
/// (near Brown's rule) to 1/8, the k = 8 fat-tree runs 10–14 % faster, the dumbbells 2–3 %.
const TARGET_DENSITY: f64 = 0.125;
const DENSITY_BAND: (f64, f64) = (TARGET_DENSITY / 8.0, TARGET_DENSITY * 4.0);
/// Bucket widths from 256 ps to about 18 simulated seconds.
const SHIFT_RANGE: (u32, u32) = (8, 44);
const INITIAL_SHIFT: u32 = 20; // ≈ 1 µs

/// A ring entry: an event and the next entry of its bucket's list.
#[derive(Clone, Copy, Debug)]
struct Slot {
    entry: Entry,
    next: u32,
}

#[derive(Debug)]
pub struct EventQueue {
    /// Every entry whose bucket is at or before `cur`; its top is the earliest event.
    hot: MinHeap,
    /// Per ring position, the first slot of its list (or `NIL`).
    heads: Vec<u32>,
    /// One bit per ring position: its list is non-empty.
    occupied: Vec<u64>,
    slab: Vec<Slot>,
    free: Vec<u32>,
    /// Entries in the ring.
    in_ring: usize,
    /// Entries at or beyond `cur + BUCKETS`.
    far: MinHeap,
    /// Bucket width is `2^shift` picoseconds.
    shift: u32,
    /// The current bucket (absolute: time >> shift).
    cur: u64,
    seq: u64,
    /// Time of the last popped event, and the width check's window.
    last_time: u64,
    window_pops: u32,
    window_start: u64,
    adapt_every: u32,
    /// Reused by a width change.
    scratch: Vec<Entry>,
}

impl Default for EventQueue {
    fn default() -> EventQueue {
        EventQueue::new()
    }
}

impl EventQueue {
    pub fn new() -> EventQueue {
        EventQueue::with_width(INITIAL_SHIFT, ADAPT_EVERY)
    }

    fn with_width(shift: u32, adapt_every: u32) -> EventQueue {
        EventQueue {
            hot: MinHeap::with_capacity(64),
            heads: vec![NIL; BUCKETS],
            occupied: vec![0; WORDS],
            slab: Vec::with_capacity(1024),
            free: Vec::with_capacity(1024),
            in_ring: 0,
            far: MinHeap::with_capacity(1024),
            shift,
            cur: 0,
            seq: 0,
            last_time: 0,
            window_pops: 0,
            window_start: 0,
            adapt_every,
            scratch: Vec::new(),
        }
    }

    pub fn len(&self) -> usize {
        self.hot.len() + self.in_ring + self.far.len()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Schedule `event` at `at`.
    #[inline]
    pub fn push(&mut self, at: SimTime, event: Event) {
        let e = Entry { time: at.0, seq: self.seq, event };
        self.seq += 1;
        self.place(e);
    }

    #[inline(always)]
    fn place(&mut self, e: Entry) {
        let b = e.time >> self.shift;
        if b <= self.cur {
            self.hot.push(e);
        } else if b - self.cur < BUCKETS as u64 {
            self.link(b, e);
        } else {
            self.far.push(e);
        }
    }

    /// Add `e` to the list of bucket `b` (within the ring).
    #[inline(always)]
    fn link(&mut self, b: u64, e: Entry) {
        let pos = b as usize & (BUCKETS - 1);
        let slot = Slot { entry: e, next: self.heads[pos] };
        let i = match self.free.pop() {
            Some(i) => {
                self.slab[i as usize] = slot;
                i
            }
            None => {
                self.slab.push(slot);
                (self.slab.len() - 1) as u32
            }
        };
        self.heads[pos] = i;
        self.occupied[pos / 64] |= 1 << (pos % 64);
        self.in_ring += 1;
    }

    /// The earliest event and its time, if any.
    #[inline]
    pub fn peek(&mut self) -> Option<(SimTime, &Event)> {
        if self.hot.is_empty() {
            self.advance();
        }
        self.hot.peek().map(|e| (SimTime(e.time), &e.event))
    }

    /// Remove and return the earliest event.
    #[inline]
    pub fn pop(&mut self) -> Option<(SimTime, Event)> {
        if self.hot.is_empty() {
            self.advance();
        }
        let e = self.hot.pop()?;
        self.last_time = e.time;
        self.window_pops += 1;
        if self.window_pops == self.adapt_every {
            self.adapt_width();
        }
        Some((SimTime(e.time), e.event))
    }

    /// With the hot heap empty, move `cur` to the earliest non-empty bucket and fill the hot
    /// heap from it.
    fn advance(&mut self) {
        let next = if self.in_ring > 0 {
            self.cur + self.distance_to_next_occupied()
        } else if let Some(e) = self.far.peek() {
            e.time >> self.shift
        } else {
            return;
        };
        self.cur = next;
        // Far entries now within the ring's reach.
        while let Some(e) = self.far.peek() {
            let b = e.time >> self.shift;
            if b - self.cur >= BUCKETS as u64 {
                break;
            }
            let e = self.far.pop().unwrap();
            if b == self.cur { self.hot.push(e) } else { self.link(b, e) }
        }
        let pos = self.cur as usize & (BUCKETS - 1);
        let mut i = std::mem::replace(&mut self.heads[pos], NIL);
        self.occupied[pos / 64] &= !(1 << (pos % 64));
        while i != NIL {
            let slot = self.slab[i as usize];
            self.hot.push(slot.entry);
            self.free.push(i);
            self.in_ring -= 1;
            i = slot.next;
        }
    }

    /// Buckets from `cur` to the next occupied ring position (the ring is not empty).
    fn distance_to_next_occupied(&self) -> u64 {
        let start = (self.cur as usize + 1) & (BUCKETS - 1);
        let (mut word, bit) = (start / 64, start % 64);
        let mut bits = self.occupied[word] & (!0u64 << bit);
        let mut scanned = 0;
        while bits == 0 {
            word = (word + 1) % WORDS;
            bits = self.occupied[word];
            scanned += 1;
            debug_assert!(scanned <= WORDS, "ring marked non-empty but no bit set");
        }
        let pos = word * 64 + bits.trailing_zeros() as usize;
        let delta = (pos + BUCKETS - (self.cur as usize & (BUCKETS - 1))) % BUCKETS;
        delta as u64
    }

    /// Every `ADAPT_EVERY` pops, retune the width if the events per bucket left the band.
    fn adapt_width(&mut self) {
        let elapsed = self.last_time - self.window_start;
        let density = if elapsed == 0 {
            f64::INFINITY
        } else {
            self.window_pops as f64 * (1u64 << self.shift) as f64 / elapsed as f64
        };
        self.window_pops = 0;
        self.window_start = self.last_time;
        if density >= DENSITY_BAND.0 && density <= DENSITY_BAND.1 {
            return;
        }
        let width = TARGET_DENSITY * elapsed as f64 / self.adapt_every as f64;
        let shift = (width.max(1.0).log2().round() as u32).clamp(SHIFT_RANGE.0, SHIFT_RANGE.1);
        if shift != self.shift {
            self.rebuild(shift);
        }
    }

    /// Re-place every entry with a new bucket width.
    fn rebuild(&mut self, shift: u32) {
        let mut all = std::mem::take(&mut self.scratch);
        all.extend(self.hot.drain());
        all.extend(self.far.drain());
        for pos in 0..BUCKETS {
            let mut i = std::mem::replace(&mut self.heads[pos], NIL);
            while i != NIL {
                let slot = self.slab[i as usize];
                all.push(slot.entry);
                i = slot.next;
            }
        }
        self.occupied.fill(0);
        self.slab.clear();
        self.free.clear();
        self.in_ring = 0;
        self.shift = shift;
        self.cur = self.last_time >> shift;
        for e in all.drain(..) {
            self.place(e);
        }
        self.scratch = all;
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

    #[test]
    fn width_follows_the_event_density() {
        // One event every 100 ns: the width settles near TARGET_DENSITY events per bucket
        // (1/8 of 100 ns = 12.5 ns ≈ 2^14 ps), from its initial 2^20 ps.
        let expected = (TARGET_DENSITY * 100_000.0).log2().round() as u32;
        assert_ne!(expected, INITIAL_SHIFT);
        let mut q = EventQueue::new();
        let mut t = 0;
        for i in 0..100_000u32 {
            q.push(SimTime(t + 1_000_000), Event::Sample(i));
            t += 100_000;
            q.pop();
        }
        assert!((expected - 1..=expected + 1).contains(&q.shift), "shift {} for {expected}", q.shift);
    }

    proptest! {
        /// The order is that of (time, insertion) whatever the width, the spread of times, and
        /// the width changes, the interleaving of pushes (never before the last popped time) and pops.
        #[test]
        fn pops_in_time_then_insertion_order(
            shift in 8u32..30,
            adapt_every in prop::sample::select(vec![7u32, 64, ADAPT_EVERY]),
            scale in prop::sample::select(vec![1u64, 1_000, 1 << 20, 1 << 40]),
            ops in proptest::collection::vec((0u64..5000, 0u8..3), 0..3000),
        ) {
            let mut q = EventQueue::with_width(shift, adapt_every);
            let mut reference = std::collections::BTreeSet::new();
            let mut now = 0u64;
            let mut got = Vec::new();
            let mut expected = Vec::new();
            for (i, &(dt, op)) in ops.iter().enumerate() {
                if op == 0 && !reference.is_empty() {
                    let (t, e) = q.pop().unwrap();
                    let Event::Sample(id) = e else { unreachable!() };
                    got.push((t.0, id));
                    let first = *reference.iter().next().unwrap();
                    reference.remove(&first);
                    let (rt, _, rid) = first;
                    expected.push((rt, rid));
                    now = t.0;
                } else {
                    let t = now + dt * scale;
                    q.push(SimTime(t), Event::Sample(i as u32));
                    reference.insert((t, i, i as u32));
                }
                prop_assert_eq!(q.len(), reference.len());
            }
            while let Some((t, e)) = q.pop() {
                let Event::Sample(id) = e else { unreachable!() };
                got.push((t.0, id));
            }
            expected.extend(reference.iter().map(|&(t, _, id)| (t, id)));
            prop_assert_eq!(got, expected);
        }
    }
}
