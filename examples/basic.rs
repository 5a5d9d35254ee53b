//! `cargo run --release --example basic`: Lloyd, Hartigan and Smartigan on
//! the same synthetic data, from the same starts.

use ndarray::Array2;
use smartigan::rng::Xoshiro256PlusPlus;
use smartigan::{Init, Method, Params};

fn main() -> Result<(), smartigan::Error> {
    // 2,000 points around 25 overlapping centres in [0, 5]^5.
    let (n, d, centres) = (2000, 5, 25);
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(1);
    let c: Vec<f64> = (0..centres * d).map(|_| rng.unit_f64() * 5.0).collect();
    let x = Array2::from_shape_fn((n, d), |(i, j)| {
        c[(i % centres) * d + j] + rng.unit_f64() - 0.5
    });

    for method in [Method::Lloyd, Method::Hartigan, Method::Smartigan] {
        let params = Params::new(25)
            .method(method)
            .init(Init::KMeansPlusPlus)
            .n_init(10)
            .seed(7)
            .check()?;
        let r = params.fit(&x)?;
        println!(
            "{method:>9}: objective {:10.3}  sweeps {:3}  converged {}  worst restart {:10.3}",
            r.objective,
            r.n_sweeps,
            r.converged,
            r.restart_objectives
                .iter()
                .cloned()
                .fold(f64::MIN, f64::max)
        );
    }
    Ok(())
}
