//! `memcity push`: send a history to a memcity server (`memcity serve` or the app's `--listen`),
//! whole or snapshot by snapshot, printing each reply.

use std::time::Duration;

#[derive(clap::Args, Debug)]
pub struct PushArgs {
    /// The server, e.g. ws://127.0.0.1:7878 (with `/?token=T` if it needs one; without, the
    /// MEMCITY_TOKEN environment variable is used when set).
    pub url: String,
    /// A history in any format memcity reads (file or folder).
    pub input: String,
    /// Send the snapshots one at a time, as a live program would.
    #[arg(long)]
    pub live: bool,
    /// With --live: milliseconds between snapshots.
    #[arg(long, default_value_t = 500, value_name = "D", requires = "live")]
    pub delay_ms: u64,
}

pub fn run(args: PushArgs) -> anyhow::Result<()> {
    let history = crate::input::load(&args.input)?;
    let url = memcity_wire::access::url_for_tool(&args.url);
    let mut print = |reply: &str| say!("{reply}");
    if args.live {
        memcity_wire::push_live(&url, &history, Duration::from_millis(args.delay_ms), &mut print)?;
    } else {
        memcity_wire::push_history(&url, &history, &mut print)?;
    }
    Ok(())
}
