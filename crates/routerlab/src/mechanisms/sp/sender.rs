//! The super-packet sender (§4): a host shim that turns a flow's bursts into super-packets.
//!
//! A TCP sender cannot know how long a window will be when it sends its first packet, so the
//! shim holds each flow's outgoing segments and, once the flow has been quiet for T_buffer,
//! sends everything held back to back as one SP (several if more than 63 are held, the 6-bit
//! length's limit). T_buffer is "the time required to transmit five packets" at the sender's
//! link rate: 60 µs at 1 Gbps with 1500-byte packets (§4).
//!
//! The paper's rejected alternative (§5.3) is a mode: with a `fixed_length` L nothing is held;
//! a flow's data segments leave at once, numbered off into SPs of L in sending order (the first
//! announcing L), so the router reserves for packets the flow may never send.
//!
//! Only connections with `sp` on go through the shim (per flow, so "SP on all flows" and "SP
//! on short flows only" compare). Pure control segments (SYN, ACK) of a flow with nothing held
//! pass at once; once data is held, every later segment of the flow queues behind it, so order
//! is kept. A flush of a single packet is sent as a regular packet (an SP of length 1, to
//! Algorithm 1). SP identifiers count per destination, as §3.2 requires uniqueness per
//! (source, destination).

use std::collections::{HashMap, VecDeque};

use super::wire::{MAX_SP_LENGTH, SpMark};
use crate::host::{BuildShim, HostShim};
use crate::ids::{HostId, PacketId};
use crate::net::packet::{FlowKey, MetaFlags, PacketPool};
use crate::units::{Rate, SimTime, Size};

/// The sender shim as a scenario specifies it, every host's T_buffer at its own link rate
/// unless given.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SpSenderSpec {
    /// T_buffer; None: five full-sized packets at each host's own link rate (the paper's).
    pub t_buffer: Option<SimTime>,
    pub max_length: u32,
    /// §5.3's fixed-length SPs without buffering (None: the paper's buffering sender).
    pub fixed_length: Option<u32>,
}

impl BuildShim for SpSenderSpec {
    fn build(&self, _host: HostId, nic_rate: Rate) -> Option<Box<dyn HostShim>> {
        let mut params = SpSenderParams::for_link(nic_rate);
        params.t_buffer = self.t_buffer.unwrap_or(params.t_buffer);
        params.max_length = self.max_length;
        params.fixed_length = self.fixed_length;
        Some(Box::new(SpSender::new(params)))
    }
}

#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SpSenderParams {
    /// Quiet time after which a flow's held segments leave as one SP.
    pub t_buffer: SimTime,
    /// Largest SP length sent (at most 63, the wire's limit).
    pub max_length: u32,
    /// §5.3's "fixed super-packet length for all data sent", without buffering: `None` (the
    /// paper's sender) or the length L.
    pub fixed_length: Option<u32>,
}

impl SpSenderParams {
    /// Packets' worth of transmission time in T_buffer (§4: "the time required to transmit
    /// five packets").
    pub const BUFFER_PACKETS: u64 = 5;

    /// The paper's defaults for a host whose link runs at `rate`: T_buffer = five 1500-byte
    /// packets' transmission time, SPs up to 63 packets.
    pub fn for_link(rate: Rate) -> SpSenderParams {
        SpSenderParams {
            t_buffer: rate.tx_time(Self::BUFFER_PACKETS * Size::FULL_PACKET_BYTES),
            max_length: MAX_SP_LENGTH,
            fixed_length: None,
        }
    }
}

/// What the shim sent.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SpSenderStats {
    /// Super-packets (length ≥ 2) and the packets in them.
    pub sps: u64,
    pub sp_packets: u64,
    /// Flushes of a single packet, sent regular.
    pub singles: u64,
    /// Packets sent, by the length of the SP they left in (a single is length 1), in
    /// power-of-two bins: 1, 2–3, 4–7, 8–15, 16–31, 32–63.
    pub packets_by_length: [u64; LENGTH_BINS.len()],
}

/// The counters' names of `SpSenderStats::packets_by_length`'s bins.
pub const LENGTH_BINS: [&str; 6] = [
    "packets_in_length_1",
    "packets_in_length_2_3",
    "packets_in_length_4_7",
    "packets_in_length_8_15",
    "packets_in_length_16_31",
    "packets_in_length_32_63",
];

impl SpSenderStats {
    /// Count `packets` sent in an SP of `length` (1: a single).
    fn count(&mut self, length: usize, packets: u64) {
        let bin = length.max(1).ilog2() as usize;
        self.packets_by_length[bin.min(LENGTH_BINS.len() - 1)] += packets;
    }
}

#[derive(Debug)]
struct FlowBuffer {
    dst: HostId,
    held: Vec<PacketId>,
    /// When the flow will have been quiet for T_buffer.
    quiet_at: SimTime,
    /// Fixed-length mode: packets of the current SP sent so far, and its identifier (taken
    /// when its first packet leaves: other flows to the same host start SPs meanwhile).
    in_sp: u32,
    sp_id: u16,
}

#[derive(Debug)]
pub struct SpSender {
    pub p: SpSenderParams,
    /// Flows in the order first seen (flushes due at once go in this order).
    flows: Vec<FlowBuffer>,
    index: HashMap<FlowKey, usize>,
    next_id: HashMap<HostId, u16>,
    /// Deadlines in the order they were set — which is time order, as every new one is the
    /// latest — with the front kept current (stale entries of flows that sent again or were
    /// flushed are dropped when they reach it): `poll_at` without a scan of the flows.
    due: VecDeque<(SimTime, usize)>,
    pub stats: SpSenderStats,
}

impl SpSender {
    pub fn new(p: SpSenderParams) -> SpSender {
        debug_assert!((1..=MAX_SP_LENGTH).contains(&p.max_length));
        SpSender {
            p,
            flows: Vec::new(),
            index: HashMap::new(),
            next_id: HashMap::new(),
            due: VecDeque::new(),
            stats: Default::default(),
        }
    }

    /// Drop deadlines at the front that no longer hold: their flow sent again or was flushed.
    fn prune_due(&mut self) {
        while let Some(&(t, f)) = self.due.front() {
            let flow = &self.flows[f];
            if !flow.held.is_empty() && flow.quiet_at == t {
                break;
            }
            self.due.pop_front();
        }
    }

    /// Fixed-length mode: `pkt` leaves at once as the next packet of the flow's current SP of
    /// `length`, the first of a new one when the last is complete.
    fn send_fixed(
        &mut self,
        f: usize,
        length: u32,
        pkt: PacketId,
        pool: &mut PacketPool,
        out: &mut Vec<PacketId>,
    ) {
        let buf = &mut self.flows[f];
        let first = buf.in_sp == 0;
        if first {
            let id = self.next_id.entry(buf.dst).or_default();
            buf.sp_id = *id;
            *id = id.wrapping_add(1);
            self.stats.sps += 1;
        }
        SpMark { first, last: false, length: length as u8, id: buf.sp_id }.write(&mut pool.get_mut(pkt).ip);
        self.stats.sp_packets += 1;
        self.stats.count(length as usize, 1);
        buf.in_sp = (buf.in_sp + 1) % length;
        out.push(pkt);
    }

    /// Send a flow's held packets as SPs of at most `max_length`.
    fn flush(&mut self, f: usize, pool: &mut PacketPool, out: &mut Vec<PacketId>) {
        let FlowBuffer { dst, held, .. } = &mut self.flows[f];
        for chunk in held.chunks(self.p.max_length as usize) {
            self.stats.count(chunk.len(), chunk.len() as u64);
            if chunk.len() == 1 {
                self.stats.singles += 1;
            } else {
                let id = self.next_id.entry(*dst).or_default();
                for (i, &p) in chunk.iter().enumerate() {
                    let mark = SpMark { first: i == 0, last: false, length: chunk.len() as u8, id: *id };
                    mark.write(&mut pool.get_mut(p).ip);
                }
                *id = id.wrapping_add(1);
                self.stats.sps += 1;
                self.stats.sp_packets += chunk.len() as u64;
            }
            out.extend_from_slice(chunk);
        }
        held.clear();
    }
}

impl HostShim for SpSender {
    fn on_egress(&mut self, now: SimTime, pkt: PacketId, pool: &mut PacketPool, out: &mut Vec<PacketId>) {
        let p = pool.get(pkt);
        let key = match FlowKey::of(p) {
            Some((key, _)) if p.meta.flags.has(MetaFlags::GROUPABLE) => key,
            _ => return out.push(pkt),
        };
        let f = *self.index.entry(key).or_insert_with(|| {
            self.flows.push(FlowBuffer {
                dst: key.dst,
                held: Vec::new(),
                quiet_at: SimTime::ZERO,
                in_sp: 0,
                sp_id: 0,
            });
            self.flows.len() - 1
        });
        let buf = &mut self.flows[f];
        if p.tcp.payload_len == 0 && buf.held.is_empty() {
            return out.push(pkt);
        }
        if let Some(length) = self.p.fixed_length {
            return self.send_fixed(f, length, pkt, pool, out);
        }
        buf.held.push(pkt);
        buf.quiet_at = now + self.p.t_buffer;
        if self.p.t_buffer == SimTime::ZERO {
            self.flush(f, pool, out);
        } else {
            self.due.push_back((buf.quiet_at, f));
            self.prune_due();
        }
    }

    fn poll_at(&self) -> Option<SimTime> {
        self.due.front().map(|&(t, _)| t)
    }

    fn on_timer(&mut self, now: SimTime, pool: &mut PacketPool, out: &mut Vec<PacketId>) {
        for f in 0..self.flows.len() {
            if !self.flows[f].held.is_empty() && self.flows[f].quiet_at <= now {
                self.flush(f, pool, out);
            }
        }
        self.prune_due();
    }

    fn counters(&self) -> Vec<(&'static str, u64)> {
        vec![
            ("sps_sent", self.stats.sps),
            ("sp_packets_sent", self.stats.sp_packets),
            ("singles_sent", self.stats.singles),
        ]
        .into_iter()
        .chain(LENGTH_BINS.into_iter().zip(self.stats.packets_by_length))
        .collect()
    }

    fn name(&self) -> &'static str {
        "sp-sender"
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::net::packet::{Packet, TcpFlags, TcpSegment};

    fn data(pool: &mut PacketPool, sport: u16, payload: u32, sp: bool) -> PacketId {
        let tcp = TcpSegment {
            src_port: sport,
            dst_port: 80,
            flags: TcpFlags::ACK,
            payload_len: payload as u16,
            ..Default::default()
        };
        let mut p = Packet::tcp_for_test(HostId(0), HostId(1), tcp);
        p.meta.flags.set(MetaFlags::GROUPABLE, sp);
        pool.alloc(p)
    }

    fn marks(pool: &PacketPool, out: &[PacketId]) -> Vec<(bool, u8, u16)> {
        out.iter()
            .map(|&p| {
                let m = SpMark::read(&pool.get(p).ip);
                (m.first, m.length, m.id)
            })
            .collect()
    }

    /// §5.3's rejected design: nothing held, packets numbered off into SPs of a fixed length
    /// in sending order, the last one left short when the flow stops.
    #[test]
    fn a_fixed_length_sender_sends_at_once_in_sps_of_that_length() {
        let mut pool = PacketPool::new();
        let params = SpSenderParams { fixed_length: Some(4), ..SpSenderParams::for_link(Rate::from_gbps(1)) };
        let mut s = SpSender::new(params);
        let mut marks_sent = Vec::new();
        for t in 0..6 {
            let mut out = Vec::new();
            s.on_egress(SimTime::from_us(200 * t), data(&mut pool, 1, 1000, true), &mut pool, &mut out);
            assert_eq!(out.len(), 1, "nothing is held");
            marks_sent.extend(marks(&pool, &out));
        }
        assert_eq!(s.poll_at(), None, "no flush to wait for");
        let firsts: Vec<bool> = marks_sent.iter().map(|m| m.0).collect();
        assert_eq!(firsts, vec![true, false, false, false, true, false]);
        assert!(marks_sent.iter().all(|m| m.1 == 4), "every packet announces the fixed length");
        assert_eq!(marks_sent.iter().map(|m| m.2).collect::<Vec<_>>(), vec![0, 0, 0, 0, 1, 1]);
        assert_eq!((s.stats.sps, s.stats.sp_packets, s.stats.singles), (2, 6, 0));
        // Two flows to the same host, interleaved: each SP has an identifier of its own.
        let mut out = Vec::new();
        for t in 0..4 {
            let sport = 2 + (t % 2) as u16;
            s.on_egress(SimTime::from_ms(10 + t), data(&mut pool, sport, 1000, true), &mut pool, &mut out);
        }
        let ids: Vec<(bool, u16)> = marks(&pool, &out).iter().map(|m| (m.0, m.2)).collect();
        assert_eq!(ids, vec![(true, 2), (true, 3), (false, 2), (false, 3)]);
    }

    #[test]
    fn a_burst_leaves_as_one_super_packet_after_t_buffer_of_quiet() {
        let mut pool = PacketPool::new();
        let mut s = SpSender::new(SpSenderParams::for_link(Rate::from_gbps(1)));
        assert_eq!(s.p.t_buffer, SimTime::from_us(60), "§4: 60 µs at 1 Gbps");
        let mut out = Vec::new();
        for t in 0..4 {
            s.on_egress(SimTime::from_us(10 * t), data(&mut pool, 1, 1000, true), &mut pool, &mut out);
        }
        assert!(out.is_empty(), "held while the flow keeps sending");
        assert_eq!(s.poll_at(), Some(SimTime::from_us(90)));
        s.on_timer(SimTime::from_us(90), &mut pool, &mut out);
        assert_eq!(marks(&pool, &out), vec![(true, 4, 0), (false, 4, 0), (false, 4, 0), (false, 4, 0)]);
        assert_eq!(s.poll_at(), None);
        // The next SP to the same destination takes the next identifier.
        out.clear();
        for _ in 0..2 {
            s.on_egress(SimTime::from_us(100), data(&mut pool, 1, 1000, true), &mut pool, &mut out);
        }
        s.on_timer(SimTime::from_us(160), &mut pool, &mut out);
        assert_eq!(marks(&pool, &out), vec![(true, 2, 1), (false, 2, 1)]);
    }

    #[test]
    fn long_bursts_split_at_the_length_cap_and_singles_stay_regular() {
        let mut pool = PacketPool::new();
        let mut s = SpSender::new(SpSenderParams {
            t_buffer: SimTime::from_us(60),
            max_length: 3,
            fixed_length: None,
        });
        let mut out = Vec::new();
        for _ in 0..7 {
            s.on_egress(SimTime::ZERO, data(&mut pool, 1, 1000, true), &mut pool, &mut out);
        }
        s.on_timer(SimTime::from_us(60), &mut pool, &mut out);
        let lengths: Vec<u8> = marks(&pool, &out).iter().map(|m| m.1).collect();
        assert_eq!(lengths, vec![3, 3, 3, 3, 3, 3, 0], "3 + 3 + a regular packet");
        let by_length = [1, 6, 0, 0, 0, 0];
        assert_eq!(
            s.stats,
            SpSenderStats { sps: 2, sp_packets: 6, singles: 1, packets_by_length: by_length }
        );
    }

    /// The length distribution counts every packet once, a single as length 1, each in its
    /// SP's power-of-two bin.
    #[test]
    fn packets_are_counted_by_the_length_of_the_sp_they_left_in() {
        let mut pool = PacketPool::new();
        let mut s = SpSender::new(SpSenderParams::for_link(Rate::from_gbps(1)));
        let mut out = Vec::new();
        let mut now = SimTime::ZERO;
        for burst in [1, 2, 5, 8, 40] {
            for _ in 0..burst {
                s.on_egress(now, data(&mut pool, 1, 1000, true), &mut pool, &mut out);
            }
            now += SimTime::from_ms(1);
            s.on_timer(now, &mut pool, &mut out);
        }
        assert_eq!(s.stats.packets_by_length, [1, 2, 5, 8, 0, 40]);
        let total: u64 = s.stats.packets_by_length.iter().sum();
        assert_eq!(total, s.stats.sp_packets + s.stats.singles);
        assert_eq!(total, out.len() as u64);
    }

    #[test]
    fn other_flows_and_bare_acks_pass_and_order_is_kept() {
        let mut pool = PacketPool::new();
        let mut s = SpSender::new(SpSenderParams::for_link(Rate::from_gbps(1)));
        let mut out = Vec::new();
        let legacy = data(&mut pool, 2, 1000, false);
        s.on_egress(SimTime::ZERO, legacy, &mut pool, &mut out);
        let ack = data(&mut pool, 1, 0, true);
        s.on_egress(SimTime::ZERO, ack, &mut pool, &mut out);
        assert_eq!(out, vec![legacy, ack], "a flow without SP, and a bare ACK with nothing held, pass");
        out.clear();
        let d = data(&mut pool, 1, 1000, true);
        let fin = data(&mut pool, 1, 0, true);
        pool.get_mut(fin).tcp.flags = TcpFlags::FIN;
        s.on_egress(SimTime::ZERO, d, &mut pool, &mut out);
        s.on_egress(SimTime::ZERO, fin, &mut pool, &mut out);
        assert!(out.is_empty(), "the FIN waits behind the held data");
        s.on_timer(SimTime::from_us(60), &mut pool, &mut out);
        assert_eq!(out, vec![d, fin]);
    }
}
