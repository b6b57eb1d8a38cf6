//! `memcity [INPUT]`: open the city in a window, or render it headless.

use anyhow::{Result, bail};

use crate::cli::layout::SettingsArgs;

/// Arguments of `memcity [INPUT]` (the app).
#[derive(clap::Args, Debug, Clone)]
pub struct OpenArgs {
    /// What to open (see `crate::input::INPUTS_HELP`); without one, the built-in teaching city.
    #[arg(help = crate::input::INPUTS_HELP, value_name = "INPUT")]
    pub inputs: Vec<String>,
    /// Render one frame to this PNG and exit (no window needed).
    #[arg(long, value_name = "PNG")]
    pub screenshot: Option<std::path::PathBuf>,
    /// With --screenshot: open the window (UI included) and capture it instead of rendering
    /// offscreen; needs a display (e.g. Xvfb).
    #[arg(long, requires = "screenshot")]
    pub window: bool,
    /// Two runs in one city: BEFORE and AFTER (each any INPUT) laid out alike, side by side or
    /// as one city coloured by their difference (--compare-view); time steps both.
    #[arg(long, num_args = 2, value_names = ["BEFORE", "AFTER"],
          conflicts_with_all = ["inputs", "connect", "listen", "inspect", "follow", "tour", "bench_render"])]
    pub compare: Option<Vec<String>>,
    /// Snapshot to show first (0-based).
    #[arg(long, value_name = "I")]
    pub time: Option<usize>,
    /// Key of the group to select (shows its references); a live city or a series still loading selects it once a group has it.
    #[arg(long, value_name = "KEY")]
    pub select: Option<String>,
    /// The view to start in (and to capture with --screenshot): the city, the Tree tab as an
    /// icicle, a sunburst or the timeline of small multiples, or the Ownership tab.
    #[arg(long, default_value = "city", value_parser = ["city", "icicle", "sunburst", "timeline", "ownership"])]
    pub mode: String,
    /// Camera: overview, bird (from above) or street (low over the city).
    #[arg(long, default_value = "overview", value_parser = ["overview", "bird", "street"])]
    pub view: String,
    /// Size of the window, or of the image for --screenshot and --bench-render: WIDTHxHEIGHT.
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
    /// Accept WebSocket clients that push histories and live snapshots (docs/websocket.md);
    /// without ADDR on 127.0.0.1:7878. Without INPUT the city starts empty and waits.
    #[arg(long, value_name = "ADDR", num_args = 0..=1, default_missing_value = memcity_wire::DEFAULT_ADDR)]
    pub listen: Option<String>,
    /// A live city of V8 heap snapshots taken from a Node (`--inspect`) or Chromium
    /// (`--remote-debugging-port`) inspector at HOST:PORT (a bare port means 127.0.0.1), one
    /// every --every; it grows while the program runs, as with --listen.
    #[arg(long, value_name = "HOST:PORT", conflicts_with_all = ["inputs", "connect", "listen"])]
    pub inspect: Option<String>,
    /// With --inspect: time between snapshots, e.g. `2s`, `500ms`.
    #[arg(long, default_value = "2s", value_parser = crate::cli::record::parse_duration, requires = "inspect")]
    pub every: std::time::Duration,
    /// With --inspect: the target whose URL or title contains this (default: Node's target or
    /// the first page).
    #[arg(long = "target", value_name = "URL-SUBSTRING", requires = "inspect")]
    pub inspect_target: Option<String>,
    /// Follow a probe's snapshot folder (e.g. `memcity_probe.py --out DIR`, docs/python.md):
    /// the city grows as snapshots appear. It is fed through the live server (--listen, or one
    /// on a free loopback port).
    #[arg(long, value_name = "DIR", conflicts_with_all = ["inputs", "connect", "tour", "inspect"])]
    pub follow: Option<std::path::PathBuf>,
    /// Open the trees and pointer maps of an AntTracks server (ws://HOST:PORT) instead of INPUT.
    #[arg(long, value_name = "URL", conflicts_with = "inputs")]
    pub connect: Option<String>,
    /// Start the guided tour of a teaching scenario (opens scenario:NAME): linked-list,
    /// http-client or easytravel.
    #[arg(long, value_name = "NAME", conflicts_with_all = ["inputs", "connect", "listen"])]
    pub tour: Option<String>,
    /// With --tour: start at step N (1-based) as if each earlier step had been done — the
    /// history played to its end, the top grower pointed at and selected, its first keeper
    /// followed, the fixed program opened. With --screenshot, a picture of that step; A-B
    /// captures steps A to B in turn, the step's number added to each file's name
    /// (shot.png → shot-2.png).
    #[arg(long, value_name = "N|A-B", value_parser = parse_steps)]
    pub step: Option<(usize, usize)>,
    /// With --screenshot: write the workspace as drawn in the captured frame to FILE as JSON —
    /// the window's size, every shown tab with its rectangle, and what the tour step asks the
    /// user to act on (docs/design.md, "The workspace").
    #[arg(long, value_name = "FILE.json")]
    pub ui_state: Option<std::path::PathBuf>,
    /// The workspace's layout: default, teaching (the tour's pane beside the city) or a layout
    /// FILE saved by memcity; without it, the layout of the last exit.
    #[arg(long, value_name = "default|teaching|FILE")]
    pub layout: Option<String>,
    /// In the window: once each city is loaded, bring every tab to the front in turn (the Tree
    /// tab in each view), select the top grower, then play time — a check that every view
    /// shows this input (the window tests use it).
    #[arg(long)]
    pub visit_tabs: bool,
    /// With --connect: the AntTracks tab to open (default: the first of its tab list).
    #[arg(long, value_name = "N", requires = "connect")]
    pub tab: Option<i64>,
    #[command(flatten)]
    pub settings: SettingsArgs,
    #[command(flatten)]
    pub structure: crate::cli::structure_city::StructureArgs,
    /// Who may connect to the live server of --listen (and of --inspect, --follow).
    #[command(flatten)]
    pub access: crate::cli::serve::AccessArgs,
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
    if let Some(path) = &args.screenshot {
        crate::cli::paths::check_output_file(path, "--screenshot")?;
    }
    if let Some(path) = &args.ui_state {
        if args.screenshot.is_none() {
            bail!("--ui-state writes the workspace of a --screenshot: give --screenshot PNG too");
        }
        crate::cli::paths::check_output_file(path, "--ui-state")?;
    }
    check_steps(&args)?;
    // clap's `requires` is not enforced on these flattened arguments.
    if args.tab.is_some() && args.connect.is_none() {
        bail!("--tab picks a tab of an AntTracks server: give --connect ws://HOST:PORT too");
    }
    if args.bench_render && args.mode == "ownership" {
        bail!("--bench-render --mode ownership: the benchmark draws the city or a tree view");
    }
    if args.bench_render && args.screenshot.is_some() {
        bail!("--bench-render and --screenshot cannot be combined");
    }
    if args.bench_render && (args.buildings == 0 || args.frames == 0) {
        bail!("--bench-render needs --buildings and --frames of at least 1");
    }
    let interactive = args.screenshot.is_none() && !args.bench_render;
    if let Some(runs) = &args.compare {
        if by_structures_wanted(&args)? {
            bail!("--structure-view groups the objects of an INPUT: it cannot be combined with --compare");
        }
        let history = crate::input::compare::pair(&runs[0], &runs[1])?;
        check_time(args.time, &history)?;
        let mut args = args;
        args.select = args.select.map(|key| crate::input::compare::select_key(&history, key));
        return launch(args, history, settings, None, None, Vec::new());
    }
    let specs = if let Some(name) = &args.tour {
        tour_scenario(name)?;
        vec![format!("scenario:{name}")]
    } else if args.inputs.is_empty() {
        vec![crate::input::DEFAULT_INPUT.to_string()]
    } else {
        args.inputs.clone()
    };
    let slow = specs.len() > 1 || crate::input::is_slow(&specs[0]);
    // A broken description file is refused before any input is read (the launch reads them
    // again for the app).
    crate::cli::structures::descriptions(&args.structure.structures)?;
    // In the app, --structures alone feeds the Data structures tab.
    let by_structures = by_structures_wanted(&args)?;
    let no_input = args.inputs.is_empty();
    if by_structures
        && (args.bench_render
            || args.tour.is_some()
            || args.connect.is_some()
            || args.inspect.is_some()
            || args.follow.is_some()
            || (args.listen.is_some() && no_input))
    {
        bail!(
            "--structure-view groups the objects of an INPUT: it cannot be combined with --bench-render, --tour, --connect, --inspect, --follow or an empty --listen"
        );
    }
    let mut background = None;
    let history = if by_structures {
        // Read here, before the window opens: the app's background loader groups as each
        // source's import does.
        crate::input::check_all(&specs)?;
        let analysis = Default::default();
        crate::cli::structure_city::history(&specs, None, &args.structure, analysis, &Default::default())?
    } else if args.bench_render {
        memcity_model::synthetic::history(args.buildings, 12, 1)
    } else if let Some(url) = &args.connect {
        let timeout = memcity_wire::client::DEFAULT_TIMEOUT;
        memcity_wire::fetch_anttracks(url, args.tab, timeout)
            .map_err(|e| anyhow::anyhow!("--connect: {e}"))?
    } else if (args.listen.is_some() || args.inspect.is_some() || args.follow.is_some())
        && args.inputs.is_empty()
    {
        empty_history()
    } else if interactive && slow && args.time.is_none() && args.select.is_none() {
        // The window opens at once and shows the import's progress.
        crate::input::check_all(&specs)?;
        background = Some(specs.clone());
        empty_history()
    } else if specs.len() > 1
        || crate::input::is_heap_dumps(std::path::Path::new(&specs[0]))
        || crate::input::is_snapshots(std::path::Path::new(&specs[0]))
    {
        crate::input::check_all(&specs)?;
        let paths: Vec<std::path::PathBuf> = specs.iter().map(Into::into).collect();
        crate::cli::import::import_series_with_progress(
            &paths,
            None,
            &Default::default(),
            Default::default(),
            false,
        )?
    } else {
        crate::input::load(&specs[0])?
    };
    check_time(args.time, &history)?;
    let listen = match (&args.listen, &args.inspect, &args.follow) {
        (Some(addr), _, _) => Some(listen(addr, &args.access)?),
        (None, Some(inspector), _) => Some(inspect(inspector, &args)?),
        (None, None, Some(_)) => Some(listen("127.0.0.1:0", &args.access)?),
        (None, None, None) => None,
    };
    if let (Some(dir), Some(server)) = (&args.follow, &listen) {
        // The thread ends with the process.
        let stop = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
        crate::follow::spawn(dir, server.url(), stop)?;
    }
    // A city grouped by structures has keys no source's import makes: exact closures, which
    // import again, cannot find its groups.
    let from_inputs = !args.bench_render && args.connect.is_none() && background.is_none() && !by_structures;
    let source = if from_inputs && !history.snapshots.is_empty() { specs } else { Vec::new() };
    launch(args, history, settings, background, listen, source)
}

/// `--time I` lies within the history to show.
fn check_time(time: Option<usize>, history: &memcity_model::History) -> Result<()> {
    match time {
        Some(t) if history.snapshots.is_empty() => {
            bail!(
                "--time {t}: the city starts empty (--listen without INPUT), so there is no snapshot to show"
            )
        }
        Some(t) if t >= history.snapshots.len() => bail!(
            "--time {t}: the history has {} snapshots (0..{})",
            history.snapshots.len(),
            history.snapshots.len() - 1
        ),
        _ => Ok(()),
    }
}

/// Whether the city is grouped by data structures (`--structure-view` with structures wanted).
fn by_structures_wanted(args: &OpenArgs) -> Result<bool> {
    Ok(args.structure.structure_view.is_some() && args.structure.wanted(None)?)
}

/// `--step N` or `A-B`: the first and last step.
pub fn parse_steps(s: &str) -> Result<(usize, usize), String> {
    let number =
        |v: &str| v.trim().parse::<usize>().map_err(|_| format!("\"{s}\" is not N or A-B (e.g. 4 or 1-6)"));
    let (first, last) = match s.split_once('-') {
        Some((a, b)) => (number(a)?, number(b)?),
        None => (number(s)?, number(s)?),
    };
    if first > last {
        return Err(format!("\"{s}\": the first step is after the last"));
    }
    Ok((first, last))
}

/// `--step` needs a tour and lies within it; several steps need a screenshot to capture.
fn check_steps(args: &OpenArgs) -> Result<()> {
    let Some((first, last)) = args.step else { return Ok(()) };
    let shown = if first == last { first.to_string() } else { format!("{first}-{last}") };
    let Some(tour) = &args.tour else {
        bail!("--step {shown} is a step of a tour: give --tour NAME too");
    };
    if first == 0 {
        bail!("--step {shown}: steps count from 1");
    }
    #[cfg(feature = "app")]
    {
        let steps = crate::app::tour::STEPS.len();
        if last > steps {
            bail!("--step {shown}: the tour of {tour} has {steps} steps (1-{steps})");
        }
    }
    #[cfg(not(feature = "app"))]
    let _ = tour;
    if first < last {
        let Some(png) = &args.screenshot else {
            bail!("--step {shown} captures each of these steps: give --screenshot PNG too");
        };
        for step in first..=last {
            crate::cli::paths::check_output_file(&numbered(png, step), "--screenshot")?;
            if let Some(state) = &args.ui_state {
                crate::cli::paths::check_output_file(&numbered(state, step), "--ui-state")?;
            }
        }
    }
    Ok(())
}

/// `shot.png` → `shot-4.png`: the file of one step of several.
pub fn numbered(path: &std::path::Path, step: usize) -> std::path::PathBuf {
    let stem = path.file_stem().map(|s| s.to_string_lossy().into_owned()).unwrap_or_default();
    let name = match path.extension() {
        Some(ext) => format!("{stem}-{step}.{}", ext.to_string_lossy()),
        None => format!("{stem}-{step}"),
    };
    path.with_file_name(name)
}

/// The scenario a tour is about, or why there is no such tour.
fn tour_scenario(name: &str) -> Result<&'static memcity_analysis::scenarios::Scenario> {
    use memcity_analysis::scenarios::SCENARIOS;
    let tours =
        || SCENARIOS.iter().filter(|s| s.lesson.is_some()).map(|s| s.name).collect::<Vec<_>>().join(", ");
    match memcity_analysis::scenarios::find(name) {
        Some(s) if s.lesson.is_some() => Ok(s),
        _ => bail!("--tour {name}: no such tour (tours: {})", tours()),
    }
}

fn empty_history() -> memcity_model::History {
    memcity_model::History {
        format: memcity_model::FORMAT.into(),
        metric_names: Default::default(),
        snapshots: Vec::new(),
    }
}

/// Starts the WebSocket server before the window, so a taken port fails at once.
fn listen(addr: &str, access: &crate::cli::serve::AccessArgs) -> Result<memcity_wire::Server> {
    let access = access.access(addr).map_err(|e| anyhow::anyhow!("--listen: {e}"))?;
    let config = memcity_wire::ServerConfig { addr: addr.to_string(), access, ..Default::default() };
    let server = memcity_wire::Server::start(config).map_err(|e| anyhow::anyhow!("--listen: {e}"))?;
    let bound = server.local_addr();
    say!("listening on {}", server.url());
    if !bound.ip().is_loopback() {
        shout!("memcity: listening beyond loopback on {bound}: clients need the token in the URL above");
    }
    Ok(server)
}

/// `--inspect`: the city listens on a loopback port of its own, and a thread feeds it the
/// inspector's snapshots; an error there is reported and the city keeps what it has.
fn inspect(inspector: &str, args: &OpenArgs) -> Result<memcity_wire::Server> {
    crate::cli::inspect::inspector_addr(inspector)?;
    let server = listen("127.0.0.1:0", &args.access)?;
    let ws = server.url();
    let (inspector, target, every) = (inspector.to_string(), args.inspect_target.clone(), args.every);
    std::thread::spawn(move || {
        if let Err(e) = crate::cli::inspect::feed(&inspector, target, every, &ws, None) {
            shout!("memcity: --inspect: {e:#}");
        }
    });
    Ok(server)
}

#[cfg(feature = "app")]
fn launch(
    args: OpenArgs,
    history: memcity_model::History,
    mut settings: memcity_layout::Settings,
    load_in_background: Option<Vec<String>>,
    listen: Option<memcity_wire::Server>,
    source: Vec<String>,
) -> Result<()> {
    use crate::app::{AppOptions, Mode, camera::View};
    // Several steps: one picture (and UI state) a step, numbered.
    let shots: Vec<crate::app::headless::StepShot> = match (args.step, &args.screenshot) {
        (Some((first, last)), Some(png)) if first < last => (first..=last)
            .map(|step| crate::app::headless::StepShot {
                step,
                png: numbered(png, step),
                ui_state: args.ui_state.as_deref().map(|s| numbered(s, step)),
            })
            .collect(),
        _ => Vec::new(),
    };
    let mode = if args.bench_render {
        // Every synthetic building is shown.
        settings.children = usize::MAX;
        Mode::Bench {
            frames: args.frames,
            size: args.size,
            baseline: args.baseline,
            buildings: args.buildings,
        }
    } else if let Some(path) = &args.screenshot {
        let path = shots.first().map_or_else(|| path.clone(), |s| s.png.clone());
        if args.window { Mode::Window(Some(path)) } else { Mode::Screenshot { path, size: args.size } }
    } else {
        Mode::Window(None)
    };
    let view = match args.view.as_str() {
        "bird" => View::Bird,
        "street" => View::Street,
        _ => View::Overview,
    };
    let tour = args.tour.as_deref().and_then(crate::app::tour::Tour::of);
    let layout = layout_choice(args.layout.as_deref())?;
    use crate::app::{StartView, trees::TreeKind};
    let start_view = match args.mode.as_str() {
        "icicle" => StartView::Tree(TreeKind::Icicle),
        "sunburst" => StartView::Tree(TreeKind::Sunburst),
        "timeline" => StartView::Tree(TreeKind::Timeline),
        "ownership" => StartView::Ownership,
        _ => StartView::City,
    };
    // A live city that memcity feeds itself can be read again for exact closures.
    let live_source = match (&args.inspect, &args.follow) {
        (Some(_), _) => vec![crate::cli::inspect::snapshot_folder().display().to_string()],
        (None, Some(dir)) => vec![dir.display().to_string()],
        (None, None) => Vec::new(),
    };
    crate::app::run(AppOptions {
        history,
        settings,
        mode,
        time: args.time,
        select: args.select,
        view,
        load_in_background,
        listen,
        live_source,
        source,
        tour,
        tour_step: args.step.map(|(first, _)| first),
        ui_state: shots.first().map_or(args.ui_state, |s| s.ui_state.clone()),
        later_steps: shots.into_iter().skip(1).collect(),
        size: Some(args.size),
        layout,
        start_view,
        structures: std::sync::Arc::new(
            crate::cli::structures::descriptions(&args.structure.structures)?.all,
        ),
        visit_tabs: args.visit_tabs,
    })
}

/// `--layout default|teaching|FILE`; a file that is no layout is a one-line error.
#[cfg(feature = "app")]
fn layout_choice(layout: Option<&str>) -> Result<crate::app::ui::workspace::state::LayoutChoice> {
    use crate::app::ui::workspace::state::{LayoutChoice, read_layout};
    Ok(match layout {
        None => LayoutChoice::Saved,
        Some("default") => LayoutChoice::Default,
        Some("teaching") => LayoutChoice::Teaching,
        Some(file) => LayoutChoice::Given(Box::new(
            read_layout(std::path::Path::new(file)).map_err(|e| anyhow::anyhow!("--layout {e}"))?,
        )),
    })
}

#[cfg(not(feature = "app"))]
fn launch(
    _: OpenArgs,
    _: memcity_model::History,
    _: memcity_layout::Settings,
    _: Option<Vec<String>>,
    _: Option<memcity_wire::Server>,
    _: Vec<String>,
) -> Result<()> {
    bail!("this memcity was built without the `app` feature: only the headless subcommands work")
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::Path;

    #[test]
    fn steps_are_one_number_or_a_range_and_each_gets_its_own_file() {
        assert_eq!(parse_steps("4"), Ok((4, 4)));
        assert_eq!(parse_steps("1-6"), Ok((1, 6)));
        assert!(parse_steps("6-1").unwrap_err().contains("after the last"));
        assert!(parse_steps("1-").is_err() && parse_steps("x").is_err());
        assert_eq!(numbered(Path::new("out/shot.png"), 2), Path::new("out/shot-2.png"));
        assert_eq!(numbered(Path::new("state"), 3), Path::new("state-3"));
    }
}
