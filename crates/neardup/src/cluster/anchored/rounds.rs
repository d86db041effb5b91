//! One component's rounds under the rule of `super` (the anchored clusters): a round anchored
//! on its representative, the one-pass leaders' round of a long tail, and the members left
//! over split into the components of the pairs among them — given, or re-joined.

use crate::cluster::UnionFind;

/// One document's place in an anchored clustering.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Assignment {
    /// The document.
    pub document: u32,
    /// The representative it is removed in the name of (itself when it is one).
    pub representative: u32,
    /// Its similarity to the representative (1 for the representative itself).
    pub similarity: f64,
    /// Whether that is within the threshold (always, unless the component was not cut).
    pub within: bool,
}

/// Members of a group from which its comparisons run in parallel.
pub(super) const PARALLEL_GROUP: usize = 4096;

/// Given documents, the pairs among them (indices into the slice) that connect them as their
/// verified pairs do.
pub type Rejoin<'a, E> = dyn Fn(&[u32]) -> Result<Vec<(u32, u32)>, E> + 'a;

/// How the members left over in a round find the pairs among them.
pub(super) enum Split<'a, E> {
    /// From the group's pairs (complete).
    Edges,
    /// By re-joining them.
    Rejoin(&'a Rejoin<'a, E>),
}

/// Rounds of the exact rule a component of sparse pairs takes before a group of more than
/// [`LEADERS`] members left over is anchored on leaders in one pass (`leaders_round`).
pub const EXACT_ROUNDS: usize = 16;

/// A group left over after [`EXACT_ROUNDS`] with more members than this is a long tail.
pub const LEADERS: usize = 64;

/// The rule of the module documentation; `local_edges` in local numbers (indices into
/// `members`). With a re-join, a group left over after [`EXACT_ROUNDS`] rounds and holding
/// more than [`LEADERS`] members is anchored in one pass on leaders instead (`leaders_round`).
pub(super) fn anchor<R: Ord, E>(
    members: &[u32],
    local_edges: Vec<(u32, u32)>,
    rank: impl Fn(u32) -> R,
    compare: impl Fn(u32, u32) -> (f64, bool) + Sync,
    cut: bool,
    split: Split<'_, E>,
) -> Result<Vec<Assignment>, E> {
    let all: Vec<u32> = (0..members.len() as u32).collect();
    let mut out = Vec::with_capacity(members.len());
    // Position of a left-over member among the left-over ones while a group is split.
    let mut slot = vec![u32::MAX; members.len()];
    let mut leads = vec![false; members.len()];
    let mut groups = vec![(all, local_edges, 0)];
    let by_rank = |x: &u32, y: &u32| {
        rank(members[*x as usize])
            .cmp(&rank(members[*y as usize]))
            .then(x.cmp(y))
    };
    while let Some((mut group, group_edges, round)) = groups.pop() {
        let tail = matches!(split, Split::Rejoin(_)) && cut;
        if tail && round >= EXACT_ROUNDS && group.len() > LEADERS {
            group.sort_by(by_rank);
            leaders_round(
                &group,
                &group_edges,
                members,
                &compare,
                &mut leads,
                &mut out,
            );
            continue;
        }
        let leftover = {
            let rep = *group
                .iter()
                .min_by(|x, y| by_rank(x, y))
                .expect("never empty");
            anchor_round(rep, &group, members, &compare, cut, &mut out)
        };
        let leftover_edges = match &split {
            Split::Edges => group_edges,
            Split::Rejoin(rejoin) if leftover.len() > 1 => {
                let docs: Vec<u32> = leftover.iter().map(|&i| members[i as usize]).collect();
                rejoin(&docs)?
                    .into_iter()
                    .map(|(a, b)| (leftover[a as usize], leftover[b as usize]))
                    .collect()
            }
            Split::Rejoin(_) => Vec::new(),
        };
        for (sub, edges) in split_leftover(&leftover, leftover_edges, &mut slot) {
            match sub[..] {
                [only] => out.push(itself(members[only as usize])),
                _ => groups.push((sub, edges, round + 1)),
            }
        }
    }
    out.sort_unstable_by_key(|a| a.document);
    Ok(out)
}

/// A document that represents itself.
fn itself(d: u32) -> Assignment {
    Assignment {
        document: d,
        representative: d,
        similarity: 1.0,
        within: true,
    }
}

/// One round of the rule: `rep` represents `group`'s members within the threshold of it
/// (every member without the cut); returns the members left over (local numbers).
fn anchor_round(
    rep: u32,
    group: &[u32],
    members: &[u32],
    compare: &(impl Fn(u32, u32) -> (f64, bool) + Sync),
    cut: bool,
    out: &mut Vec<Assignment>,
) -> Vec<u32> {
    let r = members[rep as usize];
    out.push(itself(r));
    let mut leftover = Vec::new();
    let compared = compared_with(r, group, members, compare);
    for (&i, &(similarity, within)) in group.iter().zip(&compared) {
        if i == rep {
            continue;
        }
        let d = members[i as usize];
        if within || !cut {
            out.push(Assignment {
                document: d,
                representative: r,
                similarity,
                within,
            });
        } else {
            leftover.push(i);
        }
    }
    leftover
}

/// The round of a long tail — a group still left over after [`EXACT_ROUNDS`] rounds, such
/// as the near copies of a heavy cluster that resemble each other in a chain, which one
/// representative a round would peel a few at a time, re-joining the rest each time. One pass
/// in rank order (`group` sorted so): each member is compared with its neighbours in `edges`
/// (the verified pairs among the group, local numbers) that lead already, and represented by
/// the first it is within the threshold of; a member near no leader leads. The promise holds
/// (every member represented is within the threshold of a kept leader) at one comparison per
/// pair, and nothing is left over. `leads` is all false before and after.
fn leaders_round(
    group: &[u32],
    edges: &[(u32, u32)],
    members: &[u32],
    compare: &(impl Fn(u32, u32) -> (f64, bool) + Sync),
    leads: &mut [bool],
    out: &mut Vec<Assignment>,
) {
    let mut neighbours: std::collections::HashMap<u32, Vec<u32>> = Default::default();
    for &(a, b) in edges {
        neighbours.entry(a).or_default().push(b);
        neighbours.entry(b).or_default().push(a);
    }
    for &i in group {
        let d = members[i as usize];
        let near = neighbours.get(&i).map_or(&[][..], Vec::as_slice);
        let found = near.iter().filter(|&&j| leads[j as usize]).find_map(|&j| {
            let (similarity, within) = compare(members[j as usize], d);
            within.then_some((members[j as usize], similarity))
        });
        match found {
            Some((l, similarity)) => out.push(Assignment {
                document: d,
                representative: l,
                similarity,
                within: true,
            }),
            None => {
                leads[i as usize] = true;
                out.push(itself(d));
            }
        }
    }
    for &i in group {
        leads[i as usize] = false;
    }
}

/// Members of a group still to be anchored (local numbers) and the pairs among them.
type Group = (Vec<u32>, Vec<(u32, u32)>);

/// Every member of `group` (local numbers) compared with the representative `r`. A large
/// group (a long chain is one, round after round) is compared on every core; the results are
/// per member, so the order of the work does not matter.
fn compared_with(
    r: u32,
    group: &[u32],
    members: &[u32],
    compare: &(impl Fn(u32, u32) -> (f64, bool) + Sync),
) -> Vec<(f64, bool)> {
    if group.len() >= PARALLEL_GROUP {
        use rayon::prelude::*;
        group
            .par_iter()
            .map(|&i| compare(r, members[i as usize]))
            .collect()
    } else {
        group
            .iter()
            .map(|&i| compare(r, members[i as usize]))
            .collect()
    }
}

/// The connected components of the pairs among `leftover` (local numbers), each with its
/// pairs; `slot` is all `u32::MAX` before and after.
fn split_leftover(leftover: &[u32], edges: Vec<(u32, u32)>, slot: &mut [u32]) -> Vec<Group> {
    if leftover.is_empty() {
        return Vec::new();
    }
    for (p, &i) in leftover.iter().enumerate() {
        slot[i as usize] = p as u32;
    }
    let inside: Vec<(u32, u32)> = edges
        .into_iter()
        .filter(|&(a, b)| slot[a as usize] != u32::MAX && slot[b as usize] != u32::MAX)
        .collect();
    let mut uf = UnionFind::new(leftover.len());
    for &(a, b) in &inside {
        uf.union(slot[a as usize], slot[b as usize]);
    }
    let labels = uf.labels();
    let count = labels.iter().max().map_or(0, |&m| m as usize + 1);
    let mut subs: Vec<Group> = vec![Default::default(); count];
    for (p, &i) in leftover.iter().enumerate() {
        subs[labels[p] as usize].0.push(i);
    }
    for e in inside {
        subs[labels[slot[e.0 as usize] as usize] as usize].1.push(e);
    }
    for &i in leftover {
        slot[i as usize] = u32::MAX;
    }
    subs
}
