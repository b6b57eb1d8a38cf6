use std::collections::HashMap;

use super::*;

#[test]
fn sizes_with_units_and_one_line_refusals() {
    assert_eq!(parse_size("8G"), Ok(8 << 30));
    assert_eq!(parse_size("512M"), Ok(512 << 20));
    assert_eq!(parse_size("1.5GiB"), Ok(3 << 29));
    assert_eq!(parse_size("2 TB"), Ok(2 << 40));
    assert_eq!(parse_size("20000k"), Ok(20_480_000));
    assert_eq!(parse_size("17000000"), Ok(17_000_000));
    for (bad, why) in [
        ("", "no number"),
        ("G", "no number"),
        ("1.2.3G", "no number"),
        ("-4G", "no number"),
        ("8X", "unknown unit"),
        ("8 gigs", "unknown unit"),
        ("0", "below 16 MiB"),
        ("15M", "below 16 MiB"),
        ("99999999999T", "too large"),
        ("1e9", "unknown unit"),
        ("\u{1b}[2J", "no number"),
    ] {
        let err = parse_size(bad).unwrap_err();
        assert!(err.contains(why), "{bad}: {err}");
        assert!(err.starts_with("--memory ") && !err.contains('\n') && !err.contains('\u{1b}'), "{err}");
    }
}

#[test]
fn the_line_says_where_the_budget_comes_from() {
    assert_eq!(bytes_text(3 << 29), "1.5 GiB");
    assert_eq!(bytes_text(1000), "1000 B");
    let cgroup =
        Budget { bytes: 1 << 30, source: Source::Cgroup(2 << 30, "/sys/fs/cgroup/memory/ci".into()) };
    assert_eq!(
        cgroup.describe(),
        "memory budget 1.0 GiB (half of the 2.0 GiB limit of cgroup /sys/fs/cgroup/memory/ci)"
    );
    let physical = Budget { bytes: 12 << 30, source: Source::Physical(24 << 30) };
    assert_eq!(physical.describe(), "memory budget 12.0 GiB (half of 24.0 GiB of physical memory)");
    assert_eq!(Budget::from_flag(Some("1G")).unwrap().describe(), "memory budget 1.0 GiB (--memory)");
    assert!(Budget::from_flag(Some("lots")).is_err());
}

#[test]
fn physical_memory_from_meminfo() {
    assert_eq!(mem_total("MemTotal:       24683656 kB\nMemFree: 1 kB\n"), Some(24683656 * 1024));
    assert_eq!(mem_total("MemFree: 1 kB\n"), None);
    assert_eq!(mem_total("MemTotal: lots kB\n"), None);
}

const MOUNTS_V1: &str = "\
31 23 0:28 / /sys/fs/cgroup rw,relatime - tmpfs tmpfs rw,mode=755
32 31 0:29 / /sys/fs/cgroup/cpu rw,relatime - cgroup cgroup rw,cpu
35 31 0:32 / /sys/fs/cgroup/memory rw,relatime - cgroup cgroup rw,memory
40 31 0:37 / /sys/fs/cgroup/systemd rw,relatime - cgroup cgroup rw,name=systemd
";

fn files(entries: &[(&str, &str)]) -> impl Fn(&Path) -> Option<String> {
    let map: HashMap<PathBuf, String> =
        entries.iter().map(|(p, v)| (PathBuf::from(p), v.to_string())).collect();
    move |p: &Path| map.get(p).cloned()
}

#[test]
fn cgroup_v1_the_lowest_limit_up_the_path() {
    let cgroups = "5:devices:/\n4:memory:/jobs/build\n0::/\n";
    let read = files(&[
        ("/sys/fs/cgroup/memory/jobs/build/memory.limit_in_bytes", "9223372036854771712\n"),
        ("/sys/fs/cgroup/memory/jobs/memory.limit_in_bytes", "2147483648\n"),
        ("/sys/fs/cgroup/memory/memory.limit_in_bytes", "9223372036854771712\n"),
    ]);
    let (limit, dir) = cgroup_limit(cgroups, MOUNTS_V1, &read).unwrap();
    assert_eq!((limit, dir), (2 << 30, PathBuf::from("/sys/fs/cgroup/memory/jobs")));
    // No limit anywhere, or no memory controller: none.
    let unlimited = files(&[("/sys/fs/cgroup/memory/memory.limit_in_bytes", "9223372036854771712\n")]);
    assert_eq!(cgroup_limit(cgroups, MOUNTS_V1, &unlimited), None);
    assert_eq!(cgroup_limit("5:devices:/\n", MOUNTS_V1, &read), None);
}

#[test]
fn cgroup_v2_and_a_containers_own_root() {
    let mounts = "30 23 0:26 /kubepods/pod1 /sys/fs/cgroup rw,nosuid - cgroup2 cgroup2 rw,nsdelegate\n";
    let cgroups = "0::/kubepods/pod1/app\n";
    let read =
        files(&[("/sys/fs/cgroup/app/memory.max", "max\n"), ("/sys/fs/cgroup/memory.max", "1073741824\n")]);
    let (limit, dir) = cgroup_limit(cgroups, mounts, &read).unwrap();
    assert_eq!((limit, dir), (1 << 30, PathBuf::from("/sys/fs/cgroup")));
    // A broken limit file is no limit, not an error.
    let broken = files(&[("/sys/fs/cgroup/app/memory.max", "lots\n")]);
    assert_eq!(cgroup_limit(cgroups, mounts, &broken), None);
    assert_eq!(unescape("/a\\040b"), "/a b");
    assert_eq!(unescape("/a\\04"), "/a\\04");
}

#[test]
fn this_machine_has_a_budget_of_at_most_half_its_memory() {
    let budget = default_budget();
    let physical = std::fs::read_to_string("/proc/meminfo").ok().as_deref().and_then(mem_total);
    if let Some(total) = physical {
        assert!(budget.bytes > 0 && budget.bytes <= total / 2, "{budget:?} of {total}");
    }
    assert!(budget.describe().starts_with("memory budget "));
}
