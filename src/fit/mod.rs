//! The fit: one restart as a state machine ([`restart`]), the candidates of
//! a fit run side by side on a per-call pool ([`multistart`]), which of them
//! run ([`search`]), a fit advanced one step at a time ([`run`]), a candidate
//! descended on a sample of the rows first ([`sample`]), and the solutions
//! over a range of k ([`path`]).

pub(crate) mod multistart;
pub(crate) mod path;
pub(crate) mod restart;
pub(crate) mod run;
pub(crate) mod sample;
pub(crate) mod search;
