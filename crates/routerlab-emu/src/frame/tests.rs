//! Datagrams built by etherparse (an independent writer), read and written back.

use super::*;
use crate::testing::{datagram, header};
use etherparse::{IpEcn, IpFragOffset, TcpHeader};
use routerlab::net::fragment::split_leading;
use routerlab::net::packet::{Ecn, PacketPool};

/// Both checksums of a datagram are right (etherparse's reckoning, not ours).
fn checksums_right(d: &[u8]) -> bool {
    let ip = Ipv4HeaderSlice::from_slice(d).unwrap();
    let tcp = TcpHeaderSlice::from_slice(&d[20..]).unwrap();
    let payload = &d[20 + tcp.slice().len()..usize::from(ip.total_len())];
    ip.to_header().calc_header_checksum() == ip.header_checksum()
        && tcp.calc_checksum_ipv4(&ip, payload).unwrap() == tcp.checksum()
}

const ISN: u32 = 0xffff_fff0; // sixteen bytes below the wrap

#[test]
fn a_handshake_and_data_read_as_the_simulator_numbers_them() {
    let mut d = Decoder::new();
    let mut syn = header(ISN, None, &[TcpOptionElement::MaximumSegmentSize(1460)]);
    syn.syn = true;
    let p = d.decode(&datagram(0, 1, syn, &[]), 7).unwrap();
    assert_eq!((p.ip.src, p.ip.dst, p.ip.id, p.ip.ttl), (HostId(0), HostId(1), 0x1234, 64));
    assert!(p.ip.dont_fragment && !p.ip.is_fragment());
    assert_eq!(p.ip.ecn(), Ecn::Ect0);
    assert_eq!((p.tcp.seq, p.tcp.mss, p.meta.dst_ep), (0, 1460, EpId(7)));
    assert!(p.tcp.flags.has(TcpFlags::SYN));
    // The SYN-ACK, in the other direction's space, acknowledges the SYN: ACK 1.
    let mut synack = TcpHeader::new(80, 40_000, 5000, 512);
    (synack.syn, synack.ack, synack.acknowledgment_number) = (true, true, ISN.wrapping_add(1));
    let q = d.decode(&datagram(1, 0, synack, &[]), 8).unwrap();
    assert_eq!((q.tcp.seq, q.tcp.ack), (0, 1));
    assert_eq!(q.meta.conn, p.meta.conn, "one connection, both directions");
    // Data across the 32-bit wrap: byte 1 at ISN + 1, byte 33 at 17 past zero.
    let ts = TcpOptionElement::Timestamp(11, 22);
    let a = d
        .decode(
            &datagram(0, 1, header(ISN.wrapping_add(1), Some(5001), std::slice::from_ref(&ts)), &[0; 32]),
            9,
        )
        .unwrap();
    let b = d.decode(&datagram(0, 1, header(17, Some(5001), &[ts]), &[0; 100]), 10).unwrap();
    assert_eq!((a.tcp.seq, a.tcp.ack, a.tcp.payload_len), (1, 1, 32));
    assert_eq!((b.tcp.seq, b.tcp.payload_len), (33, 100));
    assert!(b.tcp.ts && (b.tcp.ts_val, b.tcp.ts_ecr) == (11, 22));
    assert_eq!(b.tcp.header_len(), 32);
    assert_eq!(b.meta.flow_hash, flow_hash(HostId(0), HostId(1), 40_000, 80, PROTO_TCP));
}

#[test]
fn sack_blocks_count_in_the_acknowledged_direction() {
    let mut d = Decoder::new();
    let mut syn = header(ISN, None, &[TcpOptionElement::SelectiveAcknowledgementPermitted]);
    syn.syn = true;
    assert!(d.decode(&datagram(0, 1, syn, &[]), 0).unwrap().tcp.sack_permitted);
    // The receiver's duplicate ACK: bytes 1461–2920 arrived, 1–1460 did not.
    let mut ack = TcpHeader::new(80, 40_000, 1, 512);
    (ack.ack, ack.acknowledgment_number) = (true, ISN.wrapping_add(1));
    let block = (ISN.wrapping_add(1461), ISN.wrapping_add(2921));
    ack.set_options(&[TcpOptionElement::SelectiveAcknowledgement(block, [None; 3])]).unwrap();
    let p = d.decode(&datagram(1, 0, ack, &[]), 1).unwrap();
    assert_eq!(p.tcp.ack, 1);
    assert_eq!(p.tcp.sack.as_slice(), [SackBlock { left: 1461, right: 2921 }]);
}

#[test]
fn a_connection_of_more_than_4_gib_keeps_counting() {
    let mut d = Decoder::new();
    let mut syn = header(ISN, None, &[]);
    syn.syn = true;
    d.decode(&datagram(0, 1, syn, &[]), 0).unwrap();
    let mut last = 0;
    for k in 1..=12u64 {
        let byte = k * 500_000_000; // six gibibytes in all
        let p = d.decode(&datagram(0, 1, header(ISN.wrapping_add(byte as u32), Some(1), &[]), &[0; 10]), 0);
        let seq = p.unwrap().tcp.seq;
        assert_eq!(seq, byte);
        assert!(seq > last);
        last = seq;
    }
}

#[test]
fn a_packet_the_router_left_alone_is_written_back_as_it_came() {
    let mut d = Decoder::new();
    let orig = datagram(0, 1, header(ISN, Some(1), &[TcpOptionElement::Timestamp(1, 2)]), &[7; 1000]);
    let p = d.decode(&orig, 0).unwrap();
    assert_eq!(encode(&p, &orig), orig);
}

#[test]
fn a_ce_mark_changes_only_the_ecn_bits_and_the_ip_checksum() {
    let mut d = Decoder::new();
    let orig = datagram(0, 1, header(ISN, Some(1), &[]), &[7; 1000]);
    let mut p = d.decode(&orig, 0).unwrap();
    p.ip.set_ecn(Ecn::Ce);
    let out = encode(&p, &orig);
    assert_eq!(Ipv4HeaderSlice::from_slice(&out).unwrap().ecn(), IpEcn::CongestionExperienced);
    assert!(checksums_right(&out));
    let differ: Vec<usize> = (0..out.len()).filter(|&i| out[i] != orig[i]).collect();
    assert!(differ.iter().all(|i| [1, 10, 11].contains(i)), "{differ:?}");
}

#[test]
fn a_cut_segment_leaves_as_its_header_with_the_mark_and_a_right_checksum() {
    let mut d = Decoder::new();
    let orig = datagram(0, 1, header(ISN, Some(1), &[TcpOptionElement::Timestamp(1, 2)]), &[7; 1400]);
    let mut p = d.decode(&orig, 0).unwrap();
    // As CP's switch cuts: the mark, the IP length down to the headers (or its minimum).
    p.tcp.cut = true;
    p.ip.total_len = 64;
    let out = encode(&p, &orig);
    assert_eq!(out.len(), 64);
    assert!(checksums_right(&out));
    let back = Decoder::new().decode(&out, 0).unwrap();
    assert!(back.tcp.cut);
    assert_eq!(
        out[20..52],
        {
            let mut h = orig[20..52].to_vec();
            h[12] |= CUT_BIT;
            h[16..18].copy_from_slice(&out[36..38]);
            h
        }[..]
    );
    assert!(out[52..].iter().all(|&b| b == 0));
}

#[test]
fn fragments_carry_their_slices_of_the_original() {
    let mut d = Decoder::new();
    let payload: Vec<u8> = (0..1400u32).map(|i| i as u8).collect();
    let mut orig = datagram(0, 1, header(ISN, Some(1), &[]), &payload);
    orig[6] &= !0x40; // DF clear, so that routers may fragment it
    let p = d.decode(&orig, 0).unwrap();
    let mut pool = PacketPool::new();
    let lead = pool.alloc(p);
    let rest = split_leading(&mut pool, lead, 512);
    let (a, b) = (encode(pool.get(lead), &orig), encode(pool.get(rest), &orig));
    assert_eq!((a.len(), b.len()), (20 + 512, 20 + 1420 - 512));
    let (ha, hb) = (Ipv4HeaderSlice::from_slice(&a).unwrap(), Ipv4HeaderSlice::from_slice(&b).unwrap());
    assert!(ha.more_fragments() && !hb.more_fragments());
    assert_eq!(hb.fragments_offset(), IpFragOffset::try_new(64).unwrap());
    for h in [&ha, &hb] {
        assert_eq!(h.to_header().calc_header_checksum(), h.header_checksum());
    }
    let joined = [&a[20..], &b[20..]].concat();
    assert_eq!(joined, orig[20..]);
    // The second fragment reads as one (no TCP header), the same datagram's bytes.
    let q = Decoder::new().decode(&b, 3).unwrap();
    assert_eq!((q.ip.frag_offset, q.meta.dst_ep), (64, EpId(3)));
}

#[test]
fn what_is_not_a_host_datagram_is_refused_with_the_reason() {
    let mut d = Decoder::new();
    let mut bad = datagram(0, 1, header(1, None, &[]), &[]);
    bad[12..16].copy_from_slice(&[192, 168, 0, 1]);
    assert_eq!(d.decode(&bad, 0), Err(FrameError::NotAHost([192, 168, 0, 1])));
    assert!(matches!(d.decode(&[0x45, 0, 0], 0), Err(FrameError::Malformed(_))));
    let mut short = datagram(0, 1, header(1, None, &[]), &[1; 100]);
    short.truncate(60);
    assert!(matches!(d.decode(&short, 0), Err(FrameError::Malformed(_))));
}

#[test]
fn a_zeroed_checksum_is_computed_again() {
    let good = datagram(0, 1, header(7, Some(1), &[]), &[3; 101]);
    let mut bad = good.clone();
    bad[36..38].copy_from_slice(&[0, 0]);
    set_transport_checksum(&mut bad);
    assert_eq!(bad, good);
}
