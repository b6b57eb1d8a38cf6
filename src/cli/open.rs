//! `memcity [INPUT]`: open the city in a window, or render it headless.

use anyhow::{Result, bail};

use crate::cli::layout::SettingsArgs;

/// Arguments of `memcity [INPUT]` (the app).
#[derive(clap::Args, Debug, Clone)]
pub struct OpenArgs {
    /// A history (memcity/1 file, snapshot folder, AntTracks export), a heap dump series (a
    /// .hprof/.hprof.gz file or a folder of them) or `scenario:NAME`.
    /// Without one, the built-in teaching city.
    pub input: Option<String>,
    /// Render one frame to this PNG and exit (no window needed).
    #[arg(long, value_name = "PNG")]
    pub screenshot: Option<std::path::PathBuf>,
    /// With --screenshot: open the window (UI included) and capture it instead of rendering
    /// offscreen; needs a display (e.g. Xvfb).
    #[arg(long, requires = "screenshot")]
    pub window: bool,
    /// Snapshot to show first (0-based).
    #[arg(long, value_name = "I")]
    pub time: Option<usize>,
    /// Key of the group to select (shows its references).
    #[arg(long, value_name = "KEY")]
    pub select: Option<String>,
    /// Camera: overview, bird (from above) or street (low over the city).
    #[arg(long, default_value = "overview", value_parser = ["overview", "bird", "street"])]
    pub view: String,
    /// Image size for --screenshot and --bench-render, WIDTHxHEIGHT.
    #[arg(long, default_value = "1280x720", value_parser = parse_size)]
    pub size: (u32, u32),
    /// Render a synthetic city offscreen, animating time every frame, and print frame times.
    #[arg(long)]
    pub bench_render: bool,
    /// Buildings in the --bench-render city.
    #[arg(long, default_value_t = 10_000)]
    pub buildings: usize,
    /// Frames measured by --bench-render.
    #[arg(long, default_value_t = 30)]
    pub frames: usize,
    /// --bench-render the naive way (one entity and material per building) for comparison.
    #[arg(long)]
    pub baseline: bool,
    #[command(flatten)]
    pub settings: SettingsArgs,
}

pub fn parse_size(s: &str) -> Result<(u32, u32), String> {
    let (w, h) =
        s.split_once('x').ok_or_else(|| format!("size \"{s}\" is not WIDTHxHEIGHT (e.g. 1280x720)"))?;
    let parse = |v: &str| v.parse::<u32>().ok().filter(|&n| (16..=8192).contains(&n));
    match (parse(w), parse(h)) {
        (Some(w), Some(h)) => Ok((w, h)),
        _ => Err(format!("size \"{s}\": width and height must be whole numbers from 16 to 8192")),
    }
}

pub fn run(args: OpenArgs) -> Result<()> {
    let settings = args.settings.to_settings()?;
    if args.bench_render && args.screenshot.is_some() {
        bail!("--bench-render and --screenshot cannot be combined");
    }
    if args.bench_render && (args.buildings == 0 || args.frames == 0) {
        bail!("--bench-render needs --buildings and --frames of at least 1");
    }
    let history = if args.bench_render {
        memcity_model::synthetic::history(args.buildings, 12, 1)
    } else {
        crate::input::load(args.input.as_deref().unwrap_or(crate::input::DEFAULT_INPUT))?
    };
    if let Some(t) = args.time
        && t >= history.snapshots.len()
    {
        bail!(
            "--time {t}: the history has {} snapshots (0..{})",
            history.snapshots.len(),
            history.snapshots.len() - 1
        );
    }
    launch(args, history, settings)
}

#[cfg(feature = "app")]
fn launch(
    args: OpenArgs,
    history: memcity_model::History,
    mut settings: memcity_layout::Settings,
) -> Result<()> {
    use crate::app::{AppOptions, Mode, camera::View};
    let mode = if args.bench_render {
        // Every synthetic building is shown.
        settings.children = usize::MAX;
        Mode::Bench {
            frames: args.frames,
            size: args.size,
            baseline: args.baseline,
            buildings: args.buildings,
        }
    } else if let Some(path) = args.screenshot {
        if args.window { Mode::Window(Some(path)) } else { Mode::Screenshot { path, size: args.size } }
    } else {
        Mode::Window(None)
    };
    let view = match args.view.as_str() {
        "bird" => View::Bird,
        "street" => View::Street,
        _ => View::Overview,
    };
    crate::app::run(AppOptions { history, settings, mode, time: args.time, select: args.select, view })
}

#[cfg(not(feature = "app"))]
fn launch(_: OpenArgs, _: memcity_model::History, _: memcity_layout::Settings) -> Result<()> {
    bail!("this memcity was built without the `app` feature: only the headless subcommands work")
}
