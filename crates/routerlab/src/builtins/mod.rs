//! The built-in parts, gathered above the core: the enums that name every built-in queue
//! discipline and port stage, the core's and the mechanisms', and build them from a
//! scenario's parameters. The core (`engine`, `net`, `qdisc`, `tcp`, `host`, `sim`) sees only
//! the traits (`Qdisc`, `PortStage`, `BuildStage`); a new mechanism adds its variant here.

mod queues;
mod stages;

pub use queues::{AnyQdisc, QueueSpec};
pub use stages::StageSpec;
