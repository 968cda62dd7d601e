//! CoDel, the controlled-delay AQM (RFC 8289; Nichols & Jacobson, ACM Queue 2012), as a
//! reusable piece: one [`CodelVars`] per queue, driven by [`codel_dequeue`], which takes the
//! queue's own dequeue as a closure (the split of Linux's `include/net/codel_impl.h`, with the
//! clock passed in rather than read).
//!
//! A packet whose sojourn time stayed above `target` for a whole `interval` (while more than
//! one MTU is queued) starts a dropping state; drops are then spaced by interval/√count (the
//! control law), until the sojourn falls below target. With `ecn`, ECN-capable packets are
//! marked CE instead of dropped. Defaults: target 5 ms, interval 100 ms (RFC 8289 §4.2, §4.3).

use super::DropCause;
use crate::ids::PacketId;
use crate::net::packet::{Ecn, PacketPool};
use crate::units::SimTime;

#[derive(Clone, Copy, Debug, PartialEq)]
pub struct CodelParams {
    pub target: SimTime,
    pub interval: SimTime,
    /// Bytes below which the queue is never considered standing (one MTU).
    pub mtu: u64,
    pub ecn: bool,
}

impl Default for CodelParams {
    fn default() -> CodelParams {
        CodelParams { target: SimTime::from_ms(5), interval: SimTime::from_ms(100), mtu: 1514, ecn: true }
    }
}

/// Per-queue CoDel state.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct CodelVars {
    /// When the sojourn time first went (and stayed) above target, plus one interval.
    first_above: Option<SimTime>,
    drop_next: SimTime,
    count: u32,
    lastcount: u32,
    dropping: bool,
}

impl CodelVars {
    /// The drop count of the control law.
    pub fn count(&self) -> u32 {
        self.count
    }

    /// Packets the queue dropped by itself (FQ-CoDel's overload batch) count as CoDel drops,
    /// so its control law drops faster next time (Linux `fq_codel_drop`: `cvars.count += i`).
    pub fn add_drops(&mut self, n: u32) {
        self.count = self.count.saturating_add(n);
    }
}

/// What [`codel_dequeue`] counted.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct CodelOutcome {
    pub drops: u32,
    pub marks: u32,
}

fn control_law(t: SimTime, interval: SimTime, count: u32) -> SimTime {
    t + SimTime((interval.0 as f64 / libm::sqrt(count.max(1) as f64)) as u64)
}

/// Dequeue through CoDel. `dequeue` pops the queue's head; `backlog` gives the bytes still
/// queued. Dropped packets go to `drops`.
pub fn codel_dequeue(
    v: &mut CodelVars,
    p: &CodelParams,
    now: SimTime,
    pool: &mut PacketPool,
    dequeue: &mut impl FnMut(&mut PacketPool) -> Option<PacketId>,
    backlog: &mut impl FnMut() -> u64,
    drops: &mut Vec<(PacketId, DropCause)>,
) -> (Option<PacketId>, CodelOutcome) {
    let mut out = CodelOutcome::default();
    // RFC 8289 dodequeue: returns the packet and whether it may be dropped.
    let mut dodequeue = |v: &mut CodelVars, pool: &mut PacketPool| -> (Option<PacketId>, bool) {
        let Some(pkt) = dequeue(pool) else {
            v.first_above = None;
            return (None, false);
        };
        let sojourn = now - pool.get(pkt).meta.enqueued_at;
        let mut ok = false;
        if sojourn < p.target || backlog() <= p.mtu {
            v.first_above = None;
        } else {
            match v.first_above {
                None => v.first_above = Some(now + p.interval),
                Some(t) if now >= t => ok = true,
                Some(_) => {}
            }
        }
        (Some(pkt), ok)
    };
    // Mark if allowed (returns true), else drop.
    let mut mark_or_drop = |pkt: PacketId, pool: &mut PacketPool, out: &mut CodelOutcome| -> bool {
        let h = &mut pool.get_mut(pkt).ip;
        if p.ecn && h.ecn().is_ect() {
            h.set_ecn(Ecn::Ce);
            out.marks += 1;
            true
        } else {
            drops.push((pkt, DropCause::Early));
            out.drops += 1;
            false
        }
    };

    let (mut pkt, mut ok) = dodequeue(v, pool);
    let Some(mut cur) = pkt else {
        v.dropping = false;
        return (None, out);
    };
    if v.dropping {
        if !ok {
            v.dropping = false;
        }
        while v.dropping && now >= v.drop_next {
            v.count += 1;
            if mark_or_drop(cur, pool, &mut out) {
                v.drop_next = control_law(v.drop_next, p.interval, v.count);
                return (Some(cur), out);
            }
            (pkt, ok) = dodequeue(v, pool);
            match pkt {
                None => {
                    v.dropping = false;
                    return (None, out);
                }
                Some(next) => cur = next,
            }
            if !ok {
                v.dropping = false;
            } else {
                v.drop_next = control_law(v.drop_next, p.interval, v.count);
            }
        }
    } else if ok {
        let marked = mark_or_drop(cur, pool, &mut out);
        if !marked {
            (pkt, _) = dodequeue(v, pool);
        }
        v.dropping = true;
        let delta = v.count.saturating_sub(v.lastcount);
        v.count =
            if delta > 1 && now.saturating_sub(v.drop_next) < SimTime(16 * p.interval.0) { delta } else { 1 };
        v.drop_next = control_law(now, p.interval, v.count);
        v.lastcount = v.count;
        if !marked {
            match pkt {
                None => return (None, out),
                Some(next) => cur = next,
            }
        }
    }
    (Some(cur), out)
}
