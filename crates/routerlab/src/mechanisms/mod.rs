//! The router-assisted mechanisms, one folder each, one file per part (router side, endpoint
//! side). Parts that are a queue discipline, a port stage, a forwarding policy or a host shim
//! implement the engine's traits; endpoint parts that live inside TCP are called from
//! [`crate::tcp`].

pub mod cp;
pub mod ka;
pub mod plts;
pub mod sp;
pub mod taq;
