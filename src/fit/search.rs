//! Which candidates a fit runs and which it keeps ([`NInit`]): a given
//! number of restarts side by side; restarts while the work done stays
//! within a budget (`"auto"`); or the best-effort search (`"best"`), a
//! population of restarts whose members have children.
//!
//! A search is a state machine over batches: [`Search::next_batch`] says
//! which candidates run next, the caller runs them (in parallel: a fit, or
//! one step at a time: [`crate::Run`]) and hands them back, in index order,
//! to [`Search::accept`]. Every decision depends only on the candidates'
//! results and on streams drawn from `(seed, index)`, and a batch's size on
//! the budget and the constants of [`crate::defaults`], never on the thread
//! count or on timing: the same seed and data give the same search, bit for
//! bit, however the batches are run.
//!
//! A child ([`Spec::Child`]) starts from a member's centroids with a few of
//! them moved: the clusters given up are drawn uniformly, and their
//! centroids go to points drawn with probability proportional to their
//! cost in the member (as k-means++ draws by squared distance: a point its
//! cluster serves badly is a place a centroid is missing). It then descends
//! by the method's own rule (Hartigan sweeps, or Lloyd iterations for
//! Lloyd) and is refined like any restart. Moving a few centroids keeps most
//! of a good solution, so a child costs far less than a fresh restart and
//! explores the neighbourhood that single-point moves and merge-split
//! moves cannot leave.

use crate::engine::plus_plus;
use crate::fit::restart::Restart;
use crate::params::defaults::{
    self, AGREE_REL, AUTO_GENERATION, AUTO_POPULATION, AUTO_RUGGED_PASSES, AUTO_STALL,
    AUTO_STALL_FROM_SHARE, AUTO_STALL_LONG, BEST_GENERATION, BEST_POPULATION, BEST_STALL,
    RUGGED_REL,
};
use crate::params::{Init, NInit, ValidParams};
use crate::rng::{Stream, Xoshiro256PlusPlus};
use ndarray::Array2;

/// The centroids a descent on a sample ended at (in the caller's
/// coordinates, [`crate::fit::sample`]) and what it cost, in passes over all the rows.
#[derive(Debug, Clone)]
pub(crate) struct Seeded {
    pub centroids: Array2<f64>,
    pub passes: f64,
}

/// One candidate to run.
#[derive(Debug, Clone)]
pub(crate) enum Spec<St> {
    /// Restart `index` from its own start: the restart `index` of a fit
    /// with `n_init = index + 1` restarts.
    Fresh(usize),
    /// Candidate `index`: the member `parent`'s state with `moved` of its
    /// centroids moved (module documentation), then descended.
    Child {
        index: usize,
        parent: St,
        moved: usize,
    },
    /// Candidate `index`: a descent on all rows from the centroids a
    /// descent on a sample ended at ([`crate::fit::sample`]).
    Seeded { index: usize, seeded: Seeded },
}

impl<St> Spec<St> {
    /// The candidate's index: its place among every candidate of the fit.
    pub fn index(&self) -> usize {
        match self {
            Spec::Fresh(index) | Spec::Child { index, .. } | Spec::Seeded { index, .. } => *index,
        }
    }
}

/// A candidate run to its end.
#[derive(Debug)]
pub(crate) struct Finished<St> {
    pub index: usize,
    /// Its objective, as the result reports it.
    pub objective: f64,
    /// The passes it cost ([`defaults::pass_work`]): its start and its steps.
    pub passes: f64,
    /// Its state, where it may be kept: a search that keeps one candidate
    /// ([`Search::keeps_one`]) is handed only the state of its batch's best.
    pub restart: Option<Restart<St>>,
    /// What it is.
    pub kind: Kind,
}

/// What a candidate is, for the search's accounting.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Kind {
    /// A fresh restart.
    Restart,
    /// A child of a member.
    Child,
    /// Seeded by a descent on a sample: outside the budget, which it would
    /// otherwise use up beside the first restart on the largest problems,
    /// and outside the restarts' agreement (it is not drawn independently).
    Seeded,
}

/// A candidate started: its restart, the passes its start cost, and what
/// it is.
#[derive(Debug)]
pub(crate) struct Started<St> {
    pub restart: Restart<St>,
    pub passes: f64,
    pub kind: Kind,
}

impl<St> Started<St> {
    /// The candidate, run to its end on `n` rows of `d` features with `k`
    /// clusters, at `objective`.
    pub fn finished(self, objective: f64, (n, d, k): (usize, usize, usize)) -> Finished<St> {
        Finished {
            index: self.restart.index(),
            objective,
            passes: self.passes + self.restart.passes(n, d, k),
            restart: Some(self.restart),
            kind: self.kind,
        }
    }
}

/// A member of the population: a finished candidate kept.
#[derive(Debug)]
struct Member<St> {
    index: usize,
    objective: f64,
    restart: Restart<St>,
}

/// What the search does.
#[derive(Debug, Clone, Copy)]
enum Mode {
    /// These restarts, in one batch.
    Count(usize),
    /// Restarts, then generations of children, within a budget.
    Population(Plan),
}

/// How a population search runs (`"auto"` and `"best"` differ only here).
#[derive(Debug, Clone, Copy)]
struct Plan {
    /// The work it may spend, in passes ([`defaults::pass_work`]).
    budget: f64,
    /// Restarts before children, and the most members kept.
    population: usize,
    /// Children of one generation, at most.
    generation: usize,
    /// Children in a row that lower nothing, after which it ends.
    stall: usize,
    /// A shorter stall that ends it once a share of the budget is spent,
    /// where it is also as long as the search before the best was found
    /// ([`AUTO_STALL`]).
    short_stall: Option<(usize, f64)>,
    /// Whether a batch is cut to what the budget has room for (else a batch
    /// runs whole once begun, and the budget is checked between batches).
    fit_batches: bool,
    /// Whether the search ends before any child where every restart of the
    /// population ended at one optimum ([`Search::restarts_agree`]).
    ends_on_agreement: bool,
    /// The budget, at least, once the finished candidates disagree
    /// ([`Search::candidates_disagree`]).
    rugged_budget: Option<f64>,
    k: usize,
}

/// The state of a search (module documentation).
#[derive(Debug)]
pub(crate) struct Search<St> {
    mode: Mode,
    seed: u64,
    /// The objective of every finished candidate, by index.
    objectives: Vec<f64>,
    /// The members kept, in no particular order: the best one (a given
    /// number of restarts), or the population.
    members: Vec<Member<St>>,
    /// Passes spent by the finished candidates: the restarts', the
    /// children's.
    spent: (f64, f64),
    /// Restarts and children finished.
    finished: (usize, usize),
    /// The fresh restarts' objectives, in index order.
    restart_objectives: Vec<f64>,
    /// Candidates handed out so far (the next one's index).
    issued: usize,
    /// Children in a row that did not lower the best objective.
    stall: usize,
    /// The index of the candidate that last lowered the best objective
    /// (beyond [`AGREE_REL`]).
    lowered_at: usize,
    /// Generations of children handed out.
    generations: u64,
    /// The candidate descended on a sample first, until it is handed out,
    /// and what it cost once finished (outside the budget).
    seeded: Option<Seeded>,
    seeded_passes: f64,
    done: bool,
}

impl<St: Clone> Search<St> {
    /// The search `params` ask for on data of `n` rows and `d` features,
    /// with the candidate `seeded` (a population search runs it beside its
    /// first restart).
    pub fn new(params: &ValidParams, n: usize, d: usize, seeded: Option<Seeded>) -> Self {
        let k = params.k();
        let mode = match params.n_init() {
            NInit::Count(count) => Mode::Count(count),
            NInit::Fast => Mode::Count(1),
            // Where size bounds bind, independent restarts
            // ([`defaults::bounded_restarts`]).
            NInit::Auto if params.size_bounds(n).is_some() => {
                Mode::Count(defaults::bounded_restarts(n, d, k))
            }
            // Where the sample was searched ([`defaults::sample_searched`]),
            // its candidate is the search: it spent the budget there, at an
            // eighth of the cost of each candidate, and is descended once on
            // all rows.
            NInit::Auto if seeded.is_some() && defaults::sample_searched(n, d, k) => Mode::Count(0),
            NInit::Auto => Mode::Population(Plan {
                budget: params.auto_budget(n, d),
                population: AUTO_POPULATION,
                generation: AUTO_GENERATION,
                stall: AUTO_STALL_LONG,
                short_stall: Some((AUTO_STALL, AUTO_STALL_FROM_SHARE)),
                fit_batches: true,
                ends_on_agreement: true,
                rugged_budget: Some(AUTO_RUGGED_PASSES),
                k,
            }),
            NInit::Best => Mode::Population(Plan {
                budget: defaults::best_budget(n, d, k),
                population: BEST_POPULATION,
                generation: BEST_GENERATION,
                stall: BEST_STALL,
                short_stall: None,
                fit_batches: false,
                ends_on_agreement: false,
                rugged_budget: None,
                k,
            }),
        };
        Search {
            mode,
            seed: params.seed(),
            objectives: Vec::new(),
            members: Vec::new(),
            spent: (0.0, 0.0),
            finished: (0, 0),
            restart_objectives: Vec::new(),
            issued: 0,
            stall: 0,
            lowered_at: 0,
            generations: 0,
            seeded,
            seeded_passes: 0.0,
            done: false,
        }
    }

    /// The candidates to run next, or `None` once the search is over.
    pub fn next_batch(&mut self) -> Option<Vec<Spec<St>>> {
        if self.done {
            return None;
        }
        let batch = match self.mode {
            Mode::Count(count) => {
                self.done = true;
                let mut batch = self.fresh(count);
                self.push_seeded(&mut batch);
                batch
            }
            Mode::Population(plan) => self.next_of(plan),
        };
        if batch.is_empty() {
            self.done = true;
            return None;
        }
        Some(batch)
    }

    /// The next batch of a population search: the first restart alone (with
    /// the seeded candidate, if any; its cost says what the budget has room
    /// for), the rest of the population
    /// together, then generations of children, each cut (with
    /// `fit_batches`) to what the budget has room for at what candidates of
    /// its kind have cost so far, and none once the budget is spent or the
    /// children have stalled.
    fn next_of(&mut self, mut plan: Plan) -> Vec<Spec<St>> {
        if let Some(rugged) = plan.rugged_budget {
            if self.candidates_disagree() {
                plan.budget = plan.budget.max(rugged);
            }
        }
        let spent = self.spent.0 + self.spent.1;
        let stalled = self.stall >= plan.stall
            || plan.short_stall.is_some_and(|(short, share)| {
                spent >= share * plan.budget && self.stall >= short.max(self.lowered_at)
            });
        if self.issued > 0 && (spent >= plan.budget || stalled) {
            return Vec::new();
        }
        // Candidates of the next kind that fit in the rest of the budget:
        // a child is priced at the children's mean, the first ones at half
        // a restart's (they keep most of a solution).
        let room = |mean: f64, most: usize| -> usize {
            if !plan.fit_batches {
                return most;
            }
            let fits = ((plan.budget - spent) / mean.max(f64::MIN_POSITIVE)).floor();
            if fits >= most as f64 {
                most
            } else if fits >= 1.0 {
                fits as usize
            } else {
                0
            }
        };
        let restart_cost = self.spent.0 / self.finished.0.max(1) as f64;
        if self.issued == 0 {
            let first = if plan.fit_batches { 1 } else { plan.population };
            let mut batch = self.fresh(first);
            // The seeded candidate runs beside the first restart, outside
            // the budget ([`Kind::Seeded`]).
            self.push_seeded(&mut batch);
            return batch;
        }
        if self.finished.0 < plan.population && self.finished.1 == 0 {
            let count = room(restart_cost, plan.population - self.finished.0);
            return self.fresh(count);
        }
        if plan.ends_on_agreement && self.finished.1 == 0 && self.restarts_agree(plan.population) {
            return Vec::new();
        }
        let child_cost = if self.finished.1 > 0 {
            self.spent.1 / self.finished.1 as f64
        } else {
            restart_cost / 2.0
        };
        let count = room(child_cost, plan.generation);
        self.children(plan.k, count)
    }

    /// The seeded candidate, if it was not handed out yet, at the next
    /// index of `batch`.
    fn push_seeded(&mut self, batch: &mut Vec<Spec<St>>) {
        if let Some(seeded) = self.seeded.take() {
            batch.push(Spec::Seeded {
                index: self.issued,
                seeded,
            });
            self.issued += 1;
        }
    }

    /// `count` fresh restarts, the next indices.
    fn fresh(&mut self, count: usize) -> Vec<Spec<St>> {
        let first = self.issued;
        self.issued += count;
        (first..self.issued).map(Spec::Fresh).collect()
    }

    /// A generation of `count` children: each of a parent drawn by a
    /// tournament of two members (the lower objective wins), with between
    /// one and a fifth of its `k` centroids moved.
    fn children(&mut self, k: usize, count: usize) -> Vec<Spec<St>> {
        if count == 0 || self.members.is_empty() {
            return Vec::new();
        }
        let mut rng = Xoshiro256PlusPlus::stream(self.seed, self.generations, Stream::Search);
        self.generations += 1;
        let most_moved = (k / 5).max(1);
        let size = self.members.len();
        (0..count)
            .map(|_| {
                let (a, b) = (rng.below(size), rng.below(size));
                let parent = if self.members[b].objective < self.members[a].objective {
                    b
                } else {
                    a
                };
                let moved = 1 + rng.below(most_moved);
                let index = self.issued;
                self.issued += 1;
                Spec::Child {
                    index,
                    parent: self.members[parent].restart.part.clone(),
                    moved,
                }
            })
            .collect()
    }

    /// Takes the finished candidates of a batch (any order), in index order.
    pub fn accept(&mut self, mut batch: Vec<Finished<St>>) {
        batch.sort_by_key(|f| f.index);
        for f in batch {
            if self.objectives.len() <= f.index {
                self.objectives.resize(f.index + 1, f64::NAN);
            }
            self.objectives[f.index] = f.objective;
            let best_before = self.best_objective();
            match f.kind {
                Kind::Child => {
                    self.spent.1 += f.passes;
                    self.finished.1 += 1;
                }
                Kind::Restart => {
                    self.spent.0 += f.passes;
                    self.finished.0 += 1;
                    self.restart_objectives.push(f.objective);
                }
                Kind::Seeded => self.seeded_passes = f.passes,
            }
            if let Some(restart) = f.restart {
                self.keep(Member {
                    index: f.index,
                    objective: f.objective,
                    restart,
                });
            }
            // (With no member yet the best objective is infinite, so the
            // first candidate lowers it.)
            let lowered = self.best_objective() < best_before * (1.0 - AGREE_REL);
            if lowered {
                self.lowered_at = f.index;
            }
            if f.kind == Kind::Child {
                self.stall = if lowered { 0 } else { self.stall + 1 };
            }
        }
    }

    /// Keeps `m` among the members: as the one best (lowest objective, ties
    /// to the lowest index), or in the population (in the place of its
    /// worst member, where `m` is lower and not the same optimum as a
    /// member's).
    fn keep(&mut self, m: Member<St>) {
        let capacity = match self.mode {
            Mode::Population(plan) => plan.population,
            Mode::Count(_) => 1,
        };
        if self.members.len() < capacity {
            self.members.push(m);
            return;
        }
        let same_optimum = |o: f64| (o - m.objective).abs() <= AGREE_REL * o.abs();
        if capacity > 1 && self.members.iter().any(|x| same_optimum(x.objective)) {
            return;
        }
        let worst = (0..self.members.len())
            .reduce(|a, b| {
                if lower(&self.members[a], &self.members[b]) {
                    b
                } else {
                    a
                }
            })
            .unwrap_or(0);
        if lower(&m, &self.members[worst]) {
            self.members[worst] = m;
        }
    }

    /// Whether the first `population` independent restarts (all finished)
    /// ended at one optimum: every objective within [`AGREE_REL`] of the
    /// lowest. From starts drawn independently
    /// that is the sign of a solved problem, where children would spend the
    /// budget finding the same optimum again; where they disagree the
    /// landscape has several optima and the children search it.
    fn restarts_agree(&self, population: usize) -> bool {
        let restarts = self
            .restart_objectives
            .get(..population)
            .unwrap_or_default();
        let lowest = restarts.iter().copied().fold(f64::INFINITY, f64::min);
        restarts.len() == population
            && population > 1
            && restarts
                .iter()
                .all(|&o| (o - lowest).abs() <= AGREE_REL * lowest.abs())
    }

    /// Whether the finished candidates ended further apart than
    /// [`RUGGED_REL`] of the lowest: the landscape has optima far enough
    /// apart that the default's result depends on which one it finds.
    fn candidates_disagree(&self) -> bool {
        let finished = self.objectives.iter().filter(|o| !o.is_nan());
        let (lowest, highest) = finished.fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), &o| {
            (a.min(o), b.max(o))
        });
        highest - lowest > RUGGED_REL * lowest.abs()
    }

    /// The lowest objective kept (infinite before any).
    fn best_objective(&self) -> f64 {
        self.members
            .iter()
            .map(|m| m.objective)
            .fold(f64::INFINITY, f64::min)
    }

    /// Whether the search keeps only its best candidate (a given number of
    /// restarts, `"auto"`): then a batch's other candidates need not be
    /// held until it ends.
    pub fn keeps_one(&self) -> bool {
        matches!(self.mode, Mode::Count(_))
    }

    /// Whether the search is over.
    pub fn is_done(&self) -> bool {
        self.done
    }

    /// The best candidate (lowest objective, ties to the lowest index), its
    /// index and every candidate's objective; `None` before any finished.
    pub fn into_best(self) -> Option<(Restart<St>, usize, Vec<f64>)> {
        let objectives = self.objectives;
        let best = self
            .members
            .into_iter()
            .reduce(|a, b| if lower(&b, &a) { b } else { a })?;
        Some((best.restart, best.index, objectives))
    }

    /// The best candidate so far, by reference (see [`Search::into_best`]).
    pub fn best(&self) -> Option<(&Restart<St>, usize, f64)> {
        let best = self
            .members
            .iter()
            .reduce(|a, b| if lower(b, a) { b } else { a })?;
        Some((&best.restart, best.index, best.objective))
    }

    /// Every finished candidate's objective, by index.
    pub fn objectives(&self) -> &[f64] {
        &self.objectives
    }

    /// The passes the finished candidates cost, together (the seeded one's
    /// too).
    pub fn spent(&self) -> f64 {
        self.spent.0 + self.spent.1 + self.seeded_passes
    }
}

/// Whether `a` ranks before `b`: lower objective, ties to the lower index.
fn lower<St>(a: &Member<St>, b: &Member<St>) -> bool {
    a.objective < b.objective || (a.objective == b.objective && a.index < b.index)
}

/// The passes a fresh restart's start on `n` rows in `d` dimensions
/// costs: k-means++ evaluates `2 + ln k` candidates per centre against the
/// rows it is drawn from, then assigns every row
/// ([`plus_plus::start_passes`]); a start by centroids assigns every row
/// once.
pub(crate) fn start_passes(params: &ValidParams, n: usize, d: usize) -> f64 {
    match params.init() {
        Init::KMeansPlusPlus => plus_plus::start_passes(n, params.k(), d),
        Init::Forgy | Init::Centroids(_) => 1.0,
        Init::RandomPartition => 0.0,
    }
}

/// The passes a child's start costs: every point's cost in its parent, and
/// the assignment to the moved centroids.
pub(crate) const CHILD_START_PASSES: f64 = 2.0;

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;
    use crate::params::Params;
    use ndarray::Array2;

    /// A finished fresh restart or seeded candidate, its state not kept.
    fn done(index: usize, objective: f64, kind: Kind) -> Finished<()> {
        Finished {
            index,
            objective,
            passes: 30.0,
            restart: None,
            kind,
        }
    }

    /// On a large problem (a budget of 25 passes) the seeded candidate runs
    /// beside the first restart, outside the budget. Where the two end
    /// within a tenth of a percent of each other the search is over; where
    /// they end further apart, it goes on with the rest of the population
    /// on the rugged budget.
    #[test]
    fn disagreeing_candidates_raise_the_budget_to_the_rugged_one() {
        let params = Params::new(16).seed(0).check().unwrap();
        assert_eq!(defaults::auto_budget(40_000, 8, 16), 25.0);
        for (second, goes_on) in [
            (1.0 + 0.5 * RUGGED_REL, false),
            (1.0 + 2.0 * RUGGED_REL, true),
        ] {
            let seeded = Seeded {
                centroids: Array2::zeros((16, 8)),
                passes: 4.0,
            };
            let mut search: Search<()> = Search::new(&params, 40_000, 8, Some(seeded));
            let first = search.next_batch().unwrap();
            assert!(matches!(
                first[..],
                [Spec::Fresh(0), Spec::Seeded { index: 1, .. }]
            ));
            search.accept(vec![
                done(1, second, Kind::Seeded),
                done(0, 1.0, Kind::Restart),
            ]);
            let next = search.next_batch();
            assert_eq!(next.is_some(), goes_on, "second at {second}");
            if let Some(batch) = next {
                // Restart 2: one more at 30 passes fits in 75 - 30.
                assert!(matches!(batch[..], [Spec::Fresh(2)]), "{batch:?}");
            }
            // The seeded candidate's passes are outside the budget.
            assert_eq!(search.spent(), 60.0);
        }
    }
}
