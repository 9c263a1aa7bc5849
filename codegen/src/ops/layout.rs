//! Loop layout shared by the families' plans: size-1 dimensions dropped and adjacent
//! dimensions of the same kind (kept or reduced) merged, so that every pattern reduces to a few
//! runs with constant sizes.

/// Contiguous rows shorter than this take the runtime's unrolled short-row kernels
/// (`arg_rows_short`, `reduce_rows_short`, `hardmax_rows_short`); longer rows the block kernels.
pub const SHORT_ROW: usize = 32;

/// Rows of fewer lanes than this (the reduced axis before a few kept elements) take the
/// runtime's narrow kernels, which read several rows at a time as one wide row.
pub const FEW_LANES: usize = 16;

/// A run of merged dimensions: its size and whether it is reduced.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Run {
    /// Product of the merged dimensions.
    pub size: usize,
    /// Whether these dimensions are reduced.
    pub reduced: bool,
}

/// Drops size-1 dims and merges neighbours of the same kind.
pub fn merge(shape: &[usize], axes: &[usize]) -> Vec<Run> {
    let mut runs: Vec<Run> = Vec::new();
    for (i, &d) in shape.iter().enumerate() {
        if d == 1 {
            continue;
        }
        let reduced = axes.contains(&i);
        match runs.last_mut() {
            Some(last) if last.reduced == reduced => last.size *= d,
            _ => runs.push(Run { size: d, reduced }),
        }
    }
    runs
}

/// Splits runs around one contiguous block of reduced runs: (rows, inner), or `None` when the
/// reduced runs are not contiguous.
pub fn block(runs: &[Run]) -> Option<(usize, usize)> {
    let first = runs.iter().position(|r| r.reduced);
    let count = runs.iter().filter(|r| r.reduced).count();
    match (first, count) {
        (None, _) => Some((1, runs.iter().map(|r| r.size).product())),
        (Some(i), 1) => Some((runs[i].size, runs[i + 1..].iter().map(|r| r.size).product())),
        _ => None,
    }
}

/// Whether reducing `axes` of a tensor of `shape` (the output of a Transpose by `perm`) keeps
/// its output's memory order when done on the Transpose's input instead: the kept dimensions
/// longer than 1 come from input axes in increasing order.
pub fn kept_order_preserved(shape: &[usize], perm: &[usize], axes: &[usize]) -> bool {
    let kept: Vec<usize> = (0..shape.len())
        .filter(|i| !axes.contains(i) && shape[*i] != 1)
        .map(|i| perm[i])
        .collect();
    kept.windows(2).all(|w| w[0] < w[1])
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(size: usize, reduced: bool) -> Run {
        Run { size, reduced }
    }

    #[test]
    fn merge_drops_ones_and_joins_neighbours() {
        assert_eq!(
            merge(&[2, 1, 3, 4, 5], &[2, 3]),
            [run(2, false), run(12, true), run(5, false)]
        );
        assert_eq!(
            merge(&[2, 3, 4], &[0, 2]),
            [run(2, true), run(3, false), run(4, true)]
        );
        assert_eq!(merge(&[1, 1], &[0]), []);
        assert_eq!(merge(&[], &[]), []);
    }

    #[test]
    fn block_finds_one_contiguous_reduced_run() {
        assert_eq!(
            block(&[run(2, false), run(3, true), run(4, false)]),
            Some((3, 4))
        );
        assert_eq!(block(&[run(2, false), run(3, true)]), Some((3, 1)));
        assert_eq!(block(&[run(6, false)]), Some((1, 6)));
        assert_eq!(block(&[run(2, true), run(3, false), run(4, true)]), None);
    }

    #[test]
    fn kept_order_is_preserved_when_kept_axes_keep_their_order() {
        // [1, 8400, 80] = permute(0, 2, 1) of [1, 80, 8400], reduced over the classes (2).
        assert!(kept_order_preserved(&[1, 8400, 80], &[0, 2, 1], &[2]));
        // Reduced over the anchors: one kept axis, nothing to reorder.
        assert!(kept_order_preserved(&[1, 8400, 80], &[0, 2, 1], &[1]));
        // [4, 3, 2] = reverse of [2, 3, 4], over axis 1: kept 4 and 2 swap.
        assert!(!kept_order_preserved(&[4, 3, 2], &[2, 1, 0], &[1]));
    }
}
