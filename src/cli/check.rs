//! `memcity check INPUT…`: the leak gate for a build (docs/ci.md). Exit 0 when no group or
//! data structure grew past the limits, 1 when one did, 2 when the input or a flag is bad.

use std::path::{Path, PathBuf};

use anyhow::Result;
use memcity_analysis::check::{Finding, Grew, Limits, findings, matches};
use memcity_model::{History, Timeline};
use serde_json::{Value, json};

use crate::cli::check_baseline::Baseline;
use crate::cli::check_report::Row;

#[derive(clap::Args, Debug)]
pub struct CheckArgs {
    /// What to check: any input memcity reads (a dump series, V8 snapshots, heap files, a
    /// history, a trace, scenario:NAME).
    #[arg(required = true, value_name = "INPUT")]
    pub inputs: Vec<String>,
    /// A group fails only when it grew by more than this many bytes…
    #[arg(long, default_value_t = Limits::default().max_growth_bytes, value_name = "N")]
    pub max_growth_bytes: u64,
    /// …and by at least this share of the heap at the end, in percent…
    #[arg(long, default_value_t = Limits::default().max_growth_percent, value_name = "P")]
    pub max_growth_percent: f64,
    /// …in at least this many of the steps between snapshots (and still in the last third).
    #[arg(long, default_value_t = Limits::default().min_steps, value_name = "K")]
    pub min_steps: usize,
    /// Leave out groups whose key or name matches (`*` for any characters); repeatable.
    #[arg(long = "ignore", value_name = "PATTERN")]
    pub ignore: Vec<String>,
    /// Judge groups alone: no data structure is looked for (heap dumps: about 15% less time;
    /// other inputs with objects are read once instead of twice; docs/ci.md, "Speed").
    #[arg(long)]
    pub no_structures: bool,
    /// A previous run's --json: only groups not already found there fail.
    #[arg(long, value_name = "FILE")]
    pub baseline: Option<PathBuf>,
    /// Write the verdict and the findings as JSON.
    #[arg(long, value_name = "FILE")]
    pub json: Option<PathBuf>,
    /// Write a JUnit XML report (one test case for the input, one failure in it per finding).
    #[arg(long, value_name = "FILE")]
    pub junit: Option<PathBuf>,
    /// Write one self-contained HTML page: the verdict, the findings with their retainer
    /// paths, the heap over time with its leak windows, the city from above.
    #[arg(long, value_name = "FILE.html")]
    pub report: Option<PathBuf>,
}

/// What the check found, with the names and paths the reports print.
struct Verdict {
    input: String,
    findings: Vec<Shown>,
    /// Findings the baseline already had (not failing).
    known: usize,
}

/// One finding as the reports show it: a group (a building of the city) or a data structure.
struct Shown {
    /// The group, where it is one.
    group: Option<u32>,
    key: String,
    /// A group's names below the root; a structure's type.
    name: String,
    grew: Grew,
    /// What keeps it alive: a group's retainer path up to the root-most holder, a structure's
    /// root path.
    path: Vec<String>,
    /// The GC root kinds that hold the path's last step ("Static Field"), where known.
    roots: Vec<String>,
    /// A structure's causes (docs/objects.md, "Causes").
    causes: Vec<memcity_structures::Cause>,
    /// The group findings whose growth this structure holds (docs/ci.md, "One leak, one
    /// finding"): its detail.
    folded: Vec<Shown>,
}

impl Shown {
    fn kind(&self) -> &'static str {
        if self.group.is_some() { "group" } else { "structure" }
    }

    /// What keeps it alive, in a few words: the root-most group of its retainer path, or the
    /// GC roots that hold the group itself; a structure's root path.
    fn holder(&self) -> Option<String> {
        match (self.path.last(), self.roots.as_slice()) {
            (Some(h), _) => Some(h.clone()),
            (None, []) => None,
            (None, roots) => Some(format!("GC root ({})", roots.join(", "))),
        }
    }

    /// How the one-line summary and JUnit name it.
    fn title(&self) -> String {
        match self.group {
            Some(_) => self.name.clone(),
            None => format!("structure {}", self.name),
        }
    }
}

/// Runs the check; `Ok(true)` when it passes. Errors are bad input (exit 2).
pub fn run(args: CheckArgs) -> Result<bool> {
    for (flag, path) in [("--json", &args.json), ("--junit", &args.junit), ("--report", &args.report)] {
        if let Some(path) = path {
            crate::cli::paths::check_output_file(path, flag)?;
        }
    }
    if !(args.max_growth_percent.is_finite() && args.max_growth_percent >= 0.0) {
        anyhow::bail!("--max-growth-percent {}: give a percentage of 0 or more", args.max_growth_percent);
    }
    let baseline = args.baseline.as_deref().map(Baseline::read).transpose()?;
    let limits = Limits {
        max_growth_bytes: args.max_growth_bytes,
        max_growth_percent: args.max_growth_percent,
        min_steps: args.min_steps,
    };
    let (history, measured) =
        crate::cli::check_structures::load(&args.inputs, (!args.no_structures).then_some(limits))?;
    if history.snapshots.len() < 2 {
        anyhow::bail!(
            "{}: a check needs at least two snapshots to see growth; the input has {}",
            args.inputs.join(" "),
            history.snapshots.len()
        );
    }
    let timeline = Timeline::new(&history);
    if let Some(baseline) = &baseline {
        baseline.check_against(&timeline)?;
    }
    let ignored_text = |text: &str| args.ignore.iter().any(|p| matches(p, text));
    let group = |g: u32| &timeline.groups[g as usize];
    let ignored = |g: u32| ignored_text(&group(g).key) || ignored_text(&name(&timeline, g));
    let mut all: Vec<Shown> = findings(&history, &timeline, limits, &ignored)
        .into_iter()
        .map(|f| shown(&history, &timeline, f))
        .collect();
    let structures = match args.no_structures {
        true => Vec::new(),
        false => crate::cli::check_structures::findings(
            &args.inputs,
            history.snapshots.len(),
            limits,
            &ignored_text,
            measured,
        )?,
    };
    all.extend(structures.into_iter().map(|f| Shown {
        group: None,
        key: f.key(),
        name: f.type_name,
        grew: f.grew,
        path: vec![f.path],
        roots: Vec::new(),
        causes: f.causes,
        folded: Vec::new(),
    }));
    let all = one_finding_per_leak(&args.inputs, all)?;
    let before = all.len();
    let findings: Vec<Shown> =
        all.into_iter().filter(|s| !baseline.as_ref().is_some_and(|b| b.knows(&s.key))).collect();
    let verdict = Verdict { input: args.inputs.join(" "), known: before - findings.len(), findings };
    if let Some(path) = &args.json {
        write(path, "--json", &(serde_json::to_string_pretty(&verdict.json())? + "\n"))?;
    }
    if let Some(path) = &args.junit {
        write(path, "--junit", &verdict.junit()?)?;
    }
    if let Some(path) = &args.report {
        let rows = verdict.report_rows(&timeline);
        write(path, "--report", &crate::cli::check_report::page(&verdict.input, &history, &timeline, &rows))?;
    }
    verdict.print();
    Ok(verdict.findings.is_empty())
}

fn shown(history: &History, timeline: &Timeline, finding: Finding) -> Shown {
    let g = &timeline.groups[finding.group as usize];
    let last = history.snapshots.last().expect("two snapshots or more");
    // The path's first step is the group itself.
    let retainers = last.retainers.get(&g.key);
    let path = retainers.map_or_else(Vec::new, |p| {
        p.steps
            .iter()
            .skip(1)
            .map(|s| timeline.group(&s.key).map_or(s.key.clone(), |g| name(timeline, g)))
            .collect()
    });
    let roots = retainers.map_or_else(Vec::new, |p| p.roots.clone());
    Shown {
        group: Some(finding.group),
        key: g.key.clone(),
        name: name(timeline, finding.group),
        grew: finding.grew,
        path,
        roots,
        causes: Vec::new(),
        folded: Vec::new(),
    }
}

/// Folds each group finding whose growth a structure finding holds into it, and puts the
/// structures first (the largest growth first): one leak, one finding, named by its field.
fn one_finding_per_leak(specs: &[String], all: Vec<Shown>) -> Result<Vec<Shown>> {
    let (mut structures, groups): (Vec<Shown>, Vec<Shown>) = all.into_iter().partition(|s| s.group.is_none());
    let paths: Vec<String> = structures.iter().map(|s| s.path.first().cloned().unwrap_or_default()).collect();
    let keys: Vec<String> = groups.iter().map(|s| s.key.clone()).collect();
    let into = crate::input::fold::fold(specs, &paths, &keys)?;
    let mut kept = Vec::new();
    for (group, into) in groups.into_iter().zip(into) {
        match into {
            Some(k) => structures[k].folded.push(group),
            None => kept.push(group),
        }
    }
    structures.sort_by_key(|s| std::cmp::Reverse(s.grew.growth_bytes));
    structures.extend(kept);
    Ok(structures)
}

/// The leaf groups under a group named `type_name` (at any level: a type may be a leaf, or
/// split by allocation site below it).
fn buildings_of_type(timeline: &Timeline, type_name: &str) -> Vec<u32> {
    let typed = |mut at: Option<u32>| {
        while let Some(g) = at {
            if timeline.groups[g as usize].name == type_name {
                return true;
            }
            at = timeline.groups[g as usize].parent;
        }
        false
    };
    (0..timeline.groups.len() as u32)
        .filter(|&g| timeline.groups[g as usize].is_leaf() && typed(Some(g)))
        .collect()
}

/// A group's names below the root, outermost first: `java.util.HashMap › Registry.<clinit>`.
fn name(timeline: &Timeline, group: u32) -> String {
    let mut names = Vec::new();
    let mut at = Some(group);
    while let Some(g) = at {
        let node = &timeline.groups[g as usize];
        if node.parent.is_some() {
            names.push(node.name.as_str());
        }
        at = node.parent;
    }
    names.reverse();
    names.join(" › ")
}

/// One finding as `--json` writes it, the groups it holds nested as its `folded` detail.
fn suspect_json(s: &Shown) -> Value {
    json!({"kind": s.kind(), "name": s.name, "key": s.key, "growth_bytes": s.grew.growth_bytes,
           "growth_per_step": s.grew.growth_per_step.round(),
           "steps_grown": s.grew.steps_grown,
           "retained_bytes": s.grew.retained_bytes, "path": s.path, "roots": s.roots,
           "causes": s.causes.iter().map(crate::cli::structures::cause_json).collect::<Vec<_>>(),
           "folded": s.folded.iter().map(suspect_json).collect::<Vec<_>>()})
}

/// A line whose names cannot start another: newlines shown escaped.
fn one_line(line: &str) -> String {
    line.replace('\n', "\\n").replace('\r', "\\r")
}

fn write(path: &Path, flag: &str, text: &str) -> Result<()> {
    std::fs::write(path, text).map_err(|e| anyhow::anyhow!("{flag} {}: {e}", path.display()))
}

impl Verdict {
    /// One line per finding, then the verdict.
    fn print(&self) {
        for s in &self.findings {
            let holder = s.holder().map_or(String::new(), |h| format!(", held by {h}"));
            let causes: String = s.causes.iter().map(|c| format!("; {}: {}", c.kind, c.message)).collect();
            let line = format!(
                "LEAK {}: +{:.0} bytes per step over {} steps grown, retains {} bytes{holder}{causes}",
                s.title(),
                s.grew.growth_per_step,
                s.grew.steps_grown,
                s.grew.retained_bytes
            );
            // One line per finding, whatever the names hold: a newline in one would forge another.
            say!("{}", one_line(&line));
            for f in &s.folded {
                let line = format!(
                    "  holds {}: +{:.0} bytes per step, retains {} bytes",
                    f.title(),
                    f.grew.growth_per_step,
                    f.grew.retained_bytes
                );
                say!("{}", one_line(&line));
            }
        }
        let known = match self.known {
            0 => String::new(),
            known => format!(" ({known} known from the baseline)"),
        };
        say!(
            "{}: {} group(s) or data structure(s) grew past the limits{known}",
            if self.findings.is_empty() { "pass" } else { "leak" },
            self.findings.len()
        );
    }

    /// Each finding, then the groups it holds (its detail), each as a row of its own.
    fn report_rows(&self, timeline: &Timeline) -> Vec<Row<'_>> {
        self.findings
            .iter()
            .flat_map(|s| std::iter::once((s, false)).chain(s.folded.iter().map(|f| (f, true))))
            .map(|(s, folded)| Row {
                group: s.group,
                type_buildings: match s.group {
                    Some(_) => Vec::new(),
                    None => buildings_of_type(timeline, &s.name),
                },
                name: if folded { format!("↳ holds {}", s.title()) } else { s.title() },
                grew: s.grew,
                path: &s.path,
            })
            .collect()
    }

    fn json(&self) -> Value {
        let suspects: Vec<Value> = self.findings.iter().map(suspect_json).collect();
        let verdict = if self.findings.is_empty() { "pass" } else { "leak" };
        json!({"verdict": verdict, "input": self.input, "suspects": suspects})
    }

    /// One test suite for the input, written by quick-junit (nextest's writer, which escapes
    /// names and drops what XML cannot hold): a failed test case per finding, named by it, or
    /// one passing test case for the input.
    fn junit(&self) -> Result<String> {
        use quick_junit::{NonSuccessKind, Report, TestCase, TestCaseStatus, TestSuite};
        let mut suite = TestSuite::new("memcity check");
        for s in &self.findings {
            let causes: String = s.causes.iter().map(|c| format!("; {}: {}", c.kind, c.message)).collect();
            let message = format!(
                "{} grew by {} bytes ({:.0} per step), retains {} bytes{causes}",
                s.title(),
                s.grew.growth_bytes,
                s.grew.growth_per_step,
                s.grew.retained_bytes
            );
            let mut status = TestCaseStatus::non_success(NonSuccessKind::Failure);
            let holds: String = s.folded.iter().map(|f| format!("\nholds {}", f.title())).collect();
            status.set_type(s.kind()).set_message(message).set_description(s.path.join(" ← ") + &holds);
            let mut case = TestCase::new(s.title(), status);
            case.set_classname(format!("memcity.check.{}", s.kind()));
            suite.add_test_case(case);
        }
        if self.findings.is_empty() {
            let mut case = TestCase::new(self.input.as_str(), TestCaseStatus::success());
            case.set_classname("memcity.check");
            suite.add_test_case(case);
        }
        let mut report = Report::new("memcity check");
        report.add_test_suite(suite);
        Ok(report.to_string()?)
    }
}
