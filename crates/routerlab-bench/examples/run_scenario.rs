//! Runs one scenario file in-process and prints how long its event loop took: the binary the
//! profiling recipes in docs/performance.md point perf, cachegrind or a timing loop at.
//!
//! ```sh
//! cargo build --release --manifest-path crates/routerlab-bench/Cargo.toml --example run_scenario
//! crates/routerlab-bench/target/release/examples/run_scenario python/routerlab/benchmarks/dumbbell-1g.toml
//! ```
//! Prints `SCENARIO setup S loop S events N hops N Mhops/s X` (the rate last, for scripts).

use std::path::Path;
use std::time::Instant;

use routerlab::scenario::Scenario;
use routerlab::sim::Simulation;

fn main() {
    let Some(path) = std::env::args().nth(1) else {
        eprintln!("usage: run_scenario SCENARIO.toml");
        std::process::exit(2);
    };
    let (_, spec) = Scenario::load_file(Path::new(&path)).unwrap_or_else(|errors| {
        errors.iter().for_each(|e| eprintln!("{path}: {e}"));
        std::process::exit(1);
    });
    let built = Instant::now();
    let mut sim = Simulation::new(&spec);
    let started = Instant::now();
    sim.run();
    let wall = started.elapsed().as_secs_f64();
    let c = sim.counters();
    println!(
        "{path} setup {:.3} loop {wall:.3} events {} hops {} Mhops/s {:.3}",
        (started - built).as_secs_f64(),
        c.events,
        c.packet_hops,
        c.packet_hops as f64 / wall / 1e6
    );
    // Analysis builds (`--cfg routerlab_event_cycles`): the loop's cycles by kind of event.
    #[cfg(routerlab_event_cycles)]
    eprint!("{}", sim.event_cycles().report(c.packet_hops));
}
