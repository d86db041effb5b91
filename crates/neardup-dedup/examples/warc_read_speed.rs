//! How fast WARC files are read, payloads only (no charset, no extraction): the reader's own
//! cost, which the "Web pages in" issue asks to keep at 500 MB/s a core or more.
//!
//!     cargo build --release --workspace --examples
//!     target/release/examples/warc_read_speed FILE.warc.gz [REPEATS]
//!
//! Prints the inflated bytes and records read and the rate, best of REPEATS (default 5), on
//! the calling thread only.

use std::path::PathBuf;
use std::time::Instant;

use neardup_dedup::input::{ReadPosition, expand};
use neardup_dedup::web::tally::PageTally;
use neardup_dedup::web::warc::for_each_page_block;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args().skip(1);
    let path = PathBuf::from(args.next().ok_or("usage: warc_read_speed FILE [REPEATS]")?);
    let repeats: usize = args.next().map_or(Ok(5), |r| r.parse())?;
    let files = expand(std::slice::from_ref(&path))?;
    let mut best = f64::INFINITY;
    let (mut pages, mut payload) = (0u64, 0u64);
    for _ in 0..repeats {
        let tally = PageTally::default();
        let started = Instant::now();
        (pages, payload) = (0, 0);
        for file in &files {
            let from = ReadPosition {
                records: 0,
                line: 1,
                byte: 0,
            };
            for_each_page_block(file, from, 8 << 20, &tally, |block, _| {
                pages += block.len() as u64;
                payload += block.iter().map(|p| p.bytes.len() as u64).sum::<u64>();
                Ok(())
            })?;
        }
        best = best.min(started.elapsed().as_secs_f64());
    }
    let inflated: u64 = files
        .iter()
        .map(|f| neardup_dedup::web::warc::record_spans(f).map(|(_, length)| length))
        .sum::<Result<u64, _>>()?;
    println!(
        "{}: {pages} pages, {:.1} MB of payload, {:.1} MB inflated WARC read in {best:.3} s \
         (best of {repeats}): {:.0} MB/s inflated, {:.0} MB/s of the file",
        path.display(),
        payload as f64 / 1e6,
        inflated as f64 / 1e6,
        inflated as f64 / 1e6 / best,
        files.iter().map(|f| f.size).sum::<u64>() as f64 / 1e6 / best,
    );
    Ok(())
}
