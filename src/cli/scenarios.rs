//! `memcity scenarios`: the built-in teaching scenarios, one line each.

#[derive(clap::Args, Debug)]
pub struct ScenariosArgs {}

pub fn run(_args: ScenariosArgs) -> anyhow::Result<()> {
    for s in memcity_analysis::scenarios::SCENARIOS {
        println!("{:<12} {}", s.name, s.summary);
    }
    Ok(())
}
