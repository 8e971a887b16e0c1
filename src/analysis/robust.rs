//! The robust spread that `fleet` and the per-unit rates share: the median absolute deviation
//! (MAD), scaled to estimate a standard deviation, and how many of those make an outlier.

/// How many scaled MADs from the median a rate must sit to be outside the fleet's spread (the
/// modified z-score's usual cut, Iglewicz and Hoaglin).
pub const SPREAD_K: f64 = 3.5;
/// The MAD of a normal distribution is this fraction of its standard deviation's inverse.
pub const MAD_SCALE: f64 = 1.4826;
