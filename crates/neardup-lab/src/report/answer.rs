//! The report's answer in one line, first on its page and in the index: for each dataset (or
//! dataset · edit model), the algorithm whose best grid point has the highest F1 and the one
//! whose best has the lowest, from the same best configurations as the table below it.

use std::collections::BTreeMap;

use super::tables::{Grouping, best_configurations, headline};
use crate::experiment::config::Experiment;
use crate::experiment::results::ResultRow;
use crate::metrics::Kind;

/// Groups named in the line; a report with more says how many the table has.
const GROUPS_SHOWN: usize = 3;

/// An algorithm's best grid point in one group.
struct Best<'a> {
    label: &'a str,
    f1: f64,
    precision: Option<f64>,
    recall: Option<f64>,
}

/// "On default, minhash-lsh (t=0.5) finds the most (F1 0.725: precision 1.000, recall 0.708);
/// supershingles the least (F1 0.377)." — or `None` when no group has ground truth.
pub fn answer_line(exp: &Experiment, rows: &[ResultRow]) -> Option<String> {
    let grouping = Grouping::new(exp, rows);
    let (best, _, _) = best_configurations(exp, rows, &grouping);
    let columns = headline(Kind::Quality);
    let at = |name: &str| columns.iter().position(|c| c.name == name);
    let (f1, precision, recall) = (at("f1")?, at("precision")?, at("recall")?);
    let mut groups: BTreeMap<&str, Vec<Best>> = BTreeMap::new();
    for ((group, _, label), (_, _, means)) in &best {
        if let Some(score) = means.get(f1).copied().flatten() {
            groups.entry(group.as_str()).or_default().push(Best {
                label,
                f1: score,
                precision: means[precision],
                recall: means[recall],
            });
        }
    }
    let mut clauses: Vec<String> = groups
        .iter()
        .take(GROUPS_SHOWN)
        .map(|(group, algorithms)| group_clause(group, algorithms))
        .collect();
    if clauses.is_empty() {
        return None;
    }
    if groups.len() > GROUPS_SHOWN {
        clauses.push(format!(
            "the best-configuration table has all {} corpora and edit models",
            groups.len()
        ));
    }
    Some(format!("{}.", clauses.join("; ")))
}

/// One group's clause: its best algorithm with precision and recall, and its worst when
/// there are several. Ties keep the experiment's order (the first listed wins).
fn group_clause(group: &str, algorithms: &[Best]) -> String {
    let fmt = |v: Option<f64>| v.map_or("–".to_string(), |x| format!("{x:.3}"));
    // Unedited corpora are named alone ("bible-en", not "bible-en · none").
    let group = group.strip_suffix(" · none").unwrap_or(group);
    let most = algorithms
        .iter()
        .fold(&algorithms[0], |m, a| if a.f1 > m.f1 { a } else { m });
    let least = algorithms
        .iter()
        .fold(&algorithms[0], |m, a| if a.f1 < m.f1 { a } else { m });
    let mut clause = format!(
        "on {group}, **{}** finds the most (F1 {:.3}: precision {}, recall {})",
        most.label,
        most.f1,
        fmt(most.precision),
        fmt(most.recall)
    );
    if least.label != most.label {
        clause.push_str(&format!(", {} the least (F1 {:.3})", least.label, least.f1));
    }
    clause
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The clause names the highest and the lowest F1, whatever the order they come in.
    #[test]
    fn the_most_and_the_least_by_f1() {
        let best = |label, f1, precision, recall| Best {
            label,
            f1,
            precision,
            recall,
        };
        let algorithms = [
            best("simhash", 0.5, Some(0.9), Some(0.4)),
            best("minhash-lsh", 0.8, Some(1.0), Some(0.7)),
            best("i-match", 0.2, None, Some(0.1)),
        ];
        assert_eq!(
            group_clause("default", &algorithms),
            "on default, **minhash-lsh** finds the most (F1 0.800: precision 1.000, recall \
             0.700), i-match the least (F1 0.200)"
        );
        assert_eq!(
            group_clause("bible-en · none", &algorithms[..1]),
            "on bible-en, **simhash** finds the most (F1 0.500: precision 0.900, recall 0.400)"
        );
        assert_eq!(
            group_clause("x", &algorithms[..1]),
            "on x, **simhash** finds the most (F1 0.500: precision 0.900, recall 0.400)"
        );
    }
}
