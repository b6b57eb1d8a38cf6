//! `memcity layout`: the headless city.

#[derive(clap::Args, Debug)]
pub struct LayoutArgs {
    /// A history in any format memcity reads (file or folder).
    pub input: String,
}

pub fn run(args: LayoutArgs) -> anyhow::Result<()> {
    let history = crate::input::load(&args.input)?;
    println!("{}", history.snapshots.len());
    Ok(())
}
