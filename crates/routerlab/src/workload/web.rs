//! Web-session pools (TAQ's setting, §4.3 and §5.5): each client loads pages one after the
//! other. A page is a number of objects fetched from one server over up to `parallel`
//! connections at a time (a new connection per object, opened by the client; the server sends
//! the object). When the page's last object has arrived, the client thinks for a random time and
//! loads the next page. The objects of a page form one *flow pool* (flows from one source,
//! started within a short time) — what TAQ's admission control admits as a whole.
//!
//! Each object is one transfer whose `seq` is the client's page number.

use super::dist::Dist;
use super::{Ctx, FlowSpec, Opener};
use crate::ids::HostId;
use crate::tcp::TcpConfig;
use crate::units::SimTime;

#[derive(Clone, Debug, Default)]
struct ClientState {
    page: u32,
    to_start: u32,
    active: u32,
    server: usize,
}

#[derive(Clone, Debug)]
pub struct Web {
    pub clients: Vec<HostId>,
    pub servers: Vec<HostId>,
    /// Objects per page.
    pub objects: Dist,
    /// Object sizes, bytes.
    pub size: Dist,
    /// Think time between pages, seconds.
    pub think: Dist,
    pub parallel: u32,
    pub start: SimTime,
    /// Clients start within [start, start + jitter).
    pub jitter: SimTime,
    pub tcp: TcpConfig,
    pub group: u32,
    state: Vec<ClientState>,
}

impl Web {
    #[allow(clippy::too_many_arguments)]
    pub fn new(
        clients: Vec<HostId>,
        servers: Vec<HostId>,
        objects: Dist,
        size: Dist,
        think: Dist,
        parallel: u32,
        start: SimTime,
        jitter: SimTime,
        tcp: TcpConfig,
        group: u32,
    ) -> Web {
        let n = clients.len();
        Web {
            clients,
            servers,
            objects,
            size,
            think,
            parallel,
            start,
            jitter,
            tcp,
            group,
            state: vec![ClientState::default(); n],
        }
    }

    pub fn start(&mut self, ctx: &mut Ctx) {
        for c in 0..self.clients.len() {
            let j = if self.jitter.0 > 0 { SimTime(ctx.rng.below(self.jitter.0)) } else { SimTime::ZERO };
            ctx.wake(self.start + j, c as u32);
        }
    }

    fn fetch_one(&mut self, c: usize, ctx: &mut Ctx) {
        let st = &mut self.state[c];
        st.to_start -= 1;
        st.active += 1;
        let size = (self.size.sample(ctx.rng).round() as u64).max(1);
        let mut f = FlowSpec::new(
            self.servers[st.server],
            self.clients[c],
            ctx.now,
            Some(size),
            self.tcp.clone(),
            self.group,
        );
        f.opener = Opener::Receiver;
        let page = st.page;
        ctx.open(f, c as u64, page);
    }

    pub fn on_wake(&mut self, slot: u32, ctx: &mut Ctx) {
        let c = slot as usize;
        let n = (self.objects.sample(ctx.rng).round() as u32).max(1);
        let server = ctx.rng.below(self.servers.len() as u64) as usize;
        let st = &mut self.state[c];
        st.to_start = n;
        st.server = server;
        for _ in 0..n.min(self.parallel) {
            self.fetch_one(c, ctx);
        }
    }

    pub fn on_done(&mut self, tag: u64, ctx: &mut Ctx) {
        let c = tag as usize;
        self.state[c].active -= 1;
        if self.state[c].to_start > 0 {
            self.fetch_one(c, ctx);
        } else if self.state[c].active == 0 {
            self.state[c].page += 1;
            let think = SimTime::from_secs_f64_bounded(self.think.sample(ctx.rng));
            ctx.wake(ctx.now + think, c as u32);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::{SimRng, StreamId};
    use crate::workload::Action;

    #[test]
    fn a_page_uses_at_most_k_connections_then_thinks() {
        let mut g = Web::new(
            vec![HostId(0)],
            vec![HostId(5)],
            Dist::Fixed(6.0),
            Dist::Fixed(10_000.0),
            Dist::Fixed(2.0),
            4,
            SimTime::ZERO,
            SimTime::ZERO,
            TcpConfig::default(),
            0,
        );
        let mut rng = SimRng::new(1, StreamId::Workload(0));
        let mut a = Vec::new();
        g.on_wake(0, &mut Ctx::new(SimTime::ZERO, &mut rng, &mut a, 0));
        assert_eq!(a.len(), 4, "four connections at once");
        for x in &a {
            let Action::Open { flow, seq, .. } = x else { panic!() };
            assert_eq!((flow.src, flow.dst, flow.opener, *seq), (HostId(5), HostId(0), Opener::Receiver, 0));
        }
        let mut opened = 4;
        let mut t = SimTime::ZERO;
        // Each completion starts the next object until six are fetched; then a think time.
        for _ in 0..6 {
            a.clear();
            t += SimTime::from_ms(10);
            g.on_done(0, &mut Ctx::new(t, &mut rng, &mut a, opened));
            opened += a.iter().filter(|x| matches!(x, Action::Open { .. })).count() as u32;
        }
        assert_eq!(opened, 6);
        assert_eq!(a, vec![Action::Wake { at: t + SimTime::from_secs(2), slot: 0 }]);
    }
}
