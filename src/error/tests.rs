//! Errors say what to do, name their case, keep their causes, and exit with their codes; the
//! codes are distinct and docs/exit-codes.md says what the enum says.

use super::*;

#[test]
fn device_lost_names_the_case_and_has_its_own_code() {
    let outside = vk_err("vkCreateDevice")(vk::Result::ERROR_DEVICE_LOST);
    assert_eq!(outside.exit_code(), ExitCode::DeviceLost, "lost again while the device is opened");
    let error = vk_err("vkQueueSubmit")(vk::Result::ERROR_DEVICE_LOST).in_case("ALU fp32 FMA");
    assert_eq!(error.exit_code(), ExitCode::DeviceLost);
    let text = error.to_string();
    assert!(text.contains("\"ALU fp32 FMA\""), "{text}");
    assert!(text.contains("VK_ERROR_DEVICE_LOST"), "{text}");
}

#[test]
fn vulkan_errors_name_the_call_and_case_not_a_bare_code() {
    let error = vk_err("vkCreateBuffer")(vk::Result::ERROR_OUT_OF_DEVICE_MEMORY).in_case("ALU fp64 FMA");
    assert_eq!(
        error.to_string(),
        "vkCreateBuffer failed in case \"ALU fp64 FMA\": ERROR_OUT_OF_DEVICE_MEMORY"
    );
    assert_eq!(error.exit_code(), ExitCode::Failure);
}

#[test]
fn environment_errors_say_which_package_to_install() {
    let loader = Error::OldLoader { major: 1, minor: 1 };
    assert!(loader.to_string().contains("apt-get install libvulkan1"));
    let device = Error::NoDevice { detail: "no physical devices".into() };
    assert!(device.to_string().contains("mesa-vulkan-drivers"));
    assert!(Error::NoValidationLayer.to_string().contains("vulkan-validationlayers"));
    for error in [loader, device, Error::NoValidationLayer] {
        assert_eq!(error.exit_code(), ExitCode::NoVulkan);
    }
}

#[test]
fn implausible_times_and_allocation_failures_name_the_case() {
    let timing = Error::Timing { case: "ALU fp32 FMA".into(), detail: "the timestamps are equal (5)".into() };
    assert_eq!(
        timing.to_string(),
        "case \"ALU fp32 FMA\" produced an implausible GPU time: the timestamps are equal (5)"
    );
    assert_eq!(timing.exit_code(), ExitCode::Failure);
    let source = gpu_allocator::AllocationError::OutOfMemory;
    let allocation = Error::Allocation { case: None, source }.in_case("Buffer<R8>.Load uniform");
    let text = allocation.to_string();
    assert!(text.starts_with("GPU memory allocation failed in case \"Buffer<R8>.Load uniform\""), "{text}");
    assert_eq!(allocation.exit_code(), ExitCode::Failure);
    let interrupted = Error::Interrupted { finished: 3, selected: 142 };
    assert_eq!(interrupted.exit_code() as u8, 130);
}

#[test]
fn a_document_json_refuses_is_an_error_that_keeps_its_cause() {
    let source = serde_json::from_str::<u8>("x").unwrap_err();
    let error = Error::Serialize { what: "the run", source };
    assert_eq!(
        error.to_string(),
        "could not write the run as JSON; this is a bug in perftest, please report it"
    );
    assert!(std::error::Error::source(&error).is_some(), "serde_json's error stays the cause");
    assert!(
        report(&error).ends_with("\n  caused by: expected value at line 1 column 1"),
        "{}",
        report(&error)
    );
    assert_eq!(error.exit_code(), ExitCode::Failure);
}

#[test]
fn exit_codes_are_distinct_and_in_order() {
    let numbers: Vec<u8> = ExitCode::ALL.iter().map(|&c| c as u8).collect();
    assert_eq!(numbers[..23], (0..23).collect::<Vec<u8>>());
    assert_eq!(ExitCode::Interrupted as u8, 130, "the shell's code for SIGINT");
    assert_eq!(numbers.len(), 24);
}

/// The README's exit-code table: (code, meaning) with markdown backticks removed.
fn readme_codes() -> Vec<(u8, String)> {
    let page = include_str!("../../docs/exit-codes.md");
    page.lines()
        .filter_map(|line| {
            let cells: Vec<&str> = line.trim().trim_matches('|').split(" | ").map(str::trim).collect();
            let code = cells.first()?.parse::<u8>().ok()?;
            Some((code, cells.get(1)?.replace('`', "")))
        })
        .collect()
}

#[test]
fn the_docs_table_says_what_the_enum_says() {
    let expected: Vec<(u8, String)> =
        ExitCode::ALL.iter().map(|&c| (c as u8, c.meaning().to_owned())).collect();
    assert_eq!(readme_codes(), expected, "update docs/exit-codes.md's table from ExitCode::meaning");
}

/// docs/exit-codes.md's table of commands: (command, its codes), the `--npd` note left out.
fn docs_command_codes() -> Vec<(String, Vec<u8>)> {
    let page = include_str!("../../docs/exit-codes.md");
    page.lines()
        .filter_map(|line| {
            let cells: Vec<&str> = line.trim().trim_matches('|').split(" | ").map(str::trim).collect();
            let name = cells.first()?.strip_prefix('`')?.strip_suffix('`')?;
            let codes = cells.get(1)?.split(" (").next()?;
            let codes: Option<Vec<u8>> = codes.split(", ").map(|c| c.parse().ok()).collect();
            Some((name.to_owned(), codes?))
        })
        .collect()
}

#[test]
fn each_subcommand_lists_its_exit_codes_from_the_one_table() {
    let cli = crate::app::with_exit_codes(<crate::app::Cli as clap::CommandFactory>::command());
    let mut documented = docs_command_codes();
    documented.sort();
    let mut commands = Vec::new();
    for sub in cli.get_subcommands() {
        let name = sub.get_name();
        let codes = of_command(name).unwrap_or_else(|| panic!("{name} has no exit codes in of_command"));
        commands.push((name.to_owned(), codes.iter().map(|&c| c as u8).collect::<Vec<u8>>()));
        let help = sub.clone().render_long_help().to_string();
        let listed = help.split("Exit codes:\n").nth(1).unwrap_or_else(|| panic!("{name}: {help}"));
        // A code's line, then its meaning's continuation lines under a hanging indent.
        let entries: Vec<String> = listed.lines().take_while(|l| l.starts_with("  ")).fold(
            Vec::new(),
            |mut entries: Vec<String>, line| {
                match line.starts_with("      ") {
                    true => *entries.last_mut().expect("a code's line first") += &format!(" {}", line.trim()),
                    false => entries.push(line.to_owned()),
                }
                entries
            },
        );
        assert_eq!(entries.len(), codes.len(), "{name}: {listed}");
        for (entry, code) in entries.iter().zip(codes) {
            assert_eq!(*entry, format!("  {:<3} {}", *code as u8, code.meaning()), "{name}");
        }
    }
    commands.sort();
    assert_eq!(documented, commands, "docs/exit-codes.md's table of commands is not of_command's");
}

#[test]
fn every_verdict_of_fleet_and_health_ends_with_a_code_their_help_lists() {
    use crate::analysis::fleet::Conclusion;
    let devices = || vec!["node7/0000:1b:00.0".to_owned()];
    let conclusions = [
        Conclusion::Healthy,
        Conclusion::Corrupt(devices()),
        Conclusion::Faulty(devices()),
        Conclusion::Slow(devices()),
        Conclusion::Unjudged(devices()),
        Conclusion::Interference(devices()),
        Conclusion::Unconfirmed(devices()),
    ];
    for conclusion in conclusions {
        // A new conclusion fails to compile here until it is listed above.
        match &conclusion {
            Conclusion::Healthy
            | Conclusion::Corrupt(_)
            | Conclusion::Faulty(_)
            | Conclusion::Slow(_)
            | Conclusion::Unjudged(_)
            | Conclusion::Interference(_)
            | Conclusion::Unconfirmed(_) => {}
        }
        let code = conclusion.ending().err().map_or(ExitCode::Success, |e| e.exit_code());
        for command in ["fleet", "health"] {
            assert!(of_command(command).unwrap().contains(&code), "{command} ends with {code:?}");
        }
    }
    // A stop before the verdict, and a reference that is not one.
    let halted = Error::Halted { command: "perftest health" }.exit_code();
    assert!(of_command("health").unwrap().contains(&halted));
    let file = Error::ResultsFile { path: "r.json".into(), problem: "is empty".into() }.exit_code();
    assert!(of_command("health").unwrap().contains(&file) && of_command("history").unwrap().contains(&file));
}
