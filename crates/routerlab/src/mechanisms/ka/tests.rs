//! Kick-Ass's and RCP's endpoint protocol inside TCP (handshake, DF, decoding and echo, RTT
//! indicators), on the two-socket harness.

use super::encoding::{indicator_size, rate_of_length};
use super::{ExplicitRate, KaEndpoint, Mode, RateProtocol};
use crate::tcp::TcpConfig;
use crate::tcp::cc::{CcConfig, CongestionControl, RenoIncrease};
use crate::tcp::endpoint::ControllerRecipe;
use crate::tcp::testing::{Dir, Harness};
use crate::units::{Rate, SimTime};

fn ms(n: u64) -> SimTime {
    SimTime::from_ms(n)
}

fn cfg(p: Option<RateProtocol>) -> TcpConfig {
    let cc = p.map_or(CcConfig::NewReno(RenoIncrease::Bytes), |p| {
        CcConfig::Plugin(ControllerRecipe::new(KaEndpoint::new(p)))
    });
    TcpConfig { cc, ..TcpConfig::default() }
}

fn mode(h: &Harness) -> Option<Mode> {
    Some(h.a.cc().as_any()?.downcast_ref::<ExplicitRate>()?.mode())
}

const KA: Option<RateProtocol> = Some(RateProtocol::KickAss);

#[test]
fn kick_ass_is_agreed_in_the_handshake_and_clears_df() {
    let mut h = Harness::new(cfg(KA), cfg(KA), ms(50));
    h.start(100_000, true);
    h.run_until(ms(150));
    assert!(h.log[0].out.seg.xr.fragment_rate_permitted, "the SYN offers Kick-Ass");
    assert!(
        h.log.iter().any(|s| s.dir == Dir::BtoA && s.out.seg.xr.fragment_rate_permitted),
        "the SYN-ACK agrees"
    );
    assert_eq!(h.a.endpoint_part().map(|x| x.name()), Some("kick-ass"));
    assert!(h.a.allows_fragmentation() && h.b.allows_fragmentation());
}

#[test]
fn with_a_legacy_peer_it_is_plain_tcp() {
    let mut h = Harness::new(cfg(KA), cfg(None), ms(50));
    h.start(300_000, true);
    h.run_until(SimTime::from_secs(2));
    assert!(!h.log.iter().any(|s| s.dir == Dir::BtoA && s.out.seg.xr.fragment_rate_permitted));
    assert!(h.a.endpoint_part().is_none(), "the part is dropped: plain TCP");
    assert!(!h.a.allows_fragmentation(), "DF stays set");
    assert!(h.indicators.is_empty(), "no RTT indicators without a Kick-Ass peer");
    assert!(h.a.all_acked());
    assert_eq!(mode(&h), Some(Mode::Tcp(super::TcpReason::NoSignal)), "it never hears a rate");
    // A legacy client offers nothing; a Kick-Ass server does not answer what was not offered.
    let mut h = Harness::new(cfg(None), cfg(KA), ms(50));
    h.start(1000, true);
    h.run_until(ms(200));
    assert!(!h.log.iter().any(|s| s.out.seg.xr.fragment_rate_permitted));
}

#[test]
fn the_receiver_echoes_the_rate_of_a_leading_fragment_on_its_next_ack() {
    let mut h = Harness::new(cfg(KA), cfg(KA), ms(50));
    // Every data segment arrives fragmented with a 640-byte leading fragment (14.77 Mbit/s).
    h.fragment = Box::new(|dir, _, o| (dir == Dir::AtoB && o.seg.payload_len > 0).then_some(640));
    h.start(2_000_000, true);
    h.run_until(ms(210));
    let acks: Vec<_> = h.log.iter().filter(|s| s.dir == Dir::BtoA && s.out.seg.payload_len == 0).collect();
    let echoed: Vec<_> = acks.iter().filter(|s| s.out.seg.xr.echo.0 != 0).collect();
    assert!(!echoed.is_empty());
    assert!(echoed.iter().all(|s| s.out.seg.xr.echo == rate_of_length(640)));
    assert!(echoed.iter().all(|s| s.out.seg.xr.echo_length == 640), "on the wire: the length it read");
    assert_eq!(acks[0].out.seg.xr.echo, Rate(0), "the SYN-ACK/first ACK precede any fragment");
    // The sender is in rate mode, pacing at the rate, its window rate × SRTT.
    assert_eq!(mode(&h), Some(Mode::Rate));
    assert_eq!(h.a.pacing_rate(), Some(rate_of_length(640)));
    let srtt = h.a.srtt().unwrap();
    assert_eq!(h.a.cwnd(), rate_of_length(640).bytes_in(srtt));
    // A length that is no code is ignored.
    let mut h = Harness::new(cfg(KA), cfg(KA), ms(50));
    h.fragment = Box::new(|dir, _, o| (dir == Dir::AtoB && o.seg.payload_len > 0).then_some(100));
    h.start(100_000, true);
    h.run_until(ms(300));
    assert!(h.log.iter().all(|s| s.out.seg.xr.echo == Rate(0)));
}

#[test]
fn a_sender_sends_an_rtt_indicator_every_100_ms_while_it_has_data() {
    let mut h = Harness::new(cfg(KA), cfg(KA), ms(50));
    h.spacing = SimTime::from_us(800); // ≈ 15 Mbit/s: the transfer lasts a while
    h.start(2_000_000, true);
    h.run_until(SimTime::from_secs(5));
    assert!(h.a.all_acked());
    let ind: Vec<_> = h.indicators.iter().filter(|i| i.1 == Dir::AtoB).collect();
    assert!(ind.len() >= 5, "{ind:?}");
    for w in ind.windows(2) {
        assert_eq!(w[1].0 - w[0].0, ms(100), "every 100 ms");
    }
    // The first says 64–127 ms (606) for the 100 ms RTT; then the harness's 800 µs spacing
    // builds a queue in slow start, and the indicated RTT rises with SRTT.
    assert_eq!(ind[0].2, indicator_size(SimTime::from_ms(100)));
    assert_eq!(ind[0].2, 606);
    assert!(ind.windows(2).all(|w| w[0].2 <= w[1].2) && ind.last().unwrap().2 > 606);
    assert!(h.indicators.iter().all(|i| i.1 == Dir::AtoB), "the receiver, with nothing to send, sends none");
    let all_acked_at = h.log.iter().rev().find(|s| s.dir == Dir::BtoA).unwrap().at + h.delay;
    assert!(ind.last().unwrap().0 <= all_acked_at, "none once everything is acknowledged");
    assert!(ind.last().unwrap().0 + ms(100) > all_acked_at, "but every 100 ms until then");
}

#[test]
fn rcp_learns_its_rate_from_the_syn_ack() {
    let rcp = Some(RateProtocol::Rcp);
    let mut h = Harness::new(cfg(rcp), cfg(rcp), ms(50));
    // A router on the forward path allows 12 Mbit/s.
    h.rewrite = Box::new(|dir, o| {
        if dir == Dir::AtoB && o.seg.xr.rate_header {
            o.seg.xr.header_rate = o.seg.xr.header_rate.min(Rate::from_mbps(12));
        }
    });
    h.start(1_000_000, true);
    h.run_until(ms(101));
    let synack = h.log.iter().find(|s| s.dir == Dir::BtoA).unwrap();
    assert_eq!(synack.out.seg.xr.echo, Rate::from_mbps(12), "the SYN's rate, back on the SYN-ACK");
    assert_eq!(mode(&h), Some(Mode::Rate), "rate mode before the first data segment");
    let first = h.data_sent().next().unwrap();
    // RCP's 16 header bytes beside the timestamps' 12, on every segment.
    assert!(first.out.seg.xr.rate_header && first.out.seg.header_len() == 20 + 16 + 12);
    assert_eq!(first.out.seg.payload_len, 1460 - 16 - 12, "the MSS less the options (RFC 6691)");
    assert!(!h.a.allows_fragmentation());
    h.run_until(SimTime::from_secs(3));
    assert!(h.a.all_acked());
}
