//! `boilerplate`: wraps the text in web-page furniture — a header with the site name and
//! navigation, a footer with legal links — adding `rate × words` words in all. This is
//! SpotSigs' motivation (Theobald et al., SIGIR 2008, §1): the same site wraps many different
//! articles in the same navigation, which fools shingling but has few stopwords to anchor
//! spot signatures. The site is chosen at random among a few, so copies of one source may or
//! may not share their furniture. Chinese text gets Chinese sites (navigation and legal
//! words of Chinese news portals).

use neardup::hash::SplitMix64;

use super::kind::{EditContext, EditKind, Edited};
use super::words;

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

/// Chinese news-portal furniture: (site, navigation, footer).
const CHINESE_SITES: &[(&str, &[&str], &[&str])] = &[
    (
        "华夏日报",
        &[
            "首页", "新闻", "国内", "国际", "财经", "体育", "娱乐", "科技", "评论", "视频", "专题",
            "订阅", "登录", "注册",
        ],
        &[
            "版权所有",
            "华夏日报",
            "传媒集团",
            "未经",
            "授权",
            "禁止",
            "转载",
            "隐私",
            "政策",
            "用户",
            "协议",
            "联系",
            "我们",
            "广告",
            "服务",
            "网站",
            "地图",
        ],
    ),
    (
        "都市快讯网",
        &[
            "导航",
            "搜索",
            "最新",
            "要闻",
            "社会",
            "经济",
            "健康",
            "教育",
            "旅游",
            "汽车",
            "房产",
            "下载",
            "客户端",
        ],
        &[
            "关于",
            "我们",
            "都市快讯网",
            "违法",
            "和",
            "不良",
            "信息",
            "举报",
            "电话",
            "备案号",
            "意见",
            "反馈",
            "友情",
            "链接",
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
        let sites = if words::is_chinese(text) {
            CHINESE_SITES
        } else {
            SITES
        };
        let (name, nav, legal) = sites[rng.below(sites.len() as u64) as usize];
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
