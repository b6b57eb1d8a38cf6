//! Peak heap memory per phase of one dump's import, counted by a global allocator: what the
//! import itself allocates (anonymous memory), not the dump's mapped pages. Each phase's peak
//! is the most bytes allocated at once while it ran, earlier phases' tables included, and
//! beside it the phase's peak resident set (the dump's mapped pages included).
//!
//! `cargo run --release -p memcity-hprof --example import_phases -- DUMP.hprof [BUDGET]`: with a
//! budget (`64M`), the analysis's tables beyond it go to work files in the temporary folder,
//! as `memcity import --memory` does.

use std::alloc::{GlobalAlloc, Layout as Alloc, System};
use std::sync::atomic::{AtomicUsize, Ordering::Relaxed};
use std::time::Instant;

use memcity_heapgraph::{AnalysisOptions, Grouper};
use memcity_hprof::snapshot::{assign_leaves, default_grouping, group_dump};
use memcity_hprof::{Layout, parse, resolve, source};

static NOW: AtomicUsize = AtomicUsize::new(0);
static PEAK: AtomicUsize = AtomicUsize::new(0);

struct Counting;

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Alloc) -> *mut u8 {
        let now = NOW.fetch_add(layout.size(), Relaxed) + layout.size();
        PEAK.fetch_max(now, Relaxed);
        unsafe { System.alloc(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Alloc) {
        NOW.fetch_sub(layout.size(), Relaxed);
        unsafe { System.dealloc(ptr, layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Alloc, new_size: usize) -> *mut u8 {
        if new_size > layout.size() {
            let now = NOW.fetch_add(new_size - layout.size(), Relaxed) + new_size - layout.size();
            PEAK.fetch_max(now, Relaxed);
        } else {
            NOW.fetch_sub(layout.size() - new_size, Relaxed);
        }
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static COUNTING: Counting = Counting;

/// Runs a phase and prints its peak, also per object and per reference.
fn phase<T>(name: &str, objects: &mut f64, references: &mut f64, f: impl FnOnce() -> T) -> T {
    PEAK.store(NOW.load(Relaxed), Relaxed);
    // Linux resets the peak resident set (VmHWM) on this write, so each phase gets its own.
    let _ = std::fs::write("/proc/self/clear_refs", "5");
    let start = Instant::now();
    let out = f();
    let peak = PEAK.load(Relaxed) as f64;
    let per = if *objects > 0.0 { format!("{:.1} B/object", peak / *objects) } else { String::new() };
    let per_ref = if *references > 0.0 {
        format!(", {:.1} B/object after 8 B/reference", (peak - 8.0 * *references) / *objects)
    } else {
        String::new()
    };
    let rss = status("VmHWM").map_or(String::new(), |kb| format!("; peak RSS {:.1} MiB", kb as f64 / 1024.0));
    println!(
        "{name:<10} {:>6.2} s  peak heap {:>8.1} MiB  {per}{per_ref}{rss}",
        start.elapsed().as_secs_f64(),
        peak / 1048576.0
    );
    out
}

/// A `/proc/self/status` field in kB.
fn status(field: &str) -> Option<u64> {
    let text = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = text.lines().find(|l| l.starts_with(field))?;
    line.split_whitespace().nth(1)?.parse().ok()
}

fn main() {
    let path = std::env::args().nth(1).expect("usage: phases DUMP.hprof [BUDGET]");
    if let Some(budget) = std::env::args().nth(2) {
        let bytes = memcity_heapgraph::budget::parse_size(&budget).expect("a budget such as 64M");
        memcity_heapgraph::table::spill_to(bytes, Some(std::env::temp_dir()));
    }
    let bytes = source::open(std::path::Path::new(&path)).expect("a readable dump");
    let (mut n, mut m) = (0.0, 0.0);
    let raw = phase("scan", &mut n, &mut m, || parse::scan(&bytes, &|_| {}).expect("a dump"));
    n = raw.object_ids.len() as f64;
    let mut dump = phase("resolve", &mut n, &mut m, || {
        resolve::resolve(&bytes, raw, &Layout::default()).expect("a dump")
    });
    n = dump.graph.object_count() as f64;
    m = dump.graph.edges.len() as f64;
    println!("{} objects, {} references", n, m);
    let mut grouper = Grouper::new(default_grouping().classifiers);
    let mut roots = phase("leaves", &mut n, &mut m, || assign_leaves(&mut dump, &mut grouper));
    let groups = grouper.group_count();
    // DETAIL=1: the analysis's steps one by one on a borrowed graph (its references kept, so
    // each peak is above the pipeline's, which frees them before the dominator tree).
    if std::env::var("DETAIL").is_ok() {
        let g = std::mem::take(&mut dump.graph);
        let sp = phase("spanning", &mut n, &mut m, || memcity_heapgraph::Spanning::new(&g));
        drop(sp);
        let tree = phase("dominators", &mut n, &mut m, || memcity_heapgraph::dominators(&g));
        let _d = phase("dominated", &mut n, &mut m, || memcity_heapgraph::dominated_sizes(&g, &tree, groups));
        let _p = phase("paths", &mut n, &mut m, || memcity_heapgraph::retainer_paths(&g, &tree, groups));
        return;
    }
    let heap = phase("group", &mut n, &mut m, || {
        group_dump(&mut dump, &mut roots, groups, &AnalysisOptions::default())
    });
    println!("{} groups, {} reachable bytes", groups, heap.reachable_bytes);
    let mapped = memcity_heapgraph::table::mapped_peak() as f64;
    println!("work files: at most {:.1} MiB at once ({:.1} B/object)", mapped / 1048576.0, mapped / n);
}
