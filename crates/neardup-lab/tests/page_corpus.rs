//! The page benchmark's generator and runner against oracles, on
//! `../shared/datasets/web/web-pages.jsonl.gz` and `bible-zh.jsonl.gz` (CI always has them):
//!
//! - a generated page's main text recovers the article put into it (word F1 ≥ 0.9 on at least
//!   90 % of generated pages; the others are dropped and counted);
//! - the template's own text survives around it;
//! - pages are byte-identical per seed for any thread count, and differ between seeds;
//! - Chinese pages are written in UTF-8, GBK and Big5 and read back as such;
//! - every P/R/F1 row of a page experiment recomputed from its cell's pairs and the truth.

#[allow(dead_code)] // `err`, `neardup`: the other test files' helpers.
mod common;

use std::collections::HashMap;
use std::path::Path;

use common::shared_data;
use neardup_dedup::web::extract::{Extract, page_text};
use neardup_lab::corpus::pages::chinese::PageCharset;
use neardup_lab::corpus::pages::words::{f1, precision_recall};
use neardup_lab::corpus::pages::{MIN_GENERATED_F1, PageSet, PageSource, Pages};
use neardup_lab::edits::derive::DeriveOptions;

fn options(seed: u64, fraction: f64) -> DeriveOptions {
    DeriveOptions {
        copies: 2,
        fraction,
        seed,
        chain: false,
    }
}

fn generated(pages: &Pages) -> usize {
    pages.pages.iter().filter(|p| p.template.is_some()).count()
}

#[test]
fn generated_pages_carry_their_article_inside_the_template() {
    let Some(data) = shared_data("web/web-pages.jsonl.gz") else {
        return;
    };
    let source = PageSource::load(PageSet::English, &data, Some(80))
        .unwrap()
        .unwrap();
    let pages = source.generate(None, options(1, 1.0)).unwrap();
    let made = generated(&pages) + pages.dropped;
    eprintln!("{made} generated pages, {} dropped", pages.dropped);
    assert_eq!(made, 160, "two copies of each of 80 articles");
    assert!(
        pages.dropped * 10 <= made,
        "{} of {made} dropped",
        pages.dropped
    );
    let templates: HashMap<&str, &str> = source
        .templates()
        .map(|(t, _)| (t.id.as_str(), t.html()))
        .collect();
    let gold_article: HashMap<&str, &str> = (0..source.articles.len())
        .map(|i| (source.articles.id(i), source.articles.text(i)))
        .collect();
    let mut kept_template_text = (0usize, 0usize);
    for page in pages.pages.iter().filter(|p| p.template.is_some()) {
        // The article put in is what the default extraction reads.
        let (p, r) = precision_recall(&page.main, &page.article);
        assert!(f1(p, r) >= MIN_GENERATED_F1, "{}: F1 {}", page.id, f1(p, r));
        // The template's own lines (its visible text outside its article) are still there.
        let template_id = page.template.as_deref().unwrap();
        let own_article = gold_article[template_id];
        let template_visible = page_text(templates[template_id], Extract::Visible).text;
        let page_visible = page_text(&page.html, Extract::Visible).text;
        for line in template_visible
            .lines()
            .map(str::trim)
            .filter(|l| l.len() > 20)
        {
            if own_article.contains(line) {
                continue;
            }
            kept_template_text.1 += 1;
            kept_template_text.0 += page_visible.contains(line) as usize;
        }
        assert_ne!(page.cluster, None, "a copy shares its article's cluster");
        assert!(
            !page.html.contains("data-neardup-article"),
            "the mark is removed"
        );
    }
    let (kept, all) = kept_template_text;
    eprintln!("{kept} of {all} template lines survive");
    // The lines that go are those inside the replaced element that are not the article:
    // headlines, bylines, captions (5.5 % on 80 pages).
    assert!(
        all > 1000 && kept * 100 >= all * 90,
        "{kept} of {all} template lines survive"
    );
}

#[test]
fn pages_are_identical_per_seed_for_any_thread_count() {
    let Some(data) = shared_data("web/web-pages.jsonl.gz") else {
        return;
    };
    let source = PageSource::load(PageSet::English, &data, Some(30))
        .unwrap()
        .unwrap();
    let model = neardup_lab::edits::EditModel::parse("substitute=0.1").unwrap();
    let on = |threads: usize, seed: u64| {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .unwrap();
        let pages = pool.install(|| source.generate(Some(&model), options(seed, 0.5)).unwrap());
        pages
            .pages
            .iter()
            .map(|p| (p.id.clone(), p.html.clone(), p.cluster.clone()))
            .collect::<Vec<_>>()
    };
    let one = on(1, 7);
    assert_eq!(one, on(2, 7));
    assert_ne!(one, on(2, 8), "another seed, other copies");
}

#[test]
fn chinese_pages_round_trip_utf8_gbk_and_big5() {
    let Some(data) = shared_data("web/web-pages.jsonl.gz") else {
        return;
    };
    if shared_data("bible-zh.jsonl.gz").is_none() {
        return;
    }
    let source = PageSource::load(PageSet::Chinese, &data, Some(12))
        .unwrap()
        .unwrap();
    let declared: HashMap<&str, PageCharset> = source
        .templates()
        .map(|(t, c)| (t.id.as_str(), c))
        .collect();
    let pages = source.generate(None, options(3, 1.0)).unwrap();
    assert!(pages.dropped * 10 <= generated(&pages) + pages.dropped);
    let mut seen = Vec::new();
    for page in &pages.pages {
        // Every Chinese page is made; its bytes were decoded in the charset its site declares.
        let charset = declared[page.template.as_deref().unwrap()];
        assert_eq!(page.charset, charset.encoding().name(), "{}", page.id);
        let declared_meta = format!("charset=\"{}\"", charset.label());
        let head = &page.html[..page.html.len().min(600)];
        assert!(
            page.html.contains(&declared_meta),
            "{declared_meta} in {head}"
        );
        // The article's characters come back, through GBK and Big5 too.
        let (p, r) = precision_recall(&page.main, &page.article);
        assert!(f1(p, r) >= MIN_GENERATED_F1);
        if !seen.contains(&page.charset) {
            seen.push(page.charset);
        }
    }
    seen.sort();
    assert_eq!(seen, ["Big5", "GBK", "UTF-8"]);
}

/// A page experiment through the runner: each row's precision, recall and F1 from its cell's
/// pairs and the truth's labels.
#[test]
fn every_page_result_row_is_recomputed_from_its_pairs() {
    let Some(data) = shared_data("web/web-pages.jsonl.gz") else {
        return;
    };
    let dir = std::env::temp_dir().join(format!("neardup-page-runner-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let text = r#"
name = "pages-check"
title = "t"
question = "q"
seeds = [1]
charts = []

[[datasets]]
name = "web-pages"
docs = 24
copies = 2
fraction = 0.5
read = ["html", "main"]

[edits]
unedited = true
models = ["truncate=0.3"]

[[algorithms]]
name = "minhash-lsh"
query = { min_similarity = [0.3, 0.7] }

[[algorithms]]
name = "spotsigs"
"#;
    let exp = neardup_lab::experiment::config::parse(Path::new("pages-check.toml"), text).unwrap();
    let opts = neardup_lab::experiment::runner::RunOptions {
        out: dir.join("out"),
        cache: dir.join("cache"),
        data_dir: data,
        force: false,
    };
    let outcome = neardup_lab::experiment::runner::run(&exp, &opts).unwrap();
    assert_eq!(outcome.readings.len(), 4, "two readings of two edit models");
    let results = neardup_lab::experiment::results::collect(&outcome, &opts.cache).unwrap();
    assert_eq!(results.rows.len(), 2 * 2 * (2 + 1));
    for row in &results.rows {
        let labels = &outcome.truths[&row.cell.corpus_sha256].labels;
        let pairs = &results.cells[&row.cell.key].queries[row.query_index].pairs;
        let tp = (0..pairs.a.len())
            .filter(|&i| {
                let (a, b) = (pairs.a[i] as usize, pairs.b[i] as usize);
                labels[a].is_some() && labels[a] == labels[b]
            })
            .count() as f64;
        let mut sizes: HashMap<u32, u64> = HashMap::new();
        for l in labels.iter().flatten() {
            *sizes.entry(*l).or_default() += 1;
        }
        let positives: u64 = sizes.values().map(|n| n * (n - 1) / 2).sum();
        let precision = if pairs.a.is_empty() {
            None
        } else {
            Some(tp / pairs.a.len() as f64)
        };
        let recall = tp / positives as f64;
        let close = |x: Option<f64>, y: Option<f64>| match (x, y) {
            (Some(x), Some(y)) => (x - y).abs() < 1e-9,
            (None, None) => true,
            _ => false,
        };
        let what = format!(
            "{} {} {} {}",
            row.cell.dataset, row.cell.edit_spec, row.cell.label, row.query_params
        );
        assert!(
            close(row.metric("recall"), Some(recall)),
            "{what}: recall {:?} vs {recall}",
            row.metric("recall")
        );
        if let Some(p) = precision {
            assert!(close(row.metric("precision"), Some(p)), "{what}: precision");
            let f = f1(p, recall);
            assert!(
                close(row.metric("f1"), Some(f)),
                "{what}: f1 {:?} vs {f}",
                row.metric("f1")
            );
        }
    }
    // HTML as text reads a copy in another template as a different page: fewer true pairs
    // found than from the main text.
    let found = |reading: &str| {
        neardup_lab::report::web_pages::mean_best_f1(
            &results.rows,
            &format!("web-pages ({reading})"),
            "minhash-lsh",
            None,
        )
        .unwrap()
    };
    assert!(
        found("main") > found("html") + 0.3,
        "main {} html {}",
        found("main"),
        found("html")
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// `--html-field` in the commands that read a corpus (here `inspect --corpus`): the pages'
/// extracted text is what is compared, so two stories of one site's template stop pairing.
#[test]
fn inspect_reads_an_html_field_as_dedup_does() {
    let Some(data) = shared_data("web/web-pages.jsonl.gz") else {
        return;
    };
    let dir = std::env::temp_dir().join(format!("neardup-page-inspect-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let corpus = dir.join("pages.jsonl");
    let mut jsonl = String::new();
    let gold = std::io::BufReader::new(flate2::read::GzDecoder::new(
        std::fs::File::open(data.join("web/web-pages.jsonl.gz")).unwrap(),
    ));
    for line in std::io::BufRead::lines(gold).take(40) {
        let v: serde_json::Value = serde_json::from_str(&line.unwrap()).unwrap();
        let row = serde_json::json!({"id": v["id"], "page": v["html"], "cluster": v["host"]});
        jsonl.push_str(&format!("{row}\n"));
    }
    std::fs::write(&corpus, jsonl).unwrap();
    let pairs = |extract: &str| {
        let c = corpus.to_str().unwrap();
        let html = dir.join(format!("{extract}.html"));
        let out = common::ok(&[
            "inspect",
            "--corpus",
            c,
            "--html-field",
            "page",
            "--extract",
            extract,
            "--html",
            html.to_str().unwrap(),
        ]);
        let summary = out
            .lines()
            .find(|l| l.contains("documents,"))
            .unwrap()
            .to_string();
        (summary, std::fs::read_to_string(html).unwrap())
    };
    let (raw, raw_page) = pairs("none");
    let (main, main_page) = pairs("main");
    assert!(
        raw.contains("1 pairs") && main.contains("0 pairs"),
        "{raw}\n{main}"
    );
    // The page shows the text that was compared: markup as text, or the extracted article.
    assert!(raw_page.contains("&lt;div") && !main_page.contains("&lt;div"));
    let _ = std::fs::remove_dir_all(&dir);
}
