//! One random cycle through `n` items whose every link is computed on its own: item `i`'s next
//! is `order(rank(i) + 1)`, where `order` is a keyed pseudo-random permutation of `0..n` (a Feistel
//! network over the smallest even power of two that holds `n`, walked until it lands below `n`)
//! and `rank` its inverse. So a 2 GiB chain of 16.7 million lines fills on all cores, line by
//! line, where a shuffle (Sattolo's) is one core's random swaps through the whole array.

/// Feistel rounds: four make a keyed permutation indistinguishable from a random one (Luby and
/// Rackoff); six leave a margin for a weak round function.
const ROUNDS: usize = 6;

/// A cycle through `0..n`.
#[derive(Clone, Copy, Debug)]
pub(super) struct Cycle {
    n: u32,
    /// Bits in each half of the Feistel network's domain.
    half: u32,
    keys: [u64; ROUNDS],
}

/// splitmix64's finaliser: every input bit moves every output bit.
fn mix(mut z: u64) -> u64 {
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

impl Cycle {
    /// The cycle through `n` items (at least one) with a fixed key, the same every run.
    pub(super) fn new(n: u32) -> Self {
        let bits = u32::BITS - n.max(2).saturating_sub(1).leading_zeros();
        let keys = std::array::from_fn(|r| mix(0x9E37_79B9_7F4A_7C15u64.wrapping_mul(r as u64 + 1)));
        Cycle { n: n.max(1), half: bits.div_ceil(2), keys }
    }

    fn round(&self, r: usize, x: u64) -> u64 {
        mix(x ^ self.keys[r]) & ((1 << self.half) - 1)
    }

    /// One pass of the network over the domain `0..4^half`.
    fn forward(&self, x: u64) -> u64 {
        let mask = (1 << self.half) - 1;
        let (mut left, mut right) = (x >> self.half, x & mask);
        for r in 0..ROUNDS {
            (left, right) = (right, left ^ self.round(r, right));
        }
        (left << self.half) | right
    }

    /// The pass undone.
    fn backward(&self, y: u64) -> u64 {
        let mask = (1 << self.half) - 1;
        let (mut left, mut right) = (y >> self.half, y & mask);
        for r in (0..ROUNDS).rev() {
            (left, right) = (right ^ self.round(r, left), left);
        }
        (left << self.half) | right
    }

    /// The item at position `k` of the cycle (`k < n`): the network walked until it lands in
    /// `0..n` (at most four passes on average, as the domain is under 4n).
    fn order(&self, k: u32) -> u32 {
        let mut x = self.forward(u64::from(k));
        while x >= u64::from(self.n) {
            x = self.forward(x);
        }
        x as u32
    }

    /// The position of item `i` (`i < n`): [`Cycle::order`] undone.
    fn rank(&self, i: u32) -> u32 {
        let mut x = self.backward(u64::from(i));
        while x >= u64::from(self.n) {
            x = self.backward(x);
        }
        x as u32
    }

    /// The item after item `i` (`i < n`).
    pub(super) fn next(&self, i: u32) -> u32 {
        let k = self.rank(i) + 1;
        self.order(if k == self.n { 0 } else { k })
    }

    /// Every item's next, in item order.
    pub(super) fn links(&self) -> Vec<u32> {
        (0..self.n).map(|i| self.next(i)).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_network_is_undone_exactly_over_its_whole_domain() {
        for n in [2u32, 7, 64, 1000] {
            let cycle = Cycle::new(n);
            let domain = 1u64 << (2 * cycle.half);
            assert!(domain >= u64::from(n) && domain < 4 * u64::from(n.max(2)), "{n}: domain {domain}");
            assert!((0..domain).all(|x| cycle.backward(cycle.forward(x)) == x), "{n}");
        }
    }

    #[test]
    fn each_size_is_one_cycle_through_every_item() {
        for n in [1u32, 2, 3, 5, 128, 1000, 4099] {
            let next = Cycle::new(n).links();
            let mut seen = vec![false; n as usize];
            let mut at = 0u32;
            for _ in 0..n {
                assert!(!seen[at as usize], "{n}: item {at} visited twice");
                seen[at as usize] = true;
                at = next[at as usize];
            }
            assert_eq!(at, 0, "{n}: back at the start after every item");
            assert!(seen.iter().all(|&s| s));
        }
    }

    #[test]
    fn the_steps_look_random_not_strided() {
        // Consecutive items of a 1 MiB set of lines land far apart: few steps go to a neighbour,
        // and the step sizes spread over the whole set.
        let n = 8192u32;
        let next = Cycle::new(n).links();
        let near = next.iter().enumerate().filter(|&(i, &j)| (i as i64 - j as i64).abs() <= 2).count();
        assert!(near < 20, "{near} of {n} steps go to a neighbour (a random cycle: about 4)");
        let distinct: std::collections::HashSet<i64> =
            next.iter().enumerate().map(|(i, &j)| j as i64 - i as i64).collect();
        assert!(distinct.len() > n as usize / 2, "only {} step sizes", distinct.len());
    }
}
