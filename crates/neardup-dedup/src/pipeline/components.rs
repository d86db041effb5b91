//! Verified pairs → clusters: union–find connected components over the new documents, then
//! the indexed ones; then each component anchored on the document kept for it
//! (`anchoring`): with `--clusters verified` cut until every member is within the threshold
//! of the document kept in its place, with `connected` only each member's similarity to it
//! measured.

use neardup::cluster::anchored::Components;
use neardup::detector::Index;

use super::anchoring::{Anchoring, Comparer};
use super::clusters::Clusters;
use super::documents::Documents;
use super::options::{ClusterMode, Stage};
use super::stage::{pairs_path, run_stage};
use super::stage_files::{self, stage_dir};
use super::state::Run;
use super::verify::build_in_memory;
use crate::error::Result;

impl Run<'_> {
    /// Verified pairs → every document's cluster, representative and similarity to it, new
    /// documents first, then the indexed ones. `built` is the in-memory algorithm's index
    /// when the verify stage just built it (else it is built again here if needed).
    pub(super) fn components_stage(
        &mut self,
        docs: &Documents,
        verified: Option<Vec<u64>>,
        built: Option<Box<dyn Index>>,
        stage_key: &str,
    ) -> Result<Clusters> {
        let out = &self.options.output;
        let nodes = self.all_documents(docs);
        let (files, options, detector) = (&self.files, self.options, &self.detector);
        let fields = &self.fields;
        let (stream, cut) = (&self.stream, self.cluster_mode == ClusterMode::Verified);
        let indexed = &mut self.indexed;
        let clusters = run_stage(
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
                let unpacked = || pairs.iter().map(|&p| neardup::pairs::unpack(p));
                let labels = neardup::cluster::connected_components(nodes, unpacked());
                let components = Components::new(&labels, unpacked());
                drop((labels, pairs));
                let comparer_index = match (stream, built) {
                    (None, None) => Some(build_in_memory(
                        files,
                        options,
                        fields,
                        docs,
                        detector.as_ref(),
                    )?),
                    (_, built) => built,
                };
                let comparer = match (stream, indexed) {
                    (Some(stream), Some(indexed)) => Comparer::Signatures {
                        stream: stream.as_ref(),
                        segments: Some(Self::index_segments(indexed, stream.as_ref())?),
                    },
                    (Some(stream), None) => Comparer::Signatures {
                        stream: stream.as_ref(),
                        segments: None,
                    },
                    (None, _) => Comparer::Built(
                        comparer_index
                            .as_deref()
                            .expect("built above for an algorithm that runs in memory"),
                    ),
                };
                let anchoring = Anchoring {
                    docs,
                    keep: &options.keep,
                    cut,
                    comparer,
                };
                let clusters = anchoring.clusters(&components, nodes)?;
                stage_files::write_clusters(&dir.join("clusters.parquet"), &clusters)?;
                let count = clusters.labels.iter().max().map_or(0, |&m| m as u64 + 1);
                Ok((clusters, count))
            },
        )?;
        match clusters {
            Some(clusters) => Ok(clusters),
            None => stage_files::read_clusters(
                &stage_dir(out, Stage::Components.name()).join("clusters.parquet"),
            ),
        }
    }
}
