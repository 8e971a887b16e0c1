//! Compiler evidence for twins: two cases whose sources differ by one qualifier, compared by the driver's statistics.

/// The `name = value` fields of statistics lines (`CS: Register Count = 38, Binary Size = 27776`),
/// each name prefixed with its executable where there are several.
fn fields(lines: &[String]) -> Vec<(String, String)> {
    let mut fields = Vec::new();
    for line in lines {
        let (executable, list) = line.split_once(": ").unwrap_or(("", line));
        for field in list.split(", ") {
            let (name, value) = field.split_once(" = ").unwrap_or((field, ""));
            let name = if lines.len() > 1 { format!("{executable} {name}") } else { name.to_owned() };
            fields.push((name, value.to_owned()));
        }
    }
    fields
}

/// What a case's shader (`own`) compiled to beside its twin's (named `twin`): the fields that
/// differ, or that the statistics are the same. `None` where either has no statistics.
pub fn compiled(twin: &str, twin_stats: &[String], own: &[String]) -> Option<String> {
    if twin_stats.is_empty() || own.is_empty() {
        return None;
    }
    let (theirs, ours) = (fields(twin_stats), fields(own));
    let differ: Vec<String> = ours
        .iter()
        .filter_map(|(name, value)| {
            let other = theirs.iter().find(|(n, _)| n == name).map_or("none", |(_, v)| v.as_str());
            (other != value).then(|| format!("{name} {value} (twin {other})"))
        })
        .collect();
    if differ.is_empty() && theirs.len() == ours.len() {
        let shown: Vec<String> = ours.iter().take(2).map(|(n, v)| format!("{n} = {v}")).collect();
        Some(format!(
            "the same driver statistics as its twin \"{twin}\" ({}): the qualifier changed nothing the driver reports",
            shown.join(", ")
        ))
    } else {
        Some(format!("beside its twin \"{twin}\": {}", differ.join(", ")))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn stats(registers: u32, binary: u32) -> Vec<String> {
        vec![format!("CS: Register Count = {registers}, Binary Size = {binary}, Stack Size = 0")]
    }

    #[test]
    fn equal_statistics_say_so() {
        let said = compiled("Conv1D<float> M=3 plain 1 MiB", &stats(16, 1152), &stats(16, 1152)).unwrap();
        assert_eq!(
            said,
            "the same driver statistics as its twin \"Conv1D<float> M=3 plain 1 MiB\" (Register Count = 16, \
             Binary Size = 1152): the qualifier changed nothing the driver reports"
        );
    }

    #[test]
    fn differences_name_each_field_with_both_values() {
        let said =
            compiled("StructuredBuffer<float>.Load linear", &stats(29, 4864), &stats(16, 4864)).unwrap();
        assert_eq!(
            said,
            "beside its twin \"StructuredBuffer<float>.Load linear\": Register Count 16 (twin 29)"
        );
        let two = compiled("t", &stats(29, 4864), &stats(16, 1152)).unwrap();
        assert!(two.ends_with("Register Count 16 (twin 29), Binary Size 1152 (twin 4864)"), "{two}");
    }

    #[test]
    fn nothing_is_said_without_statistics_on_both_sides() {
        assert_eq!(compiled("t", &[], &stats(16, 1152)), None);
        assert_eq!(compiled("t", &stats(16, 1152), &[]), None);
    }

    #[test]
    fn several_executables_keep_their_fields_apart() {
        let twin = vec!["A: Register Count = 8".to_owned(), "B: Register Count = 9".to_owned()];
        let own = vec!["A: Register Count = 8".to_owned(), "B: Register Count = 10".to_owned()];
        assert_eq!(
            compiled("t", &twin, &own).unwrap(),
            "beside its twin \"t\": B Register Count 10 (twin 9)"
        );
    }
}
