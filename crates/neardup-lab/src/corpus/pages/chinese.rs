//! Chinese pages: a real page's template with Chinese navigation (every visible text outside
//! the article replaced by Chinese site words of about its length), `<html lang>` and the
//! charset declared, written in UTF-8, GBK or Big5 — the encodings of mainland and Taiwanese
//! sites that a crawl still meets — so that charset detection and extraction are tested as a
//! crawl of Chinese sites exercises them.

use ego_tree::NodeId;
use neardup::hash::{SplitMix64, hash_bytes, mix64};
use neardup_dedup::web::charset::Encoding;
use scraper::node::Text;
use scraper::{Html, Node};

use super::template::{Template, element_with, is_invisible, set_attribute};

/// Navigation and footer words of Chinese sites, in traditional characters (Big5 has no
/// simplified forms; GBK has both).
const SITE_WORDS: &[&str] = &[
    "首頁",
    "新聞",
    "國際",
    "國內",
    "財經",
    "體育",
    "娛樂",
    "科技",
    "健康",
    "教育",
    "旅遊",
    "汽車",
    "房產",
    "文化",
    "評論",
    "視頻",
    "圖片",
    "專題",
    "登錄",
    "註冊",
    "搜索",
    "關於我們",
    "聯繫我們",
    "版權所有",
    "隱私政策",
    "廣告服務",
    "網站地圖",
    "更多",
    "熱門",
    "推薦",
    "最新",
    "排行",
    "天氣",
    "訂閱",
    "分享",
    "返回頂部",
    "上一篇",
    "下一篇",
    "相關閱讀",
    "責任編輯",
    "來源",
    "作者",
    "發佈時間",
    "收藏",
    "客戶端",
    "下載",
    "幫助中心",
    "意見反饋",
    "本站",
    "頻道",
    "社會",
    "軍事",
];

/// The encoding a Chinese page is written in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PageCharset {
    /// UTF-8.
    Utf8,
    /// GBK (mainland sites; WHATWG decodes it as GB18030).
    Gbk,
    /// Big5 (Taiwan and Hong Kong sites).
    Big5,
}

impl PageCharset {
    /// Every charset, in the order pages cycle through them.
    pub const ALL: [PageCharset; 3] = [PageCharset::Utf8, PageCharset::Gbk, PageCharset::Big5];

    /// The label written in `<meta charset>`.
    pub fn label(self) -> &'static str {
        match self {
            PageCharset::Utf8 => "utf-8",
            PageCharset::Gbk => "gbk",
            PageCharset::Big5 => "big5",
        }
    }

    /// The encoding that label names (WHATWG).
    pub fn encoding(self) -> &'static Encoding {
        Encoding::for_label(self.label().as_bytes()).expect("a WHATWG label")
    }

    /// `html` in this charset; characters it cannot encode become numeric character
    /// references, as browsers submit forms (encoding_rs's HTML encoder).
    pub fn encode(self, html: &str) -> Vec<u8> {
        let (bytes, _, _) = self.encoding().encode(html);
        bytes.into_owned()
    }
}

/// `template` with Chinese navigation (`seed` picks the words) declaring `charset`.
pub fn chinese_template(template: &Template, seed: u64, charset: PageCharset) -> Template {
    let (mut doc, container) = template.parse();
    let text_nodes: Vec<NodeId> = doc
        .tree
        .root()
        .descendants()
        .filter(|n| matches!(n.value(), Node::Text(text) if !text.trim().is_empty()))
        .filter(|n| !n.ancestors().any(|a| a.id() == container))
        .map(|n| n.id())
        .collect();
    let mut rng = SplitMix64::new(mix64(hash_bytes(template.id.as_bytes(), seed)));
    for id in text_nodes {
        let title = doc
            .tree
            .get(id)
            .and_then(|n| n.parent())
            .is_some_and(|p| p.value().as_element().is_some_and(|e| e.name() == "title"));
        if is_invisible(&doc, id) && !title {
            continue;
        }
        let mut node = doc.tree.get_mut(id).expect("a node of this tree");
        let Node::Text(text) = node.value() else {
            continue;
        };
        let words = text.split_whitespace().count().clamp(1, 12);
        let chinese: String = (0..words)
            .map(|_| SITE_WORDS[rng.next_u64() as usize % SITE_WORDS.len()])
            .collect::<Vec<_>>()
            .join(" ");
        *text = Text {
            text: chinese.as_str().into(),
        };
    }
    declare(&mut doc, charset);
    Template {
        id: format!("{}#zh", template.id),
        host: template.host.clone(),
        html: doc.html(),
        located_f1: template.located_f1,
    }
}

/// `<html lang="zh">` and one `<meta charset>` at the start of `<head>` (earlier
/// declarations removed, so the prescan finds this one).
fn declare(doc: &mut Html, charset: PageCharset) {
    let root = doc.tree.root();
    let mut html = None;
    let mut head = None;
    let mut metas = Vec::new();
    for n in root.descendants() {
        let Some(e) = n.value().as_element() else {
            continue;
        };
        match e.name() {
            "html" => html = html.or(Some(n.id())),
            "head" => head = head.or(Some(n.id())),
            "meta" if e.attr("charset").is_some() || e.attr("http-equiv").is_some() => {
                metas.push(n.id())
            }
            _ => {}
        }
    }
    for id in metas {
        doc.tree.get_mut(id).expect("a node").detach();
    }
    if let Some(id) = html {
        set_attribute(doc, id, "lang", Some("zh"));
    }
    if let Some(id) = head {
        let meta = element_with("meta", &[("charset", charset.label())]);
        doc.tree
            .get_mut(id)
            .expect("a node")
            .prepend(Node::Element(meta));
    }
}
