//! The values the f32 arg kernels write with `VALUES` (a ReduceMax or ReduceMin fused into the
//! arg-reduction), one per row in order.

use core::arch::x86_64::__m128;

use super::store;
use crate::kernels::arg_row::arg_row;
use crate::kernels::index::{index, Index};
use crate::Direction;

/// The values an arg kernel writes with `VALUES`, one per row in order.
pub(in crate::kernels) struct Values<'a, const VALUES: bool> {
    v: &'a mut [f32],
    at: usize,
}

impl<'a, const VALUES: bool> Values<'a, VALUES> {
    /// The values `v`, from the first.
    pub(in crate::kernels) fn new(v: &'a mut [f32]) -> Self {
        Self { v, at: 0 }
    }

    /// Each of `rows` by the exact rule ([`arg_row`]): its index into `o`, in order, and its
    /// value (the kernels' path for rows with a NaN, and for rows past their groups).
    #[inline(always)]
    pub(in crate::kernels) fn exact<'r, D: Direction, const LAST: bool, I: Index>(
        &mut self,
        o: &mut [I],
        rows: impl Iterator<Item = &'r [f32]>,
    ) {
        for (o, row) in o.iter_mut().zip(rows) {
            let at = arg_row::<f32, D, LAST>(row);
            self.put(row, at);
            *o = index::<I>(at);
        }
    }

    /// The next row's value: its element at `at` (nothing without `VALUES`).
    #[inline(always)]
    pub(in crate::kernels) fn put(&mut self, row: &[f32], at: usize) {
        if VALUES {
            if let (Some(slot), Some(&e)) = (self.v.get_mut(self.at), row.get(at)) {
                *slot = e;
            }
            self.at += 1;
        }
    }

    /// The next eight rows' values (nothing without `VALUES`).
    #[inline(always)]
    pub(in crate::kernels) fn put8(&mut self, m: &[f32; 8]) {
        if VALUES {
            let slots = self
                .v
                .get_mut(self.at..)
                .and_then(<[f32]>::first_chunk_mut::<8>);
            if let Some(slots) = slots {
                *slots = *m;
            }
            self.at += 8;
        }
    }

    /// The next four rows' values, the lanes of `m` (nothing without `VALUES`).
    #[inline(always)]
    pub(super) fn put4(&mut self, m: __m128) {
        if VALUES {
            let slots = self
                .v
                .get_mut(self.at..)
                .and_then(<[f32]>::first_chunk_mut::<4>);
            if let Some(slots) = slots {
                store(slots, m);
            }
            self.at += 4;
        }
    }
}
