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
//! With a `signal_spacing` (the paper's §V overhead reduction) an unfragmented packet is
//! signalled on only if its flow has not been for that share of the average RTT
//! ([`super::signal_spacing`]); a leading fragment carrying a higher rate is always cut, so the
//! path's smallest rate still arrives.
//!
//! While the queue is above half full (§II-C2) the router stops signalling, until it falls
//! below again: flows that ignore its rates are filling it, and Kick-Ass endpoints, hearing no
//! rate for an RTT, fall back to TCP. RTT indicators (600…611 bytes, DF set) are read on
//! arrival and forwarded unfragmented.
//!
//! When the router resumes signalling it re-anchors R at the fair share C/N, N the flows it saw
//! in the last average RTT (counted without per-flow state, [`super::flow_count`]): the paper's
//! router "starts sending fair-share rates" as soon as TCP leaves (§III-D1, Fig. 5), while
//! RCP's R, driven by a queue that flows ignoring it built, may have fallen below the lowest
//! code — where the router cannot signal at all and the flows, in TCP mode, would keep the
//! queue up for good. It resumes when its queue falls back below the threshold, and also when
//! R has been below the lowest code for an average RTT with the queue below the threshold and
//! every flow that sends data through the router a Kick-Ass flow (it sends RTT indicators,
//! §II-B): the Kick-Ass flows have then all fallen back to TCP (§II-C2) and the queue R tracks
//! is theirs. With legacy TCP flows present the router leaves R to RCP's law, and the
//! Kick-Ass flows compete as TCP, as the paper wants; so it does when the fair share itself is
//! below the lowest code. How R resumes is our choice, the paper leaves it open (`reanchor`).

use std::collections::VecDeque;

use super::encoding::{self, Rounding};
use super::flow_count::{FlowCounter, flow_key};
use super::rcp::{RcpParams, RcpRate};
use super::signal_spacing::SignalSpacer;
use crate::ids::PacketId;
use crate::net::fragment::split_leading;
use crate::net::packet::{IPV4_HEADER_BYTES, Packet, PacketPool};
use crate::net::stage::{PortStage, QueueView};
use crate::qdisc::DropCause;
use crate::units::{Rate, SimTime};

/// Two of the endpoints' RTT-indicator intervals (§II-B: every 100 ms): the shortest window in
/// which every Kick-Ass flow is sure to have sent one.
const INDICATOR_WINDOW: SimTime = SimTime::from_ms(200);

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
    /// Once silent, resume signalling only at or below this share of the queue (hysteresis).
    /// Default: the same as `queue_threshold` (the paper's single threshold).
    pub resume_threshold: f64,
    /// Re-anchor R at the fair share C/N when signalling resumes (see the module's contract).
    pub reanchor: bool,
    /// Fall silent only while legacy flows (data without RTT indicators) share the link: the
    /// 50 % rule exists for flows that ignore the router's rates (§II-C2), and Kick-Ass flows
    /// in TCP mode follow them again as soon as they are signalled. False: the queue alone
    /// decides, the paper's rule read literally.
    pub legacy_detection: bool,
    /// How F(R) is rounded to a length (the paper does not say).
    pub rounding: Rounding,
    /// Signal a flow at most once per this share of the average RTT (§V); 0: every packet
    /// (§II-A).
    pub signal_spacing: f64,
    /// Slots of the spacing table (flows hashed to one slot are signalled more often).
    pub signal_slots: usize,
}

impl Default for KaParams {
    fn default() -> KaParams {
        KaParams {
            rcp: RcpParams::default(),
            queue_threshold: 0.5,
            full_size: 1500,
            resume_threshold: 0.5,
            reanchor: true,
            legacy_detection: true,
            rounding: Rounding::Nearest,
            signal_spacing: 0.0,
            signal_slots: 4096,
        }
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
    /// Times R was re-anchored at the fair share on resuming.
    pub reanchors: u64,
    /// Unfragmented packets left whole because their flow was signalled less than the spacing
    /// ago.
    pub spaced: u64,
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
    /// Per counting window (see `rotate_flow_window`): flows that sent data (for the fair
    /// share), and the host pairs that sent data and that sent RTT indicators (Kick-Ass
    /// endpoints; an indicator is a datagram of its own, without the connection's ports).
    flows: FlowCounter,
    data_pairs: FlowCounter,
    ka_pairs: FlowCounter,
    flows_window_end: SimTime,
    /// Since when R has been below the lowest code with the queue below the threshold.
    under_code_since: Option<SimTime>,
    /// Per-flow signal times, with a `signal_spacing`.
    spacer: Option<SignalSpacer>,
    pub stats: KaRouterStats,
}

impl KaRouter {
    pub fn new(params: KaParams, link: Rate) -> KaRouter {
        let rcp = RcpRate::new(params.rcp, link);
        let signal_len = encoding::length_for_rate_rounded(rcp.rate(), params.rounding);
        KaRouter {
            params,
            rcp,
            signal_len,
            silence: Silence::default(),
            flows: FlowCounter::default(),
            data_pairs: FlowCounter::default(),
            ka_pairs: FlowCounter::default(),
            flows_window_end: SimTime::ZERO,
            under_code_since: None,
            spacer: (params.signal_spacing > 0.0).then(|| SignalSpacer::new(params.signal_slots)),
            stats: KaRouterStats::default(),
        }
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

    /// Is the queue above `share` of its capacity? (Validation refuses a Kick-Ass router on a
    /// queue without a fixed capacity.)
    fn above(&self, q: &QueueView, share: f64) -> bool {
        q.capacity_packets.is_some_and(|cap| q.packets as f64 > share * cap as f64)
    }

    fn track_silence(&mut self, now: SimTime, q: &QueueView) {
        let share = if self.silence.on { self.params.resume_threshold } else { self.params.queue_threshold };
        let legacy = !self.params.legacy_detection || !self.only_kick_ass_flows();
        let silent = legacy && self.above(q, share);
        if silent != self.silence.on {
            if silent {
                self.stats.silences += 1;
            } else {
                self.stats.silent_time += now - self.silence.since;
                self.resume();
            }
            self.silence = Silence { on: silent, since: now };
        }
    }

    /// Signalling resumes: R starts again from the fair share of the flows present.
    fn resume(&mut self) {
        if !self.params.reanchor {
            return;
        }
        let n = self.flows.estimate().max(1.0);
        self.rcp.set_rate(Rate((self.rcp.capacity().bps() as f64 / n) as u64));
        self.update_signal_len();
        self.stats.reanchors += 1;
    }

    fn update_signal_len(&mut self) {
        self.signal_len = encoding::length_for_rate_rounded(self.rcp.rate(), self.params.rounding);
    }

    /// With a spacing: is `p`, an unfragmented packet that could carry a signal, to leave whole
    /// because its flow had one less than the spacing ago? (Leading fragments are not asked:
    /// one carrying a higher rate must be cut whatever the spacing.)
    fn spaced_out(&mut self, now: SimTime, p: &Packet) -> bool {
        let Some(spacer) = self.spacer.as_mut() else { return false };
        if p.ip.is_fragment() || p.ip.dont_fragment || p.ip_len() < self.params.full_size {
            return false;
        }
        let spacing =
            SimTime::from_secs_f64_bounded(self.rcp.avg_rtt().as_secs_f64() * self.params.signal_spacing);
        let key = flow_key(p.ip.src.0, p.ip.dst.0, p.tcp.src_port, p.tcp.dst_port);
        !spacer.due(key, now, spacing)
    }

    /// Count the packet's flow: data (in packets carrying the transport header), or an RTT
    /// indicator.
    fn count_flow(&mut self, p: &Packet, indicator: bool) {
        if !p.has_l4_header() {
            return;
        }
        let pair = flow_key(p.ip.src.0, p.ip.dst.0, 0, 0);
        if indicator {
            self.ka_pairs.observe(pair);
        } else if p.tcp.payload_len > 0 {
            self.flows.observe(flow_key(p.ip.src.0, p.ip.dst.0, p.tcp.src_port, p.tcp.dst_port));
            self.data_pairs.observe(pair);
        }
    }

    /// Every host pair sending data also sends RTT indicators: no legacy flow is present
    /// (identical sets set the same bits; a legacy pair sets bits of its own). Asked on every
    /// packet, so it compares the kept bit counts.
    fn only_kick_ass_flows(&self) -> bool {
        let data = self.data_pairs.bits_set();
        data > 0 && data <= self.ka_pairs.bits_set()
    }

    /// R has been below the lowest code, the queue below the threshold, for an average RTT:
    /// resume (at most once per RTT, for a fair share that is itself below the code).
    fn resume_if_under_code(&mut self, now: SimTime) {
        if self.silence.on || self.signal_len.is_some() || !self.only_kick_ass_flows() {
            self.under_code_since = None;
            return;
        }
        let since = *self.under_code_since.get_or_insert(now);
        if now - since >= self.rcp.avg_rtt() {
            self.resume();
            self.under_code_since = Some(now);
        }
    }

    /// The flow-counting window: an average RTT (a flow that sends at all sends once per RTT),
    /// and at least two of the endpoints' 100 ms indicator intervals (§II-B).
    fn rotate_flow_window(&mut self, now: SimTime) {
        if now >= self.flows_window_end {
            self.flows.rotate();
            self.data_pairs.rotate();
            self.ka_pairs.rotate();
            self.flows_window_end = now + self.rcp.avg_rtt().max(INDICATOR_WINDOW);
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
        let rtt = if ip.dont_fragment && !ip.is_fragment() {
            encoding::indicator_rtt(ip.total_len as u32)
        } else {
            None
        };
        if let Some(rtt) = rtt {
            self.stats.indicators += 1;
            self.rcp.on_rtt_sample(rtt);
        }
        self.count_flow(pool.get(pkt), rtt.is_some());
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
        if self.spaced_out(now, pool.get(pkt)) {
            self.stats.spaced += 1;
            return;
        }
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
        self.rotate_flow_window(now);
        self.track_silence(now, q);
        self.rcp.update(now, q.bytes, self.silence.on);
        self.update_signal_len();
        self.resume_if_under_code(now);
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
            ("reanchors", s.reanchors),
            ("spaced", s.spaced),
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
        QueueView {
            packets,
            bytes: packets as u64 * 1500,
            capacity_packets: Some(100),
            rate: LINK,
            in_service_bytes: 0,
        }
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

    /// §V: with a spacing, a flow's packets within the spacing leave whole; the next one after
    /// it is signalled; a leading fragment carrying a higher rate is cut whatever the spacing.
    #[test]
    fn with_a_spacing_a_flow_is_signalled_once_per_spacing_and_higher_rates_are_still_cut() {
        let rcp = RcpParams { initial_rate_fraction: 0.02, ..RcpParams::default() };
        let params = KaParams { rcp, signal_spacing: 0.5, ..KaParams::default() };
        let mut r = KaRouter::new(params, LINK);
        let half_rtt = SimTime::from_ps(r.avg_rtt().ps() / 2); // initial d: 200 ms
        let mut pool = PacketPool::new();
        let leave = |r: &mut KaRouter, pool: &mut PacketPool, at: SimTime, pkt: PacketId| {
            let mut out = VecDeque::new();
            r.on_departure(at, pkt, pool, &view(0), &mut out, &mut Vec::new());
            out.len()
        };
        let ms = SimTime::from_ms;
        let pieces: Vec<usize> = [ms(0), ms(1), ms(50), half_rtt - ms(1), half_rtt, half_rtt + ms(1)]
            .into_iter()
            .map(|t| {
                let p = packet(&mut pool, 1500, false);
                leave(&mut r, &mut pool, t, p)
            })
            .collect();
        assert_eq!(pieces, vec![2, 1, 1, 1, 2, 1], "signalled at 0 and at half an RTT");
        assert_eq!((r.stats.signalled, r.stats.spaced), (2, 4));
        // An upstream router signalled a higher rate: cut again, within the spacing.
        let mut up = router(0.4);
        let p = packet(&mut pool, 1500, false);
        let from_up = depart(&mut up, &mut pool, vec![p], 0);
        let lead = from_up[0];
        assert_eq!(leave(&mut r, &mut pool, half_rtt + ms(2), lead), 2);
        let want = encoding::length_for_rate(r.rate()).unwrap();
        assert_eq!(pool.get(lead).ip_len(), 20 + want);
    }

    #[test]
    fn rounding_down_signals_a_level_at_or_below_the_rate() {
        for share in [0.013, 0.05, 0.117, 0.3] {
            let rcp = RcpParams { initial_rate_fraction: share, ..RcpParams::default() };
            let r = KaRouter::new(KaParams { rcp, rounding: Rounding::Down, ..KaParams::default() }, LINK);
            let len = r.signal_len.unwrap();
            assert!(encoding::rate_of_length(len) <= r.rate(), "{share}");
            assert!(encoding::rate_of_length(len + 8) > r.rate(), "{share}: the highest such level");
        }
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
        let mut r = KaRouter::new(KaParams { legacy_detection: false, ..router(0.1).params }, LINK);
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

    /// Data from `flows` host pairs (one connection each), and RTT indicators from the first
    /// `ka` of them, arriving at `r` with `q` packets queued.
    fn traffic(r: &mut KaRouter, pool: &mut PacketPool, now: SimTime, flows: u32, ka: u32, q: usize) {
        for f in 0..flows {
            let tcp = TcpSegment { payload_len: 1460, src_port: 5000, dst_port: 80, ..TcpSegment::default() };
            let p = pool.alloc(Packet::tcp_for_test(HostId(f), HostId(1000 + f), tcp));
            r.on_arrival(now, p, pool, &view(q)).unwrap();
            if f < ka {
                let ind = packet(pool, 606, true);
                pool.get_mut(ind).ip.src = HostId(f);
                pool.get_mut(ind).ip.dst = HostId(1000 + f);
                r.on_arrival(now, ind, pool, &view(q)).unwrap();
            }
        }
    }

    /// Silent while legacy flows fill the queue, the router resumes at the fair share C/N of
    /// the flows it counted once the queue falls: not at whatever RCP's law left R at.
    #[test]
    fn resuming_it_re_anchors_the_rate_at_the_fair_share() {
        let mut r = router(0.001); // 100 Kbit/s: below the lowest code
        let mut pool = PacketPool::new();
        traffic(&mut r, &mut pool, SimTime::ZERO, 20, 10, 80); // 10 legacy flows: silent
        assert!(r.is_silent());
        r.on_timer(SimTime::from_ms(10), &view(80));
        traffic(&mut r, &mut pool, SimTime::from_ms(20), 20, 10, 40);
        assert!(!r.is_silent());
        let share = r.rate().bps() as f64 / (100e6 / 20.0);
        assert!((share - 1.0).abs() < 0.05, "R = {} for 20 flows on 100 Mbit/s", r.rate());
        assert!(r.stats.reanchors >= 1);
        // Without re-anchoring, R stays where the law left it.
        let p = KaParams { reanchor: false, ..router(0.001).params };
        let mut r = KaRouter::new(p, LINK);
        traffic(&mut r, &mut pool, SimTime::ZERO, 20, 10, 80);
        traffic(&mut r, &mut pool, SimTime::from_ms(20), 20, 10, 40);
        assert_eq!((r.rate(), r.stats.reanchors), (Rate::from_kbps(100), 0));
    }

    /// Above half a queue the router falls silent only while flows that ignore its rates — data
    /// without RTT indicators — share the link (or when told to read the rule literally).
    #[test]
    fn a_queue_of_kick_ass_flows_alone_does_not_silence_it() {
        let mut pool = PacketPool::new();
        let mut r = router(0.1);
        traffic(&mut r, &mut pool, SimTime::ZERO, 8, 8, 80);
        assert!(!r.is_silent(), "only Kick-Ass flows: they follow rates, so keep signalling");
        traffic(&mut r, &mut pool, SimTime::ZERO, 9, 8, 80);
        assert!(r.is_silent(), "a legacy flow joins: silent");
        let literal = KaParams { legacy_detection: false, ..router(0.1).params };
        let mut r = KaRouter::new(literal, LINK);
        traffic(&mut r, &mut pool, SimTime::ZERO, 8, 8, 80);
        assert!(r.is_silent());
    }

    /// With only Kick-Ass flows, an R below the lowest code for an average RTT means they have
    /// all fallen back to TCP: the router resumes at the fair share. With a legacy flow
    /// present it does not (they compete as TCP, §II-C2).
    #[test]
    fn under_the_lowest_code_for_an_rtt_it_resumes_if_no_legacy_flow_is_there() {
        for (ka, resumes) in [(8, true), (7, false)] {
            let mut r = router(0.001);
            r.rcp.on_rtt_sample(SimTime::from_ms(100));
            let mut pool = PacketPool::new();
            let mut now = SimTime::ZERO;
            for _ in 0..25 {
                now += SimTime::from_ms(10);
                traffic(&mut r, &mut pool, now, 8, ka, 40);
                r.on_timer(now, &view(40));
            }
            assert_eq!(r.stats.reanchors > 0, resumes, "{ka} of 8 flows Kick-Ass");
            assert_eq!(r.signal_len.is_some(), resumes);
        }
    }

    /// Hysteresis: once silent, the router resumes only at or below `resume_threshold`.
    #[test]
    fn with_a_resume_threshold_it_resumes_lower_than_it_fell_silent() {
        let p = KaParams { resume_threshold: 0.3, legacy_detection: false, ..router(0.1).params };
        let mut r = KaRouter::new(p, LINK);
        let mut pool = PacketPool::new();
        let mut leaves = |r: &mut KaRouter, q: usize| {
            let p = packet(&mut pool, 1500, false);
            depart(r, &mut pool, vec![p], q).len()
        };
        assert_eq!(leaves(&mut r, 51), 1);
        assert_eq!(leaves(&mut r, 40), 1, "between the thresholds: still silent");
        assert_eq!(leaves(&mut r, 30), 2, "at the resume threshold: signalling");
        assert_eq!(leaves(&mut r, 40), 2, "and below the silence threshold it stays so");
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
