//! The `[output]` table into what the run measures beyond the flow and link tables.

use crate::ids::{ConnId, PortId};
use crate::mechanisms::taq::TaqParams;
use crate::net::stage::StageRecipe;
use crate::scenario::schema::Output;
use crate::sim::{LatencyProbeSpec, MeasureSpec, OutputSpec};

use super::Problems;
use super::names::Names;

/// What to measure, checked against the topology and the `known_flows` flows known before the
/// run.
pub(super) fn output(out: &Output, names: &Names, known_flows: usize, p: &mut Problems) -> OutputSpec {
    if let Some(ids) = &out.timeseries_flows {
        for (k, &id) in ids.iter().enumerate() {
            if id as usize >= known_flows {
                let known = match known_flows {
                    0 => "no flow is known before the run".to_string(),
                    n => format!("flows known before the run are 0 to {}", n - 1),
                };
                p.at(
                    format!("output.timeseries_flows[{k}]"),
                    format!(
                        "there is no flow {id} ({known}; the flows a generated workload — incast, \
                         permutation, on-off, … — makes as it runs cannot be named: leave \
                         timeseries_flows out to sample every flow)"
                    ),
                );
            }
        }
        if out.timeseries.is_none() {
            p.at("output.timeseries_flows", "has no effect without output.timeseries");
        }
    }
    let links = |list: &[String], key: &str, p: &mut Problems| -> Vec<PortId> {
        list.iter().enumerate().filter_map(|(k, n)| names.link(n, &format!("output.{key}[{k}]"), p)).collect()
    };
    let queue_ports = match &out.queue_links {
        Some(l) => links(l, "queue_links", p),
        None => names.index.switch_ports(),
    };
    if out.queue_links.is_some() && out.queues.is_none() {
        p.at("output.queue_links", "has no effect without output.queues");
    }
    let mut latency = Vec::new();
    for (k, l) in out.latency.iter().enumerate() {
        let path = format!("output.latency[{k}]");
        let from = names.node(&l.from, &format!("{path}.from"), p);
        let to = names.node(&l.to, &format!("{path}.to"), p);
        if let Some(f) = l.flow
            && f as usize >= known_flows
        {
            p.at(format!("{path}.flow"), format!("there is no flow {f} known before the run"));
        }
        if let (Some(from), Some(to)) = (from, to) {
            if from == to {
                p.at(format!("{path}.to"), "is the same node as from");
            }
            latency.push(LatencyProbeSpec {
                from,
                to,
                flow: l.flow.map(ConnId),
                probability: l.probability.0,
                max_samples: l.max_samples,
                data_only: l.data_only,
            });
        }
    }
    if latency.len() > 250 {
        p.at("output.latency", "at most 250 probes");
    }
    let measure = MeasureSpec {
        queues: out.queues.map(|i| (i.0, queue_ports)),
        fairness_slice: out.fairness_slice.map(|s| s.0),
        latency,
        queue_delay: links(&out.queue_delay, "queue_delay", p),
        flow_epochs: links(&out.flow_epochs, "flow_epochs", p),
        // TAQ's tracker with its defaults, passive: the queues are classified alike.
        flow_epoch_observer: Some(StageRecipe::new(TaqParams::default().tracker)),
        pcap: links(&out.pcap, "pcap", p),
        pcap_snaplen: out.pcap_snaplen.max(20),
        pcap_max_packets: out.pcap_max_packets as usize,
    };
    OutputSpec {
        timeseries: out.timeseries.map(|d| d.0),
        timeseries_flows: out.timeseries_flows.clone(),
        measure,
    }
}
