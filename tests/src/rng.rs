//! A tiny deterministic generator for test values (the same sequence on every machine).

/// A linear congruential generator; `next` gives 31 well-mixed bits.
pub struct Lcg(pub u64);

impl Lcg {
    /// The next value, in `0..2^31`.
    #[allow(clippy::should_implement_trait)]
    pub fn next(&mut self) -> u64 {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        self.0 >> 33
    }
}
