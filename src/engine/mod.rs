//! What every representation and objective shares: what a restart needs of
//! a representation ([`source`]), Hartigan's rule over an objective's costs
//! ([`move_rule`]), Smartigan's schedule ([`schedule`]), the sweep in rounds
//! as a definition ([`rounds`]), the plain sweeps the accelerated kernels
//! reproduce ([`reference`]), the starts ([`init`], [`plus_plus`]), the
//! nearest-centroid tie rule ([`nearest`]) and merge-split refinement
//! ([`refine`]).

pub(crate) mod constrained;
pub(crate) mod init;
pub(crate) mod move_rule;
pub(crate) mod nearest;
pub(crate) mod partition;
pub(crate) mod plus_plus;
pub(crate) mod points;
pub(crate) mod reference;
pub(crate) mod refine;
pub(crate) mod rounds;
pub(crate) mod source;
pub(crate) mod stats;
