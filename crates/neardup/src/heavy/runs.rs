//! Runs of documents sharing a join key turned into candidates: every pair of an ordinary
//! run, and for a heavy one (more than [`HEAVY`] documents) verified edges that connect it as
//! its verified pairs do, within a linear budget (see `crate::heavy`). No signature types here: the
//! joins themselves (LSH banding, the Hamming join) call these.

use crate::error::Result;
use crate::pairs::{Budget, pack};

/// A run of documents sharing a key, or a group of identical signatures, longer than this is
/// connected by edges instead of enumerated as pairs. At 64 the pairs of a run (2,016) cost
/// less than sorting its members; well above the 2–5 members of ordinary clusters.
pub const HEAVY: usize = 64;

/// Comparisons per member a heavy run may spend being connected exactly.
pub const EXACT_PER_MEMBER: u64 = 8;

/// Once that is spent, the groups (the oldest ones) whose first member each further member of
/// the run is compared with.
pub const HUBS: usize = 8;

/// How a heavy run was connected.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Connection {
    /// Exactly as all its verified pairs connect it.
    Exact,
    /// Its exact budget ran out: the members after that were compared with the first members
    /// of the [`HUBS`] oldest groups only, so two of them may be left apart that a pair
    /// deeper in a group would have joined (never joined without a verified edge).
    Bounded,
}

/// Appends edges connecting `run` (document numbers, each once): each member is compared with
/// the members of every group formed so far until one `verify`s, and an edge is appended for
/// each group it joins — exactly the connectivity of every verified pair, at one comparison a
/// member for a run of near copies (their first member verifies them all). Members that
/// resemble no group (documents sharing a key without being near copies) cost up to the whole
/// run each; once the run has spent [`EXACT_PER_MEMBER`] comparisons a member, each further
/// member is compared with the first members of the [`HUBS`] oldest groups only: at most
/// (8 + 8) comparisons a member, whatever the run ([`Connection::Bounded`]).
pub fn connect_run(
    run: &[u32],
    verify: &(impl Fn(u32, u32) -> bool + ?Sized),
    out: &mut Vec<u64>,
) -> Connection {
    let exact_budget = EXACT_PER_MEMBER * run.len() as u64;
    connect(run, verify, exact_budget, OverBudget::Bounded, out)
        .expect("a bounded connection always ends")
}

/// [`connect_run`] exactly within `max_comparisons`; past that, bounded if the run is a
/// cluster (its largest group holds at least half the members seen so far), else given up:
/// nothing is appended and the caller enumerates the run's pairs. Whether it connected the
/// run. What a join whose long runs may be skewed rather than near copies (the Hamming join,
/// whose run splitting serves skew) tries first.
pub fn try_connect_run(
    run: &[u32],
    verify: &(impl Fn(u32, u32) -> bool + ?Sized),
    max_comparisons: u64,
    out: &mut Vec<u64>,
) -> bool {
    connect(
        run,
        verify,
        max_comparisons,
        OverBudget::BoundedIfCluster,
        out,
    )
    .is_some()
}

/// What [`connect`] does once its exact budget is spent.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum OverBudget {
    Bounded,
    BoundedIfCluster,
}

/// The groups of the module documentation: exact until `exact_budget` comparisons are spent,
/// then bounded or given up (`None`, nothing appended) as `over` says.
fn connect(
    run: &[u32],
    verify: &(impl Fn(u32, u32) -> bool + ?Sized),
    exact_budget: u64,
    over: OverBudget,
    out: &mut Vec<u64>,
) -> Option<Connection> {
    let start = out.len();
    // Groups of the run so far, oldest first. A group's first member is its earliest, most
    // often the one that verifies a near copy at once.
    let mut groups: Vec<Vec<u32>> = Vec::new();
    let mut spent = 0u64;
    let mut connection = Connection::Exact;
    for (seen, &x) in run.iter().enumerate() {
        if connection == Connection::Exact && spent > exact_budget {
            let largest = groups.iter().map(Vec::len).max().unwrap_or(0);
            if over == OverBudget::BoundedIfCluster && largest * 2 < seen {
                out.truncate(start);
                return None;
            }
            connection = Connection::Bounded;
        }
        let mut home: Option<usize> = None;
        let mut merged = false;
        let tried = match connection {
            Connection::Exact => groups.len(),
            Connection::Bounded => groups.len().min(HUBS),
        };
        for g in 0..tried {
            let members = match connection {
                Connection::Exact => &groups[g][..],
                Connection::Bounded => &groups[g][..1],
            };
            let hit = members.iter().position(|&y| verify(y, x));
            spent += hit.map_or(members.len(), |i| i + 1) as u64;
            let Some(i) = hit else { continue };
            let y = members[i];
            out.push(if y < x { pack(y, x) } else { pack(x, y) });
            match home {
                None => {
                    groups[g].push(x);
                    home = Some(g);
                }
                Some(h) => {
                    let moved = std::mem::take(&mut groups[g]);
                    groups[h].extend(moved);
                    merged = true;
                }
            }
        }
        if home.is_none() {
            groups.push(vec![x]);
        }
        if merged {
            // Merged groups were emptied; the order of the others is kept. Only then: a run
            // of strangers has as many groups as members.
            groups.retain(|g| !g.is_empty());
        }
    }
    Some(connection)
}

/// Appends the candidates of each run of equal keys of `sorted` (key, document): every pair
/// of a run of up to [`HEAVY`] documents to `out` (spent from `pairs`); for a longer one the
/// edges of [`connect_run`] to `edges` when `verify` is given, else every pair to `out`.
pub fn run_candidates<K: PartialEq>(
    sorted: &[(K, u32)],
    verify: Option<&(dyn Fn(u32, u32) -> bool + Sync)>,
    pairs: &Budget,
    out: &mut Vec<u64>,
    edges: &mut Vec<u64>,
) -> Result<()> {
    for run in sorted.chunk_by(|x, y| x.0 == y.0) {
        match verify {
            Some(verify) if run.len() > HEAVY => {
                let mut docs: Vec<u32> = run.iter().map(|&(_, d)| d).collect();
                docs.sort_unstable();
                connect_run(&docs, verify, edges);
            }
            _ => crate::pairs::run_pairs(run, pairs, out)?,
        }
    }
    Ok(())
}

/// The groups of more than [`HEAVY`] of `docs` whose rows (`row(d)`) are identical: for each,
/// the copies `verify` accepts against its first member are appended to `copies`, and the
/// pairs (first member, copy) that stand for them to `edges`. `docs` is left sorted by (row,
/// document). What `crate::heavy::collapse_identical` and the Hamming joins' fingerprints
/// take out of a join.
pub fn identical_groups<'a, T: Ord + 'a>(
    docs: &mut [u32],
    row: impl Fn(u32) -> &'a [T],
    verify: &(impl Fn(u32, u32) -> bool + ?Sized),
    edges: &mut Vec<u64>,
    copies: &mut Vec<u32>,
) {
    docs.sort_by(|&a, &b| row(a).cmp(row(b)).then(a.cmp(&b)));
    for group in docs.chunk_by(|&a, &b| row(a) == row(b)) {
        if group.len() <= HEAVY {
            continue;
        }
        let first = group[0];
        for &copy in &group[1..] {
            if verify(first, copy) {
                edges.push(pack(first, copy));
                copies.push(copy);
            }
        }
    }
}

/// The heavy runs' edges of every key position (packed) reduced to a spanning forest: sorted,
/// each edge kept only when it joins two groups not yet joined. Each position's runs give
/// their own edges (up to one per member and position); the forest keeps at most one per
/// document, with the same connectivity, so the candidates stay proportional to the corpus.
pub fn spanning_forest(mut edges: Vec<u64>) -> Vec<u64> {
    edges.sort_unstable();
    edges.dedup();
    let Some(largest) = edges.iter().map(|&e| e as u32).max() else {
        return edges;
    };
    let mut groups = crate::cluster::UnionFind::new(largest as usize + 1);
    edges.retain(|&e| {
        let (a, b) = crate::pairs::unpack(e);
        groups.union(a, b)
    });
    edges
}

/// Appends the candidates of each run of equal keys of `sorted` (key, document) for a join
/// that cannot verify while it groups (the spilled join reads signatures back only later):
/// every pair of a run of up to [`HEAVY`] documents, and for a longer one each member paired
/// with the run's first [`HUBS`] members (sorted by document), which verification then keeps
/// or drops — about `HUBS`·m pairs instead of m(m − 1)/2, connecting a heavy cluster of near
/// copies through its first members (the bounded rule of [`connect_run`] from the start).
/// Spends the pairs from `budget`.
pub fn run_candidates_to_hubs<K: PartialEq>(
    sorted: &[(K, u32)],
    budget: &Budget,
    out: &mut Vec<u64>,
) -> Result<()> {
    for run in sorted.chunk_by(|x, y| x.0 == y.0) {
        if run.len() <= HEAVY {
            crate::pairs::run_pairs(run, budget, out)?;
            continue;
        }
        let mut docs: Vec<u32> = run.iter().map(|&(_, d)| d).collect();
        docs.sort_unstable();
        let (hubs, rest) = docs.split_at(HUBS);
        budget.spend((HUBS * (HUBS - 1) / 2 + HUBS * rest.len()) as u64)?;
        for (i, &h) in hubs.iter().enumerate() {
            out.extend(hubs[i + 1..].iter().map(|&g| pack(h, g)));
            out.extend(rest.iter().map(|&x| pack(h, x)));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cluster::connected_components;
    use crate::hash::SplitMix64;

    /// Brute force: the components of every verified pair of the run.
    fn components_of_all_pairs(n: usize, verify: impl Fn(u32, u32) -> bool) -> Vec<u32> {
        let mut pairs = Vec::new();
        for a in 0..n as u32 {
            for b in a + 1..n as u32 {
                if verify(a, b) {
                    pairs.push((a, b));
                }
            }
        }
        connected_components(n, pairs)
    }

    /// Points on a line verify when within `reach`: runs of chains, gaps and clumps.
    #[test]
    fn connected_run_has_the_components_of_all_its_pairs() {
        let seed = 20_261_127;
        let mut rng = SplitMix64::new(seed);
        for trial in 0..300 {
            let n = 1 + rng.below(400) as usize;
            let spread = 1 + rng.below(2000);
            let position: Vec<u64> = (0..n).map(|_| rng.below(spread)).collect();
            let reach = rng.below(40);
            let verify =
                |a: u32, b: u32| position[a as usize].abs_diff(position[b as usize]) <= reach;
            let run: Vec<u32> = (0..n as u32).collect();
            let mut edges = Vec::new();
            assert!(try_connect_run(&run, &verify, u64::MAX, &mut edges));
            for &e in &edges {
                let (a, b) = crate::pairs::unpack(e);
                assert!(
                    verify(a, b),
                    "seed {seed} trial {trial}: an edge that does not verify"
                );
            }
            assert!(edges.len() < n.max(1), "a forest: fewer edges than members");
            let got = connected_components(n, edges.iter().map(|&e| crate::pairs::unpack(e)));
            assert_eq!(
                got,
                components_of_all_pairs(n, verify),
                "seed {seed} trial {trial}"
            );
        }
    }

    #[test]
    fn near_copies_cost_one_comparison_each() {
        let run: Vec<u32> = (0..100_000).collect();
        let comparisons = std::cell::Cell::new(0u64);
        let mut edges = Vec::new();
        let verify = |_, _| {
            comparisons.set(comparisons.get() + 1);
            true
        };
        assert_eq!(connect_run(&run, &verify, &mut edges), Connection::Exact);
        assert_eq!(edges.len(), 99_999);
        assert_eq!(comparisons.get(), 99_999);
    }

    /// A run of strangers (nothing verifies) would cost m(m − 1)/2 comparisons exactly; bounded,
    /// it costs at most (8 + 8) a member. Points on a line that verify within a reach: the
    /// bounded groups never join what is not connected, and each edge verifies.
    #[test]
    fn a_run_of_strangers_costs_linear_time_and_never_over_joins() {
        let run: Vec<u32> = (0..20_000).collect();
        let comparisons = std::cell::Cell::new(0u64);
        let verify = |_, _| {
            comparisons.set(comparisons.get() + 1);
            false
        };
        let mut edges = Vec::new();
        assert_eq!(connect_run(&run, &verify, &mut edges), Connection::Bounded);
        assert!(edges.is_empty());
        let bound = (EXACT_PER_MEMBER + HUBS as u64) * run.len() as u64;
        assert!(
            comparisons.get() <= bound,
            "{} comparisons",
            comparisons.get()
        );
        let seed = 77;
        let mut rng = SplitMix64::new(seed);
        let n = 3000;
        let position: Vec<u64> = (0..n).map(|_| rng.below(1_000_000)).collect();
        let verify = |a: u32, b: u32| position[a as usize].abs_diff(position[b as usize]) <= 300;
        let run: Vec<u32> = (0..n as u32).collect();
        let mut edges = Vec::new();
        assert_eq!(connect_run(&run, &verify, &mut edges), Connection::Bounded);
        let pairs: Vec<(u32, u32)> = edges.iter().map(|&e| crate::pairs::unpack(e)).collect();
        assert!(pairs.iter().all(|&(a, b)| verify(a, b)), "seed {seed}");
        let all = components_of_all_pairs(n, verify);
        let got = connected_components(n, pairs);
        for a in 0..n {
            for b in a + 1..n {
                assert!(
                    got[a] != got[b] || all[a] == all[b],
                    "seed {seed}: {a} and {b} joined"
                );
            }
        }
    }

    #[test]
    fn a_capped_connection_gives_up_cleanly() {
        let run: Vec<u32> = (0..1000).collect();
        let mut out = vec![7];
        assert!(!try_connect_run(&run, &|_, _| false, 4000, &mut out));
        assert_eq!(out, [7], "nothing appended");
        assert!(try_connect_run(&run, &|_, _| true, 4000, &mut out));
        assert_eq!(out.len(), 1000);
    }

    #[test]
    fn a_heavy_run_pairs_with_its_hubs_only() {
        let sorted: Vec<(u8, u32)> = (0..1000)
            .map(|d| (1, 999 - d))
            .chain([(2, 5), (2, 9)])
            .collect();
        let budget = Budget::with_limit("test", u64::MAX);
        let mut out = Vec::new();
        run_candidates_to_hubs(&sorted, &budget, &mut out).unwrap();
        assert_eq!(out.len() as u64, budget.spent());
        assert_eq!(out.len(), HUBS * (HUBS - 1) / 2 + HUBS * (1000 - HUBS) + 1);
        let (a, b) = crate::pairs::unpack(*out.iter().max().unwrap());
        assert!(a < HUBS as u32 && b == 999, "paired with the first members");
        assert!(out.contains(&pack(5, 9)), "an ordinary run gives its pairs");
    }

    #[test]
    fn a_spanning_forest_keeps_the_connectivity() {
        let edges = vec![
            pack(0, 2),
            pack(1, 2),
            pack(0, 1),
            pack(0, 2),
            pack(5, 9),
            pack(2, 9),
        ];
        let forest = spanning_forest(edges.clone());
        assert_eq!(forest, [pack(0, 1), pack(0, 2), pack(2, 9), pack(5, 9)]);
        let components =
            |e: &[u64]| connected_components(10, e.iter().map(|&p| crate::pairs::unpack(p)));
        assert_eq!(components(&forest), components(&edges));
        assert!(spanning_forest(Vec::new()).is_empty());
    }

    #[test]
    fn identical_groups_past_heavy_give_their_copies() {
        let rows: Vec<[u8; 1]> = (0..200u32)
            .map(|d| [(d % 3 == 0) as u8 + (d >= 190) as u8 * 2])
            .collect();
        let mut docs: Vec<u32> = (0..200).rev().collect();
        let (mut edges, mut copies) = (Vec::new(), Vec::new());
        identical_groups(
            &mut docs,
            |d| &rows[d as usize][..],
            &|_, c| c != 4,
            &mut edges,
            &mut copies,
        );
        // Row 0: 126 documents (3k + 1, 3k + 2 below 190, first 1); row 1: 64 (not past 64).
        let row0: Vec<u32> = (1..190).filter(|d| d % 3 != 0).collect();
        assert_eq!(
            copies,
            row0[1..]
                .iter()
                .copied()
                .filter(|&c| c != 4)
                .collect::<Vec<_>>()
        );
        assert!(edges.iter().all(|&e| crate::pairs::unpack(e).0 == 1));
    }
}
