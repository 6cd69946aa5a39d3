// Outlining: the loop kernels of compiler/fusion.h as fusion ops in the IR, so
// that `mlc ir --after fusion` shows each kernel with its body and `mlc opt`
// reads it back.
//
// Contract: every loop group of plan_fusion(f) with more than one op and at
// least one input, and every gemm update (a dot with the parameter update
// that the GEMM library computes in place), becomes one fusion op (ir/ops.def) placed right after the
// group's root, with the root's loc and scope. Its operands are the values the
// group reads from outside, in order of first use (body arguments %in0,
// %in1, ...); its body holds the group's ops in program order, each with its
// own loc and scope, and returns the root's value. Ops left without users are
// then removed (dead-code elimination), so a group's members go with it; a
// splat constant or iota that several kernels compute stays where something
// else still reads it. Every other op (GEMMs, single-op groups, views) stays
// as it is. The function computes what it computed before: a fusion op's
// meaning is its inlined body (ir/ops.def), so inlining the outlined
// function gives back the original ops.
#pragma once

#include "ir/graph.h"

namespace mlc {

// Returns the number of fusion ops made.
int outline_fusions(Function& f);

}  // namespace mlc
