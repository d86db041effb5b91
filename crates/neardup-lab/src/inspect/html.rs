//! The inspection as one static HTML page (no script, no server, no file beside it): what
//! ran, the pairs per band side by side with their differences highlighted, the cluster
//! sizes and the largest clusters.

use std::fmt::Write as _;

use super::diff::{Segment, Side};
use super::{Band, ClusterView, Inspection, PairView};

const STYLE: &str = "
body{font:15px/1.45 system-ui,sans-serif;margin:0;color:#1d1d1f;background:#f6f6f4}
header,main{max-width:1320px;margin:0 auto;padding:0 24px}
header{padding-top:20px}
h1{font-size:24px;margin:0 0 6px} h2{font-size:19px;margin:34px 0 10px;border-bottom:1px solid #ccc;padding-bottom:4px}
.ran{color:#444} .ran code{background:#e9e9e4;padding:1px 4px;border-radius:3px}
nav{position:sticky;top:0;background:#f6f6f4;padding:8px 0;border-bottom:1px solid #ddd;z-index:1}
nav a{margin-right:14px;color:#1f5fa8;text-decoration:none;white-space:nowrap}
.pair{background:#fff;border:1px solid #ddd;border-radius:6px;margin:14px 0;padding:10px 14px}
.meta{display:flex;flex-wrap:wrap;gap:6px 18px;font-size:14px;margin-bottom:8px}
.meta b{font-variant-numeric:tabular-nums}
.decision{color:#555}
.texts{display:grid;grid-template-columns:1fr 1fr;gap:12px}
.text{white-space:pre-wrap;overflow-wrap:anywhere;max-height:22em;overflow:auto;border:1px solid #eee;
  padding:8px;font:13px/1.5 ui-monospace,monospace;background:#fcfcfb}
.text h3{font:600 13px system-ui,sans-serif;margin:0 0 6px;color:#333}
del{background:#ffd7d5;color:#8a1c14;text-decoration:line-through}
ins{background:#d4f5d4;color:#0f5b0f;text-decoration:none}
.missing{color:#888;font-style:italic}
table{border-collapse:collapse;background:#fff;font-size:14px} td,th{border:1px solid #ddd;padding:4px 8px;text-align:left}
td.n{text-align:right;font-variant-numeric:tabular-nums}
td.snippet{color:#444;font-size:13px;max-width:70ch}
.bar{background:#4a7fbf;height:12px;display:inline-block;vertical-align:middle}
.below{color:#b3261e;font-weight:600}
";

/// The page.
pub fn page(i: &Inspection) -> String {
    let mut s = String::new();
    let _ = write!(
        s,
        "<!doctype html><html lang=\"en\"><head><meta charset=\"utf-8\">\
         <meta name=\"viewport\" content=\"width=device-width,initial-scale=1\">\
         <title>neardup inspect: {}</title><style>{STYLE}</style></head><body>",
        esc(&i.output)
    );
    header(&mut s, i);
    s.push_str("<main>");
    for (n, band) in i.bands.iter().enumerate() {
        band_section(&mut s, n, band, i.threshold);
    }
    clusters_section(&mut s, i);
    s.push_str("</main></body></html>\n");
    s
}

fn header(s: &mut String, i: &Inspection) {
    let params: Vec<String> = i
        .params
        .iter()
        .map(|(k, v)| format!("{k}={}", crate::params::render_value(v)))
        .collect();
    let _ = write!(
        s,
        "<header><h1>What <code>neardup dedup</code> {} in {}</h1>\
         <p class=\"ran\">{} documents, {} removed{}; {} pairs. Clusters: {}. \
         Algorithm <code>{}</code>{}.</p>\
         <details class=\"ran\"><summary>Every parameter as it ran</summary><p><code>{}</code></p></details>\
         <p class=\"ran\">Similarity: the algorithm's (its estimate or score); exact: the Jaccard similarity of {}. \
         Words only in the first document are <del>struck</del>, words only in the second <ins>marked</ins>; \
         case and spacing are not differences (the similarity ignores them).</p>",
        if i.from_run { "found" } else { "would find" },
        esc(&i.output),
        i.documents,
        i.removed,
        i.removed_below_threshold
            .map(|n| format!(" ({n} of them below the threshold from the document kept for them)"))
            .unwrap_or_default(),
        i.pairs,
        esc(&i.cluster_mode),
        esc(&i.algorithm),
        i.threshold
            .map(|t| format!(", threshold {t}"))
            .unwrap_or_default(),
        esc(&params.join(" ")),
        esc(&i.exact_features),
    );
    s.push_str("<nav>");
    for (n, b) in i.bands.iter().enumerate() {
        let _ = write!(
            s,
            "<a href=\"#band-{n}\">{} ({})</a>",
            esc(&b.name),
            b.count
        );
    }
    s.push_str("<a href=\"#clusters\">clusters</a></nav></header>");
}

fn band_section(s: &mut String, n: usize, band: &Band, threshold: Option<f64>) {
    let _ = write!(
        s,
        "<section id=\"band-{n}\"><h2>{} — {} pair{}, {} shown</h2>",
        esc(&band.name),
        band.count,
        if band.count == 1 { "" } else { "s" },
        band.samples.len()
    );
    for p in &band.samples {
        pair_card(s, p, threshold);
    }
    s.push_str("</section>");
}

fn pair_card(s: &mut String, p: &PairView, threshold: Option<f64>) {
    let below = matches!((p.similarity, threshold), (Some(x), Some(t)) if x < t);
    let num = |x: Option<f64>| x.map_or("–".into(), |x| format!("{x:.3}"));
    let _ = write!(
        s,
        "<article class=\"pair\"><div class=\"meta\"><span>similarity <b{}>{}</b></span>\
         <span>exact <b>{}</b></span><span>stage <b>{}</b></span>\
         <span class=\"decision\">{}</span></div><div class=\"texts\">",
        if below { " class=\"below\"" } else { "" },
        num(p.similarity),
        num(p.exact),
        esc(&p.stage),
        esc(&p.decision)
    );
    for (first, id) in [(true, &p.id_a), (false, &p.id_b)] {
        let _ = write!(s, "<div class=\"text\"><h3>{}</h3>", esc(id));
        if p.diff.is_empty() {
            s.push_str("<span class=\"missing\">text not found in the inputs (an indexed document?)</span>");
        } else {
            side_text(s, &p.diff, first);
        }
        s.push_str("</div>");
    }
    s.push_str("</div></article>");
}

/// One text of a pair: its own segments highlighted, the other's left out.
fn side_text(s: &mut String, segments: &[Segment], first: bool) {
    for seg in segments {
        match (seg.side, first) {
            (Side::Both, _) => s.push_str(&esc(seg.text_in(first))),
            (Side::First, true) => {
                let _ = write!(s, "<del>{}</del>", esc(&seg.text));
            }
            (Side::Second, false) => {
                let _ = write!(s, "<ins>{}</ins>", esc(&seg.text));
            }
            _ => {}
        }
    }
}

fn clusters_section(s: &mut String, i: &Inspection) {
    s.push_str("<section id=\"clusters\"><h2>Clusters</h2>");
    if let Some(buckets) = i.cluster_sizes.as_array().filter(|b| !b.is_empty()) {
        let most = buckets
            .iter()
            .filter_map(|b| b["clusters"].as_u64())
            .max()
            .unwrap_or(1)
            .max(1);
        s.push_str("<table><tr><th>size</th><th>clusters</th><th>documents</th><th></th></tr>");
        for b in buckets {
            let (min, max) = (
                b["min"].as_u64().unwrap_or(0),
                b["max"].as_u64().unwrap_or(0),
            );
            let count = b["clusters"].as_u64().unwrap_or(0);
            let size = if min == max {
                min.to_string()
            } else {
                format!("{min}–{max}")
            };
            let _ = write!(
                s,
                "<tr><td>{size}</td><td class=\"n\">{count}</td><td class=\"n\">{}</td>\
                 <td><span class=\"bar\" style=\"width:{}px\"></span></td></tr>",
                b["documents"].as_u64().unwrap_or(0),
                (count * 400).div_ceil(most)
            );
        }
        s.push_str("</table>");
    }
    for c in &i.largest {
        cluster_table(s, c, i.threshold);
    }
    s.push_str("</section>");
}

fn cluster_table(s: &mut String, c: &ClusterView, threshold: Option<f64>) {
    let _ = write!(
        s,
        "<h3>Cluster {} — {} documents, {} kept</h3><table><tr><th>document</th>\
         <th>similarity to the kept one</th><th></th><th>beginning of the text</th></tr>",
        c.cluster,
        c.size,
        esc(&c.representative)
    );
    for m in &c.members {
        let below = matches!((m.similarity, threshold), (Some(x), Some(t)) if x < t);
        let _ = write!(
            s,
            "<tr><td>{}</td><td class=\"n{}\">{}</td><td>{}</td><td class=\"snippet\">{}</td></tr>",
            esc(&m.id),
            if below { " below" } else { "" },
            m.similarity.map_or("–".into(), |x| format!("{x:.3}")),
            if m.kept { "kept" } else { "removed" },
            m.snippet
                .as_deref()
                .map_or("<span class=\"missing\">text not found</span>".into(), esc)
        );
    }
    if c.members.len() < c.size {
        let _ = write!(
            s,
            "<tr><td colspan=\"4\">… {} more, closer to the kept one</td></tr>",
            c.size - c.members.len()
        );
    }
    s.push_str("</table>");
}

/// HTML-escaped text.
pub fn esc(t: &str) -> String {
    let mut out = String::with_capacity(t.len());
    for c in t.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}
