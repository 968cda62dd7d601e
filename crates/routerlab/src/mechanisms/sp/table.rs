//! Where the SPManager remembers admitted super-packets: the paper's hash table of packets left
//! per SP (§3.3), or its cheaper alternative of §4 — a Bloom filter of admitted SPs beside a
//! count of packets left per sending host.
//!
//! Both keep two generations, swapped every epoch (the timer-free expiry of §3.3): an entry
//! lives one to two epochs, and what a dropped generation still held is given back, so the
//! reservation (`spReserved`) always equals what the live generations hold.

use std::collections::HashMap;

use super::bloom::BloomFilter;
use crate::ids::HostId;

/// The key of Algorithm 1: (source, destination, SP identifier).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct SpKey {
    pub src: HostId,
    pub dst: HostId,
    pub id: u16,
}

/// What became of a later packet of a super-packet.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Follower {
    /// Admitted earlier: forward it; `released` packets of reservation went back with a last
    /// flag.
    Pass { released: u32 },
    /// Not (or no longer) admitted: drop it.
    Unknown,
    /// Bloom variant: the filter knows the SP but its host has no packets left — a false
    /// positive, or an SP sending more than it announced. Drop it.
    Exhausted,
}

/// The exact table of Algorithm 1: packets left per admitted SP (and, when per-host
/// accounting asks for it, per sending host).
#[derive(Debug, Default)]
pub struct ExactTable {
    current: HashMap<SpKey, u32>,
    previous: HashMap<SpKey, u32>,
    /// Packets left per host; None unless a per-host cap needs it (it costs a lookup a packet).
    by_host: Option<HashMap<HostId, u64>>,
}

impl ExactTable {
    pub fn new(per_host: bool) -> ExactTable {
        ExactTable { by_host: per_host.then(HashMap::new), ..Default::default() }
    }

    /// Admit an SP with `left` packets to come. A reused identifier replaces the old entry;
    /// returns the old entry's remaining packets, to be given back.
    pub fn admit(&mut self, key: SpKey, left: u32) -> u32 {
        let old = self.current.insert(key, left).or_else(|| self.previous.remove(&key)).unwrap_or(0);
        if let Some(by_host) = &mut self.by_host {
            let h = by_host.entry(key.src).or_default();
            *h = *h + left as u64 - old as u64;
        }
        old
    }

    pub fn follower(&mut self, key: SpKey, last: bool) -> Follower {
        let Some(released) =
            take_one(&mut self.current, key, last).or_else(|| take_one(&mut self.previous, key, last))
        else {
            return Follower::Unknown;
        };
        if let Some(by_host) = &mut self.by_host {
            give_back(by_host, key.src, 1 + released as u64);
        }
        Follower::Pass { released }
    }

    /// Drop the older generation (both if `both`); returns the packets it still held, and
    /// pushes the keys of SPs that still had packets to come onto `expired`.
    pub fn rotate(&mut self, both: bool, expired: &mut Vec<SpKey>) -> u64 {
        let from = expired.len();
        let mut given_back = drain_generation(&mut self.previous, &mut self.by_host, expired);
        self.previous = std::mem::take(&mut self.current);
        if both {
            given_back += drain_generation(&mut self.previous, &mut self.by_host, expired);
        }
        expired[from..].sort_unstable();
        given_back
    }

    /// Packets reserved for `host`'s SPs (0 when not counted per host).
    pub fn host_held(&self, host: HostId) -> u64 {
        self.by_host.as_ref().and_then(|b| b.get(&host)).copied().unwrap_or(0)
    }

    pub fn live(&self) -> usize {
        self.current.len() + self.previous.len()
    }

    pub fn held(&self) -> u64 {
        self.current.values().chain(self.previous.values()).map(|&n| n as u64).sum()
    }
}

/// Empty a generation into `expired`, giving its per-host counts back.
fn drain_generation(
    t: &mut HashMap<SpKey, u32>,
    by_host: &mut Option<HashMap<HostId, u64>>,
    expired: &mut Vec<SpKey>,
) -> u64 {
    let mut n = 0;
    for (k, left) in t.drain() {
        n += left as u64;
        if let Some(b) = by_host {
            give_back(b, k.src, left as u64);
        }
        expired.push(k);
    }
    n
}

/// One packet of `key`'s SP arrived: take it off its entry (and the rest with a last flag),
/// dropping the entry at zero. Returns what the last flag released; None if `t` lacks `key`.
fn take_one(t: &mut HashMap<SpKey, u32>, key: SpKey, last: bool) -> Option<u32> {
    let left = t.get_mut(&key)?;
    *left -= 1;
    let released = if last { std::mem::take(left) } else { 0 };
    if *left == 0 {
        t.remove(&key);
    }
    Some(released)
}

fn give_back(by_host: &mut HashMap<HostId, u64>, host: HostId, n: u64) {
    if let Some(h) = by_host.get_mut(&host) {
        *h -= n;
        if *h == 0 {
            by_host.remove(&host);
        }
    }
}

/// §4's alternative: a Bloom filter of admitted SPs and packets left per sending host. Less
/// state per SP; the per-host count caps what a host can send on its admissions, whatever
/// identifiers it uses. A last flag cannot give back an SP's rest (the router does not know
/// it): it expires with its generation.
#[derive(Debug)]
pub struct BloomTable {
    filters: [BloomFilter; 2],
    left: [HashMap<HostId, u64>; 2],
    /// Which of the two generations is current.
    cur: usize,
}

impl BloomTable {
    pub fn new(bits_log2: u32, hashes: u32) -> BloomTable {
        BloomTable {
            filters: [BloomFilter::new(bits_log2, hashes), BloomFilter::new(bits_log2, hashes)],
            left: [HashMap::new(), HashMap::new()],
            cur: 0,
        }
    }

    pub fn admit(&mut self, key: SpKey, left: u32) {
        self.filters[self.cur].insert(key);
        *self.left[self.cur].entry(key.src).or_default() += left as u64;
    }

    pub fn follower(&mut self, key: SpKey) -> Follower {
        if !self.filters.iter().any(|f| f.contains(key)) {
            return Follower::Unknown;
        }
        // Older reservations first: they expire first.
        for g in [1 - self.cur, self.cur] {
            if let Some(n) = self.left[g].get_mut(&key.src)
                && *n > 0
            {
                *n -= 1;
                return Follower::Pass { released: 0 };
            }
        }
        Follower::Exhausted
    }

    /// Drop the older generation (both if `both`); returns the packets it still held.
    pub fn rotate(&mut self, both: bool) -> u64 {
        let old = 1 - self.cur;
        let mut given_back: u64 = self.left[old].drain().map(|(_, n)| n).sum();
        self.filters[old].clear();
        self.cur = old;
        if both {
            let other = 1 - self.cur;
            given_back += self.left[other].drain().map(|(_, n)| n).sum::<u64>();
            self.filters[other].clear();
        }
        given_back
    }

    /// Packets reserved for `host`'s SPs.
    pub fn host_held(&self, host: HostId) -> u64 {
        self.left.iter().filter_map(|t| t.get(&host)).sum()
    }

    /// Hosts with packets left (the state this variant keeps besides its filters).
    pub fn live(&self) -> usize {
        self.left.iter().map(|t| t.values().filter(|&&n| n > 0).count()).sum()
    }

    pub fn held(&self) -> u64 {
        self.left.iter().flat_map(|t| t.values()).sum()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const A: HostId = HostId(1);
    const B: HostId = HostId(2);

    fn key(src: HostId, id: u16) -> SpKey {
        SpKey { src, dst: B, id }
    }

    #[test]
    fn bloom_table_caps_a_host_at_what_it_was_admitted() {
        let mut t = BloomTable::new(10, 3);
        t.admit(key(A, 1), 2);
        // The host may spend its two packets under any admitted identifier…
        assert_eq!(t.follower(key(A, 1)), Follower::Pass { released: 0 });
        assert_eq!(t.follower(key(A, 1)), Follower::Pass { released: 0 });
        // … and no more; an identifier never admitted is unknown.
        assert_eq!(t.follower(key(A, 1)), Follower::Exhausted);
        assert_eq!(t.follower(key(A, 9)), Follower::Unknown);
        t.admit(key(A, 2), 4);
        assert_eq!(t.held(), 4);
        assert_eq!(t.rotate(false), 0, "the older generation was empty");
        assert_eq!(t.follower(key(A, 2)), Follower::Pass { released: 0 }, "one epoch old: known");
        assert_eq!(t.rotate(false), 3, "two epochs old: given back");
        assert_eq!(t.follower(key(A, 2)), Follower::Unknown);
        assert_eq!((t.held(), t.live()), (0, 0));
    }

    #[test]
    fn exact_table_reports_what_expired_in_key_order() {
        let mut t = ExactTable::new(true);
        t.admit(key(B, 3), 5);
        t.admit(key(A, 7), 2);
        assert_eq!((t.host_held(A), t.host_held(B)), (2, 5));
        assert_eq!(t.follower(key(B, 3), false), Follower::Pass { released: 0 });
        assert_eq!(t.host_held(B), 4);
        let mut expired = Vec::new();
        assert_eq!(t.rotate(true, &mut expired), 6);
        assert_eq!(expired, vec![key(A, 7), key(B, 3)]);
        assert_eq!((t.host_held(A), t.host_held(B)), (0, 0));
    }
}
