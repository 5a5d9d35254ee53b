//! A named, pinned random generator so that results never change when a
//! dependency upgrades: xoshiro256++ (Blackman & Vigna, 2019), seeded through
//! SplitMix64. Each restart and each purpose (initialisation, visiting order)
//! gets its own stream derived from `(seed, restart, purpose)`, which is what
//! makes multi-start results independent of the thread count and lets
//! Hartigan and Smartigan share starts and permutations restart by restart.

/// SplitMix64 step: used only to expand seeds into generator states.
fn splitmix64(state: &mut u64) -> u64 {
    *state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
    let mut z = *state;
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// The purposes a restart draws randomness for. Separate streams keep the
/// visiting order of sweep `t` independent of how many numbers the
/// initialisation consumed (k-means++ and random partition differ there).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Stream {
    Init = 1,
    Order = 2,
    /// The visiting orders of a path's descent at one `k` ([`crate::fit::path`];
    /// the "restart" is then `k`).
    PathOrder = 3,
    /// The parents and sizes of one generation of the best-effort search's
    /// children ([`crate::fit::search`]; the "restart" is the generation).
    Search = 4,
    /// Which centroids a child moves, and where ([`crate::fit::search`]; the
    /// "restart" is the child's index).
    Child = 5,
    /// The rows of the sample a candidate descends on first
    /// ([`crate::fit::sample`]; the "restart" is 0).
    Sample = 6,
}

/// xoshiro256++ generator.
///
/// ```
/// use smartigan::rng::Xoshiro256PlusPlus;
/// let mut a = Xoshiro256PlusPlus::seed_from_u64(42);
/// let mut b = Xoshiro256PlusPlus::seed_from_u64(42);
/// assert_eq!(a.next_u64(), b.next_u64());
/// let die = a.below(6);
/// assert!(die < 6);
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Xoshiro256PlusPlus {
    s: [u64; 4],
}

impl Xoshiro256PlusPlus {
    /// Expands a 64-bit seed into a full state with SplitMix64, as the
    /// generator's authors recommend.
    pub fn seed_from_u64(seed: u64) -> Self {
        let mut sm = seed;
        let s = [
            splitmix64(&mut sm),
            splitmix64(&mut sm),
            splitmix64(&mut sm),
            splitmix64(&mut sm),
        ];
        Self { s }
    }

    /// Creates a generator with an explicit state (the test vector).
    #[cfg(test)]
    fn from_state(s: [u64; 4]) -> Self {
        Self { s }
    }

    /// The independent stream of `restart` for `purpose`, derived from `seed`.
    pub(crate) fn stream(seed: u64, restart: u64, purpose: Stream) -> Self {
        let mut mix = seed;
        let a = splitmix64(&mut mix);
        let mut mix = a ^ restart.wrapping_mul(0xD605_BBB5_8C8A_BBB7);
        let b = splitmix64(&mut mix);
        Self::seed_from_u64(b ^ (purpose as u64).wrapping_mul(0xA24B_AED4_963E_E407))
    }

    /// Next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        let s = &mut self.s;
        let result = s[0].wrapping_add(s[3]).rotate_left(23).wrapping_add(s[0]);
        let t = s[1] << 17;
        s[2] ^= s[0];
        s[3] ^= s[1];
        s[1] ^= s[2];
        s[0] ^= s[3];
        s[2] ^= t;
        s[3] = s[3].rotate_left(45);
        result
    }

    /// Uniform integer in `0..n` (`n > 0`) without modulo bias (Lemire's
    /// multiply-and-reject method).
    pub fn below(&mut self, n: usize) -> usize {
        debug_assert!(n > 0);
        let n = n as u64;
        let mut m = u128::from(self.next_u64()) * u128::from(n);
        if (m as u64) < n {
            let threshold = n.wrapping_neg() % n;
            while (m as u64) < threshold {
                m = u128::from(self.next_u64()) * u128::from(n);
            }
        }
        (m >> 64) as usize
    }

    /// Uniform float in `[0, 1)` with 53 random bits.
    pub fn unit_f64(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 * (1.0 / (1u64 << 53) as f64)
    }

    /// Fisher–Yates shuffle, drawing from the last position down.
    pub fn shuffle<X>(&mut self, items: &mut [X]) {
        for i in (1..items.len()).rev() {
            let j = self.below(i + 1);
            items.swap(i, j);
        }
    }
}

/// A seed drawn from the operating system's hashing entropy and the clock,
/// for `seed = None` (e.g. `let seed = smartigan::rng::entropy_seed();`).
/// The seed actually used is reported in the result so
/// that such a run can be repeated.
pub fn entropy_seed() -> u64 {
    use std::hash::{BuildHasher, Hasher};
    let mut h = std::collections::hash_map::RandomState::new().build_hasher();
    if let Ok(t) = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH) {
        h.write_u128(t.as_nanos());
    }
    h.write_u32(std::process::id());
    h.finish()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn xoshiro_reference_output() {
        // With state [1, 2, 3, 4] the first output is rotl(1 + 4, 23) + 1.
        let mut g = Xoshiro256PlusPlus::from_state([1, 2, 3, 4]);
        assert_eq!(g.next_u64(), 41_943_041);
    }

    #[test]
    fn streams_differ_and_repeat() {
        let a = Xoshiro256PlusPlus::stream(7, 0, Stream::Init).next_u64();
        let b = Xoshiro256PlusPlus::stream(7, 1, Stream::Init).next_u64();
        let c = Xoshiro256PlusPlus::stream(7, 0, Stream::Order).next_u64();
        let a2 = Xoshiro256PlusPlus::stream(7, 0, Stream::Init).next_u64();
        assert_ne!(a, b);
        assert_ne!(a, c);
        assert_eq!(a, a2);
    }

    #[test]
    fn below_is_in_range_and_roughly_uniform() {
        let mut g = Xoshiro256PlusPlus::seed_from_u64(3);
        let mut counts = [0usize; 3];
        for _ in 0..30_000 {
            counts[g.below(3)] += 1;
        }
        for c in counts {
            assert!((9_000..11_000).contains(&c), "{counts:?}");
        }
    }

    #[test]
    fn shuffle_is_a_permutation() {
        let mut g = Xoshiro256PlusPlus::seed_from_u64(5);
        let mut v: Vec<usize> = (0..100).collect();
        g.shuffle(&mut v);
        let mut s = v.clone();
        s.sort_unstable();
        assert_eq!(s, (0..100).collect::<Vec<_>>());
        assert_ne!(v, s);
    }
}
