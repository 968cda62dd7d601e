//! A link's table into what its ports run: queue discipline, MTU, and the stages of
//! super-packets, Kick-Ass and RCP, each checked.

use crate::builtins::{QueueSpec, StageSpec};
use crate::mechanisms::cp::CpParams;
use crate::mechanisms::ka::encoding::Rounding;
use crate::mechanisms::ka::{KaParams, RcpParams};
use crate::mechanisms::sp::{SpEpoch, SpOccupancy, SpParams, SpVariant};
use crate::mechanisms::taq::admission::{AdmissionParams, NotAdmitted};
use crate::mechanisms::taq::{OneWayEpoch, TaqDrop, TaqParams};
use crate::net::DirSpec;
use crate::net::stage::StageRecipe;
use crate::qdisc::{CodelParams, DropTailParams, FqCodelParams, RedParams, SfqParams};
use crate::scenario::schema::{
    KaRoundingName, KaStage, Link, NotAdmittedName, OneWayEpochName, Queue, RcpStage, SpOccupancyName,
    SpStage, SpVariantName, TaqDropName,
};
use crate::scenario::values::Threshold;
use crate::units::{Rate, Size};

use super::{DEFAULT_MTU, DEFAULT_QUEUE, Problems, amount, same_unit};

pub(super) fn queue_spec(q: &Queue, path: &str, p: &mut Problems) -> QueueSpec {
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
                check_unit_interval(x, "a probability ", format!("{path}.max_p"), p);
                red.max_p = x;
            }
            if let Some(x) = r.w_q {
                check_unit_interval(x, "a weight ", format!("{path}.w_q"), p);
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
            if !matches!(data, QueueSpec::DropTail(_) | QueueSpec::Red(_) | QueueSpec::Taq(_)) {
                p.at(
                    format!("{data_path}.kind"),
                    format!("CP cuts at a drop-tail, RED or TAQ queue, not at {}", data.kind()),
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
                    check_unit_interval(x, "a share ", format!("{path}.{key}"), p);
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
                        check_unit_interval(x, "", format!("{path}.admission.{key}"), p);
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

/// A probability, weight or share must lie in (0, 1]: `what` names it in the message
/// ("a share "), or is empty.
fn check_unit_interval(x: f64, what: &str, at: String, p: &mut Problems) {
    if !(x > 0.0 && x <= 1.0) {
        p.at(at, format!("{x} is not {what}in (0, 1]"));
    }
}

pub(super) fn check_mtu(mtu: u32, path: &str, p: &mut Problems) {
    if !(68..=65_535).contains(&mtu) {
        p.at(format!("{path}.mtu"), format!("{mtu} is not a possible MTU (expected 68 to 65535 bytes)"));
    }
}

pub(super) fn dir(link: &Link, path: &str, p: &mut Problems) -> DirSpec {
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
        stages: stage.into_iter().map(StageRecipe::new).collect(),
    }
}

/// The SPManager's parameters from a link's `sp` table.
pub(super) fn sp_params(s: &SpStage, queue: &QueueSpec, path: &str, p: &mut Problems) -> SpParams {
    // CP around a FIFO is a FIFO to the SPManager (our combination, docs/matrix.md): it admits
    // against the packets waiting, and CP cuts what it refuses (`Qdisc::take_refused`).
    let fifo = |q: &QueueSpec| matches!(q, QueueSpec::DropTail(_) | QueueSpec::Red(_));
    if !(fifo(queue) || matches!(queue, QueueSpec::Cp(data, _) if fifo(data))) {
        p.at(
            path,
            format!(
                "the SPManager admits against a FIFO's free room (Click's Queue): the link's queue must be \
                 droptail or red (or cp around one), not {}",
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
pub(super) const MAX_SIGNAL_SPACING: f64 = 10.0;
/// Slots in its spacing table at most (24 bytes each: 24 MiB).
pub(super) const MAX_SIGNAL_SLOTS: usize = 1 << 20;

/// Kick-Ass's router parameters from a link's `ka` table.
pub(super) fn ka_params(k: &KaStage, path: &str, p: &mut Problems) -> KaParams {
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
pub(super) fn check_min_rate(rcp: &RcpParams, link_rate: Rate, path: &str, p: &mut Problems) {
    if rcp.min_rate > link_rate {
        p.at(format!("{path}.min_rate"), format!("{} is above the link's rate, {link_rate}", rcp.min_rate));
    }
}

/// RCP's parameters from an `rcp` table (a link's, or a `ka` table's).
pub(super) fn rcp_params(r: &RcpStage, path: &str, p: &mut Problems) -> RcpParams {
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
        check_unit_interval(x, "", format!("{path}.{key}"), p);
    }
    if rcp.min_rate.bps() == 0 {
        p.at(format!("{path}.min_rate"), "must be positive");
    }
    rcp
}
