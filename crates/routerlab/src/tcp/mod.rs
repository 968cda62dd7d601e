/*! TCP as a sans-IO state machine.

A [`TcpSocket`] never reads a clock and never touches a network: time comes in as an argument,
segments come in through [`TcpSocket::on_segment`], go out through
[`TcpSocket::poll_transmit`]'s [`Transmit`] (a closure taking [`Outgoing`] segments, or the
simulator's writer into packet slots), and [`TcpSocket::poll_at`] says when it next wants to
be woken (smoltcp's shape). The simulator drives it; so could an emulator on real packets.

What is modelled, with the RFCs it follows (and what is not, in `docs/tcp.md`):
- three-way handshake with MSS, SACK-permitted and ECN negotiation; FIN close;
- NewReno loss recovery (RFC 6582) or, when both ends permit SACK, SACK-based recovery
  (RFC 6675), both on one scoreboard ([`scoreboard`]); limited transmit (RFC 3042);
  configurable duplicate-ACK threshold;
- RTO per RFC 6298 ([`rtt`]) with Karn's rule, backoff, minimum and maximum, and a separate
  initial SYN timeout; timestamps (RFC 7323, [`timestamps`]) for samples Karn's rule forbids;
- congestion control through the [`cc::CongestionControl`] trait;
- delayed ACKs, SACK blocks and ECN echo ([`receiver`]);
- explicit loss signals (a router or receiver naming the lost range in a loss report) enter
  through [`TcpSocket::on_loss_signal`], the same door as duplicate ACKs and timeouts.
*/

pub mod cc;
pub mod endpoint;
pub mod rack;
pub mod receiver;
pub mod rtt;
pub mod scoreboard;
mod socket;
#[cfg(test)]
pub(crate) mod testing;
pub mod timestamps;

pub use receiver::{DelayedAck, EcnEcho};
pub use rtt::RtoParams;
pub use socket::{CaState, LossSignal, Outgoing, State, TcpSocket, TcpStats, Transmit};

/// How the window comes down to ssthresh after a loss or an ECN echo.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum Recovery {
    /// Proportional Rate Reduction (RFC 6937) with the slow-start reduction bound, as Linux's
    /// `tcp_cwnd_reduction` runs it: during a SACK recovery, and after an ECN echo (Linux's CWR
    /// state), the window falls to ssthresh over about one round trip, sending in proportion
    /// to the data delivered. Linux's and ns-3's default. Without SACK, recovery is RFC 6582's.
    #[default]
    Prr,
    /// cwnd = ssthresh at once: RFC 6675 with SACK, RFC 6582 (window inflation) without; RFC
    /// 3168 §6.1.2 for an ECN echo.
    Rfc6675,
}

/// When the congestion controller may grow the window: only while the window is what limits
/// sending (RFC 7661's concern), judged as Linux, as routerlab's first model, or not at all.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum CwndValidation {
    /// Linux's `tcp_cwnd_validate` and `tcp_is_cwnd_limited`: limited if at any send of the
    /// current window less than a segment of it was left (sticky until that window is
    /// acknowledged), or, in slow start, while cwnd is under twice the most data in flight in
    /// the current window (so that an application-limited flow's window still doubles).
    #[default]
    Linux,
    /// Limited if the last attempt to send was stopped by the window (routerlab before this
    /// option).
    LastSend,
    /// Always limited: the window grows on every ACK (ns-3's `TcpNewReno`).
    None,
}

/// What a multiplicative decrease scales (halves, for NewReno) when a loss, a timeout or an ECN
/// echo sets ssthresh.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum SsthreshBase {
    /// The congestion window, as Linux's `tcp_reno_ssthresh` and `cubictcp_recalc_ssthresh`
    /// (`tcp_init_cwnd_reduction`, `tcp_enter_loss`).
    #[default]
    Cwnd,
    /// FlightSize, the data sent and not cumulatively acknowledged (RFC 5681 eq. 4), capped at
    /// cwnd: data SACKed after a hole and limited-transmit segments are not window the sender
    /// earned.
    Flight,
    /// The pipe (RFC 6675 §4: sent, not SACKed and not presumed lost, plus retransmissions),
    /// which ns-3's `BytesInFlight` gives its `GetSsThresh` on entering recovery, CWR, and at a
    /// timeout.
    Pipe,
}

/// How RTT samples are taken and when the RTO's backoff ends.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum RttModel {
    /// Linux's (`tcp_ack_update_rtt`) and RFC 6298's: a sample from the send time of the
    /// oldest newly acknowledged segment never retransmitted (exact), else from the timestamp
    /// echo; the backoff ends with a sample.
    #[default]
    Linux,
    /// ns-3 3.44's `TcpSocketBase` (`EstimateRtt`, `NewAck`), for comparing with ns-3 studies:
    /// samples only once an ACK covers data first sent after the last timeout (ns-3 clears its
    /// send history at a timeout and a retransmission adds nothing to it); with timestamps the
    /// sample is the echo in whole milliseconds (under one: 1 µs) even for a retransmitted
    /// segment, without them the send time of one never retransmitted; and every ACK of new
    /// data recomputes the RTO from the estimate, ending the backoff with or without a sample.
    Ns3,
}

use crate::units::SimTime;
use cc::{CcConfig, RenoIncrease};

/// Per-flow TCP parameters. Defaults follow the RFCs and Linux where they agree; where they
/// differ the choice is noted.
#[derive(Clone, Debug, PartialEq)]
pub struct TcpConfig {
    pub cc: CcConfig,
    /// Maximum segment size (payload bytes) this end announces and uses. 1460 = a 1500-byte
    /// Ethernet MTU less 40 bytes of IPv4 and TCP headers.
    pub mss: u32,
    /// Initial window in segments (RFC 6928: 10).
    pub init_cwnd: u32,
    /// RTO parameters. Initial 1 s (RFC 6298 §2.1); minimum 200 ms (Linux's `TCP_RTO_MIN`;
    /// RFC 6298 says 1 s); maximum 60 s (RFC 6298 §2.5 allows a cap of at least 60 s).
    pub rto: RtoParams,
    /// Initial SYN / SYN-ACK retransmission timeout (RFC 6298 §2.1: 1 s), doubled per retry.
    pub syn_rto: SimTime,
    /// After a SYN timed out, the data RTO starts at this value (RFC 6298 §5.7: 3 s).
    pub rto_after_syn_timeout: SimTime,
    /// Duplicate ACKs that trigger fast retransmit (RFC 5681: 3).
    pub dupthresh: u32,
    /// Raise `dupthresh` to the number of equal-cost paths between the two hosts, when the
    /// connection is set up (a reordering tolerance for per-packet load balancing, after
    /// Dixit et al., INFOCOM 2013: a segment on a slower path can be overtaken by about one segment
    /// per other path).
    pub dupthresh_from_paths: bool,
    /// Offer SACK (RFC 2018); on by default, as in Linux. Recovery is SACK-based (RFC 6675)
    /// when both ends offer it, NewReno (RFC 6582) otherwise.
    pub sack: bool,
    /// Limited transmit (RFC 3042): a new segment on each of the first two duplicate ACKs.
    pub limited_transmit: bool,
    /// With SACK, limited transmit may also send beyond cwnd (RFC 3042's two segments), on
    /// top of what the SACKed segments free in the pipe. Off (Linux, ns-3, RFC 6675 §5 (3)):
    /// with SACK the pipe and cwnd alone govern it; without SACK the two segments apply either
    /// way.
    pub limited_transmit_beyond_pipe: bool,
    /// How the window is reduced in a recovery and after an ECN echo.
    pub recovery: Recovery,
    /// Offer the timestamps option (RFC 7323); on by default, as in Linux and ns-3. Used when
    /// both ends offer it: 12 bytes on every segment, and RTT samples Karn's rule would forbid
    /// (after a retransmission, from a SYN-ACK answering a retransmitted SYN).
    pub timestamps: bool,
    /// The timestamp clock's tick (Linux: 1 ms, `TCP_TS_HZ`; ns-3: 1 ms): the resolution of
    /// RTT samples taken from echoes.
    pub ts_tick: SimTime,
    /// How RTT samples are taken and when the RTO's backoff ends (Linux's by default).
    pub rtt_model: RttModel,
    /// With the Linux RTT model and SACK: take an RTT sample from the oldest newly SACKed
    /// segment never retransmitted, on duplicate ACKs too, when the cumulative ACK gives none
    /// (Linux's `sack_rtt_us` in `tcp_ack_update_rtt`); as every sample, it ends the backoff.
    pub sack_rtt: bool,
    /// The ACK that ends a recovery or a CWR also grows the window, from ssthresh, as any ACK
    /// in the open state does (Linux: `tcp_cong_control` runs after `tcp_fastretrans_alert`
    /// has left the state; ns-3 too). Off: that ACK only sets cwnd to ssthresh.
    pub grow_at_recovery_exit: bool,
    /// A timeout during a timeout's recovery reduces ssthresh again when data was acknowledged
    /// since the previous timeout (Linux's `tcp_enter_loss`: `icsk_retransmits` is reset when
    /// SND.UNA advances; ns-3 reduces it when the segment at the head was not retransmitted).
    /// Off: only the first timeout of an episode reduces it.
    pub timeout_reduces_again: bool,
    /// F-RTO (RFC 5682, the SACK-enhanced variant as Linux's `tcp_process_loss`, `tcp_frto`
    /// 2 by default): after a timeout, the first ACK that advances SND.UNA sends new data
    /// instead of retransmissions, and an ACK or SACK of a segment sent before the timeout and
    /// never retransmitted shows the timeout spurious — the window and ssthresh come back to
    /// where they were (`tcp_try_undo_loss`, `tcp_undo_cwnd_reduction`) and nothing more is
    /// resent. Off: every timeout is taken as real (RFC 5681; ns-2's and ns-3's TCP).
    pub frto: bool,
    /// When the window may grow (Linux's rule by default).
    pub cwnd_validation: CwndValidation,
    /// What a reduction scales: cwnd (Linux's, the default), FlightSize (RFC 5681) or the pipe
    /// (ns-3's).
    pub ssthresh_base: SsthreshBase,
    /// Restart the window when new data follows an idle period longer than the RTO (RFC 2861
    /// §3, RFC 5681 §4.1; Linux's `tcp_slow_start_after_idle`, on by default; ns-3 has no
    /// restart).
    pub slow_start_after_idle: bool,
    /// RFC 6675 NextSeg rule (3): during a SACK recovery, with nothing presumed lost left to
    /// resend and no new data, resend the first segment below the highest SACK that is
    /// neither SACKed nor resent, so that a hole too close to the top of the window for the
    /// duplicate-ACK rule (fewer than DupThresh segments SACKed above it) is repaired within
    /// the recovery instead of by the timer. ns-3 does it (`TcpTxBuffer::NextSeg`); Linux does
    /// not (off by default): it repairs such a hole by RACK's time-based marking (`rack`).
    pub nextseg_rule3: bool,
    /// ns-3's partial ACK in a SACK recovery (`TcpSocketBase::ProcessAck`, `DoRetransmit`):
    /// unless the segment at the head was already resent, one segment goes out whatever the
    /// window — the next presumed lost, else new data, else the head itself — as RFC 6582
    /// does without SACK. RFC 6675 and Linux only update the scoreboard on a partial ACK
    /// (off by default), so a lost last segment above the highest SACK waits for the timer
    /// (or, in Linux, RACK).
    pub partial_ack_resend: bool,
    /// Resending the oldest outstanding segment restarts the retransmission timer, as Linux's
    /// `tcp_xmit_retransmit_queue` does (unless RACK's reordering timer is pending) and ns-2's
    /// fast retransmit (`reset_rtx_timer` in `dupack_action`): a recovery's first repair gets a
    /// whole RTO to be acknowledged, counted from when it went out. Off: the timer keeps
    /// running from the last ACK of new data (RFC 6298 (5.3), ns-3), except with `rack`,
    /// which always restarts it; where the duplicate ACKs take most of an RTT to gather (small
    /// windows spread over a long queue), the timer then fires before the repair can be
    /// acknowledged.
    pub head_resend_restarts_rto: bool,
    /// RACK (RFC 8985 §6, Linux's default loss detection since 4.18, `tcp_recovery` 1): with
    /// SACK, a segment is lost once one sent after it has been delivered and a reordering
    /// window (a quarter of the minimum RTT; none in a recovery or once `dupthresh` segments
    /// are SACKed, until reordering is seen) has passed — retransmissions included, so a lost
    /// retransmission is found the same way. It replaces the duplicate-ACK and SACK-count
    /// rules (RFC 6675's IsLost) and `lost_retransmit_detection`. Off: RFC 6675 (ns-3's).
    pub rack: bool,
    /// Tail loss probe (RFC 8985 §7, Linux's `tcp_early_retrans` 3): with SACK, in the open
    /// or CWR state, when no ACK came for the probe timeout (PTO, about 2·SRTT), send one new
    /// segment or the last one again, so that a loss at the tail of a flight is repaired by a
    /// fast recovery rather than a retransmission timeout. Off: the timer alone (ns-3).
    pub tlp: bool,
    /// Added to RACK's reordering timer and to the PTO with several segments in flight: Linux's
    /// `TCP_TIMEOUT_MIN` (2 jiffies, 2 ms), a margin for the timer's granularity. RFC 8985 has
    /// none.
    pub loss_timer_slack: SimTime,
    /// Added to the PTO when one segment is in flight, for a delayed ACK at the receiver:
    /// RFC 8985 §7.2's WCDelAckT (200 ms), Linux's `TCP_RTO_MIN`.
    pub tlp_delayed_ack_allowance: SimTime,
    /// The receiver's SACK blocks cover the FIN's sequence number (RFC 2018 blocks are of
    /// sequence space; Linux SACKs a segment's `end_seq`, FIN included), so a FIN-carrying
    /// segment that arrives out of order is SACKed. Off: blocks end at the payload, and the
    /// last segment of a closing flow is never SACKed (routerlab before this option).
    pub sack_fin: bool,
    /// The receiver reports a duplicate segment in a D-SACK block, first in its next ACK
    /// (RFC 2883; Linux's `tcp_dsack`, on). With RACK the sender widens its reordering window
    /// for each round trip that reports one (RFC 8985 §6.2 step 4). Off: duplicates are
    /// acknowledged with ordinary SACK blocks only (ns-3).
    pub dsack: bool,
    /// With SACK and without RACK: presume a retransmission lost again once data sent after it
    /// is SACKed, and resend it, instead of waiting for the timer (Linux's
    /// `tcp_mark_lost_retrans` before RACK generalized it; RFC 6675 itself leaves lost
    /// retransmissions to the timer). RACK finds them by itself.
    pub lost_retransmit_detection: bool,
    /// Delayed ACKs; `None` (the default) acknowledges every segment. Off by default because
    /// Linux's quick-ACK heuristics, which keep delayed ACKs from slowing slow start, are not
    /// modelled; turn on for RFC 1122 / RFC 5681 behaviour.
    pub delayed_ack: Option<DelayedAck>,
    /// Receive buffer, advertised as the window (bytes).
    pub rcv_buf: u64,
    /// The slow-start threshold a connection starts with, bytes (None: unbounded, as Linux
    /// and RFC 5681 §3.1 "arbitrarily high"; ns-3 before 3.26 started from 65 535).
    pub initial_ssthresh: Option<u64>,
    /// Set DF on every segment (Linux's path-MTU discovery, RFC 1191: `ip_no_pmtu_disc` 0), so
    /// no router fragments them. ns-3's IPv4 never sets it (`Ipv4L3Protocol::Send`). An
    /// endpoint part may clear it whatever this says (`EndpointPart::allows_fragmentation`).
    pub dont_fragment: bool,
    /// Negotiate ECN (RFC 3168). DCTCP turns it on itself.
    pub ecn: bool,
    /// Pace transmissions at the rate the controller gives (or cwnd/SRTT scaled, see
    /// `TcpSocket::pacing_rate`).
    pub pacing: bool,
    /// Report cut segments: answer a segment whose payload a router cut off with a loss report
    /// at once (a SACK block naming the lost range, left above right), and resend a range a
    /// report names. Off: cut segments are discarded, loss reports ignored.
    pub cut_reports: bool,
    /// Let the host's shims group this connection's segments into larger units
    /// (`MetaFlags::GROUPABLE`); a grouping shim leaves other connections' alone.
    pub groupable: bool,
    /// Multipath TCP (`crate::mptcp`): the connection's stream over this many subflows.
    pub mptcp: Option<MptcpConfig>,
}

/// MPTCP's shape: how many subflows, whether their windows are coupled, how they find paths.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MptcpConfig {
    /// Subflows, each on its own 5-tuple. Dixit et al.'s (INFOCOM 2013) MPTCP baseline,
    /// after Raiciu et al. (SIGCOMM 2011), uses 8.
    pub subflows: u32,
    /// LIA (RFC 6356) on the subflows; off: independent NewReno subflows.
    pub coupled: bool,
    pub paths: MptcpPaths,
}

/// Which paths MPTCP's subflows take through ECMP.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum MptcpPaths {
    /// Each subflow's source port is drawn and hashed by the switches like any flow's, so two
    /// subflows may share a path (what Linux's path managers do: they open subflows from
    /// ephemeral ports and leave the path to ECMP).
    #[default]
    Hashed,
    /// Source ports searched until the subflows' ECMP paths differ, while unused paths remain
    /// (an oracle no end host has: it knows every switch's hash).
    Distinct,
}

impl Default for TcpConfig {
    fn default() -> TcpConfig {
        TcpConfig {
            cc: CcConfig::NewReno(RenoIncrease::Bytes),
            mss: 1460,
            init_cwnd: 10,
            rto: RtoParams {
                initial: SimTime::from_secs(1),
                min: SimTime::from_ms(200),
                max: SimTime::from_secs(60),
                // Linux's RTO is SRTT plus a variance term floored at its minimum RTO
                // (`tcp_rtt_estimator`: rttvar ≥ tcp_rto_min), which RFC 6298's G is here.
                granularity: SimTime::from_ms(200),
            },
            syn_rto: SimTime::from_secs(1),
            rto_after_syn_timeout: SimTime::from_secs(3),
            dupthresh: 3,
            dupthresh_from_paths: false,
            sack: true,
            limited_transmit: true,
            recovery: Recovery::Prr,
            timestamps: true,
            ts_tick: SimTime::from_ms(1),
            rtt_model: RttModel::Linux,
            sack_rtt: true,
            grow_at_recovery_exit: true,
            limited_transmit_beyond_pipe: false,
            timeout_reduces_again: true,
            frto: true,
            cwnd_validation: CwndValidation::Linux,
            ssthresh_base: SsthreshBase::Cwnd,
            slow_start_after_idle: true,
            lost_retransmit_detection: true,
            nextseg_rule3: false,
            partial_ack_resend: false,
            head_resend_restarts_rto: true,
            rack: true,
            tlp: true,
            loss_timer_slack: SimTime::from_ms(2),
            tlp_delayed_ack_allowance: SimTime::from_ms(200),
            sack_fin: true,
            dsack: true,
            delayed_ack: None,
            rcv_buf: 16 << 20,
            initial_ssthresh: None,
            dont_fragment: true,
            ecn: false,
            pacing: false,
            cut_reports: false,
            groupable: false,
            mptcp: None,
        }
    }
}
