//! The scenario file's schema: one struct per table, unknown keys refused everywhere.
//! `docs/scenario.md` documents every key; keep the two in step.

use serde::{Deserialize, Deserializer, Serialize};

use super::paths::{from_value, tagged};
use super::values::{
    ByteSize, Duration, HostList, Limit, PositiveDuration, Probability, RateValue, Threshold,
};

fn default_seed() -> u64 {
    1
}

#[derive(Deserialize, Debug, Clone)]
#[serde(deny_unknown_fields)]
pub struct ScenarioFile {
    pub run: Run,
    pub topology: Topology,
    /// Kept raw so that workloads can override single keys; see `build::transport`.
    #[serde(default)]
    pub transport: Option<toml::Table>,
    #[serde(default, rename = "workload")]
    pub workloads: Vec<Workload>,
    #[serde(default)]
    pub output: Output,
}

#[derive(Deserialize, Serialize, Debug, Clone, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Run {
    /// Simulated time.
    pub duration: PositiveDuration,
    #[serde(default = "default_seed")]
    pub seed: u64,
}

#[derive(Serialize, Debug, Clone, PartialEq)]
#[serde(tag = "kind", rename_all = "lowercase")]
pub enum Topology {
    Dumbbell(Dumbbell),
}

impl<'de> Deserialize<'de> for Topology {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        tagged(d, "topology", &["dumbbell"], |kind, v| match kind {
            "dumbbell" => from_value(v).map(Topology::Dumbbell),
            _ => unreachable!(),
        })
    }
}

#[derive(Deserialize, Serialize, Debug, Clone, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Dumbbell {
    pub pairs: u32,
    pub access: Link,
    pub bottleneck: Link,
}

/// One link's properties (both directions alike).
#[derive(Deserialize, Serialize, Debug, Clone, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Link {
    pub rate: RateValue,
    pub delay: Duration,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub queue: Option<Queue>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub loss: Option<Probability>,
    /// Link-layer bytes added to every packet's serialization (e.g. 38 for Ethernet).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub framing: Option<u32>,
}

#[derive(Serialize, Debug, Clone, PartialEq)]
#[serde(tag = "kind", rename_all = "lowercase")]
pub enum Queue {
    DropTail(DropTailQueue),
}

impl<'de> Deserialize<'de> for Queue {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        tagged(d, "queue", &["droptail"], |kind, v| match kind {
            "droptail" => from_value(v).map(Queue::DropTail),
            _ => unreachable!(),
        })
    }
}

#[derive(Deserialize, Serialize, Debug, Clone, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct DropTailQueue {
    pub limit: Limit,
    /// DCTCP-style marking threshold K.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ecn_threshold: Option<Threshold>,
}

/// Congestion control: a name (`"cubic"`) or a table with parameters
/// (`{ kind = "dctcp", g = 0.0625 }`).
#[derive(Serialize, Debug, Clone, Copy, PartialEq)]
#[serde(tag = "kind", rename_all = "lowercase")]
pub enum Cc {
    NewReno,
    Cubic(CubicCc),
    Dctcp(DctcpCc),
}

impl<'de> Deserialize<'de> for Cc {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        use serde::de::Error;
        let v = toml::Value::deserialize(d)?;
        let table = match v {
            toml::Value::String(kind) => {
                let mut t = toml::Table::new();
                t.insert("kind".into(), toml::Value::String(kind));
                t
            }
            toml::Value::Table(t) => t,
            other => {
                return Err(D::Error::custom(format!(
                    "expected a congestion control name or a table, found {}",
                    other.type_str()
                )));
            }
        };
        tagged(toml::Value::Table(table), "congestion control", &["newreno", "cubic", "dctcp"], |kind, v| {
            match kind {
                "newreno" => from_value::<NoParams>(v).map(|_| Cc::NewReno),
                "cubic" => from_value(v).map(Cc::Cubic),
                "dctcp" => from_value(v).map(Cc::Dctcp),
                _ => unreachable!(),
            }
        })
        .map_err(|e: toml::de::Error| D::Error::custom(e.message()))
    }
}

/// A table that must be empty (besides `kind`).
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct NoParams {}

/// CUBIC's parameters (RFC 9438 defaults).
#[derive(Deserialize, Serialize, Debug, Clone, Copy, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct CubicCc {
    pub c: f64,
    pub beta: f64,
    pub fast_convergence: bool,
    pub alpha_beyond_wmax: f64,
}

/// DCTCP's parameters (RFC 8257 defaults).
#[derive(Deserialize, Serialize, Debug, Clone, Copy, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct DctcpCc {
    pub g: f64,
    pub alpha_init: f64,
}

/// TCP parameters. Every key is optional; defaults are `TcpConfig::default()`'s.
#[derive(Deserialize, Serialize, Debug, Clone, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct Transport {
    pub cc: Cc,
    pub mss: u32,
    pub init_cwnd: u32,
    pub min_rto: Duration,
    pub max_rto: Duration,
    /// Clock granularity G of RFC 6298: RTO = SRTT + max(G, 4·RTTVAR). Linux behaves as if G
    /// were its minimum RTO (200 ms).
    pub rto_granularity: Duration,
    pub initial_rto: PositiveDuration,
    pub syn_rto: PositiveDuration,
    pub dupthresh: u32,
    pub sack: bool,
    pub limited_transmit: bool,
    pub lost_retransmit_detection: bool,
    pub delayed_ack: bool,
    pub delayed_ack_count: u32,
    pub delayed_ack_timeout: PositiveDuration,
    pub rcv_buf: ByteSize,
    pub ecn: bool,
    pub pacing: bool,
}

#[derive(Serialize, Debug, Clone, PartialEq)]
#[serde(tag = "kind", rename_all = "lowercase")]
pub enum Workload {
    Bulk(Bulk),
    Fixed(Fixed),
}

impl<'de> Deserialize<'de> for Workload {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        tagged(d, "workload", &["bulk", "fixed"], |kind, v| match kind {
            "bulk" => from_value(v).map(Workload::Bulk),
            "fixed" => from_value(v).map(Workload::Fixed),
            _ => unreachable!(),
        })
    }
}

/// Long-lived flows.
#[derive(Deserialize, Serialize, Debug, Clone, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Bulk {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// Number of flows (default: one per default pair of the topology).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub flows: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub src: Option<HostList>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dst: Option<HostList>,
    #[serde(default = "Duration::zero")]
    pub start: Duration,
    #[serde(default = "Duration::default_bulk_jitter")]
    pub jitter: Duration,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub transport: Option<toml::Table>,
}

/// Flows of a fixed size.
#[derive(Deserialize, Serialize, Debug, Clone, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Fixed {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    pub size: ByteSize,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub flows: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub src: Option<HostList>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dst: Option<HostList>,
    #[serde(default = "Duration::zero")]
    pub start: Duration,
    #[serde(default = "Duration::zero")]
    pub jitter: Duration,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub transport: Option<toml::Table>,
}

/// What to record beyond the flow and link tables.
#[derive(Deserialize, Serialize, Debug, Clone, PartialEq, Default)]
#[serde(deny_unknown_fields)]
pub struct Output {
    /// Sample every sender's TCP state at this interval into `timeseries.parquet`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub timeseries: Option<PositiveDuration>,
    /// Only these flows (by `flow_id`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub timeseries_flows: Option<Vec<u32>>,
}

impl Duration {
    pub fn zero() -> Duration {
        Duration(crate::units::SimTime::ZERO)
    }
    /// Bulk flows start within 10 ms of each other by default (see `workload`).
    pub fn default_bulk_jitter() -> Duration {
        Duration(crate::units::SimTime::from_ms(10))
    }
}
