//! Python bindings: `routerlab._core`.
//!
//! A thin layer: parse and check scenarios, step a simulation with the GIL released (so that
//! Ctrl-C and progress bars work between steps), and hand results to Python as plain columns
//! (`dict[str, list]`), which the Python side turns into Arrow tables. All policy — files,
//! progress, plots — lives in Python.

mod alloc;

use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::PyDict;

use routerlab::scenario::Scenario;
use routerlab::sim::{Results, Simulation};

/// Messages for a rejected scenario, one per problem.
fn reject(errs: Vec<routerlab::scenario::ScenarioError>) -> PyErr {
    let msgs: Vec<String> = errs.iter().map(|e| e.to_string()).collect();
    PyValueError::new_err(msgs)
}

/// Check a scenario's text; returns the list of problems (empty when valid).
#[pyfunction]
fn check(text: &str) -> Vec<String> {
    match Scenario::load(text) {
        Ok(_) => Vec::new(),
        Err(errs) => errs.iter().map(|e| e.to_string()).collect(),
    }
}

/// A simulation being run.
#[pyclass(module = "routerlab._core")]
struct Run {
    sim: Simulation,
    normalized: String,
    seed: u64,
}

#[pymethods]
impl Run {
    /// Build a run from a scenario's text; `seed` overrides the file's.
    /// Raises ValueError with the list of problems if the scenario is invalid.
    #[new]
    #[pyo3(signature = (text, seed=None))]
    fn new(text: &str, seed: Option<u64>) -> PyResult<Run> {
        let mut sc = Scenario::parse(text).map_err(reject)?;
        if let Some(s) = seed {
            sc.set_seed(s);
        }
        let spec = sc.to_spec().map_err(reject)?;
        Ok(Run {
            sim: Simulation::new(&spec),
            normalized: sc.normalized_json(),
            seed: sc.seed(),
        })
    }

    /// The normalized scenario (defaults filled, seed removed) as canonical JSON.
    #[getter]
    fn normalized(&self) -> &str {
        &self.normalized
    }

    #[getter]
    fn seed(&self) -> u64 {
        self.seed
    }

    /// Simulated time reached, seconds.
    #[getter]
    fn now_s(&self) -> f64 {
        self.sim.now().as_secs_f64()
    }

    /// Simulated time at which the run ends, seconds.
    #[getter]
    fn end_s(&self) -> f64 {
        self.sim.end().as_secs_f64()
    }

    #[getter]
    fn events(&self) -> u64 {
        self.sim.counters().events
    }

    #[getter]
    fn packet_hops(&self) -> u64 {
        self.sim.counters().packet_hops
    }

    #[getter]
    fn done(&self) -> bool {
        self.sim.is_done()
    }

    /// Process up to `max_events` events without holding the GIL; returns True when done.
    fn step(&mut self, py: Python<'_>, max_events: u64) -> bool {
        let sim = &mut self.sim;
        py.detach(|| sim.step(max_events))
    }

    /// Summary and tables of the run so far: `{"summary": {...}, "flows": {col: [...]}, "links": {...}}`.
    fn results<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        results_dict(py, &self.sim.results())
    }
}

fn results_dict<'py>(py: Python<'py>, r: &Results) -> PyResult<Bound<'py, PyDict>> {
    let s = &r.summary;
    let summary = PyDict::new(py);
    summary.set_item("sim_seconds", s.sim_seconds)?;
    summary.set_item("events", s.events)?;
    summary.set_item("packet_hops", s.packet_hops)?;
    summary.set_item("goodput_bps", s.goodput_bps)?;
    summary.set_item("drops", s.drops)?;
    summary.set_item("jain_index", s.jain_index)?;
    summary.set_item("flows", s.flows)?;
    summary.set_item("flows_completed", s.flows_completed)?;
    summary.set_item("retransmissions", s.retransmissions)?;
    summary.set_item("timeouts", s.timeouts)?;

    let flows = PyDict::new(py);
    let f = &r.flows;
    flows.set_item("flow_id", f.iter().map(|x| x.flow_id).collect::<Vec<_>>())?;
    flows.set_item(
        "group",
        f.iter().map(|x| x.group.as_str()).collect::<Vec<_>>(),
    )?;
    flows.set_item("src", f.iter().map(|x| x.src.as_str()).collect::<Vec<_>>())?;
    flows.set_item("dst", f.iter().map(|x| x.dst.as_str()).collect::<Vec<_>>())?;
    flows.set_item(
        "size_bytes",
        f.iter().map(|x| x.size_bytes).collect::<Vec<_>>(),
    )?;
    flows.set_item("start_s", f.iter().map(|x| x.start_s).collect::<Vec<_>>())?;
    flows.set_item("fct_s", f.iter().map(|x| x.fct_s).collect::<Vec<_>>())?;
    flows.set_item(
        "bytes_acked",
        f.iter().map(|x| x.bytes_acked).collect::<Vec<_>>(),
    )?;
    flows.set_item(
        "bytes_delivered",
        f.iter().map(|x| x.bytes_delivered).collect::<Vec<_>>(),
    )?;
    flows.set_item(
        "goodput_bps",
        f.iter().map(|x| x.goodput_bps).collect::<Vec<_>>(),
    )?;
    flows.set_item(
        "retransmissions",
        f.iter().map(|x| x.retransmissions).collect::<Vec<_>>(),
    )?;
    flows.set_item("timeouts", f.iter().map(|x| x.timeouts).collect::<Vec<_>>())?;

    let links = PyDict::new(py);
    let l = &r.links;
    links.set_item(
        "link",
        l.iter().map(|x| x.link.as_str()).collect::<Vec<_>>(),
    )?;
    links.set_item("rate_bps", l.iter().map(|x| x.rate_bps).collect::<Vec<_>>())?;
    links.set_item(
        "tx_packets",
        l.iter().map(|x| x.tx_packets).collect::<Vec<_>>(),
    )?;
    links.set_item("tx_bytes", l.iter().map(|x| x.tx_bytes).collect::<Vec<_>>())?;
    links.set_item(
        "utilization",
        l.iter().map(|x| x.utilization).collect::<Vec<_>>(),
    )?;
    links.set_item("drops", l.iter().map(|x| x.drops).collect::<Vec<_>>())?;
    links.set_item(
        "ecn_marks",
        l.iter().map(|x| x.ecn_marks).collect::<Vec<_>>(),
    )?;
    links.set_item(
        "queue_high_water_packets",
        l.iter()
            .map(|x| x.queue_high_water_packets)
            .collect::<Vec<_>>(),
    )?;

    let out = PyDict::new(py);
    out.set_item("summary", summary)?;
    out.set_item("flows", flows)?;
    out.set_item("links", links)?;
    Ok(out)
}

/// routerlab's version.
#[pyfunction]
fn version() -> &'static str {
    routerlab::VERSION
}

/// The git commit this extension was built from ("unknown" outside a checkout).
#[pyfunction]
fn git_commit() -> &'static str {
    env!("ROUTERLAB_GIT_COMMIT")
}

/// Peak bytes of heap the simulator (all Rust code in this process) has held.
#[pyfunction]
fn peak_heap_bytes() -> u64 {
    alloc::peak_bytes()
}

/// Reset the peak-heap counter to the current heap size.
#[pyfunction]
fn reset_peak_heap() {
    alloc::reset_peak()
}

#[pymodule]
fn _core(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<Run>()?;
    m.add_function(wrap_pyfunction!(check, m)?)?;
    m.add_function(wrap_pyfunction!(version, m)?)?;
    m.add_function(wrap_pyfunction!(git_commit, m)?)?;
    m.add_function(wrap_pyfunction!(peak_heap_bytes, m)?)?;
    m.add_function(wrap_pyfunction!(reset_peak_heap, m)?)?;
    Ok(())
}
