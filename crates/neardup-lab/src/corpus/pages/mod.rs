//! Web page corpora with exact truth: real pages' templates carrying known articles.
//!
//! No public labelled set of near-duplicate HTML pages exists (the SpotSigs gold set is not
//! available; Webis ECIR-20 ships extracted text only), so the benchmark is made the way the
//! edit models make text corpora, from `../shared/datasets/web/web-pages.jsonl.gz`: 303 real
//! pages, each with its gold article text.
//!
//! - Every article's own page is kept as served (its extraction errors are the user's).
//! - *Cross-template positives*: an article's paragraphs put into the article element of
//!   other sites' pages ([`template`]: found by the gold article's words, replaced in the DOM),
//!   `copies` sites per article, each a different host.
//! - *Same-template negatives* come with them: each of those pages shares its template with the
//!   host's own article, a different story.
//! - *Edited positives*: the copy's article edited by any edit model first ([`crate::edits`]).
//! - *Chinese pages* (`web-pages-zh`): ChiUn chapters of `bible-zh` in the same templates with
//!   Chinese navigation, each site written in UTF-8, GBK or Big5 ([`chinese`]).
//!
//! Truth is the article's identity, so what extraction gets wrong counts against the
//! detection that follows, as a user meets it. A generated page whose article the default
//! extraction does not recover (word F1 below [`MIN_GENERATED_F1`]) says more about the
//! generator than about the page, so it is dropped and counted. Pages are read as the product
//! reads them ([`reading`]: `neardup_dedup::web`'s charset detection and extraction).

pub mod chinese;
pub mod reading;
pub mod template;
pub mod words;

use std::io::BufRead;
use std::path::{Path, PathBuf};

use neardup::hash::{hash_bytes, mix64};
use neardup_dedup::input::checksummed::Input;
use neardup_dedup::web::charset::decode_page;
use neardup_dedup::web::extract::{Extract, page_text};
use rayon::prelude::*;
use serde::Deserialize;

use crate::corpus::model::{Corpus, CorpusBuilder};
use crate::edits::EditModel;
use crate::edits::derive::{DeriveOptions, Record, derive};
use crate::error::{LabError, Result};
use chinese::{PageCharset, chinese_template};
use template::Template;

/// The gold pages, under the data directory.
pub const GOLD_PAGES: &str = "web/web-pages.jsonl.gz";
/// The Chinese articles (ChiUn chapters), under the data directory.
pub const CHINESE_ARTICLES: &str = "bible-zh.jsonl.gz";
/// A generated page whose main text scores below this word F1 against its article is dropped.
pub const MIN_GENERATED_F1: f64 = 0.9;
/// Chinese articles (chapters) when a dataset does not say `docs`.
const CHINESE_DEFAULT_DOCS: usize = 150;
/// The seed of the Chinese navigation words (fixed: a site keeps its menu across seeds).
const CHINESE_NAVIGATION_SEED: u64 = 0x7a68;
/// Characters of a Chinese paragraph, about (chapters are one line; pages have paragraphs).
const CHINESE_PARAGRAPH_CHARS: usize = 120;

/// The two page sets.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
pub enum PageSet {
    /// The gold pages' own articles (`web-pages`).
    English,
    /// ChiUn chapters in the gold pages' templates with Chinese navigation (`web-pages-zh`).
    Chinese,
}

impl PageSet {
    /// The dataset names of the page sets.
    pub const NAMES: &[&str] = &["web-pages", "web-pages-zh"];

    /// The set a dataset name names.
    pub fn named(name: &str) -> Option<PageSet> {
        match name {
            "web-pages" => Some(PageSet::English),
            "web-pages-zh" => Some(PageSet::Chinese),
            _ => None,
        }
    }

    /// Where its data comes from (what a report says when it is missing).
    pub fn needs(self) -> &'static str {
        match self {
            PageSet::English => {
                "web/web-pages.jsonl.gz (303 real pages with gold article text; see \
                 ../shared/datasets/web/README.md)"
            }
            PageSet::Chinese => "web/web-pages.jsonl.gz and bible-zh.jsonl.gz",
        }
    }
}

/// One gold page as stored.
#[derive(Deserialize)]
struct GoldPage {
    id: String,
    host: Option<String>,
    html: String,
    article: String,
}

/// What a page dataset is made from: articles, the pages they came from, templates.
#[derive(Debug)]
pub struct PageSource {
    /// The articles, one document each (the edit models derive from them).
    pub articles: Corpus,
    /// Each article's host (the site it was published on; templates of another host carry
    /// its copies).
    hosts: Vec<String>,
    /// Each article's own page as served (English), or none (Chinese: every page is made).
    originals: Vec<Option<String>>,
    /// The templates copies are put into, each with the charset its site writes.
    templates: Vec<(Template, PageCharset)>,
    /// Gold pages whose article element could not be found (not used as templates).
    pub unlocated: usize,
}

impl PageSource {
    /// Loads a page set from `data_dir`; `Ok(None)` when its files are not there.
    pub fn load(set: PageSet, data_dir: &Path, docs: Option<usize>) -> Result<Option<Self>> {
        let gold_path = data_dir.join(GOLD_PAGES);
        let zh_path = data_dir.join(CHINESE_ARTICLES);
        if !gold_path.is_file() || (set == PageSet::Chinese && !zh_path.is_file()) {
            return Ok(None);
        }
        let (gold, sha) = read_gold(&gold_path)?;
        let located: Vec<Option<Template>> = gold
            .par_iter()
            .map(|g| Template::locate(&g.id, &host_of(g), &g.html, &g.article))
            .collect();
        let unlocated = located.iter().filter(|t| t.is_none()).count();
        Ok(Some(match set {
            PageSet::English => english(gold, located, unlocated, sha, docs)?,
            PageSet::Chinese => chinese(&zh_path, located, unlocated, sha, docs)?,
        }))
    }

    /// The pages of one edit model (`None`: copies unedited) under `opts`.
    pub fn generate(&self, model: Option<&EditModel>, opts: DeriveOptions) -> Result<Pages> {
        let identity = EditModel::identity();
        let records = derive(&self.articles, model.unwrap_or(&identity), opts)?;
        let ids = self.articles.id_index();
        let made: Vec<Option<Page>> = records
            .par_iter()
            .map(|r| self.page(r, &ids, opts.seed))
            .collect();
        let dropped = made.iter().filter(|p| p.is_none()).count();
        let pages: Vec<Page> = made.into_iter().flatten().collect();
        Ok(Pages { pages, dropped })
    }

    /// The page of one derived record; `None` when it is generated and its article is not
    /// recovered by the default extraction.
    fn page(
        &self,
        r: &Record,
        ids: &std::collections::HashMap<&str, u32>,
        seed: u64,
    ) -> Option<Page> {
        let (article, copy) = match &r.source {
            None => (ids[r.id.as_str()] as usize, None),
            Some(src) => {
                let copy =
                    r.id.rsplit_once('~')
                        .and_then(|(_, c)| c.parse::<usize>().ok());
                (ids[src.as_str()] as usize, copy)
            }
        };
        let (decoded, host, template) = match (copy, &self.originals[article]) {
            (None, Some(original)) => {
                let host = &self.hosts[article];
                (
                    decode_page(original.as_bytes(), None, Some(host)),
                    host.clone(),
                    None,
                )
            }
            _ => {
                let (template, charset) = &self.templates[self.template_for(article, copy, seed)];
                let paragraphs = r.text.lines().map(str::trim).filter(|l| !l.is_empty());
                let bytes = charset.encode(&template.render(paragraphs));
                let decoded = decode_page(&bytes, None, Some(&template.host));
                (decoded, template.host.clone(), Some(template.id.clone()))
            }
        };
        let (html, charset, generated) =
            (decoded.text, decoded.encoding.name(), template.is_some());
        let started = std::time::Instant::now();
        let main = page_text(&html, Extract::Main).text;
        let main_seconds = started.elapsed().as_secs_f64();
        if generated {
            let (p, rc) = words::precision_recall(&main, &r.text);
            if words::f1(p, rc) < MIN_GENERATED_F1 {
                return None;
            }
        }
        Some(Page {
            id: r.id.clone(),
            host,
            html,
            article: r.text.clone(),
            cluster: r.cluster.clone(),
            template,
            charset,
            main,
            main_seconds,
        })
    }

    /// The template of copy `copy` of `article` (`None`: a Chinese article's own page): each
    /// of another host than the article's own and than its earlier copies'.
    fn template_for(&self, article: usize, copy: Option<usize>, seed: u64) -> usize {
        let n = self.templates.len();
        let key = hash_bytes(self.articles.id(article).as_bytes(), seed);
        let Some(copy) = copy else {
            return (mix64(key) % n as u64) as usize;
        };
        let own = match &self.originals[article] {
            Some(_) => self.hosts[article].clone(),
            None => self.templates[self.template_for(article, None, seed)]
                .0
                .host
                .clone(),
        };
        let mut used: Vec<&str> = vec![own.as_str()];
        let mut chosen = 0;
        for c in 1..=copy {
            // Draw until a new host comes up (or give up after n draws: few templates).
            for k in 0..n as u64 * 4 {
                let t = (mix64(key ^ mix64(c as u64) ^ k.wrapping_mul(0x9e37_79b9)) % n as u64)
                    as usize;
                chosen = t;
                if !used.contains(&self.templates[t].0.host.as_str()) {
                    break;
                }
            }
            used.push(self.templates[chosen].0.host.as_str());
        }
        chosen
    }

    /// The templates copies go into.
    pub fn templates(&self) -> impl Iterator<Item = (&Template, PageCharset)> {
        self.templates.iter().map(|(t, c)| (t, *c))
    }
}

/// A host for a gold page: its own, or its id (a readability test page is its own site).
fn host_of(g: &GoldPage) -> String {
    g.host
        .clone()
        .filter(|h| !h.is_empty())
        .unwrap_or_else(|| g.id.clone())
}

/// The gold pages and the file's SHA-256.
fn read_gold(path: &Path) -> Result<(Vec<GoldPage>, String)> {
    let mut input = Input::open(path)?;
    let mut pages = Vec::new();
    let mut line = String::new();
    let mut n = 0;
    loop {
        line.clear();
        n += 1;
        if input
            .reader
            .read_line(&mut line)
            .map_err(|e| input.read_error(path, e))?
            == 0
        {
            break;
        }
        let page: GoldPage = serde_json::from_str(&line)
            .map_err(|e| LabError::line(path, n, format!("not a gold page record: {e}")))?;
        pages.push(page);
    }
    let sha = input
        .finish()
        .map_err(|e| LabError::file(path, e.to_string()))?;
    Ok((pages, sha))
}

/// `n` of `len` indices spread evenly (all when `n ≥ len`): a subset keeps both gold sets
/// (ScrapingHub's pages come first in the file, readability's after).
fn spread(len: usize, n: usize) -> Vec<usize> {
    let n = n.min(len);
    (0..n).map(|i| i * len / n).collect()
}

/// The English set: `docs` gold pages' articles (all by default) with their own pages, and
/// the templates of those pages.
fn english(
    gold: Vec<GoldPage>,
    located: Vec<Option<Template>>,
    unlocated: usize,
    sha: String,
    docs: Option<usize>,
) -> Result<PageSource> {
    let keep = spread(gold.len(), docs.unwrap_or(gold.len()));
    let mut b = CorpusBuilder::new(Path::new(GOLD_PAGES));
    let (mut hosts, mut originals, mut templates) = (Vec::new(), Vec::new(), Vec::new());
    let (mut gold, mut located): (Vec<Option<GoldPage>>, Vec<Option<Template>>) =
        (gold.into_iter().map(Some).collect(), located);
    for (n, &i) in keep.iter().enumerate() {
        let g = gold[i].take().expect("each page kept once");
        b.push(n + 1, g.id.clone(), &g.article, None)?;
        hosts.push(host_of(&g));
        originals.push(Some(g.html));
        if let Some(t) = located[i].take() {
            templates.push((t, PageCharset::Utf8));
        }
    }
    let articles = b.finish(
        "web-pages".into(),
        GOLD_PAGES.into(),
        format!("{sha}/{}", keep.len()),
    )?;
    Ok(PageSource {
        articles,
        hosts,
        originals,
        templates,
        unlocated,
    })
}

/// The Chinese set: the first `docs` ChiUn chapters, each paragraphed, in the templates of
/// half as many gold pages (spread; so that each site carries several pages) with Chinese
/// navigation, each site writing one charset (UTF-8, GBK, Big5 in turn).
fn chinese(
    path: &Path,
    located: Vec<Option<Template>>,
    unlocated: usize,
    sha: String,
    docs: Option<usize>,
) -> Result<PageSource> {
    let options = crate::corpus::model::LoadOptions {
        fields: crate::corpus::model::Fields {
            label: None,
            ..Default::default()
        },
        keep: vec![("translation".into(), "ChiUn".into())],
        limit: Some(docs.unwrap_or(CHINESE_DEFAULT_DOCS)),
        ..Default::default()
    };
    let chapters = crate::corpus::load(path, &options)?;
    let mut b = CorpusBuilder::new(path);
    for i in 0..chapters.len() {
        b.push(
            i + 1,
            chapters.id(i).to_string(),
            &paragraphs(chapters.text(i)),
            None,
        )?;
    }
    let name = PathBuf::from(CHINESE_ARTICLES);
    let articles = b.finish(
        "web-pages-zh".into(),
        name.display().to_string(),
        format!("{sha}/{}/{}", chapters.sha256, chapters.len()),
    )?;
    let located: Vec<Template> = located.into_iter().flatten().collect();
    let sites = spread(located.len(), articles.len().div_ceil(2).max(2));
    let templates: Vec<(Template, PageCharset)> = sites
        .par_iter()
        .enumerate()
        .map(|(n, &i)| {
            let charset = PageCharset::ALL[n % PageCharset::ALL.len()];
            (
                chinese_template(&located[i], CHINESE_NAVIGATION_SEED, charset),
                charset,
            )
        })
        .collect();
    let hosts = (0..articles.len()).map(|_| String::new()).collect();
    let originals = vec![None; articles.len()];
    Ok(PageSource {
        articles,
        hosts,
        originals,
        templates,
        unlocated,
    })
}

/// A chapter (one line) as paragraphs of about [`CHINESE_PARAGRAPH_CHARS`] characters, cut
/// after a full stop.
fn paragraphs(chapter: &str) -> String {
    let mut out = String::with_capacity(chapter.len() + 64);
    let mut run = 0;
    for c in chapter.chars() {
        out.push(c);
        run += 1;
        if c == '。' && run >= CHINESE_PARAGRAPH_CHARS {
            out.push('\n');
            run = 0;
        }
    }
    out.trim_end().to_string()
}

/// One page of a generated corpus.
#[derive(Debug, Clone)]
pub struct Page {
    /// Its id: the article's, `~N` for its N-th copy.
    pub id: String,
    /// Its site.
    pub host: String,
    /// Its HTML, decoded as the product decodes pages.
    pub html: String,
    /// The article it carries (the gold text, edited for copies).
    pub article: String,
    /// The article's cluster (`None` for an article without copies).
    pub cluster: Option<String>,
    /// The gold page whose template carries it (`None`: the article's own page as served).
    pub template: Option<String>,
    /// The charset its bytes were decoded from (as the product detected it).
    pub charset: &'static str,
    /// Its main text (the default extraction), computed once for every reading that needs it.
    pub main: String,
    /// The seconds that extraction took (one thread).
    pub main_seconds: f64,
}

/// The pages of one (edit model, seed).
#[derive(Debug, Clone)]
pub struct Pages {
    /// Pages in derivation order.
    pub pages: Vec<Page>,
    /// Generated pages dropped because their article was not recovered.
    pub dropped: usize,
}
