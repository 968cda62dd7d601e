//! MPTCP in the simulation: a connection's subflows, the segments they carry, the
//! scheduler handing them data.

use super::{Simulation, SubflowOf, flows::Carrier};
use crate::ids::{ConnId, EpId, PortId};
use crate::mptcp::{MptcpConn, Subflow};
use crate::net::packet::{PROTO_TCP, Packet, flow_hash};
use crate::tcp::MptcpPaths;
use crate::tcp::TcpConfig;
use crate::tcp::cc::{AnyCc, Lia, lia_alpha};
use crate::workload::{FlowSpec, Opener};

impl Simulation {
    /// An MPTCP connection's subflows, each on its own source port: drawn and left to ECMP
    /// (`MptcpPaths::Hashed`), or searched so that the subflows' ECMP paths differ while unused
    /// paths remain (`Distinct`, up to `PORT_TRIES` ports each). The sender opens every
    /// subflow, whichever end the workload says opens the connection.
    pub(super) fn add_mptcp(
        &mut self,
        f: &FlowSpec,
        tcp: TcpConfig,
        c: ConnId,
        m: crate::tcp::MptcpConfig,
    ) -> Carrier {
        const PORT_TRIES: u32 = 64;
        let f = &FlowSpec { opener: Opener::Sender, ..f.clone() };
        let id = self.mptcp.len() as u32;
        let dport = 80;
        let mut used: Vec<Vec<PortId>> = Vec::new();
        let mut subflows = Vec::with_capacity(m.subflows as usize);
        let mut candidate = 0u32;
        for i in 0..m.subflows {
            // A spread of ports per connection (an ephemeral range's draws, deterministically).
            let port_of = |j: u32| 10_000 + ((c.0.wrapping_mul(7919).wrapping_add(j)) % 50_000) as u16;
            let hash_of = |j: u32| flow_hash(f.src, f.dst, port_of(j), dport, PROTO_TCP);
            let chosen = match m.paths {
                MptcpPaths::Hashed => candidate,
                MptcpPaths::Distinct => (candidate..candidate + PORT_TRIES)
                    .map(|j| (j, self.net.ecmp_path(f.src, f.dst, hash_of(j))))
                    .find(|(_, path)| !used.contains(path))
                    .map_or(candidate, |(j, path)| {
                        used.push(path);
                        j
                    }),
            };
            candidate = chosen + 1;
            let sport = port_of(chosen);
            let (sender, receiver) = self.add_endpoints(f, tcp.clone(), c, (sport, dport), Some((id, i)));
            if m.coupled {
                self.eps[sender.idx()].sock.set_cc(AnyCc::Lia(Lia::default()));
            }
            subflows.push(Subflow { sender, receiver, flow_hash: hash_of(chosen) });
        }
        self.mptcp.push(MptcpConn::new(subflows, tcp.rcv_buf));
        Carrier::Mptcp(id)
    }

    /// A segment for one end of an MPTCP subflow. At the sender, LIA's coupling is refreshed
    /// before the ACK is taken, and the data-level ACK it brings may open the connection's
    /// window for every subflow; at the receiver, newly in-order subflow data joins the stream.
    pub(super) fn subflow_segment(&mut self, ep: EpId, s: SubflowOf, p: &Packet) {
        let now = self.now;
        let m = s.mptcp as usize;
        if s.sender {
            if matches!(self.eps[ep.idx()].sock.cc(), AnyCc::Lia(_)) {
                let coupling = lia_alpha(self.mptcp[m].subflows.iter().map(|sf| {
                    let sock = &self.eps[sf.sender.idx()].sock;
                    (sock.cwnd(), sock.srtt())
                }));
                if let AnyCc::Lia(lia) = self.eps[ep.idx()].sock.cc_mut() {
                    lia.set_coupling(coupling);
                }
            }
            self.eps[ep.idx()].sock.on_segment(now, p.ip.ecn(), &p.tcp);
            if self.mptcp[m].on_ack_at_sender() {
                self.service_subflows(s.mptcp);
            } else {
                self.service(ep);
            }
            return;
        }
        let sock = &mut self.eps[ep.idx()].sock;
        sock.on_segment(now, p.ip.ecn(), &p.tcp);
        let data_ack = self.mptcp[m].on_subflow_delivered(s.index as usize, sock.delivered_bytes());
        let c = self.eps[ep.idx()].conn;
        if data_ack > self.conns[c.idx()].delivered {
            self.on_delivery(c, data_ack);
        }
        self.service(ep);
    }

    /// Let every subflow of MPTCP connection `m` send what it now can.
    pub(super) fn service_subflows(&mut self, m: u32) {
        for i in 0..self.mptcp[m as usize].subflows.len() {
            let sender = self.mptcp[m as usize].subflows[i].sender;
            self.service(sender);
        }
    }
}
