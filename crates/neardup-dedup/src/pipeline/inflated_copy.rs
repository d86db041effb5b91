//! The copy of a compressed JSONL input's inflated bytes (or of a stream's bytes) that the
//! sketch stage writes as it reads, for the outputs stage.

use std::io::Write;
use std::path::PathBuf;

use super::options::DedupOptions;
use super::stage_files;
use crate::error::{Error, Result};
use crate::fsutil;
use crate::input::{Compression, FileFormat, InputFile};

/// The inflated bytes of a gzipped JSONL input, kept while it is sketched so that the
/// outputs stage copies the kept lines from them instead of inflating the input a second time
/// (inflating was 5.5 s of the 7.2 s outputs stage of a 1 M-document .jsonl.gz). It costs
/// disk as large as the inflated input until the outputs stage removes it; `--no-inflated-copy`
/// declines, and a copy that cannot be written (a full disk) is dropped with a warning, not
/// an error: the outputs stage then inflates the input as before. A stream's copy is required
/// (the outputs stage cannot read the stream again): failing to write it is an error.
pub(super) struct InflatedCopy {
    path: PathBuf,
    /// The copy and its writer, past the page cache: gigabytes that the outputs stage reads
    /// once, a stage later.
    file: Option<(fsutil::PendingFile, fsutil::DirectWriter<std::fs::File>)>,
    /// A stream's copy: its failure is the sketch's.
    required: bool,
    /// Why a required copy failed.
    failed: Option<String>,
}

impl InflatedCopy {
    /// Starts the copy of input `index` if it is compressed JSONL and copies are wanted, or a
    /// stream. A copy left by an earlier sketch of this input is removed first: a copy in
    /// place is always the one written with the sketch marker that follows it. A `resumed`
    /// sketch (one that starts past the file's beginning) keeps none: the bytes before its
    /// start are not read through it.
    pub(super) fn start(
        options: &DedupOptions,
        file: &InputFile,
        index: usize,
        resumed: bool,
    ) -> Result<Self> {
        let path = stage_files::inflated_copy_path(&options.output, index);
        fsutil::remove_if_present(&path)?;
        // Gzip only: zstd inflates faster than the copy, written past the page cache, is read
        // back from disk. A 1 M-document .jsonl.zst took 0.78× the time without the copy
        // (outputs stage 2.7 s inflating again, 4.5 s reading the copy), where a .jsonl.gz
        // took as long either way. Read back past the page cache (`CarryingReader`), a
        // .jsonl.gz's outputs stage takes 3.4 s where it took 5.5 s: still more than
        // inflating zstd again.
        let wanted = options.inflated_copy
            && !resumed
            && file.format == FileFormat::Jsonl
            && file.compression == Compression::Gzip;
        let mut copy = Self {
            path,
            file: None,
            required: file.stream,
            failed: None,
        };
        if wanted || copy.required {
            let opened = fsutil::PendingFile::create(&copy.path).and_then(|mut f| {
                let writer = f.writer(true)?;
                Ok((f, writer))
            });
            match opened {
                Ok(f) => copy.file = Some(f),
                Err(e) => copy.give_up(&e.to_string()),
            }
        }
        Ok(copy)
    }

    pub(super) fn write(&mut self, bytes: &[u8]) {
        if let Some((_, writer)) = &mut self.file
            && let Err(e) = writer.write_all(bytes)
        {
            self.give_up(&e.to_string());
        }
    }

    /// Puts the copy in place; an error only when a required copy could not be kept.
    pub(super) fn finish(mut self) -> Result<()> {
        if let Some((file, writer)) = self.file.take()
            && let Err(e) = writer
                .finish()
                .map_err(|e| Error::io(&self.path, e))
                .and_then(|_| file.commit())
        {
            self.give_up(&e.to_string());
        }
        match self.failed {
            Some(why) => Err(Error::file(
                &self.path,
                format!(
                    "cannot keep the copy of a stream input that the outputs stage reads ({why}); \
                     free disk space and rerun"
                ),
            )),
            None => Ok(()),
        }
    }

    fn give_up(&mut self, why: &str) {
        self.file = None;
        if self.required {
            self.failed.get_or_insert_with(|| why.to_string());
            return;
        }
        eprintln!(
            "neardup: warning: not keeping an inflated copy at {} ({why}); the outputs stage \
             will inflate the input again",
            self.path.display()
        );
    }
}
