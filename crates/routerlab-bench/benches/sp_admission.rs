//! The SPManager's admission step (super-packets §3.2: "packet processing time must be small
//! and constant"): nanoseconds per packet with 10, 10⁴ and 10⁶ live super-packets, for the
//! exact table of Algorithm 1 and the Bloom variant.
//!
//! Each iteration is two packets: the first packet of an SP that reuses a live SP's key
//! (Algorithm 1's admission test and a table insert replacing the old entry) and one of its
//! followers (a lookup and a decrement), so the number of live SPs stays constant.

use std::hint::black_box;

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use routerlab::ids::HostId;
use routerlab::mechanisms::sp::{SpEpoch, SpManager, SpMark, SpParams, SpVariant};
use routerlab::units::SimTime;

const LENGTH: u8 = 63;

/// A manager holding `n` live SPs (a long fixed epoch: nothing expires while measuring).
fn manager(n: u32, variant: SpVariant) -> SpManager {
    let mut m = SpManager::new(SpParams {
        epoch: SpEpoch::Fixed(SimTime::from_secs(3600)),
        variant,
        ..Default::default()
    });
    for i in 0..n {
        let (src, id) = key(i);
        m.admit(
            SimTime::ZERO,
            src,
            HostId(0),
            SpMark { first: true, last: false, length: LENGTH, id },
            f64::INFINITY,
        );
    }
    m
}

fn key(i: u32) -> (HostId, u16) {
    (HostId(1 + i / 65_536), (i % 65_536) as u16)
}

fn admission(c: &mut Criterion) {
    let mut g = c.benchmark_group("sp_admission");
    g.throughput(Throughput::Elements(2));
    for (name, variant) in [("algorithm1", SpVariant::Algorithm1), ("bloom", SpVariant::BLOOM)] {
        for n in [10u32, 10_000, 1_000_000] {
            let mut m = manager(n, variant);
            let mut i = 0u32;
            g.bench_with_input(BenchmarkId::new(name, n), &n, |b, &n| {
                b.iter(|| {
                    let (src, id) = key(i);
                    i = (i + 7919) % n; // a stride that visits every key, cache-unfriendly
                    let first = SpMark { first: true, last: false, length: LENGTH, id };
                    let next = SpMark { first: false, ..first };
                    black_box(m.admit(SimTime::ZERO, src, HostId(0), first, f64::INFINITY));
                    black_box(m.admit(SimTime::ZERO, src, HostId(0), next, f64::INFINITY))
                })
            });
        }
    }
    g.finish();
}

criterion_group!(benches, admission);
criterion_main!(benches);
