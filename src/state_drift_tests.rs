//! Long runs do not drift: a million incremental [`Partition::move_point`]
//! updates on data with a 1e8 offset leave sums, centroids and objective
//! where a fresh recomputation puts them.

use super::Partition;
use crate::data::Data;
use crate::rng::Xoshiro256PlusPlus;
use ndarray::Array2;

#[test]
fn a_million_moves_agree_with_a_fresh_recomputation() {
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(1);
    let (n, d, k) = (2000, 3, 7);
    let x = Array2::from_shape_fn((n, d), |_| 1e8 + rng.unit_f64() * 10.0);
    let data = Data::new(x.view(), None);
    let mut p = Partition::from_labels(&data, k, (0..n).map(|i| i % k).collect());
    let mut buf = vec![0.0; d];
    let mut moves = 0;
    while moves < 1_000_000 {
        let (i, to) = (rng.below(n), rng.below(k));
        let from = p.labels[i];
        if from == to || p.counts[from] <= 1 {
            continue;
        }
        data.load_shifted(i, &mut buf);
        p.move_point(i, &buf, 1.0, to);
        moves += 1;
    }
    let mut fresh = p.clone();
    fresh.recompute(&data);
    assert_eq!(p.counts, fresh.counts);
    // The noise spans 10 units; a drift of 1e-9 of that would show.
    for (a, b) in p.centroids.iter().zip(&fresh.centroids) {
        assert!((a - b).abs() <= 1e-8, "centroid drifted: {a} vs {b}");
    }
    let (o1, o2) = (p.objective(&data), fresh.objective(&data));
    assert!((o1 - o2).abs() <= 1e-12 * o2, "objective {o1} vs {o2}");
}
