//! The docs hold the binary's facts: each family's page its case count and axes, the options page
//! every option of every command, and the README a link to each family's page and an example
//! that `perftest show` prints.

use clap::CommandFactory;
use perftest::registry;

fn read(path: &str) -> String {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(path);
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

#[test]
fn each_family_page_says_its_count_and_every_axis() {
    let cases = registry::expand(&[], None);
    let readme = read("README.md");
    for family in registry::families() {
        let page = read(&format!("docs/families/{}.md", family.name));
        let count = cases.iter().filter(|c| c.family == family.name).count();
        let line = format!("{count} cases by default (`perftest --list --family {}`).", family.name);
        assert!(
            page.lines().nth(1) == Some(line.as_str()),
            "docs/families/{}.md: its second line should be {line:?}",
            family.name
        );
        assert!(
            page.starts_with(&format!("# {}: ", family.name)),
            "docs/families/{}.md's title",
            family.name
        );
        let axes = family
            .axes
            .iter()
            .map(|a| a.name)
            .chain(registry::string_axes(family).into_iter().map(|(a, _)| a));
        for axis in axes {
            let row = format!("| `{}.{axis}` |", family.name);
            assert!(page.contains(&row), "docs/families/{}.md has no row {row:?}", family.name);
        }
        for section in
            ["## What it measures", "## How one invocation works", "## Axes", "## What to look for"]
        {
            assert!(page.contains(section), "docs/families/{}.md lacks {section:?}", family.name);
        }
        let link = format!("(docs/families/{}.md)", family.name);
        let row =
            readme.lines().find(|l| l.starts_with(&format!("| `{}` | ", family.name)) && l.contains(&link));
        let row = row.unwrap_or_else(|| {
            panic!("the README's family table has no row for {} linking its page", family.name)
        });
        assert!(
            row.contains(&format!("| {count} |")),
            "the README's {} row should say {count} cases: {row}",
            family.name
        );
    }
}

#[test]
fn the_counts_the_docs_repeat_are_the_codes() {
    let cases = registry::expand(&[], None);
    let families = registry::families();
    let quick = families.iter().map(|f| f.quick.len()).sum::<usize>();
    let said = [
        ("README.md", format!("It has {} cases in {} families by default", cases.len(), families.len())),
        ("docs/options.md", format!("only each family's headline cases ({quick} at the default axes;")),
        ("docs/results.md", format!("`3 of {} cases differ from the CPU reference", cases.len())),
    ];
    for (path, words) in said {
        // Words as a reader sees them, wherever the lines break.
        let text = read(path).split_whitespace().collect::<Vec<_>>().join(" ");
        assert!(text.contains(&words), "{path} should say {words:?}: the count is the code's");
    }
}

#[test]
fn the_readmes_example_is_what_show_prints() {
    let run = perftest::results::load(
        &std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("results/report/h100/parta.json"),
    )
    .unwrap();
    let shown = perftest::report::text::document(&run, false);
    let readme = read("README.md");
    let example = readme.split("```\n").nth(1).expect("the README's first code block");
    let mut lines = shown.lines();
    for line in example.lines().filter(|l| *l != "...") {
        // In order: each line of the example is a later line of what `show` prints.
        assert!(
            lines.any(|l| l == line),
            "the README's example line {line:?} is not show's, or out of order"
        );
    }
}

/// Every long option of `command` and of its subcommands, as `--name` (with the subcommand's name).
fn options(command: &clap::Command, within: &str, out: &mut Vec<(String, String)>) {
    for arg in command.get_arguments().filter(|a| !a.is_hide_set()) {
        if let Some(long) = arg.get_long() {
            out.push((within.to_owned(), format!("--{long}")));
        }
    }
    for sub in command.get_subcommands().filter(|s| s.get_name() != "help") {
        options(sub, sub.get_name(), out);
    }
}

#[test]
fn the_options_page_lists_every_option_and_no_other() {
    let page = read("docs/options.md");
    let mut all = Vec::new();
    options(&perftest::app::Cli::command(), "perftest", &mut all);
    // Sections: "## A run" for the run's options, then "## compare", "## show", ...
    let section = |name: &str| -> String {
        let name = if name == "perftest" { "A run" } else { name };
        let start = page
            .find(&format!("\n## {name}\n"))
            .unwrap_or_else(|| panic!("docs/options.md has no ## {name}"));
        let rest = &page[start + 1..];
        rest[..rest[3..].find("\n## ").map_or(rest.len(), |end| end + 3)].to_owned()
    };
    for (command, option) in &all {
        let text = section(command);
        assert!(text.contains(&format!("| `{option}")), "docs/options.md's {command} table lacks {option}");
    }
    let run = section("perftest");
    for documented in run.lines().filter_map(|l| l.strip_prefix("| `--")) {
        let name = documented.split(|c: char| !(c.is_ascii_alphanumeric() || c == '-')).next().unwrap();
        let known = all.iter().any(|(c, o)| c == "perftest" && o == &format!("--{name}"))
            || matches!(name, "help" | "version");
        assert!(known, "docs/options.md documents --{name}, which perftest does not have");
    }
}

#[test]
fn every_kind_of_flag_is_documented() {
    let output = read("docs/output.md");
    let flags = output.split("### Flags").nth(1).expect("docs/output.md has a Flags section");
    let flags = flags.split("\n### ").next().unwrap_or(flags);
    let kinds = perftest::results::flag::Flag::KINDS;
    // The last kind is a newer perftest's flag, kept as written: nothing to document.
    for kind in &kinds[..kinds.len() - 1] {
        assert!(flags.contains(&format!("`[{kind}")), "docs/output.md's Flags section lacks `[{kind}...]`");
    }
}
