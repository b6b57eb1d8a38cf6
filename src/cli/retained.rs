//! The flags that choose how much of "why is it alive" an import or replay computes.

use memcity_heapgraph::{AnalysisOptions, Retained};

#[derive(clap::Args, Debug, Clone, Default)]
pub struct RetainedArgs {
    /// Leave out retained sizes and retainer paths (no dominator tree per snapshot).
    #[arg(long, conflicts_with = "closure")]
    pub no_retained: bool,
    /// Also compute every group's exact GC closure (shared ownership counted; one marking pass
    /// per group per snapshot: slow on big heaps). By default retained sizes are what each group
    /// dominates, from one dominator tree per snapshot.
    #[arg(long)]
    pub closure: bool,
}

impl RetainedArgs {
    pub fn analysis(&self) -> AnalysisOptions {
        let mut options = AnalysisOptions::default();
        if self.no_retained {
            options.retained = Retained::None;
            options.retainer_paths = false;
        } else if self.closure {
            options.retained = Retained::Closure;
        }
        options
    }
}
