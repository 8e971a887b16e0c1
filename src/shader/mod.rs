//! GLSL to Vulkan SPIR-V with shaderc: embedded includes, permutations by defines; a SPIR-V reader.

#[cfg(test)]
pub mod capabilities;
pub mod kept;
pub mod spirv;

use kept::Kept;

use crate::error::{Error, Result};
use crate::registry::CaseSpec;

/// The files a snippet may `#include`, embedded in the binary.
const INCLUDES: &[(&str, &str)] = &[
    ("common.glsl", include_str!("../../glsl/common.glsl")),
    ("broadcast.glsl", include_str!("../../glsl/broadcast.glsl")),
    ("fault_log.glsl", include_str!("../../glsl/fault_log.glsl")),
    ("mix.glsl", include_str!("../../glsl/mix.glsl")),
];

/// What compiles the shaders, for the run header: the shaderc crates (shaderc-sys vendors glslang
/// and SPIRV-Tools; 0.10.1 carries glslang 15.3.0) and the SPIR-V version shaderc supports.
pub fn compiler_version() -> String {
    // The first value is SPIR-V's version word: 0x00MMmm00.
    let (word, _revision) = shaderc::get_spirv_version();
    let (major, minor) = ((word >> 16) & 0xFF, (word >> 8) & 0xFF);
    format!(
        "shaderc {} (shaderc-sys {}: glslang and SPIRV-Tools vendored), SPIR-V {major}.{minor} supported, \
         SPIR-V 1.5 for Vulkan 1.2 targeted (1.6 for Vulkan 1.3 where a case needs it)",
        env!("PERFTEST_SHADERC_VERSION"),
        env!("PERFTEST_SHADERC_SYS_VERSION")
    )
}

/// One compile: the case it is for (named in messages), the file's name and text, the defines, and
/// whether it targets Vulkan 1.3 (SPIR-V 1.6) rather than 1.2 (SPIR-V 1.5).
#[derive(Clone, Copy)]
struct Unit<'a> {
    case_name: &'a str,
    file: &'a str,
    source: &'a str,
    defines: &'a [(&'a str, &'a str)],
    vulkan_1_3: bool,
}

/// A shaderc compiler; each pipeline-building thread has its own.
pub struct ShaderCompiler {
    raw: shaderc::Compiler,
    /// Where its SPIR-V is kept between runs, if anywhere.
    kept: Option<Kept>,
}

/// The hash of what every compile reads besides its own file and defines: the compiler's version
/// and the embedded includes ([`kept`]'s generation).
fn generation() -> u64 {
    let version = compiler_version();
    let includes = INCLUDES.iter().flat_map(|(name, text)| [name.as_bytes(), text.as_bytes()]);
    kept::hash(std::iter::once(version.as_bytes()).chain(includes))
}

impl ShaderCompiler {
    /// Creates the compiler; the error says why shaderc could not start (the caller knows the case).
    pub fn new() -> Result<Self, String> {
        let raw = shaderc::Compiler::new().map_err(|e| format!("shaderc could not be initialised: {e}"))?;
        Ok(Self { raw, kept: None })
    }

    /// As [`Self::new`], keeping its SPIR-V between runs where the environment names a home for
    /// caches ([`kept`]).
    pub fn keeping() -> Result<Self, String> {
        Ok(Self { kept: Kept::here(generation()), ..Self::new()? })
    }

    /// As [`Self::new`], keeping its SPIR-V in `kept`.
    pub fn keeping_in(kept: Kept) -> Result<Self, String> {
        Ok(Self { kept: Some(kept), ..Self::new()? })
    }

    /// Compiles the permutation of its family's snippet that `case` selects.
    pub fn compile(&self, case: &CaseSpec) -> Result<Vec<u32>> {
        let [x, y, z] = case.local_size.map(|n| format!("{n}"));
        let mut defines = vec![("LOCAL_SIZE_X", x.as_str()), ("LOCAL_SIZE_Y", &y), ("LOCAL_SIZE_Z", &z)];
        defines.extend(case.defines.iter().map(|(k, v)| (k.as_str(), v.as_str())));
        let vulkan_1_3 = case.requirements().vulkan_1_3;
        self.compile_for(&Unit {
            case_name: &case.name,
            file: case.glsl.file,
            source: case.glsl.source,
            defines: &defines,
            vulkan_1_3,
        })
    }

    /// Compiles `source` (named `file` in messages) with `defines`, for the case `case_name`, to
    /// SPIR-V 1.5 for Vulkan 1.2.
    pub fn compile_source(
        &self,
        case_name: &str,
        file: &str,
        source: &str,
        defines: &[(&str, &str)],
    ) -> Result<Vec<u32>> {
        self.compile_for(&Unit { case_name, file, source, defines, vulkan_1_3: false })
    }

    /// `unit`'s SPIR-V: kept by an earlier run, else compiled (and kept, where this compiler keeps).
    fn compile_for(&self, unit: &Unit<'_>) -> Result<Vec<u32>> {
        let Unit { file, source, defines, vulkan_1_3, .. } = *unit;
        let target: &[u8] = if vulkan_1_3 { b"vulkan1.3" } else { b"vulkan1.2" };
        let defined = defines.iter().flat_map(|(name, value)| [name.as_bytes(), value.as_bytes()]);
        let parts = [file.as_bytes(), source.as_bytes(), target].into_iter().chain(defined);
        let key = self.kept.as_ref().map(|kept| (kept, kept.key(parts)));
        if let Some(words) = key.and_then(|(kept, key)| kept.read(key)) {
            return Ok(words);
        }
        let words = self.compiled(unit)?;
        if let Some((kept, key)) = key {
            // A folder that cannot be written costs the next run this compile, nothing more.
            let _ = kept.write(key, &words);
        }
        Ok(words)
    }

    /// What shaderc makes of `unit`.
    fn compiled(&self, unit: &Unit<'_>) -> Result<Vec<u32>> {
        let Unit { case_name, file, source, defines, vulkan_1_3 } = *unit;
        let fail = |log: String| Error::Compile { case: case_name.into(), file: file.into(), log };
        let mut options = shaderc::CompileOptions::new().map_err(|e| fail(e.to_string()))?;
        let (env, spirv) = if vulkan_1_3 {
            (shaderc::EnvVersion::Vulkan1_3, shaderc::SpirvVersion::V1_6)
        } else {
            (shaderc::EnvVersion::Vulkan1_2, shaderc::SpirvVersion::V1_5)
        };
        options.set_target_env(shaderc::TargetEnv::Vulkan, env as u32);
        options.set_target_spirv(spirv);
        options.set_optimization_level(shaderc::OptimizationLevel::Performance);
        for (name, value) in defines {
            options.add_macro_definition(name, Some(value));
        }
        options.set_include_callback(|requested, _kind, _from, _depth| {
            INCLUDES
                .iter()
                .find(|(name, _)| *name == requested)
                .map(|(name, text)| shaderc::ResolvedInclude {
                    resolved_name: (*name).to_owned(),
                    content: (*text).to_owned(),
                })
                .ok_or_else(|| format!("no embedded glsl/{requested} (see INCLUDES in src/shader/mod.rs)"))
        });
        let artifact = self
            .raw
            .compile_into_spirv(source, shaderc::ShaderKind::Compute, file, "main", Some(&options))
            .map_err(|e| match e {
                shaderc::Error::CompilationError(_, log) => fail(log),
                other => fail(format!(
                    "shaderc failed ({other}); out of memory is the usual cause: check `ulimit -v` and free memory"
                )),
            })?;
        Ok(artifact.as_binary().to_vec())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::registry;

    #[test]
    fn every_registered_permutation_compiles_with_the_push_block_its_case_fills() {
        use rayon::prelude::*;
        // One case per distinct shader: the branch cases differ only in push constants. Compiled on
        // every core (shaderc's compiler may be shared between threads): the ALU family's unrolled
        // bodies take seconds each.
        let compiler = ShaderCompiler::new().unwrap();
        let mut seen = std::collections::HashSet::new();
        let cases: Vec<_> = registry::all()
            .into_iter()
            .filter(|c| !c.transfer && seen.insert((c.glsl.file, c.defines.clone())))
            .collect();
        cases.par_iter().for_each(|case| {
            let spirv = compiler.compile(case).unwrap_or_else(|e| panic!("{e}"));
            assert_eq!(spirv[0], spirv::MAGIC, "{}: not SPIR-V", case.name);
            // Every capability the shader declares is something the case asks the device for.
            let uncovered = capabilities::uncovered(&spirv, &case.requirements());
            assert!(uncovered.is_empty(), "{}: {uncovered:?}", case.name);
            // The GLSL block (common.glsl's header + FAMILY_PARAMS) and the Rust bytes agree.
            let glsl_bytes = spirv::push_constant_bytes(&spirv).unwrap_or(0) as usize;
            assert_eq!(glsl_bytes, case.push.size(), "{}: push-constant block size", case.name);
        });
    }

    #[test]
    fn the_common_header_is_sixteen_bytes() {
        let compiler = ShaderCompiler::new().unwrap();
        let source =
            "#version 460\n#include \"common.glsl\"\nvoid main() { write_result(0u, params.reserved); }\n";
        let defines = [("LOCAL_SIZE_X", "1"), ("LOCAL_SIZE_Y", "1"), ("LOCAL_SIZE_Z", "1")];
        let spirv = compiler.compile_source("header", "header.glsl", source, &defines).unwrap();
        assert_eq!(spirv::push_constant_bytes(&spirv), Some(registry::HEADER_BYTES as u32));
    }

    #[test]
    fn a_compile_error_names_the_case_and_carries_the_log() {
        let compiler = ShaderCompiler::new().unwrap();
        let source = "#version 460\n#include \"common.glsl\"\nvoid main() { undefined_thing(); }\n";
        let defines = [("LOCAL_SIZE_X", "1"), ("LOCAL_SIZE_Y", "1"), ("LOCAL_SIZE_Z", "1")];
        let error = compiler.compile_source("Broken case", "broken.glsl", source, &defines).unwrap_err();
        assert_eq!(error.exit_code(), crate::ExitCode::Compile);
        let text = error.to_string();
        assert!(text.contains("\"Broken case\""), "{text}");
        assert!(text.contains("broken.glsl:3"), "log should point at the line: {text}");
        assert!(text.contains("undefined_thing"), "{text}");
    }

    #[test]
    fn a_keeping_compiler_reads_what_it_kept_and_compiles_what_it_did_not() {
        let dir = tempfile::tempdir().unwrap();
        let kept = Kept::under(dir.path(), generation());
        let compiler = ShaderCompiler::keeping_in(kept.clone()).unwrap();
        let source = "#version 460\n#include \"common.glsl\"\nvoid main() { write_result(0u, WHAT); }\n";
        let defines =
            |what| [("LOCAL_SIZE_X", "1"), ("LOCAL_SIZE_Y", "1"), ("LOCAL_SIZE_Z", "1"), ("WHAT", what)];
        let compile = |what| compiler.compile_source("Case", "x.glsl", source, &defines(what)).unwrap();
        let one = compile("1u");
        assert_eq!(
            one,
            ShaderCompiler::new().unwrap().compile_source("Case", "x.glsl", source, &defines("1u")).unwrap()
        );
        let files = || -> Vec<std::path::PathBuf> {
            let folder = dir.path().join(format!("spirv-{:016x}", generation()));
            let mut files: Vec<_> = std::fs::read_dir(folder).unwrap().map(|e| e.unwrap().path()).collect();
            files.sort();
            files
        };
        let [file] = &files()[..] else { panic!("one file per compile: {:?}", files()) };
        // What is kept under that compile's key is what it gives, not shaderc: keep another
        // shader's words there and the compile returns them.
        let key = u64::from_str_radix(file.file_stem().unwrap().to_str().unwrap(), 16).unwrap();
        let two = compile("2u");
        assert_ne!(one, two);
        kept.write(key, &two).unwrap();
        assert_eq!(compile("1u"), two);
        // Another define is another file; an error is kept nowhere.
        assert_eq!(files().len(), 2);
        assert!(compiler.compile_source("Case", "x.glsl", source, &defines("nothing_such")).is_err());
        assert_eq!(files().len(), 2);
    }

    #[test]
    fn an_unknown_include_is_a_compile_error() {
        let compiler = ShaderCompiler::new().unwrap();
        let source = "#version 460\n#include \"missing.glsl\"\nvoid main() {}\n";
        let error = compiler.compile_source("Case", "x.glsl", source, &[]).unwrap_err();
        assert!(error.to_string().contains("no embedded glsl/missing.glsl"), "{error}");
    }
}
