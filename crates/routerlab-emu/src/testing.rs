//! Datagrams for tests, written by etherparse (a writer independent of ours).

use etherparse::{IpEcn, IpNumber, TcpHeader, TcpOptionElement};
use routerlab::net::pcap::host_addr;

/// A TCP datagram from host `src` to host `dst`, as a Linux sender writes one (DF set), with
/// the TCP header `tcp` (flags and options set by the caller) and `payload`.
pub fn datagram(src: u32, dst: u32, mut tcp: TcpHeader, payload: &[u8]) -> Vec<u8> {
    let len = (tcp.header_len() + payload.len()) as u16;
    let mut ip = etherparse::Ipv4Header::new(len, 64, IpNumber::TCP, host_addr(src), host_addr(dst)).unwrap();
    ip.identification = 0x1234;
    ip.dont_fragment = true;
    ip.ecn = IpEcn::Ect0;
    ip.header_checksum = ip.calc_header_checksum();
    tcp.checksum = tcp.calc_checksum_ipv4(&ip, payload).unwrap();
    let mut out = ip.to_bytes().to_vec();
    out.extend_from_slice(&tcp.to_bytes());
    out.extend_from_slice(payload);
    out
}

pub fn header(seq: u32, ack: Option<u32>, options: &[TcpOptionElement]) -> TcpHeader {
    let mut t = TcpHeader::new(40_000, 80, seq, 512);
    if let Some(a) = ack {
        (t.ack, t.acknowledgment_number) = (true, a);
    }
    t.set_options(options).unwrap();
    t
}
