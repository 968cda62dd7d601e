//! A scenario text taken as far as fuzzers take it: parsed, checked against limits, built,
//! and run for its first events. Shared by the seeded mutation fuzz in the test suite and the
//! coverage-guided `cargo fuzz` target (`fuzz/`), which both treat a panic as a failure.

use crate::scenario::Scenario;
use crate::scenario::budget::Limits;

use super::Simulation;

/// What became of a scenario text.
#[derive(Debug, PartialEq, Eq)]
pub enum Probe {
    /// Refused, every problem at a field path (or, for a syntax error, a line).
    Refused,
    /// Built and run for the events asked.
    Ran,
}

/// Parse, check (within `limits`), build and run `events` events of `text`. Err: a refusal
/// with a problem that names no field — the one thing besides a panic that must not happen.
pub fn probe(text: &str, limits: &Limits, events: u64) -> Result<Probe, String> {
    let problems = match Scenario::parse(text).and_then(|sc| sc.to_spec_within(limits)) {
        Ok(spec) => {
            Simulation::new(&spec).step(events);
            return Ok(Probe::Ran);
        }
        Err(problems) => problems,
    };
    if problems.is_empty() {
        return Err("refused without a problem".into());
    }
    match problems.iter().find(|p| p.path.is_empty() && !p.message.starts_with("line ")) {
        Some(p) => Err(format!("a problem without a path: {:?}", p.message)),
        None => Ok(Probe::Refused),
    }
}
