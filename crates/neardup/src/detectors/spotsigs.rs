//! `spotsigs`: SpotSigs (Theobald, Siddharth, Paepcke, SIGIR 2008).
//!
//! # Spots
//! An *antecedent* (by default the authors' released list: articles and forms of be, can,
//! will, have, do, plus a few French/Spanish articles) followed by a chain of `chain`
//! non-antecedent words taken at spot distance `distance` (every d-th non-antecedent word
//! after it). A chain that runs off the end of the document is dropped. Optionally
//! (`idf_filter`) only words with normalized idf in [`min_idf`, `max_idf`] count as chain
//! words. Navigation and boilerplate have few antecedents, so spots come from the prose.
//! Documents with fewer than `min_spots` spots (the authors' default: 4) get no signature and
//! are never reported.
//!
//! # Similarity and index
//! Jaccard of the spot sets (of labelled spot multisets with `multiset = true`), reported when
//! ≥ τ. The join is exact:
//! * **partitioning** (§4.1): since sim(A, B) ≤ |A| / |B| for |A| ≤ |B|, documents are sorted by
//!   signature length and cut into partitions [bᵢ, bᵢ₊₁) with bᵢ₊₁ = ⌊bᵢ/τ⌋ + 1, so a document
//!   can only reach τ with documents of its own or the next partition;
//! * **inverted-index pruning with early termination** (§4.2): per partition pair, an inverted
//!   index over spots ordered rarest first; each document probes only the prefix of its spot
//!   list after which τ is out of reach (prefix filtering), then candidates are verified.
//!
//! It returns exactly the pairs a brute-force all-pairs Jaccard ≥ τ returns (property test).
//! Score: exact Jaccard of the spot sets.

use std::collections::HashMap;

use rayon::prelude::*;
use serde::{Deserialize, Serialize};

use crate::detector::{Algorithm, ScoredPair};
use crate::error::{Error, Result, check_unit_band, check_unit_threshold};
use crate::features::label_occurrences;
use crate::features::similarity::jaccard;
use crate::hash::{hash_bytes, hash_sequence};
use crate::join::{lengths_compatible, prefix_len};
use crate::minhash::lsh::pack;
use crate::text::{Normalization, Tokenizer};

/// The authors' released antecedent list (../shared/PUBLISHED.md).
pub const DEFAULT_ANTECEDENTS: &str = "the,be,is,are,was,will,would,shall,should,can,could,has,have,had,do,did,does,done,un,une,le,la,el,al";

/// Build parameters of `spotsigs`.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(default)]
pub struct SpotSigsParams {
    /// Comma-separated antecedent words (lower case). Default: the authors' list.
    pub antecedents: String,
    /// Chain length c. Default 1.
    pub chain: usize,
    /// Spot distance d. Default 1.
    pub distance: usize,
    /// Documents with fewer spots get no signature. Default 4.
    pub min_spots: usize,
    /// Only words with normalized idf in [min_idf, max_idf] are chain words. Default false.
    pub idf_filter: bool,
    /// Lower idf bound of the chain-word filter. Default 0.2.
    pub min_idf: f64,
    /// Upper idf bound of the chain-word filter. Default 0.8.
    pub max_idf: f64,
    /// Jaccard of spot multisets instead of sets. Default false.
    pub multiset: bool,
    /// Normalization before tokenizing.
    #[serde(flatten)]
    pub normalization: Normalization,
    /// Tokenizer. Default `unicode`.
    pub tokenizer: Tokenizer,
}

impl Default for SpotSigsParams {
    fn default() -> Self {
        SpotSigsParams {
            antecedents: DEFAULT_ANTECEDENTS.into(),
            chain: 1,
            distance: 1,
            min_spots: 4,
            idf_filter: false,
            min_idf: 0.2,
            max_idf: 0.8,
            multiset: false,
            normalization: Normalization::default(),
            tokenizer: Tokenizer::Unicode,
        }
    }
}

/// Query parameters of `spotsigs`.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(default)]
pub struct SpotSigsQuery {
    /// Jaccard threshold τ in (0, 1]. Default 0.85 (the authors' confidence).
    pub threshold: f64,
}

impl Default for SpotSigsQuery {
    fn default() -> Self {
        SpotSigsQuery { threshold: 0.85 }
    }
}

/// Spot signatures per document (empty: no signature).
#[derive(Debug)]
pub struct SpotSigsIndex {
    sets: Vec<Vec<u64>>,
    unsigned: usize,
}

/// SpotSigs.
#[derive(Debug)]
pub struct SpotSigs;

fn antecedent_hashes(list: &str) -> Vec<u64> {
    let mut v: Vec<u64> = list
        .split(',')
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .map(|s| hash_bytes(s.to_lowercase().as_bytes(), 0x5907))
        .collect();
    v.sort_unstable();
    v.dedup();
    v
}

/// The spot signatures of each document (sorted; empty below `min_spots`), as the index
/// stores them.
pub fn spot_sets(p: &SpotSigsParams, docs: &[&str]) -> Vec<Vec<u64>> {
    let antecedents = antecedent_hashes(&p.antecedents);
    let token_lists: Vec<Vec<u64>> = docs
        .par_iter()
        .map_init(String::new, |buf, d| {
            p.normalization.apply_into(d, buf);
            let mut v = Vec::new();
            p.tokenizer
                .for_each_token(buf, |t| v.push(hash_bytes(t.as_bytes(), 0x5907)));
            v
        })
        .collect();
    // Chain words must lie in the idf band when the filter is on.
    let chain_word: Option<crate::hash::HashedKeyMap<bool>> = p.idf_filter.then(|| {
        let df = crate::features::DocFreq::of_sets(&token_lists);
        let n = docs.len() as f64;
        df.iter()
            .map(|(t, c)| {
                let nidf = if n < 2.0 {
                    0.0
                } else {
                    (n / c as f64).ln() / n.ln()
                };
                (t, nidf >= p.min_idf - 1e-12 && nidf <= p.max_idf + 1e-12)
            })
            .collect()
    });
    token_lists
        .par_iter()
        .map(|tokens| {
            let is_antecedent = |t: &u64| antecedents.binary_search(t).is_ok();
            let is_chain_word =
                |t: &u64| !is_antecedent(t) && chain_word.as_ref().is_none_or(|m| m[t]);
            let mut spots = Vec::new();
            for (i, t) in tokens.iter().enumerate() {
                if !is_antecedent(t) {
                    continue;
                }
                let chain = || {
                    tokens[i + 1..]
                        .iter()
                        .filter(|w| is_chain_word(w))
                        .skip(p.distance - 1)
                        .step_by(p.distance)
                        .take(p.chain)
                        .copied()
                };
                // A spot needs a full chain; counted first so nothing is collected per spot.
                if chain().count() == p.chain {
                    spots.push(hash_sequence(*t, chain()));
                }
            }
            if p.multiset {
                label_occurrences(&mut spots);
            } else {
                spots.sort_unstable();
                spots.dedup();
            }
            if spots.len() < p.min_spots {
                spots.clear();
            }
            spots
        })
        .collect()
}

/// Partition start sizes for threshold τ over the (positive) sizes present: b₀ = the smallest,
/// bᵢ₊₁ = ⌊bᵢ/τ⌋ + 1. A set of size s is in the last partition whose start is ≤ s.
pub fn partition_starts(min_size: usize, max_size: usize, tau: f64) -> Vec<usize> {
    let mut starts = vec![min_size.max(1)];
    while *starts.last().expect("non-empty") <= max_size {
        let b = *starts.last().expect("non-empty");
        starts.push(((b as f64 / tau + 1e-9).floor() as usize + 1).max(b + 1));
    }
    starts.pop();
    starts
}

/// Every pair of sets with Jaccard ≥ τ: partitioned, prefix-filtered, exact.
pub fn partitioned_join(sets: &[Vec<u64>], tau: f64) -> Vec<(u64, f64)> {
    let live: Vec<usize> = (0..sets.len()).filter(|&i| !sets[i].is_empty()).collect();
    if live.len() < 2 {
        return Vec::new();
    }
    let (lo, hi) = live.iter().fold((usize::MAX, 0), |(a, b), &i| {
        (a.min(sets[i].len()), b.max(sets[i].len()))
    });
    let starts = partition_starts(lo, hi, tau);
    let part_of = |len: usize| starts.partition_point(|&s| s <= len) - 1;
    let mut members: Vec<Vec<usize>> = vec![Vec::new(); starts.len()];
    for &i in &live {
        members[part_of(sets[i].len())].push(i);
    }
    // Global rarity order for prefixes.
    let df = crate::features::DocFreq::count(&live, |&i, out| out.extend_from_slice(&sets[i]));
    let prefix = |i: usize| {
        let mut v = sets[i].clone();
        v.sort_unstable_by_key(|&s| (df.get(s), s));
        v.truncate(prefix_len(v.len(), tau));
        v
    };
    let prefixes: HashMap<usize, Vec<u64>> = live.par_iter().map(|&i| (i, prefix(i))).collect();
    let mut out: Vec<(u64, f64)> = (0..members.len())
        .into_par_iter()
        .flat_map_iter(|pi| {
            // Index partitions pi and pi + 1; probe with pi.
            let mut index: HashMap<u64, Vec<usize>> = HashMap::new();
            for part in [pi, pi + 1] {
                for &j in members.get(part).map_or(&[][..], Vec::as_slice) {
                    for &s in &prefixes[&j] {
                        index.entry(s).or_default().push(j);
                    }
                }
            }
            let mut found = Vec::new();
            for &i in &members[pi] {
                let mut cands: Vec<usize> = prefixes[&i]
                    .iter()
                    .flat_map(|s| index[s].iter().copied())
                    .filter(|&j| {
                        // Each unordered pair once: within a partition by index, across
                        // partitions always from the lower one.
                        (part_of(sets[j].len()) == pi && j > i) || part_of(sets[j].len()) == pi + 1
                    })
                    .collect();
                cands.sort_unstable();
                cands.dedup();
                for j in cands {
                    if !lengths_compatible(sets[i].len(), sets[j].len(), tau) {
                        continue;
                    }
                    let jac = jaccard(&sets[i], &sets[j]);
                    if jac >= tau {
                        found.push((pack(i.min(j) as u32, i.max(j) as u32), jac));
                    }
                }
            }
            found
        })
        .collect();
    out.sort_unstable_by_key(|p| p.0);
    out
}

impl Algorithm for SpotSigs {
    const NAME: &'static str = "spotsigs";
    const SUMMARY: &'static str =
        "SpotSigs: antecedent + chain spots, partitioned Jaccard join (Theobald et al. SIGIR 2008)";
    type Params = SpotSigsParams;
    type Query = SpotSigsQuery;
    type Index = SpotSigsIndex;

    fn validate(p: &Self::Params, q: &Self::Query) -> Result<()> {
        if antecedent_hashes(&p.antecedents).is_empty() {
            return Err(Error::invalid(
                Self::NAME,
                "antecedents",
                "the antecedent list is empty",
            ));
        }
        if p.chain == 0 {
            return Err(Error::invalid(
                Self::NAME,
                "chain",
                "chain length must be at least 1",
            ));
        }
        if p.distance == 0 {
            return Err(Error::invalid(
                Self::NAME,
                "distance",
                "spot distance must be at least 1",
            ));
        }
        if p.idf_filter {
            check_unit_band(Self::NAME, "min_idf", p.min_idf, p.max_idf)?;
        }
        check_unit_threshold(Self::NAME, "threshold", q.threshold)
    }

    fn build(p: &Self::Params, docs: &[&str]) -> Result<Self::Index> {
        let sets = spot_sets(p, docs);
        let unsigned = sets.iter().filter(|s| s.is_empty()).count();
        Ok(SpotSigsIndex { sets, unsigned })
    }

    fn query(_: &Self::Params, index: &Self::Index, q: &Self::Query) -> Result<Vec<ScoredPair>> {
        Ok(partitioned_join(&index.sets, q.threshold)
            .into_iter()
            .map(|(pair, j)| {
                let (a, b) = crate::minhash::lsh::unpack(pair);
                ScoredPair { a, b, score: j }
            })
            .collect())
    }

    fn score(_: &Self::Params, index: &Self::Index, a: usize, b: usize) -> Option<f64> {
        Some(jaccard(&index.sets[a], &index.sets[b]))
    }

    fn index_bytes(index: &Self::Index) -> usize {
        index.sets.iter().map(|s| s.capacity() * 8 + 24).sum()
    }

    fn stats(index: &Self::Index) -> crate::detector::ParamMap {
        let mut m = crate::detector::ParamMap::new();
        m.insert("unsigned_docs".into(), index.unsigned.into());
        m
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::detector::{Configured, Detector, ParamMap};
    use crate::join::jaccard_join_brute;
    use proptest::prelude::*;
    use serde_json::json;

    proptest! {
        // Oracle: the partitioned, pruned join equals brute-force all-pairs Jaccard ≥ τ.
        #[test]
        fn join_equals_brute_force(
            raw in prop::collection::vec(prop::collection::btree_set(0u64..15, 0..10), 0..40),
            tau in 0.05f64..=1.0,
        ) {
            let sets: Vec<Vec<u64>> = raw.into_iter().map(|s| s.into_iter().collect()).collect();
            prop_assert_eq!(partitioned_join(&sets, tau), jaccard_join_brute(&sets, tau));
        }

        // The partition bound: every pair that reaches τ lies in one or two neighbouring
        // partitions.
        #[test]
        fn partition_bound_holds(sizes in prop::collection::vec(1usize..200, 2..50), tau in 0.3f64..=1.0) {
            let (lo, hi) = (*sizes.iter().min().unwrap(), *sizes.iter().max().unwrap());
            let starts = partition_starts(lo, hi, tau);
            let part = |s: usize| starts.partition_point(|&b| b <= s) - 1;
            for &a in &sizes {
                for &b in &sizes {
                    if a <= b && a as f64 / b as f64 >= tau {
                        prop_assert!(part(b) - part(a) <= 1, "sizes {} {} parts {} {}", a, b, part(a), part(b));
                    }
                }
            }
        }
    }

    const ARTICLE: &str = "The council said the new bridge will be open by spring. The mayor has promised that \
        the work is on schedule, and the engineers were confident it can carry the traffic. Residents had \
        doubts, but the first tests did go well and the city is ready.";

    #[test]
    fn boilerplate_without_stopwords_keeps_similarity_high() {
        let wrapped = format!(
            "Daily Herald Home News World Business Sport Culture Opinion Login Subscribe\n\n{ARTICLE}\n\n\
             Copyright Daily Herald Media Group All rights reserved Privacy Policy Terms Contact"
        );
        let other_article = "Markets rallied as investors cheered a surprise cut in interest rates while oil prices slipped.";
        let docs = [ARTICLE, wrapped.as_str(), other_article];
        let d = Configured::<SpotSigs>::from_params(&ParamMap::new()).unwrap();
        let index = d.build(&docs).unwrap();
        let s = index.score(0, 1).unwrap();
        assert!(s >= 0.9, "boilerplate changes spots little: {s}");
        let shingles = crate::features::FeatureParams::words(3).shingler(0);
        let j = jaccard(&shingles.set(ARTICLE), &shingles.set(&wrapped));
        assert!(
            s > j,
            "spots ({s}) beat word 3-shingles ({j}) on boilerplate"
        );
        assert_eq!(index.query(&ParamMap::new()).unwrap().len(), 1);
    }

    #[test]
    fn spot_extraction_follows_chain_and_distance() {
        let p = SpotSigsParams {
            min_spots: 1,
            ..Default::default()
        };
        // "the" is an antecedent, "is" too: spots the:cat, is:on? — chain words skip antecedents.
        let sets = spot_sets(&p, &["the cat is on the mat"]);
        assert_eq!(sets[0].len(), 3); // the:cat, is:on, the:mat
        let p2 = SpotSigsParams {
            min_spots: 1,
            chain: 2,
            distance: 2,
            ..Default::default()
        };
        // the → non-antecedents after it: cat, on, mat → every 2nd: on; need 2 → dropped.
        let sets = spot_sets(&p2, &["the cat is on the mat"]);
        assert!(sets[0].is_empty());
        // Fewer spots than min_spots: no signature, never reported.
        let d = Configured::<SpotSigs>::from_params(&ParamMap::new()).unwrap();
        let index = d
            .build(&["the cat", "the cat", "no antecedent here"])
            .unwrap();
        assert!(index.query(&ParamMap::new()).unwrap().is_empty());
        assert_eq!(index.stats()["unsigned_docs"], 3);
    }

    #[test]
    fn bad_parameters() {
        let err = crate::testutil::param_error::<SpotSigs>;
        assert!(err(json!({"threshold": 0.0})).contains("threshold"));
        assert!(err(json!({"threshold": 1.2})).contains("threshold"));
        assert!(err(json!({"chain": 0})).contains("chain length"));
        assert!(err(json!({"distance": 0})).contains("spot distance"));
        assert!(err(json!({"antecedents": " , "})).contains("empty"));
        assert!(
            err(json!({"idf_filter": true, "min_idf": 0.9, "max_idf": 0.2})).contains("idf band")
        );
    }
}
