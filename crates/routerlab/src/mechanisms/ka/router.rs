//! The Kick-Ass router: a port stage that computes RCP's rate for its link and signals it in
//! the length of leading IP fragments (§II, §III-A).
//!
//! ```text
//!   arrival ──▶ count input bytes (y); read RTT indicators (d) ──▶ queue
//!           ──▶ dequeue: fragment so the leading fragment carries F(R) bytes ──▶ link
//! ```
//!
//! At dequeue, for a packet without DF:
//! - an unfragmented packet of the full size (1500 bytes, §II-A) is split so its leading
//!   fragment carries L = F(R) bytes of payload; smaller ones are ignored;
//! - a leading fragment that carries more than L (an upstream router signalled a higher rate)
//!   is split again; one that carries L or less passes, so the path's smallest rate survives
//!   without routers coordinating (§II);
//! - non-leading fragments pass untouched.
//!
//! While the queue is above half full (§II-C2) the router stops signalling, until it falls
//! below again: flows that ignore its rates are filling it, and Kick-Ass endpoints, hearing no
//! rate for an RTT, fall back to TCP. RTT indicators (600…611 bytes, DF set) are read on
//! arrival and forwarded unfragmented.

use std::collections::VecDeque;

use super::encoding;
use super::rcp::{RcpParams, RcpRate};
use crate::ids::PacketId;
use crate::net::fragment::split_leading;
use crate::net::packet::{IPV4_HEADER_BYTES, PacketPool};
use crate::net::stage::{PortStage, QueueView};
use crate::qdisc::DropCause;
use crate::units::{Rate, SimTime};

/// The Kick-Ass router's parameters.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct KaParams {
    pub rcp: RcpParams,
    /// Occupancy (share of the queue's capacity in packets) above which the router stops
    /// signalling (§II-C2: 50 %).
    pub queue_threshold: f64,
    /// Unfragmented packets of at least this IP length are signalled on (§II-A: "data bearing
    /// packets are generally 1,500 bytes long … packets smaller than 1,500 bytes are ignored").
    pub full_size: u32,
}

impl Default for KaParams {
    fn default() -> KaParams {
        KaParams { rcp: RcpParams::default(), queue_threshold: 0.5, full_size: 1500 }
    }
}

/// Counters.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct KaRouterStats {
    /// Packets (or leading fragments) this router fragmented to signal its rate.
    pub signalled: u64,
    /// Leading fragments that already carried a rate at or below this router's.
    pub passed_lower: u64,
    /// Packets that would have been signalled on but had DF set.
    pub df_passed: u64,
    /// Packets that left while the router was not signalling (queue above the threshold, or
    /// rate below the lowest code).
    pub unsignalled: u64,
    pub indicators: u64,
    /// Times the router stopped signalling because of the queue (entered "TCP mode").
    pub silences: u64,
    /// Time spent silent because of the queue (silences that ended before the run did).
    pub silent_time: SimTime,
}

/// Whether the queue is above the threshold, with the time it last changed.
#[derive(Clone, Copy, Debug, Default)]
struct Silence {
    on: bool,
    since: SimTime,
}

/// Kick-Ass's router stage for one output port.
#[derive(Debug)]
pub struct KaRouter {
    params: KaParams,
    rcp: RcpRate,
    /// The leading-fragment payload for the current rate; `None` below the lowest code.
    signal_len: Option<u32>,
    silence: Silence,
    pub stats: KaRouterStats,
}

impl KaRouter {
    pub fn new(params: KaParams, link: Rate) -> KaRouter {
        let rcp = RcpRate::new(params.rcp, link);
        let signal_len = encoding::length_for_rate(rcp.rate());
        KaRouter { params, rcp, signal_len, silence: Silence::default(), stats: KaRouterStats::default() }
    }

    pub fn rate(&self) -> Rate {
        self.rcp.rate()
    }

    pub fn avg_rtt(&self) -> SimTime {
        self.rcp.avg_rtt()
    }

    /// The router is not signalling because its queue is above the threshold.
    pub fn is_silent(&self) -> bool {
        self.silence.on
    }

    fn over_threshold(&self, q: &QueueView) -> bool {
        q.capacity_packets.is_some_and(|cap| q.packets as f64 > self.params.queue_threshold * cap as f64)
    }

    fn track_silence(&mut self, now: SimTime, q: &QueueView) {
        let over = self.over_threshold(q);
        if over != self.silence.on {
            if over {
                self.stats.silences += 1;
            } else {
                self.stats.silent_time += now - self.silence.since;
            }
            self.silence = Silence { on: over, since: now };
        }
    }
}

/// Split `pkt` (not DF, the leading part of its datagram) so its leading fragment carries at
/// most `len` bytes of payload, if it is long enough to carry a signal: an unfragmented packet
/// of at least `full_size` bytes, or a leading fragment. Returns what happened.
fn signal(pool: &mut PacketPool, pkt: PacketId, len: u32, full_size: u32) -> Signal {
    let ip = pool.get(pkt).ip;
    if ip.frag_offset != 0 || (!ip.more_fragments && (ip.total_len as u32) < full_size) {
        return Signal::NotApplicable;
    }
    if ip.dont_fragment {
        return Signal::DontFragment;
    }
    let payload = ip.total_len as u32 - IPV4_HEADER_BYTES;
    if payload <= len {
        return Signal::AlreadyLower;
    }
    Signal::Split(split_leading(pool, pkt, len))
}

/// What [`signal`] did.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Signal {
    NotApplicable,
    DontFragment,
    AlreadyLower,
    /// Split: the remainder, to be sent right after the leading fragment.
    Split(PacketId),
}

impl PortStage for KaRouter {
    fn on_arrival(
        &mut self,
        now: SimTime,
        pkt: PacketId,
        pool: &mut PacketPool,
        q: &QueueView,
    ) -> Result<(), DropCause> {
        let ip = &pool.get(pkt).ip;
        self.rcp.on_input(ip.total_len as u32);
        if ip.dont_fragment
            && !ip.is_fragment()
            && let Some(rtt) = encoding::indicator_rtt(ip.total_len as u32)
        {
            self.stats.indicators += 1;
            self.rcp.on_rtt_sample(rtt);
        }
        self.track_silence(now, q);
        Ok(())
    }

    fn on_departure(
        &mut self,
        now: SimTime,
        pkt: PacketId,
        pool: &mut PacketPool,
        q: &QueueView,
        out: &mut VecDeque<PacketId>,
        _drops: &mut Vec<(PacketId, DropCause)>,
    ) {
        self.track_silence(now, q);
        out.push_back(pkt);
        let len = match self.signal_len {
            Some(l) if !self.silence.on => l,
            _ => {
                let p = pool.get(pkt);
                if p.ip.frag_offset == 0 && p.ip_len() >= self.params.full_size {
                    self.stats.unsignalled += 1;
                }
                return;
            }
        };
        match signal(pool, pkt, len, self.params.full_size) {
            Signal::Split(rest) => {
                self.stats.signalled += 1;
                out.push_back(rest);
            }
            Signal::AlreadyLower => self.stats.passed_lower += 1,
            Signal::DontFragment => self.stats.df_passed += 1,
            Signal::NotApplicable => {}
        }
    }

    fn poll_at(&self) -> Option<SimTime> {
        Some(self.rcp.next_update())
    }

    fn on_timer(&mut self, now: SimTime, q: &QueueView) {
        self.track_silence(now, q);
        self.rcp.update(now, q.bytes, self.silence.on);
        self.signal_len = encoding::length_for_rate(self.rcp.rate());
    }

    fn counters(&self) -> Vec<(&'static str, u64)> {
        let s = &self.stats;
        vec![
            ("signalled", s.signalled),
            ("passed_lower", s.passed_lower),
            ("df_passed", s.df_passed),
            ("unsignalled", s.unsignalled),
            ("indicators", s.indicators),
            ("silences", s.silences),
            ("silent_us", s.silent_time.ps() / crate::units::PS_PER_US),
            ("rate_kbps_at_end", self.rcp.rate().bps() / 1000),
            ("signal_len_at_end", self.signal_len.unwrap_or(0) as u64),
            ("avg_rtt_us_at_end", self.rcp.avg_rtt().ps() / crate::units::PS_PER_US),
            ("rate_updates", self.rcp.updates),
        ]
    }

    fn name(&self) -> &'static str {
        "ka-router"
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ids::HostId;
    use crate::net::packet::{Packet, TcpSegment};

    const LINK: Rate = Rate::from_mbps(100);

    /// A router whose rate is `share` of its 100 Mbit/s link.
    fn router(share: f64) -> KaRouter {
        let rcp = RcpParams { initial_rate_fraction: share, ..RcpParams::default() };
        KaRouter::new(KaParams { rcp, ..KaParams::default() }, LINK)
    }

    fn view(packets: usize) -> QueueView {
        QueueView { packets, bytes: packets as u64 * 1500, capacity_packets: Some(100), rate: LINK }
    }

    fn packet(pool: &mut PacketPool, ip_len: u32, df: bool) -> PacketId {
        let tcp = TcpSegment { payload_len: (ip_len - 40) as u16, ..TcpSegment::default() };
        let mut p = Packet::tcp_for_test(HostId(0), HostId(1), tcp);
        p.ip.dont_fragment = df;
        pool.alloc(p)
    }

    /// Pass `pkts` through `r`'s departure, in order; return what leaves.
    fn depart(r: &mut KaRouter, pool: &mut PacketPool, pkts: Vec<PacketId>, q: usize) -> Vec<PacketId> {
        let mut out = VecDeque::new();
        for p in pkts {
            r.on_departure(SimTime::ZERO, p, pool, &view(q), &mut out, &mut Vec::new());
        }
        out.into_iter().collect()
    }

    fn lens(pool: &PacketPool, pkts: &[PacketId]) -> Vec<(u32, u16, bool)> {
        pkts.iter()
            .map(|&p| (pool.get(p).ip_len(), pool.get(p).ip.frag_offset, pool.get(p).ip.more_fragments))
            .collect()
    }

    #[test]
    fn a_full_sized_packet_leaves_as_a_leading_fragment_of_f_r_bytes_and_the_rest() {
        let mut r = router(0.1); // 10 Mbit/s
        let len = encoding::length_for_rate(Rate::from_mbps(10)).unwrap();
        let mut pool = PacketPool::new();
        let p = packet(&mut pool, 1500, false);
        let out = depart(&mut r, &mut pool, vec![p], 0);
        assert_eq!(lens(&pool, &out), vec![(20 + len, 0, true), (1500 - len, (len / 8) as u16, false)]);
        assert_eq!(encoding::decode_length(len), Some(r.rate()).map(|_| encoding::rate_of_length(len)));
        assert_eq!(r.stats.signalled, 1);
    }

    #[test]
    fn through_two_routers_the_smaller_rate_survives_whichever_is_first() {
        let (low, high) = (0.02, 0.4);
        let want = encoding::length_for_rate(Rate::from_mbps(2)).unwrap();
        for (first, second) in [(low, high), (high, low)] {
            let (mut a, mut b) = (router(first), router(second));
            let mut pool = PacketPool::new();
            let p = packet(&mut pool, 1500, false);
            let after_a = depart(&mut a, &mut pool, vec![p], 0);
            let after_b = depart(&mut b, &mut pool, after_a, 0);
            let leading: Vec<_> = lens(&pool, &after_b).into_iter().filter(|l| l.1 == 0).collect();
            assert_eq!(leading, vec![(20 + want, 0, true)], "first {first}, second {second}");
            // The fragments still make up the datagram: offsets tile its payload.
            let mut end = 0;
            for (len, off, _) in lens(&pool, &after_b) {
                assert_eq!(off as u32 * 8, end);
                end += len - 20;
            }
            assert_eq!(end, 1480);
        }
    }

    #[test]
    fn df_packets_small_packets_and_non_leading_fragments_pass_untouched() {
        let mut r = router(0.1);
        let mut pool = PacketPool::new();
        let df = packet(&mut pool, 1500, true);
        let small = packet(&mut pool, 1000, false);
        let tail = packet(&mut pool, 1000, false);
        pool.get_mut(tail).ip.frag_offset = 60;
        let out = depart(&mut r, &mut pool, vec![df, small, tail], 0);
        assert_eq!(out, vec![df, small, tail]);
        assert_eq!(lens(&pool, &out), vec![(1500, 0, false), (1000, 0, false), (1000, 60, false)]);
        assert_eq!((r.stats.df_passed, r.stats.signalled), (1, 0));
    }

    #[test]
    fn it_stops_signalling_above_half_a_queue_and_resumes_below() {
        let mut r = router(0.1);
        let mut pool = PacketPool::new();
        let mut leaves = |r: &mut KaRouter, q: usize| {
            let p = packet(&mut pool, 1500, false);
            depart(r, &mut pool, vec![p], q).len()
        };
        assert_eq!(leaves(&mut r, 50), 2, "exactly half: still signalling");
        assert_eq!(leaves(&mut r, 51), 1, "above half: the packet leaves whole");
        assert!(r.is_silent());
        assert_eq!(leaves(&mut r, 80), 1);
        assert_eq!(leaves(&mut r, 50), 2, "back at half: signalling again");
        assert!(!r.is_silent());
        assert_eq!((r.stats.silences, r.stats.unsignalled), (1, 2));
    }

    #[test]
    fn below_the_lowest_code_it_does_not_signal() {
        let mut r = router(0.001); // 100 Kbit/s < 120 Kbit/s
        let mut pool = PacketPool::new();
        let p = packet(&mut pool, 1500, false);
        assert_eq!(depart(&mut r, &mut pool, vec![p], 0).len(), 1);
        assert_eq!(r.stats.unsignalled, 1);
    }

    #[test]
    fn rtt_indicators_are_read_and_forwarded_whole() {
        let mut r = router(0.1);
        let mut pool = PacketPool::new();
        for size in [601, 606, 606] {
            let p = packet(&mut pool, size, true);
            r.on_arrival(SimTime::ZERO, p, &mut pool, &view(0)).unwrap();
            assert_eq!(depart(&mut r, &mut pool, vec![p], 0), vec![p]);
        }
        // Without DF a 606-byte packet is just a packet.
        let p = packet(&mut pool, 606, false);
        r.on_arrival(SimTime::ZERO, p, &mut pool, &view(0)).unwrap();
        assert_eq!(r.stats.indicators, 3);
        // First sample taken whole (3 ms), then the moving average moves 2 % per sample.
        let d = r.avg_rtt().as_secs_f64();
        let want = 0.003 + 0.02 * (0.096 - 0.003);
        let want = want + 0.02 * (0.096 - want);
        assert!((d - want).abs() < 1e-9, "{d} vs {want}");
    }
}
