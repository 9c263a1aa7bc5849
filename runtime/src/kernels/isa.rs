//! The widest x86-64 vector instruction set this CPU runs, found once at run time and kept for
//! the kernels that have a build for each: the node shims' twins (`node/wide.rs`) and the
//! grouped strided pass of 1- and 2-byte keys ([`super::arg_groups_avx2`]).
//!
//! [`cap`] keeps a process at a narrower set, so that tests and benchmarks run every build on
//! one machine (the benchmark matrix's `--twins`).

use core::sync::atomic::{AtomicU8, Ordering::Relaxed};

/// Baseline x86-64 (SSE2): the code as built.
pub(crate) const BASE: u8 = 0;
/// AVX2 (32-byte vectors) with its registers saved by the operating system.
pub(crate) const AVX2: u8 = 1;
/// AVX2 and AVX-512 F, BW, VL and DQ (mask registers, 32 vector registers, 64-bit integer
/// max/min), with their registers saved by the operating system.
pub(crate) const AVX512: u8 = 2;

cpufeatures::new!(cpu_avx2, "avx2");
cpufeatures::new!(cpu_avx512, "avx2", "avx512f", "avx512bw", "avx512vl", "avx512dq");
cpufeatures::new!(cpu_vbmi, "avx512vbmi");
cpufeatures::new!(cpu_vbmi2, "avx512vbmi2");

/// Whether the CPU runs AVX-512 VBMI (byte permutes across a vector) besides [`level`]'s
/// [`AVX512`] (false under a narrower cap).
#[inline(always)]
pub(crate) fn vbmi() -> bool {
    level() >= AVX512 && cpu_vbmi::get()
}

/// Whether the CPU runs AVX-512 VBMI2 (compress and expand of 1- and 2-byte lanes) besides
/// [`level`]'s [`AVX512`] (false under a narrower cap).
#[inline(always)]
pub(crate) fn vbmi2() -> bool {
    level() >= AVX512 && cpu_vbmi2::get()
}

/// [`LEVEL`] before the first check.
const UNKNOWN: u8 = u8::MAX;

/// The level found (and capped), [`UNKNOWN`] until the first call of [`level`].
static LEVEL: AtomicU8 = AtomicU8::new(UNKNOWN);

/// The widest set this CPU runs ([`BASE`], [`AVX2`] or [`AVX512`]), at most the cap last set by
/// [`cap`]: one relaxed atomic load after the first call.
#[inline(always)]
pub(crate) fn level() -> u8 {
    let mut level = LEVEL.load(Relaxed);
    if level == UNKNOWN {
        level = detect(UNKNOWN);
    }
    #[cfg(test)]
    if let Some(cap) = HERE.with(core::cell::Cell::get) {
        return level.min(cap);
    }
    level
}

#[cfg(test)]
extern crate std;

#[cfg(test)]
std::thread_local! {
    /// Set by a test to cap [`level`] on its own thread (tests run in parallel; [`cap`] is
    /// process-wide), so that each build of a kernel is checked on the machine that runs them.
    pub(crate) static HERE: core::cell::Cell<Option<u8>> = const { core::cell::Cell::new(None) };
}

/// Finds the CPU's level, caps it at `cap` and keeps it for [`level`].
#[cold]
fn detect(cap: u8) -> u8 {
    let level = capped(cap);
    LEVEL.store(level, Relaxed);
    level
}

/// The CPU's level, capped at `cap`.
fn capped(cap: u8) -> u8 {
    let found = if cpu_avx512::get() {
        AVX512
    } else if cpu_avx2::get() {
        AVX2
    } else {
        BASE
    };
    found.min(cap)
}

/// Keeps this process at `cap` or narrower from now on (anything over [`AVX512`] lets the CPU
/// decide again).
pub(crate) fn cap(cap: u8) {
    detect(cap);
}

#[cfg(test)]
mod tests {
    extern crate std;

    /// The level agrees with std's detection, and a cap narrows it. The cap is checked on
    /// [`super::capped`], not by storing it: [`super::cap`] is process-wide, and a narrower level
    /// stored here made the tests running beside it take the scalar paths (a test that expects
    /// the AVX2 kernel to take its rows failed now and then).
    #[test]
    fn level_follows_the_cpu_and_the_cap() {
        use std::is_x86_feature_detected as has;
        let found = if has!("avx2")
            && has!("avx512f")
            && has!("avx512bw")
            && has!("avx512vl")
            && has!("avx512dq")
        {
            super::AVX512
        } else if has!("avx2") {
            super::AVX2
        } else {
            super::BASE
        };
        assert_eq!(super::level(), found);
        assert_eq!(super::capped(super::AVX2), found.min(super::AVX2));
        assert_eq!(super::capped(super::BASE), super::BASE);
        assert_eq!(super::capped(u8::MAX), found);
    }
}
