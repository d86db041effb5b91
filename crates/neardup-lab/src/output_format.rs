//! How commands that answer a question print the answer (`--format`).

/// How a tuner prints its answer.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum ReportFormat {
    /// Aligned columns and a recommendation, for people.
    Text,
    /// One row per candidate with a header, for spreadsheets.
    Csv,
    /// One JSON document, for programs.
    Json,
}
