//! Comparisons and join keys of a u64 with a signed integer, which Polars casts both to i128 (their common type): computed in 64 bits, a u64 beyond i64 greater than every signed value.

use super::boolean::null_aware_equality;
use super::*;

/// The largest u64 that is also an i64.
const I64_MAX: Scalar = Scalar::UInt(i64::MAX as u64);

impl ExprLowering<'_> {
    /// Of a cast to i128 of an integer of another type (as Polars casts a
    /// u64 and a signed integer it compares or joins): that integer's node.
    pub(crate) fn cast_to_i128_of(&self, node: Node) -> Option<Node> {
        let AExpr::Cast {
            expr,
            dtype: DataType::Int128,
            ..
        } = self.arena.get(node)
        else {
            return None;
        };
        let input = self.polars_dtype(*expr)?;
        (input.is_integer() && input != DataType::Int128).then_some(*expr)
    }

    /// `left op right` (a comparison) of two integers Polars casts to
    /// i128: where one is a u64 beyond i64 (greater than any value of the
    /// other, which is signed), the answer that gives (null beside a null,
    /// but for the null-aware equalities); else both compared as i64.
    pub(crate) fn wide_comparison(
        &mut self,
        node: Node,
        op: BinaryOp,
        (left, right): (Node, Node),
    ) -> Lowered {
        let (left, right) = (self.expr(left)?, self.expr(right)?);
        let (int64, boolean) = (GpuDtype::Int64, GpuDtype::Boolean);
        let unsigned = |side: &GpuExpr| side.dtype == GpuDtype::UInt64;
        if !left.dtype.is_integer()
            || !right.dtype.is_integer()
            || unsigned(&left) == unsigned(&right)
        {
            return self.refuse(
                node,
                format!(
                    "a comparison of {} with {} as i128 is not supported on the GPU",
                    left.dtype, right.dtype
                ),
            );
        }
        // The u64's side (the greater where beyond i64) and the other.
        let big_left = unsigned(&left);
        let (big, other) = if big_left {
            (&left, &right)
        } else {
            (&right, &left)
        };
        let beyond = big.clone().binary(
            BinaryOp::Gt,
            GpuExpr::literal(I64_MAX, GpuDtype::UInt64),
            boolean,
        );
        let other_valid = other.clone().is_not_null();
        let as_i64 = |side: GpuExpr| side.cast(int64, CastMode::NonStrict);
        let (left, right) = (as_i64(left), as_i64(right));
        let answer = |value: bool| GpuExpr::literal(Scalar::Boolean(value), boolean);
        let (within, beyond_answer) = match op {
            BinaryOp::EqMissing => (null_aware_equality(left, right, true), answer(false)),
            BinaryOp::NotEqMissing => (null_aware_equality(left, right, false), answer(true)),
            _ => {
                let greater = match op {
                    BinaryOp::Eq => false,
                    BinaryOp::NotEq => true,
                    BinaryOp::Gt | BinaryOp::GtEq => big_left,
                    BinaryOp::Lt | BinaryOp::LtEq => !big_left,
                    _ => return self.refuse(node, format!("{op:?} of i128")),
                };
                // (Beside a null, null.)
                let null = GpuExpr::literal(Scalar::Null, boolean);
                let beyond_answer = other_valid.then(answer(greater), null, boolean);
                (left.binary(op, right, boolean), beyond_answer)
            }
        };
        Some(beyond.then(beyond_answer, within, boolean))
    }

    /// A join key Polars casts to i128 (a u64 joined with a signed
    /// integer): the integer as i64, a u64 beyond i64 null, which matches
    /// nothing (where nulls match, the query stays with Polars).
    /// (`input` is the integer under the cast at `node`.)
    pub(crate) fn wide_join_key(&mut self, node: Node, input: Node, nulls_equal: bool) -> Lowered {
        if nulls_equal {
            return self.refuse(
                node,
                "a join of a u64 key with a signed one (compared as i128) whose nulls match is \
                 not supported on the GPU",
            );
        }
        let key = self.expr(input)?;
        Some(key.cast(GpuDtype::Int64, CastMode::NonStrict))
    }
}
