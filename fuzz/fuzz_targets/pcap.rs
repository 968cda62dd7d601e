//! The packet codec: any packet the simulator can form, written as a pcap record, reads back
//! as a well-formed IPv4 datagram — header checksum right, lengths consistent, the TCP header's
//! data offset its real length (options fit the 40 bytes TCP allows), the capture cut at the
//! snap length.
#![no_main]

use libfuzzer_sys::fuzz_target;
use routerlab::ids::HostId;
use routerlab::net::packet::{Packet, PROTO_TCP, PROTO_UDP, SackBlock, TcpFlags};
use routerlab::net::pcap::{checksum, packet_bytes};
use routerlab::units::Rate;

/// Bytes read off the fuzzer's input, zeros once it runs out.
struct Input<'a>(&'a [u8]);

impl Input<'_> {
    fn byte(&mut self) -> u8 {
        let (b, rest) = self.0.split_first().map_or((0, &[][..]), |(b, r)| (*b, r));
        self.0 = rest;
        b
    }
    fn u16(&mut self) -> u16 {
        u16::from_be_bytes([self.byte(), self.byte()])
    }
    fn u32(&mut self) -> u32 {
        u32::from_be_bytes([self.byte(), self.byte(), self.byte(), self.byte()])
    }
    fn bit(&mut self) -> bool {
        self.byte() & 1 == 1
    }
}

/// A packet as the simulator forms them: a TCP segment whose SACK blocks fit beside its
/// other options, or a UDP datagram; whole or a fragment.
fn packet(inp: &mut Input) -> Packet {
    let mut p = Packet::default();
    p.ip.src = HostId(inp.u16() as u32);
    p.ip.dst = HostId(inp.u16() as u32);
    p.ip.id = inp.u16();
    p.ip.tos = inp.byte();
    p.ip.ttl = inp.byte();
    p.ip.dont_fragment = inp.bit();
    if inp.bit() {
        p.ip.protocol = PROTO_UDP;
        p.ip.total_len = 28 + inp.u16() % (65_535 - 28);
    } else {
        p.ip.protocol = PROTO_TCP;
        let t = &mut p.tcp;
        t.src_port = inp.u16();
        t.dst_port = inp.u16();
        t.seq = inp.u32() as u64;
        t.ack = inp.u32() as u64;
        t.flags = TcpFlags(inp.byte());
        t.window = inp.u32();
        t.mss = if inp.bit() { inp.u16() } else { 0 };
        t.sack_permitted = inp.bit();
        t.ts = inp.bit();
        t.ts_val = inp.u32();
        t.ts_ecr = inp.u32();
        t.cut = inp.bit();
        t.xr.fragment_rate_permitted = inp.bit();
        t.xr.rate_header = inp.bit();
        t.xr.header_rtt_us = inp.u32();
        t.xr.header_rate = Rate(inp.u32() as u64 * 1000);
        t.xr.echo = Rate(inp.u32() as u64 * 1000);
        for _ in 0..(inp.byte() as usize % 5).min(t.sack_room()) {
            let left = inp.u32() as u64;
            t.sack.push(SackBlock { left, right: left + inp.u16() as u64 });
        }
        let room = 65_535 - 20 - t.header_len();
        t.payload_len = inp.u16() % (room as u16 + 1);
        p.ip.total_len = (20 + t.header_len() + t.payload_len as u32) as u16;
    }
    // A fragment: a later slice of the datagram (its payload a multiple of 8 but the last).
    if inp.bit() && p.ip.total_len > 28 {
        let payload = p.ip.total_len as u32 - 20;
        let offset = (inp.u16() as u32 % payload) / 8;
        p.ip.frag_offset = offset as u16;
        p.ip.more_fragments = inp.bit();
        p.ip.total_len = (20 + payload - offset * 8) as u16;
    }
    p
}

fuzz_target!(|data: &[u8]| {
    let mut inp = Input(data);
    let snaplen = 20 + inp.u16() as u32;
    let p = packet(&mut inp);
    let (bytes, orig) = packet_bytes(&p, snaplen);
    assert_eq!(orig, p.ip_len());
    assert_eq!(bytes.len() as u32, orig.min(snaplen));
    assert_eq!(bytes[0], 0x45);
    assert_eq!(u16::from_be_bytes([bytes[2], bytes[3]]) as u32, orig);
    assert_eq!(checksum(&bytes[..20], 0), 0, "IPv4 header checksum");
    if p.ip.protocol == PROTO_TCP && p.ip.frag_offset == 0 && bytes.len() >= 40 {
        let offset = (bytes[32] >> 4) as u32 * 4;
        assert_eq!(offset, p.tcp.header_len(), "the data offset is the header's length");
    }
});
