//! CP, cutting payload (Cheng et al., NSDI 2014 — `papers/cp-cutting-payload-slides.txt`):
//! precise loss notification through header-only packets.
//!
//! - **Switch** ([`switch`]): a data packet that would be dropped for lack of buffer loses its
//!   payload instead; its header, marked *cut*, goes through a small header buffer served
//!   ahead of data, so it is not stuck behind the full queue.
//! - **Receiver** (`tcp::receiver`): a cut packet is answered at once with a PACK — a SACK
//!   block with its edges swapped, naming the lost range (`SackBlock::lost_range`) — in an ACK
//!   that is never delayed. Ordinary SACK blocks ride beside it, unaffected.
//! - **Sender** (`tcp::socket`, `LossSignal::Explicit`): a PACK marks the named segment lost and
//!   retransmits it at once (fast retransmit / fast recovery), unless a copy sent later may
//!   still be in flight. The retransmission timer stays as the last resort.
//!
//! Endpoints turn CP on with `[transport] cp = true` (both ends must); switches with a `cp`
//! queue wrapping drop-tail or RED (`docs/scenario.md`).
//!
//! Where the slides are silent (our choices, each a parameter or documented here):
//! - the cut mark travels in a reserved bit of the TCP header, and the cut packet keeps the
//!   original payload length in its representation so that the receiver knows the lost range
//!   (a real switch would have to write it somewhere in the header: the slides don't say where);
//! - TCP segments are cut, not IP fragments (whose TCP header is not in every piece); a
//!   segment without payload (SYN, pure ACK) that finds no room is header-only already and
//!   takes the header buffer as it is;
//! - the header buffer holds [`CpParams::header_buffer_bytes`]: by default 1452 bytes, below
//!   one 1500-byte packet ("< 1 packet size", the slides): 27 cut packets of 52 bytes (22 if
//!   each is counted with Ethernet's 14-byte header, the slides' 66 bytes);
//! - a PACK is ignored while any transmission of its segment is unaccounted for (each cut
//!   produces one PACK, so a segment with as many PACKs as transmissions has nothing in flight).

pub mod switch;

pub use switch::{CpParams, CpQueue};
