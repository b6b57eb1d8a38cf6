fn main() {
    let args: Vec<String> = std::env::args().collect();
    let t = std::time::Instant::now();
    let dump =
        memcity_hprof::read_dump(std::path::Path::new(&args[1]), &Default::default(), &|_| {}).unwrap();
    eprintln!("read in {:?}, {} nodes {} edges", t.elapsed(), dump.graph.group.len(), dump.graph.edges.len());
    let ours = memcity_hprof::class_totals(&dump);
    let hist = memcity_hprof::parse_histogram(&std::fs::read_to_string(&args[2]).unwrap(), "h").unwrap();
    let mut bad = 0;
    for (name, &(n, b)) in &hist {
        let o = ours.get(name).copied().unwrap_or_default();
        if o != (n, b) {
            bad += 1;
            if bad < 40 {
                println!("{name}: hist {n} {b} ours {} {}", o.0, o.1);
            }
        }
    }
    for (name, o) in &ours {
        if !hist.contains_key(name) {
            println!("extra {name} {o:?}");
        }
    }
    println!("{bad} mismatches of {}", hist.len());
}
