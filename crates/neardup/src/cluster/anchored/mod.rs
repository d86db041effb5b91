//! Clusters anchored on the document kept for them ("verified clusters").
//!
//! Connected components chain: A ≈ B ≈ … ≈ Z puts A and Z in one cluster although they share
//! nothing, and at web scale a chain of small edits grows into one cluster that swallows a
//! source. The fix deduplication pipelines converged on anchors verification on one document
//! per cluster: a document is removed only in the name of a kept document it is similar to.
//!
//! The rule, per connected component of the verified pairs (deterministic):
//!
//! 1. the **representative** is the member of least rank (the document `--keep` keeps; ties
//!    go to the smaller document number);
//! 2. every other member is compared with it; those within the threshold join its cluster,
//!    with their similarity to it;
//! 3. the members left over are split into the connected components of the verified pairs
//!    among them, and each is cut by the same rule; a member left alone is a cluster of its
//!    own.
//!
//! So every document is within the threshold of its representative, and clusters only ever
//! split components. Without the cut (`cut = false`) the same pass gives connected components
//! with each member's similarity to the representative, whatever it is: what
//! `--clusters connected` reports.
//!
//! The work is one comparison per member per round. A chain of L documents whose
//! representative reaches its next k takes about L/k rounds (O(L²/k) comparisons); a true
//! cluster of near copies takes one. With sparse pairs (a heavy cluster's, `crate::heavy`) the
//! members left over are re-joined each round, and a long tail is anchored in one pass after
//! [`EXACT_ROUNDS`] rounds ([`anchor_component_rejoined`]). The rounds themselves are in
//! `rounds.rs`; this file holds the components, the entry points and the labels.

mod rounds;

pub use rounds::{Assignment, EXACT_ROUNDS, LEADERS, Rejoin};
use rounds::{Split, anchor};

/// The connected components of two or more documents, each with the pairs inside it, stored
/// flat: component `i`'s members (sorted) are `members[member_starts[i]..member_starts[i + 1]]`,
/// its pairs likewise. Components are ordered by their smallest member.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Components {
    members: Vec<u32>,
    member_starts: Vec<usize>,
    edges: Vec<(u32, u32)>,
    edge_starts: Vec<usize>,
}

impl Components {
    /// Groups `n` documents by `labels` (connected components numbered by smallest member,
    /// as [`super::connected_components`] numbers them) and `pairs` by the component of their
    /// first document; components of one document are left out.
    pub fn new(labels: &[u32], pairs: impl IntoIterator<Item = (u32, u32)>) -> Components {
        let clusters = labels.iter().max().map_or(0, |&m| m as usize + 1);
        let mut size = vec![0usize; clusters];
        for &c in labels {
            size[c as usize] += 1;
        }
        // Dense numbers for the components of two or more documents, in label order (labels
        // are numbered by smallest member, so this is the order of their smallest member).
        let mut dense = vec![u32::MAX; clusters];
        let mut member_starts = vec![0usize];
        for (c, &s) in size.iter().enumerate() {
            if s > 1 {
                dense[c] = (member_starts.len() - 1) as u32;
                member_starts.push(member_starts.last().expect("starts at 0") + s);
            }
        }
        let mut fill = member_starts.clone();
        let mut members = vec![0u32; *member_starts.last().expect("starts at 0")];
        for (doc, &c) in labels.iter().enumerate() {
            let d = dense[c as usize];
            if d != u32::MAX {
                members[fill[d as usize]] = doc as u32;
                fill[d as usize] += 1;
            }
        }
        let mut keyed: Vec<(u32, u32, u32)> = pairs
            .into_iter()
            .map(|(a, b)| (dense[labels[a as usize] as usize], a.min(b), a.max(b)))
            .collect();
        keyed.sort_unstable();
        keyed.dedup();
        let count = member_starts.len() - 1;
        let mut edge_starts = vec![0usize; count + 1];
        for &(d, _, _) in &keyed {
            edge_starts[d as usize + 1] += 1;
        }
        for i in 0..count {
            edge_starts[i + 1] += edge_starts[i];
        }
        Components {
            members,
            member_starts,
            edges: keyed.into_iter().map(|(_, a, b)| (a, b)).collect(),
            edge_starts,
        }
    }

    /// Number of components (of two or more documents).
    pub fn len(&self) -> usize {
        self.member_starts.len().saturating_sub(1)
    }

    /// Whether there is none.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Component `i`'s members (sorted) and the pairs inside it.
    pub fn get(&self, i: usize) -> (&[u32], &[(u32, u32)]) {
        (
            &self.members[self.member_starts[i]..self.member_starts[i + 1]],
            &self.edges[self.edge_starts[i]..self.edge_starts[i + 1]],
        )
    }

    /// Every document in a component, sorted by component then document.
    pub fn members(&self) -> &[u32] {
        &self.members
    }

    /// Consecutive runs of components holding at most `max_members` documents each (a
    /// component larger than that is a run of its own): what a caller that must fetch the
    /// members' signatures holds at a time.
    pub fn batches(&self, max_members: usize) -> Vec<std::ops::Range<usize>> {
        let mut out = Vec::new();
        let mut start = 0;
        for i in 0..self.len() {
            let held = self.member_starts[i + 1] - self.member_starts[start];
            if i > start && held > max_members.max(1) {
                out.push(start..i);
                start = i;
            }
        }
        if start < self.len() {
            out.push(start..self.len());
        }
        out
    }
}

/// Anchors one component (see the module documentation): `members` sorted, `edges` the
/// verified pairs among them, `rank` orders candidates for representative (least first),
/// `compare(representative, member)` gives their similarity and whether it is within the
/// threshold. With `cut = false` every member is assigned to the first representative.
/// Returns every member's assignment, sorted by document.
pub fn anchor_component<R: Ord>(
    members: &[u32],
    edges: &[(u32, u32)],
    rank: impl Fn(u32) -> R,
    compare: impl Fn(u32, u32) -> (f64, bool) + Sync,
    cut: bool,
) -> Vec<Assignment> {
    let local = |d: u32| {
        members
            .binary_search(&d)
            .expect("a pair inside its component") as u32
    };
    let local_edges: Vec<(u32, u32)> = edges.iter().map(|&(a, b)| (local(a), local(b))).collect();
    let split = Split::<std::convert::Infallible>::Edges;
    match anchor(members, local_edges, rank, compare, cut, split) {
        Ok(out) => out,
    }
}

/// [`anchor_component`] for a component whose pairs are sparse — edges that connect it as its
/// verified pairs do, but not every verified pair (`crate::heavy`): the members left over in a
/// round are split by the pairs `rejoin` finds among them (given their document numbers, it
/// returns pairs of indices into that slice, e.g. `crate::heavy::connecting_pairs`), which
/// connect them exactly as every verified pair among them would. Its first error stops.
///
/// The rule is the exact one for [`EXACT_ROUNDS`] rounds; a group still left over after them
/// with more than [`LEADERS`] members (a long tail: near copies of a heavy cluster that
/// resemble each other in a chain, which one representative a round would peel a few at a
/// time, re-joining the rest each time) is anchored in one pass: in rank order, a member is
/// represented by a neighbour that leads and that it is within the threshold of, else leads
/// — the same promise (every member represented is within the threshold of a kept
/// document), one comparison per pair of the re-join.
pub fn anchor_component_rejoined<R: Ord, E>(
    members: &[u32],
    rank: impl Fn(u32) -> R,
    compare: impl Fn(u32, u32) -> (f64, bool) + Sync,
    cut: bool,
    rejoin: &Rejoin<'_, E>,
) -> Result<Vec<Assignment>, E> {
    anchor(
        members,
        Vec::new(),
        rank,
        compare,
        cut,
        Split::Rejoin(rejoin),
    )
}

/// Every one of `n` documents' assignment: the connected components of `pairs`, each
/// anchored ([`anchor_component`], same `rank`, `compare` and `cut`) in parallel; a document
/// in no pair represents itself. What the lab's experiments cluster by (`query = { clusters
/// = [...] }`); `neardup dedup` does the same a batch of components at a time, fetching the
/// members' signatures per batch.
pub fn anchor_all<R: Ord>(
    n: usize,
    pairs: &[(u32, u32)],
    rank: impl Fn(u32) -> R + Sync,
    compare: impl Fn(u32, u32) -> (f64, bool) + Sync,
    cut: bool,
) -> Vec<Assignment> {
    use rayon::prelude::*;
    let labels = super::connected_components(n, pairs.iter().copied());
    let components = Components::new(&labels, pairs.iter().copied());
    let mut out: Vec<Assignment> = (0..n as u32)
        .map(|d| Assignment {
            document: d,
            representative: d,
            similarity: 1.0,
            within: true,
        })
        .collect();
    let anchored: Vec<Assignment> = (0..components.len())
        .into_par_iter()
        .flat_map_iter(|i| {
            let (members, edges) = components.get(i);
            anchor_component(members, edges, &rank, &compare, cut)
        })
        .collect();
    for a in anchored {
        out[a.document as usize] = a;
    }
    out
}

/// Cluster labels from every document's representative: documents sharing one are a
/// cluster, numbered 0, 1, … in the order of their smallest member (as
/// [`super::connected_components`] numbers them).
pub fn labels_of(representative: &[u32]) -> Vec<u32> {
    let mut id_of = vec![u32::MAX; representative.len()];
    let mut next = 0;
    representative
        .iter()
        .map(|&r| {
            let id = &mut id_of[r as usize];
            if *id == u32::MAX {
                *id = next;
                next += 1;
            }
            *id
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::super::connected_components;
    use super::*;
    use crate::hash::SplitMix64;

    /// The rule written as plainly as it reads: sets, a flood fill per round, recursion.
    fn oracle(
        n: usize,
        edges: &[(u32, u32)],
        rank: &dyn Fn(u32) -> (u32, u32),
        sim: &dyn Fn(u32, u32) -> f64,
        t: f64,
    ) -> Vec<u32> {
        fn flood(group: &[u32], edges: &[(u32, u32)]) -> Vec<Vec<u32>> {
            let mut seen: Vec<u32> = Vec::new();
            let mut out = Vec::new();
            for &start in group {
                if seen.contains(&start) {
                    continue;
                }
                let mut comp = vec![start];
                seen.push(start);
                let mut i = 0;
                while i < comp.len() {
                    let x = comp[i];
                    for &(a, b) in edges {
                        for (u, v) in [(a, b), (b, a)] {
                            if u == x && group.contains(&v) && !seen.contains(&v) {
                                seen.push(v);
                                comp.push(v);
                            }
                        }
                    }
                    i += 1;
                }
                out.push(comp);
            }
            out
        }
        fn cut(
            group: Vec<u32>,
            edges: &[(u32, u32)],
            rank: &dyn Fn(u32) -> (u32, u32),
            sim: &dyn Fn(u32, u32) -> f64,
            t: f64,
            rep_of: &mut [u32],
        ) {
            let rep = *group.iter().min_by_key(|&&d| (rank(d), d)).unwrap();
            let mut left = Vec::new();
            for &d in &group {
                if d == rep || sim(rep, d) >= t {
                    rep_of[d as usize] = rep;
                } else {
                    left.push(d);
                }
            }
            for comp in flood(&left, edges) {
                cut(comp, edges, rank, sim, t, rep_of);
            }
        }
        let all: Vec<u32> = (0..n as u32).collect();
        let mut rep_of = vec![u32::MAX; n];
        for comp in flood(&all, edges) {
            cut(comp, edges, rank, sim, t, &mut rep_of);
        }
        rep_of
    }

    fn anchored(
        n: usize,
        edges: &[(u32, u32)],
        rank: &(dyn Fn(u32) -> (u32, u32) + Sync),
        sim: &(dyn Fn(u32, u32) -> f64 + Sync),
        t: f64,
        cut: bool,
    ) -> Vec<Assignment> {
        anchor_all(n, edges, rank, |r, d| (sim(r, d), sim(r, d) >= t), cut)
    }

    #[test]
    fn a_chain_is_cut_where_the_representative_stops_reaching() {
        // Documents 0–5 in a chain; each is within the threshold of its neighbours only.
        let sim = |a: u32, b: u32| if a.abs_diff(b) <= 1 { 0.9 } else { 0.1 };
        let edges: Vec<(u32, u32)> = (0..5).map(|i| (i, i + 1)).collect();
        let rank = |d: u32| (0, d);
        let got = anchored(6, &edges, &rank, &sim, 0.8, true);
        let reps: Vec<u32> = got.iter().map(|a| a.representative).collect();
        assert_eq!(reps, [0, 0, 2, 2, 4, 4]);
        assert_eq!(labels_of(&reps), [0, 0, 1, 1, 2, 2]);
        // Connected: one cluster, and the far end's similarity to the representative shows.
        let got = anchored(6, &edges, &rank, &sim, 0.8, false);
        assert!(got.iter().all(|a| a.representative == 0));
        assert_eq!(got[5].similarity, 0.1);
    }

    /// A chain longer than `PARALLEL_GROUP`: its first rounds compare in parallel, with the
    /// same answer as the short chain's rule (pairs of neighbours).
    #[test]
    fn a_long_chain_compared_in_parallel() {
        let n = 3 * rounds::PARALLEL_GROUP as u32;
        let sim = |a: u32, b: u32| if a.abs_diff(b) <= 1 { 0.9 } else { 0.1 };
        let edges: Vec<(u32, u32)> = (0..n - 1).map(|i| (i, i + 1)).collect();
        let got = anchored(n as usize, &edges, &|d| (0, d), &sim, 0.8, true);
        assert!(
            got.iter()
                .all(|a| a.representative == a.document - a.document % 2)
        );
    }

    #[test]
    fn the_oracle_agrees_on_random_graphs() {
        let seed = 20261124u64;
        println!("seed {seed}");
        let mut rng = SplitMix64::new(seed);
        for case in 0..400 {
            let n = 1 + rng.below(14) as usize;
            // Documents are points on a line; similarity falls with distance.
            let pos: Vec<u32> = (0..n).map(|_| rng.below(40) as u32).collect();
            let bytes: Vec<u32> = (0..n).map(|_| rng.below(5) as u32).collect();
            let sim =
                |a: u32, b: u32| 1.0 / (1.0 + pos[a as usize].abs_diff(pos[b as usize]) as f64);
            let t = 0.2;
            // Verified pairs: a random part of the pairs within the threshold (LSH misses some).
            let mut edges = Vec::new();
            for a in 0..n as u32 {
                for b in a + 1..n as u32 {
                    if sim(a, b) >= t && rng.below(3) > 0 {
                        edges.push((a, b));
                    }
                }
            }
            let longest = case % 2 == 0;
            let rank = |d: u32| {
                if longest {
                    (u32::MAX - bytes[d as usize], d)
                } else {
                    (d, 0)
                }
            };
            let want = oracle(n, &edges, &rank, &sim, t);
            let got = anchored(n, &edges, &rank, &sim, t, true);
            let reps: Vec<u32> = got.iter().map(|a| a.representative).collect();
            assert_eq!(reps, want, "case {case}: {edges:?}");
            // Every document within the threshold of its representative, with that similarity.
            for a in &got {
                assert!(a.document == a.representative || sim(a.representative, a.document) >= t);
                if a.document != a.representative {
                    assert_eq!(a.similarity, sim(a.representative, a.document));
                }
            }
            // The order the pairs arrive in does not matter.
            let mut reversed: Vec<(u32, u32)> = edges.iter().rev().map(|&(a, b)| (b, a)).collect();
            reversed.rotate_left(edges.len() / 2);
            assert_eq!(anchored(n, &reversed, &rank, &sim, t, true), got);
        }
    }

    #[test]
    fn without_the_cut_clusters_are_the_connected_components() {
        let mut rng = SplitMix64::new(5);
        for _ in 0..100 {
            let n = 1 + rng.below(20) as usize;
            let edges: Vec<(u32, u32)> = (0..rng.below(25))
                .map(|_| (rng.below(n as u64) as u32, rng.below(n as u64) as u32))
                .filter(|(a, b)| a != b)
                .collect();
            let got = anchored(n, &edges, &|d| (d, 0), &|_, _| 0.0, 0.5, false);
            let reps: Vec<u32> = got.iter().map(|a| a.representative).collect();
            assert_eq!(
                labels_of(&reps),
                connected_components(n, edges.iter().copied())
            );
        }
    }

    #[test]
    fn batches_hold_whole_components_within_the_limit() {
        let labels = [0, 0, 1, 2, 2, 2, 3, 4, 4];
        let comps = Components::new(&labels, [(0, 1), (3, 4), (4, 5), (7, 8)]);
        assert_eq!(comps.len(), 3);
        assert_eq!(
            comps.get(1),
            (&[3u32, 4, 5][..], &[(3u32, 4u32), (4, 5)][..])
        );
        assert_eq!(comps.batches(4), vec![0..1, 1..2, 2..3]);
        assert_eq!(comps.batches(5), vec![0..2, 2..3]);
        assert_eq!(comps.batches(100), vec![0..3]);
        assert_eq!(comps.batches(1), vec![0..1, 1..2, 2..3]);
    }

    /// A chain of 20,000 points, each within reach of its neighbours only, anchored with a
    /// brute-force re-join: the long tail takes leader rounds, so the comparisons stay far
    /// below the exact rule's O(L²/k), and every member is within reach of a kept document
    /// that represents itself.
    #[test]
    fn a_long_tail_keeps_the_promise_in_bounded_work() {
        let seed = 55;
        let mut rng = crate::hash::SplitMix64::new(seed);
        let n = 20_000u32;
        let mut position = 0u64;
        let positions: Vec<u64> = (0..n)
            .map(|_| {
                position += 1 + rng.below(3);
                position
            })
            .collect();
        let within = |a: u32, b: u32| positions[a as usize].abs_diff(positions[b as usize]) <= 4;
        let comparisons = std::sync::atomic::AtomicU64::new(0);
        let compare = |a: u32, b: u32| {
            comparisons.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
            (1.0, within(a, b))
        };
        // Neighbours by position: the verified pairs among any subset, found by sorting.
        let rejoin = |docs: &[u32]| -> Result<Vec<(u32, u32)>, ()> {
            let mut pairs = Vec::new();
            for i in 0..docs.len() {
                for j in i + 1..docs.len().min(i + 4) {
                    if within(docs[i], docs[j]) {
                        pairs.push((i as u32, j as u32));
                    }
                }
            }
            Ok(pairs)
        };
        let members: Vec<u32> = (0..n).collect();
        // A representative in the middle: both halves are left over as chains.
        let rank = |d: u32| d.abs_diff(n / 2);
        let out = anchor_component_rejoined(&members, rank, compare, true, &rejoin).unwrap();
        assert_eq!(out.len(), n as usize);
        for a in &out {
            assert!(within(a.representative, a.document), "seed {seed}: {a:?}");
            let r = &out[a.representative as usize];
            assert_eq!(
                r.representative, r.document,
                "seed {seed}: a representative is kept"
            );
        }
        let spent = comparisons.load(std::sync::atomic::Ordering::Relaxed);
        assert!(spent < 60 * n as u64, "seed {seed}: {spent} comparisons");
    }
}
