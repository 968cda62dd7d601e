//! The router-assisted mechanisms, one folder each, one file per part (router side, endpoint
//! side). Parts that are a queue discipline, a port stage, a forwarding policy or a host shim
//! implement the engine's traits; endpoint parts that live inside TCP are called from
//! [`crate::tcp`].

pub mod cp;
pub mod ka;
pub mod plts;
pub mod sp;
pub mod taq;

use crate::net::stage::{BuildStage, PortStage};
use crate::units::Rate;

/// A built-in port stage and its parameters, as a scenario specifies it (`net::stage` takes
/// any [`BuildStage`]; these are the ones scenario files name).
#[derive(Clone, Debug, PartialEq)]
pub enum StageSpec {
    /// Super-packet admission (`sp::manager`).
    Sp(sp::SpParams),
    /// Kick-Ass's rate signalling (`ka::router`).
    KickAss(ka::KaParams),
    /// Native RCP's rate stamping (`ka::rcp_router`).
    Rcp(ka::RcpParams),
}

impl BuildStage for StageSpec {
    fn build(&self, rate: Rate) -> Box<dyn PortStage> {
        match self {
            StageSpec::Sp(p) => Box::new(sp::SpManager::new(*p)),
            StageSpec::KickAss(p) => Box::new(ka::KaRouter::new(*p, rate)),
            StageSpec::Rcp(p) => Box::new(ka::RcpRouter::new(*p, rate)),
        }
    }
}
