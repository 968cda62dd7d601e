//! A super-packet attacker (beyond the paper; §7 names the attack): a host that sends only
//! first packets. Every packet it sends is marked the first of a new SP of `length` packets
//! whose rest never comes, so each admitted one holds `length − 1` packets of reservation until
//! its entry expires. `routerlab reproduce sp-dos` measures what that steals from other flows
//! and how the epoch and per-host accounting bound it.

use super::wire::SpMark;
use crate::host::{BuildShim, HostShim};
use crate::ids::{HostId, PacketId};
use crate::net::packet::PacketPool;
use crate::units::{Rate, SimTime};

/// One attacking host and the SP length it claims, as a scenario specifies it
/// (`[hosts] sp_attackers`).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SpAttackerSpec {
    pub host: HostId,
    pub length: u32,
}

impl BuildShim for SpAttackerSpec {
    fn build(&self, host: HostId, _nic_rate: Rate) -> Option<Box<dyn HostShim>> {
        (host == self.host).then(|| Box::new(SpAttacker::new(self.length)) as Box<dyn HostShim>)
    }
}

#[derive(Debug)]
pub struct SpAttacker {
    length: u8,
    next_id: u16,
    pub marked: u64,
}

impl SpAttacker {
    pub fn new(length: u32) -> SpAttacker {
        debug_assert!((1..=super::wire::MAX_SP_LENGTH).contains(&length));
        SpAttacker { length: length as u8, next_id: 0, marked: 0 }
    }
}

impl HostShim for SpAttacker {
    fn on_egress(&mut self, _now: SimTime, pkt: PacketId, pool: &mut PacketPool, out: &mut Vec<PacketId>) {
        let mark = SpMark { first: true, last: false, length: self.length, id: self.next_id };
        mark.write(&mut pool.get_mut(pkt).ip);
        self.next_id = self.next_id.wrapping_add(1);
        self.marked += 1;
        out.push(pkt);
    }

    fn counters(&self) -> Vec<(&'static str, u64)> {
        vec![("bogus_first_packets", self.marked)]
    }

    fn name(&self) -> &'static str {
        "sp-attacker"
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ids::HostId;
    use crate::mechanisms::sp::{SpManager, SpParams};
    use crate::net::packet::{Packet, TcpSegment};

    #[test]
    fn two_bogus_first_packets_shut_a_100_packet_queue_until_expiry() {
        // The paper's Algorithm 1 with maxSpLength 16: two admitted 63-packet SPs reserve 124
        // packets, weighted 86.8, leaving 13.2 < 16 of a 100-packet queue — nobody gets in.
        let mut pool = PacketPool::new();
        let mut a = SpAttacker::new(63);
        let mut m = SpManager::new(SpParams {
            epoch: crate::mechanisms::sp::SpEpoch::Fixed(SimTime::from_ms(50)),
            ..Default::default()
        });
        let mut out = Vec::new();
        for _ in 0..2 {
            let p = pool.alloc(Packet::tcp_for_test(HostId(9), HostId(1), TcpSegment::default()));
            a.on_egress(SimTime::ZERO, p, &mut pool, &mut out);
        }
        for &p in &out {
            let ip = pool.get(p).ip;
            assert!(m.admit(SimTime::ZERO, ip.src, ip.dst, SpMark::read(&ip), 100.0));
        }
        let regular = SpMark::default();
        assert!(
            !m.admit(SimTime::from_ms(1), HostId(2), HostId(1), regular, 100.0),
            "an empty queue refuses"
        );
        assert!(
            m.admit(SimTime::from_ms(101), HostId(2), HostId(1), regular, 100.0),
            "until two epochs pass"
        );
        // With a per-host cap of one SP's worth, the second bogus SP is refused.
        let mut capped = SpManager::new(SpParams { host_cap: Some(62), ..Default::default() });
        let marks: Vec<_> = out.iter().map(|&p| pool.get(p).ip).collect();
        assert!(capped.admit(SimTime::ZERO, marks[0].src, marks[0].dst, SpMark::read(&marks[0]), 100.0));
        assert!(!capped.admit(SimTime::ZERO, marks[1].src, marks[1].dst, SpMark::read(&marks[1]), 100.0));
        assert!(capped.admit(SimTime::ZERO, HostId(2), HostId(1), regular, 100.0), "others still get in");
    }
}
