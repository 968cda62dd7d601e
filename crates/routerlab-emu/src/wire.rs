//! The emulator's wire (Linux): one raw `AF_PACKET` socket per host, on the router's end of
//! that host's veth pair, and the loop that moves the hosts' frames through a [`Router`]
//! against the monotonic clock — and measures how late it was.
//!
//! Contract:
//! - The caller has made the interfaces and runs this in the namespace that holds the router's
//!   ends (`Attachment::ifname`); nothing here creates or removes an interface.
//! - Every IPv4 frame a host sends is offered to the router at the time the kernel received it
//!   (its receive timestamp), however late the loop reads it, in the order of those times and
//!   never before what the router has already run; how late the loop read each frame is
//!   reported beside the lateness of its writes. A datagram
//!   handed back is written to its host's interface as an Ethernet frame (from the router's MAC
//!   to the host's) as soon as the loop sees it due, with its TCP or UDP checksum computed
//!   afresh (a veth leaves the checksum to the receiver: frames read here may carry a partial
//!   one). Its lateness — written minus due — is the run's timing error, kept per host.
//! - The loop sleeps until the router's next event or a frame, at nanosecond resolution (the
//!   thread's timer slack set to 1 ns), and ends at `until` or when `stop` is set.

use std::io;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use routerlab::ids::HostId;
use routerlab::units::SimTime;

use crate::frame::set_transport_checksum;
use crate::router::{Departure, Router};

/// A host's interface, as the router's end of its veth pair.
#[derive(Clone, Debug)]
pub struct Attachment {
    pub host: HostId,
    /// The router's end of the host's veth pair, in the router's namespace.
    pub ifname: String,
    pub host_mac: [u8; 6],
    pub own_mac: [u8; 6],
}

/// How late the loop wrote one host's datagrams: nanoseconds past when each was due.
#[derive(Clone, Debug, Default)]
pub struct Lateness {
    pub late_ns: Vec<u64>,
}

impl Lateness {
    /// The median and the 99th percentile of the lateness, in seconds; None before anything
    /// was sent.
    pub fn median_p99(&self) -> (Option<f64>, Option<f64>) {
        let mut v = self.late_ns.clone();
        v.sort_unstable();
        let at = |q: f64| {
            let i = ((v.len() as f64 - 1.0) * q).round() as usize;
            v.get(i).map(|&ns| ns as f64 * 1e-9)
        };
        (at(0.5), at(0.99))
    }
}

/// What a run of the loop did.
#[derive(Clone, Debug, Default)]
pub struct WireReport {
    /// Per attachment, in the order given.
    pub lateness: Vec<Lateness>,
    pub frames_in: u64,
    /// How long after the kernel received each frame the loop read it.
    pub read_late: Lateness,
    pub frames_out: u64,
    /// Frames that were not IPv4, or that the router refused.
    pub ignored: u64,
    /// Simulated time at the end (the run's length).
    pub ended_at: SimTime,
}

const ETH_HEADER: usize = 14;
/// `SO_TIMESTAMPNS` (asm-generic/socket.h; the same number is the control message's type).
const SO_TIMESTAMPNS: i32 = 35;
const ETH_P_IP: u16 = 0x0800;

/// A raw socket bound to one interface, taking IPv4 frames.
struct RawSocket {
    fd: i32,
}

impl RawSocket {
    fn bind(ifname: &str) -> io::Result<RawSocket> {
        let name =
            std::ffi::CString::new(ifname).map_err(|e| io::Error::new(io::ErrorKind::InvalidInput, e))?;
        // SAFETY: plain libc calls on a C string and a zeroed address struct we own.
        unsafe {
            let index = libc::if_nametoindex(name.as_ptr());
            if index == 0 {
                return Err(io::Error::last_os_error());
            }
            let proto = ETH_P_IP.to_be() as i32;
            let fd = libc::socket(libc::AF_PACKET, libc::SOCK_RAW | libc::SOCK_NONBLOCK, proto);
            if fd < 0 {
                return Err(io::Error::last_os_error());
            }
            let mut addr: libc::sockaddr_ll = std::mem::zeroed();
            addr.sll_family = libc::AF_PACKET as u16;
            addr.sll_protocol = ETH_P_IP.to_be();
            addr.sll_ifindex = index as i32;
            let len = std::mem::size_of::<libc::sockaddr_ll>() as u32;
            let on: i32 = 1;
            let on_len = std::mem::size_of::<i32>() as u32;
            if libc::bind(fd, &addr as *const _ as *const libc::sockaddr, len) < 0
                || libc::setsockopt(fd, libc::SOL_SOCKET, SO_TIMESTAMPNS, (&on as *const i32).cast(), on_len)
                    < 0
            {
                let e = io::Error::last_os_error();
                libc::close(fd);
                return Err(e);
            }
            Ok(RawSocket { fd })
        }
    }

    /// The next frame the host sent, if one is waiting, and when the kernel received it
    /// (`CLOCK_REALTIME`, nanoseconds); frames this socket wrote are skipped.
    fn recv(&self, buf: &mut [u8]) -> io::Result<Option<(usize, u64)>> {
        loop {
            // SAFETY: recvmsg into buffers we own, with their lengths; the control messages
            // are walked with the libc macros within the length the kernel set.
            let (n, kind, stamp) = unsafe {
                let mut addr: libc::sockaddr_ll = std::mem::zeroed();
                let mut iov = libc::iovec { iov_base: buf.as_mut_ptr().cast(), iov_len: buf.len() };
                let mut control = [0u64; 8];
                let mut msg: libc::msghdr = std::mem::zeroed();
                msg.msg_name = (&mut addr as *mut libc::sockaddr_ll).cast();
                msg.msg_namelen = std::mem::size_of::<libc::sockaddr_ll>() as u32;
                msg.msg_iov = &mut iov;
                msg.msg_iovlen = 1;
                msg.msg_control = control.as_mut_ptr().cast();
                msg.msg_controllen = std::mem::size_of_val(&control);
                let n = libc::recvmsg(self.fd, &mut msg, 0);
                let mut stamp = None;
                let mut c = libc::CMSG_FIRSTHDR(&msg);
                while !c.is_null() {
                    if (*c).cmsg_level == libc::SOL_SOCKET && (*c).cmsg_type == SO_TIMESTAMPNS {
                        let ts = std::ptr::read_unaligned(libc::CMSG_DATA(c) as *const libc::timespec);
                        stamp = Some(ts.tv_sec as u64 * 1_000_000_000 + ts.tv_nsec as u64);
                    }
                    c = libc::CMSG_NXTHDR(&msg, c);
                }
                (n, addr.sll_pkttype, stamp)
            };
            if n < 0 {
                let e = io::Error::last_os_error();
                return if e.kind() == io::ErrorKind::WouldBlock { Ok(None) } else { Err(e) };
            }
            if kind != libc::PACKET_OUTGOING {
                return Ok(Some((n as usize, stamp.unwrap_or_else(realtime_ns))));
            }
        }
    }

    fn send(&self, frame: &[u8]) -> io::Result<()> {
        // SAFETY: send from a buffer we own, with its length.
        let n = unsafe { libc::send(self.fd, frame.as_ptr().cast(), frame.len(), 0) };
        if n < 0 { Err(io::Error::last_os_error()) } else { Ok(()) }
    }
}

impl Drop for RawSocket {
    fn drop(&mut self) {
        // SAFETY: the descriptor is ours and closed once.
        unsafe { libc::close(self.fd) };
    }
}

/// Move the hosts' frames through `router` until `until` (router time) or `stop`. The sockets
/// are bound first; the router's time zero is then `start` (`CLOCK_MONOTONIC` seconds, the
/// hosts' clock too) if given, else at once.
pub fn run(
    router: &mut Router,
    attach: &[Attachment],
    start: Option<f64>,
    until: SimTime,
    stop: &AtomicBool,
) -> io::Result<WireReport> {
    let sockets: Vec<RawSocket> =
        attach.iter().map(|a| RawSocket::bind(&a.ifname)).collect::<io::Result<_>>()?;
    if let Some(t0) = start {
        sleep_until_monotonic(t0);
    }
    let by_host = |h: HostId| attach.iter().position(|a| a.host == h);
    // SAFETY: prctl on the calling thread; 1 ns of slack makes its sleeps end on time.
    unsafe { libc::prctl(libc::PR_SET_TIMERSLACK, 1u64, 0u64, 0u64, 0u64) };
    let start = Instant::now();
    // The kernel stamps frames on the real-time clock: where the run's time zero falls on it.
    let zero_realtime = realtime_ns().saturating_sub(start.elapsed().as_nanos() as u64);
    let clock = || SimTime::from_ps(start.elapsed().as_nanos() as u64 * 1000);
    let mut report =
        WireReport { lateness: vec![Lateness::default(); attach.len()], ..WireReport::default() };
    let mut buf = vec![0u8; 65_536 + ETH_HEADER];
    let mut out: Vec<Departure> = Vec::new();
    let mut frame: Vec<u8> = Vec::with_capacity(buf.len());
    let mut arrived: Vec<(SimTime, usize, Vec<u8>)> = Vec::new();
    let mut ran_to = SimTime::ZERO;
    let mut fds: Vec<libc::pollfd> =
        sockets.iter().map(|s| libc::pollfd { fd: s.fd, events: libc::POLLIN, revents: 0 }).collect();
    loop {
        let now = clock();
        if now >= until || stop.load(Ordering::Relaxed) {
            report.ended_at = now;
            return Ok(report);
        }
        for (i, s) in sockets.iter().enumerate() {
            while let Some((n, stamp)) = s.recv(&mut buf)? {
                report.frames_in += 1;
                let at = SimTime::from_ps(stamp.saturating_sub(zero_realtime) * 1000);
                report.read_late.late_ns.push(clock().ps().saturating_sub(at.ps()) / 1000);
                if n > ETH_HEADER && buf[12..14] == ETH_P_IP.to_be_bytes() {
                    arrived.push((at, i, buf[ETH_HEADER..n].to_vec()));
                } else {
                    report.ignored += 1;
                }
            }
        }
        // In the order the kernel took them, each at its time (never before what has run).
        arrived.sort_by_key(|a| a.0);
        for (at, i, datagram) in arrived.drain(..) {
            let at = at.max(ran_to);
            router.advance(at, &mut out);
            ran_to = at;
            if router.receive(at, attach[i].host, &datagram).is_err() {
                report.ignored += 1;
            }
        }
        ran_to = clock();
        router.advance(ran_to, &mut out);
        for d in out.drain(..) {
            let Some(i) = by_host(d.host) else {
                report.ignored += 1;
                continue;
            };
            frame.clear();
            frame.extend_from_slice(&attach[i].host_mac);
            frame.extend_from_slice(&attach[i].own_mac);
            frame.extend_from_slice(&ETH_P_IP.to_be_bytes());
            frame.extend_from_slice(&d.bytes);
            set_transport_checksum(&mut frame[ETH_HEADER..]);
            sockets[i].send(&frame)?;
            report.frames_out += 1;
            report.lateness[i].late_ns.push((clock().ps().saturating_sub(d.due.ps())) / 1000);
        }
        let next = router.next_event().unwrap_or(until).min(until);
        let wait = Duration::from_nanos(next.ps().saturating_sub(clock().ps()) / 1000)
            .min(Duration::from_millis(10));
        let ts = libc::timespec { tv_sec: wait.as_secs() as i64, tv_nsec: wait.subsec_nanos() as i64 };
        // SAFETY: ppoll on descriptors we own, a timeout we own, no signal mask.
        unsafe { libc::ppoll(fds.as_mut_ptr(), fds.len() as u64, &ts, std::ptr::null()) };
    }
}

fn clock_ns(id: libc::clockid_t) -> u64 {
    let mut ts = libc::timespec { tv_sec: 0, tv_nsec: 0 };
    // SAFETY: clock_gettime into a timespec we own.
    unsafe { libc::clock_gettime(id, &mut ts) };
    ts.tv_sec as u64 * 1_000_000_000 + ts.tv_nsec as u64
}

fn realtime_ns() -> u64 {
    clock_ns(libc::CLOCK_REALTIME)
}

/// Sleep until `CLOCK_MONOTONIC` reads `t` seconds.
fn sleep_until_monotonic(t: f64) {
    let at = libc::timespec { tv_sec: t.floor() as i64, tv_nsec: ((t - t.floor()) * 1e9) as i64 };
    // SAFETY: an absolute sleep on the monotonic clock with a timespec we own; EINTR just
    // ends it early, and the loop's clock starts from wherever it ends.
    unsafe { libc::clock_nanosleep(libc::CLOCK_MONOTONIC, libc::TIMER_ABSTIME, &at, std::ptr::null_mut()) };
}
