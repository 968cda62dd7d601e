//! A `[transport]` table into the TCP configuration its endpoints run, and its checks.

use crate::mechanisms::ka::{KaEndpoint, RateProtocol};
use crate::scenario::ScenarioError;
use crate::scenario::schema::{
    Cc, CubicCc, CubicModelName, CwndValidationName, DctcpCc, KickAssCc, MptcpPathsName, NewRenoCc,
    RecoveryName, RenoIncreaseName, RttModelName, SsthreshBaseName, Transport,
};
use crate::scenario::values::{ByteSize, DupThresh, Duration, PositiveDuration};
use crate::tcp::cc::{CcConfig, CubicModel, CubicParams, DctcpParams, HystartParams, RenoIncrease};
use crate::tcp::endpoint::ControllerRecipe;
use crate::tcp::{
    CwndValidation, DelayedAck, MptcpConfig, MptcpPaths, Recovery, RtoParams, RttModel, SsthreshBase,
    TcpConfig,
};
use crate::units::SimTime;

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
            nextseg_rule3: d.nextseg_rule3,
            partial_ack_resend: d.partial_ack_resend,
            head_resend_restarts_rto: d.head_resend_restarts_rto,
            sack_fin: d.sack_fin,
            dsack: d.dsack,
            rack: d.rack,
            tlp: d.tlp,
            loss_timer_slack: Duration(d.loss_timer_slack),
            tlp_delayed_ack_allowance: Duration(d.tlp_delayed_ack_allowance),
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
            frto: d.frto,
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
            cp: d.cut_reports,
            sp: d.groupable,
            mptcp: false,
            // The PLTS paper's MPTCP baseline, after Raiciu et al. (SIGCOMM 2011): 8 subflows.
            mptcp_subflows: 8,
            mptcp_coupled: true,
            mptcp_paths: MptcpPathsName::Hashed,
        }
    }
}

/// Subflows per MPTCP connection at most: a sanity bound (8 is the usual number).
pub(super) const MAX_MPTCP_SUBFLOWS: u32 = 64;

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
                Cc::KickAss(p) => CcConfig::Plugin(ControllerRecipe::new(KaEndpoint {
                    protocol: RateProtocol::KickAss,
                    indicator_interval: p.indicator_interval.0,
                })),
                Cc::Rcp => CcConfig::Plugin(ControllerRecipe::new(KaEndpoint::new(RateProtocol::Rcp))),
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
            nextseg_rule3: self.nextseg_rule3,
            partial_ack_resend: self.partial_ack_resend,
            head_resend_restarts_rto: self.head_resend_restarts_rto,
            sack_fin: self.sack_fin,
            dsack: self.dsack,
            rack: self.rack,
            tlp: self.tlp,
            loss_timer_slack: self.loss_timer_slack.0,
            tlp_delayed_ack_allowance: self.tlp_delayed_ack_allowance.0,
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
            frto: self.frto,
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
            cut_reports: self.cp,
            groupable: self.sp,
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
    pub(in crate::scenario) fn check(&self, path: &str, errs: &mut Vec<ScenarioError>) {
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
