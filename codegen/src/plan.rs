//! Loop planning: from an op and a shape to the loop nest and kernel that compute it.
//!
//! Size-1 dimensions are dropped and adjacent dimensions of the same kind (kept or reduced) are
//! merged, so every pattern reduces to a few runs with constant sizes.

use crate::ir::{Direction, Op};

/// A run of merged dimensions: its size and whether it is reduced.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Run {
    /// Product of the merged dimensions.
    pub size: usize,
    /// Whether these dimensions are reduced.
    pub reduced: bool,
}

/// How a node is computed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Plan {
    /// The output is a copy of the input.
    Copy,
    /// The input is empty and the output is filled with the reduction's identity.
    FillIdentity(Direction),
    /// Nothing to compute (the output has no elements).
    Nothing,
    /// A reduction: nested loops over `runs` (outermost first), accumulating into the output.
    Reduce {
        /// Max or Min.
        direction: Direction,
        /// The merged runs.
        runs: Vec<Run>,
    },
    /// An arg-reduction over contiguous rows of length `r` (the axis is innermost).
    ArgRows {
        /// Max or Min.
        direction: Direction,
        /// Pick the last extreme.
        last: bool,
        /// Length of the reduced axis.
        r: usize,
    },
    /// An arg-reduction over `r` rows of `inner` lanes per block.
    ArgLanes {
        /// Max or Min.
        direction: Direction,
        /// Pick the last extreme.
        last: bool,
        /// Length of the reduced axis.
        r: usize,
        /// Number of lanes (product of the dims after the axis).
        inner: usize,
    },
    /// Hardmax over contiguous rows of length `r`.
    HardmaxRows {
        /// Row length.
        r: usize,
    },
    /// Hardmax over `r` rows of `inner` lanes per block.
    HardmaxLanes {
        /// Number of rows.
        r: usize,
        /// Number of lanes.
        inner: usize,
    },
    /// Hardmax over reduced axes that are not contiguous: explicit (size, stride) runs.
    HardmaxGeneral {
        /// Kept runs (size, stride in elements).
        kept: Vec<(usize, usize)>,
        /// Reduced runs (size, stride in elements).
        reduced: Vec<(usize, usize)>,
    },
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

/// Splits a shape around one contiguous block of reduced runs: (rows, inner), if contiguous.
fn block(runs: &[Run]) -> Option<(usize, usize)> {
    let first = runs.iter().position(|r| r.reduced);
    let count = runs.iter().filter(|r| r.reduced).count();
    match (first, count) {
        (None, _) => Some((1, runs.iter().map(|r| r.size).product())),
        (Some(i), 1) => Some((runs[i].size, runs[i + 1..].iter().map(|r| r.size).product())),
        _ => None,
    }
}

/// The plan of an op applied to an input of `shape`.
pub fn plan(op: &Op, shape: &[usize]) -> Plan {
    let numel: usize = shape.iter().product();
    match op {
        Op::Identity => Plan::Copy,
        Op::Reduce { noop: true, .. } => Plan::Copy,
        Op::Reduce {
            direction, axes, ..
        } => {
            if numel == 0 {
                Plan::FillIdentity(*direction)
            } else {
                Plan::Reduce {
                    direction: *direction,
                    runs: merge(shape, axes),
                }
            }
        }
        Op::Arg {
            direction,
            axis,
            select_last_index,
            ..
        } => {
            if numel == 0 {
                return Plan::Nothing;
            }
            let r = shape[*axis];
            let inner: usize = shape[axis + 1..].iter().product();
            if inner == 1 {
                Plan::ArgRows {
                    direction: *direction,
                    last: *select_last_index,
                    r,
                }
            } else {
                Plan::ArgLanes {
                    direction: *direction,
                    last: *select_last_index,
                    r,
                    inner,
                }
            }
        }
        Op::Hardmax { axes } => {
            if numel == 0 {
                return Plan::Nothing;
            }
            let runs = merge(shape, axes);
            match block(&runs) {
                Some((r, 1)) => Plan::HardmaxRows { r },
                Some((r, inner)) => Plan::HardmaxLanes { r, inner },
                None => {
                    let mut kept = Vec::new();
                    let mut reduced = Vec::new();
                    let mut stride = 1;
                    for run in runs.iter().rev() {
                        let entry = (run.size, stride);
                        if run.reduced {
                            reduced.insert(0, entry);
                        } else {
                            kept.insert(0, entry);
                        }
                        stride *= run.size;
                    }
                    Plan::HardmaxGeneral { kept, reduced }
                }
            }
        }
    }
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
    fn hardmax_picks_rows_lanes_or_general() {
        let hm = |axes: Vec<usize>| Op::Hardmax { axes };
        assert_eq!(plan(&hm(vec![2]), &[2, 3, 4]), Plan::HardmaxRows { r: 4 });
        assert_eq!(
            plan(&hm(vec![1]), &[2, 3, 4]),
            Plan::HardmaxLanes { r: 3, inner: 4 }
        );
        assert_eq!(
            plan(&hm(vec![1, 2]), &[2, 3, 4]),
            Plan::HardmaxRows { r: 12 }
        );
        assert_eq!(
            plan(&hm(vec![0, 2]), &[2, 3, 4]),
            Plan::HardmaxGeneral {
                kept: vec![(3, 4)],
                reduced: vec![(2, 12), (4, 1)]
            }
        );
        assert_eq!(plan(&hm(vec![1]), &[2, 0, 4]), Plan::Nothing);
    }
}
