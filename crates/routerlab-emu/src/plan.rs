//! What a scenario asks of an emulation: the hosts and the flows the real TCP stacks run, and
//! what the emulator cannot do for it — each said in a sentence, before anything is built.
//!
//! The network between the hosts is the scenario's own, whatever its queues, stages and
//! forwarding ([`crate::router`]); the hosts are Linux's, so what needs modified endpoints is
//! refused: a controller with an endpoint part (Kick-Ass's and RCP's senders), endpoints that
//! answer cut segments (CP's), host shims (the super-packet sender, the DUPACK agent), MPTCP.
//! Workloads: the flows known before the run (bulk and fixed-size, with start times), incasts
//! whose connections open before the rounds (`connect = "first"`), and on-off clients, whose
//! off times and sizes are drawn here from the workload's distributions and its own random
//! stream (the same distributions as the simulator's, drawn in client order rather than the
//! simulator's event order); web, CBR and incasts with a connection per block are not
//! emulated yet. Links run at most
//! [`MAX_RATE`]: one user-space loop keeps every link's schedule, and its wake-ups take tens of
//! microseconds, a 1500-byte packet's time at a few hundred Mbit/s.

use routerlab::rng::{SimRng, StreamId};
use routerlab::sim::SimSpec;
use routerlab::tcp::TcpConfig;
use routerlab::tcp::cc::CcConfig;
use routerlab::units::{Rate, SimTime};
use routerlab::workload::Generator;
use routerlab::workload::incast::Connect;

/// The fastest link the emulator takes (our choice, for a 2-core machine: 1 Gbit/s, 12 µs a
/// 1500-byte packet; each run reports how late it was, so what a faster machine sustains can
/// be read off there).
pub const MAX_RATE: Rate = Rate::from_gbps(1);

/// One TCP flow the hosts run.
#[derive(Clone, Debug, PartialEq)]
pub struct PlannedFlow {
    /// The workload it belongs to, by name.
    pub group: String,
    pub src: u32,
    pub dst: u32,
    pub start: SimTime,
    /// Bytes, or None for a bulk flow that sends until the run ends (or `stop`).
    pub size: Option<u64>,
    pub stop: Option<SimTime>,
    pub tcp: LinuxTcp,
}

/// How a connection's endpoints are set up on a real host.
#[derive(Clone, Debug, PartialEq)]
pub struct LinuxTcp {
    /// The Linux congestion control it maps to (`TCP_CONGESTION`).
    pub cc: &'static str,
    pub ecn: bool,
    pub sack: bool,
    pub mss: u32,
}

/// An incast: rounds in which every sender sends `block` bytes to the receiver on its own
/// persistent connection, each round after the last block of the one before (and `gap`).
#[derive(Clone, Debug, PartialEq)]
pub struct PlannedIncast {
    pub group: String,
    pub senders: Vec<u32>,
    pub receiver: u32,
    pub block: u64,
    pub rounds: u32,
    pub start: SimTime,
    pub gap: SimTime,
    pub jitter: SimTime,
    /// When each sender's connection opens.
    pub opens: Vec<SimTime>,
    pub tcp: LinuxTcp,
}

/// On-off clients: each waits an off time, sends one flow, and once it is delivered waits
/// again; `draws[c]` is client `c`'s sequence of (off time, size), as far as the run can reach.
#[derive(Clone, Debug, PartialEq)]
pub struct PlannedOnOff {
    pub group: String,
    pub clients: Vec<(u32, u32)>,
    pub start: SimTime,
    pub stop: Option<SimTime>,
    pub draws: Vec<Vec<(SimTime, u64)>>,
    pub tcp: LinuxTcp,
}

/// The most flows drawn for one on-off client (its off times bound how many the run can hold).
pub const MAX_ON_OFF_FLOWS: usize = 100_000;

/// The hosts' part of a scenario.
#[derive(Clone, Debug, PartialEq)]
pub struct Plan {
    pub hosts: u32,
    pub host_names: Vec<String>,
    pub duration: SimTime,
    pub flows: Vec<PlannedFlow>,
    pub incasts: Vec<PlannedIncast>,
    pub on_offs: Vec<PlannedOnOff>,
}

/// How `t` maps to Linux's TCP, or why it cannot (`what` names the connection).
fn linux_tcp(t: &TcpConfig, what: &str) -> Result<LinuxTcp, Vec<String>> {
    let mut why = Vec::new();
    let cc = match &t.cc {
        CcConfig::NewReno(_) => "reno",
        CcConfig::Cubic(_) => "cubic",
        CcConfig::Dctcp(_) => "dctcp",
        CcConfig::Plugin(_) => {
            why.push(format!(
                "{what}: its congestion control has an endpoint part (Kick-Ass's or RCP's sender), which Linux's \
                 TCP lacks"
            ));
            ""
        }
    };
    if t.cut_reports {
        why.push(format!("{what}: CP's endpoints (transport.cp) answer cut segments; Linux's do not"));
    }
    if t.mptcp.is_some() {
        why.push(format!("{what}: MPTCP is not emulated"));
    }
    if why.is_empty() {
        Ok(LinuxTcp { cc, ecn: t.ecn || t.cc.wants_ecn(), sack: t.sack, mss: t.mss })
    } else {
        Err(why)
    }
}

/// The plan for `spec`, or every reason it cannot be emulated.
pub fn plan(spec: &SimSpec, host_names: Vec<String>) -> Result<Plan, Vec<String>> {
    let mut why = Vec::new();
    if !spec.host_shims.is_empty() {
        why.push(
            "host shims (the super-packet sender or attacker, the DUPACK agent) run in the simulator's hosts, \
             not in Linux's"
                .to_string(),
        );
    }
    let mut incasts = Vec::new();
    let mut on_offs = Vec::new();
    for (w, g) in &spec.generators {
        let group = spec.groups.get(*w as usize).cloned().unwrap_or_default();
        match g {
            Generator::Incast(ic) if ic.connect == Connect::First => {
                match linux_tcp(&ic.tcp, &format!("workload {group}")) {
                    Ok(tcp) => incasts.push(PlannedIncast {
                        group,
                        senders: ic.senders.iter().map(|h| h.0).collect(),
                        receiver: ic.receiver.0,
                        block: ic.block,
                        rounds: ic.rounds,
                        start: ic.start,
                        gap: ic.gap,
                        jitter: ic.jitter,
                        opens: (0..ic.senders.len()).map(|i| ic.opens.at(i)).collect(),
                        tcp,
                    }),
                    Err(e) => why.extend(e),
                }
            }
            Generator::OnOff(g) => match linux_tcp(&g.tcp, &format!("workload {group}")) {
                Ok(tcp) => {
                    let mut rng = SimRng::new(spec.seed, StreamId::Workload(*w));
                    let end = g.stop.unwrap_or(spec.duration).min(spec.duration);
                    let draws = g
                        .clients
                        .iter()
                        .map(|_| {
                            let mut at = g.start;
                            let mut seq = Vec::new();
                            while at < end && seq.len() < MAX_ON_OFF_FLOWS {
                                let off = SimTime::from_secs_f64_bounded(g.off.sample(&mut rng));
                                let size = (g.size.sample(&mut rng).round() as u64).max(1);
                                at += off;
                                seq.push((off, size));
                            }
                            seq
                        })
                        .collect();
                    on_offs.push(PlannedOnOff {
                        group,
                        clients: g.clients.iter().map(|(s, d)| (s.0, d.0)).collect(),
                        start: g.start,
                        stop: g.stop,
                        draws,
                        tcp,
                    });
                }
                Err(e) => why.extend(e),
            },
            Generator::Incast(_) => why.push(format!(
                "workload {group}: an incast with a connection per block (connect = \"burst\") is not emulated \
                 yet; connect = \"first\" is"
            )),
            _ => why.push(format!(
                "workload {group}: web and CBR workloads are not emulated yet"
            )),
        }
    }
    let fastest = spec.topology.links.iter().flat_map(|l| [l.a_to_b.rate, l.b_to_a.rate]).max();
    if let Some(r) = fastest.filter(|&r| r > MAX_RATE) {
        why.push(format!(
            "a link runs at {} bit/s, above the {} bit/s the emulator takes (its user-space loop keeps \
             every link's schedule)",
            r.bps(),
            MAX_RATE.bps()
        ));
    }
    if !spec.link_changes.is_empty() {
        why.push("link events are not emulated yet".into());
    }
    let mut flows = Vec::new();
    for (i, f) in spec.flows.iter().enumerate() {
        match linux_tcp(&f.tcp, &format!("flow {i}")) {
            Ok(tcp) => flows.push(PlannedFlow {
                group: spec.groups.get(f.group as usize).cloned().unwrap_or_default(),
                src: f.src.0,
                dst: f.dst.0,
                start: f.start,
                size: f.size,
                stop: f.stop,
                tcp,
            }),
            Err(e) => why.extend(e),
        }
    }
    if why.is_empty() {
        Ok(Plan {
            hosts: host_names.len() as u32,
            host_names,
            duration: spec.duration,
            flows,
            incasts,
            on_offs,
        })
    } else {
        Err(why)
    }
}
