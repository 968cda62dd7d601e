//! The event loop: pop the earliest event, advance the clock, dispatch; packets forwarded
//! at switches and delivered at hosts.

#[cfg(routerlab_event_cycles)]
use super::cycles;
use super::{
    SAMPLE_FLOWS, Simulation, egress::udp_datagram, flows::Carrier, flows::note_progress, flows::tcp_ends,
};
use crate::engine::Event;
use crate::host::Ingress;
use crate::ids::{ConnId, HostId, NodeId, PacketId};
use crate::net::packet::{IPV4_HEADER_BYTES, MetaFlags, PacketPool, UDP_HEADER_BYTES};
use crate::net::port::Port;
use crate::qdisc::{DropCause, Qdisc};
use crate::workload::{Action, Ctx, Generator, Opener};

impl Simulation {
    /// Run until the end of the simulation.
    pub fn run(&mut self) {
        while !self.step(u64::MAX) {}
    }

    /// Process up to `max_events` events; returns true when the run is over.
    pub fn step(&mut self, max_events: u64) -> bool {
        let mut budget = max_events;
        while budget > 0 {
            match self.events.peek() {
                Some((t, _)) if t < self.end => {}
                // Samples due exactly at the end are taken (the last slice, the last reading).
                Some((t, Event::Sample(_))) if t == self.end => {}
                _ => {
                    self.now = self.end;
                    return true;
                }
            }
            #[cfg(routerlab_event_cycles)]
            let popped = cycles::now();
            let (t, ev) = self.events.pop().unwrap();
            self.prefetch_for_next_event();
            self.now = t;
            self.counters.events += 1;
            budget -= 1;
            #[cfg(routerlab_event_cycles)]
            let (kind, dispatched) = (self.event_kind(&ev), cycles::now());
            self.dispatch(ev);
            #[cfg(routerlab_event_cycles)]
            self.cycles.event(kind, popped, dispatched, cycles::now());
        }
        false
    }

    /// Analysis builds: which of [`cycles`]' kinds `ev` is.
    #[cfg(routerlab_event_cycles)]
    pub(super) fn event_kind(&self, ev: &Event) -> usize {
        match *ev {
            Event::Arrive(port, ..) if self.net.port_far_end[port.idx()].1 => cycles::ARRIVAL_AT_HOST,
            Event::Arrive(..) => cycles::ARRIVAL_AT_SWITCH,
            Event::TxDone(_) => cycles::TX_DONE,
            Event::EndpointTimer(_) => cycles::ENDPOINT_TIMER,
            _ => cycles::OTHER,
        }
    }

    /// Start loading what the next event will touch while this one runs.
    #[inline]
    pub(super) fn prefetch_for_next_event(&mut self) {
        match self.events.peek() {
            Some((_, &Event::Arrive(port, pkt, dst))) => {
                let (node, at_host) = self.net.port_far_end[port.idx()];
                self.pool.prefetch(pkt, at_host);
                crate::engine::prefetch_first(&self.net.ports[port.idx()], Port::ARRIVAL_BYTES);
                // At a switch with one way on, the port the packet will leave by (with several,
                // the choice needs the packet): what a packet that bypasses its queue reads,
                // for a port that is not busy is the one whose lines are cold.
                if !at_host && let Some(egress) = self.net.routes.only_next_hop(node, dst) {
                    crate::engine::prefetch_first(&self.net.ports[egress.idx()], Port::BYPASS_BYTES);
                }
            }
            Some((_, &Event::TxDone(port))) => {
                crate::engine::prefetch_first(&self.net.ports[port.idx()], Port::TRANSMIT_BYTES)
            }
            Some((_, &Event::EndpointTimer(ep))) => crate::engine::prefetch(&self.eps[ep.idx()]),
            _ => {}
        }
    }

    #[inline(always)]
    pub(super) fn dispatch(&mut self, ev: Event) {
        let now = self.now;
        match ev {
            Event::TxDone(p) => {
                let Simulation { net, pool, events, measure, .. } = self;
                let port = &mut net.ports[p.idx()];
                if let Some(sent) = port.on_tx_done(now, pool, events, &mut net.drops, &mut free_dropped) {
                    measure.on_transmit(now, port, pool.get(sent));
                }
                // A host's NIC made room: wake the sockets it pushed back on.
                if self.hosts_with_nic_waiters > 0
                    && let Some(h) = net.node_host[port.from.idx()]
                    && !self.nic_waiters[h.idx()].is_empty()
                {
                    let mut waiting = std::mem::take(&mut self.nic_waiters[h.idx()]);
                    self.hosts_with_nic_waiters -= 1;
                    for &ep in &waiting {
                        self.eps[ep.idx()].blocked = false;
                        self.service(ep);
                    }
                    let first = waiting[0];
                    waiting.clear();
                    let blocked = &mut self.nic_waiters[h.idx()];
                    if blocked.is_empty() {
                        *blocked = waiting; // keep the allocation
                    } else if blocked[0] == first {
                        // Those still blocked re-registered in the order they were woken, so
                        // the first would take every room forever: it goes last, and rooms go
                        // round robin among the host's sockets.
                        blocked.rotate_left(1);
                    }
                }
            }
            Event::Arrive(p, pkt, _) => {
                let port = &mut self.net.ports[p.idx()];
                port.on_arrive(pkt, &mut self.pool, &mut self.events);
                let (to, up, reverse) = (port.to, port.up, port.reverse_observer);
                self.counters.packet_hops += 1;
                if up {
                    if let Some(q) = reverse {
                        self.net.ports[q.idx()].qdisc_mut().observe_reverse(now, self.pool.get(pkt));
                    }
                    self.pool.get_mut(pkt).meta.hops += 1;
                    self.deliver(to, pkt);
                } else {
                    self.net.ports[p.idx()].link_drops.link_down_drops += 1;
                    self.pool.free(pkt);
                }
            }
            Event::EndpointTimer(ep) => {
                let e = &mut self.eps[ep.idx()];
                if e.timer_at == Some(now) {
                    e.timer_at = None;
                }
                if e.sock.poll_at().is_some_and(|t| t <= now) {
                    e.sock.on_timer(now);
                }
                self.service(ep);
            }
            Event::HostTimer(h) => {
                let mut out = std::mem::take(&mut self.egress);
                let hs = &mut self.hosts[h.idx()];
                if hs.shims.timer_at == Some(now) {
                    hs.shims.timer_at = None;
                }
                hs.shims.on_timer(now, &mut self.pool, &mut out);
                self.enqueue_at_nic(h, &mut out);
                self.egress = out;
                self.arm_host_timer(h);
            }
            Event::ConnStart(c) => self.start_connection(c),
            Event::ConnStop(c) => {
                if let Carrier::Tcp { sender, .. } = self.conns[c.idx()].carrier {
                    self.eps[sender.idx()].sock.stop_writing();
                    self.service(sender);
                }
            }
            Event::Workload { workload, slot } => self.run_generator(workload, |g, ctx| g.on_wake(slot, ctx)),
            Event::Sample(SAMPLE_FLOWS) => {
                let Simulation { flow_sampler, eps, conns, mptcp, events, end, .. } = self;
                if let Some(fs) = flow_sampler {
                    // An MPTCP connection is sampled on its first subflow.
                    fs.sample(now, |c| {
                        let conn = &conns[c.idx()];
                        let (sender, _) =
                            tcp_ends(&conn.carrier, mptcp).expect("time series cover TCP flows");
                        (&eps[sender.idx()].sock, conn.delivered)
                    });
                    if now + fs.interval <= *end {
                        events.push(now + fs.interval, Event::Sample(SAMPLE_FLOWS));
                    }
                }
            }
            Event::Sample(index) => {
                let next = self.measure.sample(index, now, &self.net, &self.conns);
                if let Some(at) = next.filter(|&t| t <= self.end) {
                    self.events.push(at, Event::Sample(index));
                }
            }
            Event::LinkChange(i) => self.change_link(i as usize),
            Event::PortTimer(p) => self.net.ports[p.idx()].on_stage_timer(now, &mut self.events),
        }
    }

    pub(super) fn start_connection(&mut self, c: ConnId) {
        let conn = &mut self.conns[c.idx()];
        conn.started = Some(self.now);
        if let Carrier::Mptcp(m) = conn.carrier {
            // The data level takes the writes; every subflow opens at once, from the sender.
            let mc = &mut self.mptcp[m as usize];
            mc.write(conn.size.unwrap_or(u64::MAX >> 2));
            for sf in &mc.subflows {
                self.eps[sf.sender.idx()].sock.connect();
            }
            self.service_subflows(m);
            return;
        }
        let Carrier::Tcp { sender, receiver } = conn.carrier else { return };
        let (size, persistent, opener) = (conn.size, conn.persistent, conn.opener);
        let sock = &mut self.eps[sender.idx()].sock;
        match size {
            Some(bytes) => {
                sock.send(bytes);
                if !persistent {
                    sock.close();
                }
            }
            None => sock.send(u64::MAX >> 2),
        }
        let opener_ep = match opener {
            Opener::Sender => sender,
            Opener::Receiver => receiver,
        };
        self.eps[opener_ep.idx()].sock.connect();
        self.service(opener_ep);
    }

    /// Let generator `g` act, then apply what it asked for.
    pub(super) fn run_generator(&mut self, g: u32, f: impl FnOnce(&mut Generator, &mut Ctx)) {
        let mut actions = std::mem::take(&mut self.actions);
        let slot = &mut self.generators[g as usize];
        let mut ctx = Ctx::new(self.now, &mut slot.rng, &mut actions, self.conns.len() as u32);
        f(&mut slot.generator, &mut ctx);
        for a in actions.drain(..) {
            self.apply(g, a);
        }
        self.actions = actions;
    }

    pub(super) fn apply(&mut self, g: u32, a: Action) {
        match a {
            Action::Open { flow, tag, seq } => {
                self.add_connection(&flow, Some(g), tag, seq);
            }
            Action::Send { conn, bytes, tag, seq } => {
                let now = self.now;
                self.add_transfer(conn, bytes, tag, seq, now);
                match self.conns[conn.idx()].carrier {
                    Carrier::Tcp { sender, .. } => {
                        self.eps[sender.idx()].sock.send(bytes);
                        self.service(sender);
                    }
                    Carrier::Mptcp(m) => {
                        self.mptcp[m as usize].write(bytes);
                        self.service_subflows(m);
                    }
                    Carrier::Udp { .. } => {}
                }
            }
            Action::OpenUdp { src, dst, start, group } => {
                self.add_udp_flow(src, dst, start, group);
            }
            Action::Datagram { flow, bytes } => self.send_datagram(flow, bytes),
            Action::Wake { at, slot } => {
                if at < self.end {
                    self.events.push(at.max(self.now), Event::Workload { workload: g, slot });
                }
            }
        }
    }

    pub(super) fn send_datagram(&mut self, c: ConnId, bytes: u32) {
        let now = self.now;
        let conn = &mut self.conns[c.idx()];
        conn.started.get_or_insert(now);
        if let Carrier::Udp { sent_bytes, .. } = &mut conn.carrier {
            *sent_bytes += bytes as u64;
        }
        let total = bytes.clamp(IPV4_HEADER_BYTES + UDP_HEADER_BYTES, u16::MAX as u32);
        let (src, hash) = (conn.src, conn.flow_hash);
        let p = udp_datagram(src, conn.dst, total, false, &mut conn.next_ip_id, c, hash, MetaFlags::UNBOUND);
        let mut out = std::mem::take(&mut self.egress);
        out.push(self.pool.alloc(p));
        self.host_egress(src, &mut out);
        self.egress = out;
    }

    pub(super) fn change_link(&mut self, i: usize) {
        let ch = self.link_changes[i];
        let Simulation { net, pool, .. } = self;
        for (x, y) in [(ch.a, ch.b), (ch.b, ch.a)] {
            if let Some(p) = net.port_between(x, y) {
                if ch.up {
                    net.ports[p.idx()].up = true;
                } else {
                    net.ports[p.idx()].set_down(self.now, pool, &mut net.drops, &mut free_dropped);
                }
            }
        }
        net.recompute_routes();
    }

    /// A packet reached `node`.
    #[inline]
    pub(super) fn deliver(&mut self, node: NodeId, pkt: PacketId) {
        let now = self.now;
        if self.measure.watches(node) {
            self.measure.on_arrival(now, node, self.pool.get_mut(pkt));
        }
        match self.net.node_host[node.idx()] {
            None => {
                let p = self.pool.get(pkt);
                let hops = self.net.routes.next_hops(node, p.ip.dst);
                if hops.is_empty() {
                    self.counters.no_route_drops += 1;
                    self.pool.free(pkt);
                    return;
                }
                let out = self.net.nodes[node.idx()].forwarder.choose(now, hops, p, &self.net.ports);
                let Simulation { net, pool, events, measure, .. } = self;
                let port = &mut net.ports[out.idx()];
                if let Some(sent) = port.enqueue(now, pkt, pool, events, &mut net.drops, &mut free_dropped) {
                    measure.on_transmit(now, port, pool.get(sent));
                }
            }
            Some(host) => self.deliver_to_host(host, pkt),
        }
    }

    pub(super) fn deliver_to_host(&mut self, host: HostId, mut pkt: PacketId) {
        #[cfg(routerlab_event_cycles)]
        let arrived = cycles::now();
        let now = self.now;
        let hs = &mut self.hosts[host.idx()];
        let mut lead_payload = None;
        if self.pool.get(pkt).ip.is_fragment() {
            let frag = *self.pool.get(pkt);
            self.pool.free(pkt);
            let before = hs.reassembly.timed_out;
            let whole = hs.reassembly.accept(now, &frag);
            self.counters.reassembly_failures += hs.reassembly.timed_out - before;
            let Some(whole) = whole else { return };
            lead_payload = Some(whole.lead_payload);
            pkt = self.pool.alloc(whole.packet);
        }
        if self.pool.get(pkt).meta.flags.has(MetaFlags::DISCARD) {
            self.pool.free(pkt); // nobody listens: a signal datagram has done its job
            return;
        }
        if self.host_has_shims[host.idx()] {
            let verdict = hs.shims.ingress(now, pkt, &mut self.pool);
            self.arm_host_timer(host);
            if verdict == Ingress::Consumed {
                return;
            }
        }
        let p = self.pool.get(pkt);
        debug_assert_eq!(p.ip.dst, host);
        let (c, ep) = (p.meta.conn, p.meta.dst_ep);
        if p.meta.flags.has(MetaFlags::UNBOUND) {
            let payload = p.ip_len().saturating_sub(IPV4_HEADER_BYTES + UDP_HEADER_BYTES) as u64;
            self.pool.free(pkt);
            let conn = &mut self.conns[c.idx()];
            if let Carrier::Udp { delivered_bytes, .. } = &mut conn.carrier {
                *delivered_bytes += payload;
            }
            note_progress(conn, now, payload);
            return;
        }
        if let Some(s) = self.eps[ep.idx()].subflow {
            let p = *p;
            self.pool.free(pkt);
            self.subflow_segment(ep, s, &p);
            return;
        }
        // What the socket's answer will need (its flow, its host's NIC as far as a packet
        // that bypasses the queue reads), loaded while the socket works.
        crate::engine::prefetch(&self.conns[c.idx()]);
        crate::engine::prefetch_first(
            &self.net.ports[self.net.host_nic[host.idx()].idx()],
            Port::BYPASS_BYTES,
        );
        // The segment is read where it lies (a copy of the packet would cost more than the
        // socket's work on a pure ACK), then its slot is freed.
        let e = &mut self.eps[ep.idx()];
        if let Some(len) = lead_payload {
            e.sock.on_leading_fragment(len);
        }
        #[cfg(routerlab_event_cycles)]
        let (parts, at_socket) =
            (if p.tcp.payload_len > 0 { cycles::DATA_PARTS } else { cycles::ACK_PARTS }, cycles::now());
        e.sock.on_segment(now, p.ip.ecn(), &p.tcp);
        #[cfg(routerlab_event_cycles)]
        let taken = cycles::now();
        self.pool.free(pkt);
        let conn = &self.conns[c.idx()];
        if matches!(conn.carrier, Carrier::Tcp { receiver, .. } if receiver == ep) {
            let delivered = self.eps[ep.idx()].sock.delivered_bytes();
            if delivered > conn.delivered {
                self.on_delivery(c, delivered);
            }
        }
        #[cfg(routerlab_event_cycles)]
        let answering = cycles::now();
        self.service(ep);
        #[cfg(routerlab_event_cycles)]
        self.cycles.delivery(parts, [arrived, at_socket, taken, answering, cycles::now()]);
    }
}

#[inline]
pub(super) fn free_dropped(p: PacketId, _cause: DropCause, pool: &mut PacketPool) {
    pool.free(p);
}
