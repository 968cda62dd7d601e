//! Units: simulated time in integer picoseconds, rates in bits per second, sizes in bytes.
//!
//! Every quantity that crosses a module boundary carries its unit in its type (`SimTime`,
//! `Rate`, `Bytes`) or in its name (`_ps`, `_bytes`). Time is an integer so that runs are
//! bit-for-bit reproducible; the only place a rate turns into a time is [`Rate::tx_time`] (and
//! [`TxClock`], the same by multiplication, for ports).
//!
//! Time arithmetic saturates at [`SimTime::MAX`] instead of wrapping, and a scenario gives no
//! time longer than [`MAX_SCENARIO_TIME`] (10⁶ s), so that nothing a simulation adds up from
//! the times it was given comes near the end of the 64-bit clock (about 213 days).
//!
//! Scenario files write units in values: `"1.25ms"`, `"1Gbps"`, `"64KB"`, `"100pkts"`.
//! KB/MB/GB are 1000-based and KiB/MiB/GiB 1024-based. Decimal values are parsed exactly
//! (no floating point), and a value that cannot be represented (sub-picosecond, fractional
//! bit/s or byte) is rejected rather than rounded.

use std::fmt;
use std::ops::{Add, AddAssign, Sub, SubAssign};

/// Simulated time, in picoseconds since the start of the run.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default, Debug)]
pub struct SimTime(pub u64);

pub const PS_PER_NS: u64 = 1_000;
pub const PS_PER_US: u64 = 1_000_000;
pub const PS_PER_MS: u64 = 1_000_000_000;
pub const PS_PER_S: u64 = 1_000_000_000_000;

/// The longest time a scenario may give (a duration, a timer, a start time): 10⁶ s, about 11.6
/// days, a twentieth of what the picosecond clock holds.
pub const MAX_SCENARIO_TIME: SimTime = SimTime::from_secs(1_000_000);

impl SimTime {
    pub const ZERO: SimTime = SimTime(0);
    pub const MAX: SimTime = SimTime(u64::MAX);

    pub const fn from_ps(ps: u64) -> SimTime {
        SimTime(ps)
    }
    pub const fn from_ns(ns: u64) -> SimTime {
        SimTime(ns * PS_PER_NS)
    }
    pub const fn from_us(us: u64) -> SimTime {
        SimTime(us * PS_PER_US)
    }
    pub const fn from_ms(ms: u64) -> SimTime {
        SimTime(ms * PS_PER_MS)
    }
    pub const fn from_secs(s: u64) -> SimTime {
        SimTime(s * PS_PER_S)
    }
    pub const fn ps(self) -> u64 {
        self.0
    }
    /// Seconds as a float, for reporting only (never fed back into the simulation).
    pub fn as_secs_f64(self) -> f64 {
        self.0 as f64 / PS_PER_S as f64
    }
    pub fn saturating_sub(self, other: SimTime) -> SimTime {
        SimTime(self.0.saturating_sub(other.0))
    }
    /// Seconds from a float (a sampled think time, say): rounded down to picoseconds, and at
    /// most [`MAX_SCENARIO_TIME`] (NaN and negative values give zero).
    pub fn from_secs_f64_bounded(s: f64) -> SimTime {
        let ps = s * PS_PER_S as f64;
        if ps >= MAX_SCENARIO_TIME.0 as f64 { MAX_SCENARIO_TIME } else { SimTime(ps.max(0.0) as u64) }
    }
    /// `self * num / den`, exactly in integers (rounded down).
    pub fn mul_div(self, num: u64, den: u64) -> SimTime {
        SimTime(((self.0 as u128 * num as u128) / den as u128) as u64)
    }
}

/// Saturating: a time past the end of the clock stays at its end instead of wrapping to the
/// start of the run.
impl Add for SimTime {
    type Output = SimTime;
    #[inline]
    fn add(self, o: SimTime) -> SimTime {
        SimTime(self.0.saturating_add(o.0))
    }
}
impl AddAssign for SimTime {
    #[inline]
    fn add_assign(&mut self, o: SimTime) {
        self.0 = self.0.saturating_add(o.0)
    }
}
impl Sub for SimTime {
    type Output = SimTime;
    fn sub(self, o: SimTime) -> SimTime {
        SimTime(self.0 - o.0)
    }
}
impl SubAssign for SimTime {
    fn sub_assign(&mut self, o: SimTime) {
        self.0 -= o.0
    }
}

impl fmt::Display for SimTime {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", format_scaled(self.0, &TIME_UNITS))
    }
}

/// A link or sending rate, in bits per second.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default, Debug)]
pub struct Rate(pub u64);

impl Rate {
    pub const fn from_bps(bps: u64) -> Rate {
        Rate(bps)
    }
    pub const fn from_kbps(k: u64) -> Rate {
        Rate(k * 1_000)
    }
    pub const fn from_mbps(m: u64) -> Rate {
        Rate(m * 1_000_000)
    }
    pub const fn from_gbps(g: u64) -> Rate {
        Rate(g * 1_000_000_000)
    }
    pub const fn bps(self) -> u64 {
        self.0
    }
    /// Serialization time of `bytes` at this rate, rounded up to the next picosecond.
    /// The one place where a size and a rate become a time.
    #[inline]
    pub fn tx_time(self, bytes: u64) -> SimTime {
        // bytes * 8e12 fits in u64 for any IP datagram (< 2^21 bytes); larger sizes use u128.
        if bytes < (1 << 21) {
            let num = bytes * 8 * PS_PER_S;
            SimTime(num.div_ceil(self.0))
        } else {
            let num = bytes as u128 * 8 * PS_PER_S as u128;
            SimTime(num.div_ceil(self.0 as u128) as u64)
        }
    }
    /// Bytes that this rate carries in `t` (rounded down).
    pub fn bytes_in(self, t: SimTime) -> u64 {
        ((self.0 as u128 * t.0 as u128) / (8 * PS_PER_S as u128)) as u64
    }
}

/// [`Rate::tx_time`] as a multiplication, for a port that serializes every packet at one rate.
/// The picoseconds per byte, `8·10¹² / rate`, are kept as their whole part and their fraction
/// in 64-bit fixed point, and a time is `bytes·whole + ⌈bytes·fraction⌉`: one wide multiply
/// and no division, branch or memo. It is exactly what the division gives (a unit and a
/// property test compare the two), for datagrams under 2²¹ bytes at rates up to 2⁴³ bit/s;
/// beyond those it divides. Why exact: the fixed-point `bytes·fraction` falls short of the
/// true `bytes·(8·10¹² mod rate)/rate` by less than `bytes·2⁻⁶⁴ < 2⁻⁴³`, while a true value
/// that is not whole lies at least `1/rate ≥ 2⁻⁴³` above the whole number below it; so both
/// round up to the same picosecond. (It replaced a memo of the last two sizes sent, whose
/// "which of the two?" branch ports carrying ACKs of many sizes mispredicted.)
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TxClock {
    whole_ps_per_byte: u64,
    /// The fraction of a picosecond per byte, in units of 2⁻⁶⁴ ps (rounded down).
    frac_ps_per_byte: u64,
    /// Sizes below this take the multiplication: 2²¹, or 0 for a rate it is not exact at.
    exact_below: u64,
    rate: Rate,
}

impl TxClock {
    /// Datagram sizes up to which (exclusive) the multiplication is exact.
    const EXACT_BYTES: u64 = 1 << 21;
    /// Rates up to which (inclusive) the multiplication is exact.
    const EXACT_RATE_BPS: u64 = 1 << 43;

    pub fn new(rate: Rate) -> TxClock {
        let ps_per_byte = 8 * PS_PER_S;
        let exact = rate.0 > 0 && rate.0 <= Self::EXACT_RATE_BPS;
        let (whole, frac) = if exact {
            let rem = (ps_per_byte % rate.0) as u128;
            (ps_per_byte / rate.0, ((rem << 64) / rate.0 as u128) as u64)
        } else {
            (0, 0)
        };
        TxClock {
            whole_ps_per_byte: whole,
            frac_ps_per_byte: frac,
            exact_below: if exact { Self::EXACT_BYTES } else { 0 },
            rate,
        }
    }

    pub fn rate(&self) -> Rate {
        self.rate
    }

    /// Serialization time of `bytes`: `self.rate().tx_time(bytes)`, exactly.
    #[inline]
    pub fn tx_time(&self, bytes: u64) -> SimTime {
        if bytes >= self.exact_below {
            return self.rate.tx_time(bytes);
        }
        let frac = bytes as u128 * self.frac_ps_per_byte as u128;
        let frac_up = (frac >> 64) as u64 + (frac as u64 != 0) as u64;
        SimTime(bytes * self.whole_ps_per_byte + frac_up)
    }
}

impl fmt::Display for Rate {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", format_scaled(self.0, &RATE_UNITS))
    }
}

/// A size in bytes.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default, Debug)]
pub struct Bytes(pub u64);

impl fmt::Display for Bytes {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}B", self.0)
    }
}

/// A buffer or window size given either in packets or in bytes (`"100pkts"`, `"150KB"`).
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub enum Size {
    Packets(u64),
    Bytes(u64),
}

impl Size {
    /// The packet size a byte limit is converted at when packets are asked for.
    pub const FULL_PACKET_BYTES: u64 = 1500;

    /// Full-sized packets this size holds.
    pub fn in_full_packets(self) -> usize {
        match self {
            Size::Packets(n) => n as usize,
            Size::Bytes(b) => (b / Self::FULL_PACKET_BYTES) as usize,
        }
    }

    /// Would a queue holding `packets` packets and `bytes` bytes exceed this limit with one more
    /// packet of `len` bytes?
    pub fn exceeded_by(self, packets: usize, bytes: u64, len: u64) -> bool {
        match self {
            Size::Packets(n) => packets as u64 + 1 > n,
            Size::Bytes(b) => bytes + len > b,
        }
    }

    /// Full-sized packets that still fit beside a queue of `packets` packets and `bytes` bytes.
    pub fn room_packets(self, packets: usize, bytes: u64) -> usize {
        match self {
            Size::Packets(n) => (n as usize).saturating_sub(packets),
            Size::Bytes(b) => (b.saturating_sub(bytes) / Self::FULL_PACKET_BYTES) as usize,
        }
    }
}

impl fmt::Display for Size {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Size::Packets(n) => write!(f, "{n}pkts"),
            Size::Bytes(n) => write!(f, "{n}B"),
        }
    }
}

const TIME_UNITS: [(&str, u64); 6] =
    [("s", PS_PER_S), ("ms", PS_PER_MS), ("us", PS_PER_US), ("µs", PS_PER_US), ("ns", PS_PER_NS), ("ps", 1)];
const RATE_UNITS: [(&str, u64); 5] =
    [("Tbps", 1_000_000_000_000), ("Gbps", 1_000_000_000), ("Mbps", 1_000_000), ("Kbps", 1_000), ("bps", 1)];
const BYTE_UNITS: [(&str, u64); 7] = [
    ("GiB", 1 << 30),
    ("MiB", 1 << 20),
    ("KiB", 1 << 10),
    ("GB", 1_000_000_000),
    ("MB", 1_000_000),
    ("KB", 1_000),
    ("B", 1),
];

/// Largest unit that divides the value exactly, so that formatting round-trips.
fn format_scaled(v: u64, units: &[(&str, u64)]) -> String {
    for &(name, scale) in units {
        if name != "µs" && v != 0 && v.is_multiple_of(scale) {
            return format!("{}{}", v / scale, name);
        }
    }
    format!("0{}", units[units.len() - 1].0)
}

/// Splits `"1.25ms"` into the number and the unit, and scales the number exactly.
/// Returns `None` for a malformed, negative, overflowing or inexact value.
fn parse_scaled(s: &str, units: &[(&str, u64)]) -> Option<u64> {
    let s = s.trim();
    let split = s.find(|c: char| !(c.is_ascii_digit() || c == '.' || c == '_')).unwrap_or(s.len());
    let (num, unit) = (&s[..split], s[split..].trim());
    let scale = units.iter().find(|(name, _)| *name == unit)?.1;
    parse_decimal(num, scale)
}

/// Exact decimal `num * scale` in integers; `None` if not a whole number or on overflow.
fn parse_decimal(num: &str, scale: u64) -> Option<u64> {
    let num: String = num.chars().filter(|&c| c != '_').collect();
    if num.is_empty() || num.starts_with('.') && num.len() == 1 {
        return None;
    }
    let (int, frac) = match num.split_once('.') {
        Some((i, f)) => (i, f),
        None => (num.as_str(), ""),
    };
    if !int.chars().all(|c| c.is_ascii_digit()) || !frac.chars().all(|c| c.is_ascii_digit()) {
        return None;
    }
    let int_v: u64 = if int.is_empty() { 0 } else { int.parse().ok()? };
    let mut total = int_v.checked_mul(scale)?;
    let frac = frac.trim_end_matches('0');
    if !frac.is_empty() {
        let den = 10u64.checked_pow(frac.len() as u32)?;
        let f: u64 = frac.parse().ok()?;
        let scaled = (f as u128) * (scale as u128);
        if !scaled.is_multiple_of(den as u128) {
            return None; // finer than the smallest unit
        }
        total = total.checked_add((scaled / den as u128) as u64)?;
    }
    Some(total)
}

pub fn parse_time(s: &str) -> Option<SimTime> {
    parse_scaled(s, &TIME_UNITS).map(SimTime)
}

pub fn parse_rate(s: &str) -> Option<Rate> {
    parse_scaled(s, &RATE_UNITS).map(Rate)
}

pub fn parse_bytes(s: &str) -> Option<u64> {
    parse_scaled(s, &BYTE_UNITS)
}

/// `"100pkts"` (also `pkt`, `packets`) or a byte size.
pub fn parse_size(s: &str) -> Option<Size> {
    let t = s.trim();
    for suffix in ["packets", "pkts", "pkt"] {
        if let Some(n) = t.strip_suffix(suffix) {
            return parse_decimal(n.trim(), 1).map(Size::Packets);
        }
    }
    parse_bytes(t).map(Size::Bytes)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Time arithmetic saturates at the end of the clock instead of wrapping to the start.
    #[test]
    fn time_saturates_and_sampled_times_are_bounded() {
        assert_eq!(SimTime::MAX + SimTime::from_ms(1), SimTime::MAX);
        let mut t = SimTime(u64::MAX - 1);
        t += SimTime::from_secs(1);
        assert_eq!(t, SimTime::MAX);
        assert_eq!(SimTime::from_secs_f64_bounded(1.5), SimTime::from_ms(1500));
        assert_eq!(SimTime::from_secs_f64_bounded(213.0 * 86_400.0), MAX_SCENARIO_TIME);
        assert_eq!(SimTime::from_secs_f64_bounded(f64::NAN), SimTime::ZERO);
        assert_eq!(SimTime::from_secs_f64_bounded(-1.0), SimTime::ZERO);
    }
    use proptest::prelude::*;

    #[test]
    fn time_parses_exactly() {
        assert_eq!(parse_time("1.25ms"), Some(SimTime::from_us(1250)));
        assert_eq!(parse_time("10s"), Some(SimTime::from_secs(10)));
        assert_eq!(parse_time("100us"), Some(SimTime::from_us(100)));
        assert_eq!(parse_time("100µs"), Some(SimTime::from_us(100)));
        assert_eq!(parse_time("0.5 s"), Some(SimTime::from_ms(500)));
        assert_eq!(parse_time("1.0000000000001s"), None, "sub-ps precision is rejected");
        assert_eq!(parse_time("-1s"), None);
        assert_eq!(parse_time("1"), None, "a unit is required");
        assert_eq!(parse_time("1 fortnight"), None);
        assert_eq!(parse_time("."), None);
    }

    #[test]
    fn rate_parses_and_formats() {
        assert_eq!(parse_rate("1Gbps"), Some(Rate::from_gbps(1)));
        assert_eq!(parse_rate("1.5Mbps"), Some(Rate::from_kbps(1500)));
        assert_eq!(parse_rate("120Kbps"), Some(Rate::from_bps(120_000)));
        assert_eq!(parse_rate("-1Gbps"), None);
        assert_eq!(Rate::from_mbps(150).to_string(), "150Mbps");
        assert_eq!(SimTime::from_us(1250).to_string(), "1250us");
    }

    #[test]
    fn sizes_are_1000_or_1024_based() {
        assert_eq!(parse_bytes("64KB"), Some(64_000));
        assert_eq!(parse_bytes("64KiB"), Some(65_536));
        assert_eq!(parse_bytes("1.5MB"), Some(1_500_000));
        assert_eq!(parse_size("100pkts"), Some(Size::Packets(100)));
        assert_eq!(parse_size("512KB"), Some(Size::Bytes(512_000)));
        assert_eq!(parse_size("1.5pkts"), None);
    }

    #[test]
    fn tx_clock_is_the_division() {
        // Rates that divide 8·10¹² (bit·ps per byte·s) and rates that do not, up to the largest
        // exact rate and past it (where it divides), at sizes from none to past the exact range.
        let rates =
            [1, 3, 7, 150_000_000, 1_000_000_000, 10_000_000_000, 99_999_999_999, (1 << 43) - 1, 1 << 43];
        let sizes = [0, 1, 2, 40, 52, 1500, 1538, 9000, 65_535, (1 << 21) - 1, 1 << 21, 1 << 30];
        for bps in rates.into_iter().chain([(1 << 43) + 1, u64::MAX / 2]) {
            let clock = TxClock::new(Rate(bps));
            for bytes in sizes {
                assert_eq!(clock.tx_time(bytes), Rate(bps).tx_time(bytes), "{bytes} bytes at {bps} bit/s");
            }
        }
    }

    proptest! {
        #[test]
        fn tx_clock_matches_the_division(
            bps in prop_oneof![1u64..100_000, 100_000u64..100_000_000_000, 1u64..=(1 << 43)],
            bytes in prop_oneof![0u64..10_000, 0u64..(1 << 21)],
        ) {
            prop_assert_eq!(TxClock::new(Rate(bps)).tx_time(bytes), Rate(bps).tx_time(bytes));
        }
    }

    #[test]
    fn tx_time_rounds_up_to_picoseconds() {
        assert_eq!(Rate::from_gbps(1).tx_time(1500), SimTime::from_us(12));
        assert_eq!(Rate::from_gbps(10).tx_time(1500), SimTime::from_ns(1200));
        // 150 Mbps: 1500 B = 80 us exactly; 1 B = 53333.33.. ps -> 53334
        assert_eq!(Rate::from_mbps(150).tx_time(1500), SimTime::from_us(80));
        assert_eq!(Rate::from_mbps(150).tx_time(1), SimTime(53_334));
        assert_eq!(Rate::from_gbps(1).bytes_in(SimTime::from_secs(1)), 125_000_000);
    }
}
