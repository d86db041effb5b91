//! What an example block shows: the pairs picked, why each, and the block as written.

/// Why a pair is shown.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Role {
    /// A true pair reported at the best setting, scored lowest.
    FoundJustAbove,
    /// A true pair not reported at the best setting, scored highest.
    MissedJustBelow,
    /// A false pair reported at the best setting, scored highest.
    FalseHighest,
    /// A false pair reported at the best setting, scored lowest.
    FalseJustAbove,
}

impl Role {
    pub(super) fn title(self) -> &'static str {
        match self {
            Role::FoundJustAbove => "true pair just above the cut: found",
            Role::MissedJustBelow => "true pair just below the cut: missed",
            Role::FalseHighest => "not in the truth, scored highest: found",
            Role::FalseJustAbove => "not in the truth, just above the cut: found",
        }
    }
}

/// One pair to show, with the algorithm's score (none where it cannot score a pair).
#[derive(Debug, Clone, Copy)]
pub(super) struct Pick {
    pub(super) role: Role,
    pub(super) a: u32,
    pub(super) b: u32,
    pub(super) score: Option<f64>,
}

/// What one algorithm shows on one corpus.
#[derive(Debug)]
pub(super) struct Shown {
    pub(super) cut: Option<f64>,
    pub(super) picks: Vec<Pick>,
    /// True pairs its best setting misses, of how many.
    pub(super) missed: usize,
    pub(super) positives: usize,
}

/// One algorithm on one corpus, as the page shows it: a cell of the overview table and the
/// folded pairs.
#[derive(Debug)]
pub(super) struct Block {
    /// The overview's cell ("75/304"), and the block's summary line in words.
    pub(super) overview: String,
    pub(super) summary: String,
    pub(super) html: String,
}
