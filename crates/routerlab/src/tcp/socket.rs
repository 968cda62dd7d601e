//! The TCP endpoint state machine: handshake, sending with loss recovery, receiving, closing.
//!
//! Sequence numbers start at 0 for the SYN; data byte `k` of the stream is sequence `1 + k`.
//! The socket sends what the application has written ([`TcpSocket::send`]), as full segments
//! (Nagle is off: a short segment goes out only at the end of the written data).
//!
//! Sending, in [`TcpSocket::poll_transmit`]: retransmissions of segments presumed lost come
//! first (RFC 6675 §5 NextSeg rule 1), then new data, while `pipe + len ≤ cwnd` (plus the
//! limited-transmit allowance), within the peer's window and the pacing schedule; then a pure
//! ACK if one is owed and nothing carried it. Retransmissions that the RFCs make unconditional
//! (the first one of fast retransmit, of a partial ACK, of a timeout) bypass the window.
//!
//! Loss recovery states follow Linux's names: `Open`, `Disorder` (duplicate ACKs below the
//! threshold), `Cwr` (reducing after an ECN echo, with PRR), `Recovery` (fast recovery) and
//! `Loss` (after a timeout, until everything sent before it is acknowledged).
//!
//! With `Recovery::Prr` (RFC 6937) the window comes down to ssthresh during a SACK recovery or
//! a CWR as Linux's `tcp_cwnd_reduction` brings it: on each ACK, cwnd = pipe + what may be sent,
//! which is ssthresh/RecoverFS of the data delivered while the pipe is above ssthresh, and
//! catches up to ssthresh by at most the data delivered plus one segment below it.

use std::sync::Arc;

use super::cc::{AckSample, AnyCc, CongestionControl, Window};
use super::endpoint::EndpointPart;
use super::rack::{Probe, ProbeOutcome, Rack};
use super::receiver::{EcnEcho, Receiver};
use super::rtt::RttEstimator;
use super::scoreboard::{Latest, Sacked, Scoreboard};
use super::timestamps::{TsClock, at_or_after};
use super::{CwndValidation, Recovery, RttModel, SsthreshBase, TcpConfig};
use crate::net::packet::{Ecn, RateFields, SackBlock, SackList, TcpFlags, TcpSegment};
use crate::units::{Rate, SimTime};

/// Connection states (RFC 793), with TIME-WAIT folded into `Closed` (ports are never reused
/// in a simulation, so its 2·MSL wait has nothing to protect).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum State {
    Closed,
    Listen,
    SynSent,
    SynReceived,
    Established,
    FinWait1,
    FinWait2,
    Closing,
    CloseWait,
    LastAck,
}

/// Loss-recovery state of the sender (Linux's `tcp_ca_state`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CaState {
    Open,
    Disorder,
    /// Reducing the window after an ECN echo (PRR only; otherwise the reduction is at once).
    Cwr,
    Recovery,
    Loss,
}

impl CaState {
    pub fn name(self) -> &'static str {
        match self {
            CaState::Open => "open",
            CaState::Disorder => "disorder",
            CaState::Cwr => "cwr",
            CaState::Recovery => "recovery",
            CaState::Loss => "loss",
        }
    }
}

/// Proportional Rate Reduction's counters for the reduction under way (RFC 6937 §3), in bytes.
#[derive(Clone, Copy, Debug, Default)]
struct Prr {
    /// Data delivered to the receiver since the reduction began.
    delivered: u64,
    /// Data sent since it began.
    out: u64,
    /// cwnd when it began (Linux's `prior_cwnd`, RFC 6937's RecoverFS).
    prior_cwnd: u64,
}

/// F-RTO after a timeout (RFC 5682 §3.1, SACK-enhanced; Linux's `tp->frto`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
enum Frto {
    #[default]
    Off,
    /// SND.UNA was resent (step 1); each ACK is judged (steps 2 and 3).
    On,
    /// Step 2.b: the first ACK that advanced SND.UNA came, and the next transmission sends
    /// new data instead of retransmissions.
    SendNew,
}

/// The window a timeout reduced, to restore if it proves spurious (Linux's `prior_cwnd` and
/// `prior_ssthresh`, saved by `tcp_enter_loss`).
#[derive(Clone, Copy, Debug)]
struct Undo {
    cwnd: u64,
    ssthresh: u64,
    /// `recover` before the timeout: a spurious timeout began no episode, so it does not
    /// hold off the next recovery (RFC 6675 §5.1's rule after a timeout).
    recover: u64,
}

/// The ACK's first SACK block is a D-SACK (RFC 2883 §4): below the cumulative ACK, or within
/// the second block. loss reports (left ≥ right) come before any and are passed over.
fn first_is_dsack(blocks: &[SackBlock], ack: u64) -> bool {
    let mut real = blocks.iter().filter(|b| b.left < b.right);
    let Some(first) = real.next() else { return false };
    first.right <= ack || real.next().is_some_and(|b| b.left <= first.left && first.right <= b.right)
}

/// What the retransmission timer is armed for (Linux's `icsk_pending`): one deadline, one
/// purpose at a time.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum LossTimer {
    /// The retransmission timeout (RFC 6298), or the SYN's.
    Retransmit,
    /// The tail loss probe's timeout (RFC 8985 §7.2).
    Probe,
    /// RACK's reordering timer (RFC 8985 §6.3).
    Reorder,
}

/// What a tail loss probe sends: decided when it goes out, from the state then.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum ProbeKind {
    NewData,
    ResendLast,
}

/// A reason to believe data was lost. Every loss signal — inferred or explicit — enters here.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LossSignal {
    /// `dupthresh` duplicate ACKs, or SACK information that makes `snd_una` lost.
    DupAcks,
    /// The retransmission timer expired.
    Timeout,
    /// Somebody named a lost range `[left, right)` explicitly (a loss report).
    Explicit { left: u64, right: u64 },
}

/// A segment the socket wants sent, with the IP-level fields it chooses.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Outgoing {
    pub seg: TcpSegment,
    pub ecn: Ecn,
    pub retransmission: bool,
}

/// Where a socket's segments go (see [`TcpSocket::poll_transmit`]). `emit` is handed how to
/// write the segment, so that it is built where it will live — a packet's slot — instead of
/// built and then copied there: the copy reads back in wide words what was just stored field
/// by field, which cannot be forwarded from the stores and so waits for every older store to
/// reach the cache, cache misses included (docs/performance.md).
///
/// Any `FnMut(&Outgoing)` is one, for tests and tools that want the segments as values.
pub trait Transmit {
    fn emit(&mut self, ecn: Ecn, retransmission: bool, write: impl FnOnce(&mut TcpSegment));
}

impl<F: FnMut(&Outgoing)> Transmit for F {
    #[inline]
    fn emit(&mut self, ecn: Ecn, retransmission: bool, write: impl FnOnce(&mut TcpSegment)) {
        let mut seg = TcpSegment::default();
        write(&mut seg);
        self(&Outgoing { seg, ecn, retransmission });
    }
}

/// Counters, per endpoint; those every segment updates first (`repr(C)` keeps the order).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
#[repr(C)]
pub struct TcpStats {
    pub segments_sent: u64,
    pub acks_sent: u64,
    pub data_segments_sent: u64,
    pub payload_bytes_sent: u64,
    pub bytes_acked: u64,
    pub retransmissions: u64,
    /// Retransmission-timer expirations with data outstanding.
    pub timeouts: u64,
    /// Expirations of the SYN (or SYN-ACK) timer, counted apart.
    pub syn_timeouts: u64,
    pub fast_recoveries: u64,
    pub dupacks_received: u64,
    pub ecn_reductions: u64,
    pub explicit_losses: u64,
    /// Loss reports received (each names one cut segment).
    pub loss_reports_received: u64,
    /// Retransmissions found lost again from SACK information.
    pub lost_retransmissions: u64,
    /// Segments retransmitted at least once, and the time from each one's first transmission
    /// to its first retransmission summed: how long losses took to detect.
    pub first_retransmissions: u64,
    pub loss_detection: SimTime,
    /// Windows restarted after an idle period (`TcpConfig::slow_start_after_idle`).
    pub idle_restarts: u64,
    /// Timeouts F-RTO found spurious and undid (Linux's `TCPSpuriousRTOs`); counted in
    /// `timeouts` too.
    pub spurious_timeouts: u64,
    /// Tail loss probes sent (RFC 8985 §7; Linux's `TCPLossProbes`), and those whose ACK
    /// showed they repaired a loss (`TCPLossProbeRecovery`).
    pub loss_probes: u64,
    pub loss_probe_recoveries: u64,
}

/// The fields every segment sent or received reads, at either end, and so the first lines of
/// a [`TcpSocket`] (a unit test holds it to three).
#[derive(Debug)]
#[repr(C)]
struct SocketHot {
    cfg: Arc<TcpConfig>,

    // --- send side, read for every segment ---
    snd_una: u64,
    snd_nxt: u64,
    /// Bytes the application has written so far.
    app_written: u64,
    /// The peer's advertised window.
    rwnd: u64,
    win: Window,
    timer_at: Option<SimTime>,
    timer: LossTimer,
    /// RFC 6582 `recover` / RFC 6675 RecoveryPoint / the high mark of a timeout.
    recover: u64,
    /// ECN: do not react again before snd_una passes this.
    ecn_high_seq: u64,
    /// Pacing: earliest time for the next data segment.
    next_send_at: SimTime,
    pace_wakeup: Option<SimTime>,
    /// A mechanism's endpoint part (`tcp::endpoint`), while the handshake may still agree on
    /// it or once it has.
    ext: Option<Box<dyn EndpointPart>>,
    peer_mss: u32,
    dupacks: u32,
    /// RFC 3042: new segments allowed beyond cwnd.
    lt_credit: u32,
    /// Data segments the host will take now (its NIC queue's room); see `set_tx_budget`.
    tx_budget: u32,
    local_port: u16,
    remote_port: u16,
    state: State,
    ca: CaState,
    sack_ok: bool,
    /// Both ends offered timestamps (RFC 7323): every segment carries them.
    ts_ok: bool,
    ecn_ok: bool,
    app_closed: bool,
    fin_sent: bool,
    /// NewReno: only the first partial ACK of a recovery resets the timer (RFC 6582 §3.2).
    partial_ack_seen: bool,
    /// A timeout fired since SND.UNA last advanced (Linux's `icsk_retransmits` non-zero).
    timed_out_since_progress: bool,
    /// Send the next retransmission regardless of the window.
    retransmit_now: bool,
    cwnd_limited: bool,
    /// ECN: set CWR on the next data segment.
    cwr_pending: bool,
    tx_blocked: bool,
}

/// A TCP endpoint. Fields are in the order of how often they are read (`repr(C)` keeps it):
/// first what every segment sent or received reads at either end (`SocketHot`, three cache
/// lines at most: a field added there must fit), then the counters, then the
/// receive side, then the send side (congestion control, RTT, scoreboard), and last the
/// handshake. A receiving endpoint of a bulk transfer thus never reads the sender's lines, and
/// a simulation of many flows keeps fewer lines of each in cache (docs/performance.md). The
/// configuration is shared (flows built from the same one hold the same copy).
#[derive(Debug)]
#[repr(C)]
pub struct TcpSocket {
    /// What every segment sent or received reads, at either end: the first three lines.
    hot: SocketHot,

    stats: TcpStats,

    // --- receive side ---
    rcv: Receiver,

    // --- send side, what only a sender of data reads ---
    prr: Prr,
    frto: Frto,
    undo: Option<Undo>,
    rack: Rack,
    /// A tail loss probe outstanding, and whether one is due to be sent.
    probe: Option<Probe>,
    probe_due: bool,
    cc: AnyCc,
    rtt: RttEstimator,
    /// `RttModel::Ns3`: the highest sequence sent when the timer last expired; ACKs at or
    /// below it give no sample.
    rtt_history_from: u64,
    sb: Scoreboard,
    /// `CwndValidation::Linux`'s state (`tcp_cwnd_validate`).
    cwnd_usage: CwndUsage,
    /// When a segment with payload was last sent, until a restart after idle consumes it.
    last_data_sent: Option<SimTime>,

    // --- handshake ---
    syn_due: bool,
    syn_retransmitted: bool,
    syn_sent_at: Option<SimTime>,
    syn_rto: SimTime,
}

/// How much of the window the current window's sends used, as Linux tracks it
/// (`tcp_cwnd_validate`: `is_cwnd_limited`, `max_packets_out`, `cwnd_usage_seq`; in bytes).
#[derive(Clone, Copy, Debug, Default)]
struct CwndUsage {
    /// Less than a segment of the window was left at some send of the current window.
    limited: bool,
    /// The most data in flight after a send of the current window.
    max_in_flight: u64,
    /// `snd_nxt` when the current window began: it ends once `snd_una` reaches it.
    window_end: u64,
}

impl CwndUsage {
    /// After an attempt to send (`tcp_write_xmit`'s end): note whether the window was the
    /// limit, starting a new window once the last is acknowledged.
    fn on_send(&mut self, sent: bool, in_flight: u64, w: &Window, snd_una: u64, snd_nxt: u64) {
        let limited = in_flight + w.mss > w.cwnd;
        if !(sent || limited) {
            return;
        }
        if snd_una >= self.window_end || limited || (!self.limited && in_flight > self.max_in_flight) {
            (self.limited, self.max_in_flight, self.window_end) = (limited, in_flight, snd_nxt);
        }
    }

    /// `tcp_is_cwnd_limited`: limited in this window, or in slow start under twice its most
    /// data in flight.
    fn limited(&self, w: &Window) -> bool {
        self.limited || (w.in_slow_start() && w.cwnd < 2 * self.max_in_flight)
    }
}

impl TcpSocket {
    /// (local port, remote port).
    pub fn ports(&self) -> (u16, u16) {
        (self.hot.local_port, self.hot.remote_port)
    }

    /// A closed socket. `cfg` is shared if given as an `Arc` (a simulation gives all flows built
    /// from the same configuration one copy of it).
    pub fn new(cfg: impl Into<Arc<TcpConfig>>, local_port: u16, remote_port: u16) -> TcpSocket {
        let cfg: Arc<TcpConfig> = cfg.into();
        let mss = cfg.mss as u64;
        TcpSocket {
            syn_due: false,
            syn_sent_at: None,
            last_data_sent: None,
            syn_retransmitted: false,
            syn_rto: cfg.syn_rto,
            prr: Prr::default(),
            frto: Frto::Off,
            undo: None,
            rack: Rack::default(),
            probe: None,
            probe_due: false,
            cc: cfg.cc.build(),
            rtt: RttEstimator::new(cfg.rto),
            rtt_history_from: 0,
            sb: Scoreboard::new(),
            cwnd_usage: CwndUsage::default(),
            rcv: Receiver::new(cfg.rcv_buf, cfg.delayed_ack, EcnEcho::Off)
                .with_sack_fin(cfg.sack_fin)
                .with_dsack(cfg.dsack),
            stats: TcpStats::default(),
            hot: SocketHot {
                snd_una: 0,
                snd_nxt: 0,
                app_written: 0,
                rwnd: cfg.rcv_buf,
                win: Window {
                    cwnd: cfg.init_cwnd as u64 * mss,
                    ssthresh: cfg.initial_ssthresh.unwrap_or(u64::MAX),
                    mss,
                },
                timer_at: None,
                timer: LossTimer::Retransmit,
                recover: 0,
                ecn_high_seq: 0,
                next_send_at: SimTime::ZERO,
                pace_wakeup: None,
                ext: cfg.cc.endpoint_part(),
                peer_mss: cfg.mss,
                dupacks: 0,
                lt_credit: 0,
                tx_budget: u32::MAX,
                local_port,
                remote_port,
                state: State::Closed,
                ca: CaState::Open,
                sack_ok: false,
                ts_ok: false,
                ecn_ok: false,
                app_closed: false,
                fin_sent: false,
                partial_ack_seen: false,
                timed_out_since_progress: false,
                retransmit_now: false,
                cwnd_limited: false,
                cwr_pending: false,
                tx_blocked: false,
                cfg,
            },
        }
    }

    /// Replace the congestion controller (before the connection starts), e.g. a mechanism's.
    pub fn set_cc(&mut self, cc: AnyCc) {
        self.cc = cc;
    }

    // ------------------------------------------------------------------ application side

    /// Active open: send a SYN.
    pub fn connect(&mut self) {
        debug_assert_eq!(self.hot.state, State::Closed);
        self.hot.state = State::SynSent;
        self.syn_due = true;
    }

    /// Passive open: wait for a SYN.
    pub fn listen(&mut self) {
        self.hot.state = State::Listen;
    }

    /// The application writes `bytes` more bytes.
    pub fn send(&mut self, bytes: u64) {
        self.hot.app_written = self.hot.app_written.saturating_add(bytes);
    }

    /// The application will write no more: a FIN follows the data.
    pub fn close(&mut self) {
        self.hot.app_closed = true;
    }

    /// The application takes back what it wrote and the socket has not sent yet, and closes: a
    /// bulk sender stopping (what is in flight is still delivered).
    pub fn stop_writing(&mut self) {
        self.hot.app_written = self.hot.app_written.min(self.hot.snd_nxt.saturating_sub(1));
        self.hot.app_closed = true;
    }

    // ------------------------------------------------------------------ observation

    pub fn state(&self) -> State {
        self.hot.state
    }
    pub fn ca_state(&self) -> CaState {
        self.hot.ca
    }
    /// The configuration, as resolved for this connection.
    pub fn config(&self) -> &TcpConfig {
        &self.hot.cfg
    }

    pub fn stats(&self) -> &TcpStats {
        &self.stats
    }
    pub fn cwnd(&self) -> u64 {
        self.hot.win.cwnd
    }
    pub fn ssthresh(&self) -> u64 {
        self.hot.win.ssthresh
    }
    pub fn mss(&self) -> u64 {
        self.hot.win.mss
    }
    pub fn in_flight(&self) -> u64 {
        self.sb.pipe()
    }
    pub fn srtt(&self) -> Option<SimTime> {
        self.rtt.srtt()
    }
    pub fn rto(&self) -> SimTime {
        self.rtt.rto()
    }
    pub fn rtt(&self) -> &RttEstimator {
        &self.rtt
    }
    pub fn snd_una(&self) -> u64 {
        self.hot.snd_una
    }
    pub fn snd_nxt(&self) -> u64 {
        self.hot.snd_nxt
    }
    /// Payload bytes acknowledged by the peer.
    pub fn bytes_acked(&self) -> u64 {
        self.stats.bytes_acked
    }
    /// Payload bytes received in order.
    pub fn delivered_bytes(&self) -> u64 {
        self.rcv.delivered_bytes
    }
    pub fn receiver(&self) -> &Receiver {
        &self.rcv
    }
    pub fn sack_enabled(&self) -> bool {
        self.hot.sack_ok
    }
    pub fn ecn_enabled(&self) -> bool {
        self.hot.ecn_ok
    }
    pub fn cc(&self) -> &AnyCc {
        &self.cc
    }
    pub fn cc_mut(&mut self) -> &mut AnyCc {
        &mut self.cc
    }
    pub fn window(&self) -> &Window {
        &self.hot.win
    }
    /// Everything the application wrote has been acknowledged (FIN included, if closed).
    pub fn all_acked(&self) -> bool {
        self.hot.snd_una >= 1 + self.hot.app_written + self.hot.fin_sent as u64
    }

    /// Limit the data segments the next `poll_transmit` may emit (the room in the host's NIC
    /// queue): a host's own queue pushes back on its sockets instead of dropping (Linux's qdisc
    /// backpressure and TCP small queues). Unlimited unless set.
    pub fn set_tx_budget(&mut self, segments: u32) {
        self.hot.tx_budget = segments;
    }

    /// The last `poll_transmit` stopped for lack of room in the NIC: wake it when there is room.
    pub fn tx_blocked(&self) -> bool {
        self.hot.tx_blocked
    }

    /// When the socket next needs `on_timer` / `poll_transmit`, if ever.
    pub fn poll_at(&self) -> Option<SimTime> {
        // Compared pairwise, not gathered into an array: the copy read each option, just
        // stored as a tag and a time, as one wide word (a stalled store forward per packet).
        let earliest = |a: Option<SimTime>, b: Option<SimTime>| match (a, b) {
            (Some(x), Some(y)) => Some(x.min(y)),
            (x, None) => x,
            (None, y) => y,
        };
        earliest(
            earliest(self.hot.timer_at, self.rcv.delack_at),
            earliest(self.hot.pace_wakeup, self.signal_due_at()),
        )
    }

    // ------------------------------------------------------------------ endpoint part

    /// The mechanism's endpoint part, once both ends agreed on it (or while the handshake may).
    pub fn endpoint_part(&self) -> Option<&dyn EndpointPart> {
        self.hot.ext.as_deref()
    }

    /// Routers may fragment this connection's segments: its endpoint part allows it, or it is
    /// configured without DF (`dont_fragment = false`, as ns-3 sends).
    pub fn allows_fragmentation(&self) -> bool {
        self.hot.ext.as_ref().is_some_and(|x| x.allows_fragmentation()) || !self.hot.cfg.dont_fragment
    }

    /// The IP layer reassembled a datagram for this socket whose leading fragment carried
    /// `payload` bytes (a signal to the endpoint part, if it reads one there).
    pub fn on_leading_fragment(&mut self, payload: u32) {
        if let Some(x) = &mut self.hot.ext {
            x.on_leading_fragment(payload);
        }
    }

    /// When the endpoint part's next signal datagram is due, while there is data in flight or
    /// waiting.
    fn signal_due_at(&self) -> Option<SimTime> {
        let active = self.hot.snd_nxt > self.hot.snd_una || self.hot.snd_nxt < 1 + self.hot.app_written;
        if !active {
            return None;
        }
        self.hot.ext.as_ref()?.signal_due_at(self.rtt.srtt())
    }

    /// The size of a signal datagram the endpoint part wants sent now, if one is due (the host
    /// sends it as a separate packet with DF set, which the receiving host discards).
    pub fn poll_signal_datagram(&mut self, now: SimTime) -> Option<u32> {
        if self.signal_due_at()? > now {
            return None;
        }
        let srtt = self.rtt.srtt();
        self.hot.ext.as_mut()?.take_signal(now, srtt)
    }

    /// The endpoint part's fields for the next outgoing segment.
    fn rate_fields(&mut self) -> RateFields {
        let srtt = self.rtt.srtt();
        self.hot.ext.as_mut().map_or(RateFields::default(), |x| x.segment_fields(srtt))
    }

    /// An arriving segment's fields, to the endpoint part; a rate it reads there goes to the
    /// controller.
    fn on_rate_fields(&mut self, now: SimTime, seg: &TcpSegment) {
        let Some(x) = &mut self.hot.ext else { return };
        if let Some(rate) = x.on_segment(seg) {
            self.cc.on_explicit_rate(&mut self.hot.win, now, rate, self.rtt.srtt());
        }
    }

    // ------------------------------------------------------------------ input

    /// A segment arrived. `ecn` is the IP ECN field it arrived with.
    pub fn on_segment(&mut self, now: SimTime, ecn: Ecn, seg: &TcpSegment) {
        let f = seg.flags;
        match self.hot.state {
            State::Closed => return,
            State::Listen => {
                if f.has(TcpFlags::SYN) && !f.has(TcpFlags::ACK) {
                    self.accept_syn(seg);
                    self.hot.state = State::SynReceived;
                    self.syn_due = true;
                }
                return;
            }
            State::SynSent => {
                if f.has(TcpFlags::SYN) && f.has(TcpFlags::ACK) && seg.ack == 1 {
                    self.accept_syn(seg);
                    self.hot.ecn_ok = self.hot.ecn_ok && f.has(TcpFlags::ECE);
                    self.configure_ecn();
                    self.complete_handshake(now, seg);
                    self.on_rate_fields(now, seg);
                    self.rcv.request_ack();
                }
                return;
            }
            State::SynReceived => {
                if f.has(TcpFlags::SYN) && !f.has(TcpFlags::ACK) {
                    self.syn_due = true; // our SYN-ACK was lost: answer again
                    return;
                }
                if f.has(TcpFlags::ACK) && seg.ack >= 1 {
                    self.complete_handshake(now, seg);
                } else {
                    return;
                }
            }
            _ => {
                if f.has(TcpFlags::SYN) {
                    // A retransmitted SYN-ACK: our ACK was lost.
                    self.rcv.request_ack();
                    return;
                }
            }
        }
        if seg.cut && !self.hot.cfg.cut_reports {
            return; // a stack that does not report cuts discards a segment shorter than its header says
        }
        if self.hot.ts_ok && seg.ts {
            self.rcv.on_timestamp(seg.seq, seg.ts_val);
        }
        if self.hot.ext.is_some() {
            self.on_rate_fields(now, seg);
        }
        if f.has(TcpFlags::ACK) {
            self.process_ack(now, seg);
        }
        if seg.cut {
            self.rcv.on_cut(now, seg.seq, seg.payload_len.into(), ecn == Ecn::Ce);
            return;
        }
        let fin = f.has(TcpFlags::FIN);
        if seg.payload_len > 0 || fin {
            let before = self.rcv.fin_received;
            self.rcv.on_segment(
                now,
                seg.seq,
                seg.payload_len.into(),
                fin,
                ecn == Ecn::Ce,
                f.has(TcpFlags::CWR),
            );
            if self.rcv.fin_received && !before {
                self.on_peer_fin();
            }
        }
    }

    /// A timer may have expired.
    pub fn on_timer(&mut self, now: SimTime) {
        if self.hot.timer_at.is_some_and(|t| t <= now) {
            self.hot.timer_at = None;
            match self.hot.timer {
                LossTimer::Retransmit => self.on_loss_signal(now, LossSignal::Timeout),
                LossTimer::Probe => self.on_probe_timeout(now),
                LossTimer::Reorder => self.on_reorder_timeout(now),
            }
        }
        if self.hot.pace_wakeup.is_some_and(|t| t <= now) {
            self.hot.pace_wakeup = None;
        }
    }

    /// React to a loss signal: enter fast recovery, or time out, or resend a named range.
    pub fn on_loss_signal(&mut self, now: SimTime, sig: LossSignal) {
        match sig {
            LossSignal::Timeout => self.on_timeout(now),
            LossSignal::DupAcks => self.enter_recovery(now, true),
            LossSignal::Explicit { left, right } => {
                self.stats.explicit_losses += 1;
                let mut seq = left.max(self.hot.snd_una);
                let mut marked = false;
                while seq < right {
                    let Some(seg) = self.sb.find(seq) else {
                        break;
                    };
                    marked |= self.sb.mark_lost_explicitly(seq);
                    seq = seg.end;
                }
                // Outside recovery, enter it: the first retransmission goes at once (RFC 6675
                // step 4.3). Within it, the named segment left the pipe, and is resent as
                // the pipe allows: cut packets keep the ACK clock, so this stays self-clocked.
                if marked && matches!(self.hot.ca, CaState::Open | CaState::Disorder) {
                    self.enter_recovery(now, false);
                }
            }
        }
    }

    // ------------------------------------------------------------------ output

    /// Emit every segment the socket may send now.
    #[inline(always)]
    pub fn poll_transmit(&mut self, now: SimTime, emit: &mut impl Transmit) {
        match self.hot.state {
            State::Closed | State::Listen => return,
            State::SynSent | State::SynReceived => {
                if self.syn_due {
                    self.emit_syn(now, emit);
                }
                if self.hot.state == State::SynSent {
                    return;
                }
            }
            _ => {}
        }
        if let Some((ack, ece)) = self.rcv.take_flush() {
            emit.emit(Ecn::NotEct, false, |seg| {
                *seg = self.pure_ack(now);
                seg.ack = ack;
                seg.flags = if ece { TcpFlags::ACK.with(TcpFlags::ECE) } else { TcpFlags::ACK };
            });
            self.stats.segments_sent += 1;
            self.stats.acks_sent += 1;
        }
        if self.may_send_data() {
            self.send_data(now, emit);
        }
        while self.rcv.ack_due(now) {
            let mut reports = 0;
            emit.emit(Ecn::NotEct, false, |seg| {
                *seg = self.pure_ack(now);
                reports = self.reports_in(seg);
            });
            self.rcv.on_ack_sent(reports);
            self.stats.segments_sent += 1;
            self.stats.acks_sent += 1;
            if reports == 0 {
                break; // no loss report left to send, or no room for one
            }
        }
        // Data in flight always has a timer to recover it, or a probe waiting for the NIC
        // (which wakes a blocked socket when it has room).
        debug_assert!(
            self.hot.snd_una >= self.hot.snd_nxt
                || self.hot.timer_at.is_some()
                || (self.probe_due && self.hot.tx_blocked),
            "data in flight and no loss timer: {:?} at {now:?}",
            self.hot
        );
    }

    /// How many of the loss reports owed `seg`'s SACK option carries (they come first in it).
    #[inline]
    fn reports_in(&self, seg: &TcpSegment) -> usize {
        match self.rcv.reports_owed() {
            0 => 0,
            owed => owed.min(seg.sack.len()),
        }
    }

    fn may_send_data(&self) -> bool {
        matches!(
            self.hot.state,
            State::Established | State::CloseWait | State::FinWait1 | State::Closing | State::LastAck
        )
    }

    fn send_data(&mut self, now: SimTime, emit: &mut impl Transmit) {
        if self.hot.cfg.slow_start_after_idle
            && self.sb.is_empty()
            && self.hot.snd_nxt < 1 + self.hot.app_written
        {
            self.restart_after_idle(now);
        }
        let snd_nxt_before = self.hot.snd_nxt;
        if self.probe_due && self.hot.tx_budget > 0 {
            self.send_probe(now, emit);
        }
        self.send_data_loop(now, emit);
        if self.frto == Frto::SendNew {
            // F-RTO step 2.b sent new data, or could not: then the recovery goes on as usual
            // (Linux's `tcp_xmit_recovery`).
            if self.hot.snd_nxt > self.hot.recover {
                self.frto = Frto::On;
            } else {
                self.frto = Frto::Off;
                self.send_data_loop(now, emit);
            }
        }
        if self.hot.snd_nxt > snd_nxt_before && self.hot.timer != LossTimer::Reorder {
            // Linux's `tcp_write_xmit`: after new data, a probe's timer if one applies.
            self.schedule_probe(now, false);
        }
        if self.hot.cfg.cwnd_validation == CwndValidation::Linux {
            // New data only: Linux validates in `tcp_write_xmit`, not for retransmissions.
            let sent = self.hot.snd_nxt > snd_nxt_before;
            self.cwnd_usage.on_send(sent, self.sb.pipe(), &self.hot.win, self.hot.snd_una, self.hot.snd_nxt);
        }
    }

    /// Whether the congestion controller may grow the window on this ACK (`CwndValidation`).
    /// The ACK that ends a reduction (recovery or CWR) grows the window it left at ssthresh,
    /// judged cwnd-limited against that window.
    fn grow_after_reduction(&mut self, sample: &AckSample) {
        let sample = AckSample { cwnd_limited: self.cwnd_limited_now(), ..*sample };
        self.cc.on_ack(&mut self.hot.win, &sample);
    }

    fn cwnd_limited_now(&self) -> bool {
        match self.hot.cfg.cwnd_validation {
            CwndValidation::Linux => self.cwnd_usage.limited(&self.hot.win),
            CwndValidation::LastSend => self.hot.cwnd_limited,
            CwndValidation::None => true,
        }
    }

    fn send_data_loop(&mut self, now: SimTime, emit: &mut impl Transmit) {
        self.hot.pace_wakeup = None;
        self.hot.tx_blocked = false;
        // Whether this connection paces, asked only once a send is due later: the answer reads
        // the congestion control's and RTT estimator's lines, which the receiving end of a
        // one-way transfer (answering every segment) otherwise never reads.
        let mut pacing = None;
        loop {
            if self.hot.tx_budget == 0 {
                // A probe due counts: with nothing else to send, no timer would wake it.
                self.hot.tx_blocked = self.probe_due || self.has_something_to_send();
                break;
            }
            if self.hot.next_send_at > now
                && *pacing.get_or_insert_with(|| self.paces())
                && self.has_something_to_send()
            {
                self.hot.pace_wakeup = Some(self.hot.next_send_at);
                break;
            }
            if let Some(i) = self.next_to_retransmit().filter(|_| self.frto != Frto::SendNew) {
                let s = self.sb.get(i);
                if self.hot.retransmit_now || self.sb.pipe() + s.payload_len() <= self.hot.win.cwnd {
                    self.hot.retransmit_now = false;
                    self.sb.on_retransmit(i, now, self.hot.snd_nxt);
                    self.stats.retransmissions += 1;
                    if s.tx_count == 1 {
                        self.stats.first_retransmissions += 1;
                        self.stats.loss_detection += now.saturating_sub(s.sent_at);
                    }
                    self.emit_data(now, s.start, s.end, s.fin, true, emit);
                    let restarts = || self.hot.cfg.head_resend_restarts_rto || self.rack_on();
                    if i == 0 && self.hot.timer != LossTimer::Reorder && restarts() {
                        // As Linux's `tcp_xmit_retransmit_queue`: resending the oldest
                        // segment restarts the RTO (with RACK whatever the option says).
                        self.arm(now + self.rtt.rto(), LossTimer::Retransmit);
                    }
                    continue;
                }
                self.hot.cwnd_limited = true;
                break;
            }
            if self.unsent_remains() {
                let Some((len, fin)) = self.next_new_segment() else {
                    break; // receiver-window limited
                };
                // The FIN takes a sequence number but no room in the window (the board gives it
                // no share of the pipe): a flow of exactly one window leaves in one flight.
                let over_cwnd = self.sb.pipe() + len > self.hot.win.cwnd;
                if over_cwnd {
                    if self.hot.lt_credit == 0 {
                        self.hot.cwnd_limited = true;
                        break;
                    }
                    self.hot.lt_credit -= 1;
                }
                self.emit_new_segment(now, len, fin, emit);
                continue;
            }
            if let Some(i) = self.nextseg_rule3() {
                // Presumed lost now, it is resent by rule (1)'s path as the window allows.
                let s = self.sb.get(i);
                if self.sb.pipe() + s.payload_len() > self.hot.win.cwnd {
                    self.hot.cwnd_limited = true;
                    break;
                }
                self.sb.mark_lost_at(s.start);
                continue;
            }
            self.hot.cwnd_limited = false; // the application is the limit
            break;
        }
    }

    /// Send the next `len` bytes of new data (and the FIN, if `fin`) in one segment.
    #[inline]
    fn emit_new_segment(&mut self, now: SimTime, len: u64, fin: bool, emit: &mut impl Transmit) {
        let start = self.hot.snd_nxt;
        let seq_len = len + fin as u64;
        self.sb.push(start, start + seq_len, now, fin);
        self.hot.snd_nxt += seq_len;
        if fin {
            self.hot.fin_sent = true;
            self.hot.state = match self.hot.state {
                State::CloseWait => State::LastAck,
                State::Established => State::FinWait1,
                s => s,
            };
        }
        self.emit_data(now, start, start + seq_len, fin, false, emit);
    }

    /// The next new segment the peer's window takes, if any: its payload and whether it
    /// carries the FIN.
    fn next_new_segment(&self) -> Option<(u64, bool)> {
        let data_end = 1 + self.hot.app_written;
        let fin_pending = self.hot.app_closed && !self.hot.fin_sent;
        if self.hot.snd_nxt >= data_end && !fin_pending {
            return None;
        }
        let len = (data_end - self.hot.snd_nxt).min(self.hot.win.mss);
        let fin = fin_pending && self.hot.snd_nxt + len == data_end;
        (self.hot.snd_nxt + len + fin as u64 - self.hot.snd_una <= self.hot.rwnd).then_some((len, fin))
    }

    /// Payload of a full segment: the smaller of the two ends' MSS less the options every
    /// segment of this connection carries (RFC 6691): the timestamps (12 bytes with their
    /// padding; Linux's 1448-byte segments on a 1500-byte MTU) and the endpoint part's fixed
    /// fields. Once the handshake has set it, the window's SMSS.
    fn segment_payload(&self) -> u64 {
        let every_segment = TcpSegment {
            ts: self.hot.ts_ok,
            xr: self.hot.ext.as_ref().map_or(RateFields::default(), |x| x.fixed_fields()),
            ..Default::default()
        };
        self.hot.cfg.mss.min(self.hot.peer_mss) as u64 - every_segment.option_bytes_but_sack() as u64
    }

    /// The next segment to resend, if any. The board holds exactly `[snd_una, snd_nxt)`, so
    /// with nothing outstanding it is not read (it sits on lines of its own, which the
    /// receiving end of a one-way transfer then never touches).
    fn next_to_retransmit(&mut self) -> Option<usize> {
        if self.hot.snd_nxt == self.hot.snd_una {
            debug_assert!(self.sb.is_empty());
            return None;
        }
        self.sb.next_to_retransmit()
    }

    /// ns-3's partial ACK in a SACK recovery (`partial_ack_resend`): unless the head was
    /// already resent, one segment goes out whatever the window — the next presumed lost, else
    /// new data, else the head (`DoRetransmit`: NextSeg's rules (1) and (2), then the head).
    fn resend_on_partial_ack(&mut self) {
        if self.sb.first().is_none_or(|head| head.tx_count > 1) {
            return;
        }
        if self.sb.next_to_retransmit().is_some() {
            self.hot.retransmit_now = true;
        } else if self.unsent_remains() {
            self.hot.lt_credit += 1;
        } else if self.sb.mark_lost_at(self.hot.snd_una) {
            self.hot.retransmit_now = true;
        }
    }

    /// RFC 6675 NextSeg rule (3), when rules (1) and (2) have nothing to send: in a SACK
    /// recovery, the first segment below the highest SACK neither SACKed nor resent.
    fn nextseg_rule3(&self) -> Option<usize> {
        // The state first: every endpoint with nothing to send asks, and only a recovery reads
        // the configuration's line.
        if !(self.hot.ca == CaState::Recovery && self.hot.sack_ok && self.hot.cfg.nextseg_rule3) {
            return None;
        }
        self.sb.first_unsacked_below_highest_sack()
    }

    fn has_something_to_send(&mut self) -> bool {
        self.next_to_retransmit().is_some() || self.unsent_remains()
    }

    /// Written data not yet sent, or a FIN owed.
    fn unsent_remains(&self) -> bool {
        self.hot.snd_nxt < 1 + self.hot.app_written || (self.hot.app_closed && !self.hot.fin_sent)
    }

    /// New data after an idle period longer than the RTO, nothing outstanding: the window
    /// restarts (RFC 2861 §3, RFC 5681 §4.1), as Linux's `tcp_cwnd_restart` does it — ssthresh
    /// kept at least 3/4 of the old window, the window halved for every RTO of idleness but
    /// not below the initial window (or itself, if smaller). Once per idle period.
    fn restart_after_idle(&mut self, now: SimTime) {
        let Some(last) = self.last_data_sent else { return };
        let rto = self.rtt.rto().0;
        let mut idle = now.saturating_sub(last).0;
        if idle <= rto {
            return;
        }
        self.last_data_sent = None;
        let mss = self.hot.win.mss;
        self.hot.win.ssthresh = self.current_ssthresh();
        let restart = (self.hot.cfg.init_cwnd as u64 * mss).min(self.hot.win.cwnd);
        let mut cwnd = self.hot.win.cwnd;
        while idle > rto && cwnd > restart {
            idle -= rto;
            cwnd = cwnd / mss / 2 * mss;
        }
        self.hot.win.cwnd = cwnd.max(restart);
        self.stats.idle_restarts += 1;
    }

    fn emit_data(
        &mut self,
        now: SimTime,
        start: u64,
        end: u64,
        fin: bool,
        retx: bool,
        emit: &mut impl Transmit,
    ) {
        let payload = (end - start - fin as u64) as u16;
        let mut flags = TcpFlags::ACK;
        if fin {
            flags = flags.with(TcpFlags::FIN);
        }
        if self.hot.cwr_pending && !retx {
            flags = flags.with(TcpFlags::CWR);
            self.hot.cwr_pending = false;
        }
        if self.rcv.ece() && self.hot.ecn_ok {
            flags = flags.with(TcpFlags::ECE);
        }
        // RFC 3168 §6.1.5: retransmissions are not ECN-capable.
        let ecn = if self.hot.ecn_ok && !retx { Ecn::Ect0 } else { Ecn::NotEct };
        let pacing = self.pacing_rate();
        let mut header_len = 0;
        let mut reports = 0;
        emit.emit(ecn, retx, |seg| {
            *seg = self.segment(now, start, flags, payload);
            if pacing.is_some() {
                header_len = seg.header_len();
            }
            reports = self.reports_in(seg);
        });
        self.rcv.on_ack_sent(reports);
        self.stats.segments_sent += 1;
        self.stats.data_segments_sent += 1;
        if payload > 0 {
            self.last_data_sent = Some(now);
        }
        self.hot.tx_budget = self.hot.tx_budget.saturating_sub(1);
        self.stats.payload_bytes_sent += payload as u64;
        if matches!(self.hot.ca, CaState::Recovery | CaState::Cwr) {
            self.prr.out += payload as u64;
        }
        // RFC 6298 (5.1); new data also replaces a probe's timer with the RTO, to be
        // scheduled again after the sends (Linux's `tcp_event_new_data_sent`).
        if self.hot.timer_at.is_none() || (!retx && self.hot.timer == LossTimer::Probe) {
            self.arm(now + self.rtt.rto(), LossTimer::Retransmit);
        }
        if let Some(rate) = pacing {
            let wire = (payload as u32 + header_len + crate::net::packet::IPV4_HEADER_BYTES) as u64;
            self.hot.next_send_at = self.hot.next_send_at.max(now) + rate.tx_time(wire);
        }
    }

    fn emit_syn(&mut self, now: SimTime, emit: &mut impl Transmit) {
        self.syn_due = false;
        let server = self.hot.state == State::SynReceived;
        let mut flags = TcpFlags::SYN;
        if server {
            flags = flags.with(TcpFlags::ACK);
            if self.hot.ecn_ok {
                flags = flags.with(TcpFlags::ECE);
            }
        } else if self.hot.cfg.ecn || self.hot.cfg.cc.wants_ecn() {
            flags = flags.with(TcpFlags::ECE).with(TcpFlags::CWR); // ECN-setup SYN
            self.hot.ecn_ok = true; // tentatively; confirmed by the SYN-ACK
        }
        let seg = TcpSegment {
            src_port: self.hot.local_port,
            dst_port: self.hot.remote_port,
            seq: 0,
            ack: if server { self.rcv.rcv_nxt } else { 0 },
            flags,
            window: self.rcv.window(),
            mss: self.hot.cfg.mss.min(u16::MAX as u32) as u16,
            sack_permitted: self.hot.cfg.sack && (!server || self.hot.sack_ok),
            ts: if server { self.hot.ts_ok } else { self.hot.cfg.timestamps },
            ts_val: self.ts_clock().value(now),
            ts_ecr: if server { self.rcv.ts_recent() } else { 0 },
            sack: SackList::new(),
            payload_len: 0,
            cut: false,
            xr: self.hot.ext.as_mut().map_or(RateFields::default(), |x| x.syn_fields()),
        };
        if self.syn_sent_at.is_some() {
            self.syn_retransmitted = true;
        }
        self.syn_sent_at = Some(now);
        self.arm(now + self.syn_rto, LossTimer::Retransmit);
        if server {
            self.rcv.on_ack_sent(0);
        }
        self.stats.segments_sent += 1;
        emit.emit(Ecn::NotEct, self.syn_retransmitted, |s| *s = seg);
    }

    /// A segment without data that acknowledges what has arrived (and carries a pending rate).
    fn pure_ack(&mut self, now: SimTime) -> TcpSegment {
        let mut flags = TcpFlags::ACK;
        if self.rcv.ece() && self.hot.ecn_ok {
            flags = flags.with(TcpFlags::ECE);
        }
        self.segment(now, self.hot.snd_nxt, flags, 0)
    }

    /// A segment of an established connection: `payload` bytes from `seq`, acknowledging what
    /// has arrived, with the timestamps, rate and SACK options due.
    fn segment(&mut self, now: SimTime, seq: u64, flags: TcpFlags, payload: u16) -> TcpSegment {
        let (ts_val, ts_ecr) =
            if self.hot.ts_ok { (self.ts_clock().value(now), self.rcv.ts_recent()) } else { (0, 0) };
        let mut seg = TcpSegment {
            src_port: self.hot.local_port,
            dst_port: self.hot.remote_port,
            seq,
            ack: self.rcv.rcv_nxt,
            flags,
            window: self.rcv.window(),
            mss: 0,
            sack_permitted: false,
            ts: self.hot.ts_ok,
            ts_val,
            ts_ecr,
            sack: SackList::new(),
            payload_len: payload,
            cut: false,
            xr: self.rate_fields(),
        };
        seg.sack = self.sack_list(&seg);
        seg
    }

    /// The SACK option of `seg`: loss reports first (they must not wait), then the ordinary
    /// blocks, as many as the option space leaves room for beside its other options.
    fn sack_list(&self, seg: &TcpSegment) -> SackList {
        // Built in place: a loss report (left > right) never equals an ordinary block, so skipping
        // duplicates across the two kinds changes nothing. (Returning one of two lists instead
        // copied one, reading the length byte just written as a word: a stalled store forward
        // on every ACK.)
        let mut list = match self.rcv.reports_owed() {
            0 => SackList::new(),
            _ => self.rcv.loss_reports(seg.sack_room()),
        };
        if self.hot.sack_ok && self.rcv.dsack_pending() {
            self.rcv.push_dsack_blocks(&mut list, seg.sack_room());
        }
        if self.hot.sack_ok && self.rcv.has_ooo() {
            self.rcv.push_sack_blocks(&mut list, seg.sack_room());
        }
        list
    }

    // ------------------------------------------------------------------ handshake

    fn accept_syn(&mut self, seg: &TcpSegment) {
        if seg.mss != 0 {
            self.hot.peer_mss = seg.mss as u32;
        }
        self.hot.sack_ok = self.hot.cfg.sack && seg.sack_permitted;
        self.hot.ts_ok = self.hot.cfg.timestamps && seg.ts;
        if self.hot.state == State::Listen {
            // RFC 3168 §6.1.1: an ECN-setup SYN has ECE and CWR set.
            self.hot.ecn_ok = (self.hot.cfg.ecn || self.hot.cfg.cc.wants_ecn())
                && seg.flags.has(TcpFlags::ECE)
                && seg.flags.has(TcpFlags::CWR);
            self.configure_ecn();
        }
        self.hot.rwnd = seg.window as u64;
        self.rcv.on_syn(seg.seq);
        if self.hot.ts_ok {
            self.rcv.on_timestamp(seg.seq, seg.ts_val);
        }
        let server = self.hot.state == State::Listen;
        if self.hot.ext.as_mut().is_some_and(|x| !x.agree(seg, server)) {
            self.hot.ext = None; // the peer does not speak it: plain TCP
        }
        // RFC 5681 §2: the SMSS the window counts in excludes the TCP/IP headers *and* options,
        // so it is the payload of a full segment (Linux's `mss_cache`, ns-3's SegmentSize):
        // with timestamps an initial window of 10 is 10 × 1448 bytes, not 10 × 1460.
        self.hot.win.mss = self.segment_payload();
        self.hot.win.cwnd = self.hot.cfg.init_cwnd as u64 * self.hot.win.mss;
    }

    fn configure_ecn(&mut self) {
        let mode = match (self.hot.ecn_ok, self.hot.cfg.cc.wants_ecn()) {
            (false, _) => EcnEcho::Off,
            (true, true) => EcnEcho::Dctcp,
            (true, false) => EcnEcho::Classic,
        };
        self.rcv.set_ecn(mode);
    }

    /// The handshake completed with `seg` (our SYN's acknowledgment).
    fn complete_handshake(&mut self, now: SimTime, seg: &TcpSegment) {
        self.hot.state = State::Established;
        self.hot.snd_una = 1;
        self.hot.snd_nxt = 1;
        self.hot.recover = 0; // RFC 6582 §3.2: `recover` starts at the initial send sequence number
        self.hot.ecn_high_seq = 1;
        self.hot.timer_at = None;
        let sample = if self.syn_retransmitted {
            // Karn: no sample from a retransmitted SYN's send time; its echo is unambiguous.
            self.echo_rtt(now, seg)
        } else {
            self.syn_sent_at.map(|t| now - t)
        };
        match sample {
            Some(r) => self.rtt.on_sample(r),
            // RFC 6298 §5.7 (Linux `tcp_init_metrics`: only without a valid sample).
            None if self.syn_retransmitted => self.rtt.reset_base(self.hot.cfg.rto_after_syn_timeout),
            None => {}
        }
    }

    /// The RTT sample from an ACK that advances `snd_una`, given the send time of the oldest
    /// segment it acknowledges if that was never retransmitted, and the sample its SACK gives
    /// (`RttModel`).
    fn rtt_sample(
        &self,
        now: SimTime,
        seg: &TcpSegment,
        sent: Option<SimTime>,
        sack_rtt: Option<SimTime>,
    ) -> Option<SimTime> {
        match self.hot.cfg.rtt_model {
            // The send time when Karn's rule allows it (exact), else the SACK's, else the
            // timestamp echo (Linux's `tcp_ack_update_rtt`).
            RttModel::Linux => sent.map(|t| now - t).or(sack_rtt).or_else(|| self.echo_rtt(now, seg)),
            RttModel::Ns3 if seg.ack <= self.rtt_history_from => None,
            // ns-3's `TcpOptionTS::ElapsedTimeFromTsValue`: whole ticks, and 1 µs for none.
            RttModel::Ns3 if self.hot.ts_ok && seg.ts => {
                let ticks = self.ts_clock().value(now).wrapping_sub(seg.ts_ecr);
                Some(match ticks {
                    1..=0x7fff_ffff => SimTime(self.hot.cfg.ts_tick.0.saturating_mul(ticks as u64)),
                    _ => SimTime::from_us(1),
                })
            }
            RttModel::Ns3 => sent.map(|t| now - t),
        }
    }

    /// The RTT sample a SACK gives: from the oldest newly SACKed segment never retransmitted,
    /// with `sack_rtt` and the Linux model (ns-3 takes none).
    fn sack_rtt_sample(&self, now: SimTime, sacked_from: Option<SimTime>) -> Option<SimTime> {
        let on = self.hot.cfg.sack_rtt && self.hot.cfg.rtt_model == RttModel::Linux;
        sacked_from.filter(|_| on).map(|t| now - t)
    }

    /// The RTT an arriving segment's timestamp echo gives, if timestamps are in use.
    fn echo_rtt(&self, now: SimTime, seg: &TcpSegment) -> Option<SimTime> {
        (self.hot.ts_ok && seg.ts).then(|| self.ts_clock().rtt_from_echo(now, seg.ts_ecr)).flatten()
    }

    fn ts_clock(&self) -> TsClock {
        TsClock { tick: self.hot.cfg.ts_tick }
    }

    fn on_peer_fin(&mut self) {
        self.hot.state = match self.hot.state {
            State::Established => State::CloseWait,
            State::FinWait1 => State::Closing,
            State::FinWait2 => State::Closed,
            s => s,
        };
    }

    // ------------------------------------------------------------------ acknowledgments

    /// An ACK arrived: take its SACK blocks, then advance `snd_una` or count a duplicate, detect
    /// losses, answer an ECN echo, and let PRR set the window.
    fn process_ack(&mut self, now: SimTime, seg: &TcpSegment) {
        let ack = seg.ack;
        if ack > self.hot.snd_nxt {
            return; // acknowledges something never sent
        }
        self.hot.rwnd = seg.window as u64;
        let ece = self.hot.ecn_ok && seg.flags.has(TcpFlags::ECE);
        let (sacked, sack_rtt) = self.take_sack_blocks(now, seg);
        let una_before = self.hot.snd_una;
        if let Some(p) = self.probe {
            let duplicate = seg.payload_len == 0 && !seg.flags.has(TcpFlags::FIN) && sacked.bytes == 0;
            self.on_probe_ack(now, p.on_ack(ack, ack > self.hot.snd_una, duplicate));
        }
        let mut newly_lost = 0;
        // Payload delivered by this ACK, each byte once (newly SACKed, or acknowledged and not
        // SACKed before).
        let mut delivered = sacked.bytes;
        let mut acked_latest = None;
        if ack > self.hot.snd_una {
            let (newly, latest) = self.on_new_ack(now, seg, ece, &sacked, sack_rtt);
            delivered += newly;
            acked_latest = Some(latest);
        } else if ack == self.hot.snd_una
            && seg.payload_len == 0
            && !seg.flags.has(TcpFlags::FIN)
            && !self.sb.is_empty()
        {
            newly_lost += self.on_duplicate_ack(now, ece, &sacked);
        }
        if self.hot.cfg.cut_reports {
            self.take_loss_reports(now, seg);
        }
        if self.rack_on() {
            if let Some(acked) = &mut acked_latest
                && self.hot.ts_ok
                && seg.ts
            {
                // A cumulative ACK whose echo is older than a retransmission's send time
                // answers an earlier copy (Linux's `tcp_skb_spurious_retrans`, applied in
                // `tcp_clean_rtx_queue` only; RFC 8985 §6.2 step 2). A SACKed retransmission
                // meets only the min-RTT test in `on_delivered` (`tcp_sacktag_one`): the
                // echo of an ACK that SACKs holds the edge of the cumulative ACK's segment.
                let clock = self.ts_clock();
                acked.retransmitted =
                    acked.retransmitted.filter(|&(sent, _)| at_or_after(seg.ts_ecr, clock.value(sent)));
            }
            let latest = acked_latest.map_or(sacked.latest, |a| sacked.latest.merge(&a));
            self.rack.on_delivered(now, &latest, self.rtt.min_rtt());
        }
        newly_lost += self.mark_newly_lost(now);
        if self.rack_on()
            && newly_lost > 0
            && matches!(self.hot.ca, CaState::Open | CaState::Disorder | CaState::Cwr)
        {
            // RACK found a loss: a fast recovery (Linux's `tcp_time_to_recover`: the loss is
            // proven).
            self.enter_recovery(now, false);
        }
        self.answer_ecn_echo(now, ece);
        if self.prr_on()
            && (self.hot.ca == CaState::Cwr || (self.hot.ca == CaState::Recovery && self.hot.sack_ok))
        {
            self.prr_update(delivered, self.hot.snd_una > una_before, newly_lost > 0);
        }
    }

    /// loss reports: SACK blocks that name a range whose payload a router cut.
    fn take_loss_reports(&mut self, now: SimTime, seg: &TcpSegment) {
        for b in seg.sack.as_slice() {
            if let Some((left, right)) = b.as_lost_range() {
                self.stats.loss_reports_received += 1;
                self.on_loss_signal(now, LossSignal::Explicit { left, right });
            }
        }
    }

    /// What the scoreboard now shows lost: with RACK, segments sent before one delivered since,
    /// once their reordering window has passed; else in a recovery, segments SACKs have
    /// passed, and in a recovery or after a timeout, retransmissions sent before data SACKed
    /// since. Returns how many were newly marked.
    fn mark_newly_lost(&mut self, now: SimTime) -> usize {
        if self.rack_on() {
            return self.rack_detect(now, true);
        }
        let mut newly_lost = 0;
        if self.hot.sack_ok && self.hot.ca == CaState::Recovery {
            newly_lost += self.sb.mark_lost_by_sack(self.hot.cfg.dupthresh, self.hot.win.mss);
        }
        if self.hot.sack_ok
            && self.hot.cfg.lost_retransmit_detection
            && matches!(self.hot.ca, CaState::Recovery | CaState::Loss)
        {
            let n = self.sb.mark_lost_retransmissions();
            self.stats.lost_retransmissions += n as u64;
            newly_lost += n;
        }
        newly_lost
    }

    /// The ACK's SACK blocks onto the scoreboard: what they newly SACKed, and an RTT sample
    /// from them, taken at once on a duplicate ACK (Linux takes it on any ACK that SACKs new
    /// data).
    fn take_sack_blocks(&mut self, now: SimTime, seg: &TcpSegment) -> (Sacked, Option<SimTime>) {
        let sacked = if self.hot.sack_ok && !seg.sack.is_empty() {
            let blocks = seg.sack.as_slice();
            let dsack = first_is_dsack(blocks, seg.ack);
            if self.rack_on() {
                self.rack.on_ack(dsack, self.hot.snd_una, self.hot.snd_nxt);
            }
            // A D-SACK block reports a duplicate, no new data.
            self.sb.apply_sack(if dsack { &blocks[1..] } else { blocks })
        } else {
            Sacked::default()
        };
        let rtt = self.sack_rtt_sample(now, sacked.rtt_from);
        if seg.ack == self.hot.snd_una
            && let Some(r) = rtt
        {
            self.rtt.on_sample(r);
        }
        (sacked, rtt)
    }

    /// What the congestion controller hears of an ACK.
    fn ack_sample(
        &self,
        now: SimTime,
        delivered: u64,
        rtt: Option<SimTime>,
        in_flight: u64,
        ece: bool,
    ) -> AckSample {
        AckSample {
            now,
            delivered_bytes: delivered,
            rtt,
            srtt: self.rtt.srtt(),
            min_rtt: self.rtt.min_rtt(),
            in_flight,
            cwnd_limited: self.cwnd_limited_now(),
            ece,
            snd_una: self.hot.snd_una,
            snd_nxt: self.hot.snd_nxt,
        }
    }

    /// An ACK that advances `snd_una`: an RTT sample, the window grown or a recovery ended,
    /// the retransmission timer restarted. Returns the bytes it newly delivered beyond those
    /// it SACKed (`newly_sacked`), and the most recently sent of the segments it acknowledged.
    fn on_new_ack(
        &mut self,
        now: SimTime,
        seg: &TcpSegment,
        ece: bool,
        sacked: &Sacked,
        sack_rtt: Option<SimTime>,
    ) -> (u64, Latest) {
        let ack = seg.ack;
        let in_flight = self.sb.pipe();
        let acked = self.sb.ack_to(ack);
        let rtt = self.rtt_sample(now, seg, acked.rtt_from, sack_rtt);
        if let Some(r) = rtt {
            self.rtt.on_sample(r);
        }
        let payload_acked = acked.bytes - acked.fin_acked as u64;
        self.stats.bytes_acked += payload_acked;
        self.hot.snd_una = ack;
        self.hot.timed_out_since_progress = false;
        self.hot.dupacks = 0;
        self.hot.lt_credit = 0;
        let sample = self.ack_sample(now, sacked.bytes + acked.newly_delivered, rtt, in_flight, ece);
        self.cc.on_any_ack(&mut self.hot.win, &sample);
        if self.frto != Frto::Off {
            let orig_end = acked.orig_end.into_iter().chain(sacked.orig_end).min();
            self.frto_on_ack(true, orig_end, sacked.bytes > 0);
        }
        let restart_timer = self.ca_on_new_ack(now, ack, acked.bytes, &sample);
        if acked.fin_acked {
            self.hot.state = match self.hot.state {
                State::FinWait1 => State::FinWait2,
                State::Closing | State::LastAck => State::Closed,
                s => s,
            };
        }
        if restart_timer && self.hot.cfg.rtt_model == RttModel::Ns3 {
            self.rtt.end_backoff();
        }
        // RFC 6298 (5.2)/(5.3), or a tail loss probe's timer (Linux's `tcp_set_xmit_timer`).
        if self.sb.is_empty() {
            self.hot.timer_at = None;
        } else if restart_timer && !self.schedule_probe(now, true) {
            self.rearm_rto(now);
        }
        (acked.newly_delivered, acked.latest)
    }

    /// What an ACK of new data does to the congestion state: a full acknowledgment ends a
    /// recovery or a CWR reduction (the window from ssthresh), a partial one resends (NewReno,
    /// RFC 6582 step 4) or not, and outside a reduction the controller grows the window.
    /// Returns whether the retransmission timer restarts (only the first partial ACK of a
    /// NewReno recovery restarts it, RFC 6582 §3.2).
    fn ca_on_new_ack(&mut self, now: SimTime, ack: u64, acked_bytes: u64, sample: &AckSample) -> bool {
        let mut restart_timer = true;
        match self.hot.ca {
            CaState::Recovery if ack >= self.hot.recover => {
                // Full acknowledgment: leave fast recovery (RFC 6582 step 5 / RFC 6675).
                if !self.hot.sack_ok {
                    let flight = self.hot.snd_nxt - self.hot.snd_una;
                    self.hot.win.cwnd =
                        self.hot.win.ssthresh.min(flight.max(self.hot.win.mss) + self.hot.win.mss);
                } else {
                    self.hot.win.cwnd = self.hot.win.ssthresh;
                }
                self.hot.ca = CaState::Open;
                self.rack.on_recovery_exit();
                self.cc.on_recovery_exit(&mut self.hot.win, now);
                // The window grows on this ACK too, from ssthresh (Linux's `tcp_cong_control`
                // runs after `tcp_fastretrans_alert` has left Recovery; ns-3's `ProcessAck`
                // likewise). Without SACK, Linux holds Recovery on an ACK of the recovery
                // point itself and grows only on one beyond it.
                if self.hot.cfg.grow_at_recovery_exit && (self.hot.sack_ok || ack > self.hot.recover) {
                    self.grow_after_reduction(sample);
                }
            }
            CaState::Recovery => {
                if !self.hot.sack_ok {
                    // NewReno partial ACK (RFC 6582 step 4): resend the next hole at once,
                    // deflate by what was acknowledged, add back one SMSS.
                    self.sb.mark_lost_at(self.hot.snd_una);
                    self.hot.retransmit_now = true;
                    self.hot.win.cwnd = self.hot.win.cwnd.saturating_sub(acked_bytes);
                    if acked_bytes >= self.hot.win.mss {
                        self.hot.win.cwnd += self.hot.win.mss;
                    }
                    self.hot.win.cwnd = self.hot.win.cwnd.max(self.hot.win.mss);
                    restart_timer = !self.hot.partial_ack_seen;
                    self.hot.partial_ack_seen = true;
                } else if self.hot.cfg.partial_ack_resend {
                    self.resend_on_partial_ack();
                }
            }
            CaState::Cwr if ack > self.hot.ecn_high_seq => {
                // Something sent after the reduction began is acknowledged: CWR reached the
                // receiver and the reduction is over (Linux `tcp_end_cwnd_reduction`).
                self.hot.win.cwnd = self.hot.win.ssthresh;
                self.hot.ca = CaState::Open;
                if self.hot.cfg.grow_at_recovery_exit {
                    self.grow_after_reduction(sample);
                }
            }
            CaState::Cwr => {}
            CaState::Loss => {
                self.cc.on_ack(&mut self.hot.win, sample);
                if ack >= self.hot.recover {
                    self.hot.ca = CaState::Open;
                    self.frto = Frto::Off;
                    self.rack.on_recovery_exit();
                }
            }
            CaState::Open | CaState::Disorder => {
                self.hot.ca = CaState::Open;
                self.cc.on_ack(&mut self.hot.win, sample);
            }
        }
        restart_timer
    }

    /// A duplicate ACK: limited transmit, or the loss signal that starts a recovery, or (NewReno
    /// without SACK) the window inflated. Returns the segments SACKs newly mark lost.
    fn on_duplicate_ack(&mut self, now: SimTime, ece: bool, sacked: &Sacked) -> usize {
        self.stats.dupacks_received += 1;
        self.hot.dupacks += 1;
        let mut newly_lost = 0;
        let in_flight = self.sb.pipe();
        let sample = self.ack_sample(now, sacked.bytes, None, in_flight, ece);
        self.cc.on_any_ack(&mut self.hot.win, &sample);
        if self.frto != Frto::Off {
            // Undone, the ACK goes on as one in the open state (Linux's `tcp_fastretrans_alert`
            // falls through when `tcp_process_loss` has reopened).
            self.frto_on_ack(false, sacked.orig_end, true);
        }
        match self.hot.ca {
            CaState::Open | CaState::Disorder | CaState::Cwr => {
                // With RACK the loss is judged after this ACK, by time (`process_ack`). Else a
                // segment IsLost() marks starts a recovery (RFC 6675 §5 step (2), as ns-3's
                // `DupAck`: marked, it would otherwise be resent outside one, with no
                // reduction); the count of duplicate ACKs only if the ACK (here SND.UNA) covers
                // more than `recover` (RFC 6582 §3.2 step 2).
                let rack = self.rack_on();
                let sack_says_lost = self.hot.sack_ok && !rack && {
                    newly_lost += self.sb.mark_lost_by_sack(self.hot.cfg.dupthresh, self.hot.win.mss);
                    self.sb.first().is_some_and(|s| s.lost)
                };
                let dupacks_say_lost = !rack
                    && self.hot.dupacks >= self.hot.cfg.dupthresh
                    && self.hot.snd_una > self.hot.recover;
                if sack_says_lost || dupacks_say_lost {
                    self.on_loss_signal(now, LossSignal::DupAcks);
                } else {
                    if self.hot.ca != CaState::Cwr {
                        self.hot.ca = CaState::Disorder;
                    }
                    // RFC 3042's segments beyond cwnd. With SACK the pipe already frees a
                    // segment per duplicate ACK (RFC 6675 §5 (3); Linux, ns-3).
                    let beyond_cwnd = !self.hot.sack_ok || self.hot.cfg.limited_transmit_beyond_pipe;
                    if self.hot.cfg.limited_transmit && beyond_cwnd && self.hot.dupacks <= 2 {
                        self.hot.lt_credit += 1;
                    }
                }
            }
            CaState::Recovery if !self.hot.sack_ok => {
                self.hot.win.cwnd += self.hot.win.mss; // RFC 6582 step 3: inflate
            }
            CaState::Recovery | CaState::Loss => {}
        }
        newly_lost
    }

    /// ECN (RFC 3168 §6.1.2): reduce at most once per window, not during recovery. The ACK
    /// must cover data sent after the last reduction: ACKs up to `ecn_high_seq` may still
    /// echo marks the receiver saw before our CWR reached it.
    fn answer_ecn_echo(&mut self, now: SimTime, ece: bool) {
        if ece
            && matches!(self.hot.ca, CaState::Open | CaState::Disorder)
            && self.hot.snd_una > self.hot.ecn_high_seq
        {
            let flight = self.flight_for_reduction();
            let prior_cwnd = self.hot.win.cwnd;
            if self.cc.on_ecn_echo(&mut self.hot.win, now, flight) {
                self.hot.cwr_pending = true;
                self.stats.ecn_reductions += 1;
                if self.prr_on() {
                    // The controller set ssthresh; PRR brings cwnd down to it (Linux's CWR).
                    self.hot.win.cwnd = prior_cwnd;
                    self.start_reduction(CaState::Cwr, prior_cwnd);
                }
            }
            self.hot.ecn_high_seq = self.hot.snd_nxt;
        }
    }

    /// PRR reduces the window (the configuration asks for it).
    fn prr_on(&self) -> bool {
        self.hot.cfg.recovery == Recovery::Prr
    }

    /// A PRR reduction begins from `prior_cwnd` (Linux `tcp_init_cwnd_reduction`).
    fn start_reduction(&mut self, state: CaState, prior_cwnd: u64) {
        self.hot.ca = state;
        self.prr = Prr { delivered: 0, out: 0, prior_cwnd: prior_cwnd.max(1) };
    }

    /// RFC 6937 on an ACK that delivered `delivered` bytes (Linux `tcp_cwnd_reduction`, in
    /// bytes): cwnd = pipe + the data that may be sent now.
    fn prr_update(&mut self, delivered: u64, una_advanced: bool, newly_lost: bool) {
        if delivered == 0 {
            return;
        }
        self.prr.delivered += delivered;
        let (pipe, ssthresh, mss) = (self.sb.pipe(), self.hot.win.ssthresh, self.hot.win.mss);
        let sndcnt = if pipe > ssthresh {
            // Proportional: ⌈prr_delivered · ssthresh / RecoverFS⌉ − prr_out.
            let due = (self.prr.delivered as u128 * ssthresh as u128).div_ceil(self.prr.prior_cwnd as u128);
            (due as u64).saturating_sub(self.prr.out)
        } else {
            // Slow-start reduction bound: catch up to ssthresh by at most what was delivered,
            // plus a segment when snd_una advanced and nothing was newly lost.
            let mut bound = self.prr.delivered.saturating_sub(self.prr.out).max(delivered);
            if una_advanced && !newly_lost {
                bound += mss;
            }
            bound.min(ssthresh - pipe)
        };
        // The first retransmission goes whatever the count (RFC 6937: "fast retransmit").
        let sndcnt = if self.prr.out == 0 { sndcnt.max(mss) } else { sndcnt };
        self.hot.win.cwnd = pipe + sndcnt;
    }

    /// What multiplicative decrease scales (`TcpConfig::ssthresh_base`). FlightSize is capped
    /// at cwnd: data SACKed but not yet cumulatively acknowledged, and limited-transmit
    /// segments (RFC 6675 §5 (4.2)), are not window the sender earned; counting them would
    /// make a loss detected just after a recovery *raise* the window.
    fn flight_for_reduction(&self) -> u64 {
        match self.hot.cfg.ssthresh_base {
            SsthreshBase::Cwnd => self.hot.win.cwnd,
            SsthreshBase::Flight => (self.hot.snd_nxt - self.hot.snd_una).min(self.hot.win.cwnd),
            SsthreshBase::Pipe => self.sb.pipe(),
        }
    }

    /// Fast retransmit and recovery. `presume_first_lost`: the hole at `snd_una` is the loss
    /// (duplicate ACKs); an explicit signal has already marked what it named.
    fn enter_recovery(&mut self, now: SimTime, presume_first_lost: bool) {
        let prr = self.prr_on() && self.hot.sack_ok;
        if prr && self.hot.ca == CaState::Cwr {
            // Already reducing for this window (an ECN echo): the reduction goes on, towards
            // the same ssthresh (Linux `tcp_enter_recovery`).
            self.hot.ca = CaState::Recovery;
        } else {
            let flight = self.flight_for_reduction();
            let prior_cwnd = self.hot.win.cwnd;
            self.hot.win.ssthresh = self.cc.ssthresh_on_loss(&self.hot.win, now, flight);
            self.start_reduction(CaState::Recovery, prior_cwnd);
        }
        self.hot.recover = self.hot.snd_nxt;
        self.hot.partial_ack_seen = false;
        self.hot.lt_credit = 0;
        self.probe = None;
        self.stats.fast_recoveries += 1;
        // A first segment already presumed lost and resent stays so: its retransmission may
        // still arrive (e.g. a loss found after the previous recovery's `recover`, resent
        // within it). Resending it again would be spurious (as in Linux, which skips
        // segments marked SACKED_RETRANS).
        if presume_first_lost && !self.sb.first().is_some_and(|s| s.lost) {
            self.sb.mark_lost_at(self.hot.snd_una);
        }
        self.hot.retransmit_now = true;
        self.hot.win.cwnd = if prr {
            // Until the ACK's PRR update: nothing beyond the first retransmission.
            self.hot.win.cwnd.min(self.sb.pipe())
        } else if self.hot.sack_ok {
            self.hot.win.ssthresh
        } else {
            self.hot.win.ssthresh + self.hot.cfg.dupthresh as u64 * self.hot.win.mss
        };
        // Do not answer ECE for data sent before the reduction.
        self.hot.ecn_high_seq = self.hot.snd_nxt;
        self.hot.cwr_pending = self.hot.ecn_ok;
    }

    /// F-RTO on an ACK during a timeout's recovery (RFC 5682 §3.1 with SACK, as Linux's
    /// `tcp_process_loss`): `orig_end` is the lowest end of a segment this ACK newly
    /// acknowledged or SACKed that was never retransmitted; `loss_seen`, whether it SACKed
    /// data or duplicated the last.
    fn frto_on_ack(&mut self, una_advanced: bool, orig_end: Option<u64>, loss_seen: bool) {
        debug_assert_eq!(self.hot.ca, CaState::Loss, "F-RTO runs only in a timeout's recovery");
        if orig_end.is_some_and(|end| end <= self.hot.recover) {
            // Step 3.b: data sent before the timeout arrived without being resent.
            self.undo_timeout();
        } else if self.hot.snd_nxt > self.hot.recover {
            if loss_seen {
                self.frto = Frto::Off; // step 3.a: the loss was real
            }
        } else if una_advanced && self.hot.snd_una < self.hot.recover {
            // Step 2.b: new data next, if there is some the peer's window takes.
            let sendable = self.unsent_remains() && self.hot.snd_una + self.hot.rwnd > self.hot.snd_nxt;
            self.frto = if sendable { Frto::SendNew } else { Frto::Off };
        }
    }

    /// A spurious timeout: the window and ssthresh back to where they were, nothing presumed
    /// lost (Linux's `tcp_try_undo_loss` with `frto_undo`, `tcp_undo_cwnd_reduction`).
    fn undo_timeout(&mut self) {
        if let Some(u) = self.undo.take() {
            self.hot.win.cwnd = self.hot.win.cwnd.max(u.cwnd);
            self.hot.win.ssthresh = self.hot.win.ssthresh.max(u.ssthresh);
            self.hot.recover = u.recover;
        }
        self.sb.unmark_lost();
        self.hot.ca = CaState::Open;
        self.frto = Frto::Off;
        self.hot.timed_out_since_progress = false;
        self.hot.retransmit_now = false;
        self.stats.spurious_timeouts += 1;
    }

    /// The ssthresh a reduction would restore (Linux's `tcp_current_ssthresh`): during one,
    /// ssthresh; otherwise at least three quarters of the window.
    fn current_ssthresh(&self) -> u64 {
        if matches!(self.hot.ca, CaState::Recovery | CaState::Cwr) {
            return self.hot.win.ssthresh;
        }
        let segments = self.hot.win.cwnd / self.hot.win.mss;
        self.hot.win.ssthresh.max((segments / 2 + segments / 4) * self.hot.win.mss)
    }

    fn on_timeout(&mut self, now: SimTime) {
        match self.hot.state {
            State::SynSent | State::SynReceived => {
                self.stats.syn_timeouts += 1;
                self.syn_rto = SimTime(self.syn_rto.0.saturating_mul(2)).min(self.hot.cfg.rto.max);
                self.syn_due = true;
            }
            _ if !self.sb.is_empty() => {
                self.stats.timeouts += 1;
                self.rtt.on_timeout();
                // F-RTO may undo a timeout that begins an episode, or recurs with no progress
                // since (RFC 5682 §3.2; Linux's `tcp_enter_loss`).
                let new_episode = matches!(self.hot.ca, CaState::Open | CaState::Disorder | CaState::Cwr);
                let recurring = self.hot.timed_out_since_progress;
                if new_episode {
                    let (cwnd, ssthresh, recover) =
                        (self.hot.win.cwnd, self.current_ssthresh(), self.hot.recover);
                    self.undo = Some(Undo { cwnd, ssthresh, recover });
                } else if !recurring {
                    self.undo = None;
                }
                let frto = self.hot.cfg.frto && self.undo.is_some() && (new_episode || recurring);
                self.frto = if frto { Frto::On } else { Frto::Off };
                let flight = self.flight_for_reduction();
                // Linux's `tcp_enter_loss`: a timeout reduces ssthresh unless a reduction of
                // this episode stands — a recovery under way, or an earlier timeout with no
                // data acknowledged since (`icsk_retransmits`, reset when SND.UNA advances).
                let reduce = match self.hot.ca {
                    CaState::Open | CaState::Disorder => true,
                    CaState::Loss => self.hot.cfg.timeout_reduces_again && !self.hot.timed_out_since_progress,
                    CaState::Cwr | CaState::Recovery => false,
                };
                self.hot.timed_out_since_progress = true;
                self.cc.on_rto(&mut self.hot.win, now, flight, reduce);
                self.sb.mark_all_lost();
                self.probe = None;
                self.probe_due = false;
                self.hot.recover = self.hot.snd_nxt;
                self.rtt_history_from = self.hot.snd_nxt;
                self.hot.ca = CaState::Loss;
                self.hot.dupacks = 0;
                self.hot.lt_credit = 0;
                self.hot.retransmit_now = true;
                self.hot.ecn_high_seq = self.hot.snd_nxt;
            }
            _ => {}
        }
    }

    // ------------------------------------------------------------------ loss timers

    /// Arm the retransmission timer for `purpose`, replacing what it was armed for.
    fn arm(&mut self, at: SimTime, purpose: LossTimer) {
        self.hot.timer_at = Some(at);
        self.hot.timer = purpose;
    }

    /// The retransmission timeout from now (Linux's `tcp_rearm_rto`); after a probe's or the
    /// reordering timer, from when the oldest segment outstanding was last sent.
    fn rearm_rto(&mut self, now: SimTime) {
        if self.sb.is_empty() {
            self.hot.timer_at = None;
            return;
        }
        let rto = self.rtt.rto();
        let at = match self.hot.timer {
            LossTimer::Retransmit => now + rto,
            LossTimer::Probe | LossTimer::Reorder => {
                let head_sent = self.sb.first().map_or(now, |h| h.sent_at);
                (head_sent + rto).max(now)
            }
        };
        self.arm(at, LossTimer::Retransmit);
    }

    /// Arm the tail loss probe's timer instead of the RTO, where it applies (RFC 8985 §7.2,
    /// Linux's `tcp_schedule_loss_probe`): with SACK, in the open or CWR state, data
    /// outstanding. PTO = 2·SRTT plus the timer slack (plus the worst-case delayed ACK with
    /// one segment in flight), no later than the RTO — a whole RTO from now on an ACK
    /// (`advancing_rto`), else the one pending. Returns whether it was armed.
    fn schedule_probe(&mut self, now: SimTime, advancing_rto: bool) -> bool {
        if !(self.hot.cfg.tlp
            && self.hot.sack_ok
            && matches!(self.hot.ca, CaState::Open | CaState::Cwr)
            && !self.sb.is_empty())
        {
            return false;
        }
        let pto = match self.rtt.srtt() {
            Some(srtt) if self.sb.len() == 1 => srtt + srtt + self.hot.cfg.tlp_delayed_ack_allowance,
            Some(srtt) => srtt + srtt + self.hot.cfg.loss_timer_slack,
            None => self.hot.cfg.rto.initial,
        };
        let rto_left = if advancing_rto {
            Some(self.rtt.rto())
        } else {
            let pending = self.sb.first().map(|h| h.sent_at + self.rtt.rto());
            pending.filter(|&t| t > now).map(|t| t - now)
        };
        self.arm(now + rto_left.map_or(pto, |r| pto.min(r)), LossTimer::Probe);
        true
    }

    /// The probe's timer fired: a probe is due if one may go (`probe_kind`), sent by the next
    /// `poll_transmit`. Otherwise the RTO takes over.
    #[cold]
    #[inline(never)]
    fn on_probe_timeout(&mut self, now: SimTime) {
        self.probe_due = self.probe_kind().is_some();
        if !self.probe_due {
            self.rearm_rto(now);
        }
    }

    /// What a probe would send now (Linux's `tcp_send_loss_probe`): a new segment if the peer's
    /// window takes one, else the last segment again if it is neither SACKed nor presumed
    /// lost; nothing while another probe is outstanding.
    fn probe_kind(&self) -> Option<ProbeKind> {
        if self.probe.is_some() || !self.may_send_data() {
            return None;
        }
        if self.next_new_segment().is_some() {
            return Some(ProbeKind::NewData);
        }
        let last = self.sb.get(self.sb.len().checked_sub(1)?);
        (!last.sacked && !last.lost).then_some(ProbeKind::ResendLast)
    }

    /// Send the probe that is due, whatever the window, then restart the RTO from now.
    #[cold]
    #[inline(never)]
    fn send_probe(&mut self, now: SimTime, emit: &mut impl Transmit) {
        self.probe_due = false;
        let resent = match self.probe_kind() {
            None => return self.rearm_rto(now),
            Some(ProbeKind::NewData) => {
                let (len, fin) = self.next_new_segment().expect("probe_kind saw a new segment");
                self.emit_new_segment(now, len, fin, emit);
                false
            }
            Some(ProbeKind::ResendLast) => {
                let i = self.sb.len() - 1;
                let s = self.sb.get(i);
                self.sb.on_probe(i, now, self.hot.snd_nxt);
                self.stats.retransmissions += 1;
                self.emit_data(now, s.start, s.end, s.fin, true, emit);
                true
            }
        };
        self.probe = Some(Probe { high_seq: self.hot.snd_nxt, resent });
        self.stats.loss_probes += 1;
        self.arm(now + self.rtt.rto(), LossTimer::Retransmit);
    }

    /// What an ACK showed of the probe outstanding. A repaired loss reduces the window once,
    /// at once (Linux: `tcp_init_cwnd_reduction`, then `tcp_end_cwnd_reduction`).
    #[cold]
    #[inline(never)]
    fn on_probe_ack(&mut self, now: SimTime, outcome: ProbeOutcome) {
        match outcome {
            ProbeOutcome::Pending => {}
            ProbeOutcome::NoLoss => self.probe = None,
            ProbeOutcome::Repaired => {
                self.probe = None;
                let flight = self.flight_for_reduction();
                self.hot.win.ssthresh = self.cc.ssthresh_on_loss(&self.hot.win, now, flight);
                self.hot.win.cwnd = self.hot.win.ssthresh;
                self.stats.loss_probe_recoveries += 1;
            }
        }
    }

    /// RACK's loss detection applies: configured, and SACK in use.
    fn rack_on(&self) -> bool {
        self.hot.cfg.rack && self.hot.sack_ok
    }

    /// RACK's detection (RFC 8985 §6.2 step 5): on an ACK that delivered data (`on_ack`),
    /// arming the reordering timer for segments still within their window; on that timer,
    /// without. Returns the segments newly presumed lost.
    fn rack_detect(&mut self, now: SimTime, on_ack: bool) -> usize {
        let reference = if on_ack { self.rack.take_advance() } else { self.rack.reference() };
        let Some((before, rack_rtt)) = reference else { return 0 };
        if !self.sb.sent_before(before) {
            return 0;
        }
        let in_recovery = matches!(self.hot.ca, CaState::Recovery | CaState::Loss);
        let (min_rtt, srtt) = (self.rtt.min_rtt(), self.rtt.srtt());
        let reo_wnd =
            self.rack.reo_wnd(in_recovery, self.sb.sacked_segments(), self.hot.cfg.dupthresh, min_rtt, srtt);
        let (marked, resent_marked, wait) = self.sb.mark_lost_by_time(before, rack_rtt + reo_wnd, now);
        self.stats.lost_retransmissions += resent_marked as u64;
        if let Some(w) = wait.filter(|_| on_ack) {
            // Linux adds its timer slack, and never waits longer than the RTO.
            let rto = self.rtt.rto();
            self.arm(now + (w + self.hot.cfg.loss_timer_slack).min(rto), LossTimer::Reorder);
        }
        marked
    }

    /// RACK's reordering timer fired: the segments that waited out their window are lost,
    /// and a fast recovery repairs them (Linux's `tcp_rack_reo_timeout`); the RTO takes over.
    #[cold]
    #[inline(never)]
    fn on_reorder_timeout(&mut self, now: SimTime) {
        let marked = self.rack_detect(now, false);
        if marked > 0 && matches!(self.hot.ca, CaState::Open | CaState::Disorder | CaState::Cwr) {
            self.enter_recovery(now, false);
        }
        if self.sb.first().is_some_and(|s| s.lost && !s.retransmitted) {
            // The oldest segment goes again at once: the RTO runs from its new send time.
            self.arm(now + self.rtt.rto(), LossTimer::Retransmit);
        } else {
            self.rearm_rto(now);
        }
    }

    /// Segments are paced: the configuration asks for it, or the controller paces by itself
    /// (an explicit-rate sender in rate mode).
    fn paces(&self) -> bool {
        self.hot.cfg.pacing || self.cc.pacing_rate(&self.hot.win, self.rtt.srtt()).is_some()
    }

    /// The pacing rate: the controller's, or else (with `pacing` on) cwnd/SRTT scaled as Linux does (2× in slow
    /// start, 1.2× in congestion avoidance; `sysctl_tcp_pacing_ss_ratio`/`ca_ratio`).
    pub fn pacing_rate(&self) -> Option<Rate> {
        if let Some(r) = self.cc.pacing_rate(&self.hot.win, self.rtt.srtt()) {
            return Some(r);
        }
        if !self.hot.cfg.pacing {
            return None;
        }
        let srtt = self.rtt.srtt()?;
        let ratio_pct: u128 = if self.hot.win.in_slow_start() { 200 } else { 120 };
        let bps = self.hot.win.cwnd as u128 * 8 * crate::units::PS_PER_S as u128 * ratio_pct
            / 100
            / srtt.0.max(1) as u128;
        Some(Rate(bps.max(1).min(u64::MAX as u128) as u64))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::net::packet::SackBlock;
    use crate::tcp::DelayedAck;
    use crate::tcp::cc::{CcConfig, RenoIncrease};
    use crate::tcp::testing::{Dir, Harness, Sent};

    const MS: SimTime = SimTime::from_ms(1);

    /// The default configuration without timestamps — full segments carry the whole MSS (1460
    /// bytes), which the tests' arithmetic assumes — with RFC 6675's loss detection, by
    /// duplicate ACKs and SACK counts and the timer alone (no RACK, no tail loss probes), and
    /// RFC 6298's timer with an exact clock (G = 0, so that the RTO's arithmetic is the RFC's).
    /// Timestamps, RACK, TLP and Linux's RTO have tests of their own.
    fn cfg() -> TcpConfig {
        let mut c = TcpConfig { timestamps: false, rack: false, tlp: false, ..TcpConfig::default() };
        c.rto.granularity = SimTime::ZERO;
        c
    }

    /// Retransmissions of data by `a`, as (time, seq).
    fn retransmissions(h: &Harness) -> Vec<(SimTime, u64)> {
        h.data_sent().filter(|s| s.out.retransmission).map(|s| (s.at, s.out.seg.seq)).collect()
    }

    /// With nothing outstanding and nothing to send (the board and pacing state unread),
    /// `send_data` clears `cwnd_limited` only when there was budget to send: without budget it
    /// stops before judging the window.
    #[test]
    fn nothing_to_send_leaves_the_state_the_loop_would() {
        for budget in [0, 3] {
            let mut s = TcpSocket::new(cfg(), 1, 2);
            (s.hot.state, s.hot.snd_una, s.hot.snd_nxt) = (State::Established, 1, 1);
            (s.hot.cwnd_limited, s.hot.tx_blocked, s.hot.pace_wakeup) = (true, true, Some(SimTime(5)));
            s.set_tx_budget(budget);
            let mut sent = 0;
            s.send_data(SimTime(1), &mut |_: &Outgoing| sent += 1);
            assert_eq!(sent, 0);
            assert_eq!(s.hot.cwnd_limited, budget == 0);
            assert!(!s.hot.tx_blocked);
            assert_eq!(s.hot.pace_wakeup, None);
        }
    }

    /// The layout the struct's comment describes: what every segment reads (`SocketHot`) in the
    /// first three lines, counters next, then the receive side before the sender's own state.
    #[test]
    fn socket_fields_in_order_of_use() {
        use std::mem::offset_of;
        assert_eq!(offset_of!(TcpSocket, hot), 0);
        const { assert!(std::mem::size_of::<SocketHot>() <= 3 * 64) };
        assert!(offset_of!(TcpSocket, hot) < offset_of!(TcpSocket, stats));
        assert!(offset_of!(TcpSocket, stats) < offset_of!(TcpSocket, rcv));
        assert!(offset_of!(TcpSocket, rcv) < offset_of!(TcpSocket, cc));
        assert!(offset_of!(TcpSocket, sb) < offset_of!(TcpSocket, syn_sent_at));
        // An in-order segment's receive state in the receiver's first two lines.
        assert!(offset_of!(Receiver, fin_received) < 2 * 64);
    }

    #[test]
    fn handshake_then_transfer_then_close() {
        let mut h = Harness::new(cfg().clone(), cfg(), MS);
        h.start(100_000, true);
        h.run_until(SimTime::from_secs(1));
        assert_eq!(h.b.delivered_bytes(), 100_000);
        assert_eq!(h.a.bytes_acked(), 100_000);
        assert!(h.a.all_acked());
        assert_eq!(h.a.state(), State::FinWait2);
        assert_eq!(h.b.state(), State::CloseWait);
        assert_eq!(h.a.stats().retransmissions, 0);
        // RTT sampled from the handshake: 2 ms.
        assert_eq!(h.a.rtt().min_rtt(), Some(SimTime::from_ms(2)));
    }

    #[test]
    fn first_flight_is_the_initial_window() {
        let mut h = Harness::new(cfg().clone(), cfg(), MS);
        h.start(1_000_000, false);
        h.run_until(SimTime::from_ms(3)); // handshake done at 2 ms; nothing acked yet
        assert_eq!(h.data_sent().count(), 10);
    }

    /// A flow of exactly one initial window, closed at once: the FIN rides on the last
    /// segment and takes no room in the window, so all ten segments leave in the first flight.
    #[test]
    fn a_flow_of_one_initial_window_leaves_in_one_flight_fin_included() {
        let mut h = Harness::new(cfg().clone(), cfg(), MS);
        h.start(10 * 1460, true);
        h.run_until(SimTime::from_ms(3)); // handshake done at 2 ms; nothing acked yet
        let sent: Vec<_> = h.data_sent().collect();
        assert_eq!(sent.len(), 10);
        assert!(sent[9].out.seg.flags.has(TcpFlags::FIN));
        h.run_until(SimTime::from_ms(10));
        assert!(h.a.all_acked());
        assert_eq!(h.data_sent().count(), 10);
    }

    /// A controller that counts what it is told: NewReno's rules, plus the bytes every ACK
    /// reports as delivered.
    struct Counting {
        inner: crate::tcp::cc::NewReno,
        delivered: std::sync::Arc<std::sync::atomic::AtomicU64>,
    }

    impl CongestionControl for Counting {
        fn name(&self) -> &'static str {
            "counting"
        }
        fn on_any_ack(&mut self, _w: &mut Window, ack: &AckSample) {
            self.delivered.fetch_add(ack.delivered_bytes, std::sync::atomic::Ordering::Relaxed);
        }
        fn on_ack(&mut self, w: &mut Window, ack: &AckSample) {
            self.inner.on_ack(w, ack)
        }
        fn ssthresh_on_loss(&mut self, w: &Window, now: SimTime, in_flight: u64) -> u64 {
            self.inner.ssthresh_on_loss(w, now, in_flight)
        }
    }

    /// Run a 200-segment transfer losing the data segments `lost` picks (by index, first
    /// transmissions only), with a controller that counts delivered bytes; returns the harness
    /// and the count.
    fn count_delivered(lost: fn(usize) -> bool, c: TcpConfig) -> (Harness, u64) {
        let delivered = std::sync::Arc::new(std::sync::atomic::AtomicU64::new(0));
        let mut h = Harness::new(c.clone(), c, SimTime::from_ms(10));
        h.spacing = SimTime::from_us(100);
        h.a.set_cc(AnyCc::Custom(Box::new(Counting {
            inner: crate::tcp::cc::NewReno::default(),
            delivered: delivered.clone(),
        })));
        h.drop = Box::new(move |dir, i, o| {
            dir == Dir::AtoB && o.seg.payload_len > 0 && !o.retransmission && lost(i)
        });
        h.start(200 * 1460, true);
        h.run_until(SimTime::from_secs(5));
        assert!(h.a.all_acked());
        let n = delivered.load(std::sync::atomic::Ordering::Relaxed);
        (h, n)
    }

    /// Every payload byte reaches the controller exactly once, however it is acknowledged: a
    /// byte SACKed during a recovery is not counted again when the cumulative ACK covers it.
    #[test]
    fn the_controller_sees_each_delivered_byte_once_after_a_sack_repaired_loss() {
        let (h, n) = count_delivered(|i| i == 30, cfg());
        assert_eq!(h.a.stats().fast_recoveries, 1);
        assert_eq!(h.a.stats().timeouts, 0);
        assert_eq!(n, 200 * 1460);
    }

    /// The same after a timeout whose go-back-N runs over SACKed segments: the cumulative ACKs
    /// that jump over them grow the window by the resent bytes only, so slow start stops at
    /// ssthresh instead of overshooting it by the SACKed bytes.
    #[test]
    fn slow_start_after_a_timeout_counts_sacked_bytes_once() {
        let c = with(|c| c.dupthresh = 1000); // no fast retransmit: the timer finds the losses
        let (h, n) = count_delivered(|i| (30..40).contains(&i) && i % 2 == 0, c);
        assert_eq!(h.a.stats().timeouts, 1);
        assert_eq!(n, 200 * 1460);
    }

    #[test]
    fn timeout_doubles_the_rto_from_the_minimum() {
        let mut h = Harness::new(cfg().clone(), cfg(), MS);
        // Deliver the handshake, then lose every data segment.
        h.drop = Box::new(|dir, _, o| dir == Dir::AtoB && o.seg.payload_len > 0);
        h.start(10_000, false);
        h.run_until(SimTime::from_secs(4));
        let rx = retransmissions(&h);
        let first = h.data_sent().next().unwrap().at;
        let mut prev = first;
        let mut gaps = Vec::new();
        for (t, seq) in &rx {
            assert_eq!(*seq, 1, "a timeout resends the first unacknowledged segment");
            gaps.push(*t - prev);
            prev = *t;
        }
        // RTT 2 ms gives an RTO far below the 200 ms minimum: 200, 400, 800, 1600 ms.
        assert_eq!(
            gaps[..4],
            [SimTime::from_ms(200), SimTime::from_ms(400), SimTime::from_ms(800), SimTime::from_ms(1600)]
        );
        assert_eq!(h.a.stats().timeouts, 4);
    }

    #[test]
    fn minimum_rto_is_a_parameter() {
        let mut c = cfg();
        c.rto.min = SimTime::from_ms(10);
        let mut h = Harness::new(c.clone(), c, MS);
        h.drop = Box::new(|dir, _, o| dir == Dir::AtoB && o.seg.payload_len > 0);
        h.start(10_000, false);
        h.run_until(SimTime::from_ms(100));
        let first = h.data_sent().next().unwrap().at;
        let rx = retransmissions(&h);
        // RTO = max(10 ms, SRTT + 4·RTTVAR) = max(10, 2 + 4) = 10 ms.
        assert_eq!(rx[0].0 - first, SimTime::from_ms(10));
    }

    #[test]
    fn three_dupacks_trigger_one_fast_retransmit_without_timeout() {
        let mut h = Harness::new(cfg().clone(), cfg(), MS);
        h.spacing = SimTime::from_us(10);
        h.drop = Box::new(|dir, i, o| dir == Dir::AtoB && o.seg.payload_len > 0 && i == 3);
        h.start(200_000, true);
        h.run_until(SimTime::from_secs(1));
        assert_eq!(h.b.delivered_bytes(), 200_000);
        let st = h.a.stats();
        assert_eq!(st.timeouts, 0);
        assert_eq!(st.fast_recoveries, 1);
        assert_eq!(st.retransmissions, 1);
        // ssthresh was set from FlightSize/2 and recovery ended.
        assert_eq!(h.a.ca_state(), CaState::Open);
    }

    #[test]
    fn lost_syn_is_retransmitted_after_the_syn_timeout_and_resets_rto_to_3s() {
        let mut h = Harness::new(cfg().clone(), cfg(), MS);
        h.drop = Box::new(|dir, i, o| dir == Dir::AtoB && i == 0 && o.seg.flags.has(TcpFlags::SYN));
        h.start(1_000, false);
        // The SYN-ACK arrives at 1.002 s and data goes out at once, timed with a 3 s RTO.
        h.run_until(SimTime::from_ms(1003));
        assert_eq!(
            h.a.rto(),
            SimTime::from_secs(3),
            "RFC 6298 §5.7; Karn: no sample from the retransmitted SYN"
        );
        h.run_until(SimTime::from_secs(2));
        let syns: Vec<_> =
            h.log.iter().filter(|s| s.dir == Dir::AtoB && s.out.seg.flags.has(TcpFlags::SYN)).collect();
        assert_eq!(syns.len(), 2);
        assert_eq!(syns[1].at - syns[0].at, SimTime::from_secs(1));
        assert_eq!((h.a.stats().syn_timeouts, h.a.stats().timeouts), (1, 0), "counted apart");
        assert_eq!(h.b.delivered_bytes(), 1_000);
        assert_eq!(h.a.rto(), SimTime::from_ms(200), "the first data sample recomputes it");
    }

    fn with(f: impl FnOnce(&mut TcpConfig)) -> TcpConfig {
        let mut c = cfg();
        f(&mut c);
        c
    }

    /// Four segments of one window lost: SACK repairs them within about one RTT of the first
    /// retransmission; NewReno needs one RTT per hole (one partial ACK each). Neither times out.
    #[test]
    fn sack_repairs_several_losses_in_one_rtt_where_newreno_takes_one_rtt_each() {
        let lost = [20usize, 22, 24, 26];
        let run = |sack: bool| {
            let c = with(|c| {
                c.sack = sack;
                c.init_cwnd = 40;
            });
            let mut h = Harness::new(c.clone(), c, SimTime::from_ms(10));
            h.spacing = SimTime::from_us(100);
            h.drop =
                Box::new(move |dir, i, o| dir == Dir::AtoB && o.seg.payload_len > 0 && lost.contains(&i));
            h.start(100 * 1460, true);
            h.run_until(SimTime::from_secs(2));
            assert_eq!(h.b.delivered_bytes(), 100 * 1460);
            assert_eq!(h.a.stats().timeouts, 0, "sack={sack}");
            assert_eq!(h.a.stats().retransmissions, 4, "sack={sack}: one retransmission per hole");
            let rx = retransmissions(&h);
            rx.last().unwrap().0 - rx.first().unwrap().0
        };
        let rtt = SimTime::from_ms(20);
        let sack_span = run(true);
        let newreno_span = run(false);
        assert!(sack_span < rtt, "SACK resent all holes within {sack_span}");
        assert!(newreno_span >= SimTime(3 * rtt.0), "NewReno: one hole per RTT, took {newreno_span}");
    }

    #[test]
    fn limited_transmit_turns_two_dupacks_into_a_fast_retransmit() {
        // Four segments, init_cwnd 3, the first lost: segments 2 and 3 give two duplicate ACKs;
        // limited transmit sends segment 4, whose ACK is the third.
        let run = |lt: bool| {
            let c = with(|c| {
                c.init_cwnd = 3;
                c.limited_transmit = lt;
                c.sack = false; // duplicate-ACK counting alone (SACK's byte rule would also fire)
            });
            let mut h = Harness::new(c.clone(), c, MS);
            h.drop = Box::new(|dir, i, o| dir == Dir::AtoB && o.seg.payload_len > 0 && i == 0);
            h.start(4 * 1460, true);
            h.run_until(SimTime::from_secs(2));
            assert_eq!(h.b.delivered_bytes(), 4 * 1460);
            (h.a.stats().fast_recoveries, h.a.stats().timeouts)
        };
        assert_eq!(run(true), (1, 0));
        assert_eq!(run(false), (0, 1));
    }

    #[test]
    fn dupthresh_is_configurable() {
        let run = |dupthresh: u32| {
            let c = with(|c| c.dupthresh = dupthresh);
            let mut h = Harness::new(c.clone(), c, MS);
            h.spacing = SimTime::from_us(10);
            // Lose segment 5 of a 9-segment flow: 3 later segments of the first flight + ...
            h.drop = Box::new(|dir, i, o| dir == Dir::AtoB && o.seg.payload_len > 0 && i == 5);
            h.start(9 * 1460, true);
            h.run_until(SimTime::from_secs(2));
            assert_eq!(h.b.delivered_bytes(), 9 * 1460);
            (h.a.stats().fast_recoveries, h.a.stats().timeouts)
        };
        // Three segments follow the hole (plus limited transmit adds none: no new data left).
        assert_eq!(run(3), (1, 0));
        assert_eq!(run(4), (0, 1));
    }

    #[test]
    fn delayed_acks_halve_the_ack_count() {
        let acks = |delayed: bool| {
            let c = with(|c| {
                c.delayed_ack = delayed.then_some(DelayedAck { count: 2, timeout: SimTime::from_ms(40) })
            });
            let mut h = Harness::new(c.clone(), c, MS);
            h.spacing = SimTime::from_us(12);
            h.start(1000 * 1460, true);
            h.run_until(SimTime::from_secs(5));
            assert_eq!(h.b.delivered_bytes(), 1000 * 1460);
            h.log.iter().filter(|s| s.dir == Dir::BtoA && s.out.seg.payload_len == 0).count() as f64
        };
        let ratio = acks(true) / acks(false);
        assert!((0.48..=0.55).contains(&ratio), "ratio {ratio}");
    }

    #[test]
    fn karn_no_sample_from_a_retransmission_and_backoff_kept_until_a_new_sample() {
        let mut h = Harness::new(cfg().clone(), cfg(), MS);
        // Lose the first transmission of the first data segment only.
        h.drop = Box::new(|dir, i, o| dir == Dir::AtoB && o.seg.payload_len > 0 && i == 0);
        h.start(1460, false);
        h.run_until(SimTime::from_ms(500));
        assert_eq!(h.a.stats().timeouts, 1);
        assert!(h.a.all_acked());
        // The only data ACK acknowledged a retransmitted segment: no sample (Karn), so the RTT
        // estimate is still the handshake's and the backed-off RTO persists (RFC 6298 §5.7).
        assert_eq!(h.a.rtt().latest(), Some(SimTime::from_ms(2)));
        assert_eq!(h.a.rto(), SimTime::from_ms(400));
        // New data, acknowledged without retransmission: a sample, and the backoff collapses.
        h.a.send(1460);
        h.poll();
        h.run_until(SimTime::from_secs(1));
        assert_eq!(h.a.rto(), SimTime::from_ms(200));
    }

    fn with_ts() -> TcpConfig {
        with(|c| c.timestamps = true)
    }

    /// Both ends offer timestamps: every segment carries them (12 bytes with padding), and a
    /// full data segment carries the MSS less those 12 bytes (RFC 6691; Linux's 1448).
    #[test]
    fn timestamps_ride_on_every_segment_and_cost_twelve_bytes_of_payload() {
        let mut h = Harness::new(with_ts().clone(), with_ts(), MS);
        h.start(20 * 1448, true);
        h.run_until(SimTime::from_secs(1));
        assert!(h.b.all_acked() || h.a.all_acked());
        assert!(h.log.iter().all(|s| s.out.seg.ts), "every segment, SYNs and ACKs included");
        let data: Vec<_> = h.data_sent().collect();
        assert_eq!(data.len(), 20);
        assert!(data.iter().all(|s| s.out.seg.payload_len == 1448 && s.out.seg.header_len() == 32));
        // Without the peer's offer, none after the SYN.
        let mut h = Harness::new(with_ts(), cfg(), MS);
        h.start(20 * 1460, true);
        h.run_until(SimTime::from_secs(1));
        assert!(h.log.iter().skip(1).all(|s| !s.out.seg.ts));
        assert!(h.data_sent().all(|s| s.out.seg.payload_len == 1460));
    }

    /// RFC 7323 §4.3: an ACK echoes the last segment that arrived in order, so a duplicate ACK
    /// for a hole echoes the segment before the hole, and the ACK of the retransmission that
    /// fills it echoes the retransmission.
    #[test]
    fn acks_echo_the_last_in_order_segment_and_the_hole_filling_retransmission() {
        let mut h = Harness::new(with_ts().clone(), with_ts(), SimTime::from_ms(10));
        h.spacing = SimTime::from_ms(1);
        // The hole past the initial window, where the ACK clock sends one segment per tick.
        h.drop =
            Box::new(|dir, i, o| dir == Dir::AtoB && o.seg.payload_len > 0 && i == 15 && !o.retransmission);
        h.start(40 * 1448, true);
        h.run_until(SimTime::from_secs(2));
        assert!(h.a.all_acked());
        let sent_val = |pred: &dyn Fn(&Sent) -> bool| h.data_sent().find(|s| pred(s)).unwrap().out.seg.ts_val;
        let before_hole = sent_val(&|s| s.out.seg.seq == 1 + 14 * 1448);
        let after_hole = sent_val(&|s| s.out.seg.seq == 1 + 16 * 1448);
        let retx = sent_val(&|s| s.out.retransmission);
        assert!(before_hole < after_hole && after_hole < retx);
        let acks: Vec<_> =
            h.log.iter().filter(|s| s.dir == Dir::BtoA && s.out.seg.payload_len == 0).collect();
        let dup = acks.iter().find(|s| s.out.seg.ack == 1 + 15 * 1448 && !s.out.seg.sack.is_empty()).unwrap();
        assert_eq!(dup.out.seg.ts_ecr, before_hole);
        let filled = acks.iter().find(|s| s.out.seg.ack > 1 + 16 * 1448).unwrap();
        assert_eq!(filled.out.seg.ts_ecr, retx);
    }

    /// With timestamps, the ACK of a retransmission gives an RTT sample (its echo is
    /// unambiguous), so the timeout's backoff collapses at once; without, Karn's rule keeps it
    /// until a segment never retransmitted is acknowledged.
    #[test]
    fn with_timestamps_the_backoff_collapses_on_the_retransmissions_ack() {
        let rto_after = |c: TcpConfig| {
            let mut h = Harness::new(c.clone(), c, MS);
            h.drop = Box::new(|dir, i, o| dir == Dir::AtoB && o.seg.payload_len > 0 && i == 0);
            h.start(1000, false);
            h.run_until(SimTime::from_ms(500));
            assert_eq!(h.a.stats().timeouts, 1);
            assert!(h.a.all_acked());
            h.a.rto()
        };
        assert_eq!(rto_after(cfg()), SimTime::from_ms(400), "Karn: still backed off");
        assert_eq!(rto_after(with_ts()), SimTime::from_ms(200), "a sample from the echo");
    }

    /// Linux's `sack_rtt_us`: a duplicate ACK that SACKs data never retransmitted gives an RTT
    /// sample, which ends a timeout's backoff; without it the backoff waits for a cumulative
    /// ACK of such data.
    #[test]
    fn a_sack_of_data_never_retransmitted_gives_a_sample_that_ends_the_backoff() {
        let rto_after_dupack = |sack_rtt: bool| {
            // Two segments a window, no fast retransmit: a lost segment costs a timeout.
            let c = with(|c| {
                (c.sack_rtt, c.init_cwnd, c.dupthresh, c.limited_transmit) = (sack_rtt, 2, 10, false)
            });
            let mut h = Harness::new(c.clone(), c, MS);
            // The first segment's first transmission is lost, and the duplicate ACK for the
            // second: a timeout, whose retransmission's ACK gives no sample (Karn), so the
            // backoff stays. Then the first of the next segments is lost once, and the
            // ones after it are SACKed by duplicate ACKs.
            h.drop = Box::new(|dir, i, o| match dir {
                Dir::AtoB => !o.retransmission && [1, 1 + 2 * 1460].contains(&o.seg.seq),
                Dir::BtoA => i == 1,
            });
            h.start(5 * 1460, false);
            h.run_until(SimTime::from_ms(250));
            let st = h.a.stats();
            assert_eq!((st.timeouts, st.retransmissions), (1, 1), "{st:?}");
            assert!(st.dupacks_received > 0, "the segments past the new hole are SACKed");
            h.a.rto()
        };
        assert_eq!(rto_after_dupack(true), SimTime::from_ms(200), "a sample from the SACK");
        assert_eq!(rto_after_dupack(false), SimTime::from_ms(400), "still backed off");
    }

    /// After a timeout of an application-limited flow the window is one segment, and the
    /// ACK of the retransmission finds nothing more to send: Linux still grows the window in
    /// slow start (it is under twice the most that was in flight in the window), the
    /// last-send rule does not (the last send was not stopped by the window), and without
    /// validation every ACK grows it.
    #[test]
    fn cwnd_validation_decides_whether_an_application_limited_window_grows() {
        let cwnd_after = |v: CwndValidation| {
            let c = with(|c| c.cwnd_validation = v);
            let mut h = Harness::new(c.clone(), c, MS);
            h.drop = Box::new(|dir, _, o| dir == Dir::AtoB && !o.retransmission && o.seg.seq == 1);
            h.start(2 * 1460, false);
            h.run_until(SimTime::from_ms(500));
            assert_eq!(h.a.stats().timeouts, 1);
            assert!(h.a.all_acked());
            h.a.cwnd()
        };
        assert_eq!(cwnd_after(CwndValidation::Linux), 2 * 1460);
        assert_eq!(cwnd_after(CwndValidation::LastSend), 1460);
        assert_eq!(cwnd_after(CwndValidation::None), 2 * 1460);
        // In congestion avoidance an application-limited window stays, unless unvalidated.
        let grown = |v: CwndValidation| {
            let c = with(|c| (c.cwnd_validation, c.initial_ssthresh) = (v, Some(2 * 1460)));
            let mut h = Harness::new(c.clone(), c, MS);
            h.start(1460, false);
            for i in 1..=20 {
                h.run_until(SimTime::from_ms(5 * i));
                h.a.send(1460);
                h.poll();
            }
            h.run_until(SimTime::from_ms(200));
            assert!(h.a.all_acked());
            h.a.cwnd() > 10 * 1460
        };
        assert!(!grown(CwndValidation::Linux) && !grown(CwndValidation::LastSend));
        assert!(grown(CwndValidation::None));
    }

    /// `RttModel::Ns3`: every ACK of new data ends the backoff, with a sample or without; after
    /// a timeout no sample comes until data first sent after it is acknowledged; with
    /// timestamps a sample is the echo in whole ticks, or 1 µs under one tick.
    #[test]
    fn the_ns3_rtt_model_ends_the_backoff_on_any_new_ack_and_samples_only_new_data() {
        let one_way = SimTime::from_us(300);
        for ts in [false, true] {
            let c = TcpConfig { rtt_model: RttModel::Ns3, timestamps: ts, ..cfg() };
            let mut h = Harness::new(c.clone(), c, one_way);
            h.drop = Box::new(|dir, i, o| dir == Dir::AtoB && o.seg.payload_len > 0 && i == 0);
            h.start(1000, false);
            h.run_until(SimTime::from_ms(500));
            assert_eq!(h.a.stats().timeouts, 1);
            assert!(h.a.all_acked());
            assert_eq!(h.a.rto(), SimTime::from_ms(200), "the backoff ended without a sample");
            let handshake = Some(SimTime::from_us(600));
            assert_eq!(h.a.rtt().latest(), handshake, "no sample from data sent before the timeout");
            h.a.send(1000);
            h.poll();
            h.run_until(SimTime::from_secs(1));
            let latest = h.a.rtt().latest().unwrap();
            if ts {
                assert!([SimTime::from_us(1), MS].contains(&latest), "the echo in ticks: {latest}");
            } else {
                assert_eq!(latest, SimTime::from_us(600), "the exact send time");
            }
        }
    }

    /// A SYN-ACK that answers a retransmitted SYN gives a sample through its echo (Linux): the
    /// RTO is set from it, not re-initialized to 3 s (RFC 6298 §5.7 applies without a sample).
    #[test]
    fn with_timestamps_a_lost_syn_costs_no_three_second_rto() {
        let mut h = Harness::new(with_ts().clone(), with_ts(), MS);
        h.drop = Box::new(|dir, i, o| dir == Dir::AtoB && i == 0 && o.seg.flags.has(TcpFlags::SYN));
        h.start(1_000, false);
        h.run_until(SimTime::from_ms(1003));
        assert_eq!(h.a.stats().syn_timeouts, 1);
        // The echo's 1 ms tick: a 2 ms round trip reads as 2 or 3 ticks.
        let srtt = h.a.srtt().unwrap();
        assert!(srtt >= SimTime::from_ms(2) && srtt <= SimTime::from_ms(3), "{srtt}");
        assert_eq!(h.a.rto(), SimTime::from_ms(200));
    }

    /// The option space holds three SACK blocks beside the timestamps, four without.
    #[test]
    fn three_sack_blocks_fit_beside_the_timestamps() {
        let most_blocks = |c: TcpConfig| {
            let mut h = Harness::new(c.clone(), c, SimTime::from_ms(5));
            h.spacing = SimTime::from_us(100);
            h.drop = Box::new(|dir, i, o| {
                dir == Dir::AtoB && !o.retransmission && [10, 12, 14, 16, 18].contains(&i)
            });
            h.start(60 * 1448, true);
            h.run_until(SimTime::from_secs(2));
            assert!(h.a.all_acked());
            let max =
                h.log.iter().filter(|s| s.dir == Dir::BtoA).map(|s| s.out.seg.sack.len()).max().unwrap();
            let header = h.log.iter().filter(|s| s.dir == Dir::BtoA).map(|s| s.out.seg.header_len()).max();
            (max, header.unwrap())
        };
        assert_eq!(most_blocks(with_ts()), (3, 20 + 40));
        assert_eq!(most_blocks(cfg()), (4, 20 + 36));
    }

    /// The ACK that ends a recovery grows the window from ssthresh, as Linux's
    /// `tcp_cong_control` (and ns-3) do after the state machine has left Recovery. 20 segments
    /// in a window of 20, the 16th lost once: the last four are SACKed, and the
    /// retransmission's ACK is the last ACK and ends the recovery. Grown per ACK
    /// (SMSS²/cwnd, so that one ACK shows), the window ends one such step above ssthresh;
    /// with `grow_at_recovery_exit` off, at ssthresh.
    #[test]
    fn the_ack_that_ends_a_recovery_grows_the_window() {
        for recovery in [Recovery::Prr, Recovery::Rfc6675] {
            for grow in [true, false] {
                let c = with(|c| {
                    (c.init_cwnd, c.recovery, c.cwnd_validation) = (20, recovery, CwndValidation::None);
                    c.cc = CcConfig::NewReno(RenoIncrease::PerAck);
                    c.grow_at_recovery_exit = grow;
                });
                let mut h = Harness::new(c.clone(), c, MS);
                h.drop = Box::new(|dir, i, o| {
                    dir == Dir::AtoB && o.seg.payload_len > 0 && i == 15 && !o.retransmission
                });
                h.start(20 * 1460, false);
                h.run_until(SimTime::from_secs(1));
                assert!(h.a.all_acked());
                assert_eq!((h.a.stats().fast_recoveries, h.a.stats().timeouts), (1, 0));
                let ssthresh = h.a.ssthresh();
                assert!(ssthresh < 20 * 1460, "a reduction: {ssthresh}");
                let step = if grow { 1460 * 1460 / ssthresh } else { 0 };
                assert_eq!(h.a.cwnd(), ssthresh + step, "{recovery:?}, grow {grow}");
            }
        }
    }

    /// Linux's `tcp_enter_loss`: a second timeout of the same episode reduces ssthresh again
    /// if data was acknowledged since the first. A window of 20 loses its 1st and 11th
    /// segments (no fast retransmit: dupthresh 30); the timeout halves the window (ssthresh 10
    /// segments), the 1st's retransmission is acknowledged (with the 2nd–10th, SACKed), the
    /// 11th's first retransmission is lost too, and the second timeout takes ssthresh to half
    /// the slow-start window (2 segments at least); with `timeout_reduces_again` off it stays.
    #[test]
    fn a_second_timeout_after_progress_reduces_ssthresh_again() {
        let run = |again: bool| {
            let c = with(|c| {
                (c.init_cwnd, c.dupthresh, c.limited_transmit) = (20, 30, false);
                c.timeout_reduces_again = again;
            });
            let mut h = Harness::new(c.clone(), c, MS);
            let eleventh = 1 + 10 * 1460;
            let mut sent_11th = 0;
            h.drop = Box::new(move |dir, _, o| {
                if dir != Dir::AtoB || o.seg.payload_len == 0 {
                    return false;
                }
                if o.seg.seq == eleventh {
                    sent_11th += 1;
                    return sent_11th <= 2;
                }
                o.seg.seq == 1 && !o.retransmission
            });
            h.start(20 * 1460, false);
            h.run_until(SimTime::from_secs(2));
            assert!(h.a.all_acked());
            assert_eq!(h.a.stats().timeouts, 2);
            h.a.ssthresh()
        };
        assert_eq!(run(false), 10 * 1460, "the first timeout's reduction stands");
        assert_eq!(run(true), 2 * 1460, "reduced again from the slow-start window");
    }

    /// Limited transmit with SACK is governed by the pipe and cwnd (RFC 6675 §5 (3); Linux and
    /// ns-3): the first duplicate ACK SACKs a segment and so frees room for one new segment.
    /// `limited_transmit_beyond_pipe` adds RFC 3042's segment beyond cwnd on top: two.
    #[test]
    fn with_sack_limited_transmit_sends_what_the_pipe_frees() {
        let sent_on_first_dupack = |beyond: bool| {
            let c = with(|c| c.limited_transmit_beyond_pipe = beyond);
            let mut h = Harness::new(c.clone(), c, MS);
            h.spacing = SimTime::from_us(100);
            h.drop = Box::new(|dir, i, o| {
                dir == Dir::AtoB && o.seg.payload_len > 0 && i == 3 && !o.retransmission
            });
            h.start(40 * 1460, true);
            h.run_until(SimTime::from_secs(1));
            assert!(h.a.all_acked());
            let dupack = h.log.iter().find(|s| s.dir == Dir::BtoA && !s.out.seg.sack.is_empty()).unwrap();
            let arrival = dupack.at + MS;
            h.data_sent().filter(|s| s.at == arrival && !s.out.retransmission).count()
        };
        assert_eq!(sent_on_first_dupack(false), 1);
        assert_eq!(sent_on_first_dupack(true), 2);
    }

    /// One loss in a window of 40 (100 µs apart, 20 ms RTT). RFC 6675 sets cwnd = ssthresh at
    /// once and, with the pipe far above it, sends nothing but the retransmission until the pipe
    /// drains below ssthresh; PRR (RFC 6937) sends about ssthresh/RecoverFS of what each ACK
    /// delivers from the start. Both end the recovery with cwnd = ssthresh.
    #[test]
    fn prr_spreads_the_reduction_over_the_recovery_where_rfc6675_pauses() {
        let run = |recovery: Recovery| {
            let c = with(|c| {
                c.init_cwnd = 40;
                c.recovery = recovery;
            });
            let mut h = Harness::new(c.clone(), c, SimTime::from_ms(10));
            h.spacing = SimTime::from_us(100);
            h.drop = Box::new(|dir, i, o| {
                dir == Dir::AtoB && o.seg.payload_len > 0 && i == 20 && !o.retransmission
            });
            h.start(200 * 1460, true);
            h.run_until(SimTime::from_secs(2));
            assert!(h.a.all_acked());
            assert_eq!((h.a.stats().fast_recoveries, h.a.stats().timeouts), (1, 0));
            let fr = retransmissions(&h)[0].0;
            // New data sent in the 1 ms (about 10 ACKs) after the fast retransmit.
            h.data_sent().filter(|s| !s.out.retransmission && s.at > fr && s.at <= fr + MS).count()
        };
        assert_eq!(run(Recovery::Rfc6675), 0, "RFC 6675: the pipe must first drain below ssthresh");
        let prr = run(Recovery::Prr);
        // ssthresh/RecoverFS = 1/2: one new segment for about every two delivered.
        assert!((3..=7).contains(&prr), "PRR sent {prr} in the first 10 ACKs");
    }

    /// 40 segments in congestion avoidance (ssthresh 4 segments) take the window above the
    /// initial 10. New data written after `idle` with nothing outstanding: past one RTO (200 ms
    /// here) Linux restarts the window — halved per RTO of idleness, not below the initial
    /// window — and raises ssthresh to 3/4 of the old window; within an RTO, or with the
    /// restart off, the whole window goes at once.
    #[test]
    fn new_data_after_an_idle_rto_restarts_the_window() {
        let run = |on: bool, idle: SimTime| {
            let c = with(|c| (c.slow_start_after_idle, c.initial_ssthresh) = (on, Some(4 * 1460)));
            let mut h = Harness::new(c.clone(), c, SimTime::from_ms(10));
            h.start(40 * 1460, false);
            while h.a.bytes_acked() < 40 * 1460 {
                h.run_until(h.now + MS);
            }
            let cwnd = h.a.cwnd() / 1460;
            h.run_until(h.now + idle); // idle since the last data: one RTT (20 ms) more
            assert_eq!(h.data_sent().count(), 40);
            h.a.send(100 * 1460);
            h.poll();
            let at = h.now;
            h.run_until(at + SimTime::from_ms(5)); // less than an RTT: the first flight only
            let flight = h.data_sent().filter(|s| s.at >= at).count() as u64;
            (cwnd, flight, h.a.ssthresh() / 1460, h.a.stats().idle_restarts)
        };
        let (cwnd, flight, ssthresh, restarts) = run(true, SimTime::from_secs(1));
        assert!(cwnd > 10, "the window grew to {cwnd}");
        assert_eq!((flight, restarts), (10, 1), "restarted at the initial window");
        assert_eq!(ssthresh, cwnd / 2 + cwnd / 4);
        let (_, flight, _, restarts) = run(true, SimTime::from_ms(100));
        assert_eq!((flight, restarts), (cwnd, 0), "idle less than an RTO");
        let (_, flight, _, restarts) = run(false, SimTime::from_secs(1));
        assert_eq!((flight, restarts), (cwnd, 0), "restart off");
    }

    /// The reduction's base: a flow of 25 segments under an initial window of 40 loses its
    /// first; recovery starts with cwnd 40 segments, FlightSize 25 and a pipe of 25 less the
    /// 3 SACKed and the 1 presumed lost. NewReno halves what `ssthresh_base` names.
    #[test]
    fn ssthresh_halves_cwnd_flight_or_pipe_as_configured() {
        let run = |base: SsthreshBase| {
            let c = with(|c| (c.init_cwnd, c.ssthresh_base) = (40, base));
            let mut h = Harness::new(c.clone(), c, SimTime::from_ms(10));
            h.drop = Box::new(|dir, i, o| {
                dir == Dir::AtoB && o.seg.payload_len > 0 && i == 0 && !o.retransmission
            });
            h.start(25 * 1460, true);
            h.run_until(SimTime::from_secs(1));
            assert!(h.a.all_acked(), "{:?}", h.a.stats());
            assert_eq!((h.a.stats().fast_recoveries, h.a.stats().timeouts), (1, 0));
            h.a.ssthresh() / 1460
        };
        assert_eq!(run(SsthreshBase::Cwnd), 20, "Linux: cwnd / 2");
        assert_eq!(run(SsthreshBase::Flight), 12, "RFC 5681: FlightSize / 2");
        assert_eq!(run(SsthreshBase::Pipe), 10, "ns-3: pipe / 2 = (25 − 3 − 1) / 2");
    }

    /// PRR's send count, on its own: while the pipe is above ssthresh, cwnd = pipe + ⌈delivered ·
    /// ssthresh / RecoverFS⌉ − out; below it, the slow-start reduction bound lets the pipe
    /// catch up by the data delivered plus one segment, never past ssthresh.
    /// A connection starts with the configured slow-start threshold, and leaves slow start there.
    #[test]
    fn the_initial_ssthresh_ends_slow_start() {
        let s = TcpSocket::new(TcpConfig { initial_ssthresh: Some(4000), ..cfg() }, 1, 2);
        assert_eq!(s.ssthresh(), 4000);
        assert!(TcpSocket::new(cfg(), 1, 2).ssthresh() == u64::MAX);
        let w = Window { cwnd: 4000, ssthresh: 4000, mss: 1000 };
        assert!(!w.in_slow_start());
    }

    #[test]
    fn prr_update_follows_rfc6937() {
        let mut s = TcpSocket::new(cfg(), 1, 2);
        s.hot.win = Window { cwnd: 20_000, ssthresh: 10_000, mss: 1000 };
        for i in 0..18 {
            s.sb.push(1 + i * 1000, 1 + (i + 1) * 1000, SimTime::ZERO, false);
        }
        s.start_reduction(CaState::Recovery, 20_000);
        s.prr.out = 1000; // the fast retransmission
        s.prr_update(3000, false, false);
        // pipe 18 000 > ssthresh: ⌈3000 · 10 000 / 20 000⌉ − 1000 = 500.
        assert_eq!(s.hot.win.cwnd, 18_000 + 500);
        s.sb.ack_to(1 + 12_000); // pipe 6000, below ssthresh
        s.prr.out = 2000;
        s.prr_update(2000, true, false);
        // max(5000 − 2000, 2000) + 1000 = 4000, within ssthresh − pipe = 4000.
        assert_eq!(s.hot.win.cwnd, 6000 + 4000);
        s.prr_update(1000, true, true);
        // A new loss: no extra segment; max(6000 − 2000, 1000) = 4000, capped at 4000.
        assert_eq!(s.hot.win.cwnd, 6000 + 4000);
    }

    /// With PRR an ECN echo starts a CWR reduction: cwnd comes down to ssthresh over the next
    /// round trip instead of at once, and the window does not grow meanwhile.
    #[test]
    fn with_prr_an_ecn_echo_reduces_the_window_over_a_round_trip() {
        let run = |recovery: Recovery| {
            let c = with(|c| {
                c.ecn = true;
                c.recovery = recovery;
            });
            let mut h = Harness::new(c.clone(), c, SimTime::from_ms(5));
            h.spacing = SimTime::from_us(50);
            h.mark = Box::new(|dir, i, o| if dir == Dir::AtoB && i == 31 { Ecn::Ce } else { o.ecn });
            h.start(400 * 1460, true);
            // Run until the echo arrives; note the window then and half a round trip later.
            let mut at_echo = None;
            while h.a.stats().ecn_reductions == 0 {
                let t = h.now + SimTime::from_us(10);
                h.run_until(t);
            }
            at_echo.get_or_insert((h.a.cwnd(), h.a.ssthresh(), h.a.ca_state()));
            let t = h.now + SimTime::from_ms(15);
            h.run_until(t);
            let later = (h.a.cwnd(), h.a.ssthresh(), h.a.ca_state());
            h.run_until(SimTime::from_secs(3));
            assert!(h.a.all_acked());
            assert_eq!(h.a.stats().retransmissions, 0);
            (at_echo.unwrap(), later)
        };
        let ((cwnd, ssthresh, state), (cwnd_later, ssthresh_later, state_later)) = run(Recovery::Prr);
        assert_eq!(state, CaState::Cwr);
        assert!(cwnd > ssthresh, "not cut at once: {cwnd} > {ssthresh}");
        assert_eq!(state_later, CaState::Open, "over after a round trip");
        assert_eq!(ssthresh_later, ssthresh);
        assert!(cwnd_later >= ssthresh && cwnd_later < ssthresh + 3 * 1460, "{cwnd_later} ≈ {ssthresh}");
        let ((cwnd, ssthresh, state), _) = run(Recovery::Rfc6675);
        assert_eq!((cwnd, state), (ssthresh, CaState::Open), "RFC 3168: at once");
    }

    /// The ACK that ends a CWR grows the window from ssthresh, as the one ending a recovery
    /// does (Linux's `tcp_cong_control` after `tcp_fastretrans_alert` has left CWR). Grown per
    /// ACK, the window stands one SMSS²/ssthresh step above ssthresh when the state turns Open
    /// (ACKs 50 µs apart, watched every 10 µs); with `grow_at_recovery_exit` off, at ssthresh.
    #[test]
    fn the_ack_that_ends_a_cwr_grows_the_window() {
        for grow in [true, false] {
            let c = with(|c| {
                (c.ecn, c.recovery, c.cwnd_validation) = (true, Recovery::Prr, CwndValidation::None);
                c.cc = CcConfig::NewReno(RenoIncrease::PerAck);
                c.grow_at_recovery_exit = grow;
            });
            let mut h = Harness::new(c.clone(), c, SimTime::from_ms(5));
            h.spacing = SimTime::from_us(50);
            h.mark = Box::new(|dir, i, o| if dir == Dir::AtoB && i == 31 { Ecn::Ce } else { o.ecn });
            h.start(400 * 1460, true);
            while h.a.ca_state() != CaState::Cwr {
                h.run_until(h.now + SimTime::from_us(10));
            }
            while h.a.ca_state() == CaState::Cwr {
                h.run_until(h.now + SimTime::from_us(10));
            }
            let ssthresh = h.a.ssthresh();
            let step = if grow { 1460 * 1460 / ssthresh } else { 0 };
            assert_eq!(h.a.cwnd(), ssthresh + step, "grow {grow}");
        }
    }

    #[test]
    fn classic_ecn_reduces_once_per_window_and_sets_cwr() {
        let c = with(|c| c.ecn = true);
        let mut h = Harness::new(c.clone(), c, SimTime::from_ms(5));
        h.spacing = SimTime::from_us(50);
        // Mark data segments 30 and 31 CE (same window).
        h.mark = Box::new(|dir, i, o| if dir == Dir::AtoB && (i == 31 || i == 32) { Ecn::Ce } else { o.ecn });
        h.start(200 * 1460, true);
        h.run_until(SimTime::from_secs(2));
        assert!(h.a.ecn_enabled() && h.b.ecn_enabled());
        assert_eq!(h.a.stats().ecn_reductions, 1);
        assert_eq!(h.a.stats().retransmissions, 0);
        assert!(h.data_sent().any(|s| s.out.seg.flags.has(TcpFlags::CWR)));
        assert!(h.data_sent().all(|s| s.out.ecn == Ecn::Ect0));
        assert!(h.a.ssthresh() < u64::MAX);
    }

    #[test]
    fn ecn_is_not_used_unless_both_ends_agree() {
        let on = with(|c| c.ecn = true);
        let mut h = Harness::new(on, cfg(), MS);
        h.start(10_000, true);
        h.run_until(SimTime::from_secs(1));
        assert!(!h.a.ecn_enabled());
        assert!(h.data_sent().all(|s| s.out.ecn == Ecn::NotEct));
    }

    #[test]
    fn pacing_spaces_segments_at_the_pacing_rate() {
        let c = with(|c| c.pacing = true);
        let mut h = Harness::new(c.clone(), c, SimTime::from_ms(10));
        h.start(40 * 1460, true);
        h.run_until(SimTime::from_ms(23));
        // After the handshake (SRTT 20 ms, cwnd 10·1460 B, slow start ×2): rate = 11.68 Mbps,
        // one 1500-byte packet every ~1.03 ms, instead of a burst.
        let t: Vec<SimTime> = h.data_sent().map(|s| s.at).collect();
        assert!(t.len() >= 3);
        let gap = t[2] - t[1];
        assert!(gap > SimTime::from_us(900) && gap < SimTime::from_us(1100), "gap {gap}");
    }

    #[test]
    fn the_window_counts_in_segments_of_the_payload_every_segment_carries() {
        // RFC 5681 §2: SMSS excludes options. With timestamps a segment carries 1448 bytes, and
        // the window counts in those: an initial window of 10 is 14 480 bytes, as Linux's
        // 10 packets of `mss_cache`.
        let ts = with(|c| c.timestamps = true);
        let mut h = Harness::new(ts.clone(), ts, MS);
        h.start(100_000, true);
        h.run_until(SimTime::from_us(2500));
        assert_eq!(h.a.mss(), 1448);
        assert_eq!(h.data_sent().next().unwrap().out.seg.payload_len, 1448);
        assert_eq!(h.data_sent().count(), 10);
        assert_eq!(h.a.cwnd(), 10 * 1448, "nothing acknowledged yet");
        let mut h = Harness::new(cfg().clone(), cfg(), MS);
        h.start(100_000, true);
        h.run_until(SimTime::from_us(2500));
        assert_eq!(h.a.mss(), 1460);
        assert_eq!(h.a.cwnd(), 10 * 1460);
    }

    #[test]
    fn mss_is_the_smaller_of_both_ends_and_jumbo_frames_work() {
        let jumbo = with(|c| c.mss = 8960);
        let mut h = Harness::new(jumbo.clone(), cfg(), MS);
        h.start(100_000, true);
        h.run_until(SimTime::from_secs(1));
        assert_eq!(h.a.mss(), 1460);
        let mut h = Harness::new(jumbo.clone(), jumbo, MS);
        h.start(100_000, true);
        h.run_until(SimTime::from_secs(1));
        assert_eq!(h.a.mss(), 8960);
        assert_eq!(h.data_sent().next().unwrap().out.seg.payload_len, 8960);
        assert_eq!(h.b.delivered_bytes(), 100_000);
    }

    #[test]
    fn receive_window_limits_the_flight() {
        let c = with(|c| c.rcv_buf = 5 * 1460);
        let mut h = Harness::new(c.clone(), c, SimTime::from_ms(10));
        h.start(100 * 1460, true);
        h.run_until(SimTime::from_ms(21));
        assert_eq!(h.data_sent().count(), 5, "initial window 10 but the peer offers 5 segments");
        h.run_until(SimTime::from_secs(2));
        assert_eq!(h.b.delivered_bytes(), 100 * 1460);
    }

    #[test]
    fn explicit_loss_notification_resends_only_the_named_segment_once_per_copy_lost() {
        let mut h = Harness::new(cfg().clone(), cfg(), SimTime::from_ms(10));
        h.start(30 * 1460, true);
        h.run_until(SimTime::from_ms(25)); // 10 segments in flight, none acknowledged
        let seq = 1 + 3 * 1460;
        let notify_and_send = |h: &mut Harness| {
            h.a.on_loss_signal(h.now, LossSignal::Explicit { left: seq, right: seq + 1460 });
            let mut sent = Vec::new();
            h.a.poll_transmit(h.now, &mut |o: &Outgoing| sent.push(*o));
            sent
        };
        let sent = notify_and_send(&mut h);
        assert_eq!(sent.len(), 1);
        assert!(sent[0].retransmission && sent[0].seg.seq == seq);
        assert_eq!(h.a.ca_state(), CaState::Recovery);
        // A second notice: the resent copy was lost too (one loss report comes per cut copy). It
        // leaves the pipe, to be resent when the pipe is below the halved window.
        let pipe = h.a.in_flight();
        notify_and_send(&mut h);
        assert_eq!(h.a.in_flight(), pipe - 1460);
        // A third notice with no third copy sent changes nothing.
        notify_and_send(&mut h);
        assert_eq!(h.a.in_flight(), pipe - 1460);
    }

    #[test]
    fn a_notice_about_an_earlier_copy_is_ignored_while_a_later_one_may_be_in_flight() {
        let mut h = Harness::new(cfg().clone(), cfg(), SimTime::from_ms(10));
        h.drop = Box::new(|dir, i, o| dir == Dir::AtoB && i == 3 && !o.retransmission);
        h.start(30 * 1460, true);
        // Three duplicate ACKs come back 20 ms after the first flight: fast retransmit.
        h.run_until(SimTime::from_ms(46));
        let seq = 1 + 3 * 1460;
        assert_eq!(h.data_sent().filter(|s| s.out.retransmission).count(), 1);
        h.a.on_loss_signal(h.now, LossSignal::Explicit { left: seq, right: seq + 1460 });
        let mut sent = Vec::new();
        h.a.poll_transmit(h.now, &mut |o: &Outgoing| sent.push(*o));
        assert!(sent.iter().all(|o| !o.retransmission), "the fast retransmission may still arrive");
    }

    fn cp_cfg() -> TcpConfig {
        with(|c| c.cut_reports = true)
    }

    /// A 30-segment transfer, one data segment per ms, whose data segment 3 (seq 4381) is cut
    /// by a switch on its first transmission.
    fn cut_segment_3(a: TcpConfig, b: TcpConfig, until: SimTime) -> Harness {
        let mut h = Harness::new(a, b, SimTime::from_ms(10));
        h.spacing = SimTime::from_ms(1);
        h.cut = Box::new(|dir, i, o| dir == Dir::AtoB && i == 3 && !o.retransmission);
        h.start(30 * 1460, true);
        h.run_until(until);
        h
    }

    /// The loss reports b sent, with their send times.
    fn reports_sent(h: &Harness) -> Vec<(SimTime, SackBlock)> {
        h.log
            .iter()
            .filter(|s| s.dir == Dir::BtoA)
            .flat_map(|s| s.out.seg.sack.as_slice().iter().map(move |b| (s.at, *b)))
            .filter(|(_, b)| b.as_lost_range().is_some())
            .collect()
    }

    #[test]
    fn a_cut_segment_is_answered_at_once_by_a_pack_naming_exactly_its_range() {
        let h = cut_segment_3(cp_cfg(), cp_cfg(), SimTime::from_secs(1));
        let seq = 1 + 3 * 1460;
        let reports = reports_sent(&h);
        assert_eq!(reports.len(), 1, "one loss report for one cut segment");
        let (at, b) = reports[0];
        assert_eq!((b.right, b.left), (seq, seq + 1460));
        // Sent on the cut segment's arrival: data segment 3 left at 24 ms (one per ms from
        // 21 ms) and arrived at 34 ms.
        assert_eq!(at, SimTime::from_ms(34));
        // The sender resends that segment once, on the loss report, before any duplicate-ACK logic.
        let retx: Vec<_> = h.data_sent().filter(|s| s.out.retransmission).collect();
        assert_eq!(retx.len(), 1);
        assert_eq!((retx[0].out.seg.seq, retx[0].at), (seq, SimTime::from_ms(44)));
        assert_eq!(h.a.stats().loss_reports_received, 1);
        assert_eq!(h.a.stats().timeouts, 0);
        // Detected 24 ms after the sender first sent it (at 20 ms, with the whole initial
        // window: the link spaces them): the loss-detection time the results report.
        assert_eq!(
            (h.a.stats().first_retransmissions, h.a.stats().loss_detection),
            (1, SimTime::from_ms(24))
        );
        assert!(h.a.all_acked());
    }

    #[test]
    fn without_cp_a_cut_segment_is_discarded_and_recovered_like_a_loss() {
        let mut h = Harness::new(cfg().clone(), cfg(), SimTime::from_ms(10));
        h.cut = Box::new(|dir, i, o| dir == Dir::AtoB && i == 3 && !o.retransmission);
        h.start(30 * 1460, true);
        h.run_until(SimTime::from_secs(2));
        assert!(h.log.iter().all(|s| s.out.seg.sack.as_slice().iter().all(|b| b.left < b.right)));
        assert_eq!(h.b.receiver().cut_segments, 0, "never reached the receiver's cut path");
        assert_eq!(h.data_sent().filter(|s| s.out.retransmission).count(), 1);
        assert!(h.a.all_acked());
    }

    #[test]
    fn a_pack_beside_ordinary_sack_blocks_leaves_a_sack_only_sender_unaffected() {
        // Receiver reporting cuts, sender not reading reports: the loss report rides in the SACK option and is ignored;
        // SACK recovery proceeds from the ordinary blocks.
        let h = cut_segment_3(cfg(), cp_cfg(), SimTime::from_secs(2));
        assert_eq!(reports_sent(&h).len(), 1);
        assert_eq!(h.a.stats().loss_reports_received, 0);
        let retx: Vec<_> = h.data_sent().filter(|s| s.out.retransmission).collect();
        assert_eq!(retx.len(), 1, "fast retransmit from the duplicate ACKs, once");
        // Not on the loss report (44 ms) but on the third duplicate ACK: the loss report's ACK is itself the
        // first duplicate, segments 4 and 5's the next two (46 ms).
        assert_eq!(retx[0].at, SimTime::from_ms(46));
        assert_eq!(h.a.stats().loss_detection, SimTime::from_ms(26), "two segments later");
        assert!(h.a.all_acked());
    }

    /// 60 segments on a connection configured by `c`: data segment 5 is lost, and so is its
    /// first retransmission. The sender's counters.
    fn a_retransmission_lost_again(c: TcpConfig) -> TcpStats {
        let mut h = Harness::new(c.clone(), c, SimTime::from_ms(10));
        h.spacing = SimTime::from_us(100);
        let mut retx_seen = 0;
        h.drop = Box::new(move |dir, i, o| {
            if dir != Dir::AtoB || o.seg.payload_len == 0 {
                return false;
            }
            if o.retransmission {
                retx_seen += 1;
                return retx_seen == 1;
            }
            i == 5
        });
        h.start(60 * 1460, true);
        h.run_until(SimTime::from_secs(3));
        assert_eq!(h.b.delivered_bytes(), 60 * 1460);
        h.a.stats().clone()
    }

    #[test]
    fn a_lost_retransmission_is_resent_from_sack_information_instead_of_waiting_for_the_timer() {
        let run = |detect: bool| {
            let st = a_retransmission_lost_again(with(|c| c.lost_retransmit_detection = detect));
            (st.timeouts, st.lost_retransmissions)
        };
        assert_eq!(run(true), (0, 1));
        assert_eq!(run(false).0, 1, "RFC 6675 alone waits for the timer");
    }

    /// A delay spike (the path's one-way delay going from 1 to 400 ms mid-transfer, nothing
    /// lost) fires the timer while the data is still on its way. With F-RTO the ACK of an
    /// original segment sent before the timeout shows it spurious: one retransmission, the
    /// slow start it interrupted goes on (ssthresh restored to unbounded). Without, the
    /// timeout halves ssthresh and the sender resends what was in flight (go-back-N).
    #[test]
    fn frto_undoes_a_spurious_timeout_and_resends_nothing_more() {
        let run = |frto: bool| {
            let c = with(|c| c.frto = frto);
            let mut h = Harness::new(c.clone(), c, MS);
            h.spacing = SimTime::from_us(100);
            h.start(3000 * 1460, true);
            h.run_until(SimTime::from_ms(20));
            h.delay = SimTime::from_ms(400);
            h.run_until(SimTime::from_secs(60));
            assert_eq!(h.b.delivered_bytes(), 3000 * 1460);
            assert!(h.log.iter().all(|s| !s.out.retransmission || s.at > SimTime::from_ms(20)));
            (h.a.stats().clone(), h.a.ssthresh())
        };
        let (st, ssthresh) = run(true);
        assert_eq!((st.timeouts, st.spurious_timeouts, st.retransmissions), (1, 1, 1), "{st:?}");
        assert_eq!(ssthresh, u64::MAX, "the timeout's reduction undone");
        let (st, ssthresh) = run(false);
        assert_eq!(st.spurious_timeouts, 0, "{st:?}");
        assert!(st.retransmissions > 100, "go-back-N: {st:?}");
        assert!(ssthresh < u64::MAX);
    }

    /// A real loss: the last five segments of the first window are lost, and the timer fires
    /// (no duplicate ACKs). F-RTO resends the first, then, when its ACK advances SND.UNA, sends
    /// two new segments instead of the next retransmissions (RFC 5682 step 2.b); their SACKs
    /// show the loss real (step 3.a), nothing is undone, and the holes are resent. Without
    /// F-RTO the retransmissions go first.
    #[test]
    fn frto_probes_with_new_data_and_takes_a_real_loss_as_real() {
        let run = |frto: bool| {
            let c = with(|c| c.frto = frto);
            let mut h = Harness::new(c.clone(), c, SimTime::from_ms(100));
            h.drop = Box::new(|dir, i, o| dir == Dir::AtoB && !o.retransmission && (5..10).contains(&i));
            h.start(10 * 1460, false);
            while h.a.stats().timeouts == 0 {
                h.run_until(h.now + MS);
            }
            h.a.send(20 * 1460); // more to send once the timer has fired
            h.poll();
            h.run_until(SimTime::from_secs(10));
            assert_eq!(h.b.delivered_bytes(), 30 * 1460);
            let st = h.a.stats();
            assert_eq!((st.timeouts, st.spurious_timeouts), (1, 0), "{st:?}");
            let seq = |k: u64| 1 + k * 1460;
            let after: Vec<(u64, bool)> = h
                .data_sent()
                .skip_while(|s| !s.out.retransmission)
                .take(3)
                .map(|s| (s.out.seg.seq, s.out.retransmission))
                .collect();
            assert_eq!(after[0], (seq(5), true), "the timeout resends SND.UNA");
            (after[1], after[2])
        };
        let seq = |k: u64| 1 + k * 1460;
        assert_eq!(run(true), ((seq(10), false), (seq(11), false)));
        assert_eq!(run(false), ((seq(6), true), (seq(7), true)));
    }

    /// One window of ten segments whose 3rd and 9th are lost (first transmissions), sent on a
    /// connection configured by `c`, closed after it if `close`; the sender's counters.
    fn ten_segments_losing_the_3rd_and_9th(c: TcpConfig, close: bool) -> TcpStats {
        ten_segments_losing(c, close, 8)
    }

    /// One window of ten segments whose 3rd and the one at index `second` are lost (first
    /// transmissions); the sender's counters.
    fn ten_segments_losing(c: TcpConfig, close: bool, second: usize) -> TcpStats {
        let mut h = Harness::new(c.clone(), c, SimTime::from_ms(5));
        h.drop = Box::new(move |dir, i, o| dir == Dir::AtoB && !o.retransmission && (i == 2 || i == second));
        h.start(10 * 1460, close);
        h.run_until(SimTime::from_secs(3));
        assert_eq!(h.b.delivered_bytes(), 10 * 1460);
        h.a.stats().clone()
    }

    /// The connection kept open: the 3rd is found by duplicate ACKs and resent; the 9th has
    /// only one segment SACKed above it, too few for IsLost, and there is no new data to send.
    /// RFC 6675 NextSeg rule (3) resends it within the recovery; without the rule it waits for
    /// the timer.
    #[test]
    fn nextseg_rule3_repairs_a_hole_near_the_top_of_the_window_without_a_timeout() {
        let run = |rule3: bool| {
            let st = ten_segments_losing_the_3rd_and_9th(with(|c| c.nextseg_rule3 = rule3), false);
            (st.fast_recoveries, st.timeouts, st.retransmissions)
        };
        assert_eq!(run(true), (1, 0, 2));
        assert_eq!(run(false), (1, 1, 2));
    }

    /// The last of the ten lost too: above the highest SACK, no rule of RFC 6675 resends it,
    /// and it waits for the timer. ns-3 resends the head on the partial ACK that the 3rd's
    /// repair brings (`partial_ack_resend`), and the recovery repairs both.
    #[test]
    fn a_partial_ack_resends_a_lost_last_segment_only_on_ns3s_rule() {
        let run = |resend: bool| {
            let st = ten_segments_losing(with(|c| c.partial_ack_resend = resend), false, 9);
            (st.fast_recoveries, st.timeouts, st.retransmissions)
        };
        assert_eq!(run(true), (1, 0, 2));
        assert_eq!(run(false), (1, 1, 2));
    }

    /// The same window closing (its last segment carries the FIN): rule (3) sees the last
    /// segment SACKed, and repairs the 9th within the recovery, only if the receiver's SACK
    /// block covers the FIN's sequence number.
    #[test]
    fn the_last_segment_of_a_closing_flow_is_sacked_only_with_the_fin_in_the_block() {
        let run = |sack_fin: bool| {
            let c = with(|c| (c.sack_fin, c.nextseg_rule3) = (sack_fin, true));
            ten_segments_losing_the_3rd_and_9th(c, true).timeouts
        };
        assert_eq!(run(true), 0);
        assert_eq!(run(false), 1);
    }

    /// After a timeout found spurious, a loss among the data sent before it is repaired by a
    /// fast retransmit: the undone timeout began no episode, so its recovery point no longer
    /// holds off the duplicate-ACK rule (without SACK, RFC 6582's guard). The delay spike of
    /// the test above, with data segment 300 — sent after the spike began, before the timer
    /// fired — lost.
    #[test]
    fn after_an_undone_timeout_a_loss_is_found_by_duplicate_acks() {
        let c = with(|c| (c.sack, c.frto) = (false, true));
        let mut h = Harness::new(c.clone(), c, MS);
        h.spacing = SimTime::from_us(100);
        h.drop = Box::new(|dir, i, o| dir == Dir::AtoB && !o.retransmission && i == 300);
        h.start(3000 * 1460, true);
        h.run_until(SimTime::from_ms(20));
        h.delay = SimTime::from_ms(400);
        h.run_until(SimTime::from_secs(60));
        assert_eq!(h.b.delivered_bytes(), 3000 * 1460);
        let st = h.a.stats();
        // Held off, the loss waited for the timer, and that timeout too was taken as
        // spurious (fast recoveries 0, spurious timeouts 2).
        assert_eq!((st.spurious_timeouts, st.fast_recoveries), (1, 1), "{st:?}");
    }

    /// A recovery that ends exactly at its recovery point (the application had written no
    /// more), then a loss in the next data: the segment IsLost() marks starts a fast recovery
    /// (RFC 6675 §5 step (2); ns-3's `DupAck`), though SND.UNA does not exceed the recovery
    /// point that RFC 6582's guard asks of the duplicate-ACK count. Marked lost without a
    /// recovery, it was resent with no reduction.
    #[test]
    fn a_loss_sacked_at_the_recovery_point_starts_a_recovery() {
        let mut h = Harness::new(cfg().clone(), cfg(), SimTime::from_ms(5));
        h.drop = Box::new(|dir, i, o| dir == Dir::AtoB && !o.retransmission && (i == 2 || i == 11));
        h.start(10 * 1460, false);
        h.run_until(SimTime::from_ms(100));
        assert_eq!((h.a.snd_una(), h.a.stats().fast_recoveries), (1 + 10 * 1460, 1));
        h.a.send(20 * 1460);
        h.poll();
        h.run_until(SimTime::from_secs(3));
        assert_eq!(h.b.delivered_bytes(), 30 * 1460);
        let st = h.a.stats();
        assert_eq!((st.fast_recoveries, st.timeouts), (2, 0), "{st:?}");
    }

    /// RACK on the same window: in the recovery the 9th, sent before the 10th that was SACKed,
    /// is lost at once (no reordering window in a recovery until reordering is seen), and
    /// resent within the recovery, without rule (3) and without a timeout.
    #[test]
    fn rack_repairs_a_hole_near_the_top_of_the_window_within_the_recovery() {
        let run = |rack: bool| {
            let st = ten_segments_losing_the_3rd_and_9th(with(|c| c.rack = rack), false);
            (st.fast_recoveries, st.timeouts, st.retransmissions)
        };
        assert_eq!(run(true), (1, 0, 2));
        assert_eq!(run(false), (1, 1, 2));
    }

    /// Four segments, the 3rd lost: one segment SACKed above it, fewer than DupThresh. RACK
    /// waits a quarter of the minimum RTT (plus the timer slack) after the SACK, then starts
    /// a fast recovery; RFC 6675 waits for the timer.
    #[test]
    fn rack_presumes_a_hole_lost_a_reordering_window_after_a_later_segment_is_sacked() {
        let slack = SimTime::from_ms(2);
        let run = |rack: bool| {
            let c = with(|c| (c.rack, c.loss_timer_slack) = (rack, slack));
            let mut h = Harness::new(c.clone(), c, SimTime::from_ms(5));
            h.drop = Box::new(|dir, i, o| dir == Dir::AtoB && !o.retransmission && i == 2);
            h.start(4 * 1460, false);
            h.run_until(SimTime::from_secs(3));
            assert_eq!(h.b.delivered_bytes(), 4 * 1460);
            let sack_at = h.log.iter().find(|s| s.dir == Dir::BtoA && !s.out.seg.sack.is_empty()).unwrap().at;
            let st = h.a.stats();
            ((st.fast_recoveries, st.timeouts), sack_at + h.delay, retransmissions(&h)[0].0)
        };
        let (counts, sack_arrives, resent_at) = run(true);
        assert_eq!(counts, (1, 0));
        let min_rtt = SimTime::from_ms(10);
        assert_eq!(resent_at, sack_arrives + SimTime(min_rtt.0 / 4) + slack);
        assert_eq!(run(false).0, (0, 1));
    }

    /// Reordering beyond RACK's window, on a 10 ms path (a window of 2.5 ms once reordering
    /// has been seen, which a first segment held 150 µs shows): two segments held 4 ms each.
    /// With D-SACK the first one's spurious retransmission is reported, the window grows a
    /// step to 5 ms, and the second is waited for; without, both are resent.
    #[test]
    fn dsack_widens_racks_reordering_window_after_a_spurious_retransmission() {
        let run = |dsack: bool| {
            let c = with(|c| (c.rack, c.dsack, c.loss_timer_slack) = (true, dsack, SimTime::ZERO));
            let mut h = Harness::new(c.clone(), c, SimTime::from_ms(5));
            h.spacing = SimTime::from_us(100);
            h.hold = Box::new(|dir, i, o| match (dir, o.retransmission, i) {
                (Dir::AtoB, false, 5) => SimTime::from_us(150),
                (Dir::AtoB, false, 40 | 100) => SimTime::from_ms(4),
                _ => SimTime::ZERO,
            });
            h.start(150 * 1460, false);
            h.run_until(SimTime::from_secs(3));
            assert_eq!(h.b.delivered_bytes(), 150 * 1460);
            (h.b.receiver().dup_segments, h.a.stats().timeouts)
        };
        assert_eq!(run(true), (1, 0));
        assert_eq!(run(false), (2, 0));
    }

    /// A retransmission lost again: RACK finds it when data sent after it is delivered, as
    /// lost-retransmission detection does, without that rule and without the timer.
    #[test]
    fn rack_finds_a_lost_retransmission() {
        let st = a_retransmission_lost_again(with(|c| (c.rack, c.lost_retransmit_detection) = (true, false)));
        assert_eq!((st.timeouts, st.lost_retransmissions, st.retransmissions), (0, 1, 2), "{st:?}");
    }

    /// Ten segments whose last `lost` are lost (first transmissions), on a connection with
    /// RACK, with or without tail loss probes; the sender's counters and the probe's time.
    fn tail_loss(lost: usize, tlp: bool) -> (TcpStats, Option<SimTime>) {
        let c = with(|c| (c.rack, c.tlp) = (true, tlp));
        let mut h = Harness::new(c.clone(), c, SimTime::from_ms(5));
        h.drop = Box::new(move |dir, i, o| dir == Dir::AtoB && !o.retransmission && i >= 10 - lost);
        h.start(10 * 1460, false);
        h.run_until(SimTime::from_secs(3));
        assert_eq!(h.b.delivered_bytes(), 10 * 1460);
        let first_retx = retransmissions(&h).first().map(|r| r.0);
        (h.a.stats().clone(), first_retx)
    }

    /// The last segment lost, nothing after it to draw a duplicate ACK. The ACKs of the
    /// others (at 20 ms) leave one segment in flight, so the probe's timeout allows for a
    /// delayed ACK (2·SRTT + 200 ms) and the RTO (200 ms) comes first: the probe goes when the
    /// timer would have fired, but as a probe — its ACK ends the episode with the window
    /// untouched, where the timeout takes it to one segment.
    #[test]
    fn a_tail_loss_probe_repairs_the_last_segment_where_the_timer_would_collapse_the_window() {
        let (st, probe_at) = tail_loss(1, true);
        assert_eq!((st.loss_probes, st.timeouts, st.retransmissions), (1, 0, 1), "{st:?}");
        assert_eq!(st.loss_probe_recoveries, 0, "the ACK reaches the probe's snd_nxt, not beyond");
        let (st, timeout_at) = tail_loss(1, false);
        assert_eq!((st.loss_probes, st.timeouts), (0, 1));
        assert_eq!(probe_at, timeout_at);
        assert_eq!(probe_at, Some(SimTime::from_ms(20 + 200)));
    }

    /// A probe falls due while the host's NIC has no room and nothing else waits to be sent:
    /// the socket says it is blocked (the host wakes a blocked socket when its NIC drains), and
    /// once woken the probe goes out and repairs the tail. Were it not blocked, nothing would
    /// wake it: no timer is armed while a probe waits.
    #[test]
    fn a_probe_due_while_the_nic_is_full_waits_for_room() {
        let c = with(|c| (c.rack, c.tlp) = (true, true));
        let mut h = Harness::new(c.clone(), c, SimTime::from_ms(5));
        h.drop = Box::new(|dir, i, o| dir == Dir::AtoB && !o.retransmission && i == 9);
        h.start(10 * 1460, false);
        h.run_until(SimTime::from_ms(219));
        h.a.set_tx_budget(0);
        h.run_until(SimTime::from_ms(221));
        assert_eq!(h.a.stats().loss_probes, 0);
        assert!(h.a.tx_blocked(), "a probe due and no room for it");
        h.a.set_tx_budget(u32::MAX);
        h.poll();
        h.run_until(SimTime::from_secs(3));
        assert_eq!(h.b.delivered_bytes(), 10 * 1460);
        assert_eq!((h.a.stats().loss_probes, h.a.stats().timeouts), (1, 0));
    }

    /// The last two lost: the probe resends the 10th, its SACK shows the 9th lost to RACK (a
    /// reordering window after it), and a fast recovery repairs it, with no timeout.
    #[test]
    fn a_tail_loss_probe_turns_a_tail_of_losses_into_a_fast_recovery() {
        let (st, probe_at) = tail_loss(2, true);
        assert_eq!((st.loss_probes, st.fast_recoveries, st.timeouts), (1, 1, 0), "{st:?}");
        // Two segments in flight after the ACKs at 20 ms: PTO = 2·SRTT + the 2 ms slack.
        assert_eq!(probe_at, Some(SimTime::from_ms(20 + 2 * 10 + 2)));
        let (st, _) = tail_loss(2, false);
        assert_eq!((st.fast_recoveries, st.timeouts), (0, 1));
    }
}
