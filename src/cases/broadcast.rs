//! The subgroup-broadcast trick: the original's "Uniform Load Investigation", done by hand.
//!
//! With a uniform address every invocation loads the same element in each iteration. Some DX11
//! compilers load it once per subgroup behind the programmer's back; in Vulkan the programmer
//! can: lane L loads iteration base + L's element, and iteration base + j takes it from lane j
//! with `subgroupBroadcast` (glsl/load.glsl and glsl/texture.glsl, BROADCAST). Only the
//! channels the data has are broadcast. The sums are the plain uniform cases' to the bit, so
//! `Buffer<R8>.Load uniform (subgroup broadcast)` sits beside `Buffer<R8>.Load uniform` with the
//! same reference and the same ratio baseline (`Buffer<RGBA8>.Load random`).

use ash::vk;

use super::data::Pattern;
use super::load::{self, View, RAW, STRUCTURED};
use super::texture::{self, Op};
use crate::caps::Requirements;
use crate::registry::originals;
use crate::registry::{self, CaseSpec, Env, Family, Work};

/// The plain uniform case `plain`, done with the trick, broadcasting `channels` components.
fn broadcast(plain: CaseSpec, channels: usize, group: &str) -> CaseSpec {
    let name = format!("{} (subgroup broadcast)", plain.name);
    let mut needs = plain.requires.clone();
    needs.union(
        &Requirements::new().subgroup(vk::SubgroupFeatureFlags::BASIC | vk::SubgroupFeatureFlags::BALLOT),
    );
    // Most loads are served from another lane's registers, not the L1: its bandwidth bounds
    // only the subgroup's one load per lane, so the bytes carry no ceiling.
    let work: Vec<Work> = plain.work.iter().map(|w| Work { ceiling: None, ..*w }).collect();
    let channels = channels.to_string();
    let mut case =
        plain.defines([("BROADCAST", "1"), ("CHANNELS", channels.as_str())]).requires(needs).work(work);
    case.variant.clone_from(&name);
    case.name = name;
    case.group = format!("broadcast {group}");
    case
}

fn expand(env: &Env) -> Vec<CaseSpec> {
    let (n, rows) = (env.workgroup_width(load::GROUP), texture::rows(env));
    let mut cases = Vec::new();
    for f in originals() {
        let plain = load::typed(f, Pattern::Uniform, View::Srv, n);
        cases.push(broadcast(plain, f.channels as usize, "typed"));
    }
    for (base, width, offset) in RAW {
        let plain = load::raw(base, width, offset, Pattern::Uniform, View::Srv, n);
        cases.push(broadcast(plain, width, "raw"));
    }
    for (base, width) in STRUCTURED {
        let plain = load::structured(base, width, Pattern::Uniform, View::Srv, n);
        cases.push(broadcast(plain, width, "structured"));
    }
    for f in originals() {
        let plain = texture::case(f, Op::Load, Pattern::Uniform, rows);
        cases.push(broadcast(plain, f.channels as usize, "texture"));
    }
    cases
}

inventory::submit! {
    Family {
        about: registry::About {
            measures: "the subgroup-broadcast trick for uniform-address loads (typed, raw and structured \
                       buffers, Texture2D.Load): each lane loads a different iteration's element once, and \
                       subgroupBroadcast serves the loop's iterations from registers",
            invocation: "the plain uniform case's 256 loads, as 256 / subgroup-size loads per lane and 256 \
                         broadcasts (one per channel the data has), summed in the same order, through \
                         groupshared memory to the result write",
            rate: "loads per second served (as the plain case counts them), and bytes per second",
        },
        name: "broadcast",
        order: 270,
        axes: &[],
        ratio_note: Some("\"Buffer<RGBA8>.Load random\""),
        levels: false,
        device_cases: false,
        quick: &[
            "ByteAddressBuffer.Load4 uniform (subgroup broadcast)",
            "Buffer<RGBA32f>.Load uniform (subgroup broadcast)",
        ],
        expand,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_broadcast_case_is_its_plain_twin_with_the_trick_on() {
        let rg8 = crate::registry::format_info(vk::Format::R8G8_UNORM).unwrap();
        let plain = load::typed(rg8, Pattern::Uniform, View::Srv, load::GROUP);
        let (defines, work) = (plain.defines.clone(), plain.work.clone());
        let reference = plain.reference.clone().unwrap();
        let trick = broadcast(plain, 2, "typed");
        // The same CPU reference: --verify (on lavapipe in CI) shows the GPU's sums are the plain case's.
        assert!(std::sync::Arc::ptr_eq(&reference, trick.reference.as_ref().unwrap()));
        assert_eq!(trick.name, "Buffer<RG8>.Load uniform (subgroup broadcast)");
        assert_eq!(trick.variant, trick.name);
        assert_eq!(trick.baseline.as_deref(), Some(load::BASELINE));
        assert_eq!(trick.defines[..defines.len()], defines[..], "the plain case's shader, plus the trick");
        assert!(trick.defines.contains(&("CHANNELS".into(), "2".into())));
        assert!(trick.requirements().subgroup.contains(vk::SubgroupFeatureFlags::BALLOT));
        assert_eq!(trick.work.len(), work.len());
        assert!(work[1].ceiling.is_some() && trick.work.iter().all(|w| w.ceiling.is_none()));
    }

    #[test]
    fn every_broadcast_case_is_a_uniform_one() {
        let family = registry::families().into_iter().find(|f| f.name == "broadcast").unwrap();
        let cases = expand(&Env { family, settings: &[], device: None });
        assert_eq!(cases.len(), 9 + 6 + 3 + 9);
        assert!(cases.iter().all(|c| c.name.ends_with(" uniform (subgroup broadcast)")), "{cases:?}");
        assert!(cases.iter().all(|c| c.defines.contains(&("PATTERN".into(), "0".into()))));
    }
}
