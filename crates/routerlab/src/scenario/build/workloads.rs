//! Workload tables expanded into flows known before the run and generators that open
//! flows as it runs.

use std::path::Path;

use crate::ids::HostId;
use crate::rng::SimRng;
use crate::units::SimTime;

use super::{Problems, check_starts, check_stop, names::Names, positive};
use crate::rng::StreamId;
use crate::scenario::Scenario;
use crate::scenario::schema::{
    Cbr as CbrWorkload, ConnectMode, Incast as IncastWorkload, OnOff as OnOffWorkload,
    Permutation as PermutationWorkload, PermutationPattern, Web as WebWorkload, Workload,
};
use crate::scenario::values::{HostList, Starts};
use crate::tcp::TcpConfig;
use crate::workload::cbr::Cbr;
use crate::workload::incast::{Connect, Incast};
use crate::workload::onoff::OnOff;
use crate::workload::web::Web;
use crate::workload::{FlowSpec, Generator, StaticFlows, expand_static};

/// Draw a random permutation without fixed points (a derangement), by rejection.
pub(super) fn derangement(n: usize, rng: &mut SimRng) -> Vec<usize> {
    loop {
        let v = shuffled(n, rng);
        if v.iter().enumerate().all(|(i, &x)| i != x) {
            return v;
        }
    }
}

/// 0..n in a uniformly random order (Fisher–Yates).
pub(super) fn shuffled(n: usize, rng: &mut SimRng) -> Vec<usize> {
    let mut v: Vec<usize> = (0..n).collect();
    for i in (1..n).rev() {
        v.swap(i, rng.below(i as u64 + 1) as usize);
    }
    v
}

/// Default number of hot hosts of a `hotspot` permutation.
pub(super) const DEFAULT_HOTSPOTS: u32 = 1;
/// Default probability that a sender of a `hotspot` permutation targets a hot host: half the
/// senders converge on the hot spots, the other half keep the fabric busy.
pub(super) const DEFAULT_HOT_SHARE: f64 = 0.5;

/// Many-to-few pairs: `hot` random hosts are hot; each other sender targets a uniformly chosen
/// hot host with probability `share`, else its partner in a random derangement (which the hot
/// hosts keep too).
pub(super) fn hotspot_pairs(n: usize, hot: usize, share: f64, rng: &mut SimRng) -> Vec<(usize, usize)> {
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
pub(super) fn read_csv(
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

/// What the workload tables expand into.
#[derive(Default)]
pub(super) struct Workloads {
    /// Flows known before the run.
    pub(super) flows: Vec<FlowSpec>,
    /// Generators that open flows as the run goes, with their workload's index.
    pub(super) generators: Vec<(u32, Generator)>,
    /// Each workload's name (its group), in order.
    pub(super) groups: Vec<String>,
}

/// One workload table as it is expanded: where it is, its TCP, its random stream.
struct Expanding<'a, 'n> {
    names: &'a Names<'n>,
    path: String,
    group: u32,
    tcp: TcpConfig,
    rng: SimRng,
}

/// Every workload table, expanded in order; each draws from its own random stream.
pub(super) fn workloads(sc: &Scenario, names: &Names, p: &mut Problems) -> Workloads {
    let mut out = Workloads::default();
    for (i, w) in sc.file.workloads.iter().enumerate() {
        let path = format!("workload[{i}]");
        let group = w.name().cloned().unwrap_or_else(|| format!("{}-{i}", w.kind()));
        if let Some(j) = out.groups.iter().position(|g| *g == group) {
            p.at(format!("{path}.name"), format!("\"{group}\" is already the name of workload[{j}]"));
        }
        out.groups.push(group);
        let g = i as u32;
        let mut x = Expanding {
            names,
            path,
            group: g,
            tcp: sc.workload_transports[i].tcp_config(),
            rng: SimRng::new(sc.seed(), StreamId::Workload(g)),
        };
        match w {
            Workload::Bulk(_) | Workload::Fixed(_) => static_flows(w, &mut x, &mut out, p),
            Workload::OnOff(o) => on_off(o, &mut x, &mut out, p),
            Workload::Incast(ic) => incast(ic, &mut x, &mut out, p),
            Workload::Permutation(pm) => permutation(pm, &mut x, &mut out, p),
            Workload::Web(wb) => web(wb, &mut x, &mut out, p),
            Workload::Csv(c) => {
                let rows = read_csv(&c.file, sc.base_dir.as_deref(), &x.path, names, p);
                names.check_segments_fit(rows.iter().map(|r| (r.0, r.1)), &x.tcp, &x.path, p);
                for (s, d, start, size) in rows {
                    out.flows.push(FlowSpec::new(s, d, start, size, x.tcp.clone(), g));
                }
            }
            Workload::Cbr(c) => cbr(c, &x, &mut out, p),
        }
    }
    out
}

/// (src, dst) pairs from a workload's src/dst lists, cycling the shorter, checked for
/// reachability and for segments that fit every link on the way.
fn pairs_of(
    src: &Option<HostList>,
    dst: &Option<HostList>,
    x: &Expanding,
    p: &mut Problems,
) -> Vec<(HostId, HostId)> {
    let s = x.names.hosts(src, &x.path, "src", 0, p);
    let d = x.names.hosts(dst, &x.path, "dst", 1, p);
    if s.is_empty() || d.is_empty() {
        return Vec::new();
    }
    let pairs: Vec<(HostId, HostId)> = (0..s.len().max(d.len()))
        .map(|k| (s[k % s.len()], d[k % d.len()]))
        .filter(|&(a, b)| x.names.reachable(a, b, &x.path, p))
        .collect();
    x.names.check_segments_fit(pairs.iter().copied(), &x.tcp, &x.path, p);
    pairs
}

/// Bulk and fixed-size flows: they differ only in the size of their one write.
fn static_flows(w: &Workload, x: &mut Expanding, out: &mut Workloads, p: &mut Problems) {
    let before = p.0.len();
    let path = &x.path;
    let (n, src, dst, starts, jitter, size) = match w {
        Workload::Bulk(b) => (b.flows, &b.src, &b.dst, &b.start, b.jitter.0, None),
        Workload::Fixed(f) => (f.flows, &f.src, &f.dst, &f.start, f.jitter.0, Some(f.size.0)),
        _ => unreachable!(),
    };
    if n.is_some_and(|n| !positive(n, &format!("{path}.flows"), p)) {
        return;
    }
    let pairs = pairs_of(src, dst, x, p);
    // A list of starts fixes the number of flows (and must agree with `flows`).
    let count = n.map(|n| n as usize).or(starts.count()).unwrap_or(pairs.len());
    check_starts(starts, count, &format!("{path}.start"), p);
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
        let spec = StaticFlows {
            flows: count as u32,
            pairs,
            start,
            jitter,
            size,
            tcp: x.tcp.clone(),
            group: x.group,
            stop,
        };
        out.flows.extend(expand_static(&spec, &mut x.rng));
    }
}

fn on_off(o: &OnOffWorkload, x: &mut Expanding, out: &mut Workloads, p: &mut Problems) {
    let pairs = pairs_of(&o.src, &o.dst, x, p);
    if o.clients.is_some_and(|n| !positive(n, &format!("{}.clients", x.path), p)) || pairs.is_empty() {
        return;
    }
    check_stop(o.start.0, o.stop.map(|s| s.0), &x.path, p);
    let n = o.clients.map_or(pairs.len(), |n| n as usize);
    let clients = (0..n).map(|k| pairs[k % pairs.len()]).collect();
    out.generators.push((
        x.group,
        Generator::OnOff(OnOff::new(
            clients,
            o.size.dist.clone(),
            o.off.dist.clone(),
            o.start.0,
            o.stop.map(|s| s.0),
            x.tcp.clone(),
            x.group,
        )),
    ));
}

fn incast(ic: &IncastWorkload, x: &mut Expanding, out: &mut Workloads, p: &mut Problems) {
    let (names, path) = (x.names, &x.path);
    let senders = names.hosts(&ic.senders, path, "senders", 0, p);
    let receiver = match &ic.receiver {
        Some(r) => names.host(r, &format!("{path}.receiver"), p),
        None => names.pairs.first().and_then(|pr| names.host(pr.1, &format!("{path}.receiver"), p)),
    };
    positive(ic.rounds, &format!("{path}.rounds"), p);
    if let Some(c) = ic.connections {
        positive(c, &format!("{path}.connections"), p);
    }
    let Some(receiver) = receiver else { return };
    let hosts: Vec<HostId> = senders.into_iter().filter(|&s| s != receiver).collect();
    // Connections dealt to the senders in turn: opening times given as a sequence
    // alternate between hosts.
    let senders: Vec<HostId> = match ic.connections {
        Some(c) if !hosts.is_empty() => (0..c as usize).map(|i| hosts[i % hosts.len()]).collect(),
        _ => hosts.clone(),
    };
    let reached: Vec<HostId> =
        hosts.iter().copied().filter(|&s| names.reachable(s, receiver, path, p)).collect();
    names.check_segments_fit(reached.iter().map(|&s| (s, receiver)), &x.tcp, path, p);
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
    check_starts(&ic.open, senders.len(), &format!("{path}.open"), p);
    out.generators.push((
        x.group,
        Generator::Incast(
            Incast::new(
                senders,
                receiver,
                ic.block.0,
                ic.rounds,
                ic.start.0,
                ic.gap.0,
                connect,
                x.tcp.clone(),
                x.group,
            )
            .with_jitter(ic.jitter.0)
            .with_opens(ic.open.0.clone()),
        ),
    ));
}

fn permutation(pm: &PermutationWorkload, x: &mut Expanding, out: &mut Workloads, p: &mut Problems) {
    let (names, path) = (x.names, &x.path);
    let hosts = match &pm.hosts {
        Some(_) => names.hosts(&pm.hosts, path, "hosts", 0, p),
        None => names.all_hosts(),
    };
    let n = hosts.len();
    if n < 2 {
        p.at(format!("{path}.hosts"), "a permutation needs at least 2 hosts");
        return;
    }
    let Some(pairs) = permutation_pairs(pm, n, x, p) else { return };
    let path = &x.path;
    let pairs: Vec<(HostId, HostId)> = pairs.into_iter().map(|(i, j)| (hosts[i], hosts[j])).collect();
    let only = |set: bool, key: &str, pattern, name: &str, p: &mut Problems| {
        if set && pm.pattern != pattern {
            p.at(format!("{path}.{key}"), format!("only applies to pattern = \"{name}\""));
        }
    };
    use PermutationPattern::{Hotspot, Stride};
    only(pm.stride.is_some(), "stride", Stride, "stride", p);
    only(pm.hotspots.is_some(), "hotspots", Hotspot, "hotspot", p);
    only(pm.hot_share.is_some(), "hot_share", Hotspot, "hotspot", p);
    for &(a, b) in &pairs {
        names.reachable(a, b, path, p);
    }
    names.check_segments_fit(pairs.iter().copied(), &x.tcp, path, p);
    let spec = StaticFlows {
        flows: pairs.len() as u32,
        pairs,
        start: crate::workload::Starts::At(pm.start.0),
        jitter: pm.jitter.0,
        size: pm.size.map(|s| s.0),
        tcp: x.tcp.clone(),
        group: x.group,
        stop: None,
    };
    out.flows.extend(expand_static(&spec, &mut x.rng));
}

/// A permutation's (sender, receiver) pairs as indices into its `n` hosts, drawn from the
/// workload's stream; None (and a problem) when its pattern cannot apply.
fn permutation_pairs(
    pm: &PermutationWorkload,
    n: usize,
    x: &mut Expanding,
    p: &mut Problems,
) -> Option<Vec<(usize, usize)>> {
    let path = &x.path;
    Some(match pm.pattern {
        PermutationPattern::Random => derangement(n, &mut x.rng).into_iter().enumerate().collect(),
        PermutationPattern::Pairs => {
            if n % 2 == 1 {
                p.at(
                    format!("{path}.hosts"),
                    format!("pattern = \"pairs\" pairs hosts off: {n} hosts would leave one out"),
                );
                return None;
            }
            shuffled(n, &mut x.rng).chunks_exact(2).map(|c| (c[0], c[1])).collect()
        }
        PermutationPattern::Stride => {
            let s = pm.stride.unwrap_or(1) as usize;
            if s.is_multiple_of(n) {
                p.at(format!("{path}.stride"), format!("{s} maps every host onto itself ({n} hosts)"));
                return None;
            }
            (0..n).map(|i| (i, (i + s) % n)).collect()
        }
        PermutationPattern::Hotspot => {
            let hot = pm.hotspots.unwrap_or(DEFAULT_HOTSPOTS) as usize;
            let share = pm.hot_share.unwrap_or(DEFAULT_HOT_SHARE);
            if hot == 0 || hot >= n {
                p.at(format!("{path}.hotspots"), format!("must be between 1 and {} ({n} hosts)", n - 1));
                return None;
            }
            if !(0.0..=1.0).contains(&share) {
                p.at(format!("{path}.hot_share"), "must be between 0 and 1");
                return None;
            }
            hotspot_pairs(n, hot, share, &mut x.rng)
        }
    })
}

fn web(wb: &WebWorkload, x: &mut Expanding, out: &mut Workloads, p: &mut Problems) {
    let before = p.0.len();
    let (names, path) = (x.names, &x.path);
    let clients = names.hosts(&Some(wb.clients.clone()), path, "clients", 0, p);
    let servers = names.hosts(&Some(wb.servers.clone()), path, "servers", 0, p);
    positive(wb.parallel, &format!("{path}.parallel"), p);
    let pairs: Vec<(HostId, HostId)> = servers
        .iter()
        .flat_map(|&s| clients.iter().map(move |&c| (s, c)))
        .filter(|&(s, c)| names.reachable(s, c, path, p))
        .collect();
    names.check_segments_fit(pairs, &x.tcp, path, p);
    if p.0.len() == before {
        out.generators.push((
            x.group,
            Generator::Web(Web::new(
                clients,
                servers,
                wb.objects.dist.clone(),
                wb.size.dist.clone(),
                wb.think.dist.clone(),
                wb.parallel,
                wb.start.0,
                wb.jitter.0,
                x.tcp.clone(),
                x.group,
            )),
        ));
    }
}

fn cbr(c: &CbrWorkload, x: &Expanding, out: &mut Workloads, p: &mut Problems) {
    let (names, path) = (x.names, &x.path);
    let s = names.host(&c.src, &format!("{path}.src"), p);
    let d = names.host(&c.dst, &format!("{path}.dst"), p);
    if c.packet_size.0 < 28 || c.packet_size.0 > 65_535 {
        p.at(
            format!("{path}.packet_size"),
            format!("{} B is not a possible UDP datagram (28 to 65535 B)", c.packet_size.0),
        );
    }
    check_stop(c.start.0, c.stop.map(|x| x.0), path, p);
    if let (Some(s), Some(d)) = (s, d)
        && names.reachable(s, d, path, p)
    {
        out.generators.push((
            x.group,
            Generator::Cbr(Cbr::new(
                s,
                d,
                c.rate.0,
                c.packet_size.0 as u32,
                c.start.0,
                c.stop.map(|x| x.0),
                x.group,
            )),
        ));
    }
}
