//! Super-packet marks on the wire (§3.2): the ToS byte carries, from its most significant bit,
//! the first flag, the last flag and the SP length in packets (6 bits, so at most 63); the
//! identification field carries the SP identifier, unique per (source, destination).
//!
//! ```text
//!   ToS:   | first | last |        length (6 bits)        |
//!   IP id: |                SP identifier (16 bits)        |
//! ```
//!
//! The paper's figure marks part of the identification field "reserved" without saying how
//! much: we use all 16 bits for the identifier. A packet with length 0 is a regular packet
//! (the paper's "regular packets are treated as super-packets of length 1" needs a way to tell
//! them apart; a zero ToS is what every legacy sender sends). The ToS layout overlaps ECN's two
//! bits and the identifier fragmentation's: a scenario may not combine super-packets with ECN.

use crate::net::packet::Ipv4Header;

/// The largest SP length the 6-bit field holds.
pub const MAX_SP_LENGTH: u32 = 63;

const FIRST: u8 = 0x80;
const LAST: u8 = 0x40;
const LENGTH: u8 = 0x3f;

/// A packet's super-packet mark, as read from its IPv4 header.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct SpMark {
    pub first: bool,
    pub last: bool,
    /// SP length in packets, 1…63; 0 for a regular packet.
    pub length: u8,
    pub id: u16,
}

impl SpMark {
    /// Read the mark (a regular packet reads as length 0).
    pub fn read(ip: &Ipv4Header) -> SpMark {
        SpMark { first: ip.tos & FIRST != 0, last: ip.tos & LAST != 0, length: ip.tos & LENGTH, id: ip.id }
    }

    /// Write the mark into the header's ToS and identification fields.
    pub fn write(self, ip: &mut Ipv4Header) {
        debug_assert!(self.length as u32 <= MAX_SP_LENGTH);
        ip.tos = (if self.first { FIRST } else { 0 })
            | (if self.last { LAST } else { 0 })
            | (self.length & LENGTH);
        ip.id = self.id;
    }

    /// Part of a super-packet (not a regular packet).
    pub fn is_sp(self) -> bool {
        self.length > 0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_mark_survives_a_round_trip() {
        for length in 0..=MAX_SP_LENGTH as u8 {
            for (first, last) in [(false, false), (true, false), (false, true), (true, true)] {
                let m = SpMark { first, last, length, id: 0xbeef ^ length as u16 };
                let mut ip = Ipv4Header::default();
                m.write(&mut ip);
                assert_eq!(SpMark::read(&ip), m);
            }
        }
        assert!(!SpMark::read(&Ipv4Header::default()).is_sp(), "a legacy packet is regular");
    }
}
