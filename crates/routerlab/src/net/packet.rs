//! Packets: the header fields the mechanisms read and write, kept apart from simulator metadata,
//! and the arena that owns every live packet.
//!
//! A [`Packet`] is a *representation* (smoltcp's `Repr` style): plain fields, no bytes. Bytes
//! exist only at the edges (the pcap writer). Header fields are the ones real routers see —
//! IPv4 id, ToS (DSCP + ECN), DF/MF, fragment offset, total length; TCP ports, seq/ack, flags,
//! window, SACK blocks, options. [`PacketMeta`] holds what the simulator knows but a router
//! could not (which endpoint a packet is for, when it was created); mechanisms must not base
//! decisions on it, except where noted.
//!
//! Sequence numbers are 64-bit and start at 0 (the SYN); they never wrap in a simulation. The
//! pcap writer maps them onto 32-bit wire values.
//!
//! Packets live in a [`PacketPool`] and are passed by [`PacketId`]; freed slots are reused, so
//! the hot path does not allocate.

use crate::ids::{ConnId, EpId, HostId, PacketId};
use crate::units::{Rate, SimTime};

pub const IPV4_HEADER_BYTES: u32 = 20;
pub const TCP_HEADER_BYTES: u32 = 20;
/// The timestamps option: kind, length, TSval, TSecr (RFC 7323 §3). Data segments carry it
/// after two NOPs (12 bytes, as Linux and ns-3 send it); the padding to 4 bytes gives that here.
pub const TS_OPTION_BYTES: u32 = 10;
/// Room for options in a TCP header (RFC 793: a data offset of at most 15 words).
pub const MAX_OPTION_BYTES: u32 = 40;
/// The SACK option's kind and length, after two NOPs (RFC 2018); 8 bytes per block follow.
const SACK_OPTION_BASE: u32 = 4;
pub const UDP_HEADER_BYTES: u32 = 8;
pub const PROTO_TCP: u8 = 6;
pub const PROTO_UDP: u8 = 17;
/// Largest number of SACK blocks that fit the TCP option space without timestamps (RFC 2018).
pub const MAX_SACK_BLOCKS: usize = 4;

/// The two ECN bits of the IPv4 ToS byte (RFC 3168).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default, Hash)]
#[repr(u8)]
pub enum Ecn {
    #[default]
    NotEct = 0b00,
    Ect1 = 0b01,
    Ect0 = 0b10,
    Ce = 0b11,
}

impl Ecn {
    pub fn from_bits(b: u8) -> Ecn {
        match b & 0b11 {
            0b00 => Ecn::NotEct,
            0b01 => Ecn::Ect1,
            0b10 => Ecn::Ect0,
            _ => Ecn::Ce,
        }
    }
    pub fn is_ect(self) -> bool {
        self != Ecn::NotEct
    }
}

/// TCP flags, as in the header's flags byte.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default, Hash)]
pub struct TcpFlags(pub u8);

impl TcpFlags {
    pub const FIN: TcpFlags = TcpFlags(0x01);
    pub const SYN: TcpFlags = TcpFlags(0x02);
    pub const RST: TcpFlags = TcpFlags(0x04);
    pub const PSH: TcpFlags = TcpFlags(0x08);
    pub const ACK: TcpFlags = TcpFlags(0x10);
    pub const ECE: TcpFlags = TcpFlags(0x40);
    pub const CWR: TcpFlags = TcpFlags(0x80);

    #[inline]
    pub fn has(self, f: TcpFlags) -> bool {
        self.0 & f.0 == f.0
    }
    #[inline]
    pub fn with(self, f: TcpFlags) -> TcpFlags {
        TcpFlags(self.0 | f.0)
    }
}

/// A SACK block: the half-open sequence range `[left, right)` received out of order.
/// A range known lost on the way (a router cut its payload) is carried the same way with the
/// edges swapped (left > right): not a valid SACK block, so a sender that knows only SACK
/// passes over it (RFC 2018).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default, Hash)]
pub struct SackBlock {
    pub left: u64,
    pub right: u64,
}

impl SackBlock {
    /// The block naming the lost range `[left, right)`.
    pub fn lost_range(left: u64, right: u64) -> SackBlock {
        debug_assert!(left < right);
        SackBlock { left: right, right: left }
    }

    /// The lost range `[left, right)` this block names, if it names one.
    pub fn as_lost_range(&self) -> Option<(u64, u64)> {
        (self.left > self.right).then_some((self.right, self.left))
    }
}

/// Up to [`MAX_SACK_BLOCKS`] blocks, most recent first (RFC 2018 §4).
///
/// The list ends at its first empty block (`left == right`, which no SACK block and no lost
/// range is), and every block after that one is empty too: no length field, whose padding
/// would take a line of every packet (a TCP header then fits the two lines after the one
/// every hop reads).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default, Hash)]
pub struct SackList {
    blocks: [SackBlock; MAX_SACK_BLOCKS],
}

impl SackList {
    pub fn new() -> SackList {
        SackList::default()
    }
    /// Append `b` (not empty); false if the list is full.
    pub fn push(&mut self, b: SackBlock) -> bool {
        debug_assert_ne!(b.left, b.right, "an empty block would end the list");
        let n = self.len();
        if n < MAX_SACK_BLOCKS {
            self.blocks[n] = b;
            true
        } else {
            false
        }
    }
    pub fn as_slice(&self) -> &[SackBlock] {
        &self.blocks[..self.len()]
    }
    #[inline]
    pub fn len(&self) -> usize {
        // The non-empty blocks are the first ones: count them, without a branch per block.
        self.blocks.iter().map(|b| (b.left != b.right) as usize).sum()
    }
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.blocks[0].left == self.blocks[0].right
    }
    #[inline]
    pub fn clear(&mut self) {
        if !self.is_empty() {
            *self = SackList::default();
        }
    }
}

/// Explicit-rate fields: options by which routers tell endpoints a rate and endpoints feed it
/// back (the explicit-rate mechanisms' endpoint parts and routers read and write them). On the
/// wire they are experimental TCP options (RFC 6994), see [`RateFields::option_bytes`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default, Hash)]
pub struct RateFields {
    /// A handshake option (SYN and SYN-ACK): this end reads rates that routers signal in the
    /// length of a datagram's leading fragment.
    pub fragment_rate_permitted: bool,
    /// The segment carries a rate header: `header_rate`, `header_rtt_us` and `echo`.
    pub rate_header: bool,
    /// Rate header: the sender's RTT estimate in microseconds (0: none yet), which routers
    /// average.
    pub header_rtt_us: u32,
    /// Rate header: the rate this segment may be sent at: the sender asks for `Rate(u64::MAX)`,
    /// every router on the way that reads the header lowers it to its own rate.
    pub header_rate: Rate,
    /// A rate fed back to the data sender, `Rate(0)` for none: the rate a receiver read from the
    /// last leading fragment, or from the last rate header it received. Modelled as a field of
    /// the ACK that itself needs no acknowledgment.
    pub echo: Rate,
    /// Without a rate header, the echo's wire form: the leading-fragment length the rate was
    /// read from (a 2-byte option).
    pub echo_length: u16,
}

impl RateFields {
    /// Option bytes: fragment-rate-permitted 4 (kind 253, length, ExID), an echo without a rate
    /// header 6 (the leading-fragment length as 2 bytes), the rate header 16 (rate and echo in
    /// Kbit/s and the RTT in µs, 4 bytes each).
    pub fn option_bytes(&self) -> u32 {
        let mut n = 0;
        if self.fragment_rate_permitted {
            n += 4;
        }
        if self.rate_header {
            n += 16;
        } else if self.echo.0 != 0 {
            n += 6;
        }
        n
    }
}

/// IPv4 header fields.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct Ipv4Header {
    pub src: HostId,
    pub dst: HostId,
    pub id: u16,
    /// DSCP (high 6 bits) and ECN (low 2 bits).
    pub tos: u8,
    pub dont_fragment: bool,
    pub more_fragments: bool,
    /// Fragment offset in units of 8 bytes.
    pub frag_offset: u16,
    /// Total length of this datagram or fragment, header included.
    pub total_len: u16,
    pub protocol: u8,
    pub ttl: u8,
}

impl Ipv4Header {
    #[inline]
    pub fn ecn(&self) -> Ecn {
        Ecn::from_bits(self.tos)
    }
    #[inline]
    pub fn set_ecn(&mut self, e: Ecn) {
        self.tos = (self.tos & !0b11) | e as u8;
    }
    /// True for any fragment, leading or not.
    #[inline]
    pub fn is_fragment(&self) -> bool {
        self.more_fragments || self.frag_offset != 0
    }
}

/// TCP header fields plus the length of the payload the segment carries.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct TcpSegment {
    pub src_port: u16,
    pub dst_port: u16,
    pub seq: u64,
    pub ack: u64,
    pub flags: TcpFlags,
    /// Advertised receive window in bytes (window scaling is implied, not modelled).
    pub window: u32,
    /// MSS option (SYN only); 0 when absent.
    pub mss: u16,
    /// SACK-permitted option (SYN only).
    pub sack_permitted: bool,
    /// Timestamps option (RFC 7323): on every segment of a connection that negotiated it, and
    /// on a SYN that offers it. `ts_val` and `ts_ecr` hold the sender's clock and the echo (see
    /// `tcp::timestamps` for their unit).
    pub ts: bool,
    pub ts_val: u32,
    pub ts_ecr: u32,
    /// A router cut the payload off; only the headers travel on, and `payload_len` still says
    /// how much was cut. A reserved header bit on the wire.
    pub cut: bool,
    pub sack: SackList,
    /// Bytes of payload (an IPv4 datagram holds at most 65 495 after the headers).
    pub payload_len: u16,
    /// Explicit-rate fields.
    pub xr: RateFields,
}

impl TcpSegment {
    /// Header length including options, each option aligned to 4 bytes with NOPs as Linux
    /// lays them out (RFC 793, 2018, 6691, 7323): MSS 4; SACK-permitted 4, or sharing the
    /// timestamps' padding on a SYN (12 for both); timestamps 12; SACK 4 + 8 per block.
    pub fn header_len(&self) -> u32 {
        let sack = if self.sack.is_empty() { 0 } else { SACK_OPTION_BASE + 8 * self.sack.len() as u32 };
        TCP_HEADER_BYTES + self.option_bytes_but_sack() + sack
    }

    /// Option bytes other than the SACK option's, padded as `header_len` pads them.
    pub fn option_bytes_but_sack(&self) -> u32 {
        let mss = if self.mss != 0 { 4 } else { 0 };
        let ts_or_sack_ok = match (self.ts, self.sack_permitted) {
            (true, _) => TS_OPTION_BYTES.div_ceil(4) * 4,
            (false, true) => 4,
            (false, false) => 0,
        };
        mss + ts_or_sack_ok + self.xr.option_bytes().div_ceil(4) * 4
    }

    /// SACK blocks that fit in the option space beside this segment's other options (Linux's
    /// `tcp_established_options`: 3 beside timestamps, else 4).
    pub fn sack_room(&self) -> usize {
        let left = MAX_OPTION_BYTES.saturating_sub(self.option_bytes_but_sack() + SACK_OPTION_BASE);
        ((left / 8) as usize).min(MAX_SACK_BLOCKS)
    }
    /// Sequence space the segment occupies: payload, plus one for SYN and for FIN.
    pub fn seq_len(&self) -> u64 {
        self.payload_len as u64 + self.flags.has(TcpFlags::SYN) as u64 + self.flags.has(TcpFlags::FIN) as u64
    }
}

/// One-bit facts about a packet, in one byte.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct MetaFlags(u8);

impl MetaFlags {
    pub const NONE: MetaFlags = MetaFlags(0);
    /// Not a TCP endpoint's packet (constant-bit-rate cross traffic): no endpoint to deliver to.
    pub const UNBOUND: MetaFlags = MetaFlags(1);
    /// Set by a port's passive flow observer on arrival: it counted the segment a
    /// retransmission (read back if that port drops it).
    pub const OBSERVED_RETX: MetaFlags = MetaFlags(2);
    /// Sent by a connection that lets its host's shims group its segments into larger units
    /// (`TcpConfig::groupable`).
    pub const GROUPABLE: MetaFlags = MetaFlags(4);
    /// Addressed to nobody: the receiving host discards it (an endpoint part's signal datagram).
    pub const DISCARD: MetaFlags = MetaFlags(8);

    #[inline]
    pub fn has(self, f: MetaFlags) -> bool {
        self.0 & f.0 != 0
    }

    #[inline]
    pub fn set(&mut self, f: MetaFlags, on: bool) {
        self.0 = if on { self.0 | f.0 } else { self.0 & !f.0 };
    }
}

/// What the simulator knows about a packet beyond its headers.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct PacketMeta {
    /// The connection (flow) the packet belongs to.
    pub conn: ConnId,
    /// The endpoint it is delivered to: stands in for the receiving host's socket lookup.
    pub dst_ep: EpId,
    /// Hash of the 5-tuple, computed once by the sender (forwarding salts it per switch).
    pub flow_hash: u32,
    /// When it entered the queue it is in now (for sojourn times).
    pub enqueued_at: SimTime,
    /// Links crossed so far.
    pub hops: u8,
    /// One-bit facts (see [`MetaFlags`]), packed to keep the metadata in the first cache line.
    pub flags: MetaFlags,
    /// Measurement: latency probe index + 1 (0: not sampled; when it was stamped is
    /// [`Packet::probe_stamp`]'s entry in the measurements).
    pub probe: u8,
}

/// Hash of a 5-tuple (`PacketMeta::flow_hash`), computed once per flow by its sender (forwarding
/// salts it per switch).
pub fn flow_hash(src: HostId, dst: HostId, sport: u16, dport: u16, proto: u8) -> u32 {
    crate::rng::splitmix64(
        ((src.0 as u64) << 32)
            ^ dst.0 as u64
            ^ ((sport as u64) << 48)
            ^ ((dport as u64) << 16)
            ^ proto as u64,
    ) as u32
}

/// A TCP flow as a middlebox sees it: one direction's 5-tuple (the protocol is TCP).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct FlowKey {
    pub src: HostId,
    pub dst: HostId,
    pub sport: u16,
    pub dport: u16,
}

impl FlowKey {
    /// The key of a TCP segment that is not a fragment (fragments carry no ports), with its
    /// SYN flag.
    pub fn of(p: &Packet) -> Option<(FlowKey, bool)> {
        if p.ip.protocol != PROTO_TCP || p.ip.is_fragment() {
            return None;
        }
        let key = FlowKey { src: p.ip.src, dst: p.ip.dst, sport: p.tcp.src_port, dport: p.tcp.dst_port };
        Some((key, p.tcp.flags.has(TcpFlags::SYN)))
    }

    /// The same connection's other direction.
    pub fn reversed(self) -> FlowKey {
        FlowKey { src: self.dst, dst: self.src, sport: self.dport, dport: self.sport }
    }
}

/// A packet's place in the pipe of the link it is crossing: the packets on a link form a list
/// through their own slots, oldest first, so that the arrival of one (whose slot the event loop
/// has prefetched) names the next, where it is going and when it arrives, without a per-link
/// ring to miss in cache. Empty whenever the packet is not on a wire.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PipeLink {
    /// When `next` reaches the far end.
    next_at: SimTime,
    /// The packet that went on the wire after this one, on the same link (`NO_NEXT`: none;
    /// not an `Option`, which would not leave room for `next_dst` in 16 bytes).
    next: u32,
    /// `next`'s destination host, for its arrival event (see [`crate::engine::Event::Arrive`]).
    next_dst: HostId,
}

impl PipeLink {
    const NO_NEXT: u32 = u32::MAX;

    /// `next`, going to `dst`, reaches the far end at `at`.
    #[inline]
    pub fn to(next: PacketId, dst: HostId, at: SimTime) -> PipeLink {
        debug_assert_ne!(next.0, Self::NO_NEXT);
        PipeLink { next_at: at, next: next.0, next_dst: dst }
    }

    /// The packet behind this one, its destination, and when it arrives.
    #[inline]
    pub fn next(&self) -> Option<(PacketId, HostId, SimTime)> {
        (self.next != Self::NO_NEXT).then_some((PacketId(self.next), self.next_dst, self.next_at))
    }
}

impl Default for PipeLink {
    fn default() -> PipeLink {
        PipeLink { next_at: SimTime::ZERO, next: Self::NO_NEXT, next_dst: HostId(0) }
    }
}

/// A packet in flight: headers and metadata.
///
/// Field order matters for speed: what every hop reads (the IP header, the flow hash, the
/// queueing timestamp, the pipe link) is exactly the first cache line, and a packet slot
/// starts one, so a switch reads one line of it; the TCP header, with its SACK blocks, is
/// read only at the endpoints, and fills the next two lines exactly: a slot is three lines.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
#[repr(C, align(64))]
pub struct Packet {
    pub ip: Ipv4Header,
    /// Measurement: while `meta.probe` is set, which of the measurements' stamps holds the
    /// time the probe was taken (in the four bytes the IP header leaves before the metadata;
    /// a copy of the packet, as a fragment or reassembled, carries it along).
    pub probe_stamp: u32,
    pub meta: PacketMeta,
    pub pipe: PipeLink,
    pub tcp: TcpSegment,
}

impl Packet {
    /// What a switch reads of a plain packet: the IP header, the metadata and the pipe link.
    pub const FORWARDING_BYTES: usize = std::mem::offset_of!(Packet, tcp);

    /// Bytes on the wire at the IP layer (the datagram or fragment length).
    #[inline]
    pub fn ip_len(&self) -> u32 {
        self.ip.total_len as u32
    }
    /// True if this packet carries the TCP header (unfragmented, or the leading fragment).
    #[inline]
    pub fn has_l4_header(&self) -> bool {
        self.ip.frag_offset == 0
    }
}

/// The arena of live packets. Slots are reused through a free list.
#[derive(Default, Debug)]
pub struct PacketPool {
    slots: Vec<Packet>,
    free: Vec<u32>,
    live: usize,
    peak_live: usize,
    /// Each slot's generation, advanced when its packet is freed (debug assertions only: see
    /// `PacketId`).
    #[cfg(debug_assertions)]
    generations: Vec<u8>,
}

#[cfg(test)]
impl Packet {
    /// For tests: `tcp` from `src` to `dst` in an IPv4 header sized to it (DF set, TTL 64).
    pub(crate) fn tcp_for_test(src: HostId, dst: HostId, tcp: TcpSegment) -> Packet {
        let ip = Ipv4Header {
            src,
            dst,
            protocol: PROTO_TCP,
            total_len: (IPV4_HEADER_BYTES + tcp.header_len() + tcp.payload_len as u32) as u16,
            dont_fragment: true,
            ttl: 64,
            ..Default::default()
        };
        Packet { ip, tcp, ..Default::default() }
    }
}

impl PacketPool {
    pub fn new() -> PacketPool {
        PacketPool {
            slots: Vec::with_capacity(4096),
            free: Vec::with_capacity(4096),
            live: 0,
            peak_live: 0,
            #[cfg(debug_assertions)]
            generations: Vec::with_capacity(4096),
        }
    }

    #[inline]
    pub fn alloc(&mut self, p: Packet) -> PacketId {
        self.alloc_with(|slot| *slot = p)
    }

    /// Allocate a slot and let `fill` write the packet into it. The hot path builds packets
    /// this way: a packet built elsewhere and moved in is copied in wide words, which stall
    /// when they read bytes just stored one by one (a failed store forward).
    #[inline]
    pub fn alloc_with(&mut self, fill: impl FnOnce(&mut Packet)) -> PacketId {
        self.live += 1;
        if self.live > self.peak_live {
            self.peak_live = self.live;
        }
        let i = match self.free.pop() {
            Some(i) => i as usize,
            None => {
                self.slots.push(Packet::default());
                #[cfg(debug_assertions)]
                self.generations.push(0);
                self.slots.len() - 1
            }
        };
        fill(&mut self.slots[i]);
        PacketId::new(i, self.generation(i))
    }

    #[inline]
    pub fn free(&mut self, id: PacketId) {
        debug_assert!(self.live > 0);
        self.check(id);
        #[cfg(debug_assertions)]
        {
            self.generations[id.idx()] = self.generations[id.idx()].wrapping_add(1);
        }
        self.live -= 1;
        self.free.push(id.idx() as u32);
    }

    #[inline]
    pub fn get(&self, id: PacketId) -> &Packet {
        self.check(id);
        &self.slots[id.idx()]
    }

    #[inline]
    pub fn get_mut(&mut self, id: PacketId) -> &mut Packet {
        self.check(id);
        &mut self.slots[id.idx()]
    }

    /// The generation slot `i` is in (0 without debug assertions).
    #[inline]
    fn generation(&self, _i: usize) -> u8 {
        #[cfg(debug_assertions)]
        return self.generations[_i];
        #[cfg(not(debug_assertions))]
        0
    }

    /// With debug assertions: `id` names the packet now in its slot, not an earlier one.
    #[inline]
    fn check(&self, id: PacketId) {
        debug_assert!(
            id.idx() >= self.slots.len() || self.generation(id.idx()) == id.generation(),
            "stale packet id {id:?}: slot {} is in generation {}",
            id.idx(),
            self.generation(id.idx())
        );
    }

    /// Start loading a packet into cache (see [`crate::engine::prefetch`]): at a host all of
    /// it (the whole TCP header is read, its rate fields last), at a switch what forwarding
    /// reads.
    #[inline]
    pub fn prefetch(&self, id: PacketId, at_host: bool) {
        if let Some(p) = self.slots.get(id.idx()) {
            let bytes = if at_host { std::mem::size_of::<Packet>() } else { Packet::FORWARDING_BYTES };
            crate::engine::prefetch_first(p, bytes);
        }
    }

    pub fn live(&self) -> usize {
        self.live
    }

    pub fn peak_live(&self) -> usize {
        self.peak_live
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_lost_range_round_trips_and_an_ordinary_sack_block_is_none() {
        let b = SackBlock::lost_range(1000, 2460);
        assert_eq!((b.left, b.right), (2460, 1000));
        assert_eq!(b.as_lost_range(), Some((1000, 2460)));
        assert_eq!(SackBlock { left: 1000, right: 2460 }.as_lost_range(), None);
        assert_eq!(SackBlock { left: 5, right: 5 }.as_lost_range(), None);
    }

    #[test]
    fn pool_reuses_freed_slots() {
        let mut pool = PacketPool::new();
        let a = pool.alloc(Packet::default());
        let b = pool.alloc(Packet::default());
        pool.free(a);
        let c = pool.alloc(Packet::default());
        assert_eq!(c.idx(), a.idx(), "the freed slot");
        assert_ne!(b, c);
        assert_eq!(pool.live(), 2);
        assert_eq!(pool.peak_live(), 2);
    }

    /// With debug assertions (tests have them), an id kept after its packet was freed names an
    /// old generation of the slot: reading through it panics instead of returning the slot's
    /// next packet.
    #[test]
    #[cfg(debug_assertions)]
    #[should_panic(expected = "stale packet id")]
    fn a_stale_packet_id_is_caught() {
        let mut pool = PacketPool::new();
        let a = pool.alloc(Packet::default());
        pool.free(a);
        let b = pool.alloc(Packet::default());
        assert_eq!(b.idx(), a.idx());
        pool.get(a);
    }

    #[test]
    fn tcp_header_length_counts_options() {
        let mut s = TcpSegment::default();
        assert_eq!(s.header_len(), 20);
        s.mss = 1460;
        s.sack_permitted = true;
        assert_eq!(s.header_len(), 28); // 4 + 2 -> padded to 8
        let mut a = TcpSegment::default();
        a.sack.push(SackBlock { left: 1, right: 2 });
        assert_eq!(a.header_len(), 32); // 10 -> 12
        for _ in 0..3 {
            a.sack.push(SackBlock { left: 1, right: 2 });
        }
        assert_eq!(a.header_len(), 56); // 34 -> 36
    }

    #[test]
    fn what_every_hop_reads_is_in_the_first_cache_line() {
        assert_eq!(std::mem::align_of::<Packet>(), 64, "a packet slot starts a cache line");
        // The IP header, the metadata and the pipe link: what a switch's prefetch loads.
        let pipe_end = std::mem::offset_of!(Packet, pipe) + std::mem::size_of::<PipeLink>();
        assert!(pipe_end <= Packet::FORWARDING_BYTES && Packet::FORWARDING_BYTES <= 64);
        assert!(Packet::FORWARDING_BYTES < std::mem::size_of::<Packet>());
        assert_eq!(std::mem::size_of::<Packet>(), 3 * 64, "the TCP header fills two lines");
    }

    #[test]
    fn a_sack_list_ends_at_its_first_empty_block() {
        let b = |l, r| SackBlock { left: l, right: r };
        let mut s = SackList::new();
        assert!(s.is_empty() && s.as_slice().is_empty());
        assert!(s.push(b(10, 20)) && s.push(b(40, 30))); // a SACK block and a loss report
        assert_eq!((s.len(), s.as_slice()), (2, &[b(10, 20), b(40, 30)][..]));
        assert!(s.push(b(50, 60)) && s.push(b(70, 80)) && !s.push(b(90, 95)));
        assert_eq!(s.len(), MAX_SACK_BLOCKS);
        s.clear();
        assert!(s.is_empty() && s.as_slice().is_empty());
        assert!(s.push(b(1, 2)));
        assert_eq!(s.as_slice(), &[b(1, 2)]);
        let mut fresh = SackList::new();
        fresh.push(b(1, 2));
        assert_eq!(s, fresh, "nothing of the cleared blocks is left behind");
    }

    proptest::proptest! {
        /// Pushes and clears in any order: the list holds what a plain vector of at most
        /// `MAX_SACK_BLOCKS` holds, and equals the list built from that content alone.
        #[test]
        fn a_sack_list_is_a_bounded_vector(ops in proptest::collection::vec((0u64..100, 1u64..50, 0u8..6), 0..60)) {
            let mut list = SackList::new();
            let mut model: Vec<SackBlock> = Vec::new();
            for (left, len, op) in ops {
                if op == 0 {
                    list.clear();
                    model.clear();
                } else {
                    // op 1: a loss report (edges swapped); otherwise a SACK block.
                    let b = if op == 1 { SackBlock { left: left + len, right: left } } else { SackBlock { left, right: left + len } };
                    let room = model.len() < MAX_SACK_BLOCKS;
                    proptest::prop_assert_eq!(list.push(b), room);
                    if room {
                        model.push(b);
                    }
                }
                proptest::prop_assert_eq!(list.as_slice(), &model[..]);
                proptest::prop_assert_eq!((list.len(), list.is_empty()), (model.len(), model.is_empty()));
                let mut rebuilt = SackList::new();
                model.iter().for_each(|&b| { rebuilt.push(b); });
                proptest::prop_assert_eq!(list, rebuilt);
            }
        }
    }

    #[test]
    fn ecn_bits_roundtrip() {
        let mut h = Ipv4Header { tos: 0b1010_1000, ..Default::default() };
        h.set_ecn(Ecn::Ce);
        assert_eq!(h.ecn(), Ecn::Ce);
        assert_eq!(h.tos >> 2, 0b101010);
        h.set_ecn(Ecn::Ect0);
        assert_eq!(h.ecn(), Ecn::Ect0);
    }
}
