//! Scenario-level checks of the first runnable version: a dumbbell fills its bottleneck, many
//! flows share it fairly, and runs are deterministic.

mod common;

use common::run;
use routerlab::scenario::Scenario;
use routerlab::sim::{Results, Simulation};
use routerlab::units::SimTime;

fn dumbbell(pairs: u32, buffer_pkts: u32, duration: &str, seed: u64) -> String {
    format!(
        r#"
[run]
duration = "{duration}"
seed = {seed}
[topology]
kind = "dumbbell"
pairs = {pairs}
access = {{ rate = "1Gbps", delay = "1ms" }}
bottleneck = {{ rate = "100Mbps", delay = "3ms", queue = {{ kind = "droptail", limit = "{buffer_pkts}pkts" }} }}
[[workload]]
kind = "bulk"
"#
    )
}

fn bottleneck_util(r: &Results) -> f64 {
    r.links.iter().find(|l| l.link == "left->right").unwrap().utilization
}

/// RTT = 2·(1 + 3 + 1) ms = 10 ms; BDP at 100 Mbps = 125 kB ≈ 83 packets of 1500 B. With a
/// buffer of at least one BDP a single Reno flow's sawtooth never drains the queue, so the link
/// stays busy once the start-up losses are recovered.
#[test]
fn single_flow_with_a_bdp_buffer_keeps_the_bottleneck_busy() {
    let (_, spec) = Scenario::load(&dumbbell(1, 100, "15s", 1)).unwrap();
    let mut sim = Simulation::new(&spec);
    let bottleneck = sim.network().port_names.iter().position(|n| n == "left->right").unwrap();
    while sim.now() < SimTime::from_secs(5) && !sim.step(1) {}
    let busy_at_5s = sim.network().ports[bottleneck].stats.busy;
    sim.run();
    let busy = sim.network().ports[bottleneck].stats.busy - busy_at_5s;
    let util = busy.as_secs_f64() / 10.0;
    assert!(util >= 0.95, "steady-state utilization {util}");
    // Over the whole run, start-up (slow-start overshoot, NewReno without SACK) costs some.
    assert!(bottleneck_util(&sim.results()) > 0.9);
}

#[test]
fn fifty_flows_share_the_bottleneck_fully_and_fairly() {
    let (_, r) = run(&dumbbell(50, 100, "10s", 1));
    let util = bottleneck_util(&r);
    assert!(util >= 0.9, "utilization {util}");
    assert!(r.summary.jain_index.unwrap() >= 0.9, "Jain {:?}", r.summary.jain_index);
    assert_eq!(r.flows.len(), 50);
    assert!(r.summary.drops > 0, "a 100-packet buffer shared by 50 flows must overflow");
    // Goodput cannot exceed the payload share of the bottleneck.
    assert!(r.summary.goodput_bps <= 100e6 * 1460.0 / 1500.0);
}

#[test]
fn same_seed_same_results_and_another_seed_changes_them() {
    let (_, a) = run(&dumbbell(10, 50, "2s", 3));
    let (_, b) = run(&dumbbell(10, 50, "2s", 3));
    assert_eq!(a, b);
    let (_, c) = run(&dumbbell(10, 50, "2s", 4));
    assert_ne!(a.flows, c.flows);
}
