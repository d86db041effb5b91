//! Heavy clusters in linear time: a crawl's thousands of copies of one page (error pages,
//! parked domains, cookie walls, wire stories) must not make a join quadratic.
//!
//! A join finds candidates as runs of documents sharing a key; a run of m documents holds
//! m(m − 1)/2 pairs, so 10^5 copies of a 404 page would be 5·10^9 pairs. What the pipeline
//! does with verified pairs is (1) connected components and (2) anchoring each component on
//! the document kept for it, which compares members with that document and needs the pairs
//! among the members left over only for their connectivity. So a pipeline needs, per run, not
//! every verified pair but **edges with the same connectivity**, as datatrove and text-dedup
//! union a bucket with m − 1 edges. Two steps give them, both exact for connectivity:
//!
//! 1. **Identical signatures collapsed** ([`collapse_identical`]). Documents with the same
//!    signature have the same join keys and the same verification against any third document,
//!    so one of a group enters the join and the others are attached to it by one verified
//!    edge each. Only groups of more than [`HEAVY`] are collapsed: smaller ones are joined as
//!    before, so a corpus without heavy clusters gets exactly the pairs it always got.
//! 2. **Long runs connected, not enumerated** ([`connect_run`]). A run of more than
//!    [`HEAVY`] documents is processed member by member against the groups already formed in
//!    it: a member is compared with a group's members until one verifies (then it joins the
//!    group, merging every group it reaches), so a run of near copies costs one comparison a
//!    member (its first member verifies them all). Pairs whose ends are already connected are
//!    never compared — which changes no component. Members that share the key without
//!    resembling anyone (a template's documents that are not near copies) would make this
//!    quadratic, as proving a member far from every other takes comparing it with all: so a
//!    run's exact phase has a budget of [`runs::EXACT_PER_MEMBER`] comparisons a member, after
//!    which each further member is compared with the first members of the [`runs::HUBS`]
//!    oldest groups only. That bound can leave apart two documents a pair deeper in a group
//!    would have connected (a missed removal, never a wrongful one: no group is joined
//!    without a verified edge, and anchored clusters compare every member with the document
//!    kept anyway); the Hamming join instead enumerates such a run as before (its run
//!    splitting serves skewed fingerprints).
//!
//! A pipeline that cuts components (anchored clusters) splits the members left over by the
//! verified pairs among them; with sparse edges it re-joins those members by their keys
//! ([`connecting_pairs`]), which finds the same connectivity as every pair would.

pub mod runs;

use rayon::prelude::*;

use crate::error::Result;
use crate::pairs::Budget;
use crate::streaming::{SignatureTable, StreamingDetector};
pub use runs::{
    Connection, HEAVY, connect_run, identical_groups, run_candidates, run_candidates_to_hubs,
    spanning_forest, try_connect_run,
};

/// Groups of more than [`HEAVY`] documents with identical signatures, each but its first
/// member taken out of the join.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Collapsed {
    /// (first member, copy) packed, for each copy: the edges that stand for the group.
    pub edges: Vec<u64>,
    /// The copies (sorted): they take no part in the join.
    pub copies: Vec<u32>,
}

/// Collapses groups of more than [`HEAVY`] non-empty documents with identical signatures
/// (see the module documentation). A copy whose verification against its group's first
/// member fails (an algorithm whose signatures do not verify against themselves) is left in
/// the join.
pub fn collapse_identical(
    table: &SignatureTable,
    verify: &(dyn Fn(u32, u32) -> bool + Sync),
) -> Collapsed {
    let mut hashed: Vec<(u64, u32)> = (0..table.len())
        .into_par_iter()
        .filter(|&i| !table.is_empty_doc(i))
        .map(|i| (row_hash(table.row(i)), i as u32))
        .collect();
    hashed.par_sort_unstable();
    let mut collapsed = Collapsed::default();
    for run in hashed.chunk_by(|x, y| x.0 == y.0) {
        if run.len() > HEAVY {
            // Equal hashes: grouped by the rows themselves, so that a hash collision splits.
            let mut docs: Vec<u32> = run.iter().map(|&(_, d)| d).collect();
            let row = |d: u32| table.row(d as usize);
            identical_groups(
                &mut docs,
                row,
                verify,
                &mut collapsed.edges,
                &mut collapsed.copies,
            );
        }
    }
    collapsed.edges.sort_unstable();
    collapsed.copies.sort_unstable();
    collapsed
}

/// The seed of [`row_hash`] ("heavy").
const ROW_SEED: u64 = 0x0068_6561_7679;

/// A 64-bit hash of a signature row: XXH3 over its bytes (a chain of one multiply per word
/// took 1.6× the candidates stage of 200,000 documents without any heavy group).
fn row_hash(row: &[u32]) -> u64 {
    let mut bytes = [0u8; 4 * 256];
    if row.len() <= 256 {
        for (chunk, w) in bytes.chunks_exact_mut(4).zip(row) {
            chunk.copy_from_slice(&w.to_le_bytes());
        }
        return crate::hash::hash_bytes(&bytes[..4 * row.len()], ROW_SEED);
    }
    let all: Vec<u8> = row.iter().flat_map(|w| w.to_le_bytes()).collect();
    crate::hash::hash_bytes(&all, ROW_SEED)
}

/// Candidates of `stream` over `table` for a consumer of connectivity (components, then
/// anchoring): identical signatures of heavy groups collapsed, heavy runs connected
/// ([`StreamingDetector::connecting_candidates`]); sorted, each once. Equal to
/// [`StreamingDetector::candidates`] when no group or run is heavy. `table`'s empty flags
/// are borrowed for the join (copies marked empty, so no join sees them) and restored.
pub fn candidates(stream: &dyn StreamingDetector, table: &mut SignatureTable) -> Result<Vec<u64>> {
    let collapsed = {
        let t: &SignatureTable = table;
        collapse_identical(t, &|a, b| stream.verify(t, a, b).is_some())
    };
    for &c in &collapsed.copies {
        table.set_empty(c as usize, true);
    }
    let joined = stream.connecting_candidates(table);
    for &c in &collapsed.copies {
        table.set_empty(c as usize, false);
    }
    let mut pairs = joined?;
    if !collapsed.edges.is_empty() {
        pairs.extend(collapsed.edges);
        pairs.par_sort_unstable();
        pairs.dedup();
    }
    Ok(pairs)
}

/// The pairs among `rows` (rows of `table`, non-empty ones only) that connect them exactly
/// as their verified pairs do, in local numbers (indices into `rows`): the rows grouped by
/// `stream`'s join keys, each run's pairs verified (a heavy run connected by
/// [`connect_run`]). What a cut re-joins the members left over by, when the pairs it was
/// given are sparse.
pub fn connecting_pairs(
    stream: &dyn StreamingDetector,
    table: &SignatureTable,
    rows: &[u32],
) -> Result<Vec<(u32, u32)>> {
    connecting_pairs_where(stream, table, rows, &|_, _| true)
}

/// [`connecting_pairs`] over the pairs `allowed` (local numbers) only: the graph of the
/// verified pairs a join would have considered (with `--index`, never two indexed documents).
pub fn connecting_pairs_where(
    stream: &dyn StreamingDetector,
    table: &SignatureTable,
    rows: &[u32],
    allowed: &(dyn Fn(u32, u32) -> bool + Sync),
) -> Result<Vec<(u32, u32)>> {
    let per = stream.keys_per_doc();
    let mut keys = vec![0u64; per];
    let mut keyed: Vec<((usize, u64), u32)> = Vec::with_capacity(rows.len() * per);
    for (local, &r) in rows.iter().enumerate() {
        if table.is_empty_doc(r as usize) {
            continue;
        }
        stream.keys(table.row(r as usize), &mut keys);
        keyed.extend(
            keys.iter()
                .enumerate()
                .map(|(p, &k)| ((p, k), local as u32)),
        );
    }
    keyed.sort_unstable();
    let verify = |a: u32, b: u32| {
        allowed(a, b)
            && stream
                .verify(table, rows[a as usize], rows[b as usize])
                .is_some()
    };
    let pair_budget = Budget::new("re-joining the members a cut leaves over")?;
    let (mut candidates, mut edges) = (Vec::new(), Vec::new());
    run_candidates(
        &keyed,
        Some(&verify),
        &pair_budget,
        &mut candidates,
        &mut edges,
    )?;
    candidates.sort_unstable();
    candidates.dedup();
    candidates.retain(|&p| {
        let (a, b) = crate::pairs::unpack(p);
        verify(a, b)
    });
    edges.extend(candidates);
    edges.sort_unstable();
    edges.dedup();
    Ok(edges.into_iter().map(crate::pairs::unpack).collect())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cluster::connected_components;
    use crate::detector::ParamMap;
    use crate::hash::SplitMix64;
    use crate::pairs::pack;

    #[test]
    fn identical_signatures_collapse_only_past_heavy() {
        // 100 copies of row A, 10 of row B, 1 of C; one empty row equal to A's words.
        let mut t = SignatureTable::new(2);
        for i in 0..112u32 {
            let row = match i {
                0..100 => [1, 2],
                100..110 => [3, 4],
                110 => [5, 6],
                _ => [1, 2],
            };
            t.push(&row, i == 111);
        }
        let c = collapse_identical(&t, &|_, _| true);
        assert_eq!(c.copies, (1..100).collect::<Vec<u32>>());
        assert_eq!(c.edges, (1..100).map(|i| pack(0, i)).collect::<Vec<u64>>());
        // A copy that does not verify against the first stays in the join.
        let c = collapse_identical(&t, &|_, b| b != 7);
        assert!(!c.copies.contains(&7) && c.copies.len() == 98);
    }

    /// A corpus of clusters of 1…500 members (exact copies, near copies, chains of edits)
    /// over random words, seeded.
    fn clustered_corpus(seed: u64) -> Vec<String> {
        let mut rng = SplitMix64::new(seed);
        let word = |rng: &mut SplitMix64| format!("w{}", rng.below(5000));
        let mut docs = Vec::new();
        for (cluster, &size) in [1usize, 2, 3, 5, 65, 66, 130, 500, 1, 7, 200]
            .iter()
            .enumerate()
        {
            let base: Vec<String> = (0..80).map(|_| word(&mut rng)).collect();
            let mut previous = base.clone();
            for member in 0..size {
                let text = match (cluster + member) % 4 {
                    0 => base.clone(),
                    1 | 2 => edited(&base, 40, &mut rng),
                    // A chain: each edits the one before, so it drifts away from the base.
                    _ => {
                        previous = edited(&previous, 12, &mut rng);
                        previous.clone()
                    }
                };
                docs.push(text.join(" "));
            }
        }
        docs
    }

    /// `words` with each replaced by a random one with chance 1 / `one_in`.
    fn edited(words: &[String], one_in: u64, rng: &mut SplitMix64) -> Vec<String> {
        words
            .iter()
            .map(|w| match rng.below(one_in) {
                0 => format!("w{}", rng.below(5000)),
                _ => w.clone(),
            })
            .collect()
    }

    /// `name`'s streamable split under `config` and the signatures of `refs`.
    fn sketched(
        name: &str,
        config: &ParamMap,
        refs: &[&str],
    ) -> (Box<dyn StreamingDetector>, SignatureTable) {
        let d = crate::registry::find(name)
            .unwrap()
            .detector(config)
            .unwrap();
        let stream = d.streaming().unwrap();
        let table = SignatureTable::sketch_all(stream.as_ref(), refs);
        (stream, table)
    }

    /// The verified pairs of `candidates`.
    fn verified(stream: &dyn StreamingDetector, t: &SignatureTable, c: &[u64]) -> Vec<(u32, u32)> {
        c.iter()
            .map(|&p| crate::pairs::unpack(p))
            .filter(|&(a, b)| stream.verify(t, a, b).is_some())
            .collect()
    }

    /// The oracle of issue 51: on clusters of 1…500 members and chains, the sparse candidates
    /// give the connected components, and the anchored clusters (cut by the re-join), of
    /// every pair; their count is linear in the heavy clusters.
    #[test]
    fn sparse_candidates_give_the_clusters_of_every_pair() {
        use crate::cluster::anchored::{Components, anchor_component, anchor_component_rejoined};
        use crate::detector::params;
        let seed = 51;
        let docs = clustered_corpus(seed);
        let refs: Vec<&str> = docs.iter().map(String::as_str).collect();
        let n = refs.len();
        let configs = [
            ("minhash-lsh", params(&[])),
            ("minhash-lsh", params(&[("threshold", 0.5.into())])),
            ("minhash-lsh", params(&[("verify", "none".into())])),
            ("simhash", params(&[("weighting", "tf".into())])),
            ("exact", params(&[])),
        ];
        for (name, config) in configs {
            let (stream, mut table) = sketched(name, &config, &refs);
            let full = verified(stream.as_ref(), &table, &stream.candidates(&table).unwrap());
            let sparse_candidates = candidates(stream.as_ref(), &mut table).unwrap();
            let sparse = verified(stream.as_ref(), &table, &sparse_candidates);
            assert!(
                sparse.len() < full.len(),
                "seed {seed} {name} {config:?}: {} sparse pairs against {} in all",
                sparse.len(),
                full.len()
            );
            let labels = connected_components(n, full.iter().copied());
            assert_eq!(
                connected_components(n, sparse.iter().copied()),
                labels,
                "seed {seed} {name} {config:?}: components"
            );
            // Anchored on a pseudo-random rank, so that cuts leave members over.
            let rank = |d: u32| crate::hash::mix64(u64::from(d) ^ seed);
            let compare = |a, b| stream.compare(&table, a, b);
            let components = Components::new(&labels, full.iter().copied());
            let rejoin = |rows: &[u32]| connecting_pairs(stream.as_ref(), &table, rows);
            let mut leftovers = 0;
            for i in 0..components.len() {
                let (members, edges) = components.get(i);
                let want = anchor_component(members, edges, rank, compare, true);
                let got = anchor_component_rejoined(members, rank, compare, true, &rejoin).unwrap();
                leftovers += want
                    .iter()
                    .filter(|a| a.representative == a.document)
                    .count()
                    - 1;
                assert_eq!(got, want, "seed {seed} {name} {config:?}: component {i}");
            }
            if name == "minhash-lsh" {
                assert!(leftovers > 0, "{config:?}: the cuts were exercised");
            }
        }
    }

    /// 5,000 exact and 5,000 near copies of one page (2.5 % of words substituted): the sparse
    /// candidates stay linear (at most one edge per copy and key position) where all pairs
    /// would be 5·10^7, and connect every copy.
    #[test]
    fn a_heavy_cluster_gives_linearly_many_candidates() {
        let mut rng = SplitMix64::new(404);
        let page: Vec<String> = (0..80).map(|i| format!("w{i}")).collect();
        let mut docs = vec![page.join(" "); 5000];
        for _ in 0..5000 {
            let near: Vec<String> = page
                .iter()
                .map(|w| {
                    if rng.below(40) == 0 {
                        format!("x{}", rng.below(1 << 30))
                    } else {
                        w.clone()
                    }
                })
                .collect();
            docs.push(near.join(" "));
        }
        let refs: Vec<&str> = docs.iter().map(String::as_str).collect();
        let tf = crate::detector::params(&[("weighting", "tf".into())]);
        for (name, config) in [
            ("minhash-lsh", ParamMap::new()),
            ("simhash", tf),
            ("exact", ParamMap::new()),
        ] {
            let (stream, mut table) = sketched(name, &config, &refs);
            let c = candidates(stream.as_ref(), &mut table).unwrap();
            let bound = refs.len() * stream.keys_per_doc();
            assert!(
                c.len() <= bound,
                "{name}: {} candidates, more than {bound}",
                c.len()
            );
            let pairs = verified(stream.as_ref(), &table, &c);
            let labels = connected_components(refs.len(), pairs);
            let largest = labels.iter().filter(|&&l| l == labels[0]).count();
            assert!(
                largest >= 5000,
                "{name}: the exact copies are one cluster ({largest})"
            );
        }
    }
}
