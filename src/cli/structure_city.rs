//! The data-structure city on the command line (docs/structures.md, "The data-structure city"):
//! the classifiers `containing-structure` and `leaf`, and `--structure-view`, group every
//! snapshot's typed heap after its structures are detected, one heap at a time.

use std::path::PathBuf;

use anyhow::{Result, bail};
use memcity_heapgraph::{AnalysisOptions, Classifier, Grouping};
use memcity_hprof::Layout;
use memcity_model::History;
use memcity_structures::{CityBuilder, Keep, View};

use crate::input::{Snapshots, Visit};

/// The flags of the data-structure city, shared by `import`, `analyze` and `memcity`.
#[derive(clap::Args, Debug, Clone, Default)]
pub struct StructureArgs {
    /// The data-structure view: only the heads of data structures no other one contains,
    /// grouped by type, then allocation site or identity (one building per structure); each
    /// building's retained bytes are what its heads keep alive.
    #[arg(long, value_enum, value_name = "site|identity")]
    pub structure_view: Option<ViewArg>,
    /// More data-structure descriptions for --structure-view and the classifiers
    /// containing-structure and leaf: a .ds file or a folder of them; repeatable.
    #[arg(long = "structures", value_name = "FILE|DIR")]
    pub structures: Vec<PathBuf>,
}

#[derive(clap::ValueEnum, Debug, Clone, Copy, PartialEq, Eq)]
pub enum ViewArg {
    Site,
    Identity,
}

impl StructureArgs {
    /// Whether the city must be grouped from typed heaps: the view is asked for, or a
    /// classifier that needs structures. `--structures` alone is refused: nothing would use it.
    pub fn wanted(&self, classifiers: Option<&[Classifier]>) -> Result<bool> {
        let classified = classifiers.is_some_and(|c| c.iter().any(Classifier::needs_structures));
        if self.structure_view.is_some() && classifiers.is_some() {
            bail!(
                "--structure-view groups by type, then site or identity: give it or --classifiers, not both"
            );
        }
        let wanted = classified || self.structure_view.is_some();
        if !wanted && let Some(path) = self.structures.first() {
            bail!(
                "--structures {}: descriptions are used by --structure-view and the classifiers \
                 containing-structure and leaf; give one of them",
                path.display()
            );
        }
        Ok(wanted)
    }
}

/// The city of `specs` grouped with their data structures; `layout` sizes dump objects.
pub fn history(
    specs: &[String],
    classifiers: Option<Vec<Classifier>>,
    args: &StructureArgs,
    analysis: AnalysisOptions,
    layout: &Layout,
) -> Result<History> {
    build(classifiers, args, analysis, |visit| {
        crate::input::each_typed_heap(specs, Snapshots::All, layout, visit)
    })
}

/// Groups every typed heap `read` hands out (with [`Snapshots::All`]), by `classifiers` (with a structure classifier
/// among them) or, with `--structure-view`, by the view's. The user's own descriptions are
/// checked against the first heap (a pattern that matches no type is most often a typo).
pub fn build(
    classifiers: Option<Vec<Classifier>>,
    args: &StructureArgs,
    analysis: AnalysisOptions,
    read: impl FnOnce(&mut Visit) -> Result<()>,
) -> Result<History> {
    let descriptions = crate::cli::structures::descriptions(&args.structures)?;
    let mut city = match (args.structure_view, classifiers) {
        (Some(ViewArg::Site), _) => CityBuilder::view(View::Site, analysis, descriptions.all),
        (Some(ViewArg::Identity), _) => CityBuilder::view(View::Identity, analysis, descriptions.all),
        (None, Some(classifiers)) => {
            CityBuilder::new(Grouping { classifiers, analysis }, Keep::All, descriptions.all)
                .map_err(|e| anyhow::anyhow!("--classifiers: {e}"))?
        }
        (None, None) => bail!("give --structure-view or a classifier that needs structures"),
    };
    let mut first = true;
    read(&mut |snapshot| {
        if std::mem::take(&mut first) {
            crate::cli::structures::warn_unmatched(&snapshot.heap, &descriptions.users);
        }
        city.add(snapshot);
        Ok(())
    })?;
    Ok(city.history())
}
