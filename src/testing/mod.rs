//! Scaffolding of the tests and the benchmarks, not part of the API: test
//! data ([`testdata`]) and the whole-fit equivalence tests of the
//! accelerated engine against the plain definitions (`equiv`).

#[cfg(test)]
mod equiv;
pub(crate) mod testdata;
