//! Python bindings: `routerlab._core`.
//!
//! A thin layer: parse and check scenarios, step a simulation with the GIL released (so that
//! Ctrl-C and progress bars work between steps), and hand results to Python as columns of
//! Arrow buffers ([`columns`]), which the Python side wraps into Arrow tables. All policy —
//! files, progress, plots — lives in Python.

mod alloc;
mod columns;
mod emulation;

use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::PyDict;

use routerlab::scenario::Scenario;
use routerlab::sim::{Results, Simulation};

use columns::Column;

/// Messages for a rejected scenario, one per problem.
fn reject(errs: Vec<routerlab::scenario::ScenarioError>) -> PyErr {
    let msgs: Vec<String> = errs.iter().map(|e| e.to_string()).collect();
    PyValueError::new_err(msgs)
}

/// Check a scenario's text; returns the list of problems (empty when valid).
#[pyfunction]
#[pyo3(signature = (text, base_dir=None))]
fn check(text: &str, base_dir: Option<std::path::PathBuf>) -> Vec<String> {
    let errs = match Scenario::parse(text) {
        Ok(mut sc) => {
            sc.base_dir = base_dir;
            match sc.to_spec() {
                Ok(_) => return Vec::new(),
                Err(e) => e,
            }
        }
        Err(e) => e,
    };
    errs.iter().map(|e| e.to_string()).collect()
}

/// The normalized scenario (defaults filled, seed removed) as canonical JSON; raises ValueError
/// with the list of problems if the scenario is invalid. Cheaper than building a `Run`.
#[pyfunction]
#[pyo3(signature = (text, base_dir=None))]
fn normalize(text: &str, base_dir: Option<std::path::PathBuf>) -> PyResult<String> {
    let mut sc = Scenario::parse(text).map_err(reject)?;
    sc.base_dir = base_dir;
    sc.to_spec().map_err(reject)?;
    Ok(sc.normalized_json())
}

/// A size as the limits' messages write it: "41.2 GiB".
#[pyfunction]
fn format_bytes(bytes: u64) -> String {
    routerlab::scenario::budget::bytes(bytes)
}

/// The work a valid scenario implies: (bytes of memory, bytes of results), estimated as the
/// limits check it; raises ValueError with the list of problems if the scenario is invalid.
#[pyfunction]
#[pyo3(signature = (text, base_dir=None))]
fn estimate(text: &str, base_dir: Option<std::path::PathBuf>) -> PyResult<(u64, u64)> {
    let mut sc = Scenario::parse(text).map_err(reject)?;
    sc.base_dir = base_dir;
    let e = routerlab::scenario::budget::estimate(&sc);
    Ok((e.memory(), e.output()))
}

/// A size in bytes as scenarios write them ("64GB", "1.5MiB"), or None if it is not one.
#[pyfunction]
fn parse_bytes(text: &str) -> Option<u64> {
    routerlab::units::parse_bytes(text)
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
    /// `base_dir`: where relative file names in the scenario (CSV flow lists) are found.
    #[new]
    #[pyo3(signature = (text, seed=None, base_dir=None))]
    fn new(text: &str, seed: Option<u64>, base_dir: Option<std::path::PathBuf>) -> PyResult<Run> {
        let mut sc = Scenario::parse(text).map_err(reject)?;
        sc.base_dir = base_dir;
        if let Some(s) = seed {
            sc.set_seed(s);
        }
        let spec = sc.to_spec().map_err(reject)?;
        Ok(Run { sim: Simulation::new(&spec), normalized: sc.normalized_json(), seed: sc.seed() })
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

    /// Process up to `max_events` events, or for about `max_seconds` of wall time, whichever
    /// ends first, without holding the GIL; returns True when done. The time bound keeps a
    /// stop (Ctrl-C, SIGTERM: handled between steps) prompt however slow the events are.
    #[pyo3(signature = (max_events, max_seconds=0.1))]
    fn step(&mut self, py: Python<'_>, max_events: u64, max_seconds: f64) -> bool {
        // Events between looks at the clock: far apart enough to cost nothing.
        const CHUNK: u64 = 1024;
        let sim = &mut self.sim;
        let deadline = std::time::Duration::from_secs_f64(max_seconds.clamp(0.0, 3600.0));
        py.detach(|| {
            let start = std::time::Instant::now();
            let mut left = max_events;
            while left > 0 {
                let n = left.min(CHUNK);
                if sim.step(n) {
                    return true;
                }
                left -= n;
                if start.elapsed() >= deadline {
                    break;
                }
            }
            false
        })
    }

    /// Packet captures: `[(link name, pcap bytes)]`.
    fn pcaps<'py>(&self, py: Python<'py>) -> Vec<(String, Bound<'py, pyo3::types::PyBytes>)> {
        self.sim
            .pcaps()
            .into_iter()
            .map(|(name, bytes)| (name, pyo3::types::PyBytes::new(py, &bytes)))
            .collect()
    }

    /// Summary and tables of the run so far: `{"summary": {...}, "flows": {col: [...]}, "links": {...}}`.
    fn results<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        results_dict(py, &self.sim.results(), &self.sim.network().port_names)
    }
}

fn results_dict<'py>(py: Python<'py>, r: &Results, names: &[String]) -> PyResult<Bound<'py, PyDict>> {
    // A table: a dict of columns, each given as `name: values`.
    macro_rules! table {
        ($($name:ident: $values:expr),+ $(,)?) => {{
            let d = PyDict::new(py);
            $( d.set_item(stringify!($name), Column::of($values).into_py(py)?)?; )+
            d
        }};
    }
    // A table of rows: one column per field.
    macro_rules! rows {
        ($rows:expr, $($name:ident),+ $(,)?) => {
            table!($($name: $rows.iter().map(|x| &x.$name)),+)
        };
    }
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
    summary.set_item("transfers", s.transfers)?;
    summary.set_item("transfers_completed", s.transfers_completed)?;
    summary.set_item("active_seconds", s.active_seconds)?;
    summary.set_item("active_goodput_bps", s.active_goodput_bps)?;
    summary.set_item("retransmissions", s.retransmissions)?;
    summary.set_item("timeouts", s.timeouts)?;
    summary.set_item("spurious_timeouts", s.spurious_timeouts)?;
    summary.set_item("loss_probes", s.loss_probes)?;
    summary.set_item("syn_timeouts", s.syn_timeouts)?;
    summary.set_item("jain_short_mean", s.jain_short_mean)?;

    let flows = rows!(
        r.flows,
        flow_id,
        group,
        protocol,
        src,
        dst,
        size_bytes,
        start_s,
        fct_s,
        bytes_acked,
        bytes_delivered,
        goodput_bps,
        retransmissions,
        spurious_retransmissions,
        fast_recoveries,
        timeouts,
        spurious_timeouts,
        loss_probes,
        syn_timeouts,
        loss_detection_s,
        retransmitted_segments,
        max_silence_s,
        rate_mode_switches,
        rate_mode_s,
    );
    let transfers = rows!(r.transfers, transfer_id, flow_id, group, seq, size_bytes, start_s, end_s);
    let links = rows!(
        r.links,
        link,
        rate_bps,
        tx_packets,
        tx_bytes,
        utilization,
        drops,
        cuts,
        header_drops,
        cp_overload_s,
        ecn_marks,
        queue_high_water_packets,
        mean_queue_packets,
        mean_queue_bytes,
    );
    let out = PyDict::new(py);
    out.set_item("summary", summary)?;
    out.set_item("flows", flows)?;
    out.set_item("links", links)?;
    out.set_item("transfers", transfers)?;
    let port_name = |i: &u32| names[*i as usize].as_str();
    if let Some(q) = &r.queues {
        let t = table!(
            t_s: &q.t_s,
            link: q.port.iter().map(port_name),
            queue_packets: &q.packets,
            queue_bytes: &q.bytes,
            utilization: &q.utilization,
        );
        out.set_item("queues", t)?;
    }
    if let Some(f) = &r.fairness {
        let t = table!(
            start_s: &f.start_s,
            end_s: &f.end_s,
            jain_index: &f.jain,
            flows: &f.flows,
            silent_flows: &f.silent_flows,
        );
        out.set_item("fairness", t)?;
    }
    if let Some(l) = &r.latency {
        let t = table!(probe: &l.probe, t_s: &l.t_s, latency_s: &l.latency_s, flow_id: &l.flow_id);
        out.set_item("latency", t)?;
    }
    if let Some(q) = &r.queue_delay {
        let t = table!(
            link: q.iter().map(|x| &x.0),
            lower_s: q.iter().map(|x| x.1),
            upper_s: q.iter().map(|x| x.2),
            count: q.iter().map(|x| x.3),
        );
        out.set_item("queue_delay", t)?;
    }
    if let Some(e) = &r.flow_epochs {
        let t = table!(
            link: &e.link,
            flow_id: &e.flow_id,
            end_s: &e.end_s,
            from_state: &e.from_state,
            to_state: &e.to_state,
            packets: &e.packets,
            drops: &e.drops,
            epochs: &e.epochs,
        );
        out.set_item("flow_epochs", t)?;
    }
    if let Some(s) = &r.stages {
        let t = table!(at: &s.at, stage: &s.stage, counter: &s.counter, value: &s.value);
        out.set_item("stages", t)?;
    }
    if let Some(ts) = &r.timeseries {
        let t = table!(
            t_s: &ts.t_s,
            flow_id: &ts.flow_id,
            cwnd_bytes: &ts.cwnd_bytes,
            ssthresh_bytes: &ts.ssthresh_bytes,
            srtt_s: &ts.srtt_s,
            rto_s: &ts.rto_s,
            in_flight_bytes: &ts.in_flight_bytes,
            send_rate_bps: &ts.send_rate_bps,
            delivered_bps: &ts.delivered_bps,
            state: &ts.state,
            signalled_rate_bps: &ts.signalled_rate_bps,
            rate_mode: &ts.rate_mode,
        );
        out.set_item("timeseries", t)?;
    }
    Ok(out)
}

/// routerlab's version.
/// Kick-Ass's rate code, as the routers and receivers use it: for every leading-fragment
/// length (24…1480 in steps of 8), the rate it stands for (bit/s) and the length the encoder
/// gives that rate back (the round trip).
#[pyfunction]
fn ka_levels() -> Vec<(u32, u64, Option<u32>)> {
    use routerlab::mechanisms::ka::encoding as e;
    (0..e::LEVELS)
        .map(|i| {
            let len = e::MIN_LENGTH + i * e::LENGTH_STEP;
            let rate = e::decode_length(len).expect("a level decodes");
            (len, rate.bps(), e::length_for_rate(rate))
        })
        .collect()
}

/// Kick-Ass's RTT indicators: for every size (600…611), the RTT a router reads (s), and the
/// size an endpoint sends for that RTT (the round trip).
#[pyfunction]
fn ka_indicators() -> Vec<(u32, f64, u32)> {
    use routerlab::mechanisms::ka::encoding as e;
    (e::INDICATOR_MIN_BYTES..=e::INDICATOR_MAX_BYTES)
        .map(|size| {
            let rtt = e::indicator_rtt(size).expect("an indicator size");
            (size, rtt.as_secs_f64(), e::indicator_size(rtt))
        })
        .collect()
}

/// Jain's fairness index of `xs` (None for none), as the simulator's summaries compute it.
#[pyfunction]
fn jain_index(xs: Vec<f64>) -> Option<f64> {
    routerlab::sim::jain_index(&xs)
}

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

/// Nanoseconds per dependent load through a working set of `kib` KiB (`routerlab::machine`),
/// with the GIL released: the caches this minute gives a run, for `routerlab bench`.
#[pyfunction]
#[pyo3(signature = (kib, steps=1_000_000))]
fn load_latency_ns(py: Python<'_>, kib: usize, steps: usize) -> PyResult<f64> {
    py.detach(|| routerlab::machine::load_latency_ns(kib, steps)).map_err(PyValueError::new_err)
}

#[pymodule]
fn _core(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<Run>()?;
    m.add_function(wrap_pyfunction!(check, m)?)?;
    m.add_function(wrap_pyfunction!(normalize, m)?)?;
    m.add_function(wrap_pyfunction!(estimate, m)?)?;
    m.add_function(wrap_pyfunction!(parse_bytes, m)?)?;
    m.add_function(wrap_pyfunction!(format_bytes, m)?)?;
    m.add_function(wrap_pyfunction!(version, m)?)?;
    m.add_function(wrap_pyfunction!(ka_levels, m)?)?;
    m.add_function(wrap_pyfunction!(ka_indicators, m)?)?;
    m.add_function(wrap_pyfunction!(git_commit, m)?)?;
    m.add_function(wrap_pyfunction!(peak_heap_bytes, m)?)?;
    m.add_function(wrap_pyfunction!(reset_peak_heap, m)?)?;
    m.add_function(wrap_pyfunction!(load_latency_ns, m)?)?;
    m.add_function(wrap_pyfunction!(jain_index, m)?)?;
    m.add_function(wrap_pyfunction!(emulation::emulation_plan, m)?)?;
    m.add_function(wrap_pyfunction!(emulation::emulate_network, m)?)?;
    Ok(())
}
