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

/// A time, or `SimTime::MAX` for a well-formed one too long for the clock (so that it is
/// refused as too long, not as malformed).
fn parse_duration(s: &str) -> Option<SimTime> {
    units::parse_time(s).or_else(|| {
        let unit_at = s.find(|c: char| c.is_ascii_alphabetic())?;
        let (number, unit) = s.split_at(unit_at);
        let x: f64 = number.trim().parse().ok()?;
        let scale = units::parse_time(&format!("1{unit}"))?;
        (x.is_finite() && x * scale.0 as f64 >= u64::MAX as f64).then_some(SimTime::MAX)
    })
}

/// No time in a scenario is longer than `units::MAX_SCENARIO_TIME`.
fn bounded_time(t: &SimTime) -> Result<(), &'static str> {
    if *t <= units::MAX_SCENARIO_TIME {
        Ok(())
    } else {
        Err("longer than the longest time a scenario may give, 1000000s (11.6 days)")
    }
}

unit_value!(
    /// A duration ≥ 0, at most `units::MAX_SCENARIO_TIME`.
    Duration(SimTime), "duration", "\"10ms\"", parse_duration, bounded_time
);
unit_value!(
    /// A duration > 0, at most `units::MAX_SCENARIO_TIME`.
    PositiveDuration(SimTime), "duration", "\"10s\"", parse_duration,
    |t: &SimTime| if t.0 > 0 { bounded_time(t) } else { Err("must be positive") }
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

/// The duplicate-ACK threshold: a count ≥ 1, or `"paths"` — the number of equal-cost paths
/// between the connection's hosts, at least 3 (the reordering tolerance PLTS derives from the
/// topology).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DupThresh {
    Count(u32),
    Paths,
}

impl<'de> Deserialize<'de> for DupThresh {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        const EXPECTED: &str = "expected a count of at least 1 or \"paths\"";
        match toml::Value::deserialize(d)? {
            toml::Value::Integer(n) if (1..=i64::from(u32::MAX)).contains(&n) => {
                Ok(DupThresh::Count(n as u32))
            }
            toml::Value::String(s) if s == "paths" => Ok(DupThresh::Paths),
            toml::Value::String(s) => {
                Err(de::Error::custom(format!("\"{s}\" is not a threshold ({EXPECTED})")))
            }
            other => Err(de::Error::custom(format!("{other} is not a threshold ({EXPECTED})"))),
        }
    }
}

impl Serialize for DupThresh {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            DupThresh::Count(n) => s.serialize_u32(*n),
            DupThresh::Paths => s.serialize_str("paths"),
        }
    }
}

/// When a workload's flows start (`workload::Starts`), as a scenario writes it: one time for
/// all (`"1s"`), a sequence (`{ first = "0s", step = "2ms" }`: flow i at first + i·step), or an
/// explicit list (flow i at the i-th entry; as many entries as flows, checked where the flows
/// are known).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Starts(pub crate::workload::Starts);

impl Starts {
    pub fn zero() -> Starts {
        Starts(crate::workload::Starts::At(SimTime::ZERO))
    }

    /// The number of flows a list fixes, if it is one.
    pub fn count(&self) -> Option<usize> {
        match &self.0 {
            crate::workload::Starts::List(l) => Some(l.len()),
            _ => None,
        }
    }
}

impl<'de> Deserialize<'de> for Starts {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        use crate::workload::Starts as S;
        const EXPECTED: &str = "expected a duration (\"1s\"), a sequence ({ first = \"0s\", step = \"2ms\" }) or a list of durations";
        let time = |v: toml::Value| {
            Duration::deserialize(v).map(|d| d.0).map_err(|e| de::Error::custom(e.to_string()))
        };
        let starts = match toml::Value::deserialize(d)? {
            v @ toml::Value::String(_) => S::At(time(v)?),
            toml::Value::Table(mut t) => {
                let (Some(first), Some(step)) = (t.remove("first"), t.remove("step")) else {
                    return Err(de::Error::custom(format!(
                        "a start sequence needs `first` and `step` ({EXPECTED})"
                    )));
                };
                if let Some(k) = t.keys().next() {
                    return Err(de::Error::custom(format!(
                        "unknown key `{k}` in a start sequence ({EXPECTED})"
                    )));
                }
                S::Every { first: time(first)?, step: time(step)? }
            }
            toml::Value::Array(a) if !a.is_empty() => {
                S::List(a.into_iter().map(time).collect::<Result<_, _>>()?)
            }
            toml::Value::Array(_) => return Err(de::Error::custom("the list of starts is empty")),
            other => return Err(de::Error::custom(format!("{other} is not a start ({EXPECTED})"))),
        };
        Ok(Starts(starts))
    }
}

impl Serialize for Starts {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use crate::workload::Starts as W;
        use serde::ser::SerializeMap;
        match &self.0 {
            W::At(t) => Duration(*t).serialize(s),
            W::Every { first, step } => {
                let mut m = s.serialize_map(Some(2))?;
                m.serialize_entry("first", &Duration(*first))?;
                m.serialize_entry("step", &Duration(*step))?;
                m.end()
            }
            W::List(l) => s.collect_seq(l.iter().map(|t| Duration(*t))),
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

/// The unit a distribution's values are written in.
pub trait DistUnit {
    const WHAT: &'static str;
    /// One value in base units (bytes, seconds, or a plain number).
    fn parse(v: &toml::Value) -> Result<f64, String>;
}

/// Sizes: `"64KB"`, in bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SizeUnit;
/// Times: `"0.5s"`, in seconds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TimeUnit;
/// Plain numbers (counts).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CountUnit;

impl DistUnit for SizeUnit {
    const WHAT: &'static str = "size";
    fn parse(v: &toml::Value) -> Result<f64, String> {
        match v {
            toml::Value::String(s) => units::parse_bytes(s)
                .map(|b| b as f64)
                .ok_or_else(|| format!("\"{s}\" is not a size in bytes (expected e.g. \"64KB\")")),
            other => Err(format!("{other} has no unit (write a size like \"64KB\")")),
        }
    }
}

impl DistUnit for TimeUnit {
    const WHAT: &'static str = "duration";
    fn parse(v: &toml::Value) -> Result<f64, String> {
        match v {
            toml::Value::String(s) => match parse_duration(s) {
                None => Err(format!("\"{s}\" is not a duration (expected e.g. \"500ms\")")),
                Some(t) => {
                    bounded_time(&t).map(|()| t.as_secs_f64()).map_err(|why| format!("\"{s}\": {why}"))
                }
            },
            other => Err(format!("{other} has no unit (write a duration like \"500ms\")")),
        }
    }
}

impl DistUnit for CountUnit {
    const WHAT: &'static str = "number";
    fn parse(v: &toml::Value) -> Result<f64, String> {
        match v {
            toml::Value::Integer(i) => Ok(*i as f64),
            toml::Value::Float(f) if f.is_finite() => Ok(*f),
            toml::Value::Float(f) => Err(format!("{f} is not a finite number")),
            other => Err(format!("expected a number, found {}", other.type_str())),
        }
    }
}

/// A random distribution whose values have unit `U`: a single value (fixed), or a table with
/// `dist` = `fixed` | `exponential` | `uniform` | `pareto` | `lognormal` | `empirical` and its
/// parameters (see docs/scenario.md).
#[derive(Clone, Debug, PartialEq)]
pub struct DistValue<U> {
    pub dist: crate::workload::dist::Dist,
    /// As written, for the normalized scenario.
    written: toml::Value,
    unit: std::marker::PhantomData<U>,
}

impl<U> Serialize for DistValue<U> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        self.written.serialize(s)
    }
}

impl<'de, U: DistUnit> Deserialize<'de> for DistValue<U> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        use crate::workload::dist::Dist;
        let v = toml::Value::deserialize(d)?;
        let written = v.clone();
        let dist = match &v {
            toml::Value::Table(t) => {
                let kinds = ["fixed", "exponential", "uniform", "pareto", "lognormal", "empirical"];
                let kind = match t.get("dist") {
                    Some(toml::Value::String(k)) if kinds.contains(&k.as_str()) => k.clone(),
                    Some(toml::Value::String(k)) => {
                        return Err(super::paths::at(
                            "dist",
                            format!("unknown distribution \"{k}\" (expected one of: {})", kinds.join(", ")),
                        ));
                    }
                    _ => {
                        return Err(super::paths::at(
                            "dist",
                            format!("missing (one of: {})", kinds.join(", ")),
                        ));
                    }
                };
                let allowed: &[&str] = match kind.as_str() {
                    "fixed" => &["value"],
                    "exponential" => &["mean"],
                    "uniform" => &["min", "max"],
                    "pareto" => &["shape", "mean", "min", "max"],
                    "lognormal" => &["mean", "sigma"],
                    _ => &["values", "probs"],
                };
                for k in t.keys() {
                    if k != "dist" && !allowed.contains(&k.as_str()) {
                        return Err(super::paths::at(
                            k,
                            format!("unknown key (expected one of: dist, {})", allowed.join(", ")),
                        ));
                    }
                }
                let val = |key: &str| -> Result<f64, D::Error> {
                    let x = t.get(key).ok_or_else(|| super::paths::at(key, "missing"))?;
                    U::parse(x).map_err(|m| super::paths::at(key, m))
                };
                let opt = |key: &str, default: f64| -> Result<f64, D::Error> {
                    if t.contains_key(key) { val(key) } else { Ok(default) }
                };
                let num = |key: &str| -> Result<f64, D::Error> {
                    let x = t.get(key).ok_or_else(|| super::paths::at(key, "missing"))?;
                    CountUnit::parse(x).map_err(|m| super::paths::at(key, m))
                };
                let positive = |key: &str, x: f64| -> Result<f64, D::Error> {
                    if x > 0.0 && x.is_finite() {
                        Ok(x)
                    } else {
                        Err(super::paths::at(key, format!("{x}: must be positive")))
                    }
                };
                match kind.as_str() {
                    "fixed" => Dist::Fixed(val("value")?),
                    "exponential" => Dist::Exponential { mean: positive("mean", val("mean")?)? },
                    "uniform" => {
                        let (min, max) = (val("min")?, val("max")?);
                        if min > max {
                            return Err(super::paths::at("min", "is above max"));
                        }
                        Dist::Uniform { min, max }
                    }
                    "pareto" => {
                        let shape = num("shape")?;
                        if shape <= 1.0 {
                            return Err(super::paths::at(
                                "shape",
                                format!("{shape}: must be above 1 for the mean to exist"),
                            ));
                        }
                        let mean = positive("mean", val("mean")?)?;
                        let (min, max) = (opt("min", 0.0)?, opt("max", f64::INFINITY)?);
                        if min > max {
                            return Err(super::paths::at("min", "is above max"));
                        }
                        Dist::Pareto { shape, mean, min, max }
                    }
                    "lognormal" => {
                        let sigma = num("sigma")?;
                        if sigma < 0.0 {
                            return Err(super::paths::at("sigma", "must not be negative"));
                        }
                        Dist::LogNormal { mean: positive("mean", val("mean")?)?, sigma }
                    }
                    _ => {
                        let arr = |key: &str| -> Result<Vec<toml::Value>, D::Error> {
                            match t.get(key) {
                                Some(toml::Value::Array(a)) if !a.is_empty() => Ok(a.clone()),
                                _ => Err(super::paths::at(key, "expected a non-empty list")),
                            }
                        };
                        let values = arr("values")?
                            .iter()
                            .enumerate()
                            .map(|(i, x)| {
                                U::parse(x).map_err(|m| super::paths::at(&format!("values[{i}]"), m))
                            })
                            .collect::<Result<Vec<f64>, D::Error>>()?;
                        let probs = arr("probs")?
                            .iter()
                            .enumerate()
                            .map(|(i, x)| match CountUnit::parse(x) {
                                Ok(p) if p >= 0.0 => Ok(p),
                                Ok(p) => Err(super::paths::at(
                                    &format!("probs[{i}]"),
                                    format!("{p}: must not be negative"),
                                )),
                                Err(m) => Err(super::paths::at(&format!("probs[{i}]"), m)),
                            })
                            .collect::<Result<Vec<f64>, D::Error>>()?;
                        if values.len() != probs.len() {
                            return Err(super::paths::at(
                                "probs",
                                format!("has {} entries for {} values", probs.len(), values.len()),
                            ));
                        }
                        if probs.iter().sum::<f64>() <= 0.0 {
                            return Err(super::paths::at("probs", "must not all be zero"));
                        }
                        Dist::empirical(values, &probs)
                    }
                }
            }
            scalar => Dist::Fixed(U::parse(scalar).map_err(de::Error::custom)?),
        };
        Ok(DistValue { dist, written, unit: std::marker::PhantomData })
    }
}
