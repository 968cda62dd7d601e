//! Real datagrams to routerlab packets and back.
//!
//! Contract:
//! - [`Decoder::decode`] reads an IPv4 datagram as it came off a wire (no link header) into
//!   the [`Packet`] the router code works on. Hosts are numbered as the simulator and its pcap
//!   files number them: 10.0.0.1 is host 0 ([`host_of`]). TCP sequence numbers count each
//!   direction's bytes from 0 at its SYN, as the simulator's endpoints do, so that a mechanism
//!   that compares them sees the same space on real packets (a direction whose SYN was not
//!   seen starts at the first byte seen); ACK numbers and SACK blocks count in the other
//!   direction's space. The 32-bit numbers are unwrapped: a connection may move more than
//!   4 GiB. Options read: MSS, SACK-permitted, timestamps, SACK blocks, and the payload-cut mark
//!   (`net::pcap::CUT_BIT`); others (window scale, the explicit-rate experimental options) are
//!   skipped, and a datagram with IP options is refused.
//! - [`encode`] writes what the router let go of: the IP header as the packet says (ECN,
//!   TTL, DF, fragment fields, length) over its slice of the datagram's original payload. A
//!   segment whose payload a router cut keeps its TCP header alone, with the cut mark set, then
//!   zeros to the packet's length, and a TCP checksum made right; every other byte is the
//!   original's.
//! - The packet's `meta.dst_ep` carries, unread by any router part, the index of the original
//!   datagram's bytes in the caller's store (fragments copy it); `meta.conn` numbers the
//!   connection (both directions alike, as per-flow policies need), `meta.flow_hash` is the
//!   simulator's hash of the 5-tuple.

use std::collections::HashMap;

use etherparse::{Ipv4HeaderSlice, TcpHeaderSlice, TcpOptionElement};
use routerlab::ids::{ConnId, EpId, HostId};
use routerlab::net::packet::PROTO_UDP;
use routerlab::net::packet::{
    FlowKey, IPV4_HEADER_BYTES, Ipv4Header, MetaFlags, PROTO_TCP, Packet, PacketMeta, SackBlock, SackList,
    TcpFlags, TcpSegment, flow_hash,
};
use routerlab::net::pcap::{CUT_BIT, checksum, host_addr, ipv4_header, pseudo_header_sum};

/// Why a datagram could not be read.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum FrameError {
    /// Not a well-formed IPv4 datagram (or TCP header), with what was wrong.
    Malformed(String),
    /// The header carries IP options, which the router code does not model.
    IpOptions,
    /// An address outside the hosts' network (10.0.0.1 upwards).
    NotAHost([u8; 4]),
}

/// The host an address stands for: 10.0.0.1 is host 0, as in the simulator's pcap files.
pub fn host_of(addr: [u8; 4]) -> Result<HostId, FrameError> {
    let a = u32::from_be_bytes(addr);
    let first = u32::from_be_bytes(host_addr(0));
    match a.checked_sub(first) {
        Some(h) if h < 1 << 16 => Ok(HostId(h)),
        _ => Err(FrameError::NotAHost(addr)),
    }
}

/// One direction's sequence space: its initial number, and the highest unwrapped number seen.
#[derive(Clone, Copy, Debug)]
struct SeqSpace {
    isn: u32,
    high: u64,
}

impl SeqSpace {
    /// The unwrapped number of `seq`: the one with its low 32 bits nearest the highest seen.
    fn unwrap(&self, seq: u32) -> u64 {
        let rel = seq.wrapping_sub(self.isn) as u64;
        let base = self.high & !0xffff_ffff;
        [base.wrapping_sub(1 << 32), base, base + (1 << 32)]
            .into_iter()
            .map(|b| b.wrapping_add(rel))
            .filter(|&v| v < 1 << 63)
            .min_by_key(|&v| v.abs_diff(self.high))
            .unwrap_or(rel)
    }
}

/// The state reading needs: each direction's sequence space and each connection's number.
#[derive(Debug, Default)]
pub struct Decoder {
    spaces: HashMap<FlowKey, SeqSpace>,
    conns: HashMap<FlowKey, u32>,
}

impl Decoder {
    pub fn new() -> Decoder {
        Decoder::default()
    }

    /// The packet `datagram` is; its bytes are at index `slot` of the caller's store.
    pub fn decode(&mut self, datagram: &[u8], slot: u32) -> Result<Packet, FrameError> {
        let ip = Ipv4HeaderSlice::from_slice(datagram).map_err(|e| FrameError::Malformed(e.to_string()))?;
        if ip.ihl() != 5 {
            return Err(FrameError::IpOptions);
        }
        let total_len = ip.total_len();
        if usize::from(total_len) > datagram.len() {
            return Err(FrameError::Malformed(format!("{total_len} bytes long, {} read", datagram.len())));
        }
        let header = Ipv4Header {
            src: host_of(ip.source())?,
            dst: host_of(ip.destination())?,
            id: ip.identification(),
            tos: datagram[1],
            dont_fragment: ip.dont_fragment(),
            more_fragments: ip.more_fragments(),
            frag_offset: ip.fragments_offset().value(),
            total_len,
            protocol: ip.protocol().0,
            ttl: ip.ttl(),
        };
        let mut p = Packet { ip: header, ..Packet::default() };
        p.meta = PacketMeta { dst_ep: EpId(slot), ..PacketMeta::default() };
        if header.protocol != PROTO_TCP {
            p.meta.flags = MetaFlags::UNBOUND;
            return Ok(p);
        }
        if header.frag_offset != 0 {
            return Ok(p); // payload only: the TCP header travels in the leading fragment
        }
        let body = &datagram[IPV4_HEADER_BYTES as usize..usize::from(total_len)];
        let tcp = TcpHeaderSlice::from_slice(body).map_err(|e| FrameError::Malformed(e.to_string()))?;
        p.tcp = self.segment(&header, &tcp, body.len());
        let key = FlowKey { src: header.src, dst: header.dst, sport: p.tcp.src_port, dport: p.tcp.dst_port };
        let n = self.conns.len() as u32;
        let canonical = key.min(key.reversed());
        p.meta.conn = ConnId(*self.conns.entry(canonical).or_insert(n));
        p.meta.flow_hash = flow_hash(key.src, key.dst, key.sport, key.dport, PROTO_TCP);
        Ok(p)
    }

    /// The TCP segment of a datagram from `ip`, whose IP payload is `len` bytes long (of which
    /// only the header need be at hand: a leading fragment's).
    fn segment(&mut self, ip: &Ipv4Header, tcp: &TcpHeaderSlice, len: usize) -> TcpSegment {
        let key =
            FlowKey { src: ip.src, dst: ip.dst, sport: tcp.source_port(), dport: tcp.destination_port() };
        let header = tcp.slice();
        let flags = TcpFlags(header[13]);
        let syn = flags.has(TcpFlags::SYN);
        let seq = tcp.sequence_number();
        let own = self
            .spaces
            .entry(key)
            .and_modify(|s| {
                if syn {
                    *s = SeqSpace { isn: seq, high: 0 }; // a new connection on the same 5-tuple
                }
            })
            .or_insert(SeqSpace { isn: if syn { seq } else { seq.wrapping_sub(1) }, high: 0 });
        let seq = own.unwrap(seq);
        own.high = own.high.max(seq);
        let ack_raw = tcp.acknowledgment_number();
        let peer = flags.has(TcpFlags::ACK).then(|| {
            *self.spaces.entry(key.reversed()).or_insert(SeqSpace { isn: ack_raw.wrapping_sub(1), high: 0 })
        });
        let mut s = TcpSegment {
            src_port: key.sport,
            dst_port: key.dport,
            seq,
            ack: peer.map_or(0, |sp| sp.unwrap(ack_raw)),
            flags,
            window: tcp.window_size().into(),
            cut: header[12] & CUT_BIT != 0,
            payload_len: (len - header.len()) as u16,
            ..TcpSegment::default()
        };
        for option in tcp.options_iterator() {
            // An option the reader does not know ends the list (etherparse): what follows is
            // not read.
            let Ok(option) = option else { break };
            match option {
                TcpOptionElement::MaximumSegmentSize(m) => s.mss = m,
                TcpOptionElement::SelectiveAcknowledgementPermitted => s.sack_permitted = true,
                TcpOptionElement::Timestamp(val, ecr) => (s.ts, s.ts_val, s.ts_ecr) = (true, val, ecr),
                TcpOptionElement::SelectiveAcknowledgement(first, rest) => {
                    let space = peer.unwrap_or(SeqSpace { isn: 0, high: 0 });
                    let mut list = SackList::new();
                    for (l, r) in std::iter::once(first).chain(rest.into_iter().flatten()) {
                        list.push(SackBlock { left: space.unwrap(l), right: space.unwrap(r) });
                    }
                    s.sack = list;
                }
                TcpOptionElement::Noop | TcpOptionElement::WindowScale(_) => {}
            }
        }
        s
    }
}

/// The bytes of `p` as it leaves the router, from `original`, the datagram it was read from.
pub fn encode(p: &Packet, original: &[u8]) -> Vec<u8> {
    let orig_offset = (u16::from_be_bytes([original[6], original[7]]) & 0x1fff) as usize * 8;
    let start = p.ip.frag_offset as usize * 8 - orig_offset;
    let len = p.ip_len() as usize - IPV4_HEADER_BYTES as usize;
    let mut out = Vec::with_capacity(p.ip_len() as usize);
    let addr = |at: usize| -> [u8; 4] { original[at..at + 4].try_into().expect("4 bytes") };
    out.extend_from_slice(&ipv4_header(&p.ip, addr(12), addr(16)));
    let payload = &original[IPV4_HEADER_BYTES as usize..];
    if p.ip.protocol == PROTO_TCP && p.has_l4_header() && p.tcp.cut {
        out.extend_from_slice(&cut_segment(payload, len));
        set_transport_checksum(&mut out);
    } else {
        out.extend_from_slice(&payload[start..start + len]);
    }
    out
}

/// A segment cut to its TCP header: the original header with the cut mark, then zeros to
/// `len` bytes (its checksum is the caller's to set).
fn cut_segment(segment: &[u8], len: usize) -> Vec<u8> {
    let header_len = usize::from(segment[12] >> 4) * 4;
    let mut t = vec![0u8; len.max(header_len)];
    t[..header_len].copy_from_slice(&segment[..header_len]);
    t[12] |= CUT_BIT;
    t
}

/// Compute an unfragmented datagram's TCP or UDP checksum afresh, in place (no options in its
/// IP header, as [`Decoder::decode`] takes them).
pub fn set_transport_checksum(d: &mut [u8]) {
    let ihl = usize::from(d[0] & 0x0f) * 4;
    let fragment = u16::from_be_bytes([d[6], d[7]]) & 0x3fff != 0;
    let at = match d[9] {
        PROTO_TCP => 16,
        PROTO_UDP => 6,
        _ => return,
    };
    if fragment || d.len() < ihl + at + 2 {
        return;
    }
    d[ihl + at..ihl + at + 2].copy_from_slice(&[0, 0]);
    let addr = |at: usize| -> [u8; 4] { d[at..at + 4].try_into().expect("4 bytes") };
    let initial = pseudo_header_sum(addr(12), addr(16), d[9], (d.len() - ihl) as u16);
    let mut c = checksum(&d[ihl..], initial);
    if d[9] == PROTO_UDP && c == 0 {
        c = 0xffff; // RFC 768: a computed zero is sent as all ones
    }
    d[ihl + at..ihl + at + 2].copy_from_slice(&c.to_be_bytes());
}

#[cfg(test)]
mod tests;
