//! Super-packets end to end: the sender shim and the SPManager agree on every SP, legacy
//! routers forward SP packets untouched, the Bloom variant decides as Algorithm 1 when senders
//! are honest, and runs are deterministic.

mod common;

use std::collections::HashMap;

use common::run;
use routerlab::sim::Results;

/// 50 flows of 10 segments from A to C through B, B — C congested (sp-incast's network).
fn incast(sp_flows: bool, router: &str, seed: u64) -> String {
    format!(
        r#"
[run]
duration = "10s"
seed = {seed}
[topology]
kind = "explicit"
node = [{{ name = "A", kind = "host" }}, {{ name = "B", kind = "switch" }}, {{ name = "C", kind = "host" }}]
link = [
  {{ between = ["A", "B"], rate = "1Gbps", delay = "50us" }},
  {{ between = ["B", "C"], rate = "100Mbps", delay = "50us", queue = {{ kind = "droptail", limit = "100pkts" }}{router} }},
]
[transport]
cc = "newreno"
delayed_ack = false
sp = {sp_flows}
[[workload]]
kind = "fixed"
size = "14600B"
flows = 50
src = "A"
dst = "C"
jitter = "1ms"
"#
    )
}

/// Counters of one stage, summed over where it runs.
fn counters(r: &Results, stage: &str) -> HashMap<&'static str, u64> {
    r.stages.as_ref().expect("a stages table").totals(stage)
}

#[test]
fn every_super_packet_sent_is_judged_once_and_every_follower_once() {
    for seed in 1..=3 {
        let (_, r) = run(&incast(true, ", sp = {}", seed));
        let (snd, mgr) = (counters(&r, "sp-sender"), counters(&r, "sp-manager"));
        assert!(snd["sps_sent"] > 50, "every flow's initial window leaves as a super-packet");
        // Nothing is lost between A and B: the router sees exactly what the senders sent.
        assert_eq!(mgr["sps_admitted"] + mgr["sps_refused"], snd["sps_sent"]);
        assert_eq!(
            mgr["followers_forwarded"] + mgr["followers_dropped"],
            snd["sp_packets_sent"] - snd["sps_sent"]
        );
        assert_eq!(mgr["sp_packets_admitted"] - mgr["sps_admitted"], mgr["followers_forwarded"]);
        assert_eq!(mgr["reserved_at_end"], 0, "no reservation outlives its SP");
        assert_eq!(r.summary.flows_completed, 50);
        // The refusals are the link's drops: the queue behind the manager never overflows.
        let b_c = r.links.iter().find(|l| l.link == "B->C").unwrap();
        assert_eq!(b_c.drops, mgr["regular_refused"] + mgr["sps_refused"] + mgr["followers_dropped"]);
    }
}

/// SP + CP (our combination, docs/matrix.md): the SPManager admits in front of CP's data
/// queue as in front of a drop-tail one, and CP cuts what it refuses instead of losing it, so
/// that CP endpoints hear of every refusal at once. Every SP is still judged once, every
/// refusal becomes a cut (or, with the header buffer full, a drop), nothing else is lost, and
/// the senders time out less than behind the SPManager alone.
#[test]
fn cp_cuts_what_the_sp_manager_refuses() {
    for seed in 1..=3 {
        let cp = r#"{ kind = "cp", data = { kind = "droptail", limit = "100pkts" } }, sp = {}"#;
        let text = incast(true, ", sp = {}", seed);
        let with_cp = text
            .replace(r#"{ kind = "droptail", limit = "100pkts" }, sp = {}"#, cp)
            .replace("sp = true", "sp = true\ncp = true");
        let (_, alone) = run(&text);
        let (_, r) = run(&with_cp);
        let (snd, mgr) = (counters(&r, "sp-sender"), counters(&r, "sp-manager"));
        assert_eq!(mgr["sps_admitted"] + mgr["sps_refused"], snd["sps_sent"]);
        let refused = mgr["regular_refused"] + mgr["sps_refused"] + mgr["followers_dropped"];
        let b_c = r.links.iter().find(|l| l.link == "B->C").unwrap();
        assert!(b_c.cuts > 0, "{b_c:?}");
        // The data queue never overflows behind the SPManager: every header CP sent is a
        // refusal's (a cut segment, or a SYN taken as it is).
        let headers = counters(&r, "cp")["headers_sent"];
        assert!(headers >= b_c.cuts);
        assert_eq!(headers + b_c.drops, refused, "each refusal cut or dropped, nothing else lost");
        assert_eq!(r.summary.flows_completed, 50);
        assert!(
            r.summary.timeouts < alone.summary.timeouts,
            "seed {seed}: {} vs {}",
            r.summary.timeouts,
            alone.summary.timeouts
        );
    }
}

#[test]
fn legacy_routers_forward_super_packets_as_ordinary_packets() {
    let (_, with_marks) = run(&incast(true, "", 1));
    let snd = counters(&with_marks, "sp-sender");
    assert!(snd["sps_sent"] > 0);
    assert!(counters(&with_marks, "sp-manager").is_empty(), "no SPManager anywhere");
    assert_eq!(with_marks.summary.flows_completed, 50);
    // Same network, same drops' cause (overflow only), no admission refusals.
    let b_c = with_marks.links.iter().find(|l| l.link == "B->C").unwrap();
    assert!(b_c.drops > 0 && b_c.queue_high_water_packets == 100, "a plain drop-tail queue, filled");
}

#[test]
fn the_bloom_variant_decides_as_algorithm_1_for_honest_senders() {
    // Honest senders send exactly the packets they announce, so per-host counts and per-SP
    // counts run out together; with 2²⁰ bits there is no false positive among a few hundred SPs.
    for seed in 1..=2 {
        let (_, exact) = run(&incast(true, ", sp = {}", seed));
        let (_, bloom) = run(&incast(true, r#", sp = { variant = "bloom" }"#, seed));
        assert_eq!(exact.flows, bloom.flows);
        assert_eq!(
            counters(&exact, "sp-manager")["sps_refused"],
            counters(&bloom, "sp-manager")["sps_refused"]
        );
    }
}

#[test]
fn super_packet_runs_are_deterministic() {
    let text = incast(true, r#", sp = { variant = "red-like" }"#, 4);
    let (_, a) = run(&text);
    let (_, b) = run(&text);
    assert_eq!(a, b);
    let (_, c) = run(&incast(true, r#", sp = { variant = "red-like" }"#, 5));
    assert_ne!(a.flows, c.flows, "another seed, another run");
}
