//! Counting distinct values in fixed memory: HyperLogLog (Flajolet, Fusy, Gandouet & Meunier,
//! "HyperLogLog: the analysis of a near-optimal cardinality estimation algorithm", AofA 2007),
//! with linear counting below 2.5 m (their §4 small-range correction) and 64-bit hashes (no
//! large-range correction is needed, Heule et al. 2013 §5.1).
//!
//! What a join uses it for: how many distinct candidate pairs a corpus gives, when holding
//! them would pass the memory limit — so the refusal can name the limit that takes them.

use crate::hash::mix64;

/// Bits of the hash that choose a register.
const PRECISION: u32 = 14;
/// Registers (m = 2^14: 16 KiB, a relative standard error of 1.04/√m ≈ 0.81 %).
const REGISTERS: usize = 1 << PRECISION;

/// A HyperLogLog sketch of the `u64` values inserted.
#[derive(Debug, Clone)]
pub struct DistinctCount {
    registers: Vec<u8>,
}

impl Default for DistinctCount {
    fn default() -> Self {
        Self::new()
    }
}

impl DistinctCount {
    /// An empty sketch.
    pub fn new() -> Self {
        DistinctCount {
            registers: vec![0; REGISTERS],
        }
    }

    /// Adds `value` (hashed by [`mix64`], a bijection: distinct values stay distinct).
    #[inline]
    pub fn insert(&mut self, value: u64) {
        let h = mix64(value);
        let register = (h >> (64 - PRECISION)) as usize;
        // The rank of the first 1 bit of the rest, bounded by a stop bit.
        let rest = (h << PRECISION) | (1 << (PRECISION - 1));
        let rank = rest.leading_zeros() as u8 + 1;
        let r = &mut self.registers[register];
        *r = (*r).max(rank);
    }

    /// The estimated number of distinct values inserted.
    pub fn estimate(&self) -> f64 {
        let m = REGISTERS as f64;
        let alpha = 0.7213 / (1.0 + 1.079 / m);
        let sum: f64 = self
            .registers
            .iter()
            .map(|&r| f64::from(-i32::from(r)).exp2())
            .sum();
        let raw = alpha * m * m / sum;
        let empty = self.registers.iter().filter(|&&r| r == 0).count();
        if raw <= 2.5 * m && empty > 0 {
            m * (m / empty as f64).ln()
        } else {
            raw
        }
    }

    /// The relative standard error of [`DistinctCount::estimate`]: 1.04/√m.
    pub fn relative_standard_error() -> f64 {
        1.04 / (REGISTERS as f64).sqrt()
    }

    /// An estimate that the true count exceeds with probability below about 0.1 %: the
    /// estimate raised by three standard errors.
    pub fn upper_bound(&self) -> u64 {
        (self.estimate() * (1.0 + 3.0 * Self::relative_standard_error())).ceil() as u64
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::hash::SplitMix64;

    /// Against the exact count (the drawn values sorted and deduplicated), on values drawn
    /// with repeats: within four standard errors at every size, from linear counting to the
    /// raw estimate.
    #[test]
    fn estimate_is_within_its_standard_error_of_the_exact_count() {
        let seed = 20_261_128;
        println!("seed {seed}");
        let mut rng = SplitMix64::new(seed);
        let se = DistinctCount::relative_standard_error();
        for range in [1u64, 10, 1_000, 10_000, 40_000, 100_000, 1_000_000] {
            let mut sketch = DistinctCount::new();
            let base = rng.next_u64();
            let mut drawn: Vec<u64> = (0..3 * range)
                .map(|_| base.wrapping_add(rng.below(range)))
                .collect();
            drawn.iter().for_each(|&v| sketch.insert(v));
            drawn.sort_unstable();
            drawn.dedup();
            let exact = drawn.len() as f64;
            let got = sketch.estimate();
            let error = (got - exact).abs() / exact;
            println!("{range}: estimate {got:.0}, exact {exact}, error {error:.4}");
            assert!(
                error <= 4.0 * se || (got - exact).abs() <= 1.0,
                "seed {seed}: {exact} distinct estimated {got}"
            );
            assert!(
                sketch.upper_bound() as f64 >= exact,
                "seed {seed}: bound below {exact}"
            );
        }
    }

    /// Exact counts of distinct values, hashed inserts of sequential values.
    #[test]
    fn estimate_of_distinct_sequential_values_and_its_upper_bound() {
        for n in [0u64, 1, 2, 100, 5_000, 50_000, 2_000_000] {
            let mut sketch = DistinctCount::new();
            for v in 0..n {
                sketch.insert(v);
                sketch.insert(v);
            }
            let got = sketch.estimate();
            let se = DistinctCount::relative_standard_error();
            assert!(
                (got - n as f64).abs() <= 4.0 * se * n as f64 + 1.0,
                "{n} → {got}"
            );
            assert!(
                sketch.upper_bound() >= n,
                "{n}: bound {}",
                sketch.upper_bound()
            );
        }
    }
}
