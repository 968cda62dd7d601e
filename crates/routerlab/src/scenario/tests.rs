//! Scenario parsing and validation: every class of bad input is reported at its field path.

use super::*;

const GOOD: &str = r#"
[run]
duration = "2s"
seed = 7

[topology]
kind = "dumbbell"
pairs = 4
access = { rate = "1Gbps", delay = "1ms" }
bottleneck = { rate = "100Mbps", delay = "5ms", queue = { kind = "droptail", limit = "100pkts" } }

[transport]
min_rto = "200ms"

[[workload]]
kind = "bulk"
flows = 4

[[workload]]
kind = "fixed"
size = "64KB"
src = ["s0", "s1"]
dst = "r3"
transport = { init_cwnd = 4 }
"#;

fn errors(src: &str) -> Vec<String> {
    match Scenario::load(src) {
        Ok(_) => vec![],
        Err(e) => e.iter().map(|e| e.to_string()).collect(),
    }
}

fn first_error(src: &str) -> String {
    errors(src).into_iter().next().expect("scenario should be rejected")
}

#[test]
fn good_scenario_builds() {
    let (sc, spec) = Scenario::load(GOOD).unwrap();
    assert_eq!(spec.flows.len(), 4 + 2);
    assert_eq!(spec.seed, 7);
    assert_eq!(spec.groups, vec!["bulk-0".to_string(), "fixed-1".to_string()]);
    assert_eq!(sc.workload_transports[1].init_cwnd, 4);
    assert_eq!(sc.workload_transports[0].init_cwnd, 10);
    assert_eq!(spec.flows[4].size, Some(64_000));
}

#[test]
fn normalized_scenario_ignores_seed_and_formatting() {
    let (a, _) = Scenario::load(GOOD).unwrap();
    let other = GOOD.replace("seed = 7", "seed = 8").replace("\"2s\"", "\"2000ms\"");
    let (b, _) = Scenario::load(&other).unwrap();
    assert_eq!(a.normalized_json(), b.normalized_json());
    let changed = GOOD.replace("\"100pkts\"", "\"101pkts\"");
    let (c, _) = Scenario::load(&changed).unwrap();
    assert_ne!(a.normalized_json(), c.normalized_json());
}

#[test]
fn unknown_key_at_top_level_and_in_a_workload() {
    assert!(first_error(&format!("{GOOD}\n[bogus]\nx = 1\n")).starts_with("bogus: unknown key"));
    let src = GOOD.replace("flows = 4", "flows = 4\nbogus = 1");
    assert!(first_error(&src).starts_with("workload[0].bogus: unknown key"), "{}", first_error(&src));
}

#[test]
fn unknown_key_inside_tagged_tables_keeps_the_path() {
    let src = GOOD.replace("limit = \"100pkts\"", "limit = \"100pkts\", colour = \"red\"");
    assert!(
        first_error(&src).starts_with("topology.bottleneck.queue.colour: unknown key"),
        "{}",
        first_error(&src)
    );
    let src = GOOD.replace("min_rto = \"200ms\"", "min_rto = \"200ms\"\nturbo = true");
    assert!(first_error(&src).starts_with("transport.turbo: unknown key"));
    let src = GOOD.replace("transport = { init_cwnd = 4 }", "transport = { init_cwnd = 4, warp = 9 }");
    assert!(
        first_error(&src).starts_with("workload[1].transport.warp: unknown key"),
        "{}",
        first_error(&src)
    );
}

#[test]
fn impossible_values() {
    let src = GOOD.replace("rate = \"100Mbps\"", "rate = \"-1Gbps\"");
    assert!(
        first_error(&src).starts_with("topology.bottleneck.rate: \"-1Gbps\" is not a rate"),
        "{}",
        first_error(&src)
    );
    let src = GOOD.replace("rate = \"100Mbps\"", "rate = \"0Gbps\"");
    assert!(first_error(&src).starts_with("topology.bottleneck.rate: \"0Gbps\": a rate must be positive"));
    let src = GOOD.replace("\"100pkts\"", "\"0pkts\"");
    assert!(first_error(&src).starts_with("topology.bottleneck.queue.limit:"), "{}", first_error(&src));
    let src = GOOD.replace("duration = \"2s\"", "duration = \"0s\"");
    assert!(first_error(&src).starts_with("run.duration: \"0s\": must be positive"));
    let src = GOOD.replace("duration = \"2s\"", "duration = \"-3s\"");
    assert!(first_error(&src).starts_with("run.duration: \"-3s\" is not a duration"));
    let src = GOOD.replace("pairs = 4", "pairs = 0");
    assert!(first_error(&src).starts_with("topology.pairs: must be at least 1"));
    let src = GOOD.replace("min_rto = \"200ms\"", "min_rto = \"200ms\"\nmss = 10");
    assert!(first_error(&src).starts_with("transport.mss:"));
}

#[test]
fn wrong_types() {
    let src = GOOD.replace("pairs = 4", "pairs = \"four\"");
    let e = first_error(&src);
    assert!(e.starts_with("topology.pairs: invalid type: string \"four\""), "{e}");
    let src = GOOD.replace("delay = \"5ms\"", "delay = 5");
    assert!(first_error(&src).starts_with("topology.bottleneck.delay: 5 has no unit"));
}

#[test]
fn unknown_kinds() {
    let src = GOOD.replace("kind = \"droptail\"", "kind = \"magic\"");
    let e = first_error(&src);
    assert!(e.starts_with("topology.bottleneck.queue.kind: unknown queue kind \"magic\""), "{e}");
    let src = GOOD.replace("kind = \"dumbbell\"", "kind = \"ring\"");
    assert!(first_error(&src).starts_with("topology.kind: unknown topology kind \"ring\""));
    let src = GOOD.replace("kind = \"bulk\"", "kind = \"torrent\"");
    assert!(first_error(&src).starts_with("workload[0].kind: unknown workload kind \"torrent\""));
}

#[test]
fn unknown_hosts_and_switches_as_hosts() {
    let src = GOOD.replace("dst = \"r3\"", "dst = \"r9\"");
    let e = first_error(&src);
    assert!(e.starts_with("workload[1].dst: unknown host \"r9\""), "{e}");
    let src = GOOD.replace("src = [\"s0\", \"s1\"]", "src = [\"s0\", \"left\"]");
    assert!(first_error(&src).starts_with("workload[1].src[1]: \"left\" is a switch, not a host"));
}

#[test]
fn missing_required_section() {
    let src = GOOD.replace("[run]\nduration = \"2s\"\nseed = 7\n", "");
    assert!(first_error(&src).contains("missing field `run`"));
}

#[test]
fn syntax_errors_have_a_line() {
    let e = first_error("[run]\nduration = \n");
    assert!(e.starts_with("line 2"), "{e}");
}

#[test]
fn several_problems_are_reported_together() {
    let src = GOOD.replace("dst = \"r3\"", "dst = \"r9\"").replace("flows = 4", "flows = 0");
    assert_eq!(errors(&src).len(), 2, "{:?}", errors(&src));
}
