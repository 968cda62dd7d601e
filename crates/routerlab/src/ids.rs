//! Typed indices. Every table in the simulator is a `Vec` indexed by one of these, so that a
//! port index can never be used where an endpoint index is meant.

macro_rules! id {
    ($(#[$doc:meta])* $name:ident) => {
        $(#[$doc])*
        #[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
        pub struct $name(pub u32);

        impl $name {
            #[inline]
            pub fn idx(self) -> usize {
                self.0 as usize
            }
        }
    };
}

id!(
    /// A node (host or switch/router).
    NodeId
);
id!(
    /// An egress port: one direction of a full-duplex link, with its queue and transmitter.
    PortId
);
id!(
    /// A host, numbered densely among hosts; also its IPv4-like address in packets.
    HostId
);
id!(
    /// A TCP endpoint (one side of a connection).
    EpId
);
id!(
    /// A connection (= a flow, in the results).
    ConnId
);
/// A packet slot in the packet arena. In builds with debug assertions the top 8 bits carry the
/// slot's generation, which the arena checks on every access, so that an id kept after its
/// packet was freed fails loudly instead of reading the slot's next packet; release builds use
/// all 32 bits for the slot.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub struct PacketId(pub u32);

impl PacketId {
    /// Bits of the slot index when the generation is carried (debug assertions on).
    pub const SLOT_BITS: u32 = 24;

    #[inline]
    pub fn idx(self) -> usize {
        if cfg!(debug_assertions) {
            (self.0 & ((1 << Self::SLOT_BITS) - 1)) as usize
        } else {
            self.0 as usize
        }
    }

    /// The slot's generation when this id was handed out (0 without debug assertions).
    #[inline]
    pub fn generation(self) -> u8 {
        if cfg!(debug_assertions) { (self.0 >> Self::SLOT_BITS) as u8 } else { 0 }
    }

    /// The id of slot `slot` in generation `generation` (ignored without debug assertions).
    #[inline]
    pub fn new(slot: usize, generation: u8) -> PacketId {
        if cfg!(debug_assertions) {
            debug_assert!(slot < (1 << Self::SLOT_BITS) - 1, "too many live packets for a debug build");
            PacketId(slot as u32 | (generation as u32) << Self::SLOT_BITS)
        } else {
            PacketId(slot as u32)
        }
    }
}
