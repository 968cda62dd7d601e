//! The work a scenario implies — the memory a run holds, the bytes it writes — estimated from
//! the parsed file before anything is built, so that an absurd scenario (five million pairs, a
//! picosecond sampling interval, an unbounded capture) is refused at once with the field that
//! makes it so, instead of exhausting the machine.
//!
//! The estimate counts what grows with the scenario: ports and routing tables from the
//! topology, connections from the workloads, rows of the sampled tables, captured packets. The
//! costs per item below were measured on whole runs (peak RSS through the Python API, results
//! included) and rounded up; the estimate is meant to be within a small factor, erring high.
//! What a run's dynamics decide (packets queued, transfers completed) is not counted.
//!
//! Limits come from the environment — `ROUTERLAB_MAX_MEMORY` and `ROUTERLAB_MAX_OUTPUT`, sizes
//! like `"64GB"`, set by the CLI's `--max-memory`/`--max-output` — and default to half of this
//! machine's memory.

use super::schema::{ConnectMode, Incast, Topology, Workload};
use super::{Scenario, ScenarioError};
use crate::units::{self, SimTime};

/// Python, the extension and an empty run: the floor under every estimate.
const BASE_BYTES: u64 = 100 << 20;
/// Per port (two per link), with its node's share: measured 1.5 KB on a 100,000-pair dumbbell.
const PORT_BYTES: u64 = 2048;
/// Per routing-table entry (a switch × a host; see `net::routing`).
const ROUTE_BYTES: u64 = 12;
/// Per connection (socket, flow record, result rows): measured 3.0 KB with a million flows.
const FLOW_BYTES: u64 = 4096;
/// Per row of `flows` or `links` written (Parquet and CSV).
const RESULT_ROW_BYTES: u64 = 256;
/// Per row of `timeseries` in memory (measured 330 B) and on disk (Parquet, compressed).
const TIMESERIES_ROW_BYTES: (u64, u64) = (400, 64);
/// Per row of `queues` (measured 140 B) and on disk.
const QUEUE_ROW_BYTES: (u64, u64) = (160, 32);
/// Per row of `fairness` and of a latency probe's samples.
const SMALL_ROW_BYTES: (u64, u64) = (64, 16);
/// Per captured packet besides its snapped bytes: the record header, and the packet kept in
/// memory until the capture is written.
const PCAP_RECORD_BYTES: (u64, u64) = (160, 16);
/// Smallest packet a link carries (IPv4 and TCP headers): bounds the packets a link can send.
const MIN_PACKET_BYTES: u64 = 40;
/// The limit where the machine's memory cannot be read.
const FALLBACK_LIMIT: u64 = 8 << 30;

/// How much a scenario may take.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Limits {
    pub memory: u64,
    pub output: u64,
}

impl Limits {
    /// From `ROUTERLAB_MAX_MEMORY` and `ROUTERLAB_MAX_OUTPUT`, else half this machine's memory.
    pub fn from_env() -> Result<Limits, ScenarioError> {
        let default = machine_memory().map_or(FALLBACK_LIMIT, |m| m / 2);
        let read = |var: &str| match std::env::var(var) {
            Err(_) => Ok(default),
            Ok(v) => units::parse_bytes(&v).filter(|&b| b > 0).ok_or_else(|| {
                ScenarioError::at("", format!("{var}={v:?} is not a size in bytes (e.g. \"64GB\")"))
            }),
        };
        Ok(Limits { memory: read("ROUTERLAB_MAX_MEMORY")?, output: read("ROUTERLAB_MAX_OUTPUT")? })
    }
}

/// Total memory, from /proc/meminfo (Linux).
fn machine_memory() -> Option<u64> {
    let info = std::fs::read_to_string("/proc/meminfo").ok()?;
    let line = info.lines().find(|l| l.starts_with("MemTotal:"))?;
    let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kib * 1024)
}

/// One thing a scenario asks for, and what it costs.
#[derive(Clone, Debug, PartialEq)]
pub struct Item {
    /// The field that asks for it.
    pub path: String,
    /// What it is, for a message: "100000 ports".
    pub what: String,
    pub memory: u64,
    pub output: u64,
}

/// The estimate: its items, largest first.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Estimate {
    pub items: Vec<Item>,
}

impl Estimate {
    pub fn memory(&self) -> u64 {
        BASE_BYTES.saturating_add(self.items.iter().fold(0u64, |a, i| a.saturating_add(i.memory)))
    }

    pub fn output(&self) -> u64 {
        self.items.iter().fold(0u64, |a, i| a.saturating_add(i.output))
    }

    fn add(&mut self, path: impl Into<String>, what: String, memory: u64, output: u64) {
        self.items.push(Item { path: path.into(), what, memory, output });
    }

    /// `count` things ("timeseries rows") costing `(memory, output)` bytes each.
    fn add_each(&mut self, path: impl Into<String>, count: u64, what: &str, (memory, output): (u64, u64)) {
        self.add(path, format!("{count} {what}"), count.saturating_mul(memory), count.saturating_mul(output));
    }

    /// The problems of a scenario over `limits`: each at the field that costs the most.
    pub fn check(&self, limits: &Limits) -> Vec<ScenarioError> {
        let memory =
            self.over(self.memory(), limits.memory, |i| i.memory, "needs about", "of memory", "memory");
        let output = self.over(
            self.output(),
            limits.output,
            |i| i.output,
            "would write about",
            "of results",
            "output",
        );
        memory.into_iter().chain(output).collect()
    }

    /// The problem of a `total` over `limit`, at the item costing the most by `cost`.
    fn over(
        &self,
        total: u64,
        limit: u64,
        cost: fn(&Item) -> u64,
        verb: &str,
        what: &str,
        flag: &str,
    ) -> Option<ScenarioError> {
        if total <= limit {
            return None;
        }
        let mut items: Vec<&Item> = self.items.iter().filter(|i| cost(i) > 0).collect();
        items.sort_by_key(|i| std::cmp::Reverse(cost(i)));
        let parts: Vec<String> =
            items.iter().take(3).map(|i| format!("{}: {}", i.what, bytes(cost(i)))).collect();
        Some(ScenarioError::at(
            items.first().map_or("", |i| i.path.as_str()),
            format!(
                "this scenario {verb} {} {what} ({}), over the limit of {} (half this machine's memory \
                 unless set; raise it with --max-{flag} or ROUTERLAB_MAX_{})",
                bytes(total),
                parts.join("; "),
                bytes(limit),
                flag.to_uppercase(),
            ),
        ))
    }
}

/// A size for a message: "41.2 GB".
pub fn bytes(b: u64) -> String {
    match b {
        b if b >= 1 << 30 => format!("{:.1} GiB", b as f64 / (1u64 << 30) as f64),
        b if b >= 1 << 20 => format!("{:.1} MiB", b as f64 / (1u64 << 20) as f64),
        b => format!("{:.1} KiB", b as f64 / 1024.0),
    }
}

/// Hosts, switches and links of the topology, and the largest link rate (bits/s).
struct Shape {
    hosts: u64,
    switches: u64,
    links: u64,
    default_pairs: u64,
    max_rate_bps: u64,
    path: &'static str,
}

fn shape(t: &Topology) -> Shape {
    let rate = |l: &super::schema::Link| l.rate.0.bps();
    match t {
        Topology::Dumbbell(d) => {
            let p = d.pairs as u64;
            let max_rate_bps = rate(&d.access).max(rate(&d.bottleneck));
            Shape {
                hosts: 2 * p,
                switches: 2,
                links: 2 * p + 1,
                default_pairs: p,
                max_rate_bps,
                path: "topology.pairs",
            }
        }
        Topology::Star(s) => {
            let h = s.senders as u64 + s.receivers as u64;
            let max_rate_bps = rate(&s.access).max(rate(&s.bottleneck));
            Shape {
                hosts: h,
                switches: 1,
                links: h,
                default_pairs: s.senders as u64,
                max_rate_bps,
                path: "topology.senders",
            }
        }
        Topology::ParkingLot(pl) => {
            let hops = pl.cross_hops.as_ref().map_or(pl.routers.saturating_sub(1) as u64, |v| v.len() as u64);
            let hosts = 2 * pl.pairs as u64 + (2 * pl.cross as u64).saturating_mul(hops);
            Shape {
                hosts,
                switches: pl.routers as u64,
                links: (pl.routers as u64).saturating_sub(1).saturating_add(hosts),
                default_pairs: (pl.pairs as u64).saturating_add((pl.cross as u64).saturating_mul(hops)),
                max_rate_bps: rate(&pl.link).max(rate(&pl.access)),
                path: "topology.pairs",
            }
        }
        Topology::FatTree(f) => {
            // k is checked against its bound only when the topology is built: saturate here.
            let k = f.k as u64;
            let k3 = k.saturating_mul(k).saturating_mul(k);
            Shape {
                hosts: k3 / 4,
                switches: k.saturating_mul(k).saturating_mul(5) / 4,
                links: k3.saturating_mul(3) / 4,
                default_pairs: k3 / 8,
                max_rate_bps: rate(&f.link).max(f.host_link.as_ref().map_or(0, rate)),
                path: "topology.k",
            }
        }
        Topology::Explicit(e) => {
            let hosts = e.nodes.iter().filter(|n| n.kind == super::schema::NodeKindName::Host).count() as u64;
            Shape {
                hosts,
                switches: e.nodes.len() as u64 - hosts,
                links: e.links.len() as u64,
                default_pairs: e.pairs.as_ref().map_or(0, |p| p.len() as u64),
                max_rate_bps: e.links.iter().map(|l| l.rate.0.bps()).max().unwrap_or(0),
                path: "topology.node",
            }
        }
    }
}

/// Connections a workload opens at most (static flows; a generator's clients).
fn connections(w: &Workload, shape: &Shape, sc: &Scenario) -> u64 {
    let list = host_count;
    let pairs = |src, dst| match (list(src), list(dst)) {
        (None, None) => shape.default_pairs,
        (s, d) => s.unwrap_or(shape.default_pairs).max(d.unwrap_or(shape.default_pairs)),
    };
    match w {
        Workload::Bulk(b) => {
            b.flows.map(u64::from).or(b.start.count().map(|n| n as u64)).unwrap_or(pairs(&b.src, &b.dst))
        }
        Workload::Fixed(f) => {
            f.flows.map(u64::from).or(f.start.count().map(|n| n as u64)).unwrap_or(pairs(&f.src, &f.dst))
        }
        Workload::OnOff(o) => o.clients.map_or(pairs(&o.src, &o.dst), u64::from),
        // Persistent connections carry every round; with `connect = "burst"` each block opens one.
        Workload::Incast(i) => match i.connect {
            ConnectMode::First => incast_senders(i, shape),
            ConnectMode::Burst => incast_blocks(i, shape),
        },
        Workload::Permutation(p) => list(&p.hosts).unwrap_or(shape.hosts),
        Workload::Web(w) => (w.clients.0.len() as u64).saturating_mul(w.parallel as u64),
        Workload::Csv(c) => csv_lines(&c.file, sc),
        Workload::Cbr(_) => 0,
    }
}

/// An incast's connections when they persist: one per sender (or as `connections` says).
fn incast_senders(i: &Incast, shape: &Shape) -> u64 {
    i.connections.map(u64::from).or(host_count(&i.senders)).unwrap_or(shape.hosts)
}

/// The hosts a workload's list names, if it names them.
fn host_count(l: &Option<super::values::HostList>) -> Option<u64> {
    l.as_ref().map(|h| h.0.len() as u64)
}

/// An incast's blocks over all its rounds: the rows of `transfers`.
fn incast_blocks(i: &Incast, shape: &Shape) -> u64 {
    incast_senders(i, shape).saturating_mul(i.rounds.max(1) as u64)
}

/// Lines of a CSV flow list (0 if it cannot be read: the build reports that).
fn csv_lines(file: &str, sc: &Scenario) -> u64 {
    let path = match &sc.base_dir {
        Some(d) => d.join(file),
        None => file.into(),
    };
    std::fs::read(path).map_or(0, |b| lines_in(&b))
}

fn lines_in(b: &[u8]) -> u64 {
    b.iter().filter(|&&c| c == b'\n').count() as u64 + 1
}

/// Samples of a series every `interval` over the run.
fn samples(duration: SimTime, interval: SimTime) -> u64 {
    (duration.0 / interval.0.max(1)).saturating_add(1)
}

/// The estimate of a parsed scenario.
pub fn estimate(sc: &Scenario) -> Estimate {
    let f = &sc.file;
    let mut e = Estimate::default();
    let s = shape(&f.topology);
    let ports = s.links.saturating_mul(2);
    e.add(
        s.path,
        format!("{ports} ports"),
        ports.saturating_mul(PORT_BYTES),
        ports.saturating_mul(RESULT_ROW_BYTES),
    );
    let routes = s.switches.saturating_mul(s.hosts);
    e.add(s.path, format!("routing tables of {routes} entries"), routes.saturating_mul(ROUTE_BYTES), 0);
    let mut flows = 0u64;
    for (i, w) in f.workloads.iter().enumerate() {
        let n = connections(w, &s, sc);
        flows = flows.saturating_add(n);
        let field = match w {
            Workload::Bulk(_) | Workload::Fixed(_) => "flows",
            Workload::Incast(_) => "rounds",
            Workload::OnOff(_) => "clients",
            Workload::Permutation(_) => "hosts",
            Workload::Web(_) => "parallel",
            Workload::Csv(_) => "file",
            Workload::Cbr(_) => "rate",
        };
        e.add_each(format!("workload[{i}].{field}"), n, "connections", (FLOW_BYTES, RESULT_ROW_BYTES));
        if let Workload::Incast(ic) = w {
            e.add_each(format!("workload[{i}].rounds"), incast_blocks(ic, &s), "transfers", SMALL_ROW_BYTES);
        }
    }
    let duration = f.run.duration.0;
    let o = &f.output;
    if let Some(iv) = o.timeseries {
        let n = o.timeseries_flows.as_ref().map_or(flows, |v| v.len() as u64);
        let rows = samples(duration, iv.0).saturating_mul(n);
        e.add_each("output.timeseries", rows, "timeseries rows", TIMESERIES_ROW_BYTES);
    }
    if let Some(iv) = o.queues {
        let n = o.queue_links.as_ref().map_or(ports, |v| v.len() as u64);
        let rows = samples(duration, iv.0).saturating_mul(n);
        e.add_each("output.queues", rows, "queue samples", QUEUE_ROW_BYTES);
    }
    if let Some(sl) = o.fairness_slice {
        e.add_each("output.fairness_slice", samples(duration, sl.0), "fairness slices", SMALL_ROW_BYTES);
    }
    for (i, probe) in o.latency.iter().enumerate() {
        e.add_each(
            format!("output.latency[{i}].max_samples"),
            probe.max_samples as u64,
            "latency samples",
            SMALL_ROW_BYTES,
        );
    }
    if !o.pcap.is_empty() {
        // A link sends at most rate × duration / the smallest packet.
        let sendable = (s.max_rate_bps as u128 * duration.0 as u128
            / (8 * MIN_PACKET_BYTES as u128 * units::PS_PER_S as u128))
            .min(u64::MAX as u128) as u64;
        let packets = o.pcap_max_packets.min(sendable).saturating_mul(o.pcap.len() as u64);
        let snap = o.pcap_snaplen.max(20) as u64;
        let (m, d) = PCAP_RECORD_BYTES;
        e.add_each("output.pcap_max_packets", packets, "captured packets", (m + snap, d + snap));
    }
    e
}

#[cfg(test)]
mod tests {
    use super::*;

    const BASE: &str = r#"
[run]
duration = "1s"
[topology]
kind = "dumbbell"
pairs = 4
access = { rate = "1Gbps", delay = "1ms" }
bottleneck = { rate = "100Mbps", delay = "2ms", queue = { kind = "droptail", limit = "50pkts" } }
[[workload]]
kind = "bulk"
"#;

    const GIB: Limits = Limits { memory: 1 << 30, output: 1 << 30 };

    fn check(src: &str, limits: &Limits) -> Vec<String> {
        let sc = Scenario::parse(src).unwrap();
        estimate(&sc).check(limits).iter().map(|e| e.to_string()).collect()
    }

    #[test]
    fn a_small_scenario_fits_and_costs_grow_with_what_it_asks() {
        assert!(check(BASE, &GIB).is_empty());
        let small = estimate(&Scenario::parse(BASE).unwrap());
        let big = estimate(&Scenario::parse(&BASE.replace("pairs = 4", "pairs = 4000")).unwrap());
        assert!(big.memory() > small.memory() + 4000 * 2 * PORT_BYTES);
    }

    #[test]
    fn each_absurd_request_is_refused_at_its_field_with_the_estimate() {
        let cases = [
            (BASE.replace("pairs = 4", "pairs = 5000000"), "topology.pairs: this scenario needs about"),
            (format!("{BASE}flows = 1000000000\n"), "workload[0].flows: this scenario needs about"),
            (
                BASE.replace("[[workload]]", "[output]\ntimeseries = \"1ns\"\n[[workload]]"),
                "output.timeseries: this scenario needs about",
            ),
            (
                BASE.replace("[[workload]]", "[output]\nqueues = \"1ps\"\n[[workload]]"),
                "output.queues: this scenario needs about",
            ),
            (
                BASE.replace("[[workload]]", "[output]\nfairness_slice = \"1ps\"\n[[workload]]"),
                "output.fairness_slice: this scenario needs about",
            ),
            (
                BASE.replace(
                    "[[workload]]",
                    "[output]\npcap = [\"left->right\"]\npcap_snaplen = 65535\npcap_max_packets = 1000000000000\n[[workload]]",
                ),
                "output.pcap_max_packets: this scenario needs about",
            ),
        ];
        for (src, start) in cases {
            let errs = check(&src, &GIB);
            assert!(errs.first().is_some_and(|e| e.starts_with(start)), "{start}: {errs:?}");
            assert!(errs[0].contains("over the limit of 1.0 GiB"), "{errs:?}");
        }
    }

    /// An incast's persistent connections carry every round: its time series samples one
    /// row per sender, not per block; with a connection per block, one per block. (100
    /// senders, 10 rounds, 1001 samples.)
    #[test]
    fn an_incast_counts_its_connections_as_it_opens_them() {
        let incast = |connect: &str| {
            let src = format!(
                "[run]\nduration = \"1s\"\n[topology]\nkind = \"star\"\nsenders = 100\n\
                 access = {{ rate = \"1Gbps\", delay = \"25us\" }}\n\
                 bottleneck = {{ rate = \"1Gbps\", delay = \"25us\" }}\n\
                 [[workload]]\nkind = \"incast\"\nblock = \"20000B\"\nrounds = 10\nconnect = \"{connect}\"\n\
                 [output]\ntimeseries = \"1ms\"\n"
            );
            let tiny = Limits { memory: 1, output: 1 << 40 };
            check(&src, &tiny).join("\n")
        };
        let persistent = incast("first");
        // Every host may send (the estimate does not know the receiver yet): 101.
        assert!(persistent.contains("101 connections"), "{persistent}");
        assert!(persistent.contains("101101 timeseries rows"), "{persistent}");
        let per_block = incast("burst");
        assert!(per_block.contains("1010 connections"), "{per_block}");
    }

    #[test]
    fn output_is_limited_apart_from_memory() {
        let src = BASE.replace("[[workload]]", "[output]\npcap = [\"left->right\"]\n[[workload]]");
        let tight = Limits { memory: 1 << 40, output: 1 << 20 };
        let errs = check(&src, &tight);
        assert_eq!(errs.len(), 1, "{errs:?}");
        assert!(errs[0].starts_with("output.pcap_max_packets: this scenario would write about"), "{errs:?}");
        assert!(errs[0].contains("--max-output"), "{errs:?}");
    }

    /// The counts the estimate derives from each topology's parameters are those the topology
    /// is built with.
    #[test]
    fn shapes_match_the_built_topologies() {
        let link = r#"{ rate = "1Gbps", delay = "1ms" }"#;
        let topologies = [
            format!("kind = \"dumbbell\"\npairs = 3\naccess = {link}\nbottleneck = {link}"),
            format!("kind = \"star\"\nsenders = 5\nreceivers = 2\naccess = {link}\nbottleneck = {link}"),
            format!(
                "kind = \"parking_lot\"\nrouters = 4\npairs = 2\ncross = 3\nlink = {link}\naccess = {link}"
            ),
            format!("kind = \"parking_lot\"\nrouters = 4\ncross_hops = [2]\nlink = {link}\naccess = {link}"),
            format!("kind = \"fat_tree\"\nk = 4\nlink = {link}"),
        ];
        for t in topologies {
            let src = format!("[run]\nduration = \"1s\"\n[topology]\n{t}\n");
            let sc = Scenario::parse(&src).unwrap();
            let built = sc.to_spec().unwrap().topology;
            let hosts = built.hosts().count() as u64;
            let s = shape(&sc.file.topology);
            assert_eq!(
                (s.hosts, s.switches, s.links),
                (hosts, built.nodes.len() as u64 - hosts, built.links.len() as u64),
                "{t}"
            );
        }
    }
}
