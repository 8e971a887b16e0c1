//! Where in a run's order each shared thing is used last: what kept contents ([`super::kept`])
//! and held copy buffers ([`super::copy::Shelf`]) are let go by once no later case uses them.

/// Each key, and the last position in the run's order whose case uses it.
#[derive(Debug)]
pub(super) struct LastUse<K> {
    last: Vec<(K, usize)>,
}

impl<K: PartialEq> LastUse<K> {
    /// The last use of each key that `keys` gives for the case at each position of `order`.
    pub(super) fn new<I: IntoIterator<Item = K>>(order: &[usize], keys: impl Fn(usize) -> I) -> Self {
        let mut last: Vec<(K, usize)> = Vec::new();
        for (position, &index) in order.iter().enumerate() {
            for key in keys(index) {
                match last.iter_mut().find(|(k, _)| *k == key) {
                    Some((_, at)) => *at = position,
                    None => last.push((key, position)),
                }
            }
        }
        LastUse { last }
    }

    /// Nothing used anywhere.
    pub(super) fn none() -> Self {
        LastUse { last: Vec::new() }
    }

    /// Whether a case after `position` uses `key`.
    pub(super) fn later(&self, key: &K, position: usize) -> bool {
        self.last.iter().any(|(k, at)| k == key && *at > position)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_key_is_used_later_until_its_last_case_in_the_run_s_order() {
        // Cases 0..3 use keys "a b", "b", "a"; run in the order 2, 0, 1.
        let uses = [vec!["a", "b"], vec!["b"], vec!["a"]];
        let last = LastUse::new(&[2, 0, 1], |i| uses[i].clone());
        assert!(last.later(&"a", 0) && !last.later(&"a", 1));
        assert!(last.later(&"b", 1) && !last.later(&"b", 2));
        assert!(!last.later(&"c", 0) && !LastUse::<&str>::none().later(&"a", 0));
    }
}
