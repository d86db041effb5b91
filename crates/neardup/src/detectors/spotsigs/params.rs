//! The build and query parameters of `spotsigs` and the default antecedent lists.

use serde::{Deserialize, Serialize};

use crate::text::{CjkUnit, Normalization, WordParams};

/// The authors' released antecedent list (reports/published/SOURCES.md): articles and forms of be,
/// can, will, have, do, and the French and Spanish articles of their crawl.
pub const ENGLISH_ANTECEDENTS: &str = "the,be,is,are,was,will,would,shall,should,can,could,has,have,had,do,did,does,done,un,une,le,la,el,al";

/// Chinese antecedents (see the module docs for the measurements behind them), traditional
/// and simplified forms.
pub const CHINESE_ANTECEDENTS: &str =
    "的,在,是,有,爲,為,为,要,被,一個,一个,這,这,必,乃,卽,即,能,應,应";

/// Build parameters of `spotsigs`.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(default)]
pub struct SpotSigsParams {
    /// Comma-separated antecedent words (lower case), or `default`: the list of the document's
    /// language. Default `default`.
    pub antecedents: String,
    /// Chain length c. Default 1.
    pub chain: usize,
    /// Spot distance d. Default 1.
    pub distance: usize,
    /// Documents with fewer spots (before and after the idf filter) get no signature. Default 4.
    pub min_spots: usize,
    /// Lowest normalized spot idf kept. Default 0 (the released config: 0.2; see the docs).
    pub min_idf: f64,
    /// Highest normalized spot idf kept. Default 1 (the released config: 0.8; see the docs).
    pub max_idf: f64,
    /// Multiset Jaccard of spot counts (the authors'); false: set Jaccard. Default true.
    pub multiset: bool,
    /// Spot document frequencies from this table (`neardup idf build`) instead of the corpus.
    pub idf_from: Option<String>,
    /// Normalization before tokenizing.
    #[serde(flatten)]
    pub normalization: Normalization,
    /// Words (Chinese: single characters by default, `cjk_unit = char`; `word` for jieba
    /// words).
    #[serde(flatten)]
    pub words: WordParams,
}

impl Default for SpotSigsParams {
    fn default() -> Self {
        SpotSigsParams {
            antecedents: "default".into(),
            chain: 1,
            distance: 1,
            min_spots: 4,
            min_idf: 0.0,
            max_idf: 1.0,
            multiset: true,
            idf_from: None,
            normalization: Normalization::default(),
            // Chinese spots over characters (see "Chinese" in the module docs).
            words: WordParams::cjk(CjkUnit::Char),
        }
    }
}

/// Query parameters of `spotsigs`.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(default)]
pub struct SpotSigsQuery {
    /// Jaccard threshold τ in (0, 1]. Default 0.85 (the authors' confidence).
    pub threshold: f64,
}

impl Default for SpotSigsQuery {
    fn default() -> Self {
        SpotSigsQuery { threshold: 0.85 }
    }
}
