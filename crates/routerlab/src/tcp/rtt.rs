//! Round-trip time estimation and the retransmission timeout, RFC 6298.
//!
//! - (2.1) before any sample, RTO = the initial RTO (1 s by default);
//! - (2.2) first sample R: SRTT = R, RTTVAR = R/2;
//! - (2.3) later samples: RTTVAR = (1-β)·RTTVAR + β·|SRTT-R|, SRTT = (1-α)·SRTT + α·R, with
//!   α = 1/8, β = 1/4; RTO = SRTT + max(G, K·RTTVAR), K = 4;
//! - (2.4) RTO is raised to the configured minimum (RFC 6298 says 1 s; Linux uses 200 ms, our
//!   default); (2.5) capped at the maximum;
//! - (5.5) on expiry the RTO doubles (exponential backoff), up to the maximum;
//! - the backoff persists until a new sample is taken, which can only come from a segment that
//!   was not retransmitted (Karn's rule, enforced by the caller): then the RTO is recomputed
//!   from SRTT and RTTVAR, which "collapses" the backoff.
//!
//! All arithmetic is in integer picoseconds. The clock granularity G is a parameter (default
//! 0: the simulator's clock is exact).

use crate::units::SimTime;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RtoParams {
    pub initial: SimTime,
    pub min: SimTime,
    pub max: SimTime,
    pub granularity: SimTime,
}

#[derive(Clone, Debug)]
pub struct RttEstimator {
    params: RtoParams,
    srtt: Option<SimTime>,
    rttvar: SimTime,
    min_rtt: Option<SimTime>,
    latest: Option<SimTime>,
    /// RTO before backoff.
    base_rto: SimTime,
    /// Number of consecutive doublings applied since the last sample.
    backoff: u32,
}

impl RttEstimator {
    pub fn new(params: RtoParams) -> RttEstimator {
        let base = params.initial.clamp(params.min, params.max);
        RttEstimator {
            params,
            srtt: None,
            rttvar: SimTime::ZERO,
            min_rtt: None,
            latest: None,
            base_rto: base,
            backoff: 0,
        }
    }

    /// Feed one RTT sample (from a segment that was never retransmitted).
    pub fn on_sample(&mut self, r: SimTime) {
        match self.srtt {
            None => {
                self.srtt = Some(r);
                self.rttvar = SimTime(r.0 / 2);
            }
            Some(srtt) => {
                let err = srtt.0.abs_diff(r.0);
                self.rttvar = SimTime((3 * self.rttvar.0 + err) / 4);
                self.srtt = Some(SimTime((7 * srtt.0 + r.0) / 8));
            }
        }
        self.min_rtt = Some(self.min_rtt.map_or(r, |m| m.min(r)));
        self.latest = Some(r);
        let srtt = self.srtt.unwrap();
        let var = SimTime((4 * self.rttvar.0).max(self.params.granularity.0));
        self.base_rto = (srtt + var).clamp(self.params.min, self.params.max);
        self.backoff = 0;
    }

    /// The retransmission timer expired: double the RTO (5.5).
    pub fn on_timeout(&mut self) {
        self.backoff = self.backoff.saturating_add(1);
    }

    /// Re-initialize the RTO without a sample (RFC 6298 §5.7: 3 s after a SYN timed out).
    pub fn reset_base(&mut self, rto: SimTime) {
        self.base_rto = rto.clamp(self.params.min, self.params.max);
        self.backoff = 0;
    }

    /// End the backoff without a sample (ns-3 does so on every ACK of new data; RFC 6298 keeps
    /// it until a sample).
    pub fn end_backoff(&mut self) {
        self.backoff = 0;
    }

    /// Current RTO, with backoff, capped at the maximum.
    pub fn rto(&self) -> SimTime {
        let shift = self.backoff.min(32);
        let backed =
            self.base_rto.0.checked_shl(shift).filter(|v| v >> shift == self.base_rto.0).unwrap_or(u64::MAX);
        SimTime(backed.min(self.params.max.0))
    }

    pub fn srtt(&self) -> Option<SimTime> {
        self.srtt
    }
    pub fn rttvar(&self) -> SimTime {
        self.rttvar
    }
    pub fn min_rtt(&self) -> Option<SimTime> {
        self.min_rtt
    }
    pub fn latest(&self) -> Option<SimTime> {
        self.latest
    }
    pub fn backoff(&self) -> u32 {
        self.backoff
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn params() -> RtoParams {
        RtoParams {
            initial: SimTime::from_secs(1),
            min: SimTime::from_ms(200),
            max: SimTime::from_secs(60),
            granularity: SimTime::ZERO,
        }
    }

    #[test]
    fn initial_rto_before_any_sample() {
        assert_eq!(RttEstimator::new(params()).rto(), SimTime::from_secs(1));
    }

    #[test]
    fn first_and_second_samples_follow_rfc6298() {
        let mut e = RttEstimator::new(params());
        e.on_sample(SimTime::from_ms(100));
        assert_eq!(e.srtt(), Some(SimTime::from_ms(100)));
        assert_eq!(e.rttvar(), SimTime::from_ms(50));
        assert_eq!(e.rto(), SimTime::from_ms(300));
        e.on_sample(SimTime::from_ms(200));
        // RTTVAR = 3/4*50 + 1/4*100 = 62.5; SRTT = 7/8*100 + 1/8*200 = 112.5
        assert_eq!(e.rttvar(), SimTime::from_us(62_500));
        assert_eq!(e.srtt(), Some(SimTime::from_us(112_500)));
        assert_eq!(e.rto(), SimTime::from_us(112_500 + 250_000));
    }

    #[test]
    fn minimum_rto_is_honoured() {
        let mut e = RttEstimator::new(params());
        e.on_sample(SimTime::from_us(100));
        assert_eq!(e.rto(), SimTime::from_ms(200));
    }

    #[test]
    fn timeout_doubles_until_max_and_sample_collapses_backoff() {
        let mut e = RttEstimator::new(params());
        e.on_sample(SimTime::from_us(100));
        e.on_timeout();
        assert_eq!(e.rto(), SimTime::from_ms(400));
        e.on_timeout();
        assert_eq!(e.rto(), SimTime::from_ms(800));
        for _ in 0..40 {
            e.on_timeout();
        }
        assert_eq!(e.rto(), SimTime::from_secs(60));
        e.on_sample(SimTime::from_us(100));
        assert_eq!(e.rto(), SimTime::from_ms(200));
    }
}
