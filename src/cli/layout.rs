//! `memcity layout`: the city without a window, as JSON.

use std::io::Write;

use anyhow::{Context, Result, bail};
use memcity_layout::{AreaMode, GrowthScale, Settings, export, frames, layout};
use memcity_model::{Metric, Timeline};

#[derive(clap::Args, Debug)]
pub struct LayoutArgs {
    /// A history in any format memcity reads (file or folder) or `scenario:NAME`.
    pub input: String,
    /// Where to write city.json.
    #[arg(long)]
    pub out: std::path::PathBuf,
    #[command(flatten)]
    pub settings: SettingsArgs,
}

/// The layout settings, shared by the app and `layout`.
#[derive(clap::Args, Debug, Clone)]
pub struct SettingsArgs {
    /// What sizes buildings: objects or bytes.
    #[arg(long, default_value = "objects")]
    pub metric: Metric,
    /// How a value maps to an area: sqrt or linear.
    #[arg(long = "area", default_value = "sqrt")]
    pub area: AreaMode,
    /// Keep the N largest children of every node.
    #[arg(long, default_value_t = 20)]
    pub children: usize,
    /// The N strongest overall growers are drawn solid.
    #[arg(long, default_value_t = 10)]
    pub solid: usize,
    /// Opacity of the other buildings, 0..1.
    #[arg(long, default_value_t = 0.4)]
    pub opacity: f32,
    /// Growth colors against the heap (red from 10% of the peak heap: a flat program stays
    /// gray) or relative to the strongest grower (the paper's: it is always red).
    #[arg(long, default_value = "heap")]
    pub growth: GrowthScale,
    /// With --compare: two cities side by side on one ground (sides), or the after run alone
    /// coloured by what each group has more than before at the same time (difference).
    #[arg(long, default_value = "sides", value_name = "sides|difference")]
    pub compare_view: memcity_layout::CompareView,
}

impl SettingsArgs {
    pub fn to_settings(&self) -> Result<Settings> {
        if !(0.0..=1.0).contains(&self.opacity) {
            bail!("--opacity {} is outside 0..1", self.opacity);
        }
        if self.children == 0 {
            bail!("--children must be at least 1");
        }
        Ok(Settings {
            metric: self.metric,
            area: self.area,
            children: self.children,
            solid: self.solid,
            opacity: self.opacity,
            growth: self.growth,
            compare: self.compare_view,
            ..Settings::default()
        })
    }
}

pub fn run(args: LayoutArgs) -> Result<()> {
    let settings = args.settings.to_settings()?;
    crate::cli::paths::check_output_file(&args.out, "--out")?;
    let history = crate::input::load(&args.input)?;
    let timeline = Timeline::new(&history);
    let city = layout(&timeline, &settings);
    let all = frames(&city);
    let doc = export::city_json(&history, &timeline, &city, &all);
    let file =
        std::fs::File::create(&args.out).with_context(|| format!("{}: cannot create", args.out.display()))?;
    // Names in the city come from the heap; the file may be pasted into a page, so it carries
    // no `<`, `>` or `&` that could close a script (docs/city-json.md).
    let mut out = memcity_model::escape::JsonForMarkup(std::io::BufWriter::new(file));
    serde_json::to_writer(&mut out, &doc).with_context(|| format!("{}: cannot write", args.out.display()))?;
    out.flush().with_context(|| format!("{}: cannot write", args.out.display()))?;
    shout!(
        "memcity: {} districts, {} buildings, {} frames → {}",
        city.districts.len(),
        city.buildings.len(),
        all.len(),
        args.out.display()
    );
    Ok(())
}
