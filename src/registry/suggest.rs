//! "Did you mean": the known name nearest a mistyped one, where one is near enough to be the
//! likely intent (case ignored).

/// How alike two names must be (normalized Damerau-Levenshtein, 1 = the same) to be suggested.
const ALIKE: f64 = 0.6;

/// The name of `known` nearest `word`, if one is near enough.
pub fn nearest<'a>(word: &str, known: impl IntoIterator<Item = &'a str>) -> Option<&'a str> {
    let word = word.to_lowercase();
    known
        .into_iter()
        .map(|name| (name, strsim::normalized_damerau_levenshtein(&word, &name.to_lowercase())))
        .filter(|&(_, alike)| alike >= ALIKE)
        .max_by(|a, b| a.1.total_cmp(&b.1))
        .map(|(name, _)| name)
}

/// ` (did you mean `x`?)`, or nothing where no known name is near.
pub fn did_you_mean<'a>(word: &str, known: impl IntoIterator<Item = &'a str>) -> String {
    nearest(word, known).map_or(String::new(), |name| format!(" (did you mean `{name}`?)"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_near_name_is_suggested_and_a_far_one_is_not() {
        let families = ["load", "texture", "latency", "sweep", "instr"];
        assert_eq!(nearest("lod", families), Some("load"));
        assert_eq!(nearest("textures", families), Some("texture"));
        assert_eq!(nearest("INSTR", families), Some("instr"));
        assert_eq!(nearest("gemm", families), None);
        assert_eq!(did_you_mean("sweeep", families), " (did you mean `sweep`?)");
        assert_eq!(did_you_mean("zzz", families), "");
    }
}
