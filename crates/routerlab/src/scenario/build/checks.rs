//! Constraints across tables: mechanisms that cannot share a scenario.

use crate::scenario::Scenario;
use crate::scenario::schema::{Cc, DupAckFilterName, Link, Queue, Topology, Transport};

use super::Problems;

/// Every link table of the topology, with its path.
pub(super) fn topology_links(t: &Topology) -> Vec<(String, Link)> {
    let named = |v: Vec<(&str, Option<&Link>)>| {
        v.into_iter().filter_map(|(n, l)| Some((format!("topology.{n}"), l?.clone()))).collect()
    };
    match t {
        Topology::Dumbbell(d) => {
            named(vec![("access", Some(&d.access)), ("bottleneck", Some(&d.bottleneck))])
        }
        Topology::Star(s) => named(vec![("access", Some(&s.access)), ("bottleneck", Some(&s.bottleneck))]),
        Topology::ParkingLot(pl) => named(vec![("link", Some(&pl.link)), ("access", Some(&pl.access))]),
        Topology::FatTree(f) => named(vec![("link", Some(&f.link)), ("host_link", f.host_link.as_ref())]),
        Topology::Explicit(e) => {
            e.links.iter().enumerate().map(|(i, l)| (format!("topology.link[{i}]"), l.link())).collect()
        }
    }
}

/// Where a queue marks ECN, as (key, reason).
pub(super) fn queue_ecn(q: &Queue) -> Option<(&'static str, &'static str)> {
    match q {
        Queue::DropTail(d) if d.ecn_threshold.is_some() => Some(("ecn_threshold", "marks ECN")),
        Queue::Red(r) if r.ecn == Some(true) => Some(("ecn", "marks ECN")),
        Queue::FqCodel(f) if f.ecn == Some(true) => Some(("ecn", "marks ECN")),
        Queue::Cp(c) => {
            queue_ecn(&c.data).map(|(k, r)| (if k == "ecn" { "data.ecn" } else { "data.ecn_threshold" }, r))
        }
        _ => None,
    }
}

/// Every transport table of a scenario — the global one, then each workload's as resolved — with
/// a function giving the path of one of its keys where that key was *set*: in the workload's own
/// table, or else in `[transport]` (None for a workload that inherits it).
pub(super) fn transports(sc: &Scenario) -> Vec<(&Transport, impl Fn(&str) -> Option<String> + '_)> {
    std::iter::once((&sc.transport, None))
        .chain(sc.workload_transports.iter().enumerate().map(|(i, t)| (t, Some(i))))
        .map(|(t, workload)| {
            let at = move |key: &str| match workload {
                None => Some(format!("transport.{key}")),
                Some(i) => match sc.file.workloads[i].transport() {
                    Some(o) if o.contains_key(key) => Some(format!("workload[{i}].transport.{key}")),
                    _ => None,
                },
            };
            (t, at)
        })
        .collect()
}

/// Where super-packets are switched on: links' `sp` tables and transports' `sp` keys.
pub(super) fn super_packets_at(sc: &Scenario, links: &[(String, Link)]) -> Vec<String> {
    let mut at: Vec<String> =
        links.iter().filter(|(_, l)| l.sp.is_some()).map(|(n, _)| format!("{n}.sp")).collect();
    for (t, key) in transports(sc) {
        if t.sp {
            at.extend(key("sp").or(Some("transport.sp".into())));
        }
    }
    at
}

/// Super-packets put their identifier in the IPv4 identification field (§3.2), which
/// reassembly keys fragments on; Kick-Ass fragments. routerlab does not work out which flows
/// meet which routers: a scenario with both anywhere is refused.
pub(super) fn check_sp_without_ka(sc: &Scenario, p: &mut Problems) {
    let links = topology_links(&sc.file.topology);
    let Some(sp) = super_packets_at(sc, &links).into_iter().next() else { return };
    let mut ka_at: Vec<String> =
        links.iter().filter(|(_, l)| l.ka.is_some()).map(|(n, _)| format!("{n}.ka")).collect();
    for (t, key) in transports(sc) {
        if matches!(t.cc, Cc::KickAss(_)) {
            ka_at.extend(key("cc"));
        }
    }
    for path in ka_at {
        p.at(
            path,
            format!(
                "Kick-Ass fragments packets, and super-packets ({sp}) carry their identifier in the IP \
                 identification field that reassembly keys on (§3.2): the two cannot be combined"
            ),
        );
    }
}

/// Super-packets carry their flags and length in the ToS byte, ECN's two bits included (§3.2):
/// a scenario may not use both.
pub(super) fn check_sp_without_ecn(sc: &Scenario, p: &mut Problems) {
    let links = topology_links(&sc.file.topology);
    let Some(sp) = super_packets_at(sc, &links).into_iter().next() else { return };
    let mut ecn_at = Vec::new();
    for (t, at) in transports(sc) {
        if t.ecn {
            ecn_at.extend(at("ecn").map(|k| (k, "enables ECN")));
        }
        if matches!(t.cc, Cc::Dctcp(_)) {
            ecn_at.extend(at("cc").map(|k| (k, "is DCTCP, which needs ECN")));
        }
    }
    for (path, l) in &links {
        if let Some((key, why)) = l.queue.as_ref().and_then(queue_ecn) {
            ecn_at.push((format!("{path}.queue.{key}"), why));
        }
    }
    if sc.file.hosts.dupack_filter == Some(DupAckFilterName::Ecn) {
        ecn_at.push(("hosts.dupack_filter".into(), "is the ECN-based filter"));
    }
    for (path, why) in ecn_at {
        p.at(
            path,
            format!(
                "{why}, but super-packets ({sp}) use the ToS byte's ECN bits for their length (§3.2): \
                 the two cannot be combined"
            ),
        );
    }
}
