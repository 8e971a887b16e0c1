//! Compiler evidence for twins: two cases whose sources differ in their access qualifiers, compared by the driver's statistics.

/// The `name = value` fields of statistics lines (`CS: Register Count = 38, Binary Size = 27776`),
/// each name prefixed with its executable if `prefixed` (where either side has several).
fn fields(lines: &[String], prefixed: bool) -> Vec<(String, String)> {
    let mut fields = Vec::new();
    for line in lines {
        let (executable, list) = line.split_once(": ").unwrap_or(("", line));
        for field in list.split(", ") {
            let (name, value) = field.split_once(" = ").unwrap_or((field, ""));
            let name = if prefixed { format!("{executable} {name}") } else { name.to_owned() };
            fields.push((name, value.to_owned()));
        }
    }
    fields
}

/// The fields whose values differ, or that only one side has (`none` on the other).
fn differences(ours: &[(String, String)], theirs: &[(String, String)]) -> Vec<String> {
    let value = |fields: &[(String, String)], name: &str| {
        fields.iter().find(|(n, _)| n == name).map_or("none".to_owned(), |(_, v)| v.clone())
    };
    let mut names: Vec<&String> = ours.iter().map(|(n, _)| n).collect();
    names.extend(theirs.iter().map(|(n, _)| n).filter(|n| !ours.iter().any(|(o, _)| o == *n)));
    names
        .into_iter()
        .filter_map(|name| {
            let (own, twin) = (value(ours, name), value(theirs, name));
            (own != twin).then(|| format!("{name} {own} (twin {twin})"))
        })
        .collect()
}

/// What a case's shader (`own`) compiled to beside its twin's (named `twin`): the fields that
/// differ, or that the statistics are the same. `None` where either has no statistics.
pub fn compiled(twin: &str, twin_stats: &[String], own: &[String]) -> Option<String> {
    if twin_stats.is_empty() || own.is_empty() {
        return None;
    }
    let prefixed = twin_stats.len() > 1 || own.len() > 1;
    let (theirs, ours) = (fields(twin_stats, prefixed), fields(own, prefixed));
    let differ = differences(&ours, &theirs);
    if differ.is_empty() {
        let shown: Vec<String> = ours.iter().take(2).map(|(n, v)| format!("{n} = {v}")).collect();
        Some(format!(
            "the same driver statistics as its twin \"{twin}\" ({}): the qualifiers changed nothing the driver reports",
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
             Binary Size = 1152): the qualifiers changed nothing the driver reports"
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
    fn a_field_only_one_side_has_is_a_difference() {
        let twin = vec!["CS: Register Count = 8, Spill Count = 2".to_owned()];
        let own = vec!["CS: Register Count = 8".to_owned()];
        assert_eq!(compiled("t", &twin, &own).unwrap(), "beside its twin \"t\": Spill Count none (twin 2)");
        let two = vec!["CS: Register Count = 8".to_owned(), "FS: Register Count = 4".to_owned()];
        let said = compiled("t", &two, &own).unwrap();
        assert_eq!(said, "beside its twin \"t\": FS Register Count none (twin 4)", "executables kept apart");
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
