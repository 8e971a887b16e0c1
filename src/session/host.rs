//! The names of this host: the one a run records (`--host-name`, `PERFTEST_HOST_NAME`, else the
//! kernel's), and the Slurm node `health --drain` drains (`SLURMD_NODENAME`). Each is one DNS
//! label or refused with a sentence: a name becomes part of a file name under `--all-devices
//! --json DIR/` and the node list of `scontrol update`, where `/`, `,` or `[01-99]` would reach
//! other files or other nodes.

use crate::error::{Error, Result};

/// Whether `text` is one DNS label (RFC 1123): 1 to 63 letters, digits and hyphens, neither first
/// nor last a hyphen; else why not, as a sentence's end that says what to give.
pub fn check_label(text: &str) -> std::result::Result<(), String> {
    let bytes = text.as_bytes();
    let fits = (1..=63).contains(&bytes.len())
        && bytes.iter().all(|b| b.is_ascii_alphanumeric() || *b == b'-')
        && !text.starts_with('-')
        && !text.ends_with('-');
    if fits {
        return Ok(());
    }
    let short = text.split('.').next().filter(|s| *s != text && check_label(s).is_ok());
    let shown: String = crate::format::printable_lines(text).chars().take(80).collect();
    Err(format!(
        "`{shown}` is not one DNS label (1 to 63 letters, digits and hyphens: no dots, slashes, commas or \
         brackets); give the host's short name{}",
        short.map_or(String::new(), |s| format!(" ({s})"))
    ))
}

/// The kernel's node name, as `hostname -s` gives it (its first label), where it is one.
pub fn kernel_host_name() -> Option<String> {
    let name = rustix::system::uname().nodename().to_string_lossy().into_owned();
    let first = name.split('.').next().unwrap_or_default().to_owned();
    check_label(&first).is_ok().then_some(first)
}

/// This host's name: `PERFTEST_HOST_NAME` where set and not empty (a container's node), else the
/// kernel's; `None` where it has none. A variable that is no DNS label is refused (exit 2).
pub fn host_name() -> Result<Option<String>> {
    let given = std::env::var_os("PERFTEST_HOST_NAME").filter(|n| !n.is_empty());
    let Some(given) = given else { return Ok(kernel_host_name()) };
    let text = given.to_string_lossy();
    check_label(&text).map_err(|problem| Error::Setting { setting: "PERFTEST_HOST_NAME", problem })?;
    Ok(Some(text.into_owned()))
}

/// The Slurm node `health --drain` drains: `SLURMD_NODENAME`, which slurmd gives its health check
/// and jobs, and nothing else (not this host's name: a container's or a login node's name is no
/// node of the cluster). Unset, empty or no DNS label: refused before anything runs (exit 2).
pub fn slurm_node() -> Result<String> {
    let node =
        std::env::var_os("SLURMD_NODENAME").filter(|n| !n.is_empty()).ok_or_else(|| Error::Setting {
            setting: "SLURMD_NODENAME",
            problem: "is not set: --drain drains the node Slurm names there; run the check as slurmd's \
                  HealthCheckProgram (examples/slurm/healthcheck.sh) or in a Slurm job, or leave out --drain"
                .into(),
        })?;
    let text = node.to_string_lossy();
    check_label(&text).map_err(|problem| Error::Setting { setting: "SLURMD_NODENAME", problem })?;
    Ok(text.into_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_host_name_is_one_dns_label() {
        for good in ["node07", "gpu-a100-3", "N1", "x"] {
            assert_eq!(check_label(good), Ok(()), "{good}");
        }
        let long = "a".repeat(64);
        for bad in ["", "a/b", "../x", "node[01-99],login1", "-n", "n-", "a b", "nöde", long.as_str(), "a_b"]
        {
            assert!(check_label(bad).is_err(), "{bad:?}");
        }
        let error = check_label("ip-10-0-0-1.ec2.internal").unwrap_err();
        assert!(error.ends_with("give the host's short name (ip-10-0-0-1)"), "{error}");
        let escaped = check_label("a\u{1b}[31m").unwrap_err();
        assert!(!escaped.contains('\u{1b}'), "{escaped}");
    }

    #[test]
    fn the_kernel_gives_a_short_name() {
        let name = kernel_host_name();
        assert!(name.as_deref().is_none_or(|n| check_label(n).is_ok()), "{name:?}");
    }
}
