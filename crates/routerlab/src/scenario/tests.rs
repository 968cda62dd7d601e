//! Scenario parsing and validation: every class of bad input is reported at its field path.

use super::*;
use crate::builtins::StageSpec;
use crate::net::stage::StageRecipe;
use crate::tcp::cc::{CcConfig, RenoIncrease};
use crate::units::SimTime;

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
    // A key that is not bare is quoted, so that even an empty one has a path (found by
    // `cargo fuzz`: `['']` gave a message without one).
    assert!(first_error(&format!("{GOOD}\n['']\n")).starts_with("\"\": unknown key"));
    let src = GOOD.replace("flows = 4", "flows = 4\n\"a b\" = 1");
    assert!(first_error(&src).starts_with("workload[0].\"a b\": unknown key"), "{}", first_error(&src));
    let src = GOOD.replace("[transport]", "[transport]\ns = 1");
    assert!(first_error(&src).starts_with("transport.s: unknown key"), "{}", first_error(&src));
}

/// Every schema problem is reported, not only the first — a required field at fault included
/// (the rest is checked with a stand-in there, which is never reported itself).
#[test]
fn every_problem_of_a_file_is_reported() {
    let src = GOOD
        .replace("seed = 7", "seed = 7\nbogus = 1")
        .replace("pairs = 4", "pairs = \"four\"")
        .replace("rate = \"100Mbps\", delay = \"5ms\"", "rate = \"fast\", delay = \"soon\"")
        .replace("flows = 4", "flows = 4\nwhatever = 3")
        .replace("min_rto = \"200ms\"", "min_rto = \"later\"");
    let paths: Vec<String> = errors(&src).iter().map(|e| e.split(':').next().unwrap().to_string()).collect();
    for expected in [
        "run.bogus",
        "topology.pairs",
        "topology.bottleneck.rate",
        "topology.bottleneck.delay",
        "workload[0].whatever",
        "transport.min_rto",
    ] {
        assert!(paths.iter().any(|p| p == expected), "{expected} not in {paths:?}");
    }
    assert_eq!(paths.len(), 6, "each once, nothing about the stand-ins: {paths:?}");
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
    for (bad, msg) in [
        ("0", "transport.dupthresh: 0 is not a threshold (expected a count of at least 1 or \"paths\")"),
        ("\"many\"", "transport.dupthresh: \"many\" is not a threshold"),
    ] {
        let src = GOOD.replace("min_rto = \"200ms\"", &format!("min_rto = \"200ms\"\ndupthresh = {bad}"));
        assert!(first_error(&src).starts_with(msg), "{}", first_error(&src));
    }
    let paths = GOOD.replace("min_rto = \"200ms\"", "min_rto = \"200ms\"\ndupthresh = \"paths\"");
    assert!(Scenario::load(&paths).is_ok());
}

#[test]
fn wrong_types() {
    let src = GOOD.replace("pairs = 4", "pairs = \"four\"");
    let e = first_error(&src);
    assert_eq!(
        e,
        "topology.pairs: string \"four\" where a whole number is expected (e.g. 10, without quotes)"
    );
    // Rust's type names are not a user's words.
    let src = GOOD.replace("min_rto = \"200ms\"", "min_rto = \"200ms\"\ninit_cwnd = \"10\"");
    let e = first_error(&src);
    assert_eq!(
        e,
        "transport.init_cwnd: string \"10\" where a whole number is expected (e.g. 10, without quotes)"
    );
    let src = GOOD.replace("min_rto = \"200ms\"", "min_rto = \"200ms\"\nsack = 1");
    let e = first_error(&src);
    assert_eq!(e, "transport.sack: integer `1` where true or false is expected");
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
fn newreno_takes_its_increase_rule_by_name() {
    let with_cc = |cc: &str| GOOD.replace("min_rto = \"200ms\"", &format!("min_rto = \"200ms\"\ncc = {cc}"));
    let cc_of = |cc: &str| Scenario::load(&with_cc(cc)).unwrap().0.transport.tcp_config().cc;
    assert_eq!(cc_of(r#""newreno""#), CcConfig::NewReno(RenoIncrease::Bytes));
    assert_eq!(
        cc_of(r#"{ kind = "newreno", increase = "per-ack" }"#),
        CcConfig::NewReno(RenoIncrease::PerAck)
    );
    let e = first_error(&with_cc(r#"{ kind = "newreno", increase = "sometimes" }"#));
    assert!(e.starts_with("transport.cc") && e.contains("sometimes"), "{e}");
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
    assert_eq!(first_error(&src), "run: missing");
    // An empty file says which section is missing first, with its path.
    assert_eq!(first_error(""), "run: missing");
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

const EXPLICIT: &str = r#"
[run]
duration = "1s"
[topology]
kind = "explicit"
node = [
  { name = "h1", kind = "host" }, { name = "h2", kind = "host" }, { name = "h3", kind = "host" },
  { name = "sw", kind = "switch" }, { name = "island", kind = "switch" },
]
link = [
  { between = ["h1", "sw"], rate = "1Gbps", delay = "1us" },
  { between = ["h2", "sw"], rate = "1Gbps", delay = "1us" },
  { between = ["h3", "island"], rate = "1Gbps", delay = "1us" },
  { between = ["island", "sw"], rate = "1Gbps", delay = "1us" },
]
[[workload]]
kind = "bulk"
src = "h1"
dst = "h2"
"#;

#[test]
fn explicit_topology_builds() {
    let (_, spec) = Scenario::load(EXPLICIT).unwrap();
    assert_eq!(spec.topology.nodes.len(), 5);
    assert_eq!(spec.flows.len(), 1);
}

#[test]
fn explicit_topology_problems_have_paths() {
    let dup = EXPLICIT.replace(r#"{ name = "h3", kind = "host" }"#, r#"{ name = "h2", kind = "host" }"#);
    assert!(
        errors(&dup)
            .iter()
            .any(|e| e.starts_with("topology.node[2].name: \"h2\" is already the name of node[1]")),
        "{:?}",
        errors(&dup)
    );
    let nowhere = EXPLICIT.replace(r#"["h3", "island"]"#, r#"["h3", "atlantis"]"#);
    assert!(
        errors(&nowhere)
            .iter()
            .any(|e| e.starts_with("topology.link[2].between[1]: no node is named \"atlantis\"")),
        "{:?}",
        errors(&nowhere)
    );
    let two_links = EXPLICIT.replace(r#"["h3", "island"]"#, r#"["h1", "island"]"#);
    assert!(
        errors(&two_links).iter().any(|e| e.starts_with("topology.node[0]: host \"h1\" has 2 links")),
        "{:?}",
        errors(&two_links)
    );
    // A separate part is refused even when no flow crosses it.
    let island =
        EXPLICIT.replace("  { between = [\"island\", \"sw\"], rate = \"1Gbps\", delay = \"1us\" },\n", "");
    assert_eq!(
        errors(&island),
        ["topology.node[2]: \"h3\" is not linked, directly or through others, to \"h1\""]
    );
    let no_pairs = EXPLICIT.replace("src = \"h1\"\ndst = \"h2\"\n", "");
    assert!(
        errors(&no_pairs)
            .iter()
            .any(|e| e.starts_with("workload[0].src: missing (this topology has no default pairs")),
        "{:?}",
        errors(&no_pairs)
    );
    let self_link = EXPLICIT.replace(r#"["h3", "island"]"#, r#"["sw", "sw"]"#);
    assert!(
        errors(&self_link)
            .iter()
            .any(|e| e.starts_with("topology.link[2].between: a link from \"sw\" to itself"))
    );
}

#[test]
fn output_link_and_event_names_are_checked() {
    let bad_link = format!("{GOOD}\n[output]\nqueues = \"1ms\"\nqueue_links = [\"left->middle\"]\n");
    assert!(
        first_error(&bad_link).starts_with("output.queue_links[0]: no link is named \"left->middle\""),
        "{}",
        first_error(&bad_link)
    );
    let bad_pcap = format!("{GOOD}\n[output]\npcap = [\"nowhere\"]\n");
    assert!(first_error(&bad_pcap).starts_with("output.pcap[0]: no link is named \"nowhere\""));
    let no_link =
        format!("{GOOD}\n[[link_event]]\nat = \"1s\"\nbetween = [\"s0\", \"right\"]\nstate = \"down\"\n");
    assert!(
        first_error(&no_link)
            .starts_with("link_event[0].between: there is no link between \"s0\" and \"right\""),
        "{}",
        first_error(&no_link)
    );
    let bad_state = format!(
        "{GOOD}\n[[link_event]]\nat = \"1s\"\nbetween = [\"left\", \"right\"]\nstate = \"sideways\"\n"
    );
    assert!(
        first_error(&bad_state).starts_with("link_event[0].state: unknown variant `sideways`"),
        "{}",
        first_error(&bad_state)
    );
    let probe = format!("{GOOD}\n[output]\nlatency = [{{ from = \"left\", to = \"nowhere\" }}]\n");
    assert!(
        first_error(&probe).starts_with("output.latency[0].to: no node is named \"nowhere\""),
        "{}",
        first_error(&probe)
    );
}

#[test]
fn cp_queues_are_checked() {
    let q = |spec: &str| GOOD.replace(r#"{ kind = "droptail", limit = "100pkts" }"#, spec);
    let ok = q(r#"{ kind = "cp", data = { kind = "red", limit = "100pkts" }, header_buffer = "1500B" }"#);
    assert!(Scenario::load(&ok).is_ok());
    let sfq = q(r#"{ kind = "cp", data = { kind = "sfq" } }"#);
    assert!(
        first_error(&sfq)
            .starts_with("topology.bottleneck.queue.data.kind: CP cuts at a drop-tail, RED or TAQ")
    );
    let ratio =
        q(r#"{ kind = "cp", data = { kind = "droptail", limit = "10pkts" }, overload_ratio = -1.0 }"#);
    assert_eq!(first_error(&ratio), "topology.bottleneck.queue.overload_ratio: -1 is not a positive ratio");
    let tiny = q(r#"{ kind = "cp", data = { kind = "droptail", limit = "10pkts" }, header_buffer = "20B" }"#);
    assert!(
        first_error(&tiny)
            .starts_with("topology.bottleneck.queue.header_buffer: 20 B holds no 52-byte header")
    );
    let cut = q(r#"{ kind = "cp", data = { kind = "droptail", limit = "10pkts" }, cut_size = "20B" }"#);
    assert_eq!(
        first_error(&cut),
        "topology.bottleneck.queue.cut_size: 20 B is not a header's size (40 to 1500 B)"
    );
    let bare = q(
        r#"{ kind = "cp", data = { kind = "droptail", limit = "10pkts" }, cut_size = "40B", header_buffer = "40B" }"#,
    );
    assert!(Scenario::load(&bare).is_ok(), "a 40-byte buffer holds one bare 40-byte header");
    let inner = q(r#"{ kind = "cp", data = { kind = "droptail", limit = "10pkts", bogus = 1 } }"#);
    assert!(first_error(&inner).contains("bogus"), "{}", first_error(&inner));
}

#[test]
fn queue_parameters_are_checked() {
    let red = GOOD.replace(
        r#"{ kind = "droptail", limit = "100pkts" }"#,
        r#"{ kind = "red", limit = "100pkts", min_th = "30pkts", max_th = "20pkts" }"#,
    );
    assert!(
        first_error(&red)
            .starts_with("topology.bottleneck.queue.min_th: 30pkts is not below max_th (20pkts)"),
        "{}",
        first_error(&red)
    );
    let mixed = GOOD.replace(
        r#"{ kind = "droptail", limit = "100pkts" }"#,
        r#"{ kind = "red", limit = "100pkts", min_th = "30pkts", max_th = "90KB" }"#,
    );
    assert!(
        first_error(&mixed)
            .starts_with("topology.bottleneck.queue.max_th: must be in the same unit as min_th")
    );
    let p = GOOD.replace(
        r#"{ kind = "droptail", limit = "100pkts" }"#,
        r#"{ kind = "red", limit = "100pkts", max_p = 1.5 }"#,
    );
    assert!(first_error(&p).starts_with("topology.bottleneck.queue.max_p: 1.5 is not a probability"));
    let fq =
        GOOD.replace(r#"{ kind = "droptail", limit = "100pkts" }"#, r#"{ kind = "fq_codel", flows = 0 }"#);
    assert!(first_error(&fq).starts_with("topology.bottleneck.queue.flows: must be at least 1"));
    let mtu = GOOD.replace(
        r#"access = { rate = "1Gbps", delay = "1ms" }"#,
        r#"access = { rate = "1Gbps", delay = "1ms", mtu = 20 }"#,
    );
    assert!(first_error(&mtu).starts_with("topology.access.mtu: 20 is not a possible MTU"));
}

#[test]
fn workload_distributions_and_kinds_are_checked() {
    let base = GOOD.replace(
        "kind = \"fixed\"\nsize = \"64KB\"",
        "kind = \"on_off\"\nsize = { dist = \"pareto\", mean = \"100KB\", shape = 0.9 }\noff = \"1s\"",
    );
    assert!(
        first_error(&base).starts_with("workload[1].size.shape: 0.9: must be above 1"),
        "{}",
        first_error(&base)
    );
    let unknown = GOOD.replace(
        "kind = \"fixed\"\nsize = \"64KB\"",
        "kind = \"on_off\"\nsize = { dist = \"zipf\" }\noff = \"1s\"",
    );
    assert!(
        first_error(&unknown).starts_with("workload[1].size.dist: unknown distribution \"zipf\""),
        "{}",
        first_error(&unknown)
    );
    let extra = GOOD.replace(
        "kind = \"fixed\"\nsize = \"64KB\"",
        "kind = \"on_off\"\nsize = { dist = \"exponential\", mean = \"1KB\", shape = 2 }\noff = \"1s\"",
    );
    assert!(
        first_error(&extra).starts_with("workload[1].size.shape: unknown key"),
        "{}",
        first_error(&extra)
    );
    let unitless =
        GOOD.replace("kind = \"fixed\"\nsize = \"64KB\"", "kind = \"on_off\"\nsize = \"1KB\"\noff = 5");
    assert!(
        first_error(&unitless).starts_with("workload[1].off: 5 has no unit"),
        "{}",
        first_error(&unitless)
    );
    let cbr = format!("{GOOD}\n[[workload]]\nkind = \"cbr\"\nsrc = \"s0\"\ndst = \"r7\"\nrate = \"1Mbps\"\n");
    assert!(first_error(&cbr).starts_with("workload[2].dst: unknown host \"r7\""), "{}", first_error(&cbr));
    let csv = format!("{GOOD}\n[[workload]]\nkind = \"csv\"\nfile = \"/nonexistent/flows.csv\"\n");
    assert!(
        first_error(&csv).starts_with("workload[2].file: cannot read \"/nonexistent/flows.csv\""),
        "{}",
        first_error(&csv)
    );
}

#[test]
fn csv_flows_are_read_and_checked_line_by_line() {
    let dir = std::env::temp_dir().join(format!("routerlab-csv-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("flows.csv"), "src,dst,start_s,size_bytes\ns0,r1,0.5,10000\ns1,r2,1.25,\n")
        .unwrap();
    let text = format!("{GOOD}\n[[workload]]\nkind = \"csv\"\nfile = \"flows.csv\"\n");
    let mut sc = Scenario::parse(&text).unwrap();
    sc.base_dir = Some(dir.clone());
    let spec = sc.to_spec().unwrap();
    let csv: Vec<_> = spec.flows.iter().filter(|f| f.group == 2).collect();
    assert_eq!(csv.len(), 2);
    assert_eq!(csv[0].size, Some(10_000));
    assert_eq!(csv[1].size, None);
    assert_eq!(csv[1].start, crate::units::SimTime::from_ms(1250));
    std::fs::write(dir.join("flows.csv"), "src,dst,start_s,size_bytes\ns0,r9,0.5,10000\n").unwrap();
    let e = sc.to_spec().unwrap_err();
    assert!(e[0].to_string().contains("flows.csv line 2: unknown host \"r9\""), "{e:?}");
    std::fs::remove_dir_all(dir).ok();
}

#[test]
fn forwarding_policies_and_per_switch_overrides() {
    let with = |f: &str| format!("{GOOD}\n[forwarding]\n{f}\n");
    let (_, spec) =
        Scenario::load(&with("policy = \"spray-rr\"\nswitches = { right = \"spray-cnt\" }")).unwrap();
    let policy = |name: &str| {
        let node = spec.topology.nodes.iter().find(|n| n.name == name).unwrap();
        node.forwarding.as_ref().and_then(|r| r.params::<SprayPolicy>().copied())
    };
    use crate::mechanisms::plts::spray::{CntReading, RrScope, SprayPolicy};
    assert_eq!(policy("left"), Some(SprayPolicy::RoundRobin(RrScope::Switch)));
    assert_eq!(policy("right"), Some(SprayPolicy::LeastQueue(CntReading::Occupancy)));
    let e = first_error(&with("policy = \"spray-magic\""));
    assert!(e.starts_with("forwarding.policy: unknown variant `spray-magic`"), "{e}");
    let e = first_error(&with("switches = { middle = \"ecmp\" }"));
    assert!(e.starts_with("forwarding.switches.middle: no switch of that name"), "{e}");
    let e = first_error(&with("switches = { s0 = \"ecmp\" }"));
    assert!(e.starts_with("forwarding.switches.s0: is a host"), "{e}");
    let e = first_error(&with("polcy = \"ecmp\""));
    assert!(e.starts_with("forwarding.polcy: unknown key"), "{e}");
}

#[test]
fn hotspot_keys_are_checked() {
    let perm = |keys: &str| format!("{GOOD}\n[[workload]]\nkind = \"permutation\"\n{keys}\n");
    assert_eq!(
        first_error(&perm("pattern = \"hotspot\"\nhotspots = 8")),
        "workload[2].hotspots: must be between 1 and 7 (8 hosts)"
    );
    assert_eq!(
        first_error(&perm("pattern = \"hotspot\"\nhot_share = 1.5")),
        "workload[2].hot_share: must be between 0 and 1"
    );
    assert_eq!(
        first_error(&perm("hot_share = 0.5")),
        "workload[2].hot_share: only applies to pattern = \"hotspot\""
    );
    assert!(errors(&perm("pattern = \"hotspot\"\nhotspots = 2\nhot_share = 0.25")).is_empty());
}

#[test]
fn mptcp_keys_are_checked() {
    let with = |keys: &str| GOOD.replace("min_rto = \"200ms\"", &format!("min_rto = \"200ms\"\n{keys}"));
    assert_eq!(
        first_error(&with("mptcp = true\nmptcp_subflows = 0")),
        "transport.mptcp_subflows: 0 is not a number of subflows (1 to 64)"
    );
    assert!(
        first_error(&with("mptcp = true\ncc = \"cubic\""))
            .starts_with("transport.cc: MPTCP's subflows run NewReno")
    );
    let (sc, _) = Scenario::load(&with("mptcp = true")).unwrap();
    let m = sc.workload_transports[0].tcp_config().mptcp.expect("MPTCP on");
    assert_eq!((m.subflows, m.coupled), (8, true));
}

#[test]
fn taq_queue_keys_are_checked() {
    let taq = |keys: &str| {
        GOOD.replace(
            r#"queue = { kind = "droptail", limit = "100pkts" }"#,
            &format!(r#"queue = {{ kind = "taq", limit = "50pkts"{keys} }}"#),
        )
    };
    assert!(errors(&taq("")).is_empty());
    assert_eq!(
        first_error(&taq(", recovery_share = 1.5")),
        "topology.bottleneck.queue.recovery_share: 1.5 is not a share in (0, 1]"
    );
    assert!(
        first_error(&taq(", drop = \"head\""))
            .starts_with("topology.bottleneck.queue.drop: unknown variant `head`")
    );
    assert!(errors(&taq(", newflow_connections = 8")).is_empty());
    assert_eq!(
        first_error(&taq(", newflow_connections = 0")),
        "topology.bottleneck.queue.newflow_connections: 0 connections would admit no new flow"
    );
    assert!(errors(&taq(", admission = {}")).is_empty());
    assert!(errors(&taq(", admission = { t_wait = \"5s\", p_thresh = 0.2 }")).is_empty());
    assert_eq!(
        first_error(&taq(", admission = { admit_factor = 0 }")),
        "topology.bottleneck.queue.admission.admit_factor: 0 is not in (0, 1]"
    );
    assert!(
        first_error(&taq(", admission = { wait = \"5s\" }"))
            .starts_with("topology.bottleneck.queue.admission.wait: unknown key")
    );
}

/// GOOD with the SPManager on the bottleneck (`sp` keys appended) and super-packet senders.
fn with_sp(sp_keys: &str) -> String {
    GOOD.replace(r#"limit = "100pkts" } }"#, &format!(r#"limit = "100pkts" }}, sp = {{ {sp_keys} }} }}"#))
        .replace("min_rto = \"200ms\"", "min_rto = \"200ms\"\nsp = true")
}

#[test]
fn super_packets_install_the_manager_on_switch_ports_and_the_sender_on_hosts() {
    let (_, spec) = Scenario::load(&with_sp("")).unwrap();
    let bottleneck = spec.topology.links.iter().find(|l| !l.a_to_b.stages.is_empty()).unwrap();
    assert_eq!(
        bottleneck.a_to_b.stages,
        [StageRecipe::new(StageSpec::Sp(crate::mechanisms::sp::SpParams::default()))]
    );
    let sender = |spec: &crate::sim::SimSpec| {
        spec.host_shims.iter().find_map(|r| r.params::<crate::mechanisms::sp::SpSenderSpec>().copied())
    };
    assert_eq!(sender(&spec).map(|s| (s.t_buffer, s.max_length)), Some((None, 63)));
    let (_, plain) = Scenario::load(GOOD).unwrap();
    assert!(sender(&plain).is_none(), "no SP flow, no sender shim");
    assert!(errors(&with_sp(r#"variant = "bloom", bloom_hashes = 3, host_cap = 63"#)).is_empty());
    assert!(errors(&with_sp(r#"variant = "red-like", red_threshold = 0.3, occupancy = "bytes""#)).is_empty());
}

#[test]
fn super_packet_keys_are_checked() {
    assert_eq!(
        first_error(&with_sp("red_threshold = 0.3")),
        "topology.bottleneck.sp.red_threshold: only applies to variant = \"red-like\""
    );
    assert_eq!(
        first_error(&with_sp(r#"variant = "bloom", bloom_bits_log2 = 40"#)),
        "topology.bottleneck.sp.bloom_bits_log2: 40 is not 6 to 32 (2⁶ to 2³² bits)"
    );
    assert_eq!(
        first_error(&with_sp("max_sp_length = 0")),
        "topology.bottleneck.sp.max_sp_length: must be at least 1"
    );
    assert!(
        first_error(&with_sp(r#"variant = "magic""#))
            .starts_with("topology.bottleneck.sp.variant: unknown variant")
    );
    assert_eq!(
        first_error(&with_sp(r#"epoch = "50ms", initial_epoch = "10ms""#)),
        "topology.bottleneck.sp.initial_epoch: only applies to the observed epoch (no `epoch` given)"
    );
    let sfq = with_sp("").replace(r#"{ kind = "droptail", limit = "100pkts" }"#, r#"{ kind = "sfq" }"#);
    assert!(
        first_error(&sfq)
            .starts_with("topology.bottleneck.sp: the SPManager admits against a FIFO's free room")
    );
    let hosts = |h: &str| format!("{}\n[hosts]\n{h}\n", with_sp(""));
    assert_eq!(
        first_error(&hosts("sp_max_length = 64")),
        "hosts.sp_max_length: 64 is not 1 to 63 (the 6-bit length field)"
    );
    assert_eq!(
        first_error(&hosts("sp_fixed_length = 0")),
        "hosts.sp_fixed_length: 0 is not 1 to 63 (the 6-bit length field)"
    );
    assert!(
        first_error(&hosts(r#"sp_attackers = ["nobody"]"#))
            .starts_with("hosts.sp_attackers[0]: unknown host \"nobody\"")
    );
}

#[test]
fn super_packets_and_ecn_cannot_be_combined() {
    // The SP length's low bits are ECN's two bits (§3.2): any ECN in the scenario is refused,
    // at its own path, naming where the super-packets are.
    let ecn = with_sp("").replace("sp = true", "sp = true\necn = true");
    assert_eq!(
        first_error(&ecn),
        "transport.ecn: enables ECN, but super-packets (topology.bottleneck.sp) use the ToS byte's ECN bits \
         for their length (§3.2): the two cannot be combined"
    );
    let marking =
        with_sp("").replace(r#"limit = "100pkts" }"#, r#"limit = "100pkts", ecn_threshold = "20pkts" }"#);
    assert!(
        first_error(&marking)
            .starts_with("topology.bottleneck.queue.ecn_threshold: marks ECN, but super-packets")
    );
    // SP senders alone (no SP router) with a DCTCP workload: refused too, at the workload.
    let dctcp = GOOD
        .replace("transport = { init_cwnd = 4 }", "transport = { init_cwnd = 4, cc = \"dctcp\" }")
        .replace("min_rto = \"200ms\"", "min_rto = \"200ms\"\nsp = true");
    assert!(first_error(&dctcp).starts_with(
        "workload[1].transport.cc: is DCTCP, which needs ECN, but super-packets (transport.sp)"
    ));
    // ECN without any super-packets is fine.
    assert!(errors(&GOOD.replace("min_rto = \"200ms\"", "min_rto = \"200ms\"\necn = true")).is_empty());
}

/// GOOD with a Kick-Ass router on the bottleneck (`ka` keys appended) and Kick-Ass senders.
fn with_ka(ka_keys: &str) -> String {
    GOOD.replace(r#"limit = "100pkts" } }"#, &format!(r#"limit = "100pkts" }}, ka = {{ {ka_keys} }} }}"#))
        .replace("min_rto = \"200ms\"", "min_rto = \"200ms\"\ncc = \"kick-ass\"")
}

#[test]
fn kick_ass_and_rcp_install_their_routers_and_endpoints() {
    use crate::mechanisms::ka::{KaEndpoint, KaParams, RateProtocol, RcpParams};

    use crate::units::SimTime;
    let (_, spec) = Scenario::load(&with_ka("")).unwrap();
    let bottleneck = spec.topology.links.iter().find(|l| !l.a_to_b.stages.is_empty()).unwrap();
    assert_eq!(bottleneck.a_to_b.stages, [StageRecipe::new(StageSpec::KickAss(KaParams::default()))]);
    assert_eq!(spec.flows[0].tcp.cc.plugin::<KaEndpoint>(), Some(&KaEndpoint::new(RateProtocol::KickAss)));
    let tuned =
        with_ka(r#"queue_threshold = 0.8, rcp = { alpha = 0.4, interval = "5ms", min_rate = "50Kbps" }"#);
    let (_, spec) = Scenario::load(&tuned).unwrap();
    let stages = spec.topology.links.iter().flat_map(|l| &l.a_to_b.stages);
    let Some(StageSpec::KickAss(p)) = stages.filter_map(|s| s.params::<StageSpec>()).next() else { panic!() };
    assert_eq!((p.queue_threshold, p.rcp.alpha, p.rcp.interval), (0.8, 0.4, SimTime::from_ms(5)));
    assert_eq!(p.rcp.min_rate, crate::units::Rate::from_kbps(50));
    let rcp = GOOD
        .replace(r#"limit = "100pkts" } }"#, r#"limit = "100pkts" }, rcp = { beta = 0.5 } }"#)
        .replace("min_rto = \"200ms\"", "min_rto = \"200ms\"\ncc = \"rcp\"");
    let (_, spec) = Scenario::load(&rcp).unwrap();
    assert!(spec.topology.links.iter().any(|l| l.a_to_b.stages
        == [StageRecipe::new(StageSpec::Rcp(RcpParams { beta: 0.5, ..RcpParams::default() }))]));
    assert_eq!(spec.flows[0].tcp.cc.plugin::<KaEndpoint>(), Some(&KaEndpoint::new(RateProtocol::Rcp)));
    let slow =
        with_ka("").replace("cc = \"kick-ass\"", "cc = { kind = \"kick-ass\", indicator_interval = \"1s\" }");
    let (_, spec) = Scenario::load(&slow).unwrap();
    assert_eq!(
        spec.flows[0].tcp.cc.plugin::<KaEndpoint>().unwrap().indicator_interval,
        SimTime::from_secs(1)
    );
}

#[test]
fn kick_ass_keys_are_checked() {
    assert_eq!(
        first_error(&with_ka("queue_threshold = 1.5")),
        "topology.bottleneck.ka.queue_threshold: 1.5 is not a share of the queue (0 < x ≤ 1)"
    );
    assert_eq!(
        first_error(&with_ka("rcp = { initial_rate = 0 }")),
        "topology.bottleneck.ka.rcp.initial_rate: 0 is not in (0, 1]"
    );
    assert_eq!(
        first_error(&with_ka("rcp = { alpha = -1 }")),
        "topology.bottleneck.ka.rcp.alpha: -1 is not a gain (expected > 0)"
    );
    let e = first_error(&with_ka("threshold = 0.5"));
    assert!(e.starts_with("topology.bottleneck.ka.threshold: unknown key"), "{e}");
    assert_eq!(
        first_error(&with_ka("queue_threshold = 0.4, resume_threshold = 0.5")),
        "topology.bottleneck.ka.resume_threshold: 0.5 is not a share of the queue at or below queue_threshold (0.4)"
    );
    assert_eq!(
        first_error(&with_ka("rcp = { max_decrease = 1 }")),
        "topology.bottleneck.ka.rcp.max_decrease: 1 is not a factor in [0, 1)"
    );
    assert_eq!(
        first_error(&with_ka("signal_spacing = -0.5")),
        "topology.bottleneck.ka.signal_spacing: -0.5 is not a share of the RTT from 0 to 10"
    );
    assert_eq!(
        first_error(&with_ka("signal_spacing = 0.5, signal_slots = 0")),
        "topology.bottleneck.ka.signal_slots: 0 is not a table size (1 to 1048576)"
    );
    let e = first_error(&with_ka(r#"rounding = "up""#));
    assert!(e.starts_with("topology.bottleneck.ka.rounding"), "{e}");
    let fq = with_ka("").replace(r#"kind = "droptail", limit = "100pkts""#, r#"kind = "fq_codel""#);
    let e = first_error(&fq);
    assert!(
        e.starts_with("topology.bottleneck.ka: Kick-Ass's router stops signalling")
            && e.ends_with("not fq_codel"),
        "{e}"
    );
    let both = GOOD.replace(r#"limit = "100pkts" } }"#, r#"limit = "100pkts" }, ka = {}, rcp = {} }"#);
    assert_eq!(
        first_error(&both),
        "topology.bottleneck.rcp: a port has one stage before its queue: choose one of ka, rcp"
    );
    assert!(
        first_error(&GOOD.replace("min_rto = \"200ms\"", "min_rto = \"200ms\"\ncc = \"rcp-ish\""))
            .contains("unknown congestion control kind \"rcp-ish\"")
    );
}

#[test]
fn super_packets_and_kick_ass_cannot_be_combined() {
    // Both anywhere: refused at the Kick-Ass field, naming where the super-packets are.
    let both = with_sp("").replace("sp = true", "sp = true\ncc = \"kick-ass\"");
    assert_eq!(
        first_error(&both),
        "transport.cc: Kick-Ass fragments packets, and super-packets (topology.bottleneck.sp) carry their \
         identifier in the IP identification field that reassembly keys on (§3.2): the two cannot be combined"
    );
    let ka_router = with_ka("").replace("cc = \"kick-ass\"", "sp = true");
    assert!(first_error(&ka_router).starts_with("topology.bottleneck.ka: Kick-Ass fragments packets"));
    // RCP carries its rate in a header: no conflict.
    let rcp = with_sp("").replace("sp = true", "sp = true\ncc = \"rcp\"");
    assert!(errors(&rcp).is_empty());
}

/// A workload's starts: one time, a sequence `{ first, step }`, or a list with one entry per
/// flow (which then sets the number of flows).
#[test]
fn start_times_as_a_sequence_or_a_list() {
    let with = |start: &str| {
        GOOD.replace(
            "kind = \"bulk\"\nflows = 4",
            &format!("kind = \"bulk\"\nflows = 4\njitter = \"0s\"\nstart = {start}"),
        )
    };
    let starts = |src: &str| -> Vec<SimTime> {
        Scenario::load(src).unwrap().1.flows[..4].iter().map(|f| f.start).collect()
    };
    let ms = SimTime::from_ms;
    assert_eq!(starts(&with("\"1s\"")), vec![ms(1000); 4]);
    assert_eq!(starts(&with("{ first = \"1ms\", step = \"2ms\" }")), vec![ms(1), ms(3), ms(5), ms(7)]);
    assert_eq!(starts(&with("[\"4ms\", \"0s\", \"9ms\", \"1ms\"]")), vec![ms(4), ms(0), ms(9), ms(1)]);
    let listed = GOOD.replace(
        "kind = \"bulk\"\nflows = 4",
        "kind = \"bulk\"\njitter = \"0s\"\nstart = [\"0s\", \"1ms\", \"2ms\"]",
    );
    assert_eq!(Scenario::load(&listed).unwrap().1.flows.len(), 3 + 2, "the list sets the number of flows");
    assert!(
        first_error(&with("[\"0s\", \"1ms\"]")).starts_with("workload[0].start: 2 starts for 4 flows"),
        "{}",
        first_error(&with("[\"0s\", \"1ms\"]"))
    );
    for (bad, says) in [
        ("{ first = \"0s\" }", "workload[0].start: a start sequence needs `first` and `step`"),
        ("{ first = \"0s\", step = \"1ms\", stride = 2 }", "workload[0].start: unknown key `stride`"),
        ("{ first = \"0s\", step = \"-1ms\" }", "workload[0].start: \"-1ms\" is not a duration"),
        ("[]", "workload[0].start: the list of starts is empty"),
        ("5", "workload[0].start: 5 is not a start"),
    ] {
        assert!(first_error(&with(bad)).starts_with(says), "{bad}: {}", first_error(&with(bad)));
    }
    let late_stop = with("{ first = \"0s\", step = \"1s\" }")
        .replace("jitter = \"0s\"", "jitter = \"0s\"\nstop = \"2s\"");
    assert!(
        first_error(&late_stop).starts_with("workload[0].stop: 2s is not after the (last) start (3s)"),
        "{}",
        first_error(&late_stop)
    );
}

/// `sender_delays` gives each sender's access link its own delay (dumbbell and star); a list of
/// the wrong length is an error at its path, and nothing is built from it.
#[test]
fn sender_delays_set_each_senders_access_delay_and_must_match_the_senders() {
    let star = |delays: &str| {
        format!(
            r#"
[run]
duration = "1s"
[topology]
kind = "star"
senders = 3
access = {{ rate = "1Gbps", delay = "25us" }}
bottleneck = {{ rate = "1Gbps", delay = "25us" }}
sender_delays = {delays}
[[workload]]
kind = "bulk"
"#
        )
    };
    let (_, spec) = Scenario::load(&star(r#"["10us", "20us", "30us"]"#)).unwrap();
    let delay_from = |host: &str| {
        let node = spec.topology.nodes.iter().position(|n| n.name == host).unwrap();
        spec.topology.links.iter().find(|l| l.a == node || l.b == node).unwrap().a_to_b.delay
    };
    assert_eq!(delay_from("s0"), SimTime::from_us(10));
    assert_eq!(delay_from("s2"), SimTime::from_us(30));
    assert_eq!(first_error(&star(r#"["10us"]"#)), "topology.sender_delays: has 1 entries for 3 senders");
    let dumbbell = GOOD.replace("pairs = 4\n", "pairs = 4\nsender_delays = [\"1ms\"]\n");
    assert_eq!(first_error(&dumbbell), "topology.sender_delays: has 1 entries for 4 pairs");
}

/// RCP's floor above the link's rate is refused at its path (it used to pass validation and
/// panic in the rate computation).
#[test]
fn an_rcp_floor_above_the_link_rate_is_refused() {
    assert_eq!(
        first_error(&with_ka(r#"rcp = { min_rate = "200Mbps" }"#)),
        "topology.bottleneck.ka.rcp.min_rate: 200Mbps is above the link's rate, 100Mbps"
    );
}

/// A fat-tree's k is even and bounded before anything is built (k near 2^31 overflowed).
#[test]
fn a_fat_tree_k_out_of_range_is_refused_before_building() {
    let fat_tree = |k: &str| {
        format!(
            "[run]\nduration = \"1s\"\n[topology]\nkind = \"fat_tree\"\nk = {k}\nlink = {{ rate = \"1Gbps\", delay = \"1us\" }}\n[[workload]]\nkind = \"bulk\"\n"
        )
    };
    for k in ["3", "130", "2147483646"] {
        assert!(first_error(&fat_tree(k)).starts_with("topology.k: "), "k = {k}");
    }
    assert!(errors(&fat_tree("4")).is_empty());
}

/// No time a scenario gives may exceed 10⁶ s (a `max_rto` near 2⁶⁴ ps froze the clock; a
/// 213-day think time wrapped to zero): each is refused at its path.
#[test]
fn times_beyond_a_million_seconds_are_refused_at_their_path() {
    let e = first_error(&GOOD.replace("min_rto = \"200ms\"", "min_rto = \"200ms\"\nmax_rto = \"1000001s\""));
    assert!(e.starts_with("transport.max_rto: ") && e.contains("longer than the longest time"), "{e}");
    // 18 446 745 s is past the end of the 64-bit picosecond clock: too long, not malformed.
    let e = first_error(&GOOD.replace("duration = \"2s\"", "duration = \"18446745s\""));
    assert!(e.starts_with("run.duration: ") && e.contains("longer than the longest time"), "{e}");
    let e = first_error(&GOOD.replace("duration = \"2s\"", "duration = \"1e-20s\""));
    assert!(e.contains("is not a duration"), "{e}");
    assert!(errors(&GOOD.replace("duration = \"2s\"", "duration = \"1000000s\"")).is_empty());
    let web = GOOD.replace(
        "kind = \"bulk\"\nflows = 4",
        "kind = \"on_off\"\nclients = 4\nsize = \"10KB\"\noff = \"18446744s\"",
    );
    let e = first_error(&web);
    assert!(e.starts_with("workload[0].off: ") && e.contains("longer than the longest time"), "{e}");
}

/// NaN and infinity in a distribution's parameters are refused at their path (they used to
/// become other numbers silently).
#[test]
fn non_finite_distribution_parameters_are_refused() {
    let on_off = |size: &str| {
        GOOD.replace(
            "kind = \"bulk\"\nflows = 4",
            &format!("kind = \"on_off\"\nclients = 2\nsize = {size}\noff = \"1s\""),
        )
    };
    for (size, key) in [
        (r#"{ dist = "pareto", shape = nan, mean = "100KB" }"#, "shape"),
        (r#"{ dist = "lognormal", mean = "100KB", sigma = inf }"#, "sigma"),
        (r#"{ dist = "empirical", values = ["1KB", "2KB"], probs = [0.5, nan] }"#, "probs"),
    ] {
        let e = first_error(&on_off(size));
        assert!(
            e.starts_with(&format!("workload[0].size.{key}")) && e.contains("not a finite number"),
            "{e}"
        );
    }
}

/// A cbr or on_off workload that stops before it starts is refused at its `stop`.
#[test]
fn a_workload_that_stops_before_it_starts_is_refused() {
    let cbr = GOOD.replace(
        "kind = \"bulk\"\nflows = 4",
        "kind = \"cbr\"\nsrc = \"s0\"\ndst = \"r0\"\nrate = \"1Mbps\"\nstart = \"2s\"\nstop = \"1s\"",
    );
    assert_eq!(first_error(&cbr), "workload[0].stop: 1s is not after the start (2s)");
    let on_off = GOOD.replace(
        "kind = \"bulk\"\nflows = 4",
        "kind = \"on_off\"\nclients = 2\nsize = \"10KB\"\noff = \"1s\"\nstart = \"3s\"\nstop = \"3s\"",
    );
    assert_eq!(first_error(&on_off), "workload[0].stop: 3s is not after the start (3s)");
}

/// A file without a topology says so at `topology`.
#[test]
fn a_missing_topology_is_reported_at_its_path() {
    let e = first_error("[run]\nduration = \"1s\"\n");
    assert!(e.starts_with("topology: "), "{e}");
}

#[test]
fn a_pairs_permutation_over_an_odd_number_of_hosts_is_refused() {
    let perm = |hosts: &str| {
        format!("{GOOD}\n[[workload]]\nkind = \"permutation\"\npattern = \"pairs\"\nhosts = {hosts}\n")
    };
    assert_eq!(
        first_error(&perm(r#"["s0", "s1", "r0"]"#)),
        "workload[2].hosts: pattern = \"pairs\" pairs hosts off: 3 hosts would leave one out"
    );
    let (_, spec) = Scenario::load(&perm(r#"["s0", "s1", "r0", "r1"]"#)).unwrap();
    assert_eq!(spec.flows.iter().filter(|f| f.group == 2).count(), 2);
}

#[test]
fn a_segment_larger_than_an_mtu_on_its_path_is_refused() {
    let jumbo = |access_mtu: &str, bottleneck_mtu: &str, transport: &str| {
        GOOD.replace(r#"delay = "1ms" }"#, &format!(r#"delay = "1ms"{access_mtu} }}"#))
            .replace(r#"limit = "100pkts" }"#, &format!(r#"limit = "100pkts" }}{bottleneck_mtu}"#))
            .replace("min_rto = \"200ms\"", &format!("min_rto = \"200ms\"\n{transport}"))
    };
    // At the bottleneck, between the two switches.
    let e = errors(&jumbo(", mtu = 9000", "", "mss = 8960"));
    assert!(
        e[0].starts_with(
            "workload[0]: a full segment (9000 B: mss 8960 and 40 B of headers) does not fit the \
             1500-byte MTU of left->right on the way from s0 to r0; lower transport.mss to 1460"
        ),
        "{e:?}"
    );
    assert_eq!(e.len(), 2, "one report per workload: {e:?}");
    // At the sender's NIC.
    let e = first_error(&jumbo("", ", mtu = 9000", "mss = 8960"));
    assert!(e.contains("1500-byte MTU of s0->left"), "{e}");
    // Every link large enough; or a Kick-Ass flow, which leaves DF clear for routers to
    // fragment; or an MSS that fits exactly.
    assert!(errors(&jumbo(", mtu = 9000", ", mtu = 9000", "mss = 8960")).is_empty());
    assert!(errors(&jumbo(", mtu = 9000", "", "mss = 8960\ncc = \"kick-ass\"")).is_empty());
    assert!(errors(&jumbo("", "", "mss = 1460")).is_empty());
    assert!(first_error(&jumbo("", "", "mss = 1461")).contains("lower transport.mss to 1460"));
}

#[test]
fn a_byte_buffer_holds_a_full_size_packet() {
    let buffer = |queue: &str| GOOD.replace(r#"{ kind = "droptail", limit = "100pkts" }"#, queue);
    assert_eq!(
        first_error(&buffer(r#"{ kind = "droptail", limit = "1B" }"#)),
        "topology.bottleneck.queue.limit: 1 B cannot hold one full-size packet of this link (1500 B, its MTU)"
    );
    assert!(
        first_error(&buffer(r#"{ kind = "cp", data = { kind = "red", limit = "1499B" } }"#))
            .starts_with("topology.bottleneck.queue.data.limit: 1499 B cannot hold")
    );
    assert!(errors(&buffer(r#"{ kind = "droptail", limit = "1500B" }"#)).is_empty());
}

#[test]
fn an_initial_ssthresh_is_at_least_two_segments_and_reaches_the_socket() {
    let with = |v: &str| {
        GOOD.replace("min_rto = \"200ms\"", &format!("min_rto = \"200ms\"\ninitial_ssthresh = \"{v}\""))
    };
    assert_eq!(
        first_error(&with("1000B")),
        "transport.initial_ssthresh: 1000 B is below two segments (2920 B)"
    );
    let (_, spec) = Scenario::load(&with("65535B")).unwrap();
    assert_eq!(spec.flows[0].tcp.initial_ssthresh, Some(65_535));
    let (_, spec) = Scenario::load(GOOD).unwrap();
    assert_eq!(spec.flows[0].tcp.initial_ssthresh, None);
}

#[test]
fn timeseries_flows_of_a_generated_workload_are_refused_with_the_reason() {
    let src = r#"
[run]
duration = "1s"
[topology]
kind = "star"
senders = 4
access = { rate = "1Gbps", delay = "25us" }
bottleneck = { rate = "1Gbps", delay = "25us" }
[[workload]]
kind = "incast"
block = "20000B"
rounds = 2
[output]
timeseries = "1ms"
timeseries_flows = [0]
"#;
    let e = first_error(src);
    assert!(e.contains("output.timeseries_flows[0]"), "{e}");
    assert!(e.contains("no flow is known before the run"), "{e}");
    assert!(!e.contains("0 to 0"), "{e}");
}
