/*! # routerlab — a packet-level laboratory for router-assisted transport

routerlab simulates networks packet by packet to study mechanisms in which routers help TCP:
super-packets, Kick-Ass, PLTS packet spraying, CP (cutting payload) and TAQ, against the
baselines they were compared with. This crate is the simulation core; the `routerlab` Python
package and command line are built on it.

Data flows one way: **scenario → topology + workload → engine → results**.

| layer | module | contract |
|---|---|---|
| units | [`units`] | integer picoseconds, bits/s, bytes; exact parsing of `"1.25ms"`, `"1Gbps"` |
| engine | [`engine`] | events ordered by (time, sequence); deterministic |
| network | [`net`] | packets (header fields) in an arena; ports = queue + transmitter + pipe; routing |
| queues | [`qdisc`] | `enqueue → Verdict`, `dequeue`; drops carry their cause |
| mechanisms | [`mechanisms`] | the papers' mechanisms, a folder each, a file per part |
| transport | [`tcp`] | TCP as a sans-IO state machine; pluggable congestion control |
| hosts | [`host`] | shims between endpoints and the NIC (endpoint-side mechanisms) |
| workloads | [`workload`] | which flows exist and when they start |
| scenario | [`scenario`] | TOML → checked [`sim::SimSpec`], errors with field paths |
| simulation | [`sim`] | the world and its event loop; results |

Beside the layers, [`machine`] times what the machine's caches give a run, for `routerlab bench`.

Invariants every module keeps: no global state (each random component owns a stream derived
from the run seed, [`rng`]); no floating point in time; no allocation per packet on the hot
path; same scenario + same seed = the same results, bit for bit.

```
use routerlab::scenario::Scenario;
use routerlab::sim::Simulation;

let text = r#"
[run]
duration = "200ms"
[topology]
kind = "dumbbell"
pairs = 2
access = { rate = "1Gbps", delay = "10us" }
bottleneck = { rate = "100Mbps", delay = "1ms", queue = { kind = "droptail", limit = "50pkts" } }
[[workload]]
kind = "bulk"
"#;
let (_scenario, spec) = Scenario::load(text).unwrap();
let mut sim = Simulation::new(&spec);
sim.run();
let results = sim.results();
assert!(results.summary.goodput_bps > 50e6);
```
*/

pub mod builtins;
pub mod engine;
pub mod host;
pub mod ids;
pub mod machine;
pub mod mechanisms;
pub mod mptcp;
pub mod net;
pub mod qdisc;
pub mod rng;
pub mod scenario;
pub mod sim;
pub mod tcp;
pub mod topology;
pub mod units;
pub mod workload;

/// routerlab's version, as recorded in every result.
pub const VERSION: &str = env!("CARGO_PKG_VERSION");
