//! TAQ end to end, in the small packet regime it was designed for (TAQ paper, §5): many
//! long-lived flows whose fair share is about a packet per RTT.

mod common;

use routerlab::sim::Results;

/// 40 flows through a 1 Mbps, 200 ms RTT bottleneck with a 50-packet buffer, 460-byte
/// segments: a fair share of about two packets per RTT.
fn small_packet_regime(queue: &str, seed: u64) -> Results {
    let text = format!(
        r#"
[run]
duration = "400s"
seed = {seed}
[topology]
kind = "dumbbell"
pairs = 40
access = {{ rate = "100Mbps", delay = "1ms" }}
bottleneck = {{ rate = "1Mbps", delay = "98ms", queue = {queue} }}
[transport]
cc = "newreno"
mss = 460
[[workload]]
kind = "bulk"
jitter = "1s"
[output]
fairness_slice = "20s"
"#
    );
    common::run(&text).1
}

/// Flows that went without delivering anything for longer than 10 s at some point.
fn stalled(r: &Results) -> usize {
    r.flows.iter().filter(|f| f.max_silence_s > 10.0).count()
}

/// The paper's claims, as directions, on a small configuration over three seeds: TAQ's
/// short-term (20 s) Jain index above drop-tail's, utilization not lower, fewer stalled flows
/// and fewer timeouts. (How far above is the reproductions' business: taq-fairness.)
#[test]
fn taq_keeps_short_term_fairness_where_drop_tail_loses_it() {
    for seed in 1..=3 {
        let dt = small_packet_regime(r#"{ kind = "droptail", limit = "50pkts" }"#, seed);
        let taq = small_packet_regime(r#"{ kind = "taq", limit = "50pkts" }"#, seed);
        let (jdt, jtaq) = (dt.summary.jain_short_mean.unwrap(), taq.summary.jain_short_mean.unwrap());
        eprintln!(
            "seed {seed}: short-term Jain {jdt:.3} → {jtaq:.3}, stalled {} → {}",
            stalled(&dt),
            stalled(&taq)
        );
        assert!(jtaq > jdt, "seed {seed}: short-term Jain drop-tail {jdt:.3}, TAQ {jtaq:.3}");
        assert!(taq.summary.goodput_bps >= 0.98 * dt.summary.goodput_bps, "seed {seed}");
        assert!(stalled(&taq) < stalled(&dt).max(1), "seed {seed}: {} vs {}", stalled(&taq), stalled(&dt));
        assert!(taq.summary.timeouts < dt.summary.timeouts, "seed {seed}");
    }
}
