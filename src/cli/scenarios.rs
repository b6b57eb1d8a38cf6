//! `memcity scenarios`: the built-in teaching scenarios, one line each (a leak's tour and fixed
//! program named after it).

#[derive(clap::Args, Debug)]
pub struct ScenariosArgs {}

pub fn run(_args: ScenariosArgs) -> anyhow::Result<()> {
    for s in memcity_analysis::scenarios::SCENARIOS {
        let tour = match s.lesson {
            Some(lesson) => format!(" (tour: memcity --tour {}; fixed: scenario:{})", s.name, lesson.fixed),
            None => String::new(),
        };
        say!("{:<18} {}{tour}", s.name, s.summary);
    }
    Ok(())
}
