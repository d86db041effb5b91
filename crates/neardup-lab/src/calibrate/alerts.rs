//! What must be read before the ranking: labels whose weight outweighs the rest (one wrong key
//! on a `random`-stratum pair of `neardup label`, weight ≈ 10⁶, made calibrate recommend a
//! setting that removed 1,938 of 2,000 documents), and a recommendation that would remove most
//! of the corpus or chain a large share of it into one cluster.

use super::labelled_pairs::Weighted;
use super::options::Outcome;
use super::resampling::effective_size;
use crate::charts::style::whole;

/// Share of its class's weight above which one labelled pair is flagged.
pub(crate) const HEAVY_LABEL_SHARE: f64 = 0.25;
/// Fewest pairs of a class for a share to mean anything (with 2 pairs, each holds half).
const MIN_CLASS_FOR_SHARE: usize = 5;
/// Share of the corpus a recommended setting may remove before it is flagged.
pub(crate) const MAX_REMOVED_SHARE: f64 = 0.5;
/// Share of the corpus its largest cluster may hold before it is flagged.
pub(crate) const MAX_CLUSTER_SHARE: f64 = 0.25;

/// One alert per class (duplicates, non-duplicates) whose heaviest labelled pair carries more
/// than [`HEAVY_LABEL_SHARE`] of the class's weight; `name(p)` names a packed pair.
pub(crate) fn heavy_labels(labelled: &[Weighted], name: &dyn Fn(u64) -> String) -> Vec<String> {
    let mut out = Vec::new();
    for (positive, class) in [(true, "duplicates"), (false, "non-duplicates")] {
        let members: Vec<&Weighted> = labelled.iter().filter(|p| p.1 == positive).collect();
        if members.len() < MIN_CLASS_FOR_SHARE {
            continue;
        }
        let total: f64 = members.iter().map(|p| p.2).sum();
        let squares: f64 = members.iter().map(|p| p.2 * p.2).sum();
        let heaviest = members
            .iter()
            .max_by(|x, y| x.2.total_cmp(&y.2))
            .expect("non-empty");
        let share = heaviest.2 / total;
        if share > HEAVY_LABEL_SHARE {
            out.push(format!(
                "one labelled pair, {} (labelled {}, weight {}), carries {:.1} % of the {class}' \
                 weight: the {} {class} count as {:.1} (Kish's effective size), so every \
                 estimate rests on that one label. Check it: a wrong key on a heavy `random` \
                 stratum pair is the usual cause",
                name(heaviest.0),
                if positive { "duplicate" } else { "not" },
                whole(&heaviest.2),
                share * 100.0,
                members.len(),
                effective_size(total, squares)
            ));
        }
    }
    out
}

/// An alert when deduplicating with the recommended setting would remove more than
/// [`MAX_REMOVED_SHARE`] of the `documents`, or build a cluster of more than
/// [`MAX_CLUSTER_SHARE`] of them ([`sweeps`]), in a sentence.
pub(crate) fn sweeping(best: &Outcome, documents: usize) -> Option<String> {
    let effects = best.clusters.as_ref()?.as_ref().ok()?;
    let n = documents.max(1) as f64;
    sweeps(effects, documents).then(|| {
        format!(
            "the recommended setting would remove {} of the {} documents ({:.0} %; largest \
             cluster {}). Unless most of the corpus really is copies, the labels mislead it \
             (look at the pairs it would join: `neardup inspect --corpus …` with its \
             parameters); the flag is raised above {:.0} % removed or a cluster of {:.0} %",
            whole(&effects.removed),
            whole(&n),
            100.0 * effects.removed / n,
            whole(&effects.largest),
            MAX_REMOVED_SHARE * 100.0,
            MAX_CLUSTER_SHARE * 100.0
        )
    })
}

/// Whether a setting with these effects would remove more than [`MAX_REMOVED_SHARE`] of the
/// `documents` or build a cluster of more than [`MAX_CLUSTER_SHARE`] of them.
pub(crate) fn sweeps(effects: &super::clusters::ClusterEffects, documents: usize) -> bool {
    let n = documents.max(1) as f64;
    effects.removed > MAX_REMOVED_SHARE * n || effects.largest > MAX_CLUSTER_SHARE * n
}
