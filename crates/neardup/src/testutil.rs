//! Helpers shared by the crate's unit tests.

use crate::hash::SplitMix64;

/// A random pair of sets (of 64-bit hashes) with a prescribed Jaccard coefficient:
/// |A ∩ B| = round(j · union), the rest split evenly between A \ B and B \ A.
pub(crate) fn pair_with_jaccard(
    rng: &mut SplitMix64,
    j: f64,
    union: usize,
) -> (Vec<u64>, Vec<u64>) {
    let inter = (j * union as f64).round() as usize;
    let rest = union - inter;
    let only_a = rest / 2;
    let only_b = rest - only_a;
    let common: Vec<u64> = (0..inter).map(|_| rng.next_u64()).collect();
    let mut a = common.clone();
    let mut b = common;
    a.extend((0..only_a).map(|_| rng.next_u64()));
    b.extend((0..only_b).map(|_| rng.next_u64()));
    (a, b)
}

/// The error message of configuring algorithm `A` with `params` (which must be invalid).
pub(crate) fn param_error<A: crate::detector::Algorithm>(params: serde_json::Value) -> String {
    let map: crate::detector::ParamMap = serde_json::from_value(params).expect("a JSON object");
    crate::detector::Configured::<A>::from_params(&map)
        .expect_err("the parameters are invalid")
        .to_string()
}
