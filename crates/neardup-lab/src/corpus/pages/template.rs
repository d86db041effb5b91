//! A real page as a template: the element that holds its article is found by the gold
//! article's words, and another article's paragraphs are put in its place in the parsed DOM
//! (scraper's html5ever tree), so everything around it — navigation, sidebars, footers,
//! scripts, the `<head>` — is the page's own, byte for byte as html5ever serializes it.
//!
//! html5ever's trees are not `Sync`, so a template is kept as its serialized page with the
//! article element marked by an attribute ([`MARK`]), and parsed again by each render (which
//! removes the mark): pages are made in parallel, each from its own tree.

use std::collections::{HashMap, HashSet};

use ego_tree::NodeId;
use html5ever::{LocalName, Namespace, QualName, ns};
use scraper::node::{Element, Text};
use scraper::{Html, Node};

use super::words;

/// Elements whose text a reader never sees.
const INVISIBLE: &[&str] = &[
    "head", "script", "style", "noscript", "template", "svg", "iframe",
];

/// The attribute that marks the article element in a template (never in a rendered page).
pub const MARK: &str = "data-neardup-article";

/// A located container below this word F1 against the gold article is not trusted.
pub const MIN_LOCATED_F1: f64 = 0.5;

/// A page whose article element is known.
#[derive(Debug, Clone)]
pub struct Template {
    /// The page's id in the gold set.
    pub id: String,
    /// Its host (the site whose template it is).
    pub host: String,
    /// The page, serialized by html5ever, its article element marked with [`MARK`].
    pub(super) html: String,
    /// Word F1 of the container's text against the gold article.
    pub located_f1: f64,
}

impl Template {
    /// The template of `html` whose article is `article`, if an element holds it (word F1 of
    /// at least [`MIN_LOCATED_F1`]).
    pub fn locate(id: &str, host: &str, html: &str, article: &str) -> Option<Template> {
        let mut doc = Html::parse_document(html);
        let (container, located_f1) = article_element(&doc, article)?;
        if located_f1 < MIN_LOCATED_F1 {
            return None;
        }
        set_mark(&mut doc, container, true);
        Some(Template {
            id: id.to_string(),
            host: host.to_string(),
            html: doc.html(),
            located_f1,
        })
    }

    /// The template parsed, and its article element.
    pub(super) fn parse(&self) -> (Html, NodeId) {
        let doc = Html::parse_document(&self.html);
        let container = doc
            .tree
            .root()
            .descendants()
            .find(|n| {
                n.value()
                    .as_element()
                    .is_some_and(|e| e.attr(MARK).is_some())
            })
            .map(|n| n.id())
            .expect("a template keeps its mark through serialization");
        (doc, container)
    }

    /// The page with `paragraphs` (one `<p>` each) in place of its article.
    pub fn render<'p>(&self, paragraphs: impl IntoIterator<Item = &'p str>) -> String {
        let (mut doc, id) = self.parse();
        set_mark(&mut doc, id, false);
        let mut container = doc.tree.get_mut(id).expect("a node of this tree");
        while let Some(mut child) = container.first_child() {
            child.detach();
        }
        for p in paragraphs {
            let mut para = container.append(Node::Element(element("p")));
            para.append(Node::Text(Text { text: p.into() }));
        }
        doc.html()
    }

    /// The page as a template (its article element marked).
    pub fn html(&self) -> &str {
        &self.html
    }
}

/// Marks (or unmarks) the article element of `doc`.
pub(super) fn set_mark(doc: &mut Html, id: NodeId, on: bool) {
    set_attribute(doc, id, MARK, on.then_some(""));
}

/// Sets (`Some`) or removes (`None`) the attribute `key` of the element `id` of `doc`: the
/// element is replaced by one of the same name with its other attributes.
pub(super) fn set_attribute(doc: &mut Html, id: NodeId, key: &str, value: Option<&str>) {
    let mut node = doc.tree.get_mut(id).expect("a node of this tree");
    let Node::Element(e) = node.value() else {
        return;
    };
    let name = e.name().to_string();
    let mut attrs: Vec<(String, String)> = e
        .attrs()
        .filter(|(k, _)| *k != key)
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
    if let Some(v) = value {
        attrs.push((key.into(), v.into()));
    }
    let borrowed: Vec<(&str, &str)> = attrs
        .iter()
        .map(|(k, v)| (k.as_str(), v.as_str()))
        .collect();
    *e = element_with(&name, &borrowed);
}

/// A new HTML element without attributes.
pub(super) fn element(name: &str) -> Element {
    element_with(name, &[])
}

/// A new HTML element with attributes.
pub(super) fn element_with(name: &str, attrs: &[(&str, &str)]) -> Element {
    let attrs = attrs
        .iter()
        .map(|&(k, v)| html5ever::Attribute {
            name: QualName::new(None, Namespace::from(""), LocalName::from(k)),
            value: v.into(),
        })
        .collect();
    // `Element::new` is scraper's tree builder's own constructor (public, hidden from its
    // docs); the version is pinned with trafilatura's. It sorts the attributes by name.
    Element::new(QualName::new(None, ns!(html), LocalName::from(name)), attrs)
}

/// Whether text under `id` is invisible (inside `<head>`, `<script>`…).
pub(super) fn is_invisible(doc: &Html, id: NodeId) -> bool {
    let node = doc.tree.get(id).expect("a node of this tree");
    node.ancestors().any(|a| {
        a.value()
            .as_element()
            .is_some_and(|e| INVISIBLE.contains(&e.name()))
    })
}

/// The element whose visible text best matches the article (highest word F1, the smaller
/// element on ties) and that F1.
fn article_element(doc: &Html, article: &str) -> Option<(NodeId, f64)> {
    let gold = words::bag(article);
    let gold_words: HashSet<&str> = gold.keys().map(String::as_str).collect();
    let gold_total: u64 = gold.values().map(|&n| n as u64).sum();
    if gold_total == 0 {
        return None;
    }
    // Per element: (words of its visible text, of those the article's words).
    let mut counts: HashMap<NodeId, (u64, u64)> = HashMap::new();
    for node in doc.tree.root().descendants() {
        let Node::Text(text) = node.value() else {
            continue;
        };
        if is_invisible(doc, node.id()) {
            continue;
        }
        let bag = words::bag(text);
        let total: u64 = bag.values().map(|&n| n as u64).sum();
        let matched: u64 = bag
            .iter()
            .filter(|(w, _)| gold_words.contains(w.as_str()))
            .map(|(_, &n)| n as u64)
            .sum();
        if total == 0 {
            continue;
        }
        for a in node.ancestors().filter(|a| a.value().is_element()) {
            let c = counts.entry(a.id()).or_default();
            c.0 += total;
            c.1 += matched;
        }
    }
    let mut best: Option<(NodeId, f64, u64)> = None;
    for node in doc.tree.root().descendants() {
        let Some(&(total, matched)) = counts.get(&node.id()) else {
            continue;
        };
        // The page itself is no article element: replacing it would leave no template.
        let whole_page = node
            .value()
            .as_element()
            .is_some_and(|e| matches!(e.name(), "html" | "body"));
        if whole_page {
            continue;
        }
        let precision = matched as f64 / total as f64;
        let recall = (matched as f64 / gold_total as f64).min(1.0);
        let f1 = words::f1(precision, recall);
        let better = best.is_none_or(|(_, f, t)| f1 > f || (f1 == f && total < t));
        if better {
            best = Some((node.id(), f1, total));
        }
    }
    best.map(|(id, f1, _)| (id, f1))
}

#[cfg(test)]
mod tests {
    use super::*;

    const PAGE: &str = "<html><head><title>Site</title><script>var the = 1;</script></head><body>\
        <nav><a href='/'>Home</a> <a href='/world'>World news</a></nav>\
        <div id='story'><h1>Rain falls on the plain</h1><p>The rain in Spain falls mainly on the plain.</p>\
        <p>Farmers were glad of it this year.</p></div>\
        <footer>Copyright Example Media</footer></body></html>";
    const ARTICLE: &str =
        "The rain in Spain falls mainly on the plain.\nFarmers were glad of it this year.";

    #[test]
    fn finds_the_article_element_and_replaces_only_its_content() {
        let t = Template::locate("p1", "example.com", PAGE, ARTICLE).expect("located");
        // scraper keeps attributes sorted by name.
        assert!(
            t.html()
                .contains(&format!("<div {MARK}=\"\" id=\"story\">")),
            "{}",
            t.html()
        );
        let page = t.render(["Another story entirely.", "Its second paragraph."]);
        assert!(page.contains("<p>Another story entirely.</p><p>Its second paragraph.</p>"));
        assert!(page.contains("World news") && page.contains("Copyright Example Media"));
        assert!(page.contains("var the = 1;") && !page.contains("mainly on the plain"));
        assert!(!page.contains(MARK));
    }

    #[test]
    fn a_page_without_the_article_is_no_template() {
        assert!(Template::locate("p", "h", PAGE, "Quantum chromodynamics of gluons").is_none());
    }

    #[test]
    fn paragraphs_are_text_nodes_so_markup_in_them_stays_text() {
        let t = Template::locate("p1", "example.com", PAGE, ARTICLE).unwrap();
        let page = t.render(["a <b>bold</b> & claim"]);
        assert!(page.contains("a &lt;b&gt;bold&lt;/b&gt; &amp; claim"));
    }
}
