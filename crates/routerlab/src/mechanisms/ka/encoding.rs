//! Kick-Ass's two codes in packet lengths (§II-A, §II-B).
//!
//! **Rate → leading-fragment length.** A router signals rate R (bytes per millisecond) by
//! fragmenting a packet so that its leading fragment carries L = F(R) = 128·ln(R / 12.4392)
//! bytes of IP payload. IPv4 fragment offsets count 8-byte units, so L is rounded to the nearest
//! multiple of 8 and clamped to 24…1480 (24 ↔ 120 Kbps, one 1500-byte packet per 100 ms RTT;
//! 1480 ↔ 10 Gbps in the paper's words, 10.46 Gbps with its constants). That is 183 levels; the paper says 187 (§II-A) — we keep its function and
//! bounds and note the difference. Below the lowest rate there is no code: the router does not
//! fragment, and endpoints fall back to TCP (§II-A).
//!
//! A 1500-byte packet carries 1480 bytes of payload, so its leading fragment can be at most
//! 1472 bytes long: the top level (1480) is never seen on such a packet, and rates from
//! [`max_signalled_rate`] (9.82 Gbps) up are all signalled as 1472.
//!
//! **RTT → indicator size.** Endpoints tell routers their RTT with packets of 600…611 bytes
//! (DF set): 600 says < 2 ms (taken as 1 ms), 600 + k says 2^k … 2^(k+1) − 1 ms for k = 1…10,
//! and 611 says ≥ 2048 ms. A router takes the middle of the range: 1.5·2^k ms (3072 ms for 611,
//! as if its range were 2048…4095 ms — the paper leaves the open end's middle unsaid).

use crate::units::{Rate, SimTime};

/// The scale of F in bytes per millisecond (§II-A: L = 128·ln(R / 12.4392)).
pub const RATE_SCALE_BYTES_PER_MS: f64 = 12.4392;
/// The slope of F, bytes of length per e-fold of rate (§II-A).
pub const LENGTH_PER_E_FOLD: f64 = 128.0;
/// IPv4 fragments are cut at multiples of 8 bytes (RFC 791).
pub const LENGTH_STEP: u32 = 8;
/// Shortest leading-fragment payload: still holds a TCP header (§II-A).
pub const MIN_LENGTH: u32 = 24;
/// Longest: a 1500-byte packet's whole payload (§II-A).
pub const MAX_LENGTH: u32 = 1480;
/// Number of lengths in 24…1480 in steps of 8.
pub const LEVELS: u32 = (MAX_LENGTH - MIN_LENGTH) / LENGTH_STEP + 1;

/// Smallest RTT indicator size (§II-B).
pub const INDICATOR_MIN_BYTES: u32 = 600;
/// Largest: 611 (≥ 2048 ms).
pub const INDICATOR_MAX_BYTES: u32 = 611;

fn bytes_per_ms(r: Rate) -> f64 {
    // 1 bit/s = 1/8 byte per 1000 ms.
    r.bps() as f64 / 8000.0
}

fn rate_of_bytes_per_ms(b: f64) -> Rate {
    Rate((b * 8000.0).round() as u64)
}

/// F(R) before rounding: the exact length for rate `r` (may be outside 24…1480).
pub fn exact_length(r: Rate) -> f64 {
    LENGTH_PER_E_FOLD * libm::log(bytes_per_ms(r) / RATE_SCALE_BYTES_PER_MS)
}

/// The rate a length stands for: F⁻¹(L) = 12.4392·e^(L/128) bytes/ms.
pub fn rate_of_length(len: u32) -> Rate {
    rate_of_bytes_per_ms(RATE_SCALE_BYTES_PER_MS * libm::exp(len as f64 / LENGTH_PER_E_FOLD))
}

/// The lowest rate with a code (F⁻¹(24) ≈ 120 Kbps).
pub fn min_rate() -> Rate {
    rate_of_length(MIN_LENGTH)
}

/// How F(R) becomes a multiple of 8. The paper does not say (§II-A).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Rounding {
    /// To the nearest level: the rate read is within half a step (±3.2 %) of R.
    #[default]
    Nearest,
    /// To the level at or below: the rate read never exceeds R (up to 6.5 % under it).
    Down,
}

/// The length a router signals for rate `r`: F(R) to the nearest multiple of 8, clamped to
/// 24…1480; `None` below the lowest rate (no signal).
pub fn length_for_rate(r: Rate) -> Option<u32> {
    length_for_rate_rounded(r, Rounding::Nearest)
}

/// [`length_for_rate`] with the given rounding.
pub fn length_for_rate_rounded(r: Rate, rounding: Rounding) -> Option<u32> {
    if r < min_rate() {
        return None;
    }
    let exact = exact_length(r) / LENGTH_STEP as f64;
    let steps = match rounding {
        Rounding::Nearest => libm::round(exact),
        // A hair of slack (10⁻⁴ of a step, 0.0006 % of the rate), so that a level's own rate,
        // rounded to whole bit/s, maps to that level.
        Rounding::Down => libm::floor(exact + 1e-4),
    };
    let len = (steps.max(0.0) as u32) * LENGTH_STEP;
    Some(len.clamp(MIN_LENGTH, MAX_LENGTH))
}

/// The rate a receiver reads from a leading fragment's payload length; `None` if the length
/// is not a code (not a multiple of 8, or outside 24…1480).
pub fn decode_length(len: u32) -> Option<Rate> {
    (len.is_multiple_of(LENGTH_STEP) && (MIN_LENGTH..=MAX_LENGTH).contains(&len)).then(|| rate_of_length(len))
}

/// The rate from which every signal on a 1500-byte packet is 1472 bytes (see the module doc).
pub fn max_signalled_rate() -> Rate {
    rate_of_length(MAX_LENGTH - LENGTH_STEP)
}

/// The indicator size (IP total length) for an RTT.
pub fn indicator_size(rtt: SimTime) -> u32 {
    let ms = rtt.ps() / crate::units::PS_PER_MS;
    let k = if ms < 2 { 0 } else { (63 - ms.leading_zeros()).min(11) };
    INDICATOR_MIN_BYTES + k
}

/// The RTT a router reads from an indicator size; `None` outside 600…611.
pub fn indicator_rtt(size: u32) -> Option<SimTime> {
    if !(INDICATOR_MIN_BYTES..=INDICATOR_MAX_BYTES).contains(&size) {
        return None;
    }
    let k = size - INDICATOR_MIN_BYTES;
    let us = if k == 0 { 1000 } else { 1500u64 << k };
    Some(SimTime::from_us(us))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_paper_bounds_map_to_24_and_1480_bytes() {
        // §II-A: 24 bytes ↔ 120 Kbps, 1480 ↔ 10 Gbps.
        // The paper's constants make the ends approximate: F(120 Kbit/s) = 23.96 and
        // F(10 Gbit/s) = 1474.3 (to the nearest step, 1472); 1480 stands for 10.46 Gbit/s.
        assert_eq!(length_for_rate(Rate::from_kbps(121)), Some(24));
        assert!((exact_length(Rate::from_gbps(10)) - 1474.3).abs() < 0.1);
        assert_eq!(length_for_rate(Rate::from_gbps(10)), Some(1472));
        assert_eq!(length_for_rate(Rate::from_gbps(11)), Some(1480));
        assert_eq!(length_for_rate(Rate::from_gbps(40)), Some(1480));
        assert!((min_rate().bps() as f64 - 120e3).abs() < 1.5e3, "{}", min_rate());
        assert!((rate_of_length(1480).bps() as f64 / 10.46e9 - 1.0).abs() < 0.005);
        // "The first 1000 bytes encode rates only up to 245 Mbps".
        assert!((rate_of_length(1000).bps() as f64 / 245e6 - 1.0).abs() < 0.01);
        assert_eq!(LEVELS, 183);
    }

    #[test]
    fn below_the_lowest_rate_there_is_no_signal() {
        assert_eq!(length_for_rate(Rate::from_kbps(100)), None);
        assert_eq!(length_for_rate(Rate(0)), None);
    }

    #[test]
    fn every_level_round_trips() {
        let mut prev = Rate(0);
        for i in 0..LEVELS {
            let len = MIN_LENGTH + i * LENGTH_STEP;
            let r = decode_length(len).expect("a level decodes");
            assert!(r > prev, "levels increase");
            prev = r;
            assert_eq!(length_for_rate(r), Some(len), "level {len}");
        }
        assert_eq!(decode_length(20), None);
        assert_eq!(decode_length(1488), None);
        assert_eq!(decode_length(100), None, "not a multiple of 8");
    }

    #[test]
    fn neighbouring_levels_are_about_6_5_percent_apart() {
        let step = rate_of_length(32).bps() as f64 / rate_of_length(24).bps() as f64;
        assert!((step - libm::exp(8.0 / 128.0)).abs() < 1e-3 && (step - 1.0645).abs() < 1e-3);
    }

    #[test]
    fn rounding_is_to_the_nearest_level() {
        // A rate just above the middle (in F) between two levels goes up, just below goes down.
        let mid = rate_of_length(1000).bps() as f64 * libm::exp(4.0 / 128.0);
        assert_eq!(length_for_rate(Rate((mid * 1.001) as u64)), Some(1008));
        assert_eq!(length_for_rate(Rate((mid * 0.999) as u64)), Some(1000));
    }

    #[test]
    fn rounding_down_never_signals_above_the_rate() {
        let mid = rate_of_length(1000).bps() as f64 * libm::exp(4.0 / 128.0);
        let down = |bps: f64| length_for_rate_rounded(Rate(bps as u64), Rounding::Down);
        assert_eq!(down(mid * 1.001), Some(1000), "nearest would say 1008");
        assert_eq!(down(mid * 0.999), Some(1000));
        for i in 0..LEVELS {
            let len = MIN_LENGTH + i * LENGTH_STEP;
            let r = rate_of_length(len);
            assert_eq!(length_for_rate_rounded(r, Rounding::Down), Some(len), "a level is its own");
            let just_under = Rate(r.bps() - r.bps() / 1000);
            if len > MIN_LENGTH {
                assert_eq!(length_for_rate_rounded(just_under, Rounding::Down), Some(len - LENGTH_STEP));
            }
            for l in [
                length_for_rate_rounded(r, Rounding::Down),
                length_for_rate_rounded(just_under, Rounding::Down),
            ]
            .into_iter()
            .flatten()
            {
                assert!(rate_of_length(l) <= r, "{len}: reads {} above {r}", rate_of_length(l));
            }
        }
    }

    #[test]
    fn the_rtt_indicator_table() {
        let ms = SimTime::from_ms;
        let table = [
            (0, 600, 1000),
            (1, 600, 1000),
            (2, 601, 3000),
            (3, 601, 3000),
            (4, 602, 6000),
            (7, 602, 6000),
            (100, 606, 96_000),
            (127, 606, 96_000),
            (128, 607, 192_000),
            (1024, 610, 1_536_000),
            (2047, 610, 1_536_000),
            (2048, 611, 3_072_000),
            (100_000, 611, 3_072_000),
        ];
        for (rtt_ms, size, mid_us) in table {
            assert_eq!(indicator_size(ms(rtt_ms)), size, "{rtt_ms} ms");
            assert_eq!(indicator_rtt(size), Some(SimTime::from_us(mid_us)), "{size} B");
        }
        // Sub-millisecond RTTs (data centres) say 600.
        assert_eq!(indicator_size(SimTime::from_us(100)), 600);
        assert_eq!(indicator_rtt(599), None);
        assert_eq!(indicator_rtt(612), None);
    }

    #[test]
    fn every_indicator_midpoint_lies_in_its_own_range() {
        for size in INDICATOR_MIN_BYTES..=INDICATOR_MAX_BYTES {
            assert_eq!(indicator_size(indicator_rtt(size).unwrap()), size);
        }
    }
}
