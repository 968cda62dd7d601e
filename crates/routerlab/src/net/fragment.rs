//! IPv4 fragmentation (RFC 791 §3.2) and reassembly.
//!
//! A fragment is a packet whose IP payload is a slice of the original datagram's, placed by
//! `frag_offset` (8-byte units) with MF set on all but the last. Every fragment carries a copy
//! of the transport header *representation* so that reassembly can rebuild the datagram; only
//! the leading fragment (`frag_offset == 0`) really carries it on the wire — mechanisms must not
//! read the TCP fields of a non-leading fragment (`Packet::has_l4_header`), and the pcap writer
//! emits the right bytes for each.
//!
//! Reassembly is keyed on (src, dst, IP id, protocol); a datagram whose fragments do not all
//! arrive within the timeout (default 30 s, Linux's `ipfrag_time`) is discarded, so one lost
//! fragment loses the datagram. Following RFC 3168 §5.3, a datagram with any fragment marked CE
//! is delivered CE.

use std::collections::{HashMap, VecDeque};

use crate::ids::PacketId;
use crate::net::packet::{Ecn, IPV4_HEADER_BYTES, Packet, PacketPool};
use crate::units::SimTime;

/// Split `pkt` so that its leading part carries `lead_payload` bytes of IP payload (a multiple
/// of 8, smaller than the payload). `pkt` becomes the leading fragment; the remainder is
/// returned as a new packet. The caller checks DF.
pub fn split_leading(pool: &mut PacketPool, pkt: PacketId, lead_payload: u32) -> PacketId {
    let p = pool.get_mut(pkt);
    let payload = p.ip_len() - IPV4_HEADER_BYTES;
    debug_assert!(lead_payload.is_multiple_of(8) && lead_payload > 0 && lead_payload < payload);
    let mut rest = *p;
    p.ip.total_len = (IPV4_HEADER_BYTES + lead_payload) as u16;
    p.ip.more_fragments = true;
    rest.ip.frag_offset += (lead_payload / 8) as u16;
    rest.ip.total_len = (IPV4_HEADER_BYTES + payload - lead_payload) as u16;
    pool.alloc(rest)
}

/// Fragment `pkt` to fit `mtu` (IP bytes), appending the pieces in order to `out`. Returns
/// false (and emits nothing) if the packet needs fragmenting but has DF set.
pub fn fragment_to_mtu(pool: &mut PacketPool, pkt: PacketId, mtu: u32, out: &mut VecDeque<PacketId>) -> bool {
    if pool.get(pkt).ip_len() <= mtu {
        out.push_back(pkt);
        return true;
    }
    if pool.get(pkt).ip.dont_fragment {
        return false;
    }
    let max_payload = (mtu - IPV4_HEADER_BYTES) / 8 * 8;
    let mut cur = pkt;
    while pool.get(cur).ip_len() > mtu {
        let rest = split_leading(pool, cur, max_payload);
        out.push_back(cur);
        cur = rest;
    }
    out.push_back(cur);
    true
}

type Key = (u32, u32, u16, u8);

#[derive(Debug)]
struct Partial {
    /// Received byte ranges of the IP payload, unsorted (few fragments per datagram).
    have: Vec<(u32, u32)>,
    /// Payload length, known once the last fragment (MF clear) arrived.
    total: Option<u32>,
    template: Packet,
    ce: bool,
    deadline: SimTime,
}

/// A datagram put back together, and how long its leading fragment was (a router may signal in
/// that length: the socket's endpoint part reads it).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Reassembled {
    pub packet: Packet,
    /// IP payload bytes of the leading fragment.
    pub lead_payload: u32,
}

/// Per-host reassembly buffers.
#[derive(Debug, Default)]
pub struct Reassembler {
    partial: HashMap<Key, Partial>,
    /// Expiry order: (deadline, key). Purged lazily before each lookup.
    expiry: VecDeque<(SimTime, Key)>,
    pub timeout: SimTime,
    /// Datagrams discarded incomplete.
    pub timed_out: u64,
}

impl Reassembler {
    pub fn new(timeout: SimTime) -> Reassembler {
        Reassembler { timeout, ..Default::default() }
    }

    /// Offer a fragment (which the caller has freed from the pool, passing its copy). Returns
    /// the reassembled datagram when this fragment completes it.
    pub fn accept(&mut self, now: SimTime, frag: &Packet) -> Option<Reassembled> {
        while let Some(&(deadline, key)) = self.expiry.front() {
            if deadline > now {
                break;
            }
            self.expiry.pop_front();
            // Only if this entry is still the datagram that deadline belongs to (a completed
            // datagram's key may have been reused since).
            if self.partial.get(&key).is_some_and(|p| p.deadline == deadline) {
                self.partial.remove(&key);
                self.timed_out += 1;
            }
        }
        let key = (frag.ip.src.0, frag.ip.dst.0, frag.ip.id, frag.ip.protocol);
        let start = frag.ip.frag_offset as u32 * 8;
        let end = start + frag.ip_len() - IPV4_HEADER_BYTES;
        let entry = self.partial.entry(key).or_insert_with(|| {
            let deadline = now + self.timeout;
            self.expiry.push_back((deadline, key));
            Partial { have: Vec::with_capacity(4), total: None, template: *frag, ce: false, deadline }
        });
        entry.have.push((start, end));
        entry.ce |= frag.ip.ecn() == Ecn::Ce;
        if !frag.ip.more_fragments {
            entry.total = Some(end);
        }
        if start == 0 {
            entry.template = *frag;
        }
        let total = entry.total?;
        entry.have.sort_unstable();
        let mut reach = 0;
        for &(s, e) in &entry.have {
            if s > reach {
                return None;
            }
            reach = reach.max(e);
        }
        if reach < total {
            return None;
        }
        let done = self.partial.remove(&key).unwrap();
        let lead_payload = done.template.ip_len() - IPV4_HEADER_BYTES;
        let mut p = done.template;
        p.ip.frag_offset = 0;
        p.ip.more_fragments = false;
        p.ip.total_len = (IPV4_HEADER_BYTES + total) as u16;
        if done.ce {
            p.ip.set_ecn(Ecn::Ce);
        }
        Some(Reassembled { packet: p, lead_payload })
    }

    /// Datagrams waiting for fragments.
    pub fn pending(&self) -> usize {
        self.partial.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ids::HostId;

    fn datagram(pool: &mut PacketPool, ip_len: u16, df: bool) -> PacketId {
        let mut p = Packet::default();
        p.ip.total_len = ip_len;
        p.ip.dont_fragment = df;
        p.ip.src = HostId(1);
        p.ip.dst = HostId(2);
        p.ip.id = 77;
        p.tcp.seq = 12345;
        p.tcp.payload_len = ip_len - 40;
        pool.alloc(p)
    }

    #[test]
    fn fragments_fit_the_mtu_and_reassemble_in_any_order() {
        let mut pool = PacketPool::new();
        let pkt = datagram(&mut pool, 4000, false);
        let mut out = VecDeque::new();
        assert!(fragment_to_mtu(&mut pool, pkt, 1500, &mut out));
        let frags: Vec<Packet> = out.iter().map(|&f| *pool.get(f)).collect();
        assert_eq!(frags.len(), 3);
        assert!(frags.iter().all(|f| f.ip_len() <= 1500));
        assert_eq!(frags.iter().map(|f| f.ip_len() - 20).sum::<u32>(), 3980);
        assert_eq!(frags.iter().map(|f| f.ip.frag_offset).collect::<Vec<_>>(), vec![0, 185, 370]);
        assert_eq!(frags.iter().map(|f| f.ip.more_fragments).collect::<Vec<_>>(), vec![true, true, false]);
        let mut r = Reassembler::new(SimTime::from_secs(30));
        assert!(r.accept(SimTime(0), &frags[2]).is_none());
        assert!(r.accept(SimTime(1), &frags[0]).is_none());
        let Reassembled { packet: whole, lead_payload } = r.accept(SimTime(2), &frags[1]).unwrap();
        assert_eq!(lead_payload, 1480);
        assert_eq!(whole.ip_len(), 4000);
        assert_eq!(whole.tcp.seq, 12345);
        assert!(!whole.ip.more_fragments && whole.ip.frag_offset == 0);
        assert_eq!(r.pending(), 0);
    }

    #[test]
    fn a_lost_fragment_loses_the_datagram_after_the_timeout() {
        let mut pool = PacketPool::new();
        let pkt = datagram(&mut pool, 3000, false);
        let mut out = VecDeque::new();
        fragment_to_mtu(&mut pool, pkt, 1500, &mut out);
        let frags: Vec<Packet> = out.iter().map(|&f| *pool.get(f)).collect();
        let mut r = Reassembler::new(SimTime::from_secs(30));
        assert!(r.accept(SimTime(0), &frags[0]).is_none()); // frags[1] is lost
        // A retransmission with the same IP id after the timeout starts afresh.
        let late = frags[1];
        assert!(r.accept(SimTime::from_secs(31), &late).is_none());
        assert_eq!(r.timed_out, 1);
        assert_eq!(r.pending(), 1);
    }

    #[test]
    fn df_is_respected() {
        let mut pool = PacketPool::new();
        let pkt = datagram(&mut pool, 4000, true);
        let mut out = VecDeque::new();
        assert!(!fragment_to_mtu(&mut pool, pkt, 1500, &mut out));
        assert!(out.is_empty());
        let small = datagram(&mut pool, 1500, true);
        assert!(fragment_to_mtu(&mut pool, small, 1500, &mut out));
        assert_eq!(out.len(), 1);
    }

    #[test]
    fn ce_on_any_fragment_marks_the_datagram() {
        let mut pool = PacketPool::new();
        let pkt = datagram(&mut pool, 3000, false);
        let mut out = VecDeque::new();
        fragment_to_mtu(&mut pool, pkt, 1500, &mut out);
        let mut frags: Vec<Packet> = out.iter().map(|&f| *pool.get(f)).collect();
        frags[1].ip.set_ecn(Ecn::Ce);
        let mut r = Reassembler::new(SimTime::from_secs(30));
        r.accept(SimTime(0), &frags[0]);
        r.accept(SimTime(0), &frags[2]);
        assert_eq!(r.accept(SimTime(0), &frags[1]).unwrap().packet.ip.ecn(), Ecn::Ce);
    }
}
