use super::*;
use crate::roots::RootKind;

fn facts(type_name: &str) -> ObjectFacts<'_> {
    ObjectFacts { type_name, thread: "main", ..ObjectFacts::default() }
}

#[test]
fn each_classifier_names_its_levels() {
    let site = ["app.Cache.put".to_string(), "lib.Util.run".into(), "app.Main.main".into()];
    let o = ObjectFacts {
        site: &site,
        age: 6,
        len: Some(300),
        roots: [RootKind::Jni].into_iter().collect(),
        node_type: "closure",
        script: "server.js",
        detached: Some(true),
        ..facts("java.util.HashMap$Node[]")
    };
    assert_eq!(Classifier::Type.levels(&o), ["java.util.HashMap$Node[]"]);
    assert_eq!(Classifier::Package.levels(&o), ["java", "java.util"]);
    assert_eq!(Classifier::AllocationSite { depth: 2 }.levels(&o), ["app.Cache.put ← lib.Util.run"]);
    assert_eq!(Classifier::DomainCallSite { prefix: "lib.".into() }.levels(&o), ["lib.Util.run"]);
    assert_eq!(Classifier::Age.levels(&o), ["5–8 GCs"]);
    assert_eq!(Classifier::ObjectKind.levels(&o), ["big array"]);
    assert_eq!(Classifier::RootKind.levels(&o), ["JNI Global"]);
    assert_eq!(Classifier::RootKind.levels(&facts("A")), ["not a root"]);
    assert_eq!(Classifier::Thread.levels(&o), ["main"]);
    assert_eq!(Classifier::NodeType.levels(&o), ["closure"]);
    assert_eq!(Classifier::Script.levels(&o), ["server.js"]);
    assert_eq!(Classifier::Detached.levels(&o), ["detached"]);
    assert_eq!(Classifier::Script.levels(&facts("A")), ["(no script)"]);
}

#[test]
fn packages_of_java_python_and_jvm_array_names() {
    assert_eq!(package_of("java.util.HashMap$Node"), "java.util");
    assert_eq!(package_of("[Ljava.lang.String;"), "java.lang");
    assert_eq!(package_of("[[Ljava.lang.String;"), "java.lang");
    assert_eq!(package_of("[[I"), "(primitive arrays)");
    assert_eq!(package_of("int[]"), "(primitive arrays)");
    assert_eq!(package_of("LeakApp$Person"), "(default package)");
    assert_eq!(package_of("(closure)"), "(default package)");
    assert_eq!(package_levels("app.models.Session"), ["app", "app.models"]);
    assert_eq!(package_levels("[B"), ["(primitive arrays)"]);
}

#[test]
fn parses_lists_and_rejects_unknown_names() {
    assert_eq!(
        parse_list("type, allocation-site:3").unwrap(),
        [Classifier::Type, Classifier::AllocationSite { depth: 3 }]
    );
    assert!(parse_list("type,size").unwrap_err().contains("unknown classifier `size`"));
    assert!(parse_list("allocation-site:0").unwrap_err().contains("1..=1024"));
    assert!(parse_list("domain-call-site").unwrap_err().contains("needs a package prefix"));
    assert!(parse_list("type:1").unwrap_err().contains("takes no argument"));
    assert!(parse_list(" ").unwrap_err().contains("no classifiers"));
    assert_eq!(parse_list("script,node-type,detached").unwrap().len(), 3);
}

#[test]
fn fact_use_follows_the_classifiers() {
    let uses = FactUse::of(&parse_list("package,allocation-site").unwrap());
    assert!(uses.type_name && uses.site && !uses.roots && !uses.age);
}

#[test]
fn structure_classifiers_name_the_top_structure_and_the_role() {
    let top = "java.util.HashMap static app.Registry.people";
    let leaf = ObjectFacts { structure: InStructure::Contained { top, leaf: true }, ..facts("app.Person") };
    let node = ObjectFacts { structure: InStructure::Contained { top, leaf: false }, ..facts("X") };
    let outside = ObjectFacts { structure: InStructure::Outside, ..facts("X") };
    assert_eq!(Classifier::ContainingStructure.levels(&leaf), [top]);
    assert_eq!(Classifier::Leaf.levels(&leaf), ["leaves"]);
    assert_eq!(Classifier::Leaf.levels(&node), ["structure"]);
    assert_eq!(Classifier::ContainingStructure.levels(&outside), [IN_NO_STRUCTURE]);
    assert_eq!(Classifier::Leaf.levels(&outside), [IN_NO_STRUCTURE]);
    // A source's own import detects no structures: that is said, not "(in no structure)".
    assert_eq!(Classifier::Leaf.levels(&facts("X")), ["(structures not detected)"]);
    let list = parse_list("containing-structure,leaf,type").unwrap();
    assert_eq!(list[..2], [Classifier::ContainingStructure, Classifier::Leaf]);
    assert!(list[0].needs_structures() && !list[2].needs_structures());
    assert!(FactUse::of(&list).structure && !FactUse::of(&list[2..]).structure);
    assert!(parse_list("leaf:2").unwrap_err().contains("takes no argument"));
    assert!(Classifier::SYNTAX.contains("containing-structure, leaf"));
}

#[test]
fn classifiers_print_as_the_command_line_writes_them() {
    let text = "type,package,allocation-site,allocation-site:3,domain-call-site:app.,thread,age,object-kind,\
                root-kind,node-type,script,detached,containing-structure,leaf";
    let list = parse_list(text).unwrap();
    assert_eq!(list.iter().map(|c| c.to_string()).collect::<Vec<_>>().join(","), text);
}
