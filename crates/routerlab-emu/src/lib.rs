//! routerlab's router code on real packets: datagrams read into the packets the simulator's
//! ports work on and written back ([`frame`]), and a router of such ports driven by a caller
//! that brings the datagrams and the time ([`router`]) — what an emulator runs between real
//! hosts, against a real clock.

pub mod frame;
pub mod plan;
pub mod router;
#[cfg(target_os = "linux")]
pub mod wire;

#[cfg(test)]
mod testing;
