//! The group numbers the grouped pass keeps per lane, in the narrowest type that counts a
//! block's groups.

/// A group number kept per lane.
pub(super) trait Counter: Copy + Default {
    /// The number of groups it can count.
    const GROUPS: usize;
    /// Group `g` (less than `GROUPS`).
    fn of(g: usize) -> Self;
    /// The group number.
    fn get(self) -> usize;
    /// `yes` if `t`, else `no`, by a mask (`and`, `and-not`, `or`): a select the vectorizer
    /// keeps in vectors, where `if` became a branch or a load from a chosen address.
    fn pick(t: bool, yes: Self, no: Self) -> Self;
}

macro_rules! counter {
    ($($t:ty),*) => {$(
        impl Counter for $t {
            const GROUPS: usize = <$t>::MAX as usize + 1;
            #[inline(always)]
            fn of(g: usize) -> Self {
                g as $t
            }
            #[inline(always)]
            fn get(self) -> usize {
                self as usize
            }
            #[inline(always)]
            fn pick(t: bool, yes: Self, no: Self) -> Self {
                let m = <$t>::from(t).wrapping_neg();
                (yes & m) | (no & !m)
            }
        }
    )*};
}
counter!(u8, u16, u32);
