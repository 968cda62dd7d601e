//! Helpers shared by the integration tests (each test file is its own crate and uses a part).
#![allow(dead_code)]

use routerlab::scenario::Scenario;
use routerlab::sim::{Results, Simulation};

/// Load a scenario (panicking with every problem if it is invalid), run it to the end, and
/// return the simulation with its results.
pub fn run(text: &str) -> (Simulation, Results) {
    let (_, spec) = Scenario::load(text).unwrap_or_else(|e| panic!("{e:#?}"));
    let mut sim = Simulation::new(&spec);
    sim.run();
    let r = sim.results();
    (sim, r)
}

/// A k = 4 fat-tree of 1 Gbps links, 10 µs each, 100-packet drop-tail buffers, run for 300 ms
/// (append workloads).
pub const FAT_TREE: &str = r#"
[run]
duration = "300ms"
[topology]
kind = "fat_tree"
k = 4
link = { rate = "1Gbps", delay = "10us", queue = { kind = "droptail", limit = "100pkts" } }
"#;

/// Packets carried by the core → pod `pod` downlinks (`c* -> a<pod>_*`), fewest first.
pub fn core_to_pod(r: &Results, pod: u32) -> Vec<u64> {
    let into = format!("->a{pod}_");
    let mut v: Vec<u64> = r
        .links
        .iter()
        .filter(|l| l.link.starts_with('c') && l.link.contains(&into))
        .map(|l| l.tx_packets)
        .collect();
    v.sort_unstable();
    v
}
