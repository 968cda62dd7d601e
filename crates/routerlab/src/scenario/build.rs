//! From a parsed scenario to a [`SimSpec`]: resolve names, check what the schema cannot
//! (cross-field and topological constraints), expand workloads into flows and generators.
//!
//! Every problem is reported with its field path; all problems found are reported together.

use std::collections::BTreeMap;
use std::path::Path;

use super::schema::{
    Cc, ConnectMode, CubicCc, CubicModelName, CwndValidationName, DctcpCc, DupAckFilterName, ForwardingName,
    KaRoundingName, KaStage, KickAssCc, Link, LinkState, MptcpPathsName, NewRenoCc, NotAdmittedName,
    OneWayEpochName, PermutationPattern, Queue, RcpStage, RecoveryName, RenoIncreaseName, RttModelName,
    SpOccupancyName, SpStage, SpVariantName, SsthreshBaseName, TaqDropName, Topology, Transport, Workload,
};
use super::values::{ByteSize, DupThresh, Duration, HostList, PositiveDuration, Starts, Threshold};
use super::{Scenario, ScenarioError};
use crate::ids::{ConnId, HostId, NodeId, PortId};
use crate::mechanisms::cp::CpParams;
use crate::mechanisms::ka::encoding::Rounding;
use crate::mechanisms::ka::{KaEndpoint, KaParams, RateProtocol, RcpParams};
use crate::mechanisms::plts::spray::{CntReading, RrScope};
use crate::mechanisms::plts::{FilterKind, FilterParams};
use crate::mechanisms::sp::{SpEpoch, SpOccupancy, SpParams, SpVariant};
use crate::mechanisms::taq::admission::{AdmissionParams, NotAdmitted};
use crate::mechanisms::taq::{OneWayEpoch, TaqDrop, TaqParams};
use crate::net::forwarding::ForwardingPolicy;
use crate::net::index::{TopologyIndex, root};
use crate::net::packet::{IPV4_HEADER_BYTES, TCP_HEADER_BYTES};
use crate::net::stage::StageSpec;
use crate::net::{DirSpec, NodeKind, TopologySpec};
use crate::qdisc::{CodelParams, DropTailParams, FqCodelParams, QueueSpec, RedParams, SfqParams};
use crate::rng::{SimRng, StreamId};
use crate::sim::{LatencyProbeSpec, LinkChange, MeasureSpec, OutputSpec, SimSpec, SpSenderSpec};
use crate::tcp::cc::{CcConfig, CubicModel, CubicParams, DctcpParams, HystartParams, RenoIncrease};
use crate::tcp::{
    CwndValidation, DelayedAck, MptcpConfig, MptcpPaths, Recovery, RtoParams, RttModel, SsthreshBase,
    TcpConfig,
};
use crate::topology::{self, BuiltTopology, DumbbellParams, FatTreeParams, ParkingLotParams, StarParams};
use crate::units::{Rate, SimTime, Size};
use crate::workload::cbr::Cbr;
use crate::workload::incast::{Connect, Incast};
use crate::workload::onoff::OnOff;
use crate::workload::web::Web;
use crate::workload::{FlowSpec, Generator, StaticFlows, expand_static};

/// Queue of a link whose `queue` is not given: DropTail, 1000 packets (Linux's default
/// `txqueuelen`).
pub const DEFAULT_QUEUE: QueueSpec =
    QueueSpec::DropTail(DropTailParams { limit: Size::Packets(1000), ecn_threshold: None });
/// MTU of a link whose `mtu` is not given (Ethernet).
pub const DEFAULT_MTU: u32 = crate::net::ETHERNET_MTU;

impl Default for CubicCc {
    fn default() -> CubicCc {
        let p = CubicParams::default();
        CubicCc {
            c: p.c,
            beta: p.beta,
            fast_convergence: p.fast_convergence,
            alpha_beyond_wmax: p.alpha_beyond_wmax,
            hystart: p.hystart.enabled,
            model: match p.model {
                CubicModel::Rfc9438 => CubicModelName::Rfc9438,
                CubicModel::Linux => CubicModelName::Linux,
            },
        }
    }
}

impl Default for KickAssCc {
    fn default() -> KickAssCc {
        KickAssCc {
            indicator_interval: PositiveDuration(KaEndpoint::new(RateProtocol::KickAss).indicator_interval),
        }
    }
}

impl Default for DctcpCc {
    fn default() -> DctcpCc {
        let p = DctcpParams::default();
        DctcpCc { g: p.g, alpha_init: p.alpha_init, min_cwnd: p.min_cwnd }
    }
}

impl Default for Transport {
    fn default() -> Transport {
        let d = TcpConfig::default();
        let da = DelayedAck { count: 2, timeout: SimTime::from_ms(40) };
        Transport {
            cc: Cc::NewReno(NewRenoCc::default()),
            mss: d.mss,
            init_cwnd: d.init_cwnd,
            min_rto: Duration(d.rto.min),
            max_rto: Duration(d.rto.max),
            rto_granularity: Duration(d.rto.granularity),
            initial_rto: PositiveDuration(d.rto.initial),
            syn_rto: PositiveDuration(d.syn_rto),
            dupthresh: DupThresh::Count(d.dupthresh),
            sack: d.sack,
            limited_transmit: d.limited_transmit,
            limited_transmit_beyond_pipe: d.limited_transmit_beyond_pipe,
            lost_retransmit_detection: d.lost_retransmit_detection,
            recovery: match d.recovery {
                Recovery::Prr => RecoveryName::Prr,
                Recovery::Rfc6675 => RecoveryName::Rfc6675,
            },
            timestamps: d.timestamps,
            timestamp_tick: PositiveDuration(d.ts_tick),
            rtt_model: match d.rtt_model {
                RttModel::Linux => RttModelName::Linux,
                RttModel::Ns3 => RttModelName::Ns3,
            },
            sack_rtt: d.sack_rtt,
            grow_at_recovery_exit: d.grow_at_recovery_exit,
            timeout_reduces_again: d.timeout_reduces_again,
            cwnd_validation: match d.cwnd_validation {
                CwndValidation::Linux => CwndValidationName::Linux,
                CwndValidation::LastSend => CwndValidationName::LastSend,
                CwndValidation::None => CwndValidationName::None,
            },
            ssthresh_base: match d.ssthresh_base {
                SsthreshBase::Cwnd => SsthreshBaseName::Cwnd,
                SsthreshBase::Flight => SsthreshBaseName::Flight,
                SsthreshBase::Pipe => SsthreshBaseName::Pipe,
            },
            slow_start_after_idle: d.slow_start_after_idle,
            delayed_ack: d.delayed_ack.is_some(),
            delayed_ack_count: d.delayed_ack.unwrap_or(da).count,
            delayed_ack_timeout: PositiveDuration(d.delayed_ack.unwrap_or(da).timeout),
            rcv_buf: ByteSize(d.rcv_buf),
            initial_ssthresh: d.initial_ssthresh.map(ByteSize),
            dont_fragment: d.dont_fragment,
            ecn: d.ecn,
            pacing: d.pacing,
            cp: d.cp,
            sp: d.sp,
            mptcp: false,
            // The PLTS paper's MPTCP baseline, after Raiciu et al. (SIGCOMM 2011): 8 subflows.
            mptcp_subflows: 8,
            mptcp_coupled: true,
            mptcp_paths: MptcpPathsName::Hashed,
        }
    }
}

/// Subflows per MPTCP connection at most: a sanity bound (8 is the usual number).
const MAX_MPTCP_SUBFLOWS: u32 = 64;

impl Transport {
    pub fn tcp_config(&self) -> TcpConfig {
        let d = TcpConfig::default();
        TcpConfig {
            cc: match self.cc {
                Cc::NewReno(p) => CcConfig::NewReno(match p.increase {
                    RenoIncreaseName::Bytes => RenoIncrease::Bytes,
                    RenoIncreaseName::PerAck => RenoIncrease::PerAck,
                }),
                Cc::Cubic(p) => CcConfig::Cubic(CubicParams {
                    c: p.c,
                    beta: p.beta,
                    fast_convergence: p.fast_convergence,
                    alpha_beyond_wmax: p.alpha_beyond_wmax,
                    hystart: HystartParams { enabled: p.hystart, ..HystartParams::default() },
                    model: match p.model {
                        CubicModelName::Rfc9438 => CubicModel::Rfc9438,
                        CubicModelName::Linux => CubicModel::Linux,
                    },
                }),
                Cc::Dctcp(p) => {
                    CcConfig::Dctcp(DctcpParams { g: p.g, alpha_init: p.alpha_init, min_cwnd: p.min_cwnd })
                }
                Cc::KickAss(p) => CcConfig::ExplicitRate(KaEndpoint {
                    protocol: RateProtocol::KickAss,
                    indicator_interval: p.indicator_interval.0,
                }),
                Cc::Rcp => CcConfig::ExplicitRate(KaEndpoint::new(RateProtocol::Rcp)),
            },
            mss: self.mss,
            init_cwnd: self.init_cwnd,
            rto: RtoParams {
                initial: self.initial_rto.0,
                min: self.min_rto.0,
                max: self.max_rto.0,
                granularity: self.rto_granularity.0,
            },
            syn_rto: self.syn_rto.0,
            rto_after_syn_timeout: d.rto_after_syn_timeout,
            dupthresh: match self.dupthresh {
                DupThresh::Count(n) => n,
                DupThresh::Paths => d.dupthresh,
            },
            dupthresh_from_paths: self.dupthresh == DupThresh::Paths,
            sack: self.sack,
            limited_transmit: self.limited_transmit,
            limited_transmit_beyond_pipe: self.limited_transmit_beyond_pipe,
            lost_retransmit_detection: self.lost_retransmit_detection,
            recovery: match self.recovery {
                RecoveryName::Prr => Recovery::Prr,
                RecoveryName::Rfc6675 => Recovery::Rfc6675,
            },
            timestamps: self.timestamps,
            ts_tick: self.timestamp_tick.0,
            rtt_model: match self.rtt_model {
                RttModelName::Linux => RttModel::Linux,
                RttModelName::Ns3 => RttModel::Ns3,
            },
            sack_rtt: self.sack_rtt,
            grow_at_recovery_exit: self.grow_at_recovery_exit,
            timeout_reduces_again: self.timeout_reduces_again,
            cwnd_validation: match self.cwnd_validation {
                CwndValidationName::Linux => CwndValidation::Linux,
                CwndValidationName::LastSend => CwndValidation::LastSend,
                CwndValidationName::None => CwndValidation::None,
            },
            ssthresh_base: match self.ssthresh_base {
                SsthreshBaseName::Cwnd => SsthreshBase::Cwnd,
                SsthreshBaseName::Flight => SsthreshBase::Flight,
                SsthreshBaseName::Pipe => SsthreshBase::Pipe,
            },
            slow_start_after_idle: self.slow_start_after_idle,
            delayed_ack: self
                .delayed_ack
                .then_some(DelayedAck { count: self.delayed_ack_count, timeout: self.delayed_ack_timeout.0 }),
            rcv_buf: self.rcv_buf.0,
            initial_ssthresh: self.initial_ssthresh.map(|b| b.0),
            dont_fragment: self.dont_fragment,
            ecn: self.ecn,
            pacing: self.pacing,
            cp: self.cp,
            sp: self.sp,
            mptcp: self.mptcp.then_some(MptcpConfig {
                subflows: self.mptcp_subflows,
                coupled: self.mptcp_coupled,
                paths: match self.mptcp_paths {
                    MptcpPathsName::Hashed => MptcpPaths::Hashed,
                    MptcpPathsName::Distinct => MptcpPaths::Distinct,
                },
            }),
        }
    }

    /// Constraints between fields; `path` is where this transport was written.
    pub(super) fn check(&self, path: &str, errs: &mut Vec<ScenarioError>) {
        let mut err = |key: &str, msg: String| errs.push(ScenarioError::at(format!("{path}.{key}"), msg));
        if !(64..=65_495).contains(&self.mss) {
            err("mss", format!("{} is not a possible MSS (expected 64 to 65495 bytes)", self.mss));
        }
        if self.init_cwnd == 0 {
            err("init_cwnd", "must be at least 1 segment".into());
        }
        if let Some(b) = self.initial_ssthresh
            && b.0 < 2 * self.mss as u64
        {
            err("initial_ssthresh", format!("{} B is below two segments ({} B)", b.0, 2 * self.mss));
        }
        // RFC 7323 §5.4 asks for 1 ms to 1 s per tick; Linux also offers 1 µs. A finer clock
        // would wrap its 32 bits within a run's round trips.
        if !(SimTime::from_us(1)..=SimTime::from_secs(1)).contains(&self.timestamp_tick.0) {
            err(
                "timestamp_tick",
                format!("{} is not a timestamp clock tick (expected 1us to 1s)", self.timestamp_tick.0),
            );
        }
        if self.delayed_ack_count == 0 {
            err("delayed_ack_count", "must be at least 1".into());
        }
        if self.max_rto.0 == SimTime::ZERO {
            err("max_rto", "must be positive".into());
        }
        match self.cc {
            Cc::Cubic(p) => {
                if !(p.c > 0.0 && p.c.is_finite()) {
                    err("cc.c", format!("{} is not a possible C (expected > 0)", p.c));
                }
                if !(p.alpha_beyond_wmax > 0.0 && p.alpha_beyond_wmax.is_finite()) {
                    err(
                        "cc.alpha_beyond_wmax",
                        format!("{} is not a possible increase (expected > 0)", p.alpha_beyond_wmax),
                    );
                }
                if !(p.beta > 0.0 && p.beta < 1.0) {
                    err("cc.beta", format!("{} is not a possible β (expected 0 < β < 1)", p.beta));
                }
            }
            Cc::Dctcp(p) => {
                if !(p.g > 0.0 && p.g <= 1.0) {
                    err("cc.g", format!("{} is not a possible gain (expected 0 < g ≤ 1)", p.g));
                }
                if !(0.0..=1.0).contains(&p.alpha_init) {
                    err("cc.alpha_init", format!("{} is not a possible α (expected 0 to 1)", p.alpha_init));
                }
                if p.min_cwnd == 0 {
                    err("cc.min_cwnd", "must be at least 1 segment".into());
                }
            }
            Cc::NewReno(_) | Cc::KickAss(_) | Cc::Rcp => {}
        }
        if self.min_rto.0 > self.max_rto.0 {
            err("min_rto", format!("{} is above max_rto ({})", self.min_rto.0, self.max_rto.0));
        }
        if !(1..=MAX_MPTCP_SUBFLOWS).contains(&self.mptcp_subflows) {
            err(
                "mptcp_subflows",
                format!("{} is not a number of subflows (1 to {MAX_MPTCP_SUBFLOWS})", self.mptcp_subflows),
            );
        }
        if self.mptcp && !matches!(self.cc, Cc::NewReno(_)) {
            err("cc", "MPTCP's subflows run NewReno, coupled by LIA (RFC 6356): set cc = \"newreno\"".into());
        }
        if self.mptcp && self.cp {
            err("cp", "CP endpoints and MPTCP cannot be combined yet".into());
        }
    }
}

/// A list of starts has one entry per flow; a sequence's last start is a time (it does not
/// overflow the clock).
fn check_starts(starts: &Starts, flows: usize, path: &str, p: &mut Problems) {
    use crate::workload::Starts as W;
    match &starts.0 {
        W::List(l) if l.len() != flows => {
            p.at(path.to_string(), format!("{} starts for {flows} flows (one per flow)", l.len()));
        }
        W::Every { first, step } => {
            let last = (first.0 as u128) + (step.0 as u128) * flows.saturating_sub(1) as u128;
            if last > SimTime::MAX.0 as u128 / 2 {
                p.at(path.to_string(), format!("the last of {flows} starts is beyond any run"));
            }
        }
        _ => {}
    }
}

/// Collects problems with their paths.
struct Problems(Vec<ScenarioError>);

impl Problems {
    fn at(&mut self, path: impl Into<String>, msg: impl Into<String>) {
        self.0.push(ScenarioError::at(path, msg.into()));
    }
}

fn same_unit(a: Size, b: Size) -> bool {
    matches!((a, b), (Size::Packets(_), Size::Packets(_)) | (Size::Bytes(_), Size::Bytes(_)))
}

fn amount(s: Size) -> u64 {
    match s {
        Size::Packets(n) | Size::Bytes(n) => n,
    }
}

fn queue_spec(q: &Queue, path: &str, p: &mut Problems) -> QueueSpec {
    match q {
        Queue::DropTail(d) => QueueSpec::DropTail(DropTailParams {
            limit: d.limit.0,
            ecn_threshold: d.ecn_threshold.map(|t| t.0),
        }),
        Queue::Red(r) => {
            let mut red = RedParams::with_limit(r.limit.0);
            if let Some(Threshold(t)) = r.min_th {
                red.min_th = t;
            }
            if let Some(Threshold(t)) = r.max_th {
                red.max_th = t;
            } else if r.min_th.is_some() {
                // Floyd's recommendation: max_th = 3·min_th.
                red.max_th = match red.min_th {
                    Size::Packets(n) => Size::Packets(3 * n),
                    Size::Bytes(n) => Size::Bytes(3 * n),
                };
            }
            if !same_unit(red.min_th, red.max_th) {
                p.at(format!("{path}.max_th"), "must be in the same unit as min_th (packets or bytes)");
            } else if amount(red.min_th) >= amount(red.max_th) {
                p.at(
                    format!("{path}.min_th"),
                    format!("{} is not below max_th ({})", red.min_th, red.max_th),
                );
            }
            if let Some(x) = r.max_p {
                if !(x > 0.0 && x <= 1.0) {
                    p.at(format!("{path}.max_p"), format!("{x} is not a probability in (0, 1]"));
                }
                red.max_p = x;
            }
            if let Some(x) = r.w_q {
                if !(x > 0.0 && x <= 1.0) {
                    p.at(format!("{path}.w_q"), format!("{x} is not a weight in (0, 1]"));
                }
                red.w_q = x;
            }
            red.gentle = r.gentle.unwrap_or(red.gentle);
            red.ecn = r.ecn.unwrap_or(red.ecn);
            red.harddrop = r.harddrop.unwrap_or(red.harddrop);
            red.wait = r.wait.unwrap_or(red.wait);
            red.early_min_queue = r.early_min_queue.unwrap_or(red.early_min_queue);
            QueueSpec::Red(red)
        }
        Queue::Sfq(s) => {
            let d = SfqParams::default();
            let sfq = SfqParams {
                limit: s.limit.unwrap_or(d.limit),
                depth: s.depth.unwrap_or(d.depth),
                divisor: s.divisor.unwrap_or(d.divisor),
                quantum: s.quantum.unwrap_or(d.quantum),
                perturb: s.perturb.map(|x| x.0),
            };
            for (k, v) in [
                ("limit", sfq.limit),
                ("depth", sfq.depth),
                ("divisor", sfq.divisor),
                ("quantum", sfq.quantum),
            ] {
                if v == 0 {
                    p.at(format!("{path}.{k}"), "must be at least 1");
                }
            }
            QueueSpec::Sfq(sfq)
        }
        Queue::FqCodel(f) => {
            let d = FqCodelParams::default();
            let fq = FqCodelParams {
                limit_packets: f.limit.map_or(d.limit_packets, |x| x as u64),
                memory_limit_bytes: f.memory_limit.map_or(d.memory_limit_bytes, |x| x.0),
                flows: f.flows.unwrap_or(d.flows),
                quantum: f.quantum.unwrap_or(d.quantum),
                codel: CodelParams {
                    target: f.target.map_or(d.codel.target, |x| x.0),
                    interval: f.interval.map_or(d.codel.interval, |x| x.0),
                    mtu: d.codel.mtu,
                    ecn: f.ecn.unwrap_or(d.codel.ecn),
                },
                drop_batch: f.drop_batch.unwrap_or(d.drop_batch),
            };
            for (k, v) in [
                ("limit", fq.limit_packets),
                ("flows", fq.flows as u64),
                ("quantum", fq.quantum as u64),
                ("drop_batch", fq.drop_batch as u64),
            ] {
                if v == 0 {
                    p.at(format!("{path}.{k}"), "must be at least 1");
                }
            }
            QueueSpec::FqCodel(fq)
        }
        Queue::Cp(c) => {
            let data_path = format!("{path}.data");
            let data = queue_spec(&c.data, &data_path, p);
            if !matches!(data, QueueSpec::DropTail(_) | QueueSpec::Red(_)) {
                p.at(
                    format!("{data_path}.kind"),
                    format!("CP cuts at a drop-tail or RED queue, not at {}", data.kind()),
                );
            }
            let mut params = CpParams::default();
            if let Some(b) = c.cut_size {
                if !(40..=1500).contains(&b.0) {
                    p.at(
                        format!("{path}.cut_size"),
                        format!("{} B is not a header's size (40 to 1500 B)", b.0),
                    );
                }
                params.cut_bytes = b.0.clamp(40, 1500) as u16;
            }
            if let Some(b) = c.header_buffer {
                // Room for at least one cut packet.
                if b.0 < params.cut_bytes as u64 {
                    let cut = params.cut_bytes;
                    p.at(format!("{path}.header_buffer"), format!("{} B holds no {cut}-byte header", b.0));
                }
                params.header_buffer_bytes = b.0;
            }
            if let Some(d) = c.data_share {
                if !(0.0..1.0).contains(&d) {
                    p.at(format!("{path}.data_share"), format!("{d} is not a share in [0, 1)"));
                }
                params.data_share = d.clamp(0.0, 0.99);
            }
            if let Some(r) = c.overload_ratio {
                if !(r.is_finite() && r > 0.0) {
                    p.at(format!("{path}.overload_ratio"), format!("{r} is not a positive ratio"));
                }
                params.overload_ratio = r;
            }
            if let Some(w) = c.overload_window {
                params.overload_window = w.0;
            }
            QueueSpec::Cp(Box::new(data), params)
        }
        Queue::Taq(t) => {
            let mut params = TaqParams { limit: t.limit.0, ..TaqParams::default() };
            for (key, value, field) in [
                ("recovery_share", t.recovery_share, &mut params.recovery_share),
                ("newflow_share", t.newflow_share, &mut params.newflow_share),
            ] {
                if let Some(x) = value {
                    if !(x > 0.0 && x <= 1.0) {
                        p.at(format!("{path}.{key}"), format!("{x} is not a share in (0, 1]"));
                    }
                    *field = x;
                }
            }
            params.overpenalized_drops = t.overpenalized_drops.unwrap_or(params.overpenalized_drops);
            params.overpenalized_first = t.overpenalized_first.unwrap_or(params.overpenalized_first);
            params.syns_in_newflow = t.syns_in_newflow.unwrap_or(params.syns_in_newflow);
            if t.newflow_connections == Some(0) {
                p.at(format!("{path}.newflow_connections"), "0 connections would admit no new flow");
            }
            params.newflow_connections = t.newflow_connections;
            params.drop = match t.drop {
                Some(TaqDropName::Tail) => TaqDrop::Tail,
                Some(TaqDropName::PushOut) | None => TaqDrop::PushOut,
            };
            if let Some(r) = t.fair_share_refresh {
                params.fair_share_refresh = r.0;
            }
            if let Some(e) = t.initial_epoch {
                params.tracker.initial_epoch = e.0;
            }
            params.two_way = t.two_way.unwrap_or(params.two_way);
            if let Some(o) = t.one_way_epoch {
                params.tracker.one_way = match o {
                    OneWayEpochName::Bursts => OneWayEpoch::Bursts,
                    OneWayEpochName::Queue => OneWayEpoch::Queue,
                };
            }
            params.predict_next_state = t.predict_next_state.unwrap_or(params.predict_next_state);
            if let Some(m) = t.fair_share_margin {
                if !(m.is_finite() && m >= 0.0) {
                    p.at(format!("{path}.fair_share_margin"), format!("{m} is not a margin ≥ 0"));
                }
                params.fair_share_margin = m;
            }
            params.predict_dupthresh = t.predict_dupthresh.unwrap_or(params.predict_dupthresh);
            if let Some(a) = &t.admission {
                let mut ap = AdmissionParams::default();
                for (key, value, field) in [
                    ("p_thresh", a.p_thresh, &mut ap.p_thresh),
                    ("admit_factor", a.admit_factor, &mut ap.admit_factor),
                ] {
                    if let Some(x) = value {
                        if !(x > 0.0 && x <= 1.0) {
                            p.at(format!("{path}.admission.{key}"), format!("{x} is not in (0, 1]"));
                        }
                        *field = x;
                    }
                }
                for (value, field) in [
                    (a.pool_gap, &mut ap.pool_gap),
                    (a.t_wait, &mut ap.t_wait),
                    (a.loss_window, &mut ap.loss_window),
                ] {
                    if let Some(d) = value {
                        *field = d.0;
                    }
                }
                ap.not_admitted = match a.not_admitted {
                    Some(NotAdmittedName::Reject) | None => NotAdmitted::Reject,
                    Some(NotAdmittedName::Hold) => NotAdmitted::Hold,
                };
                params.admission = Some(ap);
            }
            QueueSpec::Taq(params)
        }
    }
}

fn check_mtu(mtu: u32, path: &str, p: &mut Problems) {
    if !(68..=65_535).contains(&mtu) {
        p.at(format!("{path}.mtu"), format!("{mtu} is not a possible MTU (expected 68 to 65535 bytes)"));
    }
}

fn dir(link: &Link, path: &str, p: &mut Problems) -> DirSpec {
    let mtu = link.mtu.unwrap_or(DEFAULT_MTU);
    check_mtu(mtu, path, p);
    let queue = link.queue.as_ref().map_or(DEFAULT_QUEUE, |q| queue_spec(q, &format!("{path}.queue"), p));
    // A buffer holds at least one packet: one as large as the link carries.
    if let Some((key, bytes)) = queue.byte_limit()
        && bytes < mtu as u64
    {
        p.at(
            format!("{path}.queue.{key}"),
            format!("{bytes} B cannot hold one full-size packet of this link ({mtu} B, its MTU)"),
        );
    }
    let stages: Vec<&str> =
        [("sp", link.sp.is_some()), ("ka", link.ka.is_some()), ("rcp", link.rcp.is_some())]
            .into_iter()
            .filter_map(|(k, on)| on.then_some(k))
            .collect();
    if stages.len() > 1 {
        p.at(
            format!("{path}.{}", stages[1]),
            format!("a port has one stage before its queue: choose one of {}", stages.join(", ")),
        );
    }
    let stage = if let Some(s) = &link.sp {
        Some(StageSpec::Sp(sp_params(s, &queue, &format!("{path}.sp"), p)))
    } else if let Some(k) = &link.ka {
        if !matches!(queue, QueueSpec::DropTail(_)) {
            p.at(
                format!("{path}.ka"),
                format!(
                    "Kick-Ass's router stops signalling above a share of the queue's capacity (§II-C2), \
                     which only a drop-tail queue fixes: the link's queue must be droptail, not {}",
                    queue.kind()
                ),
            );
        }
        let ka = ka_params(k, &format!("{path}.ka"), p);
        check_min_rate(&ka.rcp, link.rate.0, &format!("{path}.ka.rcp"), p);
        Some(StageSpec::KickAss(ka))
    } else {
        link.rcp.as_ref().map(|r| {
            let rcp = rcp_params(r, &format!("{path}.rcp"), p);
            check_min_rate(&rcp, link.rate.0, &format!("{path}.rcp"), p);
            StageSpec::Rcp(rcp)
        })
    };
    DirSpec {
        rate: link.rate.0,
        delay: link.delay.0,
        queue,
        loss: link.loss.map_or(0.0, |x| x.0),
        framing_bytes: link.framing.unwrap_or(0),
        mtu,
        reverse_loss: link.reverse_loss.map(|x| x.0),
        stage,
    }
}

/// The SPManager's parameters from a link's `sp` table.
fn sp_params(s: &SpStage, queue: &QueueSpec, path: &str, p: &mut Problems) -> SpParams {
    if !matches!(queue, QueueSpec::DropTail(_) | QueueSpec::Red(_)) {
        p.at(
            path,
            format!(
                "the SPManager admits against a FIFO's free room (Click's Queue): the link's queue must be \
                 droptail or red, not {}",
                queue.kind()
            ),
        );
    }
    let d = SpParams::default();
    let mut sp = SpParams {
        max_sp_length: s.max_sp_length.unwrap_or(d.max_sp_length),
        reserve_weight: s.reserve_weight.unwrap_or(d.reserve_weight),
        epoch: match (s.epoch, s.initial_epoch) {
            (Some(e), None) => SpEpoch::Fixed(e.0),
            (Some(_), Some(_)) => {
                p.at(
                    format!("{path}.initial_epoch"),
                    "only applies to the observed epoch (no `epoch` given)",
                );
                d.epoch
            }
            (None, Some(i)) => SpEpoch::Observed { initial: i.0 },
            (None, None) => d.epoch,
        },
        variant: SpVariant::Algorithm1,
        occupancy: match s.occupancy {
            Some(SpOccupancyName::Bytes) => SpOccupancy::Bytes,
            _ => SpOccupancy::Packets,
        },
        host_cap: s.host_cap,
    };
    if sp.max_sp_length == 0 {
        p.at(format!("{path}.max_sp_length"), "must be at least 1");
    }
    if !(sp.reserve_weight >= 0.0 && sp.reserve_weight.is_finite()) {
        p.at(
            format!("{path}.reserve_weight"),
            format!("{} is not a weight (expected ≥ 0)", sp.reserve_weight),
        );
    }
    let variant = s.variant.unwrap_or(SpVariantName::Algorithm1);
    let only = |set: bool, key: &str, want: SpVariantName, name: &str, p: &mut Problems| {
        if set && variant != want {
            p.at(format!("{path}.{key}"), format!("only applies to variant = \"{name}\""));
        }
    };
    only(s.bloom_bits_log2.is_some(), "bloom_bits_log2", SpVariantName::Bloom, "bloom", p);
    only(s.bloom_hashes.is_some(), "bloom_hashes", SpVariantName::Bloom, "bloom", p);
    only(s.red_threshold.is_some(), "red_threshold", SpVariantName::RedLike, "red-like", p);
    only(s.red_w_q.is_some(), "red_w_q", SpVariantName::RedLike, "red-like", p);
    sp.variant = match variant {
        SpVariantName::Algorithm1 => SpVariant::Algorithm1,
        SpVariantName::LengthAware => SpVariant::LengthAware,
        SpVariantName::Bloom => {
            let SpVariant::Bloom { bits_log2, hashes } = SpVariant::BLOOM else { unreachable!() };
            let (bits_log2, hashes) =
                (s.bloom_bits_log2.unwrap_or(bits_log2), s.bloom_hashes.unwrap_or(hashes));
            if !(6..=32).contains(&bits_log2) {
                p.at(
                    format!("{path}.bloom_bits_log2"),
                    format!("{bits_log2} is not 6 to 32 (2⁶ to 2³² bits)"),
                );
            }
            if !(1..=16).contains(&hashes) {
                p.at(format!("{path}.bloom_hashes"), format!("{hashes} is not 1 to 16"));
            }
            SpVariant::Bloom { bits_log2, hashes }
        }
        SpVariantName::RedLike => {
            let SpVariant::RedLike { threshold, w_q } = SpVariant::RED_LIKE else { unreachable!() };
            let (threshold, w_q) = (s.red_threshold.unwrap_or(threshold), s.red_w_q.unwrap_or(w_q));
            if !(threshold > 0.0 && threshold <= 1.0) {
                p.at(
                    format!("{path}.red_threshold"),
                    format!("{threshold} is not a share of the buffer (0 < x ≤ 1)"),
                );
            }
            if !(w_q > 0.0 && w_q <= 1.0) {
                p.at(format!("{path}.red_w_q"), format!("{w_q} is not a weight (0 < w ≤ 1)"));
            }
            SpVariant::RedLike { threshold, w_q }
        }
    };
    sp
}

/// A Kick-Ass router's spacing between one flow's signals, in average RTTs, at most: beyond a
/// few RTTs its endpoints, hearing no rate for an RTT, would be in TCP mode all the time.
const MAX_SIGNAL_SPACING: f64 = 10.0;
/// Slots in its spacing table at most (24 bytes each: 24 MiB).
const MAX_SIGNAL_SLOTS: usize = 1 << 20;

/// Kick-Ass's router parameters from a link's `ka` table.
fn ka_params(k: &KaStage, path: &str, p: &mut Problems) -> KaParams {
    let d = KaParams::default();
    let ka = KaParams {
        rcp: k.rcp.as_ref().map_or(d.rcp, |r| rcp_params(r, &format!("{path}.rcp"), p)),
        queue_threshold: k.queue_threshold.unwrap_or(d.queue_threshold),
        full_size: k.full_size.unwrap_or(d.full_size),
        resume_threshold: k.resume_threshold.or(k.queue_threshold).unwrap_or(d.resume_threshold),
        reanchor: k.reanchor.unwrap_or(d.reanchor),
        legacy_detection: k.legacy_detection.unwrap_or(d.legacy_detection),
        rounding: match k.rounding.unwrap_or_default() {
            KaRoundingName::Nearest => Rounding::Nearest,
            KaRoundingName::Down => Rounding::Down,
        },
        signal_spacing: k.signal_spacing.unwrap_or(d.signal_spacing),
        signal_slots: k.signal_slots.map_or(d.signal_slots, |n| n as usize),
    };
    if !(ka.signal_spacing >= 0.0 && ka.signal_spacing <= MAX_SIGNAL_SPACING) {
        p.at(
            format!("{path}.signal_spacing"),
            format!("{} is not a share of the RTT from 0 to {MAX_SIGNAL_SPACING}", ka.signal_spacing),
        );
    }
    if !(1..=MAX_SIGNAL_SLOTS).contains(&ka.signal_slots) {
        p.at(
            format!("{path}.signal_slots"),
            format!("{} is not a table size (1 to {MAX_SIGNAL_SLOTS})", ka.signal_slots),
        );
    }
    if !(ka.queue_threshold > 0.0 && ka.queue_threshold <= 1.0) {
        p.at(
            format!("{path}.queue_threshold"),
            format!("{} is not a share of the queue (0 < x ≤ 1)", ka.queue_threshold),
        );
    } else if !(ka.resume_threshold >= 0.0 && ka.resume_threshold <= ka.queue_threshold) {
        p.at(
            format!("{path}.resume_threshold"),
            format!(
                "{} is not a share of the queue at or below queue_threshold ({})",
                ka.resume_threshold, ka.queue_threshold
            ),
        );
    }
    if !(68..=65_535).contains(&ka.full_size) {
        p.at(
            format!("{path}.full_size"),
            format!("{} is not a packet size (68 to 65535 bytes)", ka.full_size),
        );
    }
    ka
}

/// RCP's floor must lie below the rate of the link it computes rates for.
fn check_min_rate(rcp: &RcpParams, link_rate: Rate, path: &str, p: &mut Problems) {
    if rcp.min_rate > link_rate {
        p.at(format!("{path}.min_rate"), format!("{} is above the link's rate, {link_rate}", rcp.min_rate));
    }
}

/// RCP's parameters from an `rcp` table (a link's, or a `ka` table's).
fn rcp_params(r: &RcpStage, path: &str, p: &mut Problems) -> RcpParams {
    let d = RcpParams::default();
    let rcp = RcpParams {
        alpha: r.alpha.unwrap_or(d.alpha),
        beta: r.beta.unwrap_or(d.beta),
        interval: r.interval.map_or(d.interval, |t| t.0),
        initial_rate_fraction: r.initial_rate.unwrap_or(d.initial_rate_fraction),
        initial_rtt: r.initial_rtt.map_or(d.initial_rtt, |t| t.0),
        rtt_gain: r.rtt_gain.unwrap_or(d.rtt_gain),
        min_rate: r.min_rate.map_or(d.min_rate, |x| x.0),
        max_decrease: r.max_decrease.unwrap_or(d.max_decrease),
        hold_while_silent: r.hold_while_silent.unwrap_or(d.hold_while_silent),
    };
    if !(rcp.max_decrease >= 0.0 && rcp.max_decrease < 1.0) {
        p.at(format!("{path}.max_decrease"), format!("{} is not a factor in [0, 1)", rcp.max_decrease));
    }
    if !(rcp.alpha > 0.0 && rcp.alpha.is_finite()) {
        p.at(format!("{path}.alpha"), format!("{} is not a gain (expected > 0)", rcp.alpha));
    }
    if !(rcp.beta >= 0.0 && rcp.beta.is_finite()) {
        p.at(format!("{path}.beta"), format!("{} is not a gain (expected ≥ 0)", rcp.beta));
    }
    for (key, x) in [("initial_rate", rcp.initial_rate_fraction), ("rtt_gain", rcp.rtt_gain)] {
        if !(x > 0.0 && x <= 1.0) {
            p.at(format!("{path}.{key}"), format!("{x} is not in (0, 1]"));
        }
    }
    if rcp.min_rate.bps() == 0 {
        p.at(format!("{path}.min_rate"), "must be positive");
    }
    rcp
}

/// Every link table of the topology, with its path.
fn topology_links(t: &Topology) -> Vec<(String, Link)> {
    let named = |v: Vec<(&str, Option<&Link>)>| {
        v.into_iter().filter_map(|(n, l)| Some((format!("topology.{n}"), l?.clone()))).collect()
    };
    match t {
        Topology::Dumbbell(d) => {
            named(vec![("access", Some(&d.access)), ("bottleneck", Some(&d.bottleneck))])
        }
        Topology::Star(s) => named(vec![("access", Some(&s.access)), ("bottleneck", Some(&s.bottleneck))]),
        Topology::ParkingLot(pl) => named(vec![("link", Some(&pl.link)), ("access", Some(&pl.access))]),
        Topology::FatTree(f) => named(vec![("link", Some(&f.link)), ("host_link", f.host_link.as_ref())]),
        Topology::Explicit(e) => {
            e.links.iter().enumerate().map(|(i, l)| (format!("topology.link[{i}]"), l.link())).collect()
        }
    }
}

/// Where a queue marks ECN, as (key, reason).
fn queue_ecn(q: &Queue) -> Option<(&'static str, &'static str)> {
    match q {
        Queue::DropTail(d) if d.ecn_threshold.is_some() => Some(("ecn_threshold", "marks ECN")),
        Queue::Red(r) if r.ecn == Some(true) => Some(("ecn", "marks ECN")),
        Queue::FqCodel(f) if f.ecn == Some(true) => Some(("ecn", "marks ECN")),
        Queue::Cp(c) => {
            queue_ecn(&c.data).map(|(k, r)| (if k == "ecn" { "data.ecn" } else { "data.ecn_threshold" }, r))
        }
        _ => None,
    }
}

/// Every transport table of a scenario — the global one, then each workload's as resolved — with
/// a function giving the path of one of its keys where that key was *set*: in the workload's own
/// table, or else in `[transport]` (None for a workload that inherits it).
fn transports(sc: &Scenario) -> Vec<(&Transport, impl Fn(&str) -> Option<String> + '_)> {
    std::iter::once((&sc.transport, None))
        .chain(sc.workload_transports.iter().enumerate().map(|(i, t)| (t, Some(i))))
        .map(|(t, workload)| {
            let at = move |key: &str| match workload {
                None => Some(format!("transport.{key}")),
                Some(i) => match sc.file.workloads[i].transport() {
                    Some(o) if o.contains_key(key) => Some(format!("workload[{i}].transport.{key}")),
                    _ => None,
                },
            };
            (t, at)
        })
        .collect()
}

/// Where super-packets are switched on: links' `sp` tables and transports' `sp` keys.
fn super_packets_at(sc: &Scenario, links: &[(String, Link)]) -> Vec<String> {
    let mut at: Vec<String> =
        links.iter().filter(|(_, l)| l.sp.is_some()).map(|(n, _)| format!("{n}.sp")).collect();
    for (t, key) in transports(sc) {
        if t.sp {
            at.extend(key("sp").or(Some("transport.sp".into())));
        }
    }
    at
}

/// Super-packets put their identifier in the IPv4 identification field (§3.2), which
/// reassembly keys fragments on; Kick-Ass fragments. routerlab does not work out which flows
/// meet which routers: a scenario with both anywhere is refused.
fn check_sp_without_ka(sc: &Scenario, p: &mut Problems) {
    let links = topology_links(&sc.file.topology);
    let Some(sp) = super_packets_at(sc, &links).into_iter().next() else { return };
    let mut ka_at: Vec<String> =
        links.iter().filter(|(_, l)| l.ka.is_some()).map(|(n, _)| format!("{n}.ka")).collect();
    for (t, key) in transports(sc) {
        if matches!(t.cc, Cc::KickAss(_)) {
            ka_at.extend(key("cc"));
        }
    }
    for path in ka_at {
        p.at(
            path,
            format!(
                "Kick-Ass fragments packets, and super-packets ({sp}) carry their identifier in the IP \
                 identification field that reassembly keys on (§3.2): the two cannot be combined"
            ),
        );
    }
}

/// Super-packets carry their flags and length in the ToS byte, ECN's two bits included (§3.2):
/// a scenario may not use both.
fn check_sp_without_ecn(sc: &Scenario, p: &mut Problems) {
    let links = topology_links(&sc.file.topology);
    let Some(sp) = super_packets_at(sc, &links).into_iter().next() else { return };
    let mut ecn_at = Vec::new();
    for (t, at) in transports(sc) {
        if t.ecn {
            ecn_at.extend(at("ecn").map(|k| (k, "enables ECN")));
        }
        if matches!(t.cc, Cc::Dctcp(_)) {
            ecn_at.extend(at("cc").map(|k| (k, "is DCTCP, which needs ECN")));
        }
    }
    for (path, l) in &links {
        if let Some((key, why)) = l.queue.as_ref().and_then(queue_ecn) {
            ecn_at.push((format!("{path}.queue.{key}"), why));
        }
    }
    if sc.file.hosts.dupack_filter == Some(DupAckFilterName::Ecn) {
        ecn_at.push(("hosts.dupack_filter".into(), "is the ECN-based filter"));
    }
    for (path, why) in ecn_at {
        p.at(
            path,
            format!(
                "{why}, but super-packets ({sp}) use the ToS byte's ECN bits for their length (§3.2): \
                 the two cannot be combined"
            ),
        );
    }
}

fn positive(n: u32, path: &str, p: &mut Problems) -> bool {
    if n == 0 {
        p.at(path, "must be at least 1");
    }
    n > 0
}

/// A topology's `sender_delays`, one per sender: `None` (and a problem) when the count is
/// wrong, so that nothing is built from it.
fn sender_delays(
    given: &Option<Vec<Duration>>,
    senders: u32,
    what: &str,
    p: &mut Problems,
) -> Option<Option<Vec<SimTime>>> {
    match given {
        Some(sd) if sd.len() != senders as usize => {
            p.at("topology.sender_delays", format!("has {} entries for {senders} {what}", sd.len()));
            None
        }
        Some(sd) => Some(Some(sd.iter().map(|x| x.0).collect())),
        None => Some(None),
    }
}

/// A workload's `stop` comes after its `start`.
fn check_stop(start: SimTime, stop: Option<SimTime>, path: &str, p: &mut Problems) {
    if let Some(s) = stop
        && s <= start
    {
        p.at(format!("{path}.stop"), format!("{s} is not after the start ({start})"));
    }
}

/// The largest fat-tree: k = 128 has 524 288 hosts and 20 480 switches.
const MAX_FAT_TREE_K: u32 = 128;

fn build_topology(t: &Topology, p: &mut Problems) -> Option<BuiltTopology> {
    let before = p.0.len();
    let built = match t {
        Topology::Dumbbell(d) => {
            positive(d.pairs, "topology.pairs", p);
            let sender_delays = sender_delays(&d.sender_delays, d.pairs, "pairs", p)?;
            topology::dumbbell(&DumbbellParams {
                pairs: d.pairs as usize,
                access: dir(&d.access, "topology.access", p),
                bottleneck: dir(&d.bottleneck, "topology.bottleneck", p),
                sender_delays,
            })
        }
        Topology::Star(s) => {
            positive(s.senders, "topology.senders", p);
            positive(s.receivers, "topology.receivers", p);
            let sender_delays = sender_delays(&s.sender_delays, s.senders, "senders", p)?;
            topology::star(&StarParams {
                senders: s.senders as usize,
                receivers: s.receivers.max(1) as usize,
                access: dir(&s.access, "topology.access", p),
                bottleneck: dir(&s.bottleneck, "topology.bottleneck", p),
                sender_delays,
            })
        }
        Topology::ParkingLot(pl) => {
            if pl.routers < 2 {
                p.at("topology.routers", format!("{}: a parking lot needs at least 2 routers", pl.routers));
            }
            let hops = pl.routers.saturating_sub(1);
            let cross_hops: Vec<usize> = match &pl.cross_hops {
                Some(h) => {
                    for (i, &x) in h.iter().enumerate() {
                        if x == 0 || x > hops {
                            p.at(
                                format!("topology.cross_hops[{i}]"),
                                format!("{x} is not a hop (hops are 1 to {hops})"),
                            );
                        }
                    }
                    h.iter().map(|&x| x as usize).collect()
                }
                None => (1..=hops as usize).collect(),
            };
            if pl.routers < 2 || cross_hops.iter().any(|&h| h == 0 || h > hops as usize) {
                return None;
            }
            topology::parking_lot(&ParkingLotParams {
                routers: pl.routers as usize,
                pairs: pl.pairs as usize,
                cross: pl.cross as usize,
                cross_hops,
                link: dir(&pl.link, "topology.link", p),
                access: dir(&pl.access, "topology.access", p),
            })
        }
        Topology::FatTree(f) => {
            if f.k < 2 || f.k % 2 == 1 || f.k > MAX_FAT_TREE_K {
                p.at(
                    "topology.k",
                    format!("{}: k must be even, from 2 to {MAX_FAT_TREE_K} (k³/4 hosts)", f.k),
                );
                return None;
            }
            let link = dir(&f.link, "topology.link", p);
            let host_link = f.host_link.as_ref().map_or(link.clone(), |l| dir(l, "topology.host_link", p));
            topology::fat_tree(&FatTreeParams { k: f.k as usize, link, host_link })
        }
        Topology::Explicit(e) => build_explicit(e, p)?,
    };
    (p.0.len() == before).then_some(built)
}

fn build_explicit(e: &super::schema::Explicit, p: &mut Problems) -> Option<BuiltTopology> {
    let mut spec = TopologySpec::default();
    let mut index: BTreeMap<&str, usize> = BTreeMap::new();
    for (i, n) in e.nodes.iter().enumerate() {
        if n.name.is_empty() {
            p.at(format!("topology.node[{i}].name"), "is empty");
        }
        if let Some(&j) = index.get(n.name.as_str()) {
            p.at(
                format!("topology.node[{i}].name"),
                format!("\"{}\" is already the name of node[{j}]", n.name),
            );
            continue;
        }
        let kind = match n.kind {
            super::schema::NodeKindName::Host => NodeKind::Host,
            super::schema::NodeKindName::Switch => NodeKind::Switch,
        };
        index.insert(&n.name, spec.add_node(n.name.clone(), kind));
    }
    let mut degree = vec![0usize; spec.nodes.len()];
    let mut seen = BTreeMap::new();
    for (i, l) in e.links.iter().enumerate() {
        let path = format!("topology.link[{i}]");
        let ends: Vec<Option<usize>> = l
            .between
            .iter()
            .enumerate()
            .map(|(k, name)| {
                let found = index.get(name.as_str()).copied();
                if found.is_none() {
                    p.at(format!("{path}.between[{k}]"), format!("no node is named \"{name}\""));
                }
                found
            })
            .collect();
        let (Some(a), Some(b)) = (ends[0], ends[1]) else { continue };
        if a == b {
            p.at(format!("{path}.between"), format!("a link from \"{}\" to itself", l.between[0]));
            continue;
        }
        if let Some(j) = seen.insert((a.min(b), a.max(b)), i) {
            p.at(format!("{path}.between"), format!("link[{j}] already joins these nodes"));
            continue;
        }
        let d = dir(&l.link(), &path, p);
        degree[a] += 1;
        degree[b] += 1;
        spec.add_duplex(a, b, &d);
    }
    for (i, n) in spec.nodes.iter().enumerate() {
        if n.kind == NodeKind::Host && degree[i] != 1 {
            let j = e.nodes.iter().position(|x| x.name == n.name).unwrap_or(i);
            p.at(
                format!("topology.node[{j}]"),
                format!("host \"{}\" has {} links; a host has exactly one", n.name, degree[i]),
            );
        }
    }
    check_connected(&spec, e, p);
    let pairs =
        e.pairs.as_ref().map_or(Vec::new(), |v| v.iter().map(|[a, b]| (a.clone(), b.clone())).collect());
    Some(BuiltTopology { spec, pairs })
}

/// A topology is one network: a part that no link joins to the rest is a mistake, even when
/// no flow would cross it. Reported once per separate part, at its first node.
fn check_connected(spec: &TopologySpec, e: &super::schema::Explicit, p: &mut Problems) {
    let mut part: Vec<u32> = (0..spec.nodes.len() as u32).collect();
    for l in &spec.links {
        let (a, b) = (root(&mut part, l.a as u32), root(&mut part, l.b as u32));
        part[a.max(b) as usize] = a.min(b);
    }
    let mut seen = std::collections::BTreeSet::from([0]);
    for n in 1..spec.nodes.len() {
        let r = root(&mut part, n as u32);
        if r != 0 && seen.insert(r) {
            let name = &spec.nodes[n].name;
            let j = e.nodes.iter().position(|x| x.name == *name).unwrap_or(n);
            p.at(
                format!("topology.node[{j}]"),
                format!(
                    "\"{name}\" is not linked, directly or through others, to \"{}\"",
                    spec.nodes[0].name
                ),
            );
        }
    }
}

/// A short description of the hosts, for error messages.
/// Every switch's forwarding policy: the scenario's default, then the per-switch overrides.
fn set_forwarding(f: &super::schema::Forwarding, spec: &mut TopologySpec, p: &mut Problems) {
    let policy = |n: ForwardingName| match n {
        ForwardingName::Ecmp => ForwardingPolicy::Ecmp,
        ForwardingName::SprayRnd => ForwardingPolicy::SprayRandom,
        ForwardingName::SprayCnt => ForwardingPolicy::SprayLeastQueue(CntReading::Occupancy),
        ForwardingName::SprayCntRotate => ForwardingPolicy::SprayLeastQueue(CntReading::OccupancyRotating),
        ForwardingName::SprayCntWaiting => ForwardingPolicy::SprayLeastQueue(CntReading::WaitingFirstPort),
        ForwardingName::SprayRr => ForwardingPolicy::SprayRoundRobin(RrScope::Switch),
        ForwardingName::SprayRrData => ForwardingPolicy::SprayRoundRobin(RrScope::SwitchData),
        ForwardingName::SprayRrDst => ForwardingPolicy::SprayRoundRobin(RrScope::Destination),
        ForwardingName::SprayRrFlow => ForwardingPolicy::SprayRoundRobin(RrScope::Flow),
    };
    for n in spec.nodes.iter_mut().filter(|n| n.kind == NodeKind::Switch) {
        n.forwarding = policy(f.policy);
    }
    for (name, &which) in &f.switches {
        match spec.nodes.iter_mut().find(|n| n.name == *name) {
            Some(n) if n.kind == NodeKind::Switch => n.forwarding = policy(which),
            Some(_) => p.at(format!("forwarding.switches.{name}"), "is a host, not a switch"),
            None => p.at(format!("forwarding.switches.{name}"), "no switch of that name in the topology"),
        }
    }
}

fn host_hint(names: &[&str]) -> String {
    match names.len() {
        0 => "the topology has no hosts".into(),
        n if n <= 6 => format!("hosts are: {}", names.join(", ")),
        n => format!("hosts are: {}, … ({n} in all)", names[..4].join(", ")),
    }
}

/// Name resolution against the topology (its index: nothing is built).
struct Names<'a> {
    index: TopologyIndex<'a>,
    by_name: BTreeMap<&'a str, NodeId>,
    host_names: Vec<&'a str>,
    pairs: Vec<(&'a str, &'a str)>,
}

impl<'a> Names<'a> {
    fn node(&self, name: &str, path: &str, p: &mut Problems) -> Option<NodeId> {
        let n = self.by_name.get(name).copied();
        if n.is_none() {
            p.at(path, format!("no node is named \"{name}\""));
        }
        n
    }

    fn host(&self, name: &str, path: &str, p: &mut Problems) -> Option<HostId> {
        match self.by_name.get(name) {
            None => {
                p.at(path, format!("unknown host \"{name}\" ({})", host_hint(&self.host_names)));
                None
            }
            Some(&n) => {
                let h = self.index.host_of(n);
                if h.is_none() {
                    p.at(path, format!("\"{name}\" is a switch, not a host"));
                }
                h
            }
        }
    }

    /// Resolve a host list (`key` at `path`), or the default pairs' side when absent.
    fn hosts(
        &self,
        list: &Option<HostList>,
        path: &str,
        key: &str,
        side: usize,
        p: &mut Problems,
    ) -> Vec<HostId> {
        match list {
            Some(l) => l
                .0
                .iter()
                .enumerate()
                .filter_map(|(k, n)| {
                    let at =
                        if l.0.len() > 1 { format!("{path}.{key}[{k}]") } else { format!("{path}.{key}") };
                    self.host(n, &at, p)
                })
                .collect(),
            None => {
                if self.pairs.is_empty() {
                    p.at(
                        format!("{path}.{key}"),
                        "missing (this topology has no default pairs: name the hosts)",
                    );
                }
                self.pairs
                    .iter()
                    .filter_map(|pr| self.host(if side == 0 { pr.0 } else { pr.1 }, path, p))
                    .collect()
            }
        }
    }

    fn all_hosts(&self) -> Vec<HostId> {
        (0..self.index.host_count() as u32).map(HostId).collect()
    }

    /// Check that data can flow from `s` to `d`.
    fn reachable(&self, s: HostId, d: HostId, path: &str, p: &mut Problems) -> bool {
        if s == d {
            p.at(path, format!("a flow from {} to itself", self.index.host_name(s)));
            return false;
        }
        let ok = self.index.reaches(s, d);
        if !ok {
            p.at(
                path,
                format!(
                    "no path from {} to {} (the topology is disconnected)",
                    self.index.host_name(s),
                    self.index.host_name(d)
                ),
            );
        }
        ok
    }

    /// Check that a full segment of `tcp` fits every link from each sender to its receiver
    /// (TCP sets DF and routerlab does no path MTU discovery); reports the first that does
    /// not. Kick-Ass leaves DF clear (§IV-C of its paper): its segments may be fragmented.
    fn check_segments_fit(
        &self,
        pairs: impl IntoIterator<Item = (HostId, HostId)>,
        tcp: &TcpConfig,
        path: &str,
        p: &mut Problems,
    ) {
        if matches!(tcp.cc, CcConfig::ExplicitRate(KaEndpoint { protocol: RateProtocol::KickAss, .. })) {
            return;
        }
        let packet = IPV4_HEADER_BYTES + TCP_HEADER_BYTES + tcp.mss;
        let misfit = pairs.into_iter().find_map(|(s, d)| {
            let (mtu, port) = self.index.smallest_mtu(s, d)?;
            (packet > mtu).then_some((s, d, mtu, port))
        });
        if let Some((s, d, mtu, port)) = misfit {
            p.at(
                path,
                format!(
                    "a full segment ({packet} B: mss {} and 40 B of headers) does not fit the {mtu}-byte \
                     MTU of {} on the way from {} to {}; lower transport.mss to {} or less, or raise \
                     the link's mtu",
                    tcp.mss,
                    self.index.port_name(port),
                    self.index.host_name(s),
                    self.index.host_name(d),
                    mtu.saturating_sub(IPV4_HEADER_BYTES + TCP_HEADER_BYTES),
                ),
            );
        }
    }

    fn link(&self, name: &str, path: &str, p: &mut Problems) -> Option<PortId> {
        let port = self.index.port_named(name);
        if port.is_none() {
            let example = match self.index.port_count() {
                0 => String::new(),
                _ => format!(", e.g. \"{}\"", self.index.port_name(PortId(0))),
            };
            p.at(path, format!("no link is named \"{name}\" (links are named \"from->to\"{example})"));
        }
        port
    }
}

/// Draw a random permutation without fixed points (a derangement), by rejection.
fn derangement(n: usize, rng: &mut SimRng) -> Vec<usize> {
    loop {
        let v = shuffled(n, rng);
        if v.iter().enumerate().all(|(i, &x)| i != x) {
            return v;
        }
    }
}

/// 0..n in a uniformly random order (Fisher–Yates).
fn shuffled(n: usize, rng: &mut SimRng) -> Vec<usize> {
    let mut v: Vec<usize> = (0..n).collect();
    for i in (1..n).rev() {
        v.swap(i, rng.below(i as u64 + 1) as usize);
    }
    v
}

/// Default number of hot hosts of a `hotspot` permutation.
const DEFAULT_HOTSPOTS: u32 = 1;
/// Default probability that a sender of a `hotspot` permutation targets a hot host: half the
/// senders converge on the hot spots, the other half keep the fabric busy.
const DEFAULT_HOT_SHARE: f64 = 0.5;

/// Many-to-few pairs: `hot` random hosts are hot; each other sender targets a uniformly chosen
/// hot host with probability `share`, else its partner in a random derangement (which the hot
/// hosts keep too).
fn hotspot_pairs(n: usize, hot: usize, share: f64, rng: &mut SimRng) -> Vec<(usize, usize)> {
    let partner = derangement(n, rng);
    let hot_hosts: Vec<usize> = shuffled(n, rng).into_iter().take(hot).collect();
    (0..n)
        .map(|i| {
            if !hot_hosts.contains(&i) && rng.bernoulli(share) {
                (i, hot_hosts[rng.below(hot as u64) as usize])
            } else {
                (i, partner[i])
            }
        })
        .collect()
}

/// Read a flow list: header `src,dst,start_s,size_bytes`, empty size for bulk flows.
fn read_csv(
    file: &str,
    base: Option<&Path>,
    path: &str,
    names: &Names,
    p: &mut Problems,
) -> Vec<(HostId, HostId, SimTime, Option<u64>)> {
    let full = match base {
        Some(b) if Path::new(file).is_relative() => b.join(file),
        _ => Path::new(file).to_path_buf(),
    };
    let text = match std::fs::read_to_string(&full) {
        Ok(t) => t,
        Err(e) => {
            p.at(format!("{path}.file"), format!("cannot read \"{}\": {e}", full.display()));
            return Vec::new();
        }
    };
    let mut lines = text.lines().enumerate().filter(|(_, l)| !l.trim().is_empty());
    let header: Vec<&str> = lines.next().map_or(vec![], |(_, l)| l.split(',').map(str::trim).collect());
    if header != ["src", "dst", "start_s", "size_bytes"] {
        p.at(
            format!("{path}.file"),
            format!("{}: the header must be src,dst,start_s,size_bytes", full.display()),
        );
        return Vec::new();
    }
    let mut out = Vec::new();
    for (i, line) in lines {
        let at = format!("{path}.file");
        let cols: Vec<&str> = line.split(',').map(str::trim).collect();
        let loc = format!("{} line {}", full.display(), i + 1);
        if cols.len() != 4 {
            p.at(&at, format!("{loc}: expected 4 columns, found {}", cols.len()));
            continue;
        }
        let mut sub = Problems(Vec::new());
        let (s, d) = (names.host(cols[0], "", &mut sub), names.host(cols[1], "", &mut sub));
        for e in sub.0 {
            p.at(&at, format!("{loc}: {}", e.message));
        }
        let max_s = crate::units::MAX_SCENARIO_TIME.as_secs_f64();
        let start = cols[2].parse::<f64>().ok().filter(|x| *x >= 0.0 && *x <= max_s);
        if start.is_none() {
            p.at(&at, format!("{loc}: start_s \"{}\" is not a time in seconds from 0 to {max_s}", cols[2]));
        }
        let size = if cols[3].is_empty() {
            Some(None)
        } else {
            cols[3].parse::<u64>().ok().filter(|&x| x > 0).map(Some)
        };
        if size.is_none() {
            p.at(&at, format!("{loc}: size_bytes \"{}\" is not a positive number of bytes", cols[3]));
        }
        if let (Some(s), Some(d), Some(t), Some(sz)) = (s, d, start, size)
            && names.reachable(s, d, &format!("{at} ({loc})"), p)
        {
            out.push((s, d, SimTime((t * 1e12).round() as u64), sz));
        }
    }
    out
}

pub(super) fn build(sc: &Scenario) -> Result<SimSpec, Vec<ScenarioError>> {
    let mut p = Problems(Vec::new());
    let Some(mut topo) = build_topology(&sc.file.topology, &mut p) else { return Err(p.0) };
    set_forwarding(&sc.file.forwarding, &mut topo.spec, &mut p);
    let names = Names {
        index: TopologyIndex::new(&topo.spec),
        by_name: topo
            .spec
            .nodes
            .iter()
            .enumerate()
            .map(|(i, n)| (n.name.as_str(), NodeId(i as u32)))
            .collect(),
        host_names: topo.spec.hosts().map(|(_, n)| n.name.as_str()).collect(),
        pairs: topo.pairs.iter().map(|(a, b)| (a.as_str(), b.as_str())).collect(),
    };
    for (i, (a, b)) in names.pairs.iter().enumerate() {
        names.host(a, &format!("topology.pairs[{i}][0]"), &mut p);
        names.host(b, &format!("topology.pairs[{i}][1]"), &mut p);
    }

    let mut flows: Vec<FlowSpec> = Vec::new();
    let mut generators = Vec::new();
    let mut groups: Vec<String> = Vec::new();
    for (i, w) in sc.file.workloads.iter().enumerate() {
        let path = format!("workload[{i}]");
        let group = w.name().cloned().unwrap_or_else(|| format!("{}-{i}", w.kind()));
        if let Some(j) = groups.iter().position(|g| *g == group) {
            p.at(format!("{path}.name"), format!("\"{group}\" is already the name of workload[{j}]"));
        }
        groups.push(group);
        let g = i as u32;
        let tcp = sc.workload_transports[i].tcp_config();
        let mut rng = SimRng::new(sc.seed(), StreamId::Workload(g));
        let before = p.0.len();
        // (src, dst) pairs from src/dst lists, checked for reachability.
        let pairs_of =
            |src: &Option<HostList>, dst: &Option<HostList>, p: &mut Problems| -> Vec<(HostId, HostId)> {
                let s = names.hosts(src, &path, "src", 0, p);
                let d = names.hosts(dst, &path, "dst", 1, p);
                if s.is_empty() || d.is_empty() {
                    return Vec::new();
                }
                let pairs: Vec<(HostId, HostId)> = (0..s.len().max(d.len()))
                    .map(|k| (s[k % s.len()], d[k % d.len()]))
                    .filter(|&(a, b)| names.reachable(a, b, &path, p))
                    .collect();
                names.check_segments_fit(pairs.iter().copied(), &tcp, &path, p);
                pairs
            };
        match w {
            Workload::Bulk(_) | Workload::Fixed(_) => {
                // Bulk and fixed-size flows differ only in the size of their one write.
                let (n, src, dst, starts, jitter, size) = match w {
                    Workload::Bulk(b) => (b.flows, &b.src, &b.dst, &b.start, b.jitter.0, None),
                    Workload::Fixed(f) => (f.flows, &f.src, &f.dst, &f.start, f.jitter.0, Some(f.size.0)),
                    _ => unreachable!(),
                };
                if n.is_some_and(|n| !positive(n, &format!("{path}.flows"), &mut p)) {
                    continue;
                }
                let pairs = pairs_of(src, dst, &mut p);
                // A list of starts fixes the number of flows (and must agree with `flows`).
                let count = n.map(|n| n as usize).or(starts.count()).unwrap_or(pairs.len());
                check_starts(starts, count, &format!("{path}.start"), &mut p);
                let start = starts.0.clone();
                let stop = match w {
                    Workload::Bulk(b) => b.stop.map(|s| s.0),
                    _ => None,
                };
                let last = start.last(count);
                if let Some(s) = stop
                    && s <= last
                {
                    p.at(format!("{path}.stop"), format!("{s} is not after the (last) start ({last})"));
                }
                if p.0.len() == before {
                    let spec =
                        StaticFlows { flows: count as u32, pairs, start, jitter, size, tcp, group: g, stop };
                    flows.extend(expand_static(&spec, &mut rng));
                }
            }
            Workload::OnOff(o) => {
                let pairs = pairs_of(&o.src, &o.dst, &mut p);
                if o.clients.is_some_and(|n| !positive(n, &format!("{path}.clients"), &mut p))
                    || pairs.is_empty()
                {
                    continue;
                }
                check_stop(o.start.0, o.stop.map(|s| s.0), &path, &mut p);
                let n = o.clients.map_or(pairs.len(), |n| n as usize);
                let clients = (0..n).map(|k| pairs[k % pairs.len()]).collect();
                generators.push((
                    g,
                    Generator::OnOff(OnOff::new(
                        clients,
                        o.size.dist.clone(),
                        o.off.dist.clone(),
                        o.start.0,
                        o.stop.map(|s| s.0),
                        tcp,
                        g,
                    )),
                ));
            }
            Workload::Incast(ic) => {
                let senders = names.hosts(&ic.senders, &path, "senders", 0, &mut p);
                let receiver = match &ic.receiver {
                    Some(r) => names.host(r, &format!("{path}.receiver"), &mut p),
                    None => names
                        .pairs
                        .first()
                        .and_then(|pr| names.host(pr.1, &format!("{path}.receiver"), &mut p)),
                };
                positive(ic.rounds, &format!("{path}.rounds"), &mut p);
                if let Some(c) = ic.connections {
                    positive(c, &format!("{path}.connections"), &mut p);
                }
                let Some(receiver) = receiver else { continue };
                let hosts: Vec<HostId> = senders.into_iter().filter(|&s| s != receiver).collect();
                // Connections dealt to the senders in turn: opening times given as a sequence
                // alternate between hosts.
                let senders: Vec<HostId> = match ic.connections {
                    Some(c) if !hosts.is_empty() => (0..c as usize).map(|i| hosts[i % hosts.len()]).collect(),
                    _ => hosts.clone(),
                };
                let reached: Vec<HostId> =
                    hosts.iter().copied().filter(|&s| names.reachable(s, receiver, &path, &mut p)).collect();
                names.check_segments_fit(reached.iter().map(|&s| (s, receiver)), &tcp, &path, &mut p);
                if senders.is_empty() {
                    p.at(format!("{path}.senders"), "no sender other than the receiver");
                }
                let connect = match ic.connect {
                    ConnectMode::First => Connect::First,
                    ConnectMode::Burst => Connect::WithBurst,
                };
                if ic.open != Starts::zero() && connect != Connect::First {
                    p.at(format!("{path}.open"), "connections open with each block when connect = \"burst\"");
                }
                check_starts(&ic.open, senders.len(), &format!("{path}.open"), &mut p);
                generators.push((
                    g,
                    Generator::Incast(
                        Incast::new(
                            senders, receiver, ic.block.0, ic.rounds, ic.start.0, ic.gap.0, connect, tcp, g,
                        )
                        .with_jitter(ic.jitter.0)
                        .with_opens(ic.open.0.clone()),
                    ),
                ));
            }
            Workload::Permutation(pm) => {
                let hosts = match &pm.hosts {
                    Some(_) => names.hosts(&pm.hosts, &path, "hosts", 0, &mut p),
                    None => names.all_hosts(),
                };
                let n = hosts.len();
                if n < 2 {
                    p.at(format!("{path}.hosts"), "a permutation needs at least 2 hosts");
                    continue;
                }
                let pairs: Vec<(HostId, HostId)> = match pm.pattern {
                    PermutationPattern::Random => derangement(n, &mut rng)
                        .iter()
                        .enumerate()
                        .map(|(i, &j)| (hosts[i], hosts[j]))
                        .collect(),
                    PermutationPattern::Pairs => {
                        if n % 2 == 1 {
                            p.at(
                                format!("{path}.hosts"),
                                format!("pattern = \"pairs\" pairs hosts off: {n} hosts would leave one out"),
                            );
                            continue;
                        }
                        shuffled(n, &mut rng).chunks_exact(2).map(|c| (hosts[c[0]], hosts[c[1]])).collect()
                    }
                    PermutationPattern::Stride => {
                        let s = pm.stride.unwrap_or(1) as usize;
                        if s.is_multiple_of(n) {
                            p.at(
                                format!("{path}.stride"),
                                format!("{s} maps every host onto itself ({n} hosts)"),
                            );
                            continue;
                        }
                        (0..n).map(|i| (hosts[i], hosts[(i + s) % n])).collect()
                    }
                    PermutationPattern::Hotspot => {
                        let hot = pm.hotspots.unwrap_or(DEFAULT_HOTSPOTS) as usize;
                        let share = pm.hot_share.unwrap_or(DEFAULT_HOT_SHARE);
                        if hot == 0 || hot >= n {
                            p.at(
                                format!("{path}.hotspots"),
                                format!("must be between 1 and {} ({n} hosts)", n - 1),
                            );
                            continue;
                        }
                        if !(0.0..=1.0).contains(&share) {
                            p.at(format!("{path}.hot_share"), "must be between 0 and 1");
                            continue;
                        }
                        hotspot_pairs(n, hot, share, &mut rng)
                            .into_iter()
                            .map(|(i, j)| (hosts[i], hosts[j]))
                            .collect()
                    }
                };
                let only = |set: bool, key: &str, pattern, name: &str, p: &mut Problems| {
                    if set && pm.pattern != pattern {
                        p.at(format!("{path}.{key}"), format!("only applies to pattern = \"{name}\""));
                    }
                };
                use PermutationPattern::{Hotspot, Stride};
                only(pm.stride.is_some(), "stride", Stride, "stride", &mut p);
                only(pm.hotspots.is_some(), "hotspots", Hotspot, "hotspot", &mut p);
                only(pm.hot_share.is_some(), "hot_share", Hotspot, "hotspot", &mut p);
                for &(a, b) in &pairs {
                    names.reachable(a, b, &path, &mut p);
                }
                names.check_segments_fit(pairs.iter().copied(), &tcp, &path, &mut p);
                let spec = StaticFlows {
                    flows: pairs.len() as u32,
                    pairs,
                    start: crate::workload::Starts::At(pm.start.0),
                    jitter: pm.jitter.0,
                    size: pm.size.map(|s| s.0),
                    tcp,
                    group: g,
                    stop: None,
                };
                flows.extend(expand_static(&spec, &mut rng));
            }
            Workload::Web(wb) => {
                let clients = names.hosts(&Some(wb.clients.clone()), &path, "clients", 0, &mut p);
                let servers = names.hosts(&Some(wb.servers.clone()), &path, "servers", 0, &mut p);
                positive(wb.parallel, &format!("{path}.parallel"), &mut p);
                let pairs: Vec<(HostId, HostId)> = servers
                    .iter()
                    .flat_map(|&s| clients.iter().map(move |&c| (s, c)))
                    .filter(|&(s, c)| names.reachable(s, c, &path, &mut p))
                    .collect();
                names.check_segments_fit(pairs, &tcp, &path, &mut p);
                if p.0.len() == before {
                    generators.push((
                        g,
                        Generator::Web(Web::new(
                            clients,
                            servers,
                            wb.objects.dist.clone(),
                            wb.size.dist.clone(),
                            wb.think.dist.clone(),
                            wb.parallel,
                            wb.start.0,
                            wb.jitter.0,
                            tcp,
                            g,
                        )),
                    ));
                }
            }
            Workload::Csv(c) => {
                let rows = read_csv(&c.file, sc.base_dir.as_deref(), &path, &names, &mut p);
                names.check_segments_fit(rows.iter().map(|r| (r.0, r.1)), &tcp, &path, &mut p);
                for (s, d, start, size) in rows {
                    flows.push(FlowSpec::new(s, d, start, size, tcp, g));
                }
            }
            Workload::Cbr(c) => {
                let s = names.host(&c.src, &format!("{path}.src"), &mut p);
                let d = names.host(&c.dst, &format!("{path}.dst"), &mut p);
                if c.packet_size.0 < 28 || c.packet_size.0 > 65_535 {
                    p.at(
                        format!("{path}.packet_size"),
                        format!("{} B is not a possible UDP datagram (28 to 65535 B)", c.packet_size.0),
                    );
                }
                check_stop(c.start.0, c.stop.map(|x| x.0), &path, &mut p);
                if let (Some(s), Some(d)) = (s, d)
                    && names.reachable(s, d, &path, &mut p)
                {
                    generators.push((
                        g,
                        Generator::Cbr(Cbr::new(
                            s,
                            d,
                            c.rate.0,
                            c.packet_size.0 as u32,
                            c.start.0,
                            c.stop.map(|x| x.0),
                            g,
                        )),
                    ));
                }
            }
        }
    }

    let mut link_changes = Vec::new();
    for (i, ev) in sc.file.link_events.iter().enumerate() {
        let path = format!("link_event[{i}]");
        let a = names.node(&ev.between[0], &format!("{path}.between[0]"), &mut p);
        let b = names.node(&ev.between[1], &format!("{path}.between[1]"), &mut p);
        if let (Some(a), Some(b)) = (a, b) {
            if names.index.port_between(a, b).is_none() {
                p.at(
                    format!("{path}.between"),
                    format!("there is no link between \"{}\" and \"{}\"", ev.between[0], ev.between[1]),
                );
            }
            link_changes.push(LinkChange { at: ev.at.0, a, b, up: ev.state == LinkState::Up });
        }
    }

    let out = &sc.file.output;
    if let Some(ids) = &out.timeseries_flows {
        for (k, &id) in ids.iter().enumerate() {
            if id as usize >= flows.len() {
                let known = match flows.len() {
                    0 => "no flow is known before the run".to_string(),
                    n => format!("flows known before the run are 0 to {}", n - 1),
                };
                p.at(
                    format!("output.timeseries_flows[{k}]"),
                    format!(
                        "there is no flow {id} ({known}; the flows a generated workload — incast, \
                         permutation, on-off, … — makes as it runs cannot be named: leave \
                         timeseries_flows out to sample every flow)"
                    ),
                );
            }
        }
        if out.timeseries.is_none() {
            p.at("output.timeseries_flows", "has no effect without output.timeseries");
        }
    }
    let links = |list: &[String], key: &str, p: &mut Problems| -> Vec<PortId> {
        list.iter().enumerate().filter_map(|(k, n)| names.link(n, &format!("output.{key}[{k}]"), p)).collect()
    };
    let queue_ports = match &out.queue_links {
        Some(l) => links(l, "queue_links", &mut p),
        None => names.index.switch_ports(),
    };
    if out.queue_links.is_some() && out.queues.is_none() {
        p.at("output.queue_links", "has no effect without output.queues");
    }
    let mut latency = Vec::new();
    for (k, l) in out.latency.iter().enumerate() {
        let path = format!("output.latency[{k}]");
        let from = names.node(&l.from, &format!("{path}.from"), &mut p);
        let to = names.node(&l.to, &format!("{path}.to"), &mut p);
        if let Some(f) = l.flow
            && f as usize >= flows.len()
        {
            p.at(format!("{path}.flow"), format!("there is no flow {f} known before the run"));
        }
        if let (Some(from), Some(to)) = (from, to) {
            if from == to {
                p.at(format!("{path}.to"), "is the same node as from");
            }
            latency.push(LatencyProbeSpec {
                from,
                to,
                flow: l.flow.map(ConnId),
                probability: l.probability.0,
                max_samples: l.max_samples,
                data_only: l.data_only,
            });
        }
    }
    if latency.len() > 250 {
        p.at("output.latency", "at most 250 probes");
    }
    let measure = MeasureSpec {
        queues: out.queues.map(|i| (i.0, queue_ports)),
        fairness_slice: out.fairness_slice.map(|s| s.0),
        latency,
        queue_delay: links(&out.queue_delay, "queue_delay", &mut p),
        flow_epochs: links(&out.flow_epochs, "flow_epochs", &mut p),
        pcap: links(&out.pcap, "pcap", &mut p),
        pcap_snaplen: out.pcap_snaplen.max(20),
        pcap_max_packets: out.pcap_max_packets as usize,
    };
    let output = OutputSpec {
        timeseries: out.timeseries.map(|d| d.0),
        timeseries_flows: out.timeseries_flows.clone(),
        measure,
    };
    let hosts = &sc.file.hosts;
    if hosts.dupack_filter_percentile.0 <= 0.0 {
        p.at("hosts.dupack_filter_percentile", "must be above 0");
    }
    let dupack_filter = hosts.dupack_filter.map(|kind| FilterParams {
        kind: match kind {
            DupAckFilterName::Ecn => FilterKind::Ecn,
            DupAckFilterName::Percentile => FilterKind::Percentile,
        },
        percentile: hosts.dupack_filter_percentile.0,
    });
    check_sp_without_ecn(sc, &mut p);
    check_sp_without_ka(sc, &mut p);
    for (key, length) in
        [("sp_max_length", Some(hosts.sp_max_length)), ("sp_fixed_length", hosts.sp_fixed_length)]
    {
        if let Some(n) = length.filter(|n| !(1..=crate::mechanisms::sp::wire::MAX_SP_LENGTH).contains(n)) {
            p.at(format!("hosts.{key}"), format!("{n} is not 1 to 63 (the 6-bit length field)"));
        }
    }
    let sp_attackers: Vec<(HostId, u32)> = hosts
        .sp_attackers
        .iter()
        .enumerate()
        .filter_map(|(i, n)| names.host(n, &format!("hosts.sp_attackers[{i}]"), &mut p))
        .map(|h| (h, hosts.sp_attack_length))
        .collect();
    if !(1..=crate::mechanisms::sp::wire::MAX_SP_LENGTH).contains(&hosts.sp_attack_length) {
        p.at(
            "hosts.sp_attack_length",
            format!("{} is not 1 to 63 (the 6-bit length field)", hosts.sp_attack_length),
        );
    }
    let sp_flows = sc.transport.sp || sc.workload_transports.iter().any(|t| t.sp);
    let sp_sender = sp_flows.then(|| SpSenderSpec {
        t_buffer: hosts.sp_buffer.map(|d| d.0),
        max_length: hosts.sp_max_length,
        fixed_length: hosts.sp_fixed_length,
    });
    if p.0.is_empty() {
        Ok(SimSpec {
            duration: sc.file.run.duration.0,
            seed: sc.seed(),
            topology: topo.spec,
            flows,
            generators,
            groups,
            link_changes,
            reassembly_timeout: hosts.reassembly_timeout.0,
            dupack_filter,
            sp_sender,
            sp_attackers,
            output,
        })
    } else {
        Err(p.0)
    }
}
