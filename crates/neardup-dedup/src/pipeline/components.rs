//! Verified pairs → one cluster label per document: union–find connected components over the
//! new documents, then the indexed ones.

use super::documents::Documents;
use super::options::Stage;
use super::stage::{pairs_path, run_stage};
use super::stage_files::{self, stage_dir};
use super::state::Run;
use crate::error::Result;

impl Run<'_> {
    /// Verified pairs → one cluster label per document (union–find), new documents first,
    /// then the indexed ones.
    pub(super) fn components_stage(
        &mut self,
        docs: &Documents,
        verified: Option<Vec<u64>>,
        stage_key: &str,
    ) -> Result<Vec<u32>> {
        let out = &self.options.output;
        let nodes = self.all_documents(docs);
        let labels = run_stage(
            out,
            &mut self.reports,
            Stage::Components,
            stage_key,
            true,
            || true,
            |dir| {
                let pairs = match verified {
                    Some(p) => p,
                    None => stage_files::read_pairs(&pairs_path(out, Stage::Verify))?.0,
                };
                let labels = neardup::cluster::connected_components(
                    nodes,
                    pairs.iter().map(|&p| neardup::pairs::unpack(p)),
                );
                stage_files::write_labels(&dir.join("clusters.parquet"), &labels)?;
                let clusters = labels.iter().max().map_or(0, |&m| m as u64 + 1);
                Ok((labels, clusters))
            },
        )?;
        match labels {
            Some(labels) => Ok(labels),
            None => stage_files::read_labels(
                &stage_dir(out, Stage::Components.name()).join("clusters.parquet"),
            ),
        }
    }
}
