//! `dedup --keep max:FIELD` / `min:FIELD` (#53 item 11): each cluster keeps the member whose
//! field holds the largest (smallest) number or latest (earliest) date, the first among
//! equals, members without a value last — checked against that rule computed on the corpus
//! itself, in JSON Lines (top-level and nested fields), CSV and Parquet, with the join in
//! memory and spilled. Bad values are errors naming the file and line.

mod common;

use std::collections::BTreeSet;
use std::path::Path;

use common::dedup_corpus::fresh_dir;
use common::{err, ok};

/// SplitMix64, so the corpus depends only on the seed.
struct Rng(u64);
impl Rng {
    fn below(&mut self, n: u64) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        (z ^ (z >> 31)) % n
    }
}

const SEED: u64 = 20261128;

/// One document: its id, text, the cluster it was made for, its score (`None`: absent) and
/// when it was published, as seconds and as written.
struct Doc {
    id: String,
    text: String,
    cluster: usize,
    score: Option<f64>,
    date: Option<(i64, String)>,
}

/// `clusters` groups of 1–6 exact copies of a random 60-word text, shuffled together; scores
/// drawn from few values (ties happen), some absent; dates in several ISO 8601 spellings and
/// offsets, some absent.
fn corpus(clusters: usize) -> Vec<Doc> {
    println!("keep corpus seed {SEED}");
    let mut rng = Rng(SEED);
    let mut docs = Vec::new();
    for c in 0..clusters {
        let text: Vec<String> = (0..60).map(|_| format!("w{}", rng.below(5000))).collect();
        for k in 0..=rng.below(6) {
            let score = (rng.below(5) > 0).then(|| rng.below(7) as f64 * 0.5 - 1.0);
            let date = (rng.below(6) > 0).then(|| {
                // Seconds in 2024 at a multiple of 90 minutes, written in one of four ways.
                let t = 1_704_067_200 + rng.below(5000) as i64 * 5400;
                (t, spell_date(t, rng.below(4)))
            });
            docs.push(Doc {
                id: format!("c{c}-{k}"),
                text: text.join(" "),
                cluster: c,
                score,
                date,
            });
        }
    }
    for i in (1..docs.len()).rev() {
        docs.swap(i, rng.below(i as u64 + 1) as usize);
    }
    docs
}

/// The instant `t` (seconds since 1970) in ISO 8601 spelling `how`.
fn spell_date(t: i64, how: u64) -> String {
    let (days, secs) = (t.div_euclid(86_400), t.rem_euclid(86_400));
    let (y, m, d) = civil_from_days(days);
    let (h, mi) = (secs / 3600, secs % 3600 / 60);
    match how {
        0 => format!("{y:04}-{m:02}-{d:02}T{h:02}:{mi:02}:00Z"),
        1 => format!("{y:04}-{m:02}-{d:02} {h:02}:{mi:02}"),
        // Two hours east of UTC: the clock reads two hours later.
        2 => {
            let (y, m, d) = civil_from_days((t + 7200).div_euclid(86_400));
            let s = (t + 7200).rem_euclid(86_400);
            format!(
                "{y:04}-{m:02}-{d:02}T{:02}:{:02}:00+02:00",
                s / 3600,
                s % 3600 / 60
            )
        }
        _ => format!("{y:04}-{m:02}-{d:02}T{h:02}:{mi:02}:00.000+0000"),
    }
}

/// H. Hinnant's `civil_from_days`.
fn civil_from_days(z: i64) -> (i64, u32, u32) {
    let z = z + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let m = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    (
        if m <= 2 {
            yoe + era * 400 + 1
        } else {
            yoe + era * 400
        },
        m,
        d,
    )
}

/// The ids the rule removes: in each cluster, all but the member with the best value (the
/// first in input order among equals; without a value after every value).
fn oracle_removed(
    docs: &[Doc],
    value: impl Fn(&Doc) -> Option<f64>,
    largest: bool,
) -> BTreeSet<String> {
    let mut best: Vec<Option<usize>> = Vec::new();
    for (i, d) in docs.iter().enumerate() {
        if best.len() <= d.cluster {
            best.resize(d.cluster + 1, None);
        }
        let better = match best[d.cluster] {
            None => true,
            Some(b) => match (value(d), value(&docs[b])) {
                (Some(x), Some(y)) => {
                    if largest {
                        x > y
                    } else {
                        x < y
                    }
                }
                (Some(_), None) => true,
                _ => false,
            },
        };
        if better {
            best[d.cluster] = Some(i);
        }
    }
    docs.iter()
        .enumerate()
        .filter(|(i, d)| best[d.cluster] != Some(*i))
        .map(|(_, d)| d.id.clone())
        .collect()
}

fn removed(out: &Path) -> BTreeSet<String> {
    std::fs::read_to_string(out.join("removed.txt"))
        .unwrap()
        .lines()
        .map(str::to_string)
        .collect()
}

/// A document's value in the field a case keeps by.
type ValueOf = dyn Fn(&Doc) -> Option<f64>;

/// `got == want`, else a failure naming the ids that differ (not both whole sets).
fn assert_same(got: &BTreeSet<String>, want: &BTreeSet<String>, what: &str) {
    let extra: Vec<_> = got.difference(want).take(10).collect();
    let missing: Vec<_> = want.difference(got).take(10).collect();
    assert!(
        extra.is_empty() && missing.is_empty(),
        "{what}: removed but should be kept {extra:?}; kept but should be removed {missing:?}"
    );
}

fn json_value(v: Option<f64>) -> String {
    v.map_or("null".into(), |x| x.to_string())
}

/// JSON Lines: score at the top level (absent, or null, when there is none), the date nested
/// in `meta`.
fn write_jsonl(path: &Path, docs: &[Doc]) {
    let mut s = String::new();
    for (i, d) in docs.iter().enumerate() {
        let score = match (d.score, i % 2) {
            (None, 0) => String::new(),
            (v, _) => format!(", \"score\": {}", json_value(v)),
        };
        let date = d
            .date
            .as_ref()
            .map_or(String::new(), |(_, s)| format!("\"date\": \"{s}\", "));
        s.push_str(&format!(
            "{{\"id\": \"{}\", \"meta\": {{{date}\"lang\": \"en\"}}, \"text\": \"{}\"{score}}}\n",
            d.id, d.text
        ));
    }
    std::fs::write(path, s).unwrap();
}

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

#[test]
fn each_cluster_keeps_the_member_its_field_chooses() {
    let d = fresh_dir("keep", "jsonl");
    let docs = corpus(400);
    let input = d.join("c.jsonl");
    write_jsonl(&input, &docs);
    let score = |x: &Doc| x.score;
    let date = |x: &Doc| x.date.as_ref().map(|(t, _)| *t as f64);
    let cases: [(&str, &ValueOf, bool); 4] = [
        ("max:score", &score, true),
        ("min:score", &score, false),
        ("max:meta.date", &date, true),
        ("min:meta.date", &date, false),
    ];
    for (keep, value, largest) in cases {
        let want = oracle_removed(&docs, value, largest);
        // First-kept would differ: else the test could not tell the rule from the default.
        assert_ne!(want, oracle_removed(&docs, |_| None, true), "{keep}");
        for memory in [None, Some("600KB")] {
            let out = d.join(format!(
                "out-{}-{}",
                keep.replace(':', "-"),
                memory.is_some()
            ));
            let mut args = vec!["dedup", s(&input), "-o", s(&out), "--keep", keep];
            if let Some(m) = memory {
                args.extend(["--memory", m, "--threads", "2"]);
            }
            ok(&args);
            assert_same(
                &removed(&out),
                &want,
                &format!("--keep {keep}, --memory {memory:?}"),
            );
            let summary: serde_json::Value =
                serde_json::from_slice(&std::fs::read(out.join("summary.json")).unwrap()).unwrap();
            let without = docs.iter().filter(|x| value(x).is_none()).count();
            assert_eq!(summary["keep"], keep);
            assert_eq!(summary["without_keep_value"], without as u64, "{keep}");
            if memory.is_some() {
                assert_eq!(
                    summary["spilled"], true,
                    "the join must spill for this case"
                );
            }
        }
    }
}

#[test]
fn csv_and_parquet_keep_by_their_columns() {
    let d = fresh_dir("keep", "tables");
    let docs = corpus(150);
    let score = |x: &Doc| x.score;
    let want = oracle_removed(&docs, score, true);
    let csv = d.join("c.csv");
    let mut w = csv::Writer::from_path(&csv).unwrap();
    w.write_record(["id", "text", "score"]).unwrap();
    for x in &docs {
        let v = x.score.map_or(String::new(), |v| v.to_string());
        w.write_record([x.id.as_str(), &x.text, &v]).unwrap();
    }
    w.flush().unwrap();
    let out = d.join("out-csv");
    ok(&["dedup", s(&csv), "-o", s(&out), "--keep", "max:score"]);
    assert_same(&removed(&out), &want, "CSV max:score");

    // Parquet: scores as floats (nulls where absent), dates as ISO 8601 strings.
    use polars::prelude::*;
    let mut df = df!(
        "id" => docs.iter().map(|x| x.id.clone()).collect::<Vec<_>>(),
        "text" => docs.iter().map(|x| x.text.clone()).collect::<Vec<_>>(),
        "score" => docs.iter().map(|x| x.score).collect::<Vec<_>>(),
        "when" => docs.iter().map(|x| x.date.as_ref().map(|(_, s)| s.clone())).collect::<Vec<_>>(),
    )
    .unwrap();
    let parquet = d.join("c.parquet");
    ParquetWriter::new(std::fs::File::create(&parquet).unwrap())
        .finish(&mut df)
        .unwrap();
    let out = d.join("out-parquet");
    ok(&["dedup", s(&parquet), "-o", s(&out), "--keep", "max:score"]);
    assert_same(&removed(&out), &want, "Parquet max:score");
    let out = d.join("out-parquet-date");
    ok(&["dedup", s(&parquet), "-o", s(&out), "--keep", "min:when"]);
    let date = |x: &Doc| x.date.as_ref().map(|(t, _)| *t as f64);
    assert_same(
        &removed(&out),
        &oracle_removed(&docs, date, false),
        "Parquet min:when",
    );
}

#[test]
fn a_value_that_is_no_number_or_date_is_named_with_its_line() {
    let d = fresh_dir("keep", "bad");
    let input = d.join("c.jsonl");
    std::fs::write(
        &input,
        "{\"text\": \"a b c d\", \"score\": 1}\n{\"text\": \"a b c d\", \"score\": \"high\"}\n",
    )
    .unwrap();
    let e = err(&[
        "dedup",
        s(&input),
        "-o",
        s(&d.join("o")),
        "--keep",
        "max:score",
    ]);
    assert!(
        e.contains("c.jsonl:2") && e.contains("\"high\"") && e.contains("ISO 8601"),
        "{e}"
    );
    let csv = d.join("c.csv");
    std::fs::write(&csv, "text,id\nhello,1\n").unwrap();
    let e = err(&[
        "dedup",
        s(&csv),
        "-o",
        s(&d.join("o2")),
        "--keep",
        "max:score",
    ]);
    assert!(
        e.contains("c.csv") && e.contains("no column `score`"),
        "{e}"
    );
    let e = err(&["dedup", s(&input), "-o", s(&d.join("o3")), "--keep", "max:"]);
    assert!(e.contains("names no field"), "{e}");
    let e = err(&[
        "dedup",
        s(&input),
        "-o",
        s(&d.join("o4")),
        "--keep",
        "newest",
    ]);
    assert!(e.contains("max:FIELD"), "{e}");
    assert!(!d.join("o").join("summary.json").exists());
    // A web page has no fields but when it was fetched.
    let page = d.join("page.html");
    std::fs::write(
        &page,
        "<html><body><p>Some text of a page.</p></body></html>",
    )
    .unwrap();
    let e = err(&[
        "dedup",
        s(&page),
        "-o",
        s(&d.join("o5")),
        "--keep",
        "max:score",
    ]);
    assert!(e.contains("page.html") && e.contains("max:date"), "{e}");
    assert!(!d.join("o5").exists(), "refused before any work");
}
