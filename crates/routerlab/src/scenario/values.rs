//! Scenario values with units: durations, rates, sizes. Each parses from a string with its unit
//! (`"1.25ms"`, `"1Gbps"`, `"64KB"`, `"100pkts"`) and serializes back to the same canonical
//! form, which is what the normalized scenario (and so the scenario hash) contains.
//!
//! A malformed value is reported as `"<value>" is not a <what> (<hint>)`, at its field's path.

use std::fmt;

use serde::de::{self, Deserializer, Visitor};
use serde::{Deserialize, Serialize, Serializer};

use crate::units::{self, Rate, SimTime, Size};

macro_rules! unit_value {
    ($(#[$doc:meta])* $name:ident($inner:ty), $what:literal, $hint:literal, $parse:expr, $check:expr) => {
        $(#[$doc])*
        #[derive(Clone, Copy, Debug, PartialEq, Eq)]
        pub struct $name(pub $inner);

        impl<'de> Deserialize<'de> for $name {
            fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
                struct V;
                impl<'de> Visitor<'de> for V {
                    type Value = $name;
                    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                        write!(f, "a {} with a unit, e.g. {}", $what, $hint)
                    }
                    fn visit_str<E: de::Error>(self, s: &str) -> Result<$name, E> {
                        let parse: fn(&str) -> Option<$inner> = $parse;
                        let check: fn(&$inner) -> Result<(), &'static str> = $check;
                        match parse(s) {
                            None => Err(E::custom(format!("\"{}\" is not a {} (expected a number with a unit, e.g. {})", s, $what, $hint))),
                            Some(v) => match check(&v) {
                                Ok(()) => Ok($name(v)),
                                Err(why) => Err(E::custom(format!("\"{}\": {}", s, why))),
                            },
                        }
                    }
                    fn visit_i64<E: de::Error>(self, v: i64) -> Result<$name, E> {
                        Err(E::custom(format!("{} has no unit (write it with one, e.g. {})", v, $hint)))
                    }
                    fn visit_u64<E: de::Error>(self, v: u64) -> Result<$name, E> {
                        Err(E::custom(format!("{} has no unit (write it with one, e.g. {})", v, $hint)))
                    }
                    fn visit_f64<E: de::Error>(self, v: f64) -> Result<$name, E> {
                        Err(E::custom(format!("{} has no unit (write it with one, e.g. {})", v, $hint)))
                    }
                }
                d.deserialize_any(V)
            }
        }
    };
}

fn any<T>(_: &T) -> Result<(), &'static str> {
    Ok(())
}

unit_value!(
    /// A duration ≥ 0.
    Duration(SimTime), "duration", "\"10ms\"", units::parse_time, any
);
unit_value!(
    /// A duration > 0.
    PositiveDuration(SimTime), "duration", "\"10s\"", units::parse_time,
    |t: &SimTime| if t.0 > 0 { Ok(()) } else { Err("must be positive") }
);
unit_value!(
    /// A rate > 0.
    RateValue(Rate), "rate", "\"1Gbps\"", units::parse_rate,
    |r: &Rate| if r.0 > 0 { Ok(()) } else { Err("a rate must be positive") }
);
unit_value!(
    /// A byte count > 0 (`"64KB"`, `"1460B"`).
    ByteSize(u64), "size in bytes", "\"64KB\"", units::parse_bytes,
    |b: &u64| if *b > 0 { Ok(()) } else { Err("must be positive") }
);
unit_value!(
    /// A queue capacity > 0, in packets or bytes.
    Limit(Size), "buffer size", "\"100pkts\" or \"150KB\"", units::parse_size,
    |s: &Size| match s { Size::Packets(0) | Size::Bytes(0) => Err("a buffer must hold at least one packet"), _ => Ok(()) }
);
unit_value!(
    /// A threshold ≥ 0, in packets or bytes.
    Threshold(Size), "threshold", "\"20pkts\" or \"30KB\"", units::parse_size, any
);

impl Serialize for Duration {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&self.0.to_string())
    }
}
impl Serialize for PositiveDuration {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&self.0.to_string())
    }
}
impl Serialize for RateValue {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&self.0.to_string())
    }
}
impl Serialize for ByteSize {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&format!("{}B", self.0))
    }
}
impl Serialize for Limit {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&self.0.to_string())
    }
}
impl Serialize for Threshold {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&self.0.to_string())
    }
}

/// A probability in [0, 1].
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct Probability(pub f64);

impl<'de> Deserialize<'de> for Probability {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let v = f64::deserialize(d)?;
        if (0.0..=1.0).contains(&v) {
            Ok(Probability(v))
        } else {
            Err(de::Error::custom(format!("{v} is not a probability (expected a number from 0 to 1)")))
        }
    }
}

/// One host name or a list of them.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(transparent)]
pub struct HostList(pub Vec<String>);

impl<'de> Deserialize<'de> for HostList {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        #[derive(Deserialize)]
        #[serde(untagged)]
        enum OneOrMany {
            One(String),
            Many(Vec<String>),
        }
        match OneOrMany::deserialize(d) {
            Ok(OneOrMany::One(s)) => Ok(HostList(vec![s])),
            Ok(OneOrMany::Many(v)) if !v.is_empty() => Ok(HostList(v)),
            Ok(OneOrMany::Many(_)) => Err(de::Error::custom("the list of hosts is empty")),
            Err(_) => Err(de::Error::custom("expected a host name or a list of host names")),
        }
    }
}
