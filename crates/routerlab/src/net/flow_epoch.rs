//! Flow epochs: how a port part that classifies flows (a queue or a stage) saw each flow's life,
//! one record per closed epoch, for the results' `flow_epochs` table (`[output] flow_epochs`).
//! The part defines what an epoch and a state are (`PortStage::flow_epochs`,
//! `Qdisc::flow_epochs`); the port only gathers the records.

use crate::net::packet::FlowKey;
use crate::units::SimTime;

/// One closed epoch of a flow at a port.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FlowEpoch {
    /// When the (last) epoch ended.
    pub end: SimTime,
    pub key: FlowKey,
    /// The flow's state before and after the epoch, by the part's names.
    pub from: &'static str,
    pub to: &'static str,
    /// Packets the flow sent in the epoch, and how many of them were dropped at the port.
    pub packets: u32,
    pub drops: u32,
    /// Epochs the record stands for (more than 1 for a silence closed in one step).
    pub epochs: u32,
}
