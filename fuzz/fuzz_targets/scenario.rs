//! Any bytes as a scenario file: refused with a field path, or built within small limits and
//! run for its first events — never a panic (`routerlab::sim::probe`).
#![no_main]

use libfuzzer_sys::fuzz_target;
use routerlab::scenario::budget::Limits;
use routerlab::sim::probe::probe;

const LIMITS: Limits = Limits { memory: 256 << 20, output: 256 << 20 };

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    if let Err(e) = probe(&text, &LIMITS, 20_000) {
        panic!("{e}");
    }
});
