//! The emulator's entry points (`routerlab.emulation` drives them): a scenario's plan for real
//! hosts, and the network between them run on the frames of the veth interfaces given, in the
//! calling process's network namespace.

use pyo3::exceptions::{PyOSError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::PyDict;

use routerlab::ids::HostId;
use routerlab::net::Network;
use routerlab::scenario::Scenario;
use routerlab::sim::{LinkRow, SimSpec};
use routerlab::units::SimTime;
use routerlab_emu::plan::{LinuxTcp, plan};
use routerlab_emu::router::Router;
use routerlab_emu::wire::{Attachment, run};

use crate::columns::Column;

fn spec(text: &str, seed: Option<u64>, base_dir: Option<std::path::PathBuf>) -> PyResult<SimSpec> {
    let mut sc = Scenario::parse(text).map_err(crate::reject)?;
    sc.base_dir = base_dir;
    if let Some(s) = seed {
        sc.set_seed(s);
    }
    sc.to_spec().map_err(crate::reject)
}

/// What the hosts of a scenario run: `{"hosts", "host_names", "duration_s", "flows": [...]}`;
/// ValueError with every reason the scenario cannot be emulated.
#[pyfunction]
#[pyo3(signature = (text, seed=None, base_dir=None))]
pub fn emulation_plan<'py>(
    py: Python<'py>,
    text: &str,
    seed: Option<u64>,
    base_dir: Option<std::path::PathBuf>,
) -> PyResult<Bound<'py, PyDict>> {
    let spec = spec(text, seed, base_dir)?;
    let net = Network::build(&spec.topology, spec.seed);
    let names = (0..net.hosts.len() as u32).map(|h| net.host_name(HostId(h)).to_string()).collect();
    let p = plan(&spec, names).map_err(PyValueError::new_err)?;
    let d = PyDict::new(py);
    d.set_item("hosts", p.hosts)?;
    d.set_item("host_names", p.host_names)?;
    d.set_item("duration_s", p.duration.as_secs_f64())?;
    d.set_item("seed", spec.seed)?;
    let tcp = |row: &Bound<'py, PyDict>, t: &LinuxTcp| -> PyResult<()> {
        row.set_item("cc", t.cc)?;
        row.set_item("ecn", t.ecn)?;
        row.set_item("sack", t.sack)?;
        row.set_item("mss", t.mss)
    };
    let flows = pyo3::types::PyList::empty(py);
    for f in &p.flows {
        let row = PyDict::new(py);
        row.set_item("group", &f.group)?;
        row.set_item("src", f.src)?;
        row.set_item("dst", f.dst)?;
        row.set_item("start_s", f.start.as_secs_f64())?;
        row.set_item("size_bytes", f.size)?;
        row.set_item("stop_s", f.stop.map(|s| s.as_secs_f64()))?;
        tcp(&row, &f.tcp)?;
        flows.append(row)?;
    }
    let incasts = pyo3::types::PyList::empty(py);
    for ic in &p.incasts {
        let row = PyDict::new(py);
        row.set_item("group", &ic.group)?;
        row.set_item("senders", &ic.senders)?;
        row.set_item("receiver", ic.receiver)?;
        row.set_item("block_bytes", ic.block)?;
        row.set_item("rounds", ic.rounds)?;
        row.set_item("start_s", ic.start.as_secs_f64())?;
        row.set_item("gap_s", ic.gap.as_secs_f64())?;
        row.set_item("jitter_s", ic.jitter.as_secs_f64())?;
        row.set_item("opens_s", ic.opens.iter().map(|t| t.as_secs_f64()).collect::<Vec<_>>())?;
        tcp(&row, &ic.tcp)?;
        incasts.append(row)?;
    }
    d.set_item("incasts", incasts)?;
    let on_offs = pyo3::types::PyList::empty(py);
    for g in &p.on_offs {
        let row = PyDict::new(py);
        row.set_item("group", &g.group)?;
        row.set_item("clients", &g.clients)?;
        row.set_item("start_s", g.start.as_secs_f64())?;
        row.set_item("stop_s", g.stop.map(|t| t.as_secs_f64()))?;
        let draws: Vec<Vec<(f64, u64)>> = g
            .draws
            .iter()
            .map(|c| c.iter().map(|(off, size)| (off.as_secs_f64(), *size)).collect())
            .collect();
        row.set_item("draws", draws)?;
        tcp(&row, &g.tcp)?;
        on_offs.append(row)?;
    }
    d.set_item("on_offs", on_offs)?;
    d.set_item("flows", flows)?;
    Ok(d)
}

/// Run the scenario's network on real frames for `duration_s`: `attachments` are
/// `(host, interface, host MAC, own MAC)`, the router's ends of the hosts' veth pairs in this
/// process's namespace; time zero is `start` (`time.monotonic()` seconds), or at once. Returns the links table (as the simulator writes it) and the timing
/// error per host, and the scenario's pcap captures:
/// `{"links": {...}, "lateness": [(host, sent, median_s, p99_s)], "pcaps": [(link, bytes)], ...}`.
#[pyfunction]
#[pyo3(signature = (text, attachments, duration_s, start=None, seed=None, base_dir=None))]
#[allow(clippy::too_many_arguments)]
pub fn emulate_network<'py>(
    py: Python<'py>,
    text: &str,
    attachments: Vec<(u32, String, Vec<u8>, Vec<u8>)>,
    duration_s: f64,
    start: Option<f64>,
    seed: Option<u64>,
    base_dir: Option<std::path::PathBuf>,
) -> PyResult<Bound<'py, PyDict>> {
    let spec = spec(text, seed, base_dir)?;
    let mac = |b: &[u8]| -> PyResult<[u8; 6]> {
        b.try_into().map_err(|_| PyValueError::new_err("a MAC is 6 bytes"))
    };
    let attach = attachments
        .iter()
        .map(|(h, ifname, host_mac, own_mac)| {
            Ok(Attachment {
                host: HostId(*h),
                ifname: ifname.clone(),
                host_mac: mac(host_mac)?,
                own_mac: mac(own_mac)?,
            })
        })
        .collect::<PyResult<Vec<_>>>()?;
    let mut router = Router::new(Network::build(&spec.topology, spec.seed));
    let m = &spec.output.measure;
    router.capture(&m.pcap, m.pcap_snaplen, m.pcap_max_packets);
    let until = SimTime::from_secs_f64_bounded(duration_s);
    let stop = std::sync::atomic::AtomicBool::new(false);
    let report = py
        .detach(|| run(&mut router, &attach, start, until, &stop))
        .map_err(|e| PyOSError::new_err(e.to_string()))?;
    let net = router.network();
    let rows: Vec<LinkRow> =
        net.ports.iter().map(|p| LinkRow::of_port(p, &net.port_names[p.id.idx()], report.ended_at)).collect();
    let links = PyDict::new(py);
    macro_rules! column {
        ($name:ident) => {
            links.set_item(stringify!($name), Column::of(rows.iter().map(|r| &r.$name)).into_py(py)?)?;
        };
    }
    column!(link);
    column!(rate_bps);
    column!(tx_packets);
    column!(tx_bytes);
    column!(utilization);
    column!(drops);
    column!(cuts);
    column!(header_drops);
    column!(cp_overload_s);
    column!(ecn_marks);
    column!(queue_high_water_packets);
    column!(mean_queue_packets);
    column!(mean_queue_bytes);
    let out = PyDict::new(py);
    out.set_item("links", links)?;
    let lateness: Vec<(u32, usize, Option<f64>, Option<f64>)> = attach
        .iter()
        .zip(&report.lateness)
        .map(|(a, l)| {
            let (median, p99) = l.median_p99();
            (a.host.0, l.late_ns.len(), median, p99)
        })
        .collect();
    out.set_item("lateness", lateness)?;
    out.set_item("read_late", report.read_late.median_p99())?;
    out.set_item("frames_in", report.frames_in)?;
    out.set_item("frames_out", report.frames_out)?;
    out.set_item("ignored", report.ignored)?;
    out.set_item("ended_s", report.ended_at.as_secs_f64())?;
    out.set_item("no_route_drops", router.no_route_drops)?;
    let pcaps: Vec<(String, Bound<'py, pyo3::types::PyBytes>)> = router
        .pcaps()
        .into_iter()
        .map(|(name, bytes)| (name, pyo3::types::PyBytes::new(py, &bytes)))
        .collect();
    out.set_item("pcaps", pcaps)?;
    Ok(out)
}
