//! A FIFO of packets that counts its bytes: the queue inside drop-tail and RED.
//!
//! It stamps each packet's enqueue time (for sojourn times) and, when the head leaves,
//! prefetches the next head: that one leaves one transmission time later, long enough to load
//! it, and a packet that waited behind a hundred others has left the cache.

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
    packets: VecDeque<PacketId>,
    bytes: u64,
}

impl PacketFifo {
    pub fn len(&self) -> usize {
        self.packets.len()
    }
    pub fn is_empty(&self) -> bool {
        self.packets.is_empty()
    }
    pub fn bytes(&self) -> u64 {
        self.bytes
    }

    /// The length in the unit of `size` (packets or bytes).
    pub fn amount(&self, size: Size) -> u64 {
        match size {
            Size::Packets(_) => self.packets.len() as u64,
            Size::Bytes(_) => self.bytes,
        }
    }

    /// Is the FIFO at or above `size`?
    pub fn at_or_above(&self, size: Size) -> bool {
        match size {
            Size::Packets(n) => self.packets.len() as u64 >= n,
            Size::Bytes(b) => self.bytes >= b,
        }
    }

    /// Would one more packet of `len` bytes make the FIFO exceed `limit`?
    pub fn would_exceed(&self, limit: Size, len: u64) -> bool {
        limit.exceeded_by(self.packets.len(), self.bytes, len)
    }

    /// Packets of 1500 bytes that still fit under `limit`.
    pub fn room_packets(&self, limit: Size) -> usize {
        limit.room_packets(self.packets.len(), self.bytes)
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
        self.packets.push_back(pkt);
        (self.packets.len(), bytes)
    }

    /// Take the head, and prefetch what its transmission reads of the next one.
    #[inline]
    pub fn pop(&mut self, pool: &PacketPool) -> Option<PacketId> {
        let pkt = self.packets.pop_front()?;
        self.bytes -= pool.get(pkt).ip_len() as u64;
        if let Some(&next) = self.packets.front() {
            pool.prefetch(next, false);
        }
        Some(pkt)
    }
}
