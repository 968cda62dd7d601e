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
id!(
    /// A packet slot in the packet arena.
    PacketId
);
