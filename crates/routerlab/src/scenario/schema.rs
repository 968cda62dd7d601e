//! The scenario file's schema: one struct per table, unknown keys refused everywhere.
//! `docs/scenario.md` documents every key; keep the two in step.

use std::collections::BTreeMap;

use serde::{Deserialize, Deserializer, Serialize};

use super::paths::{from_value, tagged};
use super::values::{
    ByteSize, CountUnit, DistValue, DupThresh, Duration, HostList, Limit, PositiveDuration, Probability,
    RateValue, SizeUnit, Starts, Threshold, TimeUnit,
};

fn default_seed() -> u64 {
    1
}
fn one() -> u32 {
    1
}

/// Implements `Deserialize` for a `kind`-tagged enum through [`tagged`], keeping field paths.
macro_rules! tagged_enum {
    ($ty:ident, $what:literal, { $($kind:literal => $variant:ident),+ $(,)? }) => {
        impl<'de> Deserialize<'de> for $ty {
            fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
                tagged(d, $what, &[$($kind),+], |kind, v| match kind {
                    $($kind => from_value(v).map($ty::$variant),)+
                    _ => unreachable!(),
                })
            }
        }
    };
}

#[derive(Deserialize, Debug, Clone)]
#[serde(deny_unknown_fields)]
pub struct ScenarioFile {
    pub run: Run,
    pub topology: Topology,
    #[serde(default)]
    pub hosts: Hosts,
    #[serde(default, rename = "link_event")]
    pub link_events: Vec<LinkEvent>,
    #[serde(default)]
    pub forwarding: Forwarding,
    /// Kept raw so that workloads can override single keys; see `Scenario::parse`.
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

// ------------------------------------------------------------------------------ topology

#[derive(Serialize, Debug, Clone, PartialEq)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Topology {
    Dumbbell(Dumbbell),
    Star(Star),
    ParkingLot(ParkingLot),
    FatTree(FatTree),
    Explicit(Explicit),
}

tagged_enum!(Topology, "topology", {
    "dumbbell" => Dumbbell, "star" => Star, "parking_lot" => ParkingLot, "fat_tree" => FatTree, "explicit" => Explicit,
});

#[derive(Deserialize, Serialize, Debug, Clone, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Dumbbell {
    pub pairs: u32,
    pub access: Link,
    pub bottleneck: Link,
    /// One-way delay of each sender's access link (one per pair): per-pair RTTs.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sender_delays: Option<Vec<Duration>>,
}

#[derive(Deserialize, Serialize, Debug, Clone, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Star {
    pub senders: u32,
    #[serde(default = "one")]
    pub receivers: u32,
    pub access: Link,
    pub bottleneck: Link,
    /// One-way delay of each sender's access link (one per sender).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sender_delays: Option<Vec<Duration>>,
}

#[derive(Deserialize, Serialize, Debug, Clone, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct ParkingLot {
    pub routers: u32,
    #[serde(default = "one")]
    pub pairs: u32,
    #[serde(default = "one")]
    pub cross: u32,
    /// Hops (1 … routers−1) with cross traffic; default all.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cross_hops: Option<Vec<u32>>,
    pub link: Link,
    pub access: Link,
}

#[derive(Deserialize, Serialize, Debug, Clone, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct FatTree {
    pub k: u32,
    pub link: Link,
    /// Host ↔ edge links (default: as `link`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub host_link: Option<Link>,
}

#[derive(Deserialize, Serialize, Debug, Clone, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Explicit {
    #[serde(rename = "node")]
    pub nodes: Vec<ExplicitNode>,
    #[serde(rename = "link")]
    pub links: Vec<ExplicitLink>,
    /// Default (src, dst) pairs for workloads that name no hosts.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pairs: Option<Vec<[String; 2]>>,
}

#[derive(Deserialize, Serialize, Debug, Clone, Copy, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum NodeKindName {
    Host,
    Switch,
}

#[derive(Deserialize, Serialize, Debug, Clone, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct ExplicitNode {
    pub name: String,
    pub kind: NodeKindName,
}

#[derive(Deserialize, Serialize, Debug, Clone, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct ExplicitLink {
    pub between: [String; 2],
    pub rate: RateValue,
    pub delay: Duration,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub queue: Option<Queue>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub loss: Option<Probability>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reverse_loss: Option<Probability>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub framing: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mtu: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sp: Option<SpStage>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ka: Option<KaStage>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rcp: Option<RcpStage>,
}

impl ExplicitLink {
    /// Its properties, as any other link's.
    pub fn link(&self) -> Link {
        Link {
            rate: self.rate,
            delay: self.delay,
            queue: self.queue.clone(),
            loss: self.loss,
            reverse_loss: self.reverse_loss,
            framing: self.framing,
            mtu: self.mtu,
            sp: self.sp.clone(),
            ka: self.ka,
            rcp: self.rcp,
        }
    }
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
    /// Loss in the reverse direction (b→a: right→left on a dumbbell's bottleneck, the ACKs'
    /// way); default: as `loss`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reverse_loss: Option<Probability>,
    /// Link-layer bytes added to every packet's serialization (e.g. 38 for Ethernet).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub framing: Option<u32>,
    /// Largest IP datagram carried unfragmented (default 1500).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mtu: Option<u32>,
    /// Super-packet admission (the SPManager) before the queue of each switch port of this
    /// link; `sp = {}` for the defaults.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sp: Option<SpStage>,
    /// Kick-Ass's router (rate signalled in leading-fragment lengths) at each switch port of
    /// this link; `ka = {}` for the defaults.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ka: Option<KaStage>,
    /// Native RCP's router (rate stamped in the RCP header) at each switch port of this link.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rcp: Option<RcpStage>,
}

/// RCP's rate computation (`mechanisms::ka::rcp`); every key optional.
#[derive(Deserialize, Serialize, Debug, Clone, Copy, PartialEq, Default)]
#[serde(deny_unknown_fields)]
pub struct RcpStage {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub alpha: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub beta: Option<f64>,
    /// Control interval T (at most the average RTT).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub interval: Option<PositiveDuration>,
    /// R before the first update, as a share of the link rate.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub initial_rate: Option<f64>,
    /// The average RTT before any sample.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub initial_rtt: Option<PositiveDuration>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rtt_gain: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub min_rate: Option<RateValue>,
    /// The least factor one update applies to R (0: unbounded).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_decrease: Option<f64>,
    /// Kick-Ass only: hold R while not signalling.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub hold_while_silent: Option<bool>,
}

/// `ka.rounding`: how a Kick-Ass router rounds F(R) to a multiple of 8 bytes.
#[derive(Deserialize, Serialize, Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum KaRoundingName {
    #[default]
    #[serde(rename = "nearest")]
    Nearest,
    #[serde(rename = "down")]
    Down,
}

/// Kick-Ass's router (`mechanisms::ka::router`); every key optional.
#[derive(Deserialize, Serialize, Debug, Clone, Copy, PartialEq, Default)]
#[serde(deny_unknown_fields)]
pub struct KaStage {
    /// Stop signalling above this share of the queue's capacity (§II-C2: 0.5).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub queue_threshold: Option<f64>,
    /// Unfragmented packets of at least this IP length carry a signal (§II-A: 1500).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub full_size: Option<u32>,
    /// Once silent, resume at or below this share of the queue (default: `queue_threshold`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub resume_threshold: Option<f64>,
    /// Re-anchor R at the fair share when signalling resumes.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reanchor: Option<bool>,
    /// Fall silent only while legacy flows share the link.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub legacy_detection: Option<bool>,
    /// How F(R) is rounded to a length: `"nearest"` (default) or `"down"`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rounding: Option<KaRoundingName>,
    /// Signal a flow at most once per this share of the average RTT (§V); 0: every packet.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub signal_spacing: Option<f64>,
    /// Slots of the spacing table.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub signal_slots: Option<u32>,
    /// The rate computation's parameters.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rcp: Option<RcpStage>,
}

/// The SPManager's settings (`mechanisms::sp::manager`); every key optional.
#[derive(Deserialize, Serialize, Debug, Clone, PartialEq, Default)]
#[serde(deny_unknown_fields)]
pub struct SpStage {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_sp_length: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reserve_weight: Option<f64>,
    /// A fixed epoch; default: twice the largest RTT observed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub epoch: Option<PositiveDuration>,
    /// The observed epoch before any RTT sample.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub initial_epoch: Option<PositiveDuration>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub variant: Option<SpVariantName>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub occupancy: Option<SpOccupancyName>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bloom_bits_log2: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bloom_hashes: Option<u32>,
    /// RED-like: the average occupancy (share of the buffer) under which new SPs are admitted.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub red_threshold: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub red_w_q: Option<f64>,
    /// Per-host accounting: most packets a host may have reserved at once (beyond the paper).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub host_cap: Option<u32>,
}

#[derive(Deserialize, Serialize, Debug, Clone, Copy, PartialEq, Eq)]
pub enum SpVariantName {
    #[serde(rename = "algorithm1")]
    Algorithm1,
    #[serde(rename = "bloom")]
    Bloom,
    #[serde(rename = "length-aware")]
    LengthAware,
    #[serde(rename = "red-like")]
    RedLike,
}

#[derive(Deserialize, Serialize, Debug, Clone, Copy, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum SpOccupancyName {
    Packets,
    Bytes,
}

// ------------------------------------------------------------------------------ queues

#[derive(Serialize, Debug, Clone, PartialEq)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Queue {
    DropTail(DropTailQueue),
    Red(RedQueue),
    Sfq(SfqQueue),
    FqCodel(FqCodelQueue),
    Cp(CpQueue),
    Taq(TaqQueue),
}

tagged_enum!(Queue, "queue", {
    "droptail" => DropTail, "red" => Red, "sfq" => Sfq, "fq_codel" => FqCodel, "cp" => Cp,
    "taq" => Taq,
});

/// TAQ's multi-level queue (`mechanisms::taq::queue`).
#[derive(Deserialize, Serialize, Debug, Clone, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct TaqQueue {
    pub limit: Limit,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub recovery_share: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub newflow_share: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub overpenalized_drops: Option<u32>,
    /// OverPenalized before AboveFairShare (the paper's precedence; the default).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub overpenalized_first: Option<bool>,
    /// Handshake packets to NewFlow (the default), else to BelowFairShare.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub syns_in_newflow: Option<bool>,
    /// At most this many connections with packets in NewFlow (none by default).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub newflow_connections: Option<u32>,
    /// "push-out" (the default) or "tail".
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub drop: Option<TaqDropName>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fair_share_refresh: Option<PositiveDuration>,
    /// The tracker's epoch before any sample.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub initial_epoch: Option<PositiveDuration>,
    /// Track epochs from both directions (the paper's conventional mode): the queue also sees
    /// the ACKs that come back over its link.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub two_way: Option<bool>,
    /// How one-way traffic refines the epoch: "bursts" (the paper's; the default) or "queue"
    /// (the handshake's loop outside the queue plus the queue's delay).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub one_way_epoch: Option<OneWayEpochName>,
    /// Choose the packet to drop by §4.1's prediction of the drop's effect on its flow.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub predict_next_state: Option<bool>,
    /// How far above the fair share a flow's rate must be to class it above it (a fraction).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fair_share_margin: Option<f64>,
    /// The duplicate-ACK threshold that prediction assumes of the senders.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub predict_dupthresh: Option<u32>,
    /// Admission control of flow pools (§4.3): on if present (`admission = {}` for the defaults).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub admission: Option<TaqAdmission>,
}

/// TAQ's admission control; every key optional (`mechanisms::taq::admission`).
#[derive(Deserialize, Serialize, Debug, Clone, PartialEq, Default)]
#[serde(deny_unknown_fields)]
pub struct TaqAdmission {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub p_thresh: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub admit_factor: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pool_gap: Option<PositiveDuration>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub t_wait: Option<PositiveDuration>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub loss_window: Option<PositiveDuration>,
    /// A waiting pool's handshake packets: `"reject"` (§4.3, the default) or `"hold"`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub not_admitted: Option<NotAdmittedName>,
}

/// `admission.not_admitted`: `"reject"` (drop a waiting pool's handshake packets; a retry
/// after the pool's admission passes) or `"hold"` (keep them and send them on admission).
#[derive(Deserialize, Serialize, Debug, Clone, Copy, PartialEq, Eq)]
pub enum NotAdmittedName {
    #[serde(rename = "reject")]
    Reject,
    #[serde(rename = "hold")]
    Hold,
}

#[derive(Deserialize, Serialize, Debug, Clone, Copy, PartialEq, Eq)]
pub enum OneWayEpochName {
    #[serde(rename = "bursts")]
    Bursts,
    #[serde(rename = "queue")]
    Queue,
}

#[derive(Deserialize, Serialize, Debug, Clone, Copy, PartialEq, Eq)]
pub enum TaqDropName {
    #[serde(rename = "push-out")]
    PushOut,
    #[serde(rename = "tail")]
    Tail,
}

/// CP's drop processing around a data queue.
#[derive(Deserialize, Serialize, Debug, Clone, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct CpQueue {
    /// The data queue: drop-tail or RED.
    pub data: Box<Queue>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub header_buffer: Option<ByteSize>,
    /// The IP length of a cut packet (at least its own headers).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cut_size: Option<ByteSize>,
    /// The least share of the link data gets while headers and data both wait (0: headers
    /// strictly first, as the slides).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub data_share: Option<f64>,
    /// Input/output rate ratio the overload report compares against.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub overload_ratio: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub overload_window: Option<PositiveDuration>,
}

#[derive(Deserialize, Serialize, Debug, Clone, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct DropTailQueue {
    pub limit: Limit,
    /// DCTCP-style marking threshold K.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ecn_threshold: Option<Threshold>,
}

#[derive(Deserialize, Serialize, Debug, Clone, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct RedQueue {
    pub limit: Limit,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub min_th: Option<Threshold>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_th: Option<Threshold>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_p: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub w_q: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub gentle: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ecn: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub harddrop: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub wait: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub early_min_queue: Option<u32>,
}

#[derive(Deserialize, Serialize, Debug, Clone, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct SfqQueue {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub limit: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub depth: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub divisor: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub quantum: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub perturb: Option<PositiveDuration>,
}

#[derive(Deserialize, Serialize, Debug, Clone, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct FqCodelQueue {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub limit: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub memory_limit: Option<ByteSize>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub flows: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub quantum: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub target: Option<PositiveDuration>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub interval: Option<PositiveDuration>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ecn: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub drop_batch: Option<u32>,
}

// ------------------------------------------------------------------------------ hosts, events

#[derive(Deserialize, Serialize, Debug, Clone, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct Hosts {
    /// How long a host keeps the fragments of an incomplete datagram.
    pub reassembly_timeout: PositiveDuration,
    /// PLTS's DUPACK-filtering agent on every host (`mechanisms::plts::dupack_filter`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub dupack_filter: Option<DupAckFilterName>,
    /// The percentile of past duplicate-ACK run lengths the `percentile` agent waits for.
    pub dupack_filter_percentile: Probability,
    /// Super-packet senders' T_buffer (default: five 1500-byte packets at the host's link rate).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub sp_buffer: Option<Duration>,
    /// Super-packet senders' largest SP, in packets (1 to 63).
    pub sp_max_length: u32,
    /// Super-packet senders without buffering, every SP this long (§5.3's rejected design).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub sp_fixed_length: Option<u32>,
    /// Hosts that attack super-packet routers (sp-dos): every packet they send is the first
    /// packet of a new SP of `sp_attack_length` packets whose rest never comes.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub sp_attackers: Vec<String>,
    pub sp_attack_length: u32,
}

impl Default for Hosts {
    fn default() -> Hosts {
        Hosts {
            // Linux's ipfrag_time.
            reassembly_timeout: PositiveDuration(crate::units::SimTime::from_secs(30)),
            dupack_filter: None,
            // The PLTS paper's "top 90th percentile".
            dupack_filter_percentile: Probability(0.9),
            sp_buffer: None,
            // The 6-bit length field's maximum (§3.2).
            sp_max_length: crate::mechanisms::sp::wire::MAX_SP_LENGTH,
            sp_fixed_length: None,
            sp_attackers: Vec::new(),
            sp_attack_length: crate::mechanisms::sp::wire::MAX_SP_LENGTH,
        }
    }
}

/// The DUPACK-filtering agent's variant.
#[derive(Deserialize, Serialize, Debug, Clone, Copy, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum DupAckFilterName {
    Ecn,
    Percentile,
    Watch,
}

#[derive(Deserialize, Serialize, Debug, Clone, Copy, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum LinkState {
    Up,
    Down,
}

/// A scheduled failure or recovery of a link (both directions); routes are recomputed.
#[derive(Deserialize, Serialize, Debug, Clone, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct LinkEvent {
    pub at: Duration,
    pub between: [String; 2],
    pub state: LinkState,
}

// ------------------------------------------------------------------------------ transport

/// Congestion control: a name (`"cubic"`) or a table with parameters
/// (`{ kind = "dctcp", g = 0.0625 }`).
#[derive(Serialize, Debug, Clone, Copy, PartialEq)]
#[serde(tag = "kind", rename_all = "lowercase")]
pub enum Cc {
    NewReno(NewRenoCc),
    Cubic(CubicCc),
    Dctcp(DctcpCc),
    #[serde(rename = "kick-ass")]
    KickAss(KickAssCc),
    Rcp,
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
        let kinds = ["newreno", "cubic", "dctcp", "kick-ass", "rcp"];
        tagged(toml::Value::Table(table), "congestion control", &kinds, |kind, v| match kind {
            "newreno" => from_value(v).map(Cc::NewReno),
            "cubic" => from_value(v).map(Cc::Cubic),
            "dctcp" => from_value(v).map(Cc::Dctcp),
            "kick-ass" => from_value(v).map(Cc::KickAss),
            "rcp" => from_value::<NoParams>(v).map(|_| Cc::Rcp),
            _ => unreachable!(),
        })
        .map_err(|e: toml::de::Error| D::Error::custom(e.message()))
    }
}

/// A table that must be empty (besides `kind`).
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct NoParams {}

/// NewReno's parameters.
#[derive(Deserialize, Serialize, Debug, Clone, Copy, PartialEq, Eq, Default)]
#[serde(deny_unknown_fields, default)]
pub struct NewRenoCc {
    /// How the window grows on an ACK: `"bytes"` (by the bytes acknowledged, RFC 3465, as
    /// Linux) or `"per-ack"` (one step per ACK, RFC 5681 eq. 2 and 3, as ns-3's `TcpNewReno`).
    pub increase: RenoIncreaseName,
}

#[derive(Deserialize, Serialize, Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum RenoIncreaseName {
    #[default]
    #[serde(rename = "bytes")]
    Bytes,
    #[serde(rename = "per-ack")]
    PerAck,
}

/// CUBIC's parameters (RFC 9438 defaults).
#[derive(Deserialize, Serialize, Debug, Clone, Copy, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct CubicCc {
    pub c: f64,
    pub beta: f64,
    pub fast_convergence: bool,
    pub alpha_beyond_wmax: f64,
    /// HyStart (Linux's), with Linux's constants.
    pub hystart: bool,
    /// The window update's arithmetic: RFC 9438's, or Linux's in whole segments.
    pub model: CubicModelName,
}

#[derive(Deserialize, Serialize, Debug, Clone, Copy, PartialEq, Eq, Default)]
#[serde(rename_all = "lowercase")]
pub enum CubicModelName {
    #[default]
    Rfc9438,
    Linux,
}

/// Kick-Ass's endpoint parameters.
#[derive(Deserialize, Serialize, Debug, Clone, Copy, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct KickAssCc {
    /// How often a sender sends an RTT indicator (§II-B: 100 ms).
    pub indicator_interval: PositiveDuration,
}

/// DCTCP's parameters (RFC 8257 defaults).
#[derive(Deserialize, Serialize, Debug, Clone, Copy, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct DctcpCc {
    pub g: f64,
    pub alpha_init: f64,
    /// The least window after an ECN reduction, in segments (Linux: 2).
    pub min_cwnd: u32,
}

/// `transport.recovery`: `"prr"` (RFC 6937, Linux's) or `"rfc6675"` (cwnd = ssthresh at once).
#[derive(Deserialize, Serialize, Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum RecoveryName {
    #[default]
    #[serde(rename = "prr")]
    Prr,
    #[serde(rename = "rfc6675")]
    Rfc6675,
}

/// `transport.rtt_model`: `"linux"` (RFC 6298 with Linux's samples) or `"ns3"` (ns-3 3.44's
/// samples and backoff, to compare with ns-3 studies); see `tcp::RttModel`.
#[derive(Deserialize, Serialize, Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum RttModelName {
    #[default]
    #[serde(rename = "linux")]
    Linux,
    #[serde(rename = "ns3")]
    Ns3,
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
    pub dupthresh: DupThresh,
    pub sack: bool,
    pub limited_transmit: bool,
    /// With SACK, limited transmit beyond cwnd on top of the pipe (routerlab before the option).
    pub limited_transmit_beyond_pipe: bool,
    pub lost_retransmit_detection: bool,
    /// RFC 6675 NextSeg rule (3): resend an unSACKed segment below the highest SACK when a
    /// recovery has nothing else to send.
    pub nextseg_rule3: bool,
    /// ns-3's partial ACK in a SACK recovery: one segment out whatever the window.
    pub partial_ack_resend: bool,
    /// Resending the oldest outstanding segment restarts the RTO (Linux, ns-2).
    pub head_resend_restarts_rto: bool,
    /// SACK blocks cover the FIN (Linux).
    pub sack_fin: bool,
    /// D-SACK blocks for duplicate segments (RFC 2883; Linux).
    pub dsack: bool,
    /// RACK's time-based loss detection (RFC 8985; Linux).
    pub rack: bool,
    /// Tail loss probes (RFC 8985 §7; Linux).
    pub tlp: bool,
    /// Added to RACK's reordering timer and the probe timeout (Linux's 2 ms).
    pub loss_timer_slack: Duration,
    /// Added to the probe timeout with one segment in flight (RFC 8985's 200 ms).
    pub tlp_delayed_ack_allowance: Duration,
    /// How the window comes down after a loss or an ECN echo.
    pub recovery: RecoveryName,
    /// The timestamps option (RFC 7323), and its clock's tick.
    pub timestamps: bool,
    pub timestamp_tick: PositiveDuration,
    /// How RTT samples are taken and when the RTO's backoff ends.
    pub rtt_model: RttModelName,
    /// RTT samples from SACKs of data never retransmitted (Linux's `sack_rtt_us`).
    pub sack_rtt: bool,
    /// The ACK that ends a recovery or a CWR also grows the window (Linux).
    pub grow_at_recovery_exit: bool,
    /// A later timeout of the same episode reduces ssthresh again after progress (Linux).
    pub timeout_reduces_again: bool,
    /// F-RTO (RFC 5682): detect a spurious timeout and undo its reduction (Linux).
    pub frto: bool,
    /// When the window may grow: `"linux"`, `"last-send"` or `"none"`.
    pub cwnd_validation: CwndValidationName,
    /// What a reduction scales: `"cwnd"` (Linux), `"flight"` (RFC 5681) or `"pipe"` (ns-3).
    pub ssthresh_base: SsthreshBaseName,
    /// Restart the window after an idle period longer than the RTO (Linux's default).
    pub slow_start_after_idle: bool,
    pub delayed_ack: bool,
    pub delayed_ack_count: u32,
    pub delayed_ack_timeout: PositiveDuration,
    pub rcv_buf: ByteSize,
    /// The slow-start threshold a connection starts with (none: unbounded, as Linux).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub initial_ssthresh: Option<ByteSize>,
    /// DF on every segment (Linux's path-MTU discovery); false: routers may fragment them.
    pub dont_fragment: bool,
    pub ecn: bool,
    pub pacing: bool,
    /// CP endpoints: PACK on a cut segment, resend on a PACK.
    pub cp: bool,
    /// Super-packets: this connection's segments go through its host's SP sender shim.
    pub sp: bool,
    /// Carry each connection over MPTCP subflows instead of one TCP connection.
    pub mptcp: bool,
    /// MPTCP subflows per connection.
    pub mptcp_subflows: u32,
    /// LIA coupling of the MPTCP subflows' windows.
    pub mptcp_coupled: bool,
    /// How MPTCP's subflows find their paths.
    pub mptcp_paths: MptcpPathsName,
}

/// `transport.cwnd_validation`: `"linux"` (Linux's `tcp_is_cwnd_limited`), `"last-send"`
/// (routerlab's first model: the last send was stopped by the window) or `"none"` (grow on
/// every ACK, as ns-3's `TcpNewReno`); see `tcp::CwndValidation`.
#[derive(Deserialize, Serialize, Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum CwndValidationName {
    #[default]
    #[serde(rename = "linux")]
    Linux,
    #[serde(rename = "last-send")]
    LastSend,
    #[serde(rename = "none")]
    None,
}

/// `transport.ssthresh_base`: `"cwnd"` (Linux's `tcp_reno_ssthresh`), `"flight"` (RFC 5681's
/// FlightSize, capped at cwnd) or `"pipe"` (RFC 6675's pipe, as ns-3's `BytesInFlight`); see
/// `tcp::SsthreshBase`.
#[derive(Deserialize, Serialize, Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum SsthreshBaseName {
    #[default]
    #[serde(rename = "cwnd")]
    Cwnd,
    #[serde(rename = "flight")]
    Flight,
    #[serde(rename = "pipe")]
    Pipe,
}

/// `transport.mptcp_paths`: `"hashed"` (each subflow's source port hashed through ECMP, as
/// real MPTCP's path managers open them) or `"distinct"` (ports searched until the subflows'
/// ECMP paths differ: an oracle); see `tcp::MptcpPaths`.
#[derive(Deserialize, Serialize, Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum MptcpPathsName {
    #[default]
    #[serde(rename = "hashed")]
    Hashed,
    #[serde(rename = "distinct")]
    Distinct,
}

// ------------------------------------------------------------------------------ forwarding

/// How switches choose among equal-cost next hops: `policy` for every switch, `switches` to
/// override it per switch (by name).
#[derive(Deserialize, Serialize, Debug, Clone, PartialEq, Default)]
#[serde(deny_unknown_fields)]
pub struct Forwarding {
    #[serde(default)]
    pub policy: ForwardingName,
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub switches: BTreeMap<String, ForwardingName>,
}

/// A forwarding policy's name (see `net::forwarding`).
#[derive(Deserialize, Serialize, Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum ForwardingName {
    #[default]
    #[serde(rename = "ecmp")]
    Ecmp,
    #[serde(rename = "spray-rnd")]
    SprayRnd,
    #[serde(rename = "spray-cnt")]
    SprayCnt,
    #[serde(rename = "spray-cnt-rotate")]
    SprayCntRotate,
    #[serde(rename = "spray-cnt-waiting")]
    SprayCntWaiting,
    #[serde(rename = "spray-rr")]
    SprayRr,
    #[serde(rename = "spray-rr-data")]
    SprayRrData,
    #[serde(rename = "spray-rr-dst")]
    SprayRrDst,
    #[serde(rename = "spray-rr-flow")]
    SprayRrFlow,
}

// ------------------------------------------------------------------------------ workloads

#[derive(Serialize, Debug, Clone, PartialEq)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Workload {
    Bulk(Bulk),
    Fixed(Fixed),
    OnOff(OnOff),
    Incast(Incast),
    Permutation(Permutation),
    Web(Web),
    Csv(CsvFlows),
    Cbr(Cbr),
}

tagged_enum!(Workload, "workload", {
    "bulk" => Bulk, "fixed" => Fixed, "on_off" => OnOff, "incast" => Incast,
    "permutation" => Permutation, "web" => Web, "csv" => Csv, "cbr" => Cbr,
});

impl Workload {
    pub fn kind(&self) -> &'static str {
        match self {
            Workload::Bulk(_) => "bulk",
            Workload::Fixed(_) => "fixed",
            Workload::OnOff(_) => "on_off",
            Workload::Incast(_) => "incast",
            Workload::Permutation(_) => "permutation",
            Workload::Web(_) => "web",
            Workload::Csv(_) => "csv",
            Workload::Cbr(_) => "cbr",
        }
    }

    pub fn name(&self) -> Option<&String> {
        match self {
            Workload::Bulk(w) => w.name.as_ref(),
            Workload::Fixed(w) => w.name.as_ref(),
            Workload::OnOff(w) => w.name.as_ref(),
            Workload::Incast(w) => w.name.as_ref(),
            Workload::Permutation(w) => w.name.as_ref(),
            Workload::Web(w) => w.name.as_ref(),
            Workload::Csv(w) => w.name.as_ref(),
            Workload::Cbr(w) => w.name.as_ref(),
        }
    }

    /// The workload's transport overrides (UDP workloads have none).
    pub fn transport(&self) -> Option<&toml::Table> {
        match self {
            Workload::Bulk(w) => w.transport.as_ref(),
            Workload::Fixed(w) => w.transport.as_ref(),
            Workload::OnOff(w) => w.transport.as_ref(),
            Workload::Incast(w) => w.transport.as_ref(),
            Workload::Permutation(w) => w.transport.as_ref(),
            Workload::Web(w) => w.transport.as_ref(),
            Workload::Csv(w) => w.transport.as_ref(),
            Workload::Cbr(_) => None,
        }
    }
}

/// Long-lived flows.
#[derive(Deserialize, Serialize, Debug, Clone, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Bulk {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// Number of flows (default: one per (src, dst) pair).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub flows: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub src: Option<HostList>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dst: Option<HostList>,
    /// When the flows start: a time, a sequence or a list (`values::Starts`).
    #[serde(default = "Starts::zero")]
    pub start: Starts,
    #[serde(default = "Duration::default_bulk_jitter")]
    pub jitter: Duration,
    /// The flows stop sending new data at this time and close.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stop: Option<Duration>,
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
    /// When the flows start: a time, a sequence or a list (`values::Starts`).
    #[serde(default = "Starts::zero")]
    pub start: Starts,
    #[serde(default = "Duration::zero")]
    pub jitter: Duration,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub transport: Option<toml::Table>,
}

/// On-off senders: random gaps, then a flow of random size, repeated.
#[derive(Deserialize, Serialize, Debug, Clone, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct OnOff {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// Number of clients (default: one per (src, dst) pair).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub clients: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub src: Option<HostList>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dst: Option<HostList>,
    pub size: DistValue<SizeUnit>,
    pub off: DistValue<TimeUnit>,
    #[serde(default = "Duration::zero")]
    pub start: Duration,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stop: Option<Duration>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub transport: Option<toml::Table>,
}

#[derive(Deserialize, Serialize, Debug, Clone, Copy, PartialEq, Eq, Default)]
#[serde(rename_all = "lowercase")]
pub enum ConnectMode {
    /// Persistent connections opened at time 0; rounds write on them.
    #[default]
    First,
    /// A new connection per block, opened with the burst.
    Burst,
}

/// Synchronized rounds of blocks from many senders to one receiver.
#[derive(Deserialize, Serialize, Debug, Clone, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Incast {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// Default: every default sender of the topology.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub senders: Option<HostList>,
    /// Default: the first default pair's receiver.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub receiver: Option<String>,
    pub block: ByteSize,
    /// Connections in all, each returning a block per round, dealt to the senders in turn
    /// (default: one per sender).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub connections: Option<u32>,
    #[serde(default = "one")]
    pub rounds: u32,
    #[serde(default = "Duration::zero")]
    pub start: Duration,
    #[serde(default = "Duration::zero")]
    pub gap: Duration,
    #[serde(default)]
    pub connect: ConnectMode,
    /// With `connect = "first"`: when sender i's connection opens (a time, a sequence or a
    /// list, as a workload's `start`). Default: all at time 0.
    #[serde(default = "Starts::zero")]
    pub open: Starts,
    /// Each sender's block starts at the round's start + uniform [0, jitter).
    #[serde(default = "Duration::zero")]
    pub jitter: Duration,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub transport: Option<toml::Table>,
}

#[derive(Deserialize, Serialize, Debug, Clone, Copy, PartialEq, Eq, Default)]
#[serde(rename_all = "lowercase")]
pub enum PermutationPattern {
    /// Every host sends to one other host and receives from one (a random derangement).
    #[default]
    Random,
    /// Random disjoint pairs: every host is in exactly one flow (as sender or receiver).
    Pairs,
    /// Host i sends to host (i + stride) mod n.
    Stride,
    /// Many-to-few: `hotspots` random hosts are hot; each other host sends to a uniformly
    /// chosen hot host with probability `hot_share`, else to its random-permutation partner.
    Hotspot,
}

/// Permutation-style traffic among a set of hosts.
#[derive(Deserialize, Serialize, Debug, Clone, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Permutation {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// Default: every host of the topology.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub hosts: Option<HostList>,
    #[serde(default)]
    pub pattern: PermutationPattern,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stride: Option<u32>,
    /// For `hotspot`: how many hot hosts (default 1).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub hotspots: Option<u32>,
    /// For `hotspot`: the probability that a sender targets a hot host (default 0.5).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub hot_share: Option<f64>,
    /// Bytes per flow (default: bulk).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub size: Option<ByteSize>,
    #[serde(default = "Duration::zero")]
    pub start: Duration,
    #[serde(default = "Duration::default_bulk_jitter")]
    pub jitter: Duration,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub transport: Option<toml::Table>,
}

/// Web-session pools.
#[derive(Deserialize, Serialize, Debug, Clone, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Web {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    pub clients: HostList,
    pub servers: HostList,
    pub objects: DistValue<CountUnit>,
    pub size: DistValue<SizeUnit>,
    pub think: DistValue<TimeUnit>,
    #[serde(default = "Web::default_parallel")]
    pub parallel: u32,
    #[serde(default = "Duration::zero")]
    pub start: Duration,
    #[serde(default = "Duration::zero")]
    pub jitter: Duration,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub transport: Option<toml::Table>,
}

impl Web {
    /// Browsers open a handful of connections per server; TAQ's clients used 4.
    fn default_parallel() -> u32 {
        4
    }
}

/// Flows listed in a CSV file with the header `src,dst,start_s,size_bytes` (empty size: bulk).
#[derive(Deserialize, Serialize, Debug, Clone, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct CsvFlows {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// Relative to the scenario file's directory.
    pub file: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub transport: Option<toml::Table>,
}

/// Constant-bit-rate UDP cross traffic.
#[derive(Deserialize, Serialize, Debug, Clone, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Cbr {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    pub src: String,
    pub dst: String,
    pub rate: RateValue,
    #[serde(default = "Cbr::default_packet")]
    pub packet_size: ByteSize,
    #[serde(default = "Duration::zero")]
    pub start: Duration,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stop: Option<Duration>,
}

impl Cbr {
    fn default_packet() -> ByteSize {
        ByteSize(1500)
    }
}

// ------------------------------------------------------------------------------ output

/// What to record beyond the flow, transfer and link tables.
#[derive(Deserialize, Serialize, Debug, Clone, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct Output {
    /// Sample every sender's TCP state at this interval into `timeseries.parquet`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub timeseries: Option<PositiveDuration>,
    /// Only these flows (by `flow_id`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub timeseries_flows: Option<Vec<u32>>,
    /// Sample queue length and utilization at this interval into `queues.parquet`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub queues: Option<PositiveDuration>,
    /// Links to sample (`"a->b"`; default: every switch port).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub queue_links: Option<Vec<String>>,
    /// Jain's index over slices of this length into `fairness.parquet`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub fairness_slice: Option<PositiveDuration>,
    /// Links whose queueing-delay histogram goes into `queue_delay.parquet`.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub queue_delay: Vec<String>,
    /// Links whose flows TAQ's tracker classifies, every epoch into `flow_epochs.parquet`
    /// (a TAQ queue's own tracker; on other queues, a passive one).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub flow_epochs: Vec<String>,
    /// Links to capture into `pcap/<link>.pcap`.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub pcap: Vec<String>,
    pub pcap_snaplen: u32,
    pub pcap_max_packets: u64,
    /// One-way latency probes into `latency.parquet`.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub latency: Vec<LatencyProbe>,
}

impl Default for Output {
    fn default() -> Output {
        Output {
            timeseries: None,
            timeseries_flows: None,
            queues: None,
            queue_links: None,
            fairness_slice: None,
            queue_delay: Vec::new(),
            flow_epochs: Vec::new(),
            pcap: Vec::new(),
            pcap_snaplen: 128,
            pcap_max_packets: 1_000_000,
            latency: Vec::new(),
        }
    }
}

#[derive(Deserialize, Serialize, Debug, Clone, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct LatencyProbe {
    pub from: String,
    pub to: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub flow: Option<u32>,
    #[serde(default = "LatencyProbe::default_probability")]
    pub probability: Probability,
    #[serde(default = "LatencyProbe::default_max")]
    pub max_samples: u32,
    #[serde(default = "LatencyProbe::default_data_only")]
    pub data_only: bool,
}

impl LatencyProbe {
    fn default_probability() -> Probability {
        Probability(1.0)
    }
    fn default_max() -> u32 {
        100_000
    }
    fn default_data_only() -> bool {
        true
    }
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
