//! Tests of the registry: the golden case list, baselines, filtering, expansion with axes.

use super::*;

/// The cases whose names contain `filter` and none of `skip`, as `--filter` and `--skip` select.
fn filter(cases: Vec<CaseSpec>, filter: Option<&str>, skip: &[String]) -> Result<Vec<CaseSpec>> {
    Selection { filter: filter.map(str::to_owned), skip: skip.to_vec(), ..Default::default() }.apply(cases)
}

fn names(cases: &[CaseSpec]) -> Vec<&str> {
    cases.iter().map(|c| c.name.as_str()).collect()
}

/// The golden list: every case name, in run order, with the default axes.
const SNAPSHOT: &str = include_str!("../cases/list.txt");

#[test]
fn the_registered_cases_match_the_golden_list() {
    // Catches a family module that the linker dropped (inventory issue 9), a renamed case and a
    // reordering: the load and texture names and order are sebbbi/perftest's result tables'.
    let expected: Vec<&str> = SNAPSHOT.lines().collect();
    let all = all();
    let got = names(&all);
    if got != expected {
        let first =
            got.iter().zip(&expected).position(|(a, b)| a != b).unwrap_or(got.len().min(expected.len()));
        panic!(
            "the cases differ from src/cases/list.txt from line {} on (got {:?}, the list has {:?}; {} vs {} cases); \
             if the change is intended, regenerate it: cargo run -- --list > src/cases/list.txt",
            first + 1,
            got.get(first),
            expected.get(first),
            got.len(),
            expected.len()
        );
    }
}

#[test]
fn case_names_are_unique() {
    let all = all();
    let mut seen = std::collections::HashSet::new();
    for case in &all {
        assert!(seen.insert(case.name.as_str()), "{} twice", case.name);
    }
}

#[test]
fn every_twin_is_a_case_of_the_same_source_that_runs_earlier() {
    let all = all();
    let mut twins = 0;
    for (at, case) in all.iter().enumerate() {
        let Some(twin) = &case.twin else { continue };
        let found = all.iter().position(|c| &c.name == twin);
        let found = found.unwrap_or_else(|| panic!("{}: twin {twin:?} is not a case", case.name));
        assert!(found < at, "{}: its twin {twin} runs after it", case.name);
        assert_eq!(all[found].glsl.file, case.glsl.file, "{}: twins share a source", case.name);
        twins += 1;
    }
    assert_eq!(twins, 27 + 63, "the RW raw and structured loads, and the readonly convolutions");
}

#[test]
fn every_baseline_is_a_registered_case_with_the_same_axis_values() {
    let all = all();
    for case in &all {
        let Some(baseline) = &case.baseline else { continue };
        let found = all.iter().find(|c| &c.name == baseline);
        let found = found.unwrap_or_else(|| panic!("{}: baseline {baseline:?} is not a case", case.name));
        assert!(found.baseline.as_ref() == Some(&found.name), "{baseline} is its own baseline");
        if found.family == case.family {
            assert_eq!(found.axes, case.axes, "{}: baseline from another point of the sweep", case.name);
        }
    }
}

#[test]
fn every_case_is_well_formed() {
    for case in all() {
        assert!(!case.work.is_empty(), "{}: no work", case.name);
        assert!(case.reference.is_some(), "{}: no CPU reference", case.name);
        assert!(case.invocations_per_group() > 0, "{}", case.name);
        assert!(case.push.size() <= MAX_PUSH_BYTES, "{}: push block too large", case.name);
        assert_eq!(case.push.time.len(), case.push.verify.len(), "{}: push blocks differ in size", case.name);
        assert!(!case.group.is_empty() && !case.family.is_empty(), "{}", case.name);
    }
}

#[test]
fn bytes_axes_and_only_they_are_named_bytes() {
    // Results files record axes by name; plots draw an axis whose name contains "bytes" on a
    // log scale. This keeps the name and the unit in step.
    for family in families() {
        for axis in family.axes {
            let named = axis.name.contains("bytes");
            assert_eq!(named, axis.unit == AxisUnit::Bytes, "{}.{}", family.name, axis.name);
        }
    }
}

#[test]
fn every_family_axis_default_parses() {
    for family in families() {
        for axis in family.axes {
            let values =
                parse_values(axis.default, axis.max).unwrap_or_else(|e| panic!("{}: {e}", family.name));
            assert!(!values.is_empty(), "{}.{}", family.name, axis.name);
        }
    }
}

#[test]
fn an_axis_setting_expands_the_family_it_names_only() {
    let setting = parse_setting("branch.n=0,64").unwrap();
    let cases = expand(&[setting], None);
    let branch: Vec<&CaseSpec> = cases.iter().filter(|c| c.family == "branch").collect();
    assert_eq!(branch.len(), 2 * 12);
    assert_eq!(branch[12].name, "64X Coherent branch baseline");
    assert_eq!(branch[12].axes, [("n", 64)]);
    assert_eq!(branch[12].variant, "Coherent branch baseline");
    assert_eq!(branch[12].push, Push::words(&[64]));
    let others = |cases: &[CaseSpec]| cases.iter().filter(|c| c.family != "branch").count();
    assert_eq!(others(&cases), others(&all()), "the other families keep their cases");
}

#[test]
fn filter_is_case_insensitive_and_skip_wins() {
    let fp = filter(all(), Some("ALU FP"), &[]).unwrap();
    assert_eq!(names(&fp)[..3], ["ALU fp32 FMA", "ALU fp16 FMA (f16vec2)", "ALU fp64 FMA"]);
    let no64 = filter(all(), Some("alu fp"), &["fp64".into(), "FP16".into()]).unwrap();
    assert_eq!(names(&no64), ["ALU fp32 FMA", "ALU fp32 FMA (mediump)"]);
}

#[test]
fn a_filter_that_matches_nothing_is_an_error_naming_it() {
    let error = filter(all(), Some("fp128"), &[]).err().unwrap();
    assert_eq!(error.exit_code(), crate::ExitCode::NothingMatched);
    assert!(error.to_string().contains("--filter \"fp128\""), "{error}");
    // Every case name contains an "a" (Load, Sample, branch, ALU) or an "o" (Copy).
    let skip = ["a".into(), "o".into()];
    let error = filter(all(), None, &skip).err().unwrap();
    let expected = "--skip \"a\" with --skip \"o\"";
    assert!(error.to_string().contains(expected), "{error}");
}

#[test]
fn resources_imply_what_the_device_must_offer() {
    use crate::caps::{Feature, FormatUse, Limit};
    use ash::vk;
    let address = ResourceKind::BufferAddress { bytes: 4096, push_offset: 0 }.requirements();
    assert!(address.features.contains(&Feature::BufferDeviceAddress));
    assert!(address.limits.contains(&Limit::AllocationBytes(4096)));
    let format = vk::Format::R8G8B8A8_UNORM;
    let filtered =
        ResourceKind::SampledImage { format, size: [4, 4], filter: vk::Filter::LINEAR }.requirements();
    assert!(filtered.formats.contains(&(format, FormatUse::LinearFilter)));
    let texels = ResourceKind::UniformTexelBuffer { format, bytes: 4096 }.requirements();
    assert!(texels.limits.contains(&Limit::TexelBufferElements(1024)));
    assert!(ResourceKind::UniformBuffer { bytes: 16384 }
        .requirements()
        .limits
        .contains(&Limit::UniformBufferRange(16384)));
}

#[test]
fn a_case_needs_its_resources_push_block_and_workgroup_too() {
    use crate::caps::{FormatUse, Limit};
    let branch = all().into_iter().find(|c| c.name == "64X Divergent branch long").unwrap();
    let needs = branch.requirements();
    assert!(needs.limits.contains(&Limit::WorkgroupInvocations(1024)));
    assert!(needs.limits.contains(&Limit::PushConstantBytes(20)));
    assert!(needs.formats.contains(&(ash::vk::Format::R32G32B32A32_SFLOAT, FormatUse::SampledImage)));
    assert!(branch.requires.formats.is_empty(), "stated nowhere but implied by the textures");
}

#[test]
fn describe_says_what_each_selected_family_measures_and_how_to_read_flags() {
    for family in families() {
        let About { measures, invocation, rate } = family.about;
        assert!(!measures.is_empty() && !invocation.is_empty() && !rate.is_empty(), "{}", family.name);
    }
    let text = describe(&filter(all(), Some("Divergent branch long"), &[]).unwrap());
    assert!(text.starts_with("branch (33 cases selected)\n  measures:"), "{text}");
    assert!(!text.contains("load ("), "only the selected families: {text}");
    assert!(text.contains("--axis branch.n=VALUES") && text.contains("[noisy: cv above 3%]"), "{text}");
    assert!(text.contains("  peak:           none: no peak is known"), "{text}");
    assert!(text.contains("[implausible: ...]") && text.contains("[throttled: ...]"), "{text}");
    let alu = describe(&filter(all(), Some("ALU fp32"), &["mediump".into()]).unwrap());
    assert!(
        alu.contains("  peak:           % of the fp32 FMA peak, where the architecture is known"),
        "{alu}"
    );
    assert!(text.lines().all(|l| l.chars().count() <= 100), "wrapped at 100 columns:\n{text}");
}

#[test]
fn workgroups_narrow_to_what_a_device_allows_and_say_so() {
    // The Vulkan minimum: 128 invocations, at most 128 along x and y.
    let mut caps = crate::caps::DeviceCaps { subgroup_size: 32, ..Default::default() };
    caps.limits.workgroup_invocations = 128;
    caps.limits.workgroup_size = [128, 128, 64];
    let cases = expand(&[], Some(&caps));
    let full = all();
    assert_eq!(cases.len(), full.len(), "narrowing drops no case");
    let mut narrowed = 0;
    // Tensor-core tiles keep their workgroups (the shaders' matrices are shaped by them): a device
    // that allows fewer invocations skips them with the reason.
    for case in cases.iter().filter(|c| c.family != "coopmat" && c.family != "gemm") {
        let unmet = case.requirements().unmet(&caps);
        assert!(!unmet.iter().any(|u| u.contains("workgroup")), "{}: {unmet:?}", case.name);
        let was = full.iter().find(|c| c.name == case.name).expect("names do not depend on the workgroup");
        let (has, had) = (case.invocations_per_group(), was.invocations_per_group());
        if has < had {
            narrowed += 1;
            let note = format!("workgroups of {has} invocations, not {had}");
            assert!(case.notes.iter().any(|n| n.starts_with(&note)), "{}: {:?}", case.name, case.notes);
        } else {
            let workgroup_note = case.notes.iter().any(|n| n.starts_with("workgroups of"));
            assert!(!workgroup_note, "{}: {:?}", case.name, case.notes);
        }
    }
    assert!(narrowed > 1000, "{narrowed} narrowed");
    // Branch tiles keep their 32-wide rows (a subgroup of up to 32 is one row) and lose rows.
    let branch = cases.iter().find(|c| c.name == "64X Divergent branch long").unwrap();
    assert_eq!(branch.local_size, [32, 4, 1]);
    // A device that allows 256 along x but only 128 invocations in all.
    caps.limits.workgroup_size = [1024, 1024, 64];
    let load = expand(&[], Some(&caps)).into_iter().find(|c| c.name == "Buffer<R8>.Load linear").unwrap();
    assert_eq!(load.local_size, [128, 1, 1]);
}

#[test]
fn a_family_is_selected_by_its_name_not_by_substrings_of_case_names() {
    let by_name = filter(all(), Some("ALU"), &[]).unwrap();
    assert!(by_name.iter().any(|c| c.family == "atomic"), "\"value used\" contains \"alu\"");
    let alu = Selection { families: vec!["alu".into()], ..Default::default() };
    let cases = alu.apply(all()).unwrap();
    assert!(!cases.is_empty() && cases.iter().all(|c| c.family == "alu"));
    assert_eq!(cases.len(), all().iter().filter(|c| c.family == "alu").count());
    let two = Selection { families: vec!["alu".into(), "coopmat".into()], skip: vec!["fp64".into()], ..alu };
    let cases = two.apply(all()).unwrap();
    assert!(cases.iter().any(|c| c.family == "coopmat") && !cases.iter().any(|c| c.name.contains("fp64")));
    let none = Selection { filter: Some("Sweep".into()), ..two };
    let error = none.apply(all()).err().unwrap().to_string();
    assert!(error.contains("--family alu with --family coopmat with --filter \"Sweep\""), "{error}");
}

#[test]
fn every_expanded_case_is_described_usably() {
    // The default axes, and the widest ones the tests use.
    let wide = ["branch.n=0:64:8", "sweep.bytes=16K..1G*4", "conv.m=1,3,63", "atomic.addresses=1,32,1M"];
    let settings: Vec<AxisSetting> = wide.iter().map(|s| parse_setting(s).unwrap()).collect();
    for case in all().iter().chain(&expand(&settings, None)) {
        if let Err(problem) = case.validate() {
            panic!("{}: {problem}", case.name);
        }
        assert!(case.reference.is_some(), "{}: every case is checkable against a CPU reference", case.name);
    }
}

#[test]
fn a_case_described_wrongly_is_refused_with_the_problem() {
    let mut case = all().into_iter().find(|c| c.name == "Shared latency").unwrap();
    assert_eq!(case.validate(), Ok(()));
    case.resources[0].access = super::Access::ReadOnly;
    case.resources[0].reset = Some(super::Reset::Fill(0));
    assert_eq!(case.validate(), Err("resource 1 is read-only but has a reset".into()));
    let mut shared = all().into_iter().find(|c| c.name == "Shared latency").unwrap();
    shared.scale = super::Scale::PushWord(9);
    assert_eq!(shared.validate(), Err("its scale word 9 is outside its push block".into()));
    // A fill at the buffer's address belongs to a buffer reached by it, alone, and is never reset.
    let mut pointer = all().into_iter().find(|c| c.name == "Latency pointer 16 KiB").unwrap();
    assert_eq!(pointer.validate(), Ok(()));
    pointer.resources[0].access = super::Access::ReadWrite;
    pointer.resources[0].reset = Some(super::Reset::Initial);
    let alone = "resource 1: a buffer filled at its address has no other fill and no reset";
    assert_eq!(pointer.validate(), Err(alone.into()));
    let mut index = all().into_iter().find(|c| c.name == "Latency 16 KiB").unwrap();
    index.resources[0].fill_at = pointer.resources[0].fill_at.clone();
    assert_eq!(
        index.validate(),
        Err("resource 1: only a buffer reached by its address is filled at it".into())
    );
    // A rotating copy's buffers split into its parts.
    let mut copy = all().into_iter().find(|c| c.name == "Copy device to device 1 MiB").unwrap();
    assert_eq!(copy.validate(), Ok(()));
    copy.slots = 3;
    assert_eq!(copy.validate(), Err("its buffers do not split into 3 equal parts".into()));
    // Only a transfer runs on another queue.
    let shader_copy = all().into_iter().find(|c| c.name == "Copy device to device by shader 1 MiB").unwrap();
    assert_eq!(
        shader_copy.on_queue(crate::caps::QueueKind::TransferOnly).validate(),
        Err("only a transfer runs on a transfer-only queue: a shader runs on the run's own".into())
    );
}

#[test]
fn resources_that_name_the_same_contents_hold_the_same_bytes() {
    // A run uploads named contents once and binds them in every case of the same kind, size,
    // placement and name: each pair's fills must agree. Compared on the first MiB (a fill is a
    // function of the element's index, whatever the size), between every case of a name.
    let mut first: Vec<(String, Vec<u8>, String)> = Vec::new();
    let mut named = 0;
    for case in all() {
        for resource in case.resources.iter().filter(|r| r.contents.is_some()) {
            let (name, fill) = (resource.contents.clone().unwrap(), resource.fill.as_ref().unwrap());
            let key = format!("{name} {:?} {:?}", resource.kind, resource.placement);
            let mut bytes = vec![0u8; resource.kind.bytes().min(1 << 20) as usize & !15];
            fill(&mut bytes);
            named += 1;
            match first.iter().find(|(k, _, _)| *k == key) {
                Some((_, seen, by)) => assert!(*seen == bytes, "{} and {by}: {key} differ", case.name),
                None => first.push((key, bytes, case.name.clone())),
            }
        }
    }
    // conv, branch, sweep and GEMM name theirs: far more resources than names.
    assert!(named > 4 * first.len(), "{named} named resources, {} contents", first.len());
}

#[test]
fn every_fill_writes_every_byte() {
    // A staging buffer is not cleared before its fill (vk::buffer::Contents): a byte a fill skips
    // would hold what the memory held before. Each fill runs over 0x00 and over 0xFF and must
    // leave the same bytes, at the resource's size up to 192 KiB (a whole number of 12- and
    // 16-byte texels and 128-byte latency lines; a fill is a function of the element's index, and
    // each family's fills run at small sizes too), on the default data and on the data axis.
    const LIMIT: u64 = 3 << 16;
    let data = families()
        .into_iter()
        .filter_map(|f| parse_setting(&format!("{}.data=zeros,constant,random", f.name)).ok());
    let cases = all().into_iter().chain(data.flat_map(|setting| expand(&[setting], None)));
    let (mut checked, mut families_checked) = (0, std::collections::BTreeSet::new());
    for case in cases {
        for (n, resource) in case.resources.iter().enumerate() {
            let bytes = resource.kind.content_bytes();
            let over = |byte: u8| {
                let mut out = vec![byte; bytes.min(LIMIT) as usize];
                match (&resource.fill, &resource.fill_at) {
                    (Some(fill), _) => fill(&mut out),
                    (None, Some(fill_at)) => fill_at(&mut out, 0x7f00_0000_0000),
                    (None, None) => return None,
                }
                Some(out)
            };
            let Some(zeros) = over(0) else { continue };
            let first = zeros.iter().zip(over(0xFF).unwrap()).position(|(a, b)| *a != b);
            assert_eq!(
                first,
                None,
                "{}: resource {} leaves byte {first:?} of {bytes} as it was",
                case.name,
                n + 1
            );
            checked += 1;
            families_checked.insert(case.family);
        }
    }
    assert!(checked > 1000, "{checked} fills");
    let filled: std::collections::BTreeSet<&str> = all()
        .iter()
        .filter(|c| c.resources.iter().any(|r| r.fill.is_some() || r.fill_at.is_some()))
        .map(|c| c.family)
        .collect();
    assert_eq!(families_checked, filled, "every family with a fill had one checked");
}

#[test]
fn only_a_read_only_filled_resource_names_its_contents() {
    let mut conv = all().into_iter().find(|c| c.name == "Conv1D<float> M=3 plain 256 MiB").unwrap();
    assert_eq!(conv.validate(), Ok(()));
    conv.resources[2] = conv.resources[2].clone().contents("the output");
    let refused = "resource 3 names its contents, which only a read-only buffer or sampled image that the \
                   case does not check may do";
    assert_eq!(conv.validate(), Err(refused.into()));
    let mut unfilled = all().into_iter().find(|c| c.name == "Conv1D<float> M=3 plain 256 MiB").unwrap();
    unfilled.resources[0].fill = None;
    assert!(unfilled.validate().unwrap_err().starts_with("resource 1 names its contents but has no fill"));
}

#[test]
fn a_string_axis_selects_by_what_a_case_varies_in() {
    let random = parse_setting("load.pattern=Random").unwrap();
    assert_eq!((random.labels.as_slice(), random.values.len()), (["random".to_owned()].as_slice(), 0));
    let cases = expand(&[random], None);
    let load: Vec<&CaseSpec> = cases.iter().filter(|c| c.family == "load").collect();
    assert!(
        !load.is_empty() && load.iter().all(|c| c.name.ends_with(" random")),
        "{:?}",
        &names(&cases)[..3]
    );
    assert_eq!(load.len(), all().iter().filter(|c| c.family == "load").count() / 3);
    let others = |cases: &[CaseSpec]| cases.iter().filter(|c| c.family != "load").count();
    assert_eq!(others(&cases), others(&all()), "other families keep their cases");
    // Two axes of one family narrow together.
    let half_texel = [parse_setting("conv.type=half").unwrap(), parse_setting("conv.path=texel").unwrap()];
    let conv: Vec<CaseSpec> = expand(&half_texel, None).into_iter().filter(|c| c.family == "conv").collect();
    assert!(
        !conv.is_empty()
            && conv.iter().all(|c| c.name.starts_with("Conv1D<half>") && c.name.contains(" texel "))
    );
    let error = parse_setting("load.pattern=diagonal").unwrap_err();
    assert!(error.contains("it takes uniform, linear, random"), "{error}");
    assert!(describe(&all()).contains("pattern: uniform, linear, random (--axis load.pattern=VALUE,...)"));
    // Every family first, in one index, with its cases; a single family has none.
    let text = describe(&all());
    let families = families().iter().filter(|f| all().iter().any(|c| c.family == f.name)).count();
    assert!(text.starts_with(&format!("{families} families, {} cases (", all().len())), "{}", &text[..200]);
    assert!(text.contains("  load 57, texture "), "{}", &text[..300]);
    assert!(describe(&filter(all(), Some("ALU fp32"), &[]).unwrap()).starts_with("alu ("));
}

#[test]
fn every_family_has_headline_cases_that_exist_with_their_baselines() {
    let cases = expand(&[], None);
    for family in families() {
        assert!(!family.quick.is_empty(), "{} has no --quick cases", family.name);
        for name in family.quick {
            let case = cases.iter().find(|c| c.family == family.name && c.name == *name);
            let case = case.unwrap_or_else(|| panic!("{}: no case named {name:?}", family.name));
            if let Some(baseline) = &case.baseline {
                assert!(
                    family.quick.contains(&baseline.as_str())
                        || families().iter().any(|f| f.quick.contains(&baseline.as_str())),
                    "{name:?}'s baseline {baseline:?} is not among the --quick cases"
                );
            }
        }
    }
    let quick = Selection { quick: true, ..Default::default() }.apply(cases).unwrap();
    assert_eq!(quick.len(), families().iter().map(|f| f.quick.len()).sum::<usize>());
    let alu = Selection { quick: true, families: vec!["alu".into()], ..Default::default() };
    assert!(alu.apply(expand(&[], None)).unwrap().iter().all(|c| c.family == "alu"));
}
