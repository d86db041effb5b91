//! What the components stage decides ([`Clusters`]): every document's cluster, the document
//! kept in its place and how similar they are. The outputs stage reads nothing else of it.

/// Every document's cluster, the document kept in its place and its similarity to it: new
/// documents first, then the indexed ones.
#[derive(Debug, Clone, PartialEq)]
pub struct Clusters {
    /// Cluster of every document, numbered by smallest member.
    pub labels: Vec<u32>,
    /// The document kept in each one's place (itself when it is kept).
    pub representative: Vec<u32>,
    /// Similarity to the representative (1 for itself; NaN when the algorithm cannot score
    /// the pair).
    pub similarity: Vec<f64>,
    /// Whether that similarity is within the threshold (every one with `--clusters
    /// verified`; a document removed although it is not is a wrongful removal).
    pub within_threshold: Vec<bool>,
}
