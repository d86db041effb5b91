//! How commands that answer a question print the answer (`--format`).

/// How a tuner prints its answer.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum ReportFormat {
    /// Aligned columns and a recommendation, for people.
    Text,
    /// CSV with a header, for spreadsheets (each command's --format says what a row is).
    Csv,
    /// One JSON document, for programs.
    Json,
}

/// How a listing prints: for people, or for programs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum ListFormat {
    /// Aligned text, for people.
    Text,
    /// JSON, for programs.
    Json,
}
