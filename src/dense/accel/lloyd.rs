//! The accelerated Lloyd assignment: every point's nearest centroid with
//! exactly the plain search's answers, skipping points whose bounds prove
//! they keep their label and screening the others by blocked products.

use super::block::{max_block_rows, screened_candidates, screened_min, Block};
use super::bounds::{rounding_gamma, DOWN, UP};
use super::panel::Panel;
use super::Cache;
use crate::data::{sq_dist, Data, Scalar};
use crate::engine::partition::Partition;
use rayon::prelude::*;
use std::sync::atomic::{AtomicBool, Ordering};

/// One Lloyd iteration: every point to its nearest centroid (ties keep the
/// current label), then all centroids recomputed; empty clusters are refilled
/// deterministically. Returns the number of labels that changed. The
/// assignment skips points whose bounds from the previous iteration prove
/// they keep their label, screens the others by blocked products and
/// decides exactly ([`assign_nearest_bounded`]), so it equals
/// the plain one.
pub(crate) fn lloyd_iteration<T: Scalar>(
    p: &mut Partition,
    data: &Data<'_, T>,
    cache: &mut Cache,
    spare_threads: bool,
) -> usize {
    let mut bounds = cache.lloyd.take();
    let new_labels = assign_nearest_bounded(data, &p.centroids, p.k, &p.stats.labels, &mut bounds);
    cache.lloyd = bounds;
    let mut changed = 0;
    for (label, new) in p.stats.labels.iter_mut().zip(new_labels) {
        changed += usize::from(new != *label);
        *label = new;
    }
    p.recompute(data, spare_threads);
    changed + p.fill_empty_clusters(data, spare_threads)
}

/// Nearest centroid for every point, with exactly the reference's answers
/// (`Partition::nearest`: ties keep `current[i]` when given, else go to the
/// lowest index). Parallel over fixed chunks of points; chunks not begun
/// once `cancel` is set are left at label 0.
pub(crate) fn assign_nearest<T: Scalar>(
    data: &Data<'_, T>,
    centroids: &[f64],
    k: usize,
    current: Option<&[usize]>,
    cancel: &AtomicBool,
) -> Vec<usize> {
    let probe = Partition::with_centroids(k, data.d, centroids.to_vec());
    let mut panel = Panel::default();
    panel.pack(centroids, k, data.d, data.max_abs_shifted());
    let mut out = vec![0usize; data.n];
    out.par_chunks_mut(ASSIGN_CHUNK)
        .enumerate()
        .for_each(|(c, labels)| {
            if cancel.load(Ordering::Relaxed) {
                return;
            }
            let start = c * ASSIGN_CHUNK;
            let idx: Vec<usize> = (start..start + labels.len()).collect();
            let mut found = vec![Nearest::default(); idx.len()];
            assign_chunk(data, &probe, &panel, &idx, current, &mut found);
            for (l, f) in labels.iter_mut().zip(&found) {
                *l = f.label;
            }
        });
    out
}

/// Hamerly-style bounds of the accelerated Lloyd iteration, valid for the
/// centroids of the last assignment: `upper[i]` is at least the exact
/// distance (not squared) from point `i` to its centroid `label[i]`,
/// `lower[i]` at most its exact distance to every other centroid.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct LloydBounds {
    upper: Vec<f64>,
    lower: Vec<f64>,
    label: Vec<u32>,
    /// The centroids the bounds refer to (`k × d`).
    centroids: Vec<f64>,
    /// Points the last assignment had to evaluate (tests).
    pub evaluated: usize,
}

/// [`assign_nearest`] for a Lloyd iteration, with the same answers, that
/// skips points whose bounds prove their current label is kept.
///
/// After the centroids move by `δ_j` (rounded up), a point of cluster `a`
/// has exact distances `‖x − μ_a‖ ≤ u + δ_a` and `‖x − μ_j‖ ≥ l − max_{j≠a} δ_j`.
/// The reference keeps `a` unless some computed `sq_dist` is strictly below
/// the computed `sq_dist` to `a`; each computed value is within a factor
/// `1 ± γ` of the exact one ([`rounding_gamma`]),
/// so `u²(1 + γ) ≤ l²(1 − γ)` proves it keeps `a`; the test uses `4γ` on
/// both sides to cover its own rounding, and bounds are stored with `2γ`
/// and rounded outwards.
pub(crate) fn assign_nearest_bounded<T: Scalar>(
    data: &Data<'_, T>,
    centroids: &[f64],
    k: usize,
    current: &[usize],
    state: &mut Option<LloydBounds>,
) -> Vec<usize> {
    let (n, d) = (data.n, data.d);
    let gamma = rounding_gamma(d);
    let previous = state
        .take()
        .filter(|b| b.upper.len() == n && b.centroids.len() == k * d && k <= u32::MAX as usize);
    // Per cluster: an upper bound on how far its centroid moved, and the
    // largest such bound over the other clusters.
    let (drift, other_drift) = match &previous {
        Some(b) => {
            let drift: Vec<f64> = (0..k)
                .map(|j| {
                    let (now, then) = (
                        &centroids[j * d..(j + 1) * d],
                        &b.centroids[j * d..(j + 1) * d],
                    );
                    (sq_dist(now, then) * (1.0 + gamma)).sqrt() * UP
                })
                .collect();
            let (mut first, mut second) = ((0.0f64, usize::MAX), 0.0f64);
            for (j, &v) in drift.iter().enumerate() {
                if v > first.0 {
                    second = first.0;
                    first = (v, j);
                } else if v > second {
                    second = v;
                }
            }
            let other = (0..k)
                .map(|j| if j == first.1 { second } else { first.0 })
                .collect();
            (drift, other)
        }
        None => (Vec::new(), Vec::new()),
    };
    let probe = Partition::with_centroids(k, d, centroids.to_vec());
    let mut panel = Panel::default();
    panel.pack(centroids, k, d, data.max_abs_shifted());
    let mut next = LloydBounds {
        upper: vec![0.0; n],
        lower: vec![0.0; n],
        label: vec![0; n],
        centroids: centroids.to_vec(),
        evaluated: 0,
    };
    let mut out = vec![0usize; n];
    let evaluated: usize = out
        .par_chunks_mut(ASSIGN_CHUNK)
        .zip(next.upper.par_chunks_mut(ASSIGN_CHUNK))
        .zip(next.lower.par_chunks_mut(ASSIGN_CHUNK))
        .zip(next.label.par_chunks_mut(ASSIGN_CHUNK))
        .enumerate()
        .map(|(c, (((labels, upper), lower), label))| {
            let start = c * ASSIGN_CHUNK;
            let mut todo = Vec::new();
            for (o, i) in (start..start + labels.len()).enumerate() {
                let a = current[i];
                if let Some(b) = &previous {
                    if b.label[i] as usize == a {
                        let u = (b.upper[i] + drift[a]) * UP;
                        let l = (b.lower[i] - other_drift[a]) * DOWN;
                        if l > 0.0 && u * u * (1.0 + 4.0 * gamma) <= l * l * (1.0 - 4.0 * gamma) {
                            (labels[o], upper[o], lower[o], label[o]) = (a, u, l, a as u32);
                            continue;
                        }
                    }
                }
                todo.push(i);
            }
            let mut found = vec![Nearest::default(); todo.len()];
            assign_chunk(data, &probe, &panel, &todo, Some(current), &mut found);
            for (&i, f) in todo.iter().zip(&found) {
                let o = i - start;
                labels[o] = f.label;
                label[o] = f.label as u32;
                upper[o] = (f.dist * (1.0 + 2.0 * gamma)).sqrt() * UP;
                lower[o] = (f.other * (1.0 - 2.0 * gamma)).max(0.0).sqrt() * DOWN;
            }
            todo.len()
        })
        .sum();
    next.evaluated = evaluated;
    *state = Some(next);
    out
}

/// What the assignment found for one point: the reference's nearest label,
/// its computed `sq_dist`, and a lower bound on the computed `sq_dist` to
/// every other centroid (`+∞` if there is none).
#[derive(Debug, Clone, Copy, Default)]
struct Nearest {
    label: usize,
    dist: f64,
    other: f64,
}

/// Points per parallel task of [`assign_nearest`]. Fixed, though nothing in
/// the result depends on it.
const ASSIGN_CHUNK: usize = 2048;

multiversion!(assign_body, assign_chunk, (data: &Data<'_, T>, probe: &Partition, panel: &Panel, idx: &[usize], current: Option<&[usize]>, found: &mut [Nearest]) -> ());

#[inline(always)]
fn assign_body<T: Scalar>(
    data: &Data<'_, T>,
    probe: &Partition,
    panel: &Panel,
    idx: &[usize],
    current: Option<&[usize]>,
    found: &mut [Nearest],
) {
    let d = data.d;
    let k = probe.k;
    let ones = vec![1.0f32; panel.kp];
    let mut block = Block {
        panel: panel.clone(),
        ..Block::default()
    };
    let mut cand = Vec::with_capacity(k);
    let rows = max_block_rows(panel.kp);
    for (bi, chunk) in idx.chunks(rows).enumerate() {
        block.fill(data, chunk);
        let kp = panel.kp;
        for (q, &i) in chunk.iter().enumerate() {
            let o = bi * rows + q;
            let x = &block.x64[q * d..(q + 1) * d];
            let cur = current.map(|c| c[i]);
            if !block.usable {
                found[o] = nearest_exactly(probe, x, cur);
                continue;
            }
            let a = block.a[q];
            let a32 = a as f32;
            let g = &block.g[q * kp..(q + 1) * kp];
            let m = f64::from(screened_min(&ones, &panel.h, g, a32));
            let e = panel.error_bound(a);
            let limit = m + 2.0 * e;
            cand.clear();
            // The smallest screen of a centroid off the candidate list.
            let outside = screened_candidates(&ones, &panel.h, g, a32, limit, k, &mut cand);
            let (mut best_j, mut best) = match cur {
                Some(r) if cand.contains(&r) => (r, sq_dist(x, probe.centroid(r))),
                _ => (cur.unwrap_or(0), f64::INFINITY),
            };
            // A screen `c` bounds the computed `sq_dist` from below by
            // `(c − e)/half` (`half` is a power of two: exact); candidates
            // are computed below.
            let mut other = (outside - e) / panel.half_scale2();
            for &j in &cand {
                if Some(j) == cur && j == best_j {
                    continue;
                }
                let dist = sq_dist(x, probe.centroid(j));
                if dist < best {
                    // The displaced best is now an other (`+∞` changes nothing).
                    other = other.min(best);
                    best = dist;
                    best_j = j;
                } else {
                    other = other.min(dist);
                }
            }
            found[o] = Nearest {
                label: best_j,
                dist: best,
                other,
            };
        }
    }
}

/// [`Partition::nearest`] with its distance and the smallest other one
/// (every distance exact; for blocks the screen cannot take).
fn nearest_exactly(probe: &Partition, x: &[f64], current: Option<usize>) -> Nearest {
    let label = probe.nearest(x, current);
    let other = (0..probe.k)
        .filter(|&j| j != label)
        .map(|j| sq_dist(x, probe.centroid(j)))
        .fold(f64::INFINITY, f64::min);
    Nearest {
        label,
        dist: sq_dist(x, probe.centroid(label)),
        other,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dense::accel::sweep::tests::random_partition;
    use crate::testing::testdata::blobs;
    use ndarray::Array2;

    /// Accelerated Lloyd iterations (bounds, screen, threads) against the
    /// plain ones, iteration by iteration until nothing changes; returns
    /// whether the bounds skipped points at some iteration.
    #[allow(clippy::unwrap_used)]
    fn check_lloyd_to_convergence<T: Scalar>(x: ndarray::ArrayView2<'_, T>, k: usize) -> bool {
        let data = Data::new(x, None);
        let mut skipped = false;
        for threads in [1, 3] {
            let pool = rayon::ThreadPoolBuilder::new()
                .num_threads(threads)
                .build()
                .unwrap();
            let mut a = random_partition(&data, k, 5);
            let mut b = a.clone();
            let mut cache = Cache::default();
            for it in 0..200 {
                let changed_a = pool.install(|| lloyd_iteration(&mut a, &data, &mut cache, false));
                let changed_b = crate::engine::reference::lloyd_iteration(&mut b, &data, false);
                assert_eq!(
                    a.stats.labels, b.stats.labels,
                    "labels differ after iteration {it}"
                );
                assert_eq!(
                    a.centroids, b.centroids,
                    "centroids differ after iteration {it}"
                );
                assert_eq!(changed_a, changed_b);
                let evaluated = cache.lloyd.as_ref().map_or(data.n, |l| l.evaluated);
                skipped |= evaluated < data.n / 2;
                if changed_a == 0 {
                    break;
                }
            }
        }
        skipped
    }

    #[test]
    fn bounded_lloyd_equals_plain_lloyd_to_convergence() {
        for &(n, d, k) in &[(3000, 4, 12), (1500, 24, 30), (1200, 2, 60)] {
            let x = blobs(n, d, k, (n * d) as u64);
            assert!(
                check_lloyd_to_convergence(x.view(), k),
                "{n}×{d}: nothing skipped"
            );
            assert!(check_lloyd_to_convergence(x.mapv(|v| v as f32).view(), k));
        }
        // Exact duplicates (ties everywhere) and a large offset.
        let x = Array2::from_shape_fn((900, 2), |(i, j)| ((i * (j + 3)) % 7) as f64);
        check_lloyd_to_convergence(x.view(), 5);
        check_lloyd_to_convergence(x.mapv(|v| v * 1e-3 + 1e6).view(), 5);
    }

    #[test]
    fn assign_equals_reference() {
        // k = 600: blocks shorter than MAX_BLOCK (MAX_BLOCK_PRODUCTS binds).
        for (k, centres) in [(9, 9), (600, 40)] {
            let x = blobs(3000, 12, centres, 5);
            let data = Data::new(x.view(), None);
            let p = random_partition(&data, k, 3);
            let mut buf = vec![0.0; data.d];
            let never = AtomicBool::new(false);
            let fast = assign_nearest(&data, &p.centroids, k, Some(&p.stats.labels), &never);
            let fresh = assign_nearest(&data, &p.centroids, k, None, &never);
            for i in 0..data.n {
                data.load_shifted(i, &mut buf);
                assert_eq!(fast[i], p.nearest(&buf, Some(p.stats.labels[i])));
                assert_eq!(fresh[i], p.nearest(&buf, None));
            }
        }
    }
}
