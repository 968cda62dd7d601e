/*! MPTCP's data level: one connection's byte stream striped over several TCP subflows.

The subflows are ordinary [`TcpSocket`](crate::tcp::TcpSocket)s, each with its own sequence
space, loss recovery and window; with coupling on, their controllers are LIA
([`crate::tcp::cc::Lia`], RFC 6356). This module is what sits above them (RFC 8684's data
sequence signal, modelled, not encoded):

- **Scheduling.** When a subflow can send, the connection hands it the next bytes of the stream
  — as many as its window has room for, in whole segments, and no further than the
  connection-level receive window allows ([`MptcpConn::assign`]). Each hand-over is a
  *mapping* from a range of the subflow's payload to a range of data sequence numbers (DSN):
  what the DSS option carries.
- **Reassembly.** A subflow's receiver delivers its own payload in order; the mappings turn it
  into DSN ranges, and the connection delivers the stream in DSN order, holding ranges that
  arrive early ([`MptcpConn::on_subflow_delivered`]).
- **Flow control.** One receive window for the connection, `rcv_buf` bytes past the data-level
  acknowledgment.

Modelling choices (also in `docs/tcp.md`): the mapping travels as simulator state, not as
option bytes (the receiver reads the sender's mapping for the range it received, which is
exactly what the DSS option would tell it; the 20 bytes of option per segment are not
charged); a sender learns the data-level acknowledgment when an ACK arrives on any of its
subflows, as its value at that instant (at most one one-way delay early); data is not
re-injected on another subflow when one stalls (Linux does, after an RTO); all subflows open
at once.
*/

use std::collections::{BTreeMap, VecDeque};

use crate::ids::EpId;

/// Segments a subflow is given beyond its window: with nothing queued past the window a TCP
/// sender counts as application-limited and does not grow its window (RFC 7661; Linux's
/// `tcp_is_cwnd_limited`), and limited transmit (RFC 3042) sends up to two new segments
/// beyond it. Two, then; Linux's scheduler likewise keeps a subflow's send queue ahead of it.
pub const LOOKAHEAD_SEGMENTS: u64 = 2;

/// One subflow: its two endpoints and the 5-tuple hash its packets carry (its ECMP path).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Subflow {
    pub sender: EpId,
    pub receiver: EpId,
    pub flow_hash: u32,
}

/// A range of a subflow's payload carrying a range of the data stream.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Mapping {
    /// Offset in the subflow's payload.
    sub: u64,
    dsn: u64,
    len: u64,
}

/// The data level of one MPTCP connection (both ends; the simulator owns both).
#[derive(Debug)]
pub struct MptcpConn {
    pub subflows: Vec<Subflow>,
    /// Bytes the application has written.
    written: u64,
    /// Next data sequence number to hand to a subflow.
    next_dsn: u64,
    /// The connection-level receive window.
    rcv_buf: u64,
    /// The data-level acknowledgment as the sender last learned it.
    sender_data_ack: u64,
    /// Per subflow: payload handed over so far, and the mappings not yet delivered.
    assigned: Vec<u64>,
    maps: Vec<VecDeque<Mapping>>,
    /// Per subflow: payload delivered in order at the receiver, as last seen.
    delivered: Vec<u64>,
    /// Receiver: the stream delivered in order so far, and ranges held beyond it (start → end).
    data_ack: u64,
    held: BTreeMap<u64, u64>,
}

impl MptcpConn {
    pub fn new(subflows: Vec<Subflow>, rcv_buf: u64) -> MptcpConn {
        let k = subflows.len();
        MptcpConn {
            subflows,
            written: 0,
            next_dsn: 0,
            rcv_buf,
            sender_data_ack: 0,
            assigned: vec![0; k],
            maps: vec![VecDeque::new(); k],
            delivered: vec![0; k],
            data_ack: 0,
            held: BTreeMap::new(),
        }
    }

    /// The application writes `bytes` more.
    pub fn write(&mut self, bytes: u64) {
        self.written = self.written.saturating_add(bytes);
    }

    /// Every written byte has been handed to some subflow.
    pub fn all_assigned(&self) -> bool {
        self.next_dsn >= self.written
    }

    /// The stream delivered in order at the receiver (the data-level ACK).
    pub fn data_ack(&self) -> u64 {
        self.data_ack
    }

    /// An ACK reached one of the sender's subflows: the sender learns the data-level ACK.
    /// Returns true if the connection window moved.
    pub fn on_ack_at_sender(&mut self) -> bool {
        let moved = self.data_ack > self.sender_data_ack;
        self.sender_data_ack = self.data_ack;
        moved
    }

    /// Subflow `i` has acknowledged `acked` payload bytes and has a window of `cwnd` bytes:
    /// hand it the next bytes of the stream it has room for, plus [`LOOKAHEAD_SEGMENTS`]
    /// (whole segments of `mss`, or the stream's last bytes). Returns how many; the caller
    /// writes them into the subflow.
    pub fn assign(&mut self, i: usize, acked: u64, cwnd: u64, mss: u64) -> u64 {
        let room = (acked + cwnd + LOOKAHEAD_SEGMENTS * mss).saturating_sub(self.assigned[i]);
        let window = (self.sender_data_ack + self.rcv_buf).saturating_sub(self.next_dsn);
        let left = self.written - self.next_dsn;
        let mut n = room.min(window).min(left);
        if n < left {
            n -= n % mss;
        }
        if n == 0 {
            return 0;
        }
        let m = Mapping { sub: self.assigned[i], dsn: self.next_dsn, len: n };
        match self.maps[i].back_mut() {
            // Extend the last mapping when contiguous in both spaces (a long DSS mapping).
            Some(last) if last.sub + last.len == m.sub && last.dsn + last.len == m.dsn => last.len += n,
            _ => self.maps[i].push_back(m),
        }
        self.assigned[i] += n;
        self.next_dsn += n;
        n
    }

    /// Subflow `i`'s receiver has `delivered` payload bytes in order: map the new ones to the
    /// stream and deliver what is now in order. Returns the data-level ACK.
    pub fn on_subflow_delivered(&mut self, i: usize, delivered: u64) -> u64 {
        while self.delivered[i] < delivered {
            let Some(m) = self.maps[i].front_mut() else { break };
            debug_assert_eq!(m.sub, self.delivered[i], "mappings cover the subflow's payload in order");
            let n = m.len.min(delivered - self.delivered[i]);
            let (dsn, end) = (m.dsn, m.dsn + n);
            m.sub += n;
            m.dsn += n;
            m.len -= n;
            if m.len == 0 {
                self.maps[i].pop_front();
            }
            self.delivered[i] += n;
            self.receive(dsn, end);
        }
        self.data_ack
    }

    /// Stream bytes [start, end) arrived (each DSN is carried once: no re-injection).
    fn receive(&mut self, start: u64, end: u64) {
        if start > self.data_ack {
            self.held.insert(start, end);
            return;
        }
        self.data_ack = self.data_ack.max(end);
        while let Some((&s, &e)) = self.held.first_key_value() {
            if s > self.data_ack {
                break;
            }
            self.held.pop_first();
            self.data_ack = self.data_ack.max(e);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn conn(k: usize, rcv_buf: u64) -> MptcpConn {
        let sf = |i: u32| Subflow { sender: EpId(2 * i), receiver: EpId(2 * i + 1), flow_hash: i };
        MptcpConn::new((0..k as u32).map(sf).collect(), rcv_buf)
    }

    #[test]
    fn assigns_whole_segments_within_both_windows() {
        let mut c = conn(2, 10_000);
        c.write(1_000_000);
        assert_eq!(c.assign(0, 0, 2_500, 1000), 4_000, "whole segments of the window and two more");
        assert_eq!(c.assign(0, 0, 2_500, 1000), 0, "nothing more until it is acknowledged");
        assert_eq!(c.assign(1, 0, 100_000, 1000), 6_000, "the connection window caps the rest");
        assert_eq!(c.assign(1, 0, 100_000, 1000), 0);
        // Data-level ACK of 3000 at the receiver, learned by the sender: 3000 more may go.
        c.on_subflow_delivered(0, 3_000);
        assert!(c.on_ack_at_sender());
        assert_eq!(c.assign(1, 0, 100_000, 1000), 3_000);
    }

    #[test]
    fn the_last_bytes_go_even_if_less_than_a_segment() {
        let mut c = conn(1, 1 << 20);
        c.write(2_500);
        assert_eq!(c.assign(0, 0, 10_000, 1000), 2_500);
        assert_eq!(c.assign(0, 0, 10_000, 1000), 0);
        assert!(c.all_assigned());
    }

    #[test]
    fn reassembles_the_stream_across_subflows() {
        let mut c = conn(2, 1 << 20);
        c.write(8_000);
        assert_eq!(c.assign(0, 0, 0, 1000), 2_000); // DSN 0..2000 on subflow 0
        assert_eq!(c.assign(1, 0, 1_000, 1000), 3_000); // DSN 2000..5000 on subflow 1
        assert_eq!(c.assign(0, 2_000, 1_000, 1000), 3_000); // DSN 5000..8000 on subflow 0
        // Subflow 1 delivers first: held, nothing in order yet.
        assert_eq!(c.on_subflow_delivered(1, 3_000), 0);
        // Subflow 0's first 1500 bytes: DSN 0..1500.
        assert_eq!(c.on_subflow_delivered(0, 1_500), 1_500);
        // The rest of its first mapping fills the gap and releases subflow 1's range.
        assert_eq!(c.on_subflow_delivered(0, 2_000), 5_000);
        assert_eq!(c.on_subflow_delivered(0, 5_000), 8_000);
    }
}
