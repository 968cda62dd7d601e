//! Signalling a flow at most once per interval (the Kick-Ass paper's §V, "Overhead
//! Reduction"): most signals a flow gets within an RTT carry the same rate, and each costs a
//! fragment's header and a packet; the router "could generate hashes for flows and attempt to
//! only fragment packets once per RTT per flow, ensuring that it at worst overestimates the
//! number of fragments needed".
//!
//! A table of `slots` entries, each the tag of the flow hashed there and when it was last
//! signalled. A packet is due for a signal when its slot's last signal is at least the spacing
//! old, or the slot holds another flow's tag: two flows sharing a slot take it from each other
//! and both are signalled more often, never less — the paper's "at worst overestimates".

use crate::units::SimTime;

use super::flow_count::mix;

#[derive(Clone, Copy, Debug, Default)]
struct Slot {
    tag: u32,
    last: Option<SimTime>,
}

/// The per-flow signal spacing table.
#[derive(Clone, Debug)]
pub struct SignalSpacer {
    slots: Vec<Slot>,
}

impl SignalSpacer {
    pub fn new(slots: usize) -> SignalSpacer {
        SignalSpacer { slots: vec![Slot::default(); slots.max(1)] }
    }

    /// Should the flow `key`'s packet leaving at `now` carry a signal, given the spacing? If so,
    /// the signal is recorded.
    pub fn due(&mut self, key: u64, now: SimTime, spacing: SimTime) -> bool {
        let h = mix(key);
        let tag = (h >> 32) as u32;
        let n = self.slots.len();
        let slot = &mut self.slots[(h as usize) % n];
        let due = slot.tag != tag || slot.last.is_none_or(|t| now - t >= spacing);
        if due {
            *slot = Slot { tag, last: Some(now) };
        }
        due
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_flow_is_signalled_once_per_spacing() {
        let mut s = SignalSpacer::new(64);
        let ms = SimTime::from_ms;
        let sent: Vec<u64> = (0..100).filter(|&t| s.due(7, ms(t), ms(10))).collect();
        assert_eq!(sent, vec![0, 10, 20, 30, 40, 50, 60, 70, 80, 90]);
    }

    #[test]
    fn flows_sharing_a_slot_are_signalled_more_often_never_less() {
        // One slot: every flow collides with every other.
        let mut s = SignalSpacer::new(1);
        let ms = SimTime::from_ms;
        let mut per_flow = [0u32; 2];
        for t in 0..100 {
            let f = (t % 2) as usize;
            per_flow[f] += s.due(f as u64 + 1, ms(t), ms(10)) as u32;
        }
        assert!(per_flow.iter().all(|&n| n >= 10), "{per_flow:?}");
        assert_eq!(per_flow, [50, 50], "alternating flows take the slot from each other");
    }

    #[test]
    fn a_zero_spacing_signals_every_packet() {
        let mut s = SignalSpacer::new(8);
        assert!((0..10).all(|_| s.due(3, SimTime::from_ms(1), SimTime::ZERO)));
    }
}
