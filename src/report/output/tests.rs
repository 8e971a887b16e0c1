//! The output guards' tests: atomic replacement, links and special files, rescue, and refusing an
//! output that is an input.

use super::*;

fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("perftest-output-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn leftovers(dir: &Path) -> Vec<String> {
    let names =
        std::fs::read_dir(dir).unwrap().map(|e| e.unwrap().file_name().to_string_lossy().into_owned());
    names.filter(|n| n.starts_with(".perftest")).collect()
}

#[test]
fn a_regular_file_is_replaced_keeping_its_permissions_and_nothing_is_left_behind() {
    use std::os::unix::fs::PermissionsExt;
    let dir = scratch("regular");
    let file = dir.join("out.json");
    std::fs::write(&file, "old").unwrap();
    std::fs::set_permissions(&file, std::fs::Permissions::from_mode(0o640)).unwrap();
    write_atomic(&file, "new").unwrap();
    assert_eq!(std::fs::read_to_string(&file).unwrap(), "new");
    assert_eq!(std::fs::metadata(&file).unwrap().permissions().mode() & 0o777, 0o640);
    let fresh = dir.join("fresh.json");
    write_atomic(&fresh, "x").unwrap();
    assert_eq!(std::fs::metadata(&fresh).unwrap().permissions().mode() & 0o777, 0o644);
    assert!(leftovers(&dir).is_empty(), "{:?}", leftovers(&dir));
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn a_symlink_stays_a_link_and_its_target_is_written() {
    let dir = scratch("symlink");
    let (real, link) = (dir.join("real.json"), dir.join("link.json"));
    std::fs::write(&real, "old").unwrap();
    std::os::unix::fs::symlink(&real, &link).unwrap();
    write_atomic(&link, "new").unwrap();
    assert!(std::fs::symlink_metadata(&link).unwrap().file_type().is_symlink());
    assert_eq!(std::fs::read_to_string(&real).unwrap(), "new");
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn links_are_followed_where_the_kernel_follows_them() {
    let (me, other, root) = (1000, 1001, 0);
    assert!(kernel_follows(other, 0o755, root, me), "not a shared folder");
    assert!(kernel_follows(other, 0o777, root, me), "world-writable but not sticky");
    assert!(kernel_follows(me, 0o1777, root, me), "my own link in /tmp");
    assert!(kernel_follows(root, 0o1777, root, me), "the folder owner's link");
    assert!(!kernel_follows(other, 0o1777, root, me), "another user's link in /tmp");
    assert!(!kernel_follows(other, 0o1777, root, root), "root is no exception");
}

#[test]
fn another_users_link_in_a_sticky_folder_is_refused_and_its_target_kept() {
    use std::os::unix::fs::PermissionsExt;
    let me = rustix::process::geteuid().as_raw();
    let dir = scratch("sticky");
    let shared = dir.join("tmp");
    std::fs::create_dir(&shared).unwrap();
    std::fs::set_permissions(&shared, std::fs::Permissions::from_mode(0o1777)).unwrap();
    let victim = dir.join("victim");
    std::fs::write(&victim, "keep me").unwrap();
    let link = shared.join("r.json");
    std::os::unix::fs::symlink(&victim, &link).unwrap();
    // Only root can give the link to another user; others check the rule alone (above).
    if me == 0 {
        std::os::unix::fs::lchown(&link, Some(65534), None).unwrap();
        let error = write_atomic(&link, "results").unwrap_err();
        assert!(matches!(error, Error::UnsafeLink { owner: 65534, .. }), "{error}");
        assert!(error.to_string().contains("remove the link or write elsewhere"), "{error}");
        assert_eq!(std::fs::read_to_string(&victim).unwrap(), "keep me");
        assert!(check_writable(&link).is_err(), "found before a run too");
        let rescued = write_or_rescue(&link, "results").unwrap_err();
        assert!(matches!(rescued, Error::OutputRescued { .. }), "{rescued}");
        if let Error::OutputRescued { rescued, .. } = rescued {
            std::fs::remove_file(rescued).unwrap();
        }
    }
    std::os::unix::fs::lchown(&link, Some(me), None).unwrap();
    write_atomic(&link, "mine").unwrap();
    assert_eq!(std::fs::read_to_string(&victim).unwrap(), "mine", "my own link is followed");
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn another_users_fifo_in_a_sticky_folder_is_refused_and_ones_own_never_blocks() {
    use std::os::unix::fs::PermissionsExt;
    let dir = scratch("fifo-owner");
    let shared = dir.join("tmp");
    std::fs::create_dir(&shared).unwrap();
    std::fs::set_permissions(&shared, std::fs::Permissions::from_mode(0o1777)).unwrap();
    let fifo = shared.join("r.json");
    rustix::fs::mkfifoat(rustix::fs::CWD, &fifo, rustix::fs::Mode::from_raw_mode(0o666)).unwrap();
    // My own FIFO with no reader: an error at once, and the check before a run opens nothing.
    assert!(check_writable(&fifo).is_ok(), "the check does not open it (its reader would see an end)");
    let error = write_atomic(&fifo, "results").unwrap_err();
    assert!(error.to_string().contains("it is a FIFO that no process is reading"), "{error}");
    // Only root can give it to another user; others check the rule alone (above).
    if rustix::process::geteuid().is_root() {
        std::os::unix::fs::chown(&fifo, Some(65534), None).unwrap();
        for refused in [write_atomic(&fifo, "results").unwrap_err(), check_writable(&fifo).unwrap_err()] {
            assert!(matches!(refused, Error::UnsafeSpecial { .. }), "{refused}");
            assert!(refused.to_string().contains("a FIFO that user 65534 owns"), "{refused}");
        }
    }
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn a_rescued_document_is_named_after_the_file_it_was_for() {
    let dir = scratch("rescue");
    let missing = dir.join("no-such-folder").join("r-gpu2.json");
    let Err(Error::OutputRescued { rescued, .. }) = write_or_rescue(&missing, "results") else {
        panic!("a write into a missing folder is rescued")
    };
    let name = Path::new(&rescued).file_name().unwrap().to_string_lossy().into_owned();
    assert!(name.starts_with("perftest-rescued-r-gpu2-") && name.ends_with(".json"), "{name}");
    assert_eq!(std::fs::read_to_string(&rescued).unwrap(), "results");
    std::fs::remove_file(rescued).unwrap();
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn an_output_that_is_an_input_or_another_output_is_refused() {
    let dir = scratch("guard");
    let (input, other) = (dir.join("run.json"), dir.join("other.json"));
    std::fs::write(&input, "{}").unwrap();
    std::fs::hard_link(&input, dir.join("hard.json")).unwrap();
    std::os::unix::fs::symlink(&input, dir.join("soft.json")).unwrap();
    fn named<'a>(role: &'static str, path: &'a Path) -> Named<'a> {
        Named { role, path }
    }
    let inputs = [named("the results file", input.as_path())];
    for alias in ["run.json", "hard.json", "soft.json", "./sub/../run.json"] {
        std::fs::create_dir_all(dir.join("sub")).unwrap();
        let out = dir.join(alias);
        let error = guard(&[named("--output", &out)], &inputs).unwrap_err();
        assert_eq!(error.exit_code(), crate::ExitCode::Usage, "{alias}");
        assert!(error.to_string().contains("is the same file as the results file"), "{error}");
    }
    let two = [named("--output", other.as_path()), named("--json", other.as_path())];
    let error = guard(&two, &[]).unwrap_err();
    assert!(error.to_string().starts_with("--json"), "{error}");
    guard(&[named("--output", &other), named("--json", &dir.join("x.json"))], &inputs).unwrap();
    let devices = [named("--output", Path::new("/dev/null")), named("--json", Path::new("/dev/null"))];
    guard(&devices, &[]).unwrap();
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn a_fifo_and_a_device_are_written_through_not_replaced() {
    let dir = scratch("fifo");
    let fifo = dir.join("fifo");
    let made = std::process::Command::new("mkfifo").arg(&fifo).status().unwrap();
    assert!(made.success());
    let reader = {
        let fifo = fifo.clone();
        std::thread::spawn(move || std::fs::read_to_string(fifo).unwrap())
    };
    write_atomic(&fifo, "through the pipe").unwrap();
    assert_eq!(reader.join().unwrap(), "through the pipe");
    assert!(!std::fs::metadata(&fifo).unwrap().is_file(), "still a FIFO");
    write_atomic(Path::new("/dev/null"), "discarded").unwrap();
    assert!(!std::fs::metadata("/dev/null").unwrap().is_file(), "/dev/null is still a device");
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn a_planted_symlink_cannot_redirect_the_temporary_file() {
    // The old writer used `.NAME.PID.tmp`; a link planted there made it overwrite another file.
    let dir = scratch("planted");
    let victim = dir.join("victim");
    std::fs::write(&victim, "keep me").unwrap();
    let predictable = dir.join(format!(".out.json.{}.tmp", std::process::id()));
    std::os::unix::fs::symlink(&victim, &predictable).unwrap();
    write_atomic(&dir.join("out.json"), "results").unwrap();
    assert_eq!(std::fs::read_to_string(&victim).unwrap(), "keep me");
    assert_eq!(std::fs::read_to_string(dir.join("out.json")).unwrap(), "results");
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn a_failed_final_write_keeps_the_document_and_says_where() {
    let error =
        write_or_rescue(Path::new("/nonexistent-perftest-dir/out.json"), "{\"kept\": 1}").unwrap_err();
    let Error::OutputRescued { rescued, .. } = &error else { panic!("{error}") };
    assert!(rescued.ends_with(".json"), "{rescued}");
    assert_eq!(std::fs::read_to_string(rescued).unwrap(), "{\"kept\": 1}");
    let text = error.to_string();
    assert!(
        text.contains("could not write /nonexistent-perftest-dir/out.json")
            && text.contains(rescued.as_str()),
        "{text}"
    );
    std::fs::remove_file(rescued).unwrap();
}

#[test]
fn a_missing_or_read_only_destination_is_found_before_a_run() {
    let error = check_writable(Path::new("/nonexistent-perftest-dir/out.json")).unwrap_err();
    assert!(error.to_string().starts_with("could not write /nonexistent-perftest-dir/out.json"), "{error}");
    let dir = scratch("check");
    check_writable(&dir.join("out.json")).unwrap();
    assert!(leftovers(&dir).is_empty(), "the probe is removed");
    check_writable(Path::new("/dev/null")).unwrap();
    std::fs::remove_dir_all(dir).unwrap();
}
