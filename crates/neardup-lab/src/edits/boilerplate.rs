//! `boilerplate`: wraps the text in web-page furniture — a header with the site name and
//! navigation, a footer with legal links — adding `rate × words` words in all. This is
//! SpotSigs' motivation (Theobald et al., SIGIR 2008, §1): the same site wraps many different
//! articles in the same navigation, which fools shingling but has few stopwords to anchor
//! spot signatures. The site is chosen at random among a few, so copies of one source may or
//! may not share their furniture.

use neardup::hash::SplitMix64;

use super::{EditContext, EditKind, Edited, words};

/// Boilerplate wrapping.
#[derive(Debug)]
pub struct Boilerplate;

const SITES: &[(&str, &[&str], &[&str])] = &[
    (
        "Daily Herald",
        &[
            "Home",
            "News",
            "World",
            "Business",
            "Sport",
            "Culture",
            "Opinion",
            "Weather",
            "Video",
            "Podcasts",
            "Newsletters",
            "Subscribe",
            "Login",
        ],
        &[
            "Copyright",
            "Daily",
            "Herald",
            "Media",
            "Group",
            "All",
            "rights",
            "reserved",
            "Privacy",
            "Policy",
            "Terms",
            "Cookie",
            "Settings",
            "Contact",
            "Advertise",
            "Careers",
            "Sitemap",
        ],
    ),
    (
        "Metro Wire",
        &[
            "Menu",
            "Search",
            "Latest",
            "Politics",
            "Economy",
            "Technology",
            "Science",
            "Health",
            "Travel",
            "Style",
            "Live",
            "Sign",
            "In",
        ],
        &[
            "Metro",
            "Wire",
            "Inc",
            "Terms",
            "Service",
            "Privacy",
            "Notice",
            "Accessibility",
            "Help",
            "Center",
            "Feedback",
            "Press",
            "Room",
            "RSS",
            "Feeds",
        ],
    ),
    (
        "Valley Post",
        &[
            "Skip",
            "content",
            "Valley",
            "Post",
            "Local",
            "Crime",
            "Schools",
            "Obituaries",
            "Events",
            "Classifieds",
            "Jobs",
            "Real",
            "Estate",
        ],
        &[
            "Valley",
            "Post",
            "Publishing",
            "Company",
            "Contact",
            "Us",
            "Submit",
            "Tip",
            "Corrections",
            "Archives",
            "Print",
            "Edition",
            "Licensing",
        ],
    ),
];

fn furniture(words: &[&str], count: usize) -> String {
    (0..count)
        .map(|i| words[i % words.len()])
        .collect::<Vec<_>>()
        .join(" ")
}

impl EditKind for Boilerplate {
    fn name(&self) -> &'static str {
        "boilerplate"
    }
    fn rate_meaning(&self) -> &'static str {
        "boilerplate words added per word of text"
    }
    fn apply(&self, text: &str, rate: f64, _: &EditContext, rng: &mut SplitMix64) -> Edited {
        let units = words::spans(text).len();
        let total = (rate * units as f64).round() as usize;
        if total == 0 {
            return Edited {
                text: text.to_string(),
                changed: 0,
                units,
            };
        }
        let (name, nav, legal) = SITES[rng.below(SITES.len() as u64) as usize];
        let name_words = name.split(' ').count();
        let header_words = (total / 2).max(name_words.min(total));
        let nav_words = header_words.saturating_sub(name_words);
        let footer_words = total - header_words;
        let mut out = String::with_capacity(text.len() + total * 8);
        if nav_words == 0 {
            out.push_str(&furniture(
                &name.split(' ').collect::<Vec<_>>(),
                header_words,
            ));
        } else {
            out.push_str(name);
            out.push_str(" | ");
            out.push_str(&furniture(nav, nav_words));
        }
        out.push_str("\n\n");
        out.push_str(text);
        if footer_words > 0 {
            out.push_str("\n\n");
            out.push_str(&furniture(legal, footer_words));
        }
        Edited {
            text: out,
            changed: total,
            units,
        }
    }
}
