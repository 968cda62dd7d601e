//! A short, seeded mutation fuzz of scenario files: the examples and one small scenario per
//! mechanism, mutated into well-formed but absurd values, deleted and repeated lines, keys
//! moved between tables, bytes flipped. Every mutant must be refused with the path of a field
//! (or the line of a syntax error), or build within the test's limits and run its first events
//! — never panic. `ROUTERLAB_FUZZ_MUTANTS` sets the number of mutants (default 3000, seconds)
//! and `ROUTERLAB_FUZZ_SEED` their seed; a failure prints the mutant.
//!
//! The coverage-guided fuzzers over the same entry points are in `fuzz/` (`cargo fuzz`).

use std::panic::{AssertUnwindSafe, catch_unwind};

use routerlab::scenario::budget::Limits;
use routerlab::sim::probe::{Probe, probe};

/// Small enough that any mutant builds in milliseconds.
const LIMITS: Limits = Limits { memory: 256 << 20, output: 256 << 20 };
/// Events each valid mutant runs.
const EVENTS: u64 = 20_000;

/// One small scenario per mechanism and workload kind the examples do not show.
const SEEDS: &[&str] = &[
    r#"
[run]
duration = "1s"
[topology]
kind = "dumbbell"
pairs = 3
access = { rate = "1Gbps", delay = "1ms" }
bottleneck = { rate = "100Mbps", delay = "5ms", queue = { kind = "droptail", limit = "100pkts" }, ka = { queue_threshold = 0.5, resume_threshold = 0.3 } }
sender_delays = ["1ms", "2ms", "3ms"]
[transport]
cc = "kick-ass"
[[workload]]
kind = "on_off"
size = { dist = "pareto", mean = "100KB", shape = 1.5 }
off = { dist = "exponential", mean = "50ms" }
"#,
    r#"
[run]
duration = "1s"
[topology]
kind = "dumbbell"
pairs = 2
access = { rate = "1Gbps", delay = "1ms" }
bottleneck = { rate = "100Mbps", delay = "5ms", queue = { kind = "droptail", limit = "50pkts" }, rcp = {} }
[transport]
cc = "rcp"
[[workload]]
kind = "bulk"
stop = "500ms"
"#,
    r#"
[run]
duration = "1s"
[topology]
kind = "star"
senders = 8
access = { rate = "1Gbps", delay = "25us" }
bottleneck = { rate = "1Gbps", delay = "25us", queue = { kind = "cp", data = { kind = "droptail", limit = "64pkts", ecn_threshold = "20pkts" } } }
[transport]
cc = { kind = "dctcp", g = 0.0625 }
cp = true
min_rto = "10ms"
[[workload]]
kind = "incast"
block = "20KB"
rounds = 3
"#,
    r#"
[run]
duration = "1s"
[topology]
kind = "dumbbell"
pairs = 4
access = { rate = "1Gbps", delay = "1ms" }
bottleneck = { rate = "10Mbps", delay = "20ms", queue = { kind = "taq", limit = "100pkts" } }
[transport]
min_rto = "1s"
[[workload]]
kind = "fixed"
size = "50KB"
flows = 8
start = { first = "0s", step = "50ms" }
[output]
flow_epochs = ["left->right"]
fairness_slice = "100ms"
"#,
    r#"
[run]
duration = "1s"
[topology]
kind = "dumbbell"
pairs = 3
access = { rate = "1Gbps", delay = "100us" }
bottleneck = { rate = "100Mbps", delay = "1ms", queue = { kind = "droptail", limit = "100pkts" }, sp = { variant = "bloom" } }
[transport]
sp = true
[hosts]
sp_attackers = ["s2"]
[[workload]]
kind = "bulk"
"#,
    r#"
[run]
duration = "500ms"
[topology]
kind = "fat_tree"
k = 4
link = { rate = "1Gbps", delay = "5us", queue = { kind = "fq_codel" } }
[forwarding]
policy = "spray-rr"
[hosts]
dupack_filter = "percentile"
[transport]
sack = false
dupthresh = "paths"
[[workload]]
kind = "permutation"
pattern = "stride"
stride = 4
size = "1MB"
[[workload]]
kind = "cbr"
src = "h0"
dst = "h5"
rate = "10Mbps"
packet_size = "3000B"
[output]
timeseries = "50ms"
pcap = ["e0_0->h0"]
pcap_max_packets = 100
latency = [{ from = "h0", to = "h5" }]
"#,
    r#"
[run]
duration = "1s"
[topology]
kind = "parking_lot"
routers = 3
cross = 2
link = { rate = "100Mbps", delay = "2ms", queue = { kind = "sfq" } }
access = { rate = "1Gbps", delay = "1ms" }
[transport]
mptcp = true
mptcp_subflows = 2
[[workload]]
kind = "web"
clients = ["s0"]
servers = ["r0"]
objects = { dist = "uniform", min = 1, max = 4 }
size = { dist = "lognormal", mean = "20KB", sigma = 1.0 }
think = "100ms"
[[link_event]]
at = "300ms"
between = ["n0", "n1"]
state = "down"
"#,
];

/// Values a field should not take, in every type a scenario has.
const ABSURD: &[&str] = &[
    "0",
    "-1",
    "1e308",
    "nan",
    "inf",
    "-0.0",
    "4294967296",
    "18446744073709551615",
    "99999999999999999999999",
    "true",
    "[]",
    "{}",
    r#""""#,
    r#""0s""#,
    r#""1ps""#,
    r#""1e9s""#,
    r#""9999999999999999999999s""#,
    r#""-1Gbps""#,
    r#""0bps""#,
    r#""1bps""#,
    r#""100000Tbps""#,
    r#""0pkts""#,
    r#""1B""#,
    r#""4294967295pkts""#,
    r#""18446744073709551615B""#,
    r#""nowhere""#,
    r#""left->left""#,
    r#""NaNs""#,
    r#""💥""#,
    r#"["s0", "s0", "s0"]"#,
    r#"{ dist = "pareto", mean = "1B", shape = 0.5 }"#,
    r#"{ dist = "empirical", values = [1, 2], probs = [0.5, nan] }"#,
];

/// Keys a mutant may gain, with values that stress the bounds.
const EXTRA: &[&str] = &[
    "mss = 9000",
    "mss = 65495",
    "pairs = 100000000",
    "flows = 4000000000",
    "k = 200",
    "k = 3",
    "senders = 0",
    "sender_delays = [\"1ms\"]",
    "min_rate = \"100Gbps\"",
    "timeseries = \"1ps\"",
    "queues = \"1ps\"",
    "pcap = [\"left->right\"]",
    "pcap_max_packets = 18446744073709551615",
    "duration = \"1000000s\"",
    "max_rto = \"18446744s\"",
    "syn_rto = \"1000000s\"",
    "init_cwnd = 4294967295",
    "rcv_buf = \"1B\"",
    "limit = \"1B\"",
    "mtu = 68",
    "framing = 4294967295",
    "loss = 1.0",
    "rounds = 4294967295",
    "parallel = 0",
    "stride = 0",
    "hotspots = 1000",
    "start = \"1000000s\"",
    "jitter = \"1000000s\"",
    "stop = \"0s\"",
    "pattern = \"pairs\"",
    "delay = \"0s\"",
    "rate = \"1bps\"",
    "epoch = \"1ps\"",
    "dupthresh = 0",
];

/// xorshift64*: a tiny deterministic generator for the mutations.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
    fn pick<'a>(&mut self, xs: &[&'a str]) -> &'a str {
        xs[self.below(xs.len())]
    }
}

/// The value after the first `=` of a line (to the end of the line, or of an inline item).
fn replace_a_value(line: &str, rng: &mut Rng) -> String {
    let eqs: Vec<usize> = line.match_indices('=').map(|(i, _)| i).collect();
    if eqs.is_empty() {
        return line.to_string();
    }
    let at = eqs[rng.below(eqs.len())] + 1;
    let rest = &line[at..];
    // The value ends at the next comma or closing brace at the same depth, or the line's end.
    let mut depth = 0i32;
    let mut quoted = false;
    let mut end = rest.len();
    for (i, c) in rest.char_indices() {
        match c {
            '"' => quoted = !quoted,
            '[' | '{' if !quoted => depth += 1,
            ']' | '}' if !quoted && depth == 0 => {
                end = i;
                break;
            }
            ']' | '}' if !quoted => depth -= 1,
            ',' if !quoted && depth == 0 => {
                end = i;
                break;
            }
            _ => {}
        }
    }
    format!("{} {}{}", &line[..at], rng.pick(ABSURD), &rest[end..])
}

fn mutate(seed: &str, rng: &mut Rng) -> String {
    let mut lines: Vec<String> = seed.lines().map(str::to_string).collect();
    for _ in 0..1 + rng.below(3) {
        let i = rng.below(lines.len());
        match rng.below(8) {
            0..=2 => lines[i] = replace_a_value(&lines[i], rng),
            3 => {
                lines.remove(i);
            }
            4 => {
                let l = lines[i].clone();
                lines.insert(i, l);
            }
            5 => {
                let j = rng.below(lines.len());
                lines.swap(i, j);
            }
            6 => lines.insert(i + 1, rng.pick(EXTRA).to_string()),
            _ => {
                let mut bytes = lines[i].clone().into_bytes();
                if !bytes.is_empty() {
                    let k = rng.below(bytes.len());
                    bytes[k] ^= 1 << rng.below(7);
                }
                lines[i] = String::from_utf8_lossy(&bytes).into_owned();
            }
        }
        if lines.is_empty() {
            break;
        }
    }
    lines.join("\n")
}

/// Check one scenario text: refused with paths, or built and run a little. Err: what went
/// wrong, a panic included.
fn check(text: &str) -> Result<Probe, String> {
    match catch_unwind(AssertUnwindSafe(|| probe(text, &LIMITS, EVENTS))) {
        Ok(r) => r,
        Err(panic) => {
            let msg = panic
                .downcast_ref::<String>()
                .cloned()
                .or_else(|| panic.downcast_ref::<&str>().map(|s| s.to_string()))
                .unwrap_or_default();
            Err(format!("panicked: {msg}"))
        }
    }
}

fn corpus() -> Vec<String> {
    let examples = concat!(env!("CARGO_MANIFEST_DIR"), "/../../examples");
    let mut files: Vec<_> = std::fs::read_dir(examples)
        .expect("examples/")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "toml"))
        .collect();
    files.sort();
    let mut out: Vec<String> = files.iter().map(|p| std::fs::read_to_string(p).unwrap()).collect();
    out.extend(SEEDS.iter().map(|s| s.to_string()));
    out
}

#[test]
fn every_seed_is_a_valid_scenario() {
    for (i, s) in corpus().iter().enumerate() {
        assert_eq!(check(s), Ok(Probe::Ran), "seed {i}");
    }
}

#[test]
fn mutants_are_refused_with_a_path_or_run_and_never_panic() {
    let n: usize = std::env::var("ROUTERLAB_FUZZ_MUTANTS").ok().and_then(|v| v.parse().ok()).unwrap_or(3000);
    let corpus = corpus();
    let seed =
        std::env::var("ROUTERLAB_FUZZ_SEED").ok().and_then(|v| v.parse().ok()).unwrap_or(0x005e_ed0f_f022);
    let mut rng = Rng(seed | 1);
    // The default hook would print every caught panic: only the first failure is reported.
    std::panic::set_hook(Box::new(|_| {}));
    let (mut failures, mut ran) = (Vec::new(), 0);
    for i in 0..n {
        let seed = &corpus[i % corpus.len()];
        let mutant = mutate(seed, &mut rng);
        match check(&mutant) {
            Ok(Probe::Ran) => ran += 1,
            Ok(Probe::Refused) => {}
            Err(e) => failures.push(format!("mutant {i}: {e}\n--- scenario ---\n{mutant}\n---")),
        }
    }
    let _ = std::panic::take_hook();
    // The mutations are mild enough that many mutants still run: the run paths are fuzzed too.
    assert!(ran > n / 10, "only {ran} of {n} mutants ran");
    let kinds: std::collections::BTreeSet<&str> =
        failures.iter().filter_map(|f| f.lines().next()?.split_once(": ").map(|x| x.1)).collect();
    assert!(
        failures.is_empty(),
        "{} of {n} mutants failed ({kinds:?}); the first:\n{}",
        failures.len(),
        failures[0]
    );
}
