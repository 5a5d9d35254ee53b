//! Checks the crate against `tests/core/fixtures/golden.txt`, written by the
//! independent pure-Python reference `tests/core/fixtures/generate_golden.py`.

use ndarray::Array2;
use smartigan::{Init, Method, Params};

struct Case {
    params: Params,
    restart: usize,
    labels: Vec<usize>,
    history: Vec<f64>,
    moves: Vec<usize>,
    objective: f64,
}

fn numbers<T: std::str::FromStr>(line: &str) -> Vec<T>
where
    T::Err: std::fmt::Debug,
{
    line.split_whitespace()
        .skip(1)
        .map(|v| v.parse().unwrap())
        .collect()
}

fn load() -> (Array2<f64>, Vec<Case>) {
    let text = include_str!("fixtures/golden.txt");
    let mut lines = text.lines();
    let head: Vec<usize> = numbers(lines.next().unwrap());
    let (n, d) = (head[0], head[1]);
    let mut flat = Vec::new();
    for _ in 0..n {
        flat.extend(
            lines
                .next()
                .unwrap()
                .split_whitespace()
                .map(|v| v.parse::<f64>().unwrap()),
        );
    }
    let x = Array2::from_shape_vec((n, d), flat).unwrap();
    let mut cases = Vec::new();
    while let Some(line) = lines.next() {
        let f: Vec<&str> = line.split_whitespace().collect();
        assert_eq!(f[0], "case");
        let init = match f[2] {
            "random-partition" => Init::RandomPartition,
            "forgy" => Init::Forgy,
            _ => Init::KMeansPlusPlus,
        };
        let params = Params::new(f[7].parse().unwrap())
            .method(f[1].parse::<Method>().unwrap())
            .init(init)
            .n_iter(f[3].parse::<usize>().unwrap())
            .schedule(f[4].parse().unwrap(), f[5].parse().unwrap())
            .polish(f[6] == "1")
            // The reference implements the paper's methods; refinement is ours.
            .refine(false)
            .seed(f[8].parse::<u64>().unwrap());
        cases.push(Case {
            params,
            restart: f[9].parse().unwrap(),
            labels: numbers(lines.next().unwrap()),
            history: numbers(lines.next().unwrap()),
            moves: numbers(lines.next().unwrap()),
            objective: numbers::<f64>(lines.next().unwrap())[0],
        });
    }
    (x, cases)
}

#[test]
fn crate_matches_independent_reference() {
    let (x, cases) = load();
    assert_eq!(cases.len(), 14);
    for case in &cases {
        // Run restarts 0..=restart; the fixture restart's objective must
        // match exactly, and its labels/history when it is the best one.
        for threads in [1, 3] {
            let p = case
                .params
                .clone()
                .n_init(case.restart + 1)
                .n_threads(threads);
            let got = p.check().unwrap().fit(&x).unwrap();
            let obj = got.restart_objectives[case.restart];
            assert!(
                (obj - case.objective).abs() <= 1e-12 * case.objective,
                "{:?} restart {}: objective {obj} vs reference {}",
                case.params.method,
                case.restart,
                case.objective
            );
            if got.best_restart == case.restart {
                assert_eq!(got.labels.to_vec(), case.labels, "{:?}", case.params.method);
                assert_eq!(got.moves, case.moves);
                assert_eq!(got.history.len(), case.history.len());
                for (a, b) in got.history.iter().zip(&case.history) {
                    assert!(
                        (a - b).abs() <= 1e-12 * b.abs().max(1e-300),
                        "history {a} vs {b}"
                    );
                }
            }
        }
    }
}
