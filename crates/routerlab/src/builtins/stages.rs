//! The built-in port stages, as scenarios name them ([`StageSpec`]).

use crate::mechanisms::{ka, sp};
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
