//! `memcity windows`: the suspicious time windows of a history (leak, fastest growth, GC
//! overhead, churn), one line each.

#[derive(clap::Args, Debug)]
pub struct WindowsArgs {
    /// A history in any format memcity reads, or `scenario:NAME`.
    pub input: String,
}

pub fn run(args: WindowsArgs) -> anyhow::Result<()> {
    let history = crate::input::load(&args.input)?;
    let windows = memcity_analysis::windows::detect(&history);
    if windows.is_empty() {
        say!("no suspicious time windows");
    }
    for w in windows {
        let label = |i: usize| history.snapshots[i].display_label();
        say!(
            "{:<18} snapshots {}..={} ({} .. {})  score {:.3}",
            w.kind.label(),
            w.first,
            w.last,
            label(w.first),
            label(w.last),
            w.score
        );
    }
    Ok(())
}
