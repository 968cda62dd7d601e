//! CP's PACK option: a SACK block with its left and right edges swapped, so that a receiver
//! names a range that was *lost* (cut by a switch) in the option space of SACK (RFC 2018).
//! A SACK-only sender ignores such a block (a block with left ≥ right is not a valid SACK).

use crate::net::packet::SackBlock;

/// The PACK naming the lost range `[left, right)`.
pub fn encode(left: u64, right: u64) -> SackBlock {
    debug_assert!(left < right);
    SackBlock { left: right, right: left }
}

/// The lost range `[left, right)` a block names, if it is a PACK.
pub fn decode(b: &SackBlock) -> Option<(u64, u64)> {
    (b.left > b.right).then_some((b.right, b.left))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trip_and_ordinary_sack_is_not_a_pack() {
        let b = encode(1000, 2460);
        assert_eq!((b.left, b.right), (2460, 1000));
        assert_eq!(decode(&b), Some((1000, 2460)));
        assert_eq!(decode(&SackBlock { left: 1000, right: 2460 }), None);
        assert_eq!(decode(&SackBlock { left: 5, right: 5 }), None);
    }
}
