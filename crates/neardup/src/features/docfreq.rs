//! Document frequencies of hashed features over a corpus: the collection statistics behind
//! tf-idf weights (SimHash, Tianwang), I-Match's idf band, SpotSigs' idf filter and the
//! rarest-first prefixes of the exact Jaccard joins.
//!
//! Counted in parallel, one map per rayon chunk, then merged: counts are sums, so the result
//! does not depend on the number of threads. Keys are already-mixed 64-bit hashes, so the maps
//! use a pass-through hasher. A document without any feature carries no statistics and is not
//! counted in N. The same statistics can come from a reference collection instead
//! ([`super::statistics`], `idf_from`).

use rayon::prelude::*;

use crate::hash::HashedKeyMap;

/// How many documents contain each feature, and how many documents there are.
#[derive(Debug, Clone, Default)]
pub struct DocFreq {
    counts: HashedKeyMap<u32>,
    docs: usize,
}

impl DocFreq {
    /// Counts over `items`; `features` appends one item's feature hashes to the buffer (repeats
    /// allowed: a feature counts once per item). The buffer is reused, not allocated per item.
    pub fn count<T: Sync>(items: &[T], features: impl Fn(&T, &mut Vec<u64>) + Sync) -> DocFreq {
        DocFreq::count_with(items, || (), |item, _, buf| features(item, buf))
    }

    /// [`DocFreq::count`] with per-thread scratch state made by `init` (a tokenizer's
    /// buffers, say), so extracting features allocates nothing per item.
    pub fn count_with<T: Sync, S: Send>(
        items: &[T],
        init: impl Fn() -> S + Sync,
        features: impl Fn(&T, &mut S, &mut Vec<u64>) + Sync,
    ) -> DocFreq {
        let counts = items
            .par_chunks(1024)
            .fold(
                || (HashedKeyMap::<u32>::default(), Vec::new(), init(), 0usize),
                |(mut map, mut buf, mut state, mut docs), chunk| {
                    for item in chunk {
                        buf.clear();
                        features(item, &mut state, &mut buf);
                        buf.sort_unstable();
                        buf.dedup();
                        docs += !buf.is_empty() as usize;
                        for &f in &buf {
                            *map.entry(f).or_default() += 1;
                        }
                    }
                    (map, buf, state, docs)
                },
            )
            .map(|(map, _, _, docs)| (map, docs))
            .reduce(
                || (HashedKeyMap::default(), 0),
                |(mut a, da), (mut b, db)| {
                    if a.len() < b.len() {
                        std::mem::swap(&mut a, &mut b);
                    }
                    for (f, c) in b {
                        *a.entry(f).or_default() += c;
                    }
                    (a, da + db)
                },
            );
        DocFreq {
            counts: counts.0,
            docs: counts.1,
        }
    }

    /// Statistics from known counts (a reference collection's table).
    pub fn from_counts(counts: impl IntoIterator<Item = (u64, u32)>, docs: usize) -> DocFreq {
        DocFreq {
            counts: counts.into_iter().collect(),
            docs,
        }
    }

    /// Counts over feature sets (or any lists of feature hashes).
    pub fn of_sets<S: AsRef<[u64]> + Sync>(sets: &[S]) -> DocFreq {
        DocFreq::count(sets, |s, buf| buf.extend_from_slice(s.as_ref()))
    }

    /// Documents counted: those with at least one feature.
    pub fn docs(&self) -> usize {
        self.docs
    }

    /// Distinct features seen.
    pub fn len(&self) -> usize {
        self.counts.len()
    }

    /// Whether no feature was seen.
    pub fn is_empty(&self) -> bool {
        self.counts.is_empty()
    }

    /// Documents containing `feature` (0 for a feature never seen).
    pub fn get(&self, feature: u64) -> u32 {
        self.counts.get(&feature).copied().unwrap_or(0)
    }

    /// idf = ln(N / df); 0 for a feature never seen (it carries no corpus evidence).
    pub fn idf(&self, feature: u64) -> f64 {
        match self.get(feature) {
            0 => 0.0,
            df => (self.docs as f64 / df as f64).ln(),
        }
    }

    /// Smoothed idf = ln(1 + N / df) (never 0 for a seen feature): a feature in every document
    /// still counts a little, so weights stay meaningful on a corpus of two documents, where
    /// plain idf would zero every shared feature. 0 for a feature never seen.
    pub fn smooth_idf(&self, feature: u64) -> f64 {
        match self.get(feature) {
            0 => 0.0,
            df => (1.0 + self.docs as f64 / df as f64).ln(),
        }
    }

    /// Every (feature, document frequency), in no particular order.
    pub fn iter(&self) -> impl Iterator<Item = (u64, u32)> + '_ {
        self.counts.iter().map(|(&f, &c)| (f, c))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Oracle: a sequential count with a standard map, on sets with repeats.
    #[test]
    fn equals_sequential_count_whatever_the_thread_count() {
        let mut rng = crate::hash::SplitMix64::new(11);
        let sets: Vec<Vec<u64>> = (0..5000)
            .map(|_| (0..rng.below(40)).map(|_| rng.below(300)).collect())
            .collect();
        let nonempty = sets.iter().filter(|s| !s.is_empty()).count();
        assert!(nonempty < 5000, "the seed gives some empty sets");
        let mut oracle = std::collections::HashMap::new();
        for s in &sets {
            let mut u = s.clone();
            u.sort_unstable();
            u.dedup();
            for f in u {
                *oracle.entry(f).or_insert(0u32) += 1;
            }
        }
        for threads in [1, 2, 3] {
            let pool = rayon::ThreadPoolBuilder::new()
                .num_threads(threads)
                .build()
                .unwrap();
            let df = pool.install(|| DocFreq::of_sets(&sets));
            assert_eq!(
                df.docs(),
                nonempty,
                "documents without features are not counted"
            );
            assert_eq!(df.len(), oracle.len());
            for (&f, &c) in &oracle {
                assert_eq!(df.get(f), c, "feature {f}, {threads} threads");
            }
        }
        let df = DocFreq::of_sets(&sets);
        assert_eq!(df.get(1_000_000), 0);
        assert_eq!(df.idf(1_000_000), 0.0);
        let f = *oracle.keys().next().unwrap();
        assert!((df.idf(f) - (nonempty as f64 / oracle[&f] as f64).ln()).abs() < 1e-12);
    }
}
