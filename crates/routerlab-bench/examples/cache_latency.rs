//! How long one dependent load takes on this machine, by working-set size, over a scan of
//! sizes (`routerlab::machine::load_latency_ns`; `routerlab bench` probes a few of them).
//!
//! ```sh
//! cargo run --release --manifest-path crates/routerlab-bench/Cargo.toml --example cache_latency
//! cargo run --release --manifest-path crates/routerlab-bench/Cargo.toml --example cache_latency -- 4096 8192
//! ```
//!
//! With arguments, only those working-set sizes (KiB) are probed.

use routerlab::machine::load_latency_ns;

const STEPS: usize = 4_000_000;

/// The sizes probed without arguments, in KiB: from well inside the L2 to well beyond the L3.
const DEFAULT_KIB: [usize; 13] =
    [64, 256, 512, 1024, 2048, 3072, 4096, 6144, 8192, 12288, 16384, 32768, 65536];

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let sizes: Vec<usize> = if args.is_empty() {
        DEFAULT_KIB.to_vec()
    } else {
        let parsed: Result<Vec<usize>, _> = args.iter().map(|a| a.parse::<usize>()).collect();
        match parsed {
            Ok(v) if v.iter().all(|&k| k > 0) => v,
            _ => {
                eprintln!("usage: cache_latency [KIB ...]  (working-set sizes, positive integers)");
                std::process::exit(2);
            }
        }
    };
    println!("{:>10}  {:>8}", "working set", "ns/load");
    for kib in sizes {
        match load_latency_ns(kib, STEPS) {
            Ok(ns) => println!("{kib:>7} KiB  {ns:>8.1}"),
            Err(e) => {
                eprintln!("cache_latency: {e}");
                std::process::exit(2);
            }
        }
    }
}
