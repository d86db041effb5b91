//! The bound on a signature's length, checked wherever one is asked for (detectors, hashers,
//! the banding tuner).

use crate::error::{Error, Result};

/// The most permutations a signature may have: room for every published design (datasketch's
/// default 128, text-dedup's 256, Lee et al. 2022's 9,000 = 450 bands × 20 rows), while an
/// absurd value (10^8) is refused at once instead of hanging the banding tuner, whose scan is
/// O(num_perm) integrals.
pub const MAX_NUM_PERM: usize = 16384;

/// Checks `num_perm` of `algorithm`: between 1 and [`MAX_NUM_PERM`].
pub fn check_num_perm(algorithm: &str, num_perm: usize) -> Result<()> {
    if num_perm == 0 {
        return Err(Error::invalid(algorithm, "num_perm", "must be at least 1"));
    }
    if num_perm > MAX_NUM_PERM {
        return Err(Error::invalid(
            algorithm,
            "num_perm",
            format!("{num_perm} is more than the {MAX_NUM_PERM} a signature may have"),
        ));
    }
    Ok(())
}
