//! The `[hosts]` table into the shims every host runs: PLTS's DUPACK filter, the super-packet
//! sender, super-packet attackers.

use crate::host::ShimRecipe;
use crate::mechanisms::plts::{FilterKind, FilterParams};
use crate::mechanisms::sp::{SpAttackerSpec, SpSenderSpec};
use crate::scenario::Scenario;
use crate::scenario::schema::DupAckFilterName;

use super::Problems;
use super::checks::{check_sp_without_ecn, check_sp_without_ka};
use super::names::Names;

/// The shims of a scenario's hosts, in chain order: the DUPACK filter, the SP sender, the
/// attackers.
pub(super) fn host_shims(sc: &Scenario, names: &Names, p: &mut Problems) -> Vec<ShimRecipe> {
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
    let sp_attackers: Vec<SpAttackerSpec> = hosts
        .sp_attackers
        .iter()
        .enumerate()
        .filter_map(|(i, n)| names.host(n, &format!("hosts.sp_attackers[{i}]"), p))
        .map(|host| SpAttackerSpec { host, length: hosts.sp_attack_length })
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
    let mut shims: Vec<ShimRecipe> = dupack_filter.into_iter().map(ShimRecipe::new).collect();
    shims.extend(sp_sender.map(ShimRecipe::new));
    shims.extend(sp_attackers.into_iter().map(ShimRecipe::new));
    shims
}
