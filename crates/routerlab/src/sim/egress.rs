//! An endpoint's output: its segments written into packets, through its host's shims into
//! its NIC, its timer re-armed.

use super::{Simulation, event_loop::free_dropped};
use crate::engine::Event;
use crate::ids::{ConnId, EpId, HostId, PacketId};
use crate::net::packet::{
    Ecn, IPV4_HEADER_BYTES, Ipv4Header, MetaFlags, PROTO_TCP, PROTO_UDP, Packet, PacketMeta, PacketPool,
    PipeLink, TcpSegment,
};
use crate::net::port::Port;
use crate::tcp::Transmit;

impl Simulation {
    /// Drain an endpoint's output into its host and re-arm its timer.
    pub(super) fn service(&mut self, ep: EpId) {
        let now = self.now;
        let mut out = std::mem::take(&mut self.egress);
        let Simulation { eps, pool, conns, net, mptcp, .. } = self;
        let e = &mut eps[ep.idx()];
        let (src, dst, conn, peer) = (e.host, e.peer_host, e.conn, e.peer);
        e.sock.set_tx_budget(nic_data_budget(&net.ports[net.host_nic[src.idx()].idx()]));
        let c = &mut conns[conn.idx()];
        let mut hash = c.flow_hash;
        if let Some(s) = e.subflow {
            let m = &mut mptcp[s.mptcp as usize];
            hash = m.subflows[s.index as usize].flow_hash;
            if s.sender {
                // The scheduler: hand this subflow what its window has room for.
                let sock = &mut e.sock;
                let n = m.assign(s.index as usize, sock.bytes_acked(), sock.cwnd(), sock.mss());
                sock.send(n);
                if m.all_assigned() && !c.persistent && c.size.is_some() {
                    sock.close();
                }
            }
        }
        let groupable = e.sock.config().groupable;
        let dont_fragment = !e.sock.allows_fragmentation();
        e.sock.poll_transmit(
            now,
            &mut SegmentsToPackets {
                pool,
                out: &mut out,
                next_ip_id: &mut c.next_ip_id,
                src,
                dst,
                conn,
                peer,
                flow_hash: hash,
                dont_fragment,
                groupable,
            },
        );
        if let Some(size) = e.sock.poll_signal_datagram(now) {
            // The endpoint part's signal (an RTT indicator): DF set, on the connection's path
            // (its flow hash), discarded by the receiving host; a datagram of its own.
            let flags = MetaFlags::DISCARD;
            let ind = udp_datagram(src, dst, size, true, &mut c.next_ip_id, conn, hash, flags);
            out.push(pool.alloc(ind));
        }
        if let Some(t) = e.sock.poll_at()
            && e.timer_at.is_none_or(|s| t < s)
        {
            let t = t.max(now);
            self.events.push(t, Event::EndpointTimer(ep));
            e.timer_at = Some(t);
        }
        if e.sock.tx_blocked() && !e.blocked {
            e.blocked = true;
            let waiters = &mut self.nic_waiters[src.idx()];
            self.hosts_with_nic_waiters += waiters.is_empty() as usize;
            waiters.push(ep);
        }
        if !out.is_empty() {
            self.host_egress(src, &mut out);
        }
        self.egress = out;
    }

    /// Packets leaving a host: through its shims, then into its NIC.
    pub(super) fn host_egress(&mut self, host: HostId, pkts: &mut Vec<PacketId>) {
        if self.host_has_shims[host.idx()] {
            self.hosts[host.idx()].shims.egress(self.now, &mut self.pool, pkts);
            self.arm_host_timer(host);
        }
        self.enqueue_at_nic(host, pkts);
    }

    pub(super) fn enqueue_at_nic(&mut self, host: HostId, pkts: &mut Vec<PacketId>) {
        let now = self.now;
        let node = self.net.hosts[host.idx()];
        let watch = self.measure.watches(node);
        let Simulation { net, pool, events, measure, .. } = self;
        let port = &mut net.ports[net.host_nic[host.idx()].idx()];
        for p in pkts.drain(..) {
            if watch {
                measure.on_arrival(now, node, pool.get_mut(p));
            }
            if let Some(sent) = port.enqueue(now, p, pool, events, &mut net.drops, &mut free_dropped) {
                measure.on_transmit(now, port, pool.get(sent));
            }
        }
    }

    pub(super) fn arm_host_timer(&mut self, host: HostId) {
        let hs = &mut self.hosts[host.idx()];
        if let Some(t) = hs.shims.poll_at()
            && hs.shims.timer_at.is_none_or(|s| t < s)
        {
            let t = t.max(self.now);
            self.events.push(t, Event::HostTimer(host));
            hs.shims.timer_at = Some(t);
        }
    }
}

/// An endpoint's segments written straight into packet slots (see [`Transmit`]), under the
/// IP header and metadata of its connection.
pub(super) struct SegmentsToPackets<'a> {
    pool: &'a mut PacketPool,
    out: &'a mut Vec<PacketId>,
    next_ip_id: &'a mut u16,
    src: HostId,
    dst: HostId,
    conn: ConnId,
    peer: EpId,
    flow_hash: u32,
    dont_fragment: bool,
    groupable: bool,
}

impl Transmit for SegmentsToPackets<'_> {
    #[inline]
    fn emit(&mut self, ecn: Ecn, _retransmission: bool, write: impl FnOnce(&mut TcpSegment)) {
        let id = *self.next_ip_id;
        *self.next_ip_id = id.wrapping_add(1);
        let SegmentsToPackets { src, dst, conn, peer, flow_hash, dont_fragment, groupable, .. } = *self;
        self.out.push(self.pool.alloc_with(|p| {
            write(&mut p.tcp);
            let total = IPV4_HEADER_BYTES + p.tcp.header_len() + p.tcp.payload_len as u32;
            p.ip = Ipv4Header {
                src,
                dst,
                id,
                tos: 0,
                dont_fragment,
                more_fragments: false,
                frag_offset: 0,
                total_len: total.min(u16::MAX as u32) as u16,
                protocol: PROTO_TCP,
                ttl: 64,
            };
            p.ip.set_ecn(ecn);
            p.meta = PacketMeta {
                conn,
                dst_ep: peer,
                flow_hash,
                flags: if groupable { MetaFlags::GROUPABLE } else { MetaFlags::NONE },
                ..Default::default()
            };
            p.pipe = PipeLink::default();
        }));
    }
}

/// Data segments a host's sockets may hand its NIC now. Data may fill at most half of the NIC
/// queue, the rest is kept for the host's ACKs and control packets, so a host never drops its
/// own packets (Linux's TCP small queues keep a socket's data in the qdisc far shorter).
pub(super) fn nic_data_budget(nic: &Port) -> u32 {
    match (nic.room_packets(), nic.capacity_packets()) {
        (Some(room), Some(cap)) => room.saturating_sub(cap / 2).min(u32::MAX as usize) as u32,
        _ => u32::MAX,
    }
}

/// A UDP datagram a host sends itself (CBR cross traffic, an endpoint part's signals):
/// `total_len` IP bytes, the next IP id of its connection.
#[allow(clippy::too_many_arguments)]
pub(super) fn udp_datagram(
    src: HostId,
    dst: HostId,
    total_len: u32,
    dont_fragment: bool,
    ip_id: &mut u16,
    conn: ConnId,
    flow_hash: u32,
    flags: MetaFlags,
) -> Packet {
    let ip = Ipv4Header {
        src,
        dst,
        id: *ip_id,
        dont_fragment,
        total_len: total_len as u16,
        protocol: PROTO_UDP,
        ttl: 64,
        ..Default::default()
    };
    *ip_id = ip_id.wrapping_add(1);
    let meta = PacketMeta { conn, flow_hash, flags, ..Default::default() };
    Packet { ip, meta, ..Default::default() }
}
