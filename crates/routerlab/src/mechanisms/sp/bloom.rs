//! A Bloom filter of super-packet keys, for the SPManager's low-state variant (§4).
//!
//! Small and written here rather than taken from a crate: the filter must hash the same way in
//! every run (the common crates seed SipHash randomly), and the manager clears a generation
//! every epoch, which a flat bit array makes one `fill`. A false positive can only let a packet
//! of an unknown SP through, which the paper accepts "if the false-positive rate remains low":
//! with the default 2²⁰ bits and 4 hashes, about 2·10⁻⁶ at 10⁴ live SPs and 1 % at 10⁵.

use super::table::SpKey;

#[derive(Debug, Clone)]
pub struct BloomFilter {
    words: Vec<u64>,
    mask: u64,
    hashes: u32,
}

impl BloomFilter {
    /// A filter of 2^`bits_log2` bits probed at `hashes` positions.
    pub fn new(bits_log2: u32, hashes: u32) -> BloomFilter {
        let bits = 1u64 << bits_log2.max(6);
        BloomFilter { words: vec![0; (bits / 64) as usize], mask: bits - 1, hashes: hashes.max(1) }
    }

    pub fn insert(&mut self, key: SpKey) {
        for bit in self.positions(key) {
            self.words[(bit / 64) as usize] |= 1 << (bit % 64);
        }
    }

    pub fn contains(&self, key: SpKey) -> bool {
        self.positions(key).all(|bit| self.words[(bit / 64) as usize] & (1 << (bit % 64)) != 0)
    }

    pub fn clear(&mut self) {
        self.words.fill(0);
    }

    /// Double hashing (Kirsch and Mitzenmacher): position i = h1 + i·h2, from one 64-bit mix.
    fn positions(&self, key: SpKey) -> impl Iterator<Item = u64> + use<> {
        let x = (key.src.0 as u64) << 40 | (key.dst.0 as u64) << 16 | key.id as u64;
        let h = mix(x);
        let (h1, h2) = (h, (h >> 32) | 1);
        let mask = self.mask;
        (0..self.hashes as u64).map(move |i| h1.wrapping_add(i.wrapping_mul(h2)) & mask)
    }
}

/// SplitMix64's finalizer: a fixed, well-spread 64-bit mix.
fn mix(mut z: u64) -> u64 {
    z = z.wrapping_add(0x9e37_79b9_7f4a_7c15);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ids::HostId;

    #[test]
    fn no_false_negatives_and_few_false_positives() {
        let key = |i: u32| SpKey { src: HostId(i % 97), dst: HostId(i % 13), id: i as u16 };
        let mut f = BloomFilter::new(16, 4);
        for i in 0..2000 {
            f.insert(key(i));
        }
        assert!((0..2000).all(|i| f.contains(key(i))));
        // 2000 keys in 65536 bits, 4 hashes: theory says about 1.4e-4.
        let fp = (100_000..200_000).filter(|&i| f.contains(key(i))).count();
        assert!(fp < 100, "{fp} false positives in 100000");
        f.clear();
        assert!(!f.contains(key(1)));
    }
}
