//! Clustering of verified pairs into near-duplicate groups: connected components by
//! union–find (union by size, path halving; Tarjan 1975), as Lee et al. (2022) and most
//! web-scale pipelines do.
//!
//! Cluster ids are deterministic: clusters are numbered 0, 1, … in the order of their smallest
//! member, whatever order the pairs arrive in.
//!
//! `anchored/` cuts the components so that every member is within the threshold of the
//! document kept for it (`neardup dedup --clusters verified`).

pub mod anchored;

/// Disjoint sets over `0..n`.
#[derive(Debug, Clone)]
pub struct UnionFind {
    parent: Vec<u32>,
    size: Vec<u32>,
}

impl UnionFind {
    /// `n` singletons.
    pub fn new(n: usize) -> Self {
        assert!(n <= u32::MAX as usize, "at most 2^32 − 1 elements");
        UnionFind {
            parent: (0..n as u32).collect(),
            size: vec![1; n],
        }
    }

    /// The representative of `x`'s set.
    pub fn find(&mut self, mut x: u32) -> u32 {
        while self.parent[x as usize] != x {
            let grand = self.parent[self.parent[x as usize] as usize];
            self.parent[x as usize] = grand;
            x = grand;
        }
        x
    }

    /// Merges the sets of `a` and `b`; returns whether they were apart.
    pub fn union(&mut self, a: u32, b: u32) -> bool {
        let (mut ra, mut rb) = (self.find(a), self.find(b));
        if ra == rb {
            return false;
        }
        if self.size[ra as usize] < self.size[rb as usize] {
            std::mem::swap(&mut ra, &mut rb);
        }
        self.parent[rb as usize] = ra;
        self.size[ra as usize] += self.size[rb as usize];
        true
    }

    /// Cluster id of every element, numbered by smallest member.
    pub fn labels(&mut self) -> Vec<u32> {
        let n = self.parent.len();
        let mut id_of_root = vec![u32::MAX; n];
        let mut next = 0;
        (0..n as u32)
            .map(|x| {
                let r = self.find(x) as usize;
                if id_of_root[r] == u32::MAX {
                    id_of_root[r] = next;
                    next += 1;
                }
                id_of_root[r]
            })
            .collect()
    }
}

/// Cluster labels of `n` documents linked by `pairs`.
pub fn connected_components(n: usize, pairs: impl IntoIterator<Item = (u32, u32)>) -> Vec<u32> {
    let mut uf = UnionFind::new(n);
    for (a, b) in pairs {
        uf.union(a, b);
    }
    uf.labels()
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn small_example() {
        let labels = connected_components(6, [(4, 5), (0, 2), (2, 4)]);
        assert_eq!(labels, [0, 1, 0, 2, 0, 0]);
    }

    proptest! {
        // Oracle: labels equal a naive flood fill, and do not depend on pair order.
        #[test]
        fn equals_flood_fill(n in 1usize..30, raw in prop::collection::vec((0u32..30, 0u32..30), 0..60)) {
            let pairs: Vec<(u32, u32)> = raw.into_iter().filter(|(a, b)| (*a as usize) < n && (*b as usize) < n).collect();
            let labels = connected_components(n, pairs.iter().copied());
            let mut reversed = pairs.clone();
            reversed.reverse();
            prop_assert_eq!(&labels, &connected_components(n, reversed.iter().map(|&(a, b)| (b, a))));
            // flood fill
            let mut naive = vec![u32::MAX; n];
            let mut next = 0;
            for start in 0..n {
                if naive[start] != u32::MAX { continue; }
                let mut stack = vec![start];
                naive[start] = next;
                while let Some(x) = stack.pop() {
                    for &(a, b) in &pairs {
                        for (u, v) in [(a as usize, b as usize), (b as usize, a as usize)] {
                            if u == x && naive[v] == u32::MAX {
                                naive[v] = next;
                                stack.push(v);
                            }
                        }
                    }
                }
                next += 1;
            }
            prop_assert_eq!(labels, naive);
        }
    }
}
