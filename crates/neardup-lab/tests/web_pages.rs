//! Web pages in (issue "Web pages in"): real HTML pages with their gold article text and real
//! crawler WARCs from `../shared/datasets/web/` (CI always has them).
//!
//! - the default extraction's word F1 against the gold articles;
//! - every shared WARC/ARC file is read, or refused naming the file;
//! - `dedup` of a WARC built here with known truth: the same article under two hosts'
//!   templates is removed and two articles in one template are kept at the defaults, where
//!   `--extract none` gets both wrong; the deduplicated WARC holds the kept records byte for
//!   byte (the oracle: the records as this test wrote them);
//! - a directory of HTML files in legacy charsets reads as the right text.

mod common;

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::io::{Read, Write};
use std::path::{Path, PathBuf};

use common::{err, neardup, ok, shared_data};
use neardup_dedup::web::charset::Encoding;

/// One page of `web-pages.jsonl.gz`.
#[derive(Debug, Clone)]
struct GoldPage {
    id: String,
    set: String,
    url: Option<String>,
    html: String,
    article: String,
}

fn gold_pages(dir: &Path) -> Vec<GoldPage> {
    let file = std::fs::File::open(dir.join("web/web-pages.jsonl.gz")).expect("web pages");
    let mut text = String::new();
    flate2::read::GzDecoder::new(file)
        .read_to_string(&mut text)
        .expect("gzip JSONL");
    text.lines()
        .map(|line| {
            let v: serde_json::Value = serde_json::from_str(line).expect("JSON");
            let s = |k: &str| v[k].as_str().map(str::to_string);
            GoldPage {
                id: s("id").unwrap(),
                set: s("set").unwrap(),
                url: s("url"),
                html: s("html").unwrap(),
                article: s("article").unwrap(),
            }
        })
        .collect()
}

/// Lowercase words (Unicode alphanumeric runs), as a multiset.
fn words(text: &str) -> HashMap<String, u32> {
    let mut bag = HashMap::new();
    for w in text
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
    {
        *bag.entry(w.to_lowercase()).or_default() += 1;
    }
    bag
}

/// Word precision and recall of `got` against `gold` (multisets).
fn precision_recall(got: &str, gold: &str) -> (f64, f64) {
    let (got, gold) = (words(got), words(gold));
    let common: u32 = got
        .iter()
        .map(|(w, n)| (*n).min(gold.get(w).copied().unwrap_or(0)))
        .sum();
    let total = |b: &HashMap<String, u32>| b.values().sum::<u32>().max(1) as f64;
    (common as f64 / total(&got), common as f64 / total(&gold))
}

#[test]
fn word_precision_recall_is_exact_on_hand_counted_texts() {
    // got: a a b c (4 words), gold: a b b d (4): common a, b = 2.
    let (p, r) = precision_recall("A a, b c", "a b B d");
    assert_eq!((p, r), (0.5, 0.5));
    assert_eq!(precision_recall("same words", "Same  words"), (1.0, 1.0));
}

/// The default extraction (`neardup extract`, main content) against the gold articles: mean
/// word precision and recall per page, F1 of the means (the ScrapingHub benchmark's way).
#[test]
fn the_default_extraction_scores_word_f1_of_at_least_095_on_the_gold_articles() {
    let Some(dir) = shared_data("web/web-pages.jsonl.gz") else {
        return;
    };
    let pages = gold_pages(&dir);
    let tmp = tempdir("f1");
    let out = tmp.join("texts.jsonl");
    let input = dir.join("web/web-pages.jsonl.gz");
    ok(&[
        "extract",
        input.to_str().unwrap(),
        "--html-field",
        "html",
        "-o",
        out.to_str().unwrap(),
    ]);
    let texts: HashMap<String, String> = std::fs::read_to_string(&out)
        .unwrap()
        .lines()
        .map(|l| {
            let v: serde_json::Value = serde_json::from_str(l).unwrap();
            (
                v["id"].as_str().unwrap().into(),
                v["text"].as_str().unwrap().into(),
            )
        })
        .collect();
    assert_eq!(texts.len(), pages.len(), "one row per page");
    let mut by_set: BTreeMap<&str, (f64, f64, usize)> = BTreeMap::new();
    for page in &pages {
        let (p, r) = precision_recall(&texts[&page.id], &page.article);
        let entry = by_set.entry(page.set.as_str()).or_default();
        *entry = (entry.0 + p, entry.1 + r, entry.2 + 1);
    }
    let f1 = |(p, r, n): (f64, f64, usize)| {
        let (p, r) = (p / n as f64, r / n as f64);
        (p, r, 2.0 * p * r / (p + r))
    };
    for (set, sums) in &by_set {
        let (p, r, f) = f1(*sums);
        println!("{set}: {} pages, word P {p:.3} R {r:.3} F1 {f:.3}", sums.2);
    }
    let (_, _, scrapinghub) = f1(by_set["scrapinghub"]);
    assert!(
        scrapinghub >= 0.95,
        "word F1 {scrapinghub:.3} on the 181 ScrapingHub pages"
    );
}

/// Every file of `warc/` is read (pages counted, records skipped by reason) or refused with
/// an error naming it: ARC files by format, a damaged file by where the damage is.
#[test]
fn every_shared_warc_and_arc_file_is_read_or_refused_by_name() {
    let Some(dir) = shared_data("web/warc/warcio-example.warc.gz") else {
        return;
    };
    let tmp = tempdir("warcs");
    let mut entries: Vec<PathBuf> = std::fs::read_dir(dir.join("web/warc"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    entries.sort();
    let mut pages = BTreeMap::new();
    for path in &entries {
        let name = path.file_name().unwrap().to_string_lossy().to_string();
        let out = tmp.join(format!("{name}.jsonl"));
        let run = neardup(&[
            "extract",
            path.to_str().unwrap(),
            "-o",
            out.to_str().unwrap(),
        ]);
        let stderr = String::from_utf8_lossy(&run.stderr).to_string();
        if run.status.success() {
            let rows = std::fs::read_to_string(&out).unwrap().lines().count();
            pages.insert(name, (rows, stderr));
        } else {
            assert!(
                stderr.contains(&name),
                "{name}: the error names the file: {stderr}"
            );
            let why = if name.contains(".arc") {
                "an ARC file"
            } else {
                "unknown format"
            };
            assert!(stderr.contains(why), "{name}: {stderr}");
            assert!(!out.exists(), "{name}: no output after an error");
        }
    }
    let rows = |name: &str| pages.get(name).map(|(n, _)| *n);
    // Real crawls: Heritrix and wget WARCs, gzip per record and plain.
    for name in [
        "ukwa-IAH-20080430204825-00000-blackbook-truncated.warc",
        "ukwa-IAH-20080430204825-00000-blackbook-truncated.warc.gz",
        "ukwa-IAH-urls-wget.warc.gz",
        "ukwa-main-page.warc.gz",
        "ukwa-sopa-wikipedia-homepage.warc.gz",
    ] {
        assert!(
            rows(name).is_some_and(|n| n >= 1),
            "{name}: {:?}",
            pages.get(name)
        );
    }
    assert_eq!(
        rows("ukwa-IAH-20080430204825-00000-blackbook-truncated.warc"),
        rows("ukwa-IAH-20080430204825-00000-blackbook-truncated.warc.gz"),
        "plain and gzipped, the same pages"
    );
    // Chunked transfer encoding decoded; a resource record is a page.
    assert_eq!(rows("warcio-example-iana.org-chunked.warc"), Some(1));
    assert_eq!(rows("warcio-example-resource.warc.gz"), Some(1));
    // No HTML at all: said, not an error.
    let (n, said) = &pages["warcio-post-test.warc.gz"];
    assert_eq!(*n, 0);
    assert!(said.contains("no HTML page"), "{said}");
    // A truncated record: the records before it read, the damage named with its offset.
    let (_, said) = &pages["warcio-example-trunc.warc"];
    assert!(
        said.contains("warcio-example-trunc.warc") && said.contains("inflated byte"),
        "{said}"
    );
}

#[test]
fn a_chunked_page_reads_as_its_text() {
    let Some(dir) = shared_data("web/warc/warcio-example-iana.org-chunked.warc") else {
        return;
    };
    let tmp = tempdir("chunked");
    let out = tmp.join("t.jsonl");
    let input = dir.join("web/warc/warcio-example-iana.org-chunked.warc");
    ok(&[
        "extract",
        input.to_str().unwrap(),
        "--extract",
        "visible",
        "-o",
        out.to_str().unwrap(),
    ]);
    let row: serde_json::Value =
        serde_json::from_str(std::fs::read_to_string(&out).unwrap().trim()).unwrap();
    let text = row["text"].as_str().unwrap();
    assert!(
        text.contains("Internet Assigned Numbers Authority"),
        "{text}"
    );
    assert!(!text.contains("<div"), "{text}");
    assert_eq!(row["host"], "iana.org");
    assert!(row["id"].as_str().unwrap().starts_with("<urn:uuid:"));
}

// ---- dedup of a crawl with known duplicates ----

/// A record of the WARC this test writes, and its bytes (the oracle of the deduplicated copy).
struct WarcRecordOut {
    id: String,
    bytes: Vec<u8>,
}

fn warc_record(kind: &str, id: &str, url: &str, extra: &str, block: &[u8]) -> Vec<u8> {
    let content_type = match kind {
        "request" => "application/http; msgtype=request",
        _ => "application/http; msgtype=response",
    };
    let mut r = format!(
        "WARC/1.0\r\nWARC-Type: {kind}\r\nWARC-Record-ID: {id}\r\nWARC-Date: 2026-11-28T00:00:00Z\r\n\
         WARC-Target-URI: {url}\r\n{extra}Content-Type: {content_type}\r\nContent-Length: {}\r\n\r\n",
        block.len()
    )
    .into_bytes();
    r.extend_from_slice(block);
    r.extend_from_slice(b"\r\n\r\n");
    r
}

/// A response record of `html` at `url`, and the request record concurrent to it.
fn page_records(n: usize, url: &str, html: &str) -> [WarcRecordOut; 2] {
    let id = format!("<urn:uuid:00000000-0000-4000-8000-{n:012}>");
    let http = format!(
        "HTTP/1.1 200 OK\r\nContent-Type: text/html; charset=utf-8\r\nContent-Length: {}\r\n\r\n{html}",
        html.len()
    );
    let response = warc_record("response", &id, url, "", http.as_bytes());
    let request_id = format!("<urn:uuid:10000000-0000-4000-8000-{n:012}>");
    let get = format!(
        "GET / HTTP/1.1\r\nHost: {}\r\n\r\n",
        url.split('/').nth(2).unwrap()
    );
    let concurrent = format!("WARC-Concurrent-To: {id}\r\n");
    let request = warc_record("request", &request_id, url, &concurrent, get.as_bytes());
    [
        WarcRecordOut {
            id: request_id,
            bytes: request,
        },
        WarcRecordOut {
            id,
            bytes: response,
        },
    ]
}

/// A news site's template around an article: a large script, navigation, a cookie notice,
/// "most read" headlines and a footer — all the same on every page of the site, and several
/// times the article's size in markup.
fn in_template(site: &str, title: &str, article: &str) -> String {
    let seed = site
        .bytes()
        .fold(7u64, |h, b| h.wrapping_mul(31).wrapping_add(b as u64));
    let word = |i: u64| {
        const SYLLABLES: [&str; 12] = [
            "ka", "lo", "mi", "ren", "tas", "vo", "ne", "pul", "sa", "dor", "ki", "ma",
        ];
        let x = seed.wrapping_mul(i + 1).wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 20;
        (0..3)
            .map(|k| SYLLABLES[((x >> (4 * k)) % 12) as usize])
            .collect::<String>()
    };
    // Real pages carry ~28× their article in markup (56.9 MB of HTML, 1.99 MB of articles in
    // web-pages.jsonl.gz); this script makes a made page ~10× its article.
    let script: String = (0..2500)
        .map(|i| format!("var {}_{i} = track('{}');", word(i), word(i + 7)))
        .collect();
    let nav: String = (0..40)
        .map(|i| format!("<li><a href=\"/{0}\">{0}</a></li>", word(i + 100)))
        .collect();
    let most_read: String = (0..12)
        .map(|i| {
            format!(
                "<li><a href=\"/story/{i}\">{} {} {} {}</a></li>",
                word(i + 200),
                word(i + 300),
                word(i + 400),
                word(i + 500)
            )
        })
        .collect();
    let paragraphs: String = article
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| format!("<p>{}</p>\n", html_escape(l)))
        .collect();
    format!(
        "<!DOCTYPE html><html lang=\"en\"><head><meta charset=\"utf-8\"><title>{title} | {site}</title>\
         <script>{script}</script><link rel=\"stylesheet\" href=\"/s.css\"></head><body>\
         <header><div class=\"logo\">{site}</div><nav><ul>{nav}</ul></nav></header>\
         <div class=\"cookies\">{site} uses cookies to improve your experience. Accept all</div>\
         <main><article><h1>{title}</h1><div class=\"byline\">By {site} staff</div>\n{paragraphs}</article>\
         <aside><h2>Most read</h2><ul>{most_read}</ul></aside></main>\
         <footer><p>&copy; 2026 {site}. All rights reserved.</p><ul><li><a href=\"/terms\">Terms</a></li>\
         <li><a href=\"/privacy\">Privacy</a></li></ul></footer></body></html>"
    )
}

fn html_escape(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
}

/// The crawl: the ScrapingHub pages under their own URLs (hosts with several pages: distinct
/// articles in one real template), then three gold articles in two made templates — the
/// first under both (syndication), the other two under one (one site, two stories). The
/// three source pages are left out, so that the only duplicate is the syndicated story.
struct Crawl {
    records: Vec<WarcRecordOut>,
    syndicated: [String; 2],
    same_template: [String; 2],
    real: Vec<String>,
}

fn crawl(pages: &[GoldPage]) -> Crawl {
    let mut sources: Vec<&GoldPage> = pages
        .iter()
        .filter(|p| p.set == "scrapinghub")
        .filter(|p| (150..600).contains(&p.article.split_whitespace().count()))
        .collect();
    sources.truncate(3);
    let source_ids: BTreeSet<&str> = sources.iter().map(|p| p.id.as_str()).collect();
    let mut records = Vec::new();
    let mut real = Vec::new();
    for (n, page) in pages.iter().enumerate() {
        if page.set != "scrapinghub" || source_ids.contains(page.id.as_str()) {
            continue;
        }
        let [request, response] = page_records(n, page.url.as_deref().unwrap(), &page.html);
        real.push(response.id.clone());
        records.extend([request, response]);
    }
    let made = [
        ("x-news.test", "/2026/story-a", 0),
        ("y-daily.test", "/world/syndicated-a", 0),
        ("x-news.test", "/2026/story-b", 1),
        ("x-news.test", "/2026/story-c", 2),
    ];
    let mut ids = Vec::new();
    for (i, (site, path, source)) in made.into_iter().enumerate() {
        let title = format!("Story {}", ["A", "B", "C"][source]);
        let html = in_template(site, &title, &sources[source].article);
        let [request, response] = page_records(1000 + i, &format!("https://{site}{path}"), &html);
        ids.push(response.id.clone());
        records.extend([request, response]);
    }
    Crawl {
        records,
        syndicated: [ids[0].clone(), ids[1].clone()],
        same_template: [ids[2].clone(), ids[3].clone()],
        real,
    }
}

fn write_warc_gz(path: &Path, records: &[WarcRecordOut]) {
    let mut out = std::fs::File::create(path).unwrap();
    for r in records {
        // A gzip member per record, as crawlers write them.
        let mut member = flate2::write::GzEncoder::new(&mut out, flate2::Compression::fast());
        member.write_all(&r.bytes).unwrap();
        member.finish().unwrap();
    }
}

fn removed(out: &Path) -> BTreeSet<String> {
    std::fs::read_to_string(out.join("removed.txt"))
        .unwrap()
        .lines()
        .map(str::to_string)
        .collect()
}

#[test]
fn dedup_of_a_crawl_removes_a_syndicated_story_and_no_story_for_its_template() {
    let Some(dir) = shared_data("web/web-pages.jsonl.gz") else {
        return;
    };
    let crawl = crawl(&gold_pages(&dir));
    let tmp = tempdir("crawl");
    let warc = tmp.join("crawl.warc.gz");
    write_warc_gz(&warc, &crawl.records);

    // The defaults: main content extracted.
    let out = tmp.join("main");
    ok(&[
        "dedup",
        warc.to_str().unwrap(),
        "-o",
        out.to_str().unwrap(),
        "--write-text",
    ]);
    let gone = removed(&out);
    assert_eq!(
        gone,
        BTreeSet::from([crawl.syndicated[1].clone()]),
        "only the syndicated copy is removed (of {} real pages and 4 made ones)",
        crawl.real.len()
    );
    // The deduplicated WARC: every record but the removed page and its request, byte for byte.
    let kept: Vec<u8> = crawl
        .records
        .iter()
        .enumerate()
        .filter(|(i, r)| {
            let request_of_removed = crawl
                .records
                .get(i + 1)
                .is_some_and(|next| gone.contains(&next.id));
            !gone.contains(&r.id) && !request_of_removed
        })
        .flat_map(|(_, r)| r.bytes.clone())
        .collect();
    let mut copied = Vec::new();
    flate2::read::MultiGzDecoder::new(
        std::fs::File::open(out.join("deduplicated.warc.gz")).unwrap(),
    )
    .read_to_end(&mut copied)
    .unwrap();
    assert!(
        copied == kept,
        "the kept records byte for byte ({} bytes, want {})",
        copied.len(),
        kept.len()
    );
    // --write-text: each kept page's extracted text, with its URL and host.
    let texts: Vec<serde_json::Value> = std::fs::read_to_string(out.join("kept-text.jsonl"))
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(texts.len(), crawl.real.len() + 3, "one row per kept page");
    let syndicated = texts
        .iter()
        .find(|t| t["id"] == crawl.syndicated[0].as_str())
        .unwrap();
    assert_eq!(syndicated["host"], "x-news.test");
    assert!(
        !syndicated["text"]
            .as_str()
            .unwrap()
            .contains("All rights reserved")
    );
    let summary: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("summary.json")).unwrap()).unwrap();
    assert_eq!(summary["extract"], "main");
    assert_eq!(
        summary["pages"]["skipped: request record"],
        crawl.real.len() as u64 + 4
    );

    // The markup as text: the template decides, both ways wrong.
    let out = tmp.join("none");
    ok(&[
        "dedup",
        warc.to_str().unwrap(),
        "--extract",
        "none",
        "-o",
        out.to_str().unwrap(),
    ]);
    let gone = removed(&out);
    assert!(
        !gone.contains(&crawl.syndicated[1]),
        "--extract none misses the syndicated story"
    );
    let real_removed: Vec<&String> = crawl.real.iter().filter(|id| gone.contains(*id)).collect();
    assert!(
        !real_removed.is_empty(),
        "--extract none removes distinct real articles of one site (their gold texts differ)"
    );
    println!(
        "--extract none removed {} of {} distinct real pages",
        real_removed.len(),
        crawl.real.len()
    );
    assert!(
        gone.contains(&crawl.same_template[0]) || gone.contains(&crawl.same_template[1]),
        "--extract none removes one of two stories of one template: {gone:?}"
    );
}

// ---- HTML files in legacy charsets ----

#[test]
fn a_directory_of_html_files_in_legacy_charsets_reads_as_their_text() {
    let tmp = tempdir("charsets");
    let pages = tmp.join("site");
    std::fs::create_dir_all(&pages).unwrap();
    let samples = [
        (
            "gbk",
            "GBK",
            true,
            "中华人民共和国成立于一九四九年，首都北京。今天天气很好，我们去公园散步吧。",
        ),
        (
            "gb2312-undeclared",
            "GBK",
            false,
            "上海是中国最大的城市之一，人口超过两千四百万，经济发达，交通便利。",
        ),
        (
            "big5",
            "Big5",
            true,
            "中華民國的首都是臺北市。今天天氣很好，我們去公園散步吧，順便買些東西。",
        ),
        (
            "shift-jis",
            "Shift_JIS",
            true,
            "日本語のテキストです。今日はとても良い天気なので、公園を散歩しましょう。",
        ),
        (
            "cp1251",
            "windows-1251",
            false,
            "Съешь же ещё этих мягких французских булок да выпей чаю, пожалуйста.",
        ),
    ];
    for (name, label, declared, text) in samples {
        let meta = if declared {
            format!("<meta charset=\"{label}\">")
        } else {
            String::new()
        };
        let html = format!(
            "<html><head>{meta}<title>{name}</title></head><body><p>{text}</p></body></html>"
        );
        let encoding = encoding_rs_for(label);
        let (bytes, _, unmappable) = encoding.encode(&html);
        assert!(!unmappable);
        std::fs::write(pages.join(format!("{name}.html")), &bytes).unwrap();
    }
    let out = tmp.join("texts.jsonl");
    ok(&[
        "extract",
        pages.to_str().unwrap(),
        "--extract",
        "visible",
        "-o",
        out.to_str().unwrap(),
    ]);
    let rows: Vec<serde_json::Value> = std::fs::read_to_string(&out)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(rows.len(), samples.len());
    for (name, _, _, text) in samples {
        let row = rows
            .iter()
            .find(|r| r["id"].as_str().unwrap().ends_with(&format!("{name}.html")))
            .unwrap();
        assert_eq!(
            row["text"].as_str().unwrap(),
            text,
            "{name} read as {}",
            row["charset"]
        );
    }
    // An output over a file the tool did not make is refused, naming it.
    let input_file = pages.join("gbk.html");
    let e = err(&[
        "extract",
        pages.to_str().unwrap(),
        "-o",
        input_file.to_str().unwrap(),
    ]);
    assert!(e.contains("gbk.html"), "{e}");
}

/// A directory of HTML files: the copy of one page under another name is removed and named
/// in removed.txt by its path; pages are not copied (a removed page once made the outputs
/// stage fail publishing a copy it had not written).
#[test]
fn a_directory_of_html_pages_is_deduplicated_by_path() {
    let tmp = tempdir("html-dedup");
    let site = tmp.join("site");
    std::fs::create_dir_all(&site).unwrap();
    let story = |seed: usize| -> String {
        let words: Vec<String> = (0..300)
            .map(|i| format!("w{}", (i * 7919 + seed * 104729) % 5003))
            .collect();
        format!(
            "<html><body><nav><a href=/>Home</a></nav><article><h1>Story {seed}</h1><p>{}</p></article></body></html>",
            words.join(" ")
        )
    };
    std::fs::write(site.join("a.html"), story(1)).unwrap();
    std::fs::write(site.join("b.html"), story(2)).unwrap();
    std::fs::write(site.join("copy-of-a.html"), story(1)).unwrap();
    let out = tmp.join("out");
    ok(&["dedup", site.to_str().unwrap(), "-o", out.to_str().unwrap()]);
    let gone = removed(&out);
    assert_eq!(gone.len(), 1, "{gone:?}");
    assert!(
        gone.iter().next().unwrap().ends_with("copy-of-a.html"),
        "{gone:?}"
    );
    assert!(
        !out.join("deduplicated").exists(),
        "HTML pages are not copied"
    );
}

/// The encoder for a label (`encoding_rs`, as the product crate re-exports it).
fn encoding_rs_for(label: &str) -> &'static Encoding {
    Encoding::for_label(label.as_bytes()).unwrap()
}

fn tempdir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("neardup-web-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}
