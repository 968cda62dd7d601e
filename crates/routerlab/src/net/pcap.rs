//! pcap capture files that Wireshark and tshark read: nanosecond-resolution pcap
//! (magic `0xa1b23c4d`), link type 101 (raw IPv4), one record per packet.
//!
//! Packets are representations, so the bytes are built here: an IPv4 header (with checksum,
//! DF/MF, fragment offset), then the transport header — TCP with its options (MSS,
//! SACK-permitted, timestamps, SACK blocks, the explicit-rate experimental options, NOP padding) and a
//! correct checksum, or UDP — and a payload of zeros, cut at `snaplen` (the record keeps the
//! original length). Zeros add nothing to the Internet checksum, so TCP checksums are right even
//! though the payload is not captured. A fragment's record carries its own slice of the
//! datagram: the leading fragment the TCP header, the others payload only.
//!
//! A segment whose payload a router cut off is written as what travels: its headers, with the cut mark in a reserved
//! bit ([`CUT_BIT`]).
//!
//! Hosts appear as 10.0.0.0 + host id + 1 (host 0 is 10.0.0.1). Sequence numbers start at 0
//! for the SYN (Wireshark shows them as such, relative or not).

use crate::net::packet::{IPV4_HEADER_BYTES, Ipv4Header, PROTO_TCP, PROTO_UDP, Packet, RateFields, TcpFlags};
use crate::units::{PS_PER_S, Rate, SimTime};

const LINKTYPE_RAW: u32 = 101;
/// The payload-cut mark: the highest of the TCP header's reserved bits (byte 12, our choice).
pub const CUT_BIT: u8 = 0x08;
/// Experiment ids (RFC 6994) of the explicit-rate options, as the wire carries them: the
/// fragment-rate options' and the rate header's, two ASCII letters each.
pub const FRAGMENT_RATE_EXID: [u8; 2] = *b"KA";
pub const RATE_HEADER_EXID: [u8; 2] = *b"RC";

/// The IPv4 address of host `id`.
pub fn host_addr(id: u32) -> [u8; 4] {
    (0x0a00_0000u32 + id + 1).to_be_bytes()
}

/// The Internet checksum (RFC 1071) of `words`, big-endian 16-bit words, from the partial sum
/// `initial` (a pseudo-header's): a header whose checksum field is right sums to 0.
pub fn checksum(words: &[u8], initial: u32) -> u16 {
    let mut sum = initial;
    for c in words.chunks(2) {
        let w = if c.len() == 2 { u16::from_be_bytes([c[0], c[1]]) } else { u16::from_be_bytes([c[0], 0]) };
        sum += w as u32;
    }
    while sum >> 16 != 0 {
        sum = (sum & 0xffff) + (sum >> 16);
    }
    !(sum as u16)
}

/// The partial Internet checksum of a TCP or UDP pseudo-header (RFC 793 §3.1, RFC 768):
/// the addresses, the protocol, the transport length.
pub fn pseudo_header_sum(src: [u8; 4], dst: [u8; 4], protocol: u8, len: u16) -> u32 {
    let word = |b: [u8; 2]| u32::from(u16::from_be_bytes(b));
    word([src[0], src[1]])
        + word([src[2], src[3]])
        + word([dst[0], dst[1]])
        + word([dst[2], dst[3]])
        + u32::from(protocol)
        + u32::from(len)
}

/// The transport header of the whole datagram (TCP with options, or UDP).
fn transport_header(p: &Packet) -> Vec<u8> {
    let (src, dst) = (host_addr(p.ip.src.0), host_addr(p.ip.dst.0));
    let datagram_payload = if p.ip.protocol == PROTO_TCP {
        // A cut segment is its header alone.
        p.tcp.header_len() + if p.tcp.cut { 0 } else { p.tcp.payload_len as u32 }
    } else {
        // Unbound (UDP) packets: everything after the IP header of the whole datagram.
        p.ip_len() + p.ip.frag_offset as u32 * 8 - IPV4_HEADER_BYTES
    };
    let pseudo_sum = pseudo_header_sum(src, dst, p.ip.protocol, datagram_payload.min(u16::MAX as u32) as u16);
    if p.ip.protocol == PROTO_UDP {
        let mut h = vec![0u8; 8];
        h[0..2].copy_from_slice(&20_000u16.to_be_bytes());
        h[2..4].copy_from_slice(&9u16.to_be_bytes());
        h[4..6].copy_from_slice(&(datagram_payload as u16).to_be_bytes());
        let c = checksum(&h, pseudo_sum);
        h[6..8].copy_from_slice(&(if c == 0 { 0xffff } else { c }).to_be_bytes());
        return h;
    }
    let t = &p.tcp;
    let hlen = t.header_len() as usize;
    let mut h = vec![0u8; hlen];
    h[0..2].copy_from_slice(&t.src_port.to_be_bytes());
    h[2..4].copy_from_slice(&t.dst_port.to_be_bytes());
    h[4..8].copy_from_slice(&(t.seq as u32).to_be_bytes());
    let ack = if t.flags.has(TcpFlags::ACK) { t.ack as u32 } else { 0 };
    h[8..12].copy_from_slice(&ack.to_be_bytes());
    h[12] = ((hlen / 4) as u8) << 4 | if t.cut { CUT_BIT } else { 0 };
    h[13] = t.flags.0;
    h[14..16].copy_from_slice(&(t.window.min(u16::MAX as u32) as u16).to_be_bytes());
    let mut o = 20;
    if t.mss != 0 {
        h[o..o + 4].copy_from_slice(&[2, 4, (t.mss >> 8) as u8, t.mss as u8]);
        o += 4;
    }
    // As Linux lays them out: SACK-permitted shares the timestamps' padding on a SYN.
    match (t.ts, t.sack_permitted) {
        (true, sack_ok) => {
            let lead = if sack_ok { [4, 2] } else { [1, 1] };
            h[o..o + 4].copy_from_slice(&[lead[0], lead[1], 8, 10]);
            h[o + 4..o + 8].copy_from_slice(&t.ts_val.to_be_bytes());
            h[o + 8..o + 12].copy_from_slice(&t.ts_ecr.to_be_bytes());
            o += 12;
        }
        (false, true) => {
            h[o..o + 4].copy_from_slice(&[1, 1, 4, 2]);
            o += 4;
        }
        (false, false) => {}
    }
    if !t.sack.is_empty() {
        h[o..o + 2].copy_from_slice(&[1, 1]); // NOP NOP
        o += 2;
        h[o] = 5;
        h[o + 1] = 2 + 8 * t.sack.len() as u8;
        o += 2;
        for b in t.sack.as_slice() {
            h[o..o + 4].copy_from_slice(&(b.left as u32).to_be_bytes());
            h[o + 4..o + 8].copy_from_slice(&(b.right as u32).to_be_bytes());
            o += 8;
        }
    }
    o = write_rate_options(&t.xr, &mut h, o);
    while o < hlen {
        h[o] = 1; // NOP padding (zero would end the option list; either is valid)
        o += 1;
    }
    let c = checksum(&h, pseudo_sum);
    h[16..18].copy_from_slice(&c.to_be_bytes());
    h
}

/// The explicit-rate fields as experimental options (RFC 6994: kind 253 or 254, length, a
/// 2-byte experiment id, data), as `RateFields::option_bytes` counts them.
fn write_rate_options(xr: &RateFields, h: &mut [u8], mut o: usize) -> usize {
    if xr.fragment_rate_permitted {
        h[o..o + 4].copy_from_slice(&[253, 4, FRAGMENT_RATE_EXID[0], FRAGMENT_RATE_EXID[1]]);
        o += 4;
    }
    let kbps = |r: Rate| (r.bps() / 1000).min(u32::MAX as u64) as u32;
    if xr.rate_header {
        h[o..o + 4].copy_from_slice(&[254, 16, RATE_HEADER_EXID[0], RATE_HEADER_EXID[1]]);
        h[o + 4..o + 8].copy_from_slice(&kbps(xr.header_rate).to_be_bytes());
        h[o + 8..o + 12].copy_from_slice(&xr.header_rtt_us.to_be_bytes());
        h[o + 12..o + 16].copy_from_slice(&kbps(xr.echo).to_be_bytes());
        o += 16;
    } else if xr.echo.0 != 0 {
        h[o..o + 4].copy_from_slice(&[253, 6, FRAGMENT_RATE_EXID[0], FRAGMENT_RATE_EXID[1]]);
        h[o + 4..o + 6].copy_from_slice(&xr.echo_length.to_be_bytes());
        o += 6;
    }
    o
}

/// The 20 bytes of `ip` (no options) between addresses `src` and `dst`, checksum included.
pub fn ipv4_header(ip: &Ipv4Header, src: [u8; 4], dst: [u8; 4]) -> [u8; 20] {
    let mut h = [0u8; 20];
    h[0] = 0x45;
    h[1] = ip.tos;
    h[2..4].copy_from_slice(&ip.total_len.to_be_bytes());
    h[4..6].copy_from_slice(&ip.id.to_be_bytes());
    let flags_off =
        (ip.dont_fragment as u16) << 14 | (ip.more_fragments as u16) << 13 | (ip.frag_offset & 0x1fff);
    h[6..8].copy_from_slice(&flags_off.to_be_bytes());
    h[8] = ip.ttl;
    h[9] = ip.protocol;
    h[12..16].copy_from_slice(&src);
    h[16..20].copy_from_slice(&dst);
    let c = checksum(&h, 0);
    h[10..12].copy_from_slice(&c.to_be_bytes());
    h
}

/// The captured bytes of one packet (at most `snaplen`) and its original length.
pub fn packet_bytes(p: &Packet, snaplen: u32) -> (Vec<u8>, u32) {
    let orig = p.ip_len();
    let ip = ipv4_header(&p.ip, host_addr(p.ip.src.0), host_addr(p.ip.dst.0));
    let cap = orig.min(snaplen.max(20)) as usize;
    let mut out = Vec::with_capacity(cap);
    out.extend_from_slice(&ip);
    // This packet's slice of the transport datagram: header bytes where they fall, zeros after.
    let start = p.ip.frag_offset as usize * 8;
    let header = transport_header(p);
    for k in start..start + (cap - 20) {
        out.push(header.get(k).copied().unwrap_or(0));
    }
    (out, orig)
}

/// A complete pcap file.
pub fn write<'a>(records: impl Iterator<Item = (SimTime, &'a Packet)>, snaplen: u32) -> Vec<u8> {
    let mut f = Vec::new();
    f.extend_from_slice(&0xa1b2_3c4du32.to_le_bytes());
    f.extend_from_slice(&2u16.to_le_bytes());
    f.extend_from_slice(&4u16.to_le_bytes());
    f.extend_from_slice(&0i32.to_le_bytes());
    f.extend_from_slice(&0u32.to_le_bytes());
    f.extend_from_slice(&snaplen.to_le_bytes());
    f.extend_from_slice(&LINKTYPE_RAW.to_le_bytes());
    for (t, p) in records {
        let (bytes, orig) = packet_bytes(p, snaplen);
        let ns = t.0 / 1000;
        f.extend_from_slice(&((ns / (PS_PER_S / 1000)) as u32).to_le_bytes());
        f.extend_from_slice(&((ns % (PS_PER_S / 1000)) as u32).to_le_bytes());
        f.extend_from_slice(&(bytes.len() as u32).to_le_bytes());
        f.extend_from_slice(&orig.to_le_bytes());
        f.extend_from_slice(&bytes);
    }
    f
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ids::HostId;
    use crate::net::packet::{SackBlock, TcpSegment};

    fn seg() -> Packet {
        let mut p = Packet::default();
        p.ip.src = HostId(0);
        p.ip.dst = HostId(1);
        p.ip.protocol = PROTO_TCP;
        p.ip.ttl = 64;
        p.tcp = TcpSegment {
            src_port: 10000,
            dst_port: 80,
            seq: 1461,
            ack: 1,
            flags: TcpFlags::ACK,
            window: 65535,
            payload_len: 1460,
            ..Default::default()
        };
        p.tcp.sack.push(SackBlock { left: 100, right: 200 });
        p.ip.total_len = (20 + p.tcp.header_len() + 1460) as u16;
        p
    }

    /// The checksum of a header including its checksum field is zero (RFC 1071).
    fn verifies(bytes: &[u8], initial: u32) -> bool {
        checksum(bytes, initial) == 0
    }

    #[test]
    fn ip_and_tcp_checksums_verify() {
        let p = seg();
        let (bytes, orig) = packet_bytes(&p, 65535);
        assert_eq!(orig, p.ip_len());
        assert_eq!(bytes.len(), orig as usize);
        assert!(verifies(&bytes[..20], 0));
        let tcp = &bytes[20..];
        let addr = |at: usize| -> [u8; 4] { bytes[at..at + 4].try_into().unwrap() };
        let ps = pseudo_header_sum(addr(12), addr(16), 6, tcp.len() as u16);
        assert!(verifies(tcp, ps));
        assert_eq!(u32::from_be_bytes(tcp[4..8].try_into().unwrap()), 1461);
        assert_eq!(tcp[12] >> 4, 8, "32-byte header: 20 + NOP NOP + SACK(10)");
        assert_eq!(&tcp[22..24], &[5, 10]);
    }

    /// The pseudo-header sum of a captured IPv4 + TCP packet, from its own bytes.
    fn pseudo_sum(bytes: &[u8]) -> u32 {
        let mut pseudo = Vec::new();
        pseudo.extend_from_slice(&bytes[12..20]);
        pseudo.extend_from_slice(&[0, 6]);
        pseudo.extend_from_slice(&((bytes.len() - 20) as u16).to_be_bytes());
        pseudo.chunks(2).map(|c| u16::from_be_bytes([c[0], c[1]]) as u32).sum::<u32>()
    }

    #[test]
    fn a_cp_cut_segment_is_its_headers_with_the_cut_bit_and_valid_checksums() {
        let mut p = seg();
        p.tcp.cut = true;
        p.ip.total_len = (20 + p.tcp.header_len()) as u16;
        let (bytes, orig) = packet_bytes(&p, 65535);
        assert_eq!((orig, bytes.len()), (52, 52), "IPv4 20 + TCP 32, no payload");
        assert!(verifies(&bytes[..20], 0));
        assert!(verifies(&bytes[20..], pseudo_sum(&bytes)));
        assert_eq!(bytes[32] & CUT_BIT, CUT_BIT);
        assert_eq!(bytes[32] >> 4, 8, "the data offset is untouched");
        let (whole, _) = packet_bytes(&seg(), 65535);
        assert_eq!(whole[32] & CUT_BIT, 0);
    }

    #[test]
    fn snaplen_cuts_the_payload_and_fragments_get_their_slice() {
        let p = seg();
        let (cut, _) = packet_bytes(&p, 64);
        assert_eq!(cut.len(), 64);
        let mut frag = p;
        frag.ip.frag_offset = 100; // 800 bytes into the datagram: payload only
        frag.ip.total_len = 100;
        let (b, orig) = packet_bytes(&frag, 65535);
        assert_eq!(orig, 100);
        assert!(b[20..].iter().all(|&x| x == 0));
        assert_eq!(u16::from_be_bytes([b[6], b[7]]) & 0x1fff, 100);
    }

    /// Timestamps as Linux sends them: after two NOPs on data, sharing SACK-permitted's
    /// padding on a SYN; the header length the model counts is the one written.
    #[test]
    fn timestamps_are_laid_out_as_linux_lays_them_out() {
        use crate::net::packet::TcpSegment;
        let mk = |seg: TcpSegment| {
            transport_header(&Packet::tcp_for_test(crate::ids::HostId(0), crate::ids::HostId(1), seg))
        };
        let data = TcpSegment { ts: true, ts_val: 0x0102_0304, ts_ecr: 7, ..TcpSegment::default() };
        let h = mk(data);
        assert_eq!(h.len(), 32);
        assert_eq!(&h[20..32], &[1, 1, 8, 10, 1, 2, 3, 4, 0, 0, 0, 7]);
        let syn = TcpSegment { mss: 1460, sack_permitted: true, ..data };
        let h = mk(syn);
        assert_eq!(h.len() as u32, syn.header_len());
        assert_eq!(&h[20..28], &[2, 4, 5, 180, 4, 2, 8, 10]);
    }

    #[test]
    fn explicit_rate_fields_are_experimental_options() {
        use crate::net::packet::{RateFields, TcpSegment};
        let by_length = RateFields {
            fragment_rate_permitted: true,
            echo: Rate::from_kbps(14_769),
            echo_length: 640,
            ..RateFields::default()
        };
        let seg = TcpSegment { xr: by_length, ..TcpSegment::default() };
        let p = Packet::tcp_for_test(crate::ids::HostId(0), crate::ids::HostId(1), seg);
        let h = transport_header(&p);
        assert_eq!(h.len(), 20 + 12, "4 + 6 option bytes, padded");
        assert_eq!(&h[20..24], &[253, 4, b'K', b'A']);
        assert_eq!(&h[24..28], &[253, 6, b'K', b'A']);
        assert_eq!(u16::from_be_bytes([h[28], h[29]]), 640, "the leading-fragment length of 14.77 Mbit/s");
        let header = RateFields {
            rate_header: true,
            header_rate: Rate::from_mbps(12),
            header_rtt_us: 100_000,
            ..RateFields::default()
        };
        let p = Packet::tcp_for_test(
            crate::ids::HostId(0),
            crate::ids::HostId(1),
            TcpSegment { xr: header, ..TcpSegment::default() },
        );
        let h = transport_header(&p);
        assert_eq!(&h[20..24], &[254, 16, b'R', b'C']);
        assert_eq!(u32::from_be_bytes(h[24..28].try_into().unwrap()), 12_000);
        assert_eq!(u32::from_be_bytes(h[28..32].try_into().unwrap()), 100_000);
    }
}
