//! Building a simulation: hosts and their shims, observers, samplers, the flows known before
//! the run, and the setters that change a part before it starts.

use super::{
    FlowSampler, GeneratorSlot, HostState, RunCounters, SAMPLE_FLOWS, Simulation, flows::Carrier,
    flows::tcp_ends, measure::Measurements, spec::SimSpec,
};
use crate::builtins::AnyQdisc;
use crate::engine::{Event, EventQueue};
use crate::host::ShimChain;
use crate::ids::{ConnId, HostId, NodeId, PortId};
use crate::net::Network;
use crate::net::fragment::Reassembler;
use crate::net::packet::PacketPool;
use crate::rng::{SimRng, StreamId};
use crate::units::SimTime;

impl Simulation {
    pub fn new(spec: &SimSpec) -> Simulation {
        let net = Network::build(&spec.topology, spec.seed);
        let hosts: Vec<HostState> = (0..net.hosts.len())
            .map(|h| {
                let mut shims = ShimChain::default();
                let nic_rate = net.ports[net.host_nic[h].idx()].rate();
                for recipe in &spec.host_shims {
                    if let Some(shim) = recipe.build(HostId(h as u32), nic_rate) {
                        shims.push(shim);
                    }
                }
                HostState { shims, reassembly: Reassembler::new(spec.reassembly_timeout) }
            })
            .collect();
        let host_has_shims = hosts.iter().map(|h| !h.shims.is_empty()).collect();
        let nic_waiters = vec![Vec::new(); hosts.len()];
        let measure = Measurements::new(&spec.output.measure, &net, spec.seed);
        let mut sim = Simulation {
            now: SimTime::ZERO,
            end: spec.duration,
            events: EventQueue::new(),
            pool: PacketPool::new(),
            net,
            eps: Vec::with_capacity(spec.flows.len() * 2),
            conns: Vec::with_capacity(spec.flows.len()),
            mptcp: Vec::new(),
            transfers: Vec::with_capacity(spec.flows.len()),
            hosts,
            nic_waiters,
            hosts_with_nic_waiters: 0,
            tcp_configs: Vec::new(),
            host_has_shims,
            generators: Vec::new(),
            groups: spec.groups.clone(),
            link_changes: spec.link_changes.clone(),
            counters: RunCounters::default(),
            flow_sampler: None,
            measure,
            egress: Vec::with_capacity(64),
            actions: Vec::new(),
            #[cfg(routerlab_event_cycles)]
            cycles: Default::default(),
        };
        for &port in &spec.output.measure.flow_epochs {
            let port = &mut sim.net.ports[port.idx()];
            if port.record_flow_epochs() {
                continue;
            }
            // A queue that does not classify flows: a passive observer first in the port's
            // stages (it sees every arrival), so that all queues are classified alike.
            if let Some(observer) = &spec.output.measure.flow_epoch_observer {
                let mut stage = observer.build(port.rate());
                stage.record_flow_epochs();
                port.insert_stage(0, stage);
            }
        }
        sim.net.wire_reverse_observers();
        // Stages the topology installed may want their first timer.
        for port in &mut sim.net.ports {
            if !port.stages().is_empty() {
                port.on_stage_timer(SimTime::ZERO, &mut sim.events);
            }
        }
        for f in &spec.flows {
            sim.add_connection(f, None, 0, 0);
        }
        for (i, c) in spec.link_changes.iter().enumerate() {
            if c.at < sim.end {
                sim.events.push(c.at, Event::LinkChange(i as u32));
            }
        }
        for (w, g) in &spec.generators {
            sim.generators.push(GeneratorSlot {
                generator: g.clone(),
                rng: SimRng::new(spec.seed, StreamId::Workload(*w)),
            });
        }
        for g in 0..sim.generators.len() {
            sim.run_generator(g as u32, |w, ctx| w.start(ctx));
        }
        if let Some(interval) = spec.output.timeseries {
            let flows = match &spec.output.timeseries_flows {
                Some(ids) => ids.iter().map(|&i| ConnId(i)).collect(),
                // Every TCP flow known before the run (not CBR's UDP streams).
                None => (0..sim.conns.len() as u32)
                    .map(ConnId)
                    .filter(|&c| tcp_ends(&sim.conns[c.idx()].carrier, &sim.mptcp).is_some())
                    .collect(),
            };
            sim.flow_sampler = Some(FlowSampler::new(interval, flows));
            if interval <= sim.end {
                sim.events.push(interval, Event::Sample(SAMPLE_FLOWS));
            }
        }
        for (index, at) in sim.measure.first_samples() {
            if at <= sim.end {
                sim.events.push(at, Event::Sample(index));
            }
        }
        sim
    }

    /// Give a host a shim (at the end of its chain).
    pub fn add_shim(&mut self, host: HostId, shim: Box<dyn crate::host::HostShim>) {
        self.hosts[host.idx()].shims.push(shim);
        self.host_has_shims[host.idx()] = true;
    }

    /// Replace a port's queue discipline (before the run starts).
    pub fn set_qdisc(&mut self, port: PortId, qdisc: AnyQdisc) {
        self.net.ports[port.idx()].set_qdisc(qdisc);
        self.net.wire_reverse_observers();
    }

    /// Add a stage (admission / transform / timer) at the end of a port's chain around its queue.
    pub fn add_port_stage(&mut self, port: PortId, stage: Box<dyn crate::net::stage::PortStage>) {
        self.net.ports[port.idx()].push_stage(stage);
        self.net.ports[port.idx()].on_stage_timer(self.now, &mut self.events);
    }

    /// Replace the congestion controller of a TCP connection's sender (before it starts).
    pub fn set_congestion_control(&mut self, c: ConnId, cc: crate::tcp::cc::AnyCc) {
        match self.conns[c.idx()].carrier {
            Carrier::Tcp { sender, .. } => self.eps[sender.idx()].sock.set_cc(cc),
            Carrier::Mptcp(_) => panic!("flow {} is MPTCP: its subflows' controller is LIA", c.0),
            Carrier::Udp { .. } => {}
        }
    }

    /// Replace a node's forwarding policy with a custom one.
    pub fn set_forwarding(&mut self, node: NodeId, policy: Box<dyn crate::net::forwarding::NextHopPolicy>) {
        self.net.nodes[node.idx()].forwarder.set_custom(policy);
    }
}
