//! A FIFO of packets that counts its bytes: the queue inside drop-tail and RED.
//!
//! It stamps each packet's enqueue time (for sojourn times) and, when the head leaves,
//! prefetches the next head: that one leaves one transmission time later, long enough to load
//! it, and a packet that waited behind a hundred others has left the cache.
//!
//! The head is kept inline, the rest in a ring: most ports (a host's NIC, a switch's port to
//! one host) hold at most one packet at a time, and then never touch the ring's memory, which
//! with a thousand such ports has left the cache between two of a port's packets.

use std::collections::VecDeque;

use crate::ids::PacketId;
use crate::net::packet::PacketPool;
use crate::units::{SimTime, Size};

/// Its ring starts empty and doubles as the queue first grows (a few times per port in a
/// whole run, never per packet). Reserving the queue's limit up front cost 4 KB per
/// 1000-packet port, most of it never used, and a ring spanning many lines and pages sent each
/// visit of a lightly used port (a host's NIC) to a line and a page last touched a thousand
/// packets before.
#[derive(Debug, Default)]
pub struct PacketFifo {
    /// The oldest packet; `None` only when the FIFO is empty.
    head: Option<PacketId>,
    /// Those behind the head, oldest first.
    rest: VecDeque<PacketId>,
    bytes: u64,
}

impl PacketFifo {
    pub fn len(&self) -> usize {
        self.head.is_some() as usize + self.rest.len()
    }
    pub fn is_empty(&self) -> bool {
        self.head.is_none()
    }
    pub fn bytes(&self) -> u64 {
        self.bytes
    }

    /// The length in the unit of `size` (packets or bytes).
    pub fn amount(&self, size: Size) -> u64 {
        match size {
            Size::Packets(_) => self.len() as u64,
            Size::Bytes(_) => self.bytes,
        }
    }

    /// Is the FIFO at or above `size`?
    pub fn at_or_above(&self, size: Size) -> bool {
        match size {
            Size::Packets(n) => self.len() as u64 >= n,
            Size::Bytes(b) => self.bytes >= b,
        }
    }

    /// Would one more packet of `len` bytes make the FIFO exceed `limit`?
    pub fn would_exceed(&self, limit: Size, len: u64) -> bool {
        limit.exceeded_by(self.len(), self.bytes, len)
    }

    /// Packets of 1500 bytes that still fit under `limit`.
    pub fn room_packets(&self, limit: Size) -> usize {
        limit.room_packets(self.len(), self.bytes)
    }

    /// Append `pkt`, stamping its enqueue time. Returns the occupancy after, in packets and
    /// bytes, from registers: reading it back from the fields just stored, the compiler loads
    /// both in one wide word that the two narrower stores cannot forward to, and waits for
    /// them to reach the cache.
    #[inline]
    pub fn push(&mut self, now: SimTime, pkt: PacketId, pool: &mut PacketPool) -> (usize, u64) {
        let p = pool.get_mut(pkt);
        p.meta.enqueued_at = now;
        let bytes = self.bytes + p.ip_len() as u64;
        self.bytes = bytes;
        if self.head.is_none() {
            self.head = Some(pkt);
            return (1, bytes);
        }
        self.rest.push_back(pkt);
        (1 + self.rest.len(), bytes)
    }

    /// Take the head, and prefetch what its transmission reads of the next one.
    #[inline]
    pub fn pop(&mut self, pool: &PacketPool) -> Option<PacketId> {
        let pkt = self.head?;
        self.bytes -= pool.get(pkt).ip_len() as u64;
        self.head = self.rest.pop_front();
        if let Some(next) = self.head {
            pool.prefetch(next, false);
        }
        Some(pkt)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::net::packet::Packet;
    use proptest::prelude::*;

    proptest! {
        /// Pushes and pops in any interleaving give the order, length and bytes of a plain
        /// queue, whether the head is inline or the ring holds the rest.
        #[test]
        fn behaves_as_a_plain_queue(ops in proptest::collection::vec(any::<Option<u16>>(), 0..200)) {
            let mut pool = PacketPool::new();
            let mut fifo = PacketFifo::default();
            let mut reference = VecDeque::new();
            for (i, op) in ops.into_iter().enumerate() {
                match op {
                    Some(len) => {
                        let mut p = Packet::default();
                        p.ip.total_len = len;
                        let id = pool.alloc(p);
                        let after = fifo.push(SimTime(i as u64), id, &mut pool);
                        reference.push_back((id, len as u64));
                        let bytes: u64 = reference.iter().map(|&(_, l)| l).sum();
                        prop_assert_eq!(after, (reference.len(), bytes));
                        prop_assert_eq!(pool.get(id).meta.enqueued_at, SimTime(i as u64));
                    }
                    None => prop_assert_eq!(fifo.pop(&pool), reference.pop_front().map(|(id, _)| id)),
                }
                prop_assert_eq!(fifo.len(), reference.len());
                prop_assert_eq!(fifo.is_empty(), reference.is_empty());
                prop_assert_eq!(fifo.bytes(), reference.iter().map(|&(_, l)| l).sum::<u64>());
            }
        }
    }
}
