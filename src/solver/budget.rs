//! What one solve may spend, and what it has spent: nodes of the proof-number search
//! and of the threat-space searches it calls, counted together, and the clock.

use crate::params::threat::ROOT_DEPTH;
use crate::threat::{Level, Limits};
use std::time::Instant;

/// The spending of one solve.
#[derive(Clone, Debug)]
pub struct Budget {
    /// Nodes (proof-number and threat-space together) the solve may use.
    pub max_nodes: u64,
    pub deadline: Option<Instant>,
    /// Proof-number nodes entered so far.
    pub pn_nodes: u64,
    /// Threat-space search nodes used so far.
    pub threat_nodes: u64,
}

impl Budget {
    pub fn new(max_nodes: u64, deadline: Option<Instant>) -> Budget {
        Budget {
            max_nodes,
            deadline,
            pn_nodes: 0,
            threat_nodes: 0,
        }
    }

    /// Nodes used, of both kinds.
    pub fn used(&self) -> u64 {
        self.pn_nodes + self.threat_nodes
    }

    /// Whether the nodes or the clock have run out. The clock is read on every call:
    /// callers ask once per expanded node, which costs far more than the read.
    pub fn exhausted(&self) -> bool {
        self.used() >= self.max_nodes || self.deadline.is_some_and(|d| Instant::now() >= d)
    }

    /// Limits for one threat-space search of at most `cap` nodes, within what is left.
    pub fn threat_limits(&self, cap: u64) -> Limits<'static> {
        Limits {
            level: Level::Vct,
            max_nodes: cap.min(self.max_nodes.saturating_sub(self.used())).max(1),
            max_depth: ROOT_DEPTH,
            deadline: self.deadline,
            stop: None,
        }
    }
}
