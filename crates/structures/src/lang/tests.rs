use super::*;

#[test]
fn every_construct_of_the_language() {
    let text = r#"
        # the paper's LinkedList, minimized
        namespace java.util;
        DS LinkedList { *; }
        LinkedList$Node {
            LinkedList$Node;   // more of the list
            (*);
        }
        DS "system / Weird(Name)" { ("(object elements)"); com.example.*Node; }
    "#;
    let d = parse("list.ds", text).unwrap();
    assert_eq!(d.list.len(), 3);
    assert_eq!(d.list[0].pattern, "java.util.LinkedList");
    assert!(d.list[0].head);
    assert_eq!(d.list[0].pointed_to, [PointedTo { pattern: "*".into(), leaf: false }]);
    assert_eq!(d.list[0].origin, "list.ds:4");
    assert_eq!(d.list[1].pattern, "java.util.LinkedList$Node");
    assert!(!d.list[1].head);
    assert_eq!(
        d.list[1].pointed_to,
        [
            PointedTo { pattern: "java.util.LinkedList$Node".into(), leaf: false },
            PointedTo { pattern: "*".into(), leaf: true }
        ]
    );
    assert_eq!(d.list[2].pattern, "system / Weird(Name)");
    assert_eq!(d.list[2].pointed_to[0], PointedTo { pattern: "(object elements)".into(), leaf: true });
    assert_eq!(d.list[2].pointed_to[1].pattern, "com.example.*Node");
}

#[test]
fn errors_name_file_line_and_column() {
    let cases: [(&str, &str); 11] = [
        ("DS A {\n  B\n}", "f.ds:3:1: expected ';' after a pointed-to type, found '}'"),
        ("DS A { B; ", "f.ds:1:11: expected a pointed-to type or '}', found the end of the file"),
        ("DS { B; }", "f.ds:1:4: expected a type name after DS, found '{'"),
        ("A B { }", "f.ds:1:3: expected '{' after the type name, found \"B\""),
        ("namespace ;x", "f.ds:1:13: expected '{' after the type name, found the end of the file"),
        ("DS A { (B; }", "f.ds:1:10: expected ')' after the leaf type, found ';'"),
        ("DS A { \"B }", "f.ds:1:8: expected '\"' to close the quoted name, found the end of the line"),
        ("\n\n  DS A { B; } %", "f.ds:3:15: expected a type name, '{', '}', '(', ')' or ';', found '%'"),
        ("DS \"a\\b\" {}", "f.ds:1:7: expected \\\" or \\\\ after a backslash, found another character"),
        ("DS \"a\tb\" {}", "f.ds:1:6: expected a name character, found a control character"),
        ("; DS A {}", "f.ds:1:1: expected a type description (DS NAME { … }) or namespace, found ';'"),
    ];
    for (text, want) in cases {
        assert_eq!(parse("f.ds", text).unwrap_err().to_string(), want, "{text:?}");
    }
    let long = format!("DS {} {{}}", "a".repeat(2000));
    assert!(
        parse("f.ds", &long)
            .unwrap_err()
            .to_string()
            .contains("1:4: expected a name of at most 1024 bytes, found a longer one")
    );
}

#[test]
fn no_input_makes_it_panic() {
    // A tiny generator (xorshift): random and mutated texts, all answered Ok or one-line Err.
    let mut state = 0x9e37_79b9_7f4a_7c15_u64;
    let mut next = move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    };
    let alphabet: Vec<char> = "DS namespace{}();*\"\\#/ \nab.$[]é\u{0}".chars().collect();
    let seed = BUILTIN[0].1;
    let (mut accepted, mut refused) = (0, 0);
    for case in 0..10_000 {
        let text: String = if case % 3 == 2 {
            // Raw bytes, as a file may hold them (read as UTF-8 where they are).
            let bytes: Vec<u8> = (0..next() % 96).map(|_| next() as u8).collect();
            String::from_utf8_lossy(&bytes).into_owned()
        } else if case % 3 == 0 {
            (0..next() % 64).map(|_| alphabet[(next() % alphabet.len() as u64) as usize]).collect()
        } else {
            let mut chars: Vec<char> = seed.chars().take(400).collect();
            for _ in 0..1 + next() % 4 {
                let at = (next() % chars.len() as u64) as usize;
                chars[at] = alphabet[(next() % alphabet.len() as u64) as usize];
            }
            chars.into_iter().collect()
        };
        match parse("fuzz.ds", &text) {
            Ok(_) => accepted += 1,
            Err(e) => {
                refused += 1;
                let shown = e.to_string();
                assert!(!shown.contains('\n') && shown.starts_with("fuzz.ds:"), "one line: {shown}");
                assert!(e.line >= 1 && e.line <= text.lines().count().max(1) + 1, "{shown} in {text:?}");
                assert!(e.column >= 1, "{shown}");
            }
        }
    }
    assert!(accepted > 100 && refused > 1000, "both outcomes occur: {accepted} accepted, {refused} refused");
}

#[test]
fn the_built_in_files_describe_the_collections_users_have() {
    let all = builtin();
    let has = |name: &str, head: bool| all.list.iter().any(|d| d.pattern == name && d.head == head);
    for java in [
        "java.util.ArrayList",
        "java.util.LinkedList",
        "java.util.ArrayDeque",
        "java.util.HashMap",
        "java.util.LinkedHashMap",
        "java.util.TreeMap",
        "java.util.HashSet",
        "java.util.TreeSet",
        "java.util.Hashtable",
        "java.util.WeakHashMap",
        "java.util.IdentityHashMap",
        "java.util.PriorityQueue",
        "java.util.concurrent.ConcurrentHashMap",
        "java.util.concurrent.CopyOnWriteArrayList",
        "java.util.concurrent.ConcurrentSkipListMap",
        "java.util.concurrent.LinkedBlockingQueue",
        "java.util.ArrayList",
        "java.util.LinkedList",
        "java.util.Vector",
        "java.util.Stack",
        "java.util.LinkedHashSet",
        "java.util.Properties",
        "java.util.EnumMap",
        "java.util.concurrent.ConcurrentSkipListSet",
        "java.util.concurrent.CopyOnWriteArraySet",
        "java.util.concurrent.ArrayBlockingQueue",
        "java.util.concurrent.ConcurrentLinkedQueue",
    ] {
        assert!(has(java, true), "{java}");
    }
    assert!(has("java.util.HashMap$Node", false) && has("java.util.LinkedList$Node", false));
    for part in [
        "java.util.HashMap$Node[]",
        "java.util.HashMap$TreeNode",
        "java.util.TreeMap$Entry",
        "java.util.concurrent.ConcurrentHashMap$Node",
        "java.util.concurrent.ConcurrentHashMap$Node[]",
    ] {
        assert!(has(part, false), "{part}");
    }
    for js in ["Map", "Set", "Array", "WeakMap", "WeakSet"] {
        assert!(has(js, true), "{js}");
    }
    for part in ["(object elements)", "(array)", "system / OrderedHashMap", "system / EphemeronHashTable"] {
        assert!(has(part, false), "{part}");
    }
    for py in [
        "builtins.dict",
        "builtins.list",
        "builtins.set",
        "builtins.frozenset",
        "collections.deque",
        "collections.OrderedDict",
        "collections.defaultdict",
    ] {
        assert!(has(py, true), "{py}");
    }
}

#[test]
fn texts_over_the_bound_are_refused_and_many_descriptions_parse_in_linear_time() {
    let big = " ".repeat(MAX_FILE_BYTES as usize + 1);
    let error = parse("big.ds", &big).unwrap_err().to_string();
    assert!(error.starts_with("big.ds:1:1: ") && error.contains("larger than the 4194304 bytes"), "{error}");
    // 300,000 descriptions in 3 MB, each pattern written six times: the last is kept, in one pass.
    let text: String =
        (0..150_000).map(|i| format!("A{} {{}} A{} {{ (*); }}\n", i % 50_000, i % 50_000)).collect();
    let started = std::time::Instant::now();
    let d = parse("many.ds", &text).unwrap();
    assert_eq!(d.list.len(), 50_000);
    assert!(d.list.iter().all(|d| d.pointed_to.len() == 1), "the later description of each pattern wins");
    assert!(started.elapsed().as_secs() < 20, "linear, not quadratic: {:?}", started.elapsed());
}

#[test]
fn later_descriptions_replace_earlier_ones() {
    let mut all = builtin();
    let before = all.list.len();
    all.extend(parse("mine.ds", "DS java.util.HashMap { (*); } DS com.example.Cache { (*); }").unwrap());
    assert_eq!(all.list.len(), before + 1);
    let map = all.list.iter().find(|d| d.pattern == "java.util.HashMap").unwrap();
    assert_eq!(map.origin, "mine.ds:1");
}

#[test]
fn files_and_folders_load_with_bounds() {
    let dir = std::env::temp_dir().join(format!("memcity-ds-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    assert!(load_path(&dir).unwrap_err().to_string().contains("no .ds description files"));
    std::fs::write(dir.join("b.ds"), "DS B { (*); }").unwrap();
    std::fs::write(dir.join("a.ds"), "DS A { B; }").unwrap();
    std::fs::write(dir.join("notes.txt"), "not read").unwrap();
    let d = load_path(&dir).unwrap();
    assert_eq!(d.list.iter().map(|d| d.pattern.as_str()).collect::<Vec<_>>(), ["A", "B"]);
    std::fs::write(dir.join("c.ds"), "DS C {\n  D\n").unwrap();
    let error = load_path(&dir).unwrap_err().to_string();
    assert!(
        error.ends_with("c.ds:3:1: expected ';' after a pointed-to type, found the end of the file"),
        "{error}"
    );
    std::fs::write(dir.join("c.ds"), [0xff, 0xfe]).unwrap();
    assert!(load_path(&dir).unwrap_err().to_string().contains("not UTF-8"));
    assert!(load_path(&dir.join("missing.ds")).unwrap_err().to_string().contains("cannot read"));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn wildcards_match_runs_of_characters() {
    assert!(matches("*", "anything"));
    assert!(matches("java.util.HashMap$*", "java.util.HashMap$Node"));
    assert!(matches("*Node", "java.util.LinkedList$Node"));
    assert!(matches("a*b*c", "aXbYc") && matches("a*b*c", "abc"));
    assert!(!matches("a*b*c", "acb") && !matches("*Node", "Nodes") && !matches("Map", "HashMap"));
    assert!(matches("Map", "Map") && !matches("ab*ba", "aba"));
}

#[test]
fn roles_name_keys_values_and_elements_by_path() {
    let text = "namespace a;\nDS M { Node[]; keys .inner.map; }\nNode { (*); key .key; value .val; }\nDS L { element .data[*]; key; walk .head; }";
    let d = parse("roles.ds", text).unwrap();
    let field = |name: &str| Step::Field(name.into());
    assert_eq!(d.list[0].roles, [Role { kind: RoleKind::Keys, path: vec![field("inner"), field("map")] }]);
    assert_eq!(
        d.list[1].roles,
        [
            Role { kind: RoleKind::Key, path: vec![field("key")] },
            Role { kind: RoleKind::Value, path: vec![field("val")] }
        ]
    );
    assert_eq!(
        d.list[2].roles,
        [
            Role { kind: RoleKind::Element, path: vec![field("data"), Step::Each] },
            Role { kind: RoleKind::Walk, path: vec![field("head")] }
        ]
    );
    assert_eq!(
        d.list[2].pointed_to,
        [PointedTo { pattern: "a.key".into(), leaf: false }],
        "`key;` is a type"
    );
    for (bad, message) in [
        (
            "DS A { key key; }",
            "roles.ds:1:12: expected a path of .field, [*], ['*'] and ? steps, found \"key\"",
        ),
        ("DS A { key .; }", "roles.ds:1:12: expected a path of .field, [*], ['*'] and ? steps, found \".\""),
        (
            "DS A { value .a[1]; }",
            "roles.ds:1:14: expected a path of .field, [*], ['*'] and ? steps, found \".a[1]\"",
        ),
        (
            "DS A { value ['a']; }",
            "roles.ds:1:14: expected a path of .field, [*], ['*'] and ? steps, found \"['a']\"",
        ),
        ("DS A { element .a b; }", "roles.ds:1:19: expected ';' after a role's path, found \"b\""),
        ("DS A { keys (B); }", "roles.ds:1:13: expected ';' or a role's path after \"keys\", found '('"),
    ] {
        assert_eq!(parse("roles.ds", bad).unwrap_err().to_string(), message, "{bad}");
    }
}

#[test]
fn requires_entries_and_keyset_are_roles() {
    let d = parse("r.ds", "DS P { entries .map; keyset ?; }").unwrap();
    assert_eq!(
        d.list[0].roles,
        [
            Role { kind: RoleKind::Entries, path: vec![Step::Field("map".into())] },
            Role { kind: RoleKind::Keyset, path: vec![Step::Unnamed] }
        ]
    );
    let d = parse("r.ds", "DS builtins.dict { (*); key ?; value ['*']; }").unwrap();
    assert_eq!(
        d.list[0].roles,
        [
            Role { kind: RoleKind::Key, path: vec![Step::Unnamed] },
            Role { kind: RoleKind::Value, path: vec![Step::Keyed] }
        ]
    );
    let d = parse("r.ds", "DS Object { \"(object properties)\"; requires .properties; }").unwrap();
    assert_eq!(
        d.list[0].roles,
        [Role { kind: RoleKind::Requires, path: vec![Step::Field("properties".into())] }]
    );
}

#[test]
fn pairs_need_a_path_ending_in_each_element() {
    let d = parse("p.ds", "DS Map { pairs .table[*]; }").unwrap();
    assert_eq!(
        d.list[0].roles,
        [Role { kind: RoleKind::Pairs, path: vec![Step::Field("table".into()), Step::Each] }]
    );
    assert_eq!(
        parse("p.ds", "DS Map { pairs .table; }").unwrap_err().to_string(),
        "p.ds:1:16: expected a path ending in [*] after \"pairs\", found \".table\""
    );
}
