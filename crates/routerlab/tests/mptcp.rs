//! MPTCP end to end: LIA's coupling on a shared bottleneck, subflows spread over ECMP paths,
//! the stream reassembled in order.

mod common;

use common::core_to_pod;
use routerlab::sim::Results;

fn run(text: &str) -> Results {
    common::run(text).1
}

/// One MPTCP connection (8 subflows) beside one TCP flow through a 100 Mbps RED bottleneck.
/// RED, because with drop-tail the losses fall on whichever flow probes when the queue is full
/// (Floyd and Jacobson's phase effects): the TCP flow, adding a segment per RTT, takes most of
/// them, while LIA's subflows grow by a fraction of a segment and rarely overflow it — there
/// the MPTCP connection ends up with several times the TCP flow's share (docs/tcp.md).
fn shared_bottleneck(coupled: bool) -> (f64, f64) {
    let r = run(&format!(
        r#"
[run]
duration = "20s"
[topology]
kind = "dumbbell"
pairs = 2
access = {{ rate = "1Gbps", delay = "100us" }}
bottleneck = {{ rate = "100Mbps", delay = "5ms", queue = {{ kind = "red", limit = "200pkts" }} }}
[transport]
sack = false
[[workload]]
kind = "bulk"
src = ["s0"]
dst = ["r0"]
transport = {{ mptcp = true, mptcp_coupled = {coupled} }}
[[workload]]
kind = "bulk"
src = ["s1"]
dst = ["r1"]
"#
    ));
    assert_eq!(r.flows[0].protocol, "mptcp");
    (r.flows[0].goodput_bps, r.flows[1].goodput_bps)
}

/// RFC 6356's second goal: on a bottleneck it shares with a TCP flow, an MPTCP connection
/// takes no more than that flow would — whatever its number of subflows. Uncoupled, eight
/// NewReno subflows take several times the TCP flow's share.
#[test]
fn coupled_mptcp_takes_about_one_tcp_share_of_a_shared_bottleneck() {
    let (mptcp, tcp) = shared_bottleneck(true);
    let ratio = mptcp / tcp;
    assert!((0.5..=1.6).contains(&ratio), "coupled: MPTCP {mptcp:.3e} vs TCP {tcp:.3e} bps ({ratio:.2})");
    assert!(mptcp + tcp > 0.8 * 100e6 * 1460.0 / 1500.0, "the link stays busy");
    let (mptcp, tcp) = shared_bottleneck(false);
    assert!(mptcp > 3.0 * tcp, "uncoupled: MPTCP {mptcp:.3e} vs TCP {tcp:.3e} bps");
}

/// The shared k = 4 fat-tree, run for `duration`.
fn fat_tree(duration: &str) -> String {
    common::FAT_TREE.replace("300ms", duration)
}

/// With `mptcp_paths = "distinct"` the subflows' source ports are chosen so their ECMP paths
/// differ: one connection between pods sends over all four core switches (at least its
/// initial windows: the sender's own link is the bottleneck here, so how much each path
/// carries afterwards is LIA's business), where one TCP flow uses one. Hashed (the default,
/// as real MPTCP), four subflows land where ECMP puts them: on more than one core switch here,
/// but not necessarily on all.
#[test]
fn subflows_take_distinct_ecmp_paths_with_the_oracle() {
    let flow = |extra: &str| {
        format!(
            "{}[[workload]]\nkind = \"bulk\"\nsrc = [\"h0\"]\ndst = [\"h15\"]\n{extra}\n",
            fat_tree("200ms")
        )
    };
    let r = run(&flow("transport = { mptcp = true, mptcp_subflows = 4, mptcp_paths = \"distinct\" }"));
    let links = core_to_pod(&r, 3);
    let total: u64 = links.iter().sum();
    assert_eq!(links.len(), 4);
    assert!(links.iter().all(|&n| n >= 2 * 10), "a subflow on every core switch: {links:?}");
    assert!(total > 10_000);
    let hashed = run(&flow("transport = { mptcp = true, mptcp_subflows = 4 }"));
    assert!(core_to_pod(&hashed, 3).iter().filter(|&&n| n > 0).count() > 1);
    assert_ne!(core_to_pod(&hashed, 3), links);
    let r = run(&flow(""));
    assert_eq!(core_to_pod(&r, 3).iter().filter(|&&n| n > 0).count(), 1);
}

/// Sized transfers over subflows that see different queues (and losses: a subflow that
/// loses its whole window waits for its timer) arrive whole, in order, and complete; the same
/// run twice gives the same results.
#[test]
fn a_sized_transfer_is_reassembled_and_completes() {
    let text = format!(
        "{}[[workload]]\nkind = \"fixed\"\nsize = \"3MB\"\nsrc = [\"h0\", \"h4\"]\ndst = [\"h15\", \"h1\"]\n\
         transport = {{ mptcp = true }}\n[[workload]]\nkind = \"permutation\"\n",
        fat_tree("1s")
    );
    let r = run(&text);
    for f in r.flows.iter().filter(|f| f.protocol == "mptcp") {
        assert_eq!(f.bytes_delivered, 3_000_000, "{f:?}");
        assert!(f.fct_s.is_some(), "{f:?}");
    }
    assert_eq!(r.flows.iter().filter(|f| f.protocol == "mptcp").count(), 2);
    assert_eq!(run(&text), r);
}
