//! The `[hosts]` table into the shims every host runs: PLTS's DUPACK filter, the super-packet
//! sender, super-packet attackers.

use crate::ids::HostId;
use crate::mechanisms::plts::{FilterKind, FilterParams};
use crate::scenario::Scenario;
use crate::scenario::schema::DupAckFilterName;
use crate::sim::SpSenderSpec;

use super::Problems;
use super::checks::{check_sp_without_ecn, check_sp_without_ka};
use super::names::Names;

/// The shims of a scenario's hosts.
pub(super) struct HostShims {
    pub(super) dupack_filter: Option<FilterParams>,
    pub(super) sp_sender: Option<SpSenderSpec>,
    pub(super) sp_attackers: Vec<(HostId, u32)>,
}

pub(super) fn host_shims(sc: &Scenario, names: &Names, p: &mut Problems) -> HostShims {
    let hosts = &sc.file.hosts;
    if hosts.dupack_filter_percentile.0 <= 0.0 {
        p.at("hosts.dupack_filter_percentile", "must be above 0");
    }
    let dupack_filter = hosts.dupack_filter.map(|kind| FilterParams {
        kind: match kind {
            DupAckFilterName::Ecn => FilterKind::Ecn,
            DupAckFilterName::Percentile => FilterKind::Percentile,
            DupAckFilterName::Watch => FilterKind::Watch,
        },
        percentile: hosts.dupack_filter_percentile.0,
    });
    check_sp_without_ecn(sc, p);
    check_sp_without_ka(sc, p);
    for (key, length) in
        [("sp_max_length", Some(hosts.sp_max_length)), ("sp_fixed_length", hosts.sp_fixed_length)]
    {
        if let Some(n) = length.filter(|n| !(1..=crate::mechanisms::sp::wire::MAX_SP_LENGTH).contains(n)) {
            p.at(format!("hosts.{key}"), format!("{n} is not 1 to 63 (the 6-bit length field)"));
        }
    }
    let sp_attackers: Vec<(HostId, u32)> = hosts
        .sp_attackers
        .iter()
        .enumerate()
        .filter_map(|(i, n)| names.host(n, &format!("hosts.sp_attackers[{i}]"), p))
        .map(|h| (h, hosts.sp_attack_length))
        .collect();
    if !(1..=crate::mechanisms::sp::wire::MAX_SP_LENGTH).contains(&hosts.sp_attack_length) {
        p.at(
            "hosts.sp_attack_length",
            format!("{} is not 1 to 63 (the 6-bit length field)", hosts.sp_attack_length),
        );
    }
    let sp_flows = sc.transport.sp || sc.workload_transports.iter().any(|t| t.sp);
    let sp_sender = sp_flows.then(|| SpSenderSpec {
        t_buffer: hosts.sp_buffer.map(|d| d.0),
        max_length: hosts.sp_max_length,
        fixed_length: hosts.sp_fixed_length,
    });
    HostShims { dupack_filter, sp_sender, sp_attackers }
}
