//! Times the phases of one snapshot's import: `cargo run --release -p memcity-v8 --example phases FILE`.

use std::time::Instant;

use memcity_heapgraph::{AnalysisOptions, Grouper, Retained, group_heap, reachable};

fn main() {
    let path = std::env::args().nth(1).expect("usage: phases FILE");
    let options = memcity_v8::default_grouping();
    // The best of three reads (the machine is shared).
    let mut best = f64::MAX;
    let mut raw = None;
    for _ in 0..3 {
        let t = Instant::now();
        let (text, size_hint) = memcity_v8::source::open(path.as_ref(), |_| {}).unwrap();
        let read = memcity_v8::ReadOptions { size_hint, ..Default::default() };
        raw = Some(memcity_v8::read::read(text, read, &|_| {}).unwrap());
        best = best.min(t.elapsed().as_secs_f64());
    }
    let raw = raw.unwrap();
    println!("read        {best:>8.3} s  ({} nodes, {} kept edges)", raw.node_count(), raw.edges.len());
    let t = Instant::now();
    let mut grouper = Grouper::new(options.classifiers.clone());
    let js = memcity_v8::graph::into_graph(raw, &mut grouper);
    println!("leaves      {:>8.3} s", t.elapsed().as_secs_f64());
    let t = Instant::now();
    let live = reachable(&js.graph);
    let alive = live.iter().filter(|&&l| l).count();
    println!("reachable   {:>8.3} s  ({alive} live objects)", t.elapsed().as_secs_f64());
    for (name, analysis) in [
        ("counts", AnalysisOptions { pointer_maps: false, retained: Retained::None, retainer_paths: false }),
        ("+maps", AnalysisOptions { pointer_maps: true, retained: Retained::None, retainer_paths: false }),
        (
            "+dominated",
            AnalysisOptions { pointer_maps: true, retained: Retained::Dominated, retainer_paths: false },
        ),
        ("+paths", AnalysisOptions::default()),
    ] {
        let t = Instant::now();
        group_heap(&js.graph, grouper.group_count(), &live, &js.roots, &analysis);
        println!("{name:<11} {:>8.3} s", t.elapsed().as_secs_f64());
    }
}
