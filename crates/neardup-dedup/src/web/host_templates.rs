//! The pass that finds site templates (`--boilerplate-lines K`): every page read once, its
//! lines counted per host (`boilerplate::LineCounts`), before the sketch. It reads through
//! the input layer like any command, so it sits above it and above the page readers.

use crate::error::Result;
use crate::input::fields::Fields;
use crate::input::files::InputFile;

use super::{boilerplate, tally};

/// The template lines of `files`' pages: lines on `min_pages` or more pages of one host. One
/// pass over the pages, extracted as `fields` says (its own tally: the sketch counts pages).
pub fn count_boilerplate(
    files: &[InputFile],
    fields: &Fields,
    min_pages: u32,
) -> Result<boilerplate::Boilerplate> {
    let counting = Fields {
        boilerplate: None,
        tally: tally::PageTally::default(),
        ..fields.clone()
    };
    let mut counts = boilerplate::LineCounts::default();
    let step = crate::progress::step("boilerplate lines: counting lines per host");
    for file in files {
        crate::input::for_each_record_block(file, &counting, |block| {
            for record in block {
                let host = record.page.as_ref().and_then(|p| p.host.as_deref());
                counts.add_page(host, &record.text);
            }
            Ok(())
        })?;
    }
    let template = counts.boilerplate(min_pages);
    step.finish(format_args!(
        "{} template lines (on {min_pages} or more pages of a host)",
        template.len()
    ));
    Ok(template)
}
