//! The vector width of the strided shims, chosen at run time.
//!
//! Built for the default x86-64 target (SSE2 only), the kernels' lanes compile to 16-byte
//! vectors, while nearly every x86-64 CPU in use has AVX2: 32-byte vectors, and the compares
//! SSE2 lacks (64-bit, unsigned, byte min/max, blends). So the shims of the strided kernels, which
//! keep many lanes of state across rows, are compiled twice in the user's crate: as written, and
//! as a twin under `#[target_feature(enable = "avx2")]` into which the same `#[inline(always)]`
//! body is inlined; [`wide!`] calls the twin when the CPU has AVX2 (checked once, then one
//! relaxed atomic load per node). Both compile the same Rust code, so they compute the same
//! values; only the instructions differ.
//!
//! Which shims have a twin is measured (the benchmark matrix, `tests/benches/matrix.rs`, on a
//! 2-core Xeon with AVX-512 and AVX2): strided arg-reductions of [`ROWS`] rows and more, strided
//! reductions of 64 lanes and more (16 and more of 64-bit types: [`lanes_twin`]), the narrow-lane
//! kernels of both, and strided Hardmax ran 1.05–2.5x faster through the twin (i64/i32 along the
//! leading axis 2–2.5x, f32 along the leading axis over 20 to 80 rows 1.5x; 64-bit types over 16
//! to 48 lanes 1.3-2x, from L2), and so did contiguous arg-reductions over rows of 32 to 128
//! (`arg_row_wide`, a path of its own, inlined whole: rows of 80 1.2x), and Hardmax over
//! contiguous rows of 64-bit types at any length (f64 rows of 1000 1.04–1.07x, i64 1.3–1.5x: SSE2
//! has two such lanes a vector and no 64-bit integer compare). The other row kernels, the planes
//! kernel and narrow Hardmax (but for 64-bit types) did not gain or lost (their per-row helpers
//! are out of line, compiled once without AVX2 and entered from AVX2 code), nor did f16 and bf16,
//! whose kernels are out of line: they keep one build.
//!
//! The strided arg-reductions (all three forms) and the strided reductions of `f64` also have
//! an **AVX-512 twin** (`avx2,avx512f,avx512bw,avx512vl,avx512dq`), taken on CPUs
//! with those sets ([`crate::kernels::isa`]). The matrix on an Intel Xeon (Emerald Rapids), the
//! same binary with `--twins 1` (AVX2 twins at most) against the default, three runs each, the
//! median ratio's change: strided arg-reductions along the leading axis of `[1000, n]` 0.59-0.81x
//! of the AVX2 twin's time over every integer type and `f64` (`i16` 0.59, `i32` 0.60, `u8`
//! 0.63-0.81, `i64` 0.80-0.81), `f32` over 20 to 100000 rows 0.72-0.85x; reductions of `f64`
//! along the leading axis 0.82-0.87x. Where the AVX-512 twin lost it is not built: contiguous
//! rows of `i64` (`arg_rows`, 1.4-1.8x slower), strided reductions of integers (`i32` 3x
//! slower, `i64` 1.4-1.5x) and of `f32` (0.8x to 1.17x by shape: 1.15-1.17x over 80 rows),
//! Hardmax (no gain). Strided reductions of `i64` and `u64`, and of `f32` in blocks of five rows
//! or more of sixteen lanes or more, have an AVX-512 kernel of their own instead
//! (`kernels::reduce_lanes_512`, taken before the twins).
//!
//! [`cap_twins`] keeps a process at a narrower build (tests run both on one machine). There is
//! no twin when the build already targets AVX2 (`-C target-cpu=native` on such a CPU),
//! off x86-64, with the `small-code` feature (firmware: one copy of each kernel), in debug
//! builds (their kernels are the runtime's own entry points), or for nodes of fewer than
//! `FROM` (256) elements, whose whole call takes a few nanoseconds.

/// Where twins exist: optimized builds for baseline x86-64, without `small-code`.
#[cfg(all(
    target_arch = "x86_64",
    not(target_feature = "avx2"),
    not(feature = "small-code"),
    not(debug_assertions)
))]
pub(crate) use twins::{enough, lanes_twin, level, wide_avx512, AVX2, AVX512, ROWS};

/// Keeps this process's run-time choice of instruction set at `level` or narrower: 0 the
/// shims as written (no twins), 1 at most AVX2 (no AVX-512 twin or kernel), 2 or more whatever
/// the CPU has (the default). For tests and benchmarks that run each build on one machine, or a
/// user who wants one instruction set. The hand-written AVX2 kernels do not follow it (they run
/// wherever the CPU has AVX2); off x86-64 and with `small-code` it does nothing.
pub fn cap_twins(level: u8) {
    #[cfg(all(target_arch = "x86_64", not(feature = "small-code")))]
    crate::kernels::isa::cap(level);
    #[cfg(not(all(target_arch = "x86_64", not(feature = "small-code"))))]
    let _ = level;
}

/// The thresholds and the CPU check of the twins, compiled only where twins exist.
#[cfg(all(
    target_arch = "x86_64",
    not(target_feature = "avx2"),
    not(feature = "small-code"),
    not(debug_assertions)
))]
mod twins {
    /// Nodes that read fewer elements than this keep the shim as written.
    pub(crate) const FROM: usize = 256;

    /// Strided arg-reductions over fewer rows than this keep the shim as written (over two rows
    /// of sixteen lanes the twin was 2.3x slower).
    pub(crate) const ROWS: usize = 8;

    /// Strided reductions of fewer lanes than this keep the shim as written (with sixteen lanes
    /// the twin was 1.2–1.3x slower: half as many independent chains of max/min).
    pub(crate) const LANES: usize = 64;

    /// Strided reductions of 64-bit types take their twins from this many lanes: SSE2 has no
    /// 64-bit integer compare (the shim as written took 1.41-1.57x of the stream for `i64`
    /// `[16, 1000, 16]` along axis 1, 1.36-1.50x of a read-and-write pass). Where the CPU has
    /// AVX-512, `i64` and `u64` take their own kernel before (`kernels::reduce_lanes_512`).
    pub(crate) const LANES_64: usize = 16;

    pub(crate) use crate::kernels::isa::{level, AVX2, AVX512};

    /// Whether a strided reduction of `T` over rows of `ys` lanes may take its twins: from
    /// [`LANES`] lanes, or [`LANES_64`] for 64-bit types.
    #[inline(always)]
    pub(crate) const fn lanes_twin<T: crate::Element>(ys: usize) -> bool {
        ys >= LANES || (ys >= LANES_64 && wide_64::<T>())
    }

    /// Whether a node of `T` reading `len` elements may take its twin: large enough, not
    /// f16/bf16.
    #[inline(always)]
    pub(crate) fn enough<T: crate::Element>(len: usize) -> bool {
        len >= FROM && !matches!(T::DTYPE, crate::DType::F16 | crate::DType::BF16)
    }

    /// Whether `T` is `f64`: the strided reductions whose AVX-512 twin gained (`f32` was
    /// 0.8-1.17x of the AVX2 twin's time by shape, the narrower integers lost, `i32` up to 3x).
    /// `i64`, `u64` and `f32` (blocks of five rows or more) have a kernel of their own there
    /// (`kernels::reduce_lanes_512`): through
    /// this twin, one build of the matrix had LLVM gather eight rows a vector, 4.4-4.7x of the
    /// stream.
    #[inline(always)]
    pub(crate) const fn wide_avx512<T: crate::Element>() -> bool {
        matches!(T::DTYPE, crate::DType::F64)
    }

    /// Whether `T` is a 64-bit type (`f64`, `i64`, `u64`).
    #[inline(always)]
    const fn wide_64<T: crate::Element>() -> bool {
        matches!(
            T::DTYPE,
            crate::DType::F64 | crate::DType::I64 | crate::DType::U64
        )
    }
}

/// The body of an optimized shim, run through its AVX-512 or AVX2 twin when `when` holds and
/// the CPU ([`level`]) has that set.
///
/// `wide!(when; [avx512 when512;] [generic params] [generic names] (args) -> Ret { body } else
/// { twin body })`: the generic parameters as declared (bounds included) and as passed, since the
/// body becomes a nested function of its own. Only shims given `avx512 when512` have an AVX-512
/// twin, taken where `when512` holds too (which kernels gain from it was measured). The twins
/// run `body`, or their own body where the two should call different forms of a kernel (one
/// left to the optimizer's inlining, one always inlined: a twin must inline its kernels, or it
/// runs them as built without AVX2, and slower for the switch). `when` is only compiled where a
/// twin can exist.
#[cfg(not(debug_assertions))]
macro_rules! wide {
    (
        $when:expr; $(avx512 $w512:expr;)?
        [$($g:tt)*] [$($p:ident),*]
        ($($a:ident : $t:ty),* $(,)?) -> $ret:ty
        $body:block
    ) => {
        wide!($when; $(avx512 $w512;)? [$($g)*] [$($p),*] ($($a: $t),*) -> $ret $body else $body)
    };
    (
        $when:expr;
        [$($g:tt)*] [$($p:ident),*]
        ($($a:ident : $t:ty),* $(,)?) -> $ret:ty
        $body:block else $twin_body:block
    ) => {
        wide!(@twins $when; none; [$($g)*] [$($p),*] ($($a: $t),*) -> $ret $body else $twin_body)
    };
    (
        $when:expr; avx512 $w512:expr;
        [$($g:tt)*] [$($p:ident),*]
        ($($a:ident : $t:ty),* $(,)?) -> $ret:ty
        $body:block else $twin_body:block
    ) => {
        wide!(@twins $when; ($w512); [$($g)*] [$($p),*] ($($a: $t),*) -> $ret $body else $twin_body)
    };
    (
        @twins $when:expr; $w512:tt;
        [$($g:tt)*] [$($p:ident),*]
        ($($a:ident : $t:ty),* $(,)?) -> $ret:ty
        $body:block else $twin_body:block
    ) => {{
        #[inline(always)]
        fn base<$($g)*>($($a: $t),*) -> $ret $body
        #[cfg(all(
            target_arch = "x86_64",
            not(target_feature = "avx2"),
            not(feature = "small-code"),
            not(debug_assertions)
        ))]
        {
            #[target_feature(enable = "avx2")]
            unsafe fn twin<$($g)*>($($a: $t),*) -> $ret $twin_body
            wide!(@avx512 $w512; $when; [$($g)*] [$($p),*] ($($a: $t),*) -> $ret $twin_body);
            if $when && $crate::node::wide::level() >= $crate::node::wide::AVX2 {
                // SAFETY: `level()` found AVX2 on this CPU, with its registers saved by the OS.
                return unsafe { twin::<$($p),*>($($a),*) };
            }
        }
        base::<$($p),*>($($a),*)
    }};
    (@avx512 none; $($rest:tt)*) => {};
    (
        @avx512 ($w512:expr); $when:expr;
        [$($g:tt)*] [$($p:ident),*]
        ($($a:ident : $t:ty),* $(,)?) -> $ret:ty
        $twin_body:block
    ) => {
        #[target_feature(enable = "avx2,avx512f,avx512bw,avx512vl,avx512dq")]
        unsafe fn twin512<$($g)*>($($a: $t),*) -> $ret $twin_body
        if $when && $w512 && $crate::node::wide::level() >= $crate::node::wide::AVX512 {
            // SAFETY: `level()` found AVX-512 (F, BW, VL, DQ) and AVX2 on this CPU, with their
            // registers saved by the OS.
            return unsafe { twin512::<$($p),*>($($a),*) };
        }
    };
}
#[cfg(not(debug_assertions))]
pub(crate) use wide;

#[cfg(all(
    test,
    target_arch = "x86_64",
    not(target_feature = "avx2"),
    not(feature = "small-code"),
    not(debug_assertions)
))]
mod tests {
    extern crate std;

    /// The check agrees with std's, and a body comes back the same through either build.
    #[test]
    fn twin_runs_the_body() {
        fn total<T: Copy + core::iter::Sum<T>>(x: &[T], go: bool) -> T {
            wide!(go; [T: Copy + core::iter::Sum<T>] [T] (x: &[T]) -> T {
                x.iter().copied().sum()
            })
        }
        let big: std::vec::Vec<u32> = (0..1000).collect();
        assert_eq!(total(&big, true), 499_500);
        assert_eq!(total(&big, false), 499_500);
        // The base build on this thread only (`cap_twins` is process-wide: a narrower level
        // stored there made the tests beside this one take other paths).
        crate::kernels::isa::HERE.with(|h| h.set(Some(0)));
        assert_eq!(total(&big, true), 499_500);
        crate::kernels::isa::HERE.with(|h| h.set(None));
        assert!(
            super::enough::<f32>(super::twins::FROM)
                && !super::enough::<f32>(super::twins::FROM - 1)
        );
        assert!(!super::enough::<crate::f16>(1 << 20));
    }
}
