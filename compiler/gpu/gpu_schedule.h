// GPU schedules: how a loop kernel (compiler/kernel_ir.h) maps onto a grid of
// thread blocks. The CPU splits a kernel's rows over threads
// (compiler/cpu/row_split.h); GPUs get schedules of their own, chosen here
// from the kernel alone, the same for every GPU target (host-gpu and cuda).
//
// Kinds:
//  - elementwise: one thread per element of the domain (a grid-stride loop
//    over its row-major linear index); every reduction the element needs is
//    folded by its own thread, in row-major order. Reductions that vary
//    along the row take it where they are short (under 32 terms) or the
//    domain is large (over 65536 elements: enough threads already).
//    Vector form (vector_width 4): where every buffer's elements are at most
//    4 bytes and every input is read at the element's own linear index (no
//    broadcast, transpose or gather; no reduction, no scatter), each thread
//    takes 4 neighbouring elements, element 4i to 4i + 3 of group i, with
//    one vector load per input and one vector store per output (16 bytes of
//    f32 or i32, 8 of bf16 or f16, 4 of bool), then a scalar grid-stride
//    loop over the last n % 4 elements. The per-element operations are the
//    scalar form's, so the numbers are the same. Alignment: a kernel's
//    buffers start at slot boundaries, which on GPU targets are multiples of
//    kGpuArenaAlignment (256 bytes: arena offsets, and each argument's own
//    allocation, runtime/executable.h); OpenCL's vload4/vstore4 need only
//    the element's alignment.
//  - row: one block per domain row (the domain without its last dim; a
//    grid-stride loop over rows). The row's shared reductions (those that
//    depend on no variable changing within the row: softmax's max and sum,
//    a norm's moments, cross-entropy's log-sum-exp, a whole-tensor sum) are
//    folded by the whole block: thread t folds the terms t, t + B, t + 2B, ...
//    of the reduction's row-major order, then the block combines the B
//    partial results by a fixed binary tree (slot t takes slot t + s, for
//    s = B/2, ..., 2, 1): the levels of stride 32 and more in shared memory
//    with a barrier each, the last five (16 to 1) within the first warp. In
//    CUDA those shuffle registers (__shfl_down_sync, 32- and 64-bit values
//    and the carried indices alike); in OpenCL the prelude's MLC_WARP_DOWN
//    reads the shared array instead, with a barrier per level, so the host
//    device runs the same text and the same tree, and both give the same
//    bits. The host device never executes the shuffles: NVRTC compiles them
//    for sm_80 and sm_90 (tests/compiler/nvrtc_kernels_test.cc) and a source
//    test checks their text (tests/compiler/gpu_kernel_source_test.cc). The
//    row's elements are then computed by the threads in a block-stride loop.
//    With element_rows, every element of the domain is a row of its own:
//    the form of reductions that vary along the row but read their terms
//    contiguously (a row's sum or argmax with the row dropped: [R, N] to
//    [R]), in a domain small enough (above).
//  - columns: reductions that vary along the row and read neighbouring
//    columns for neighbouring elements (a column's sum, a bias gradient:
//    [B, N] to [N]), in a domain small enough (above). A block per tile of
//    kColumnTile (32) adjacent elements, grid-stride over tiles; thread t is
//    lane t % 32 (the element) of part t / 32 (P = 8 parts) and folds the
//    terms p, p + P, p + 2P, ... of its element's reduction in order (a warp
//    reads 32 neighbouring columns of one row: coalesced), then the tree's
//    levels of stride 128, 64 and 32 combine the parts in shared memory
//    (slot p * 32 + l takes slot (p + s/32) * 32 + l), leaving lane l's
//    result in slot l, and part 0 stores the tile. Lanes past the domain's
//    end fold the last element's terms and store nothing. Parallelism: 8
//    threads per element instead of one, and at least one block of 256 per
//    32 elements, so a bias gradient of N columns runs 8N threads, each
//    folding B/8 rows.
//  - row in two phases: a row schedule of one row (rows == 1: a whole-tensor
//    sum, a grad norm's sum of squares, a whole-tensor mean loss) whose
//    widest block reduction has at least kTwoPhaseMinTerms terms, none of
//    whose block reductions reads another's value (a sum whose terms read a
//    max, as softmax's do, stays one block of one launch). Its terms are
//    split over G partial blocks (Schedule::partials: a power of two from 2
//    to kBlockSize, the most that leave every thread of them at least
//    kTwoPhaseTermsPerThread terms of the widest reduction), and the kernel
//    is launched twice in order (rt::GpuLaunch::scratch_bytes, combine_grid)
//    with its phase as an argument. Phase 0 (launch.grid = G blocks; any
//    grid gives the same result: a grid-stride loop over the G partials):
//    for partial g, thread t folds the terms g B + t, g B + t + G B, ... of
//    each block reduction in order (neighbouring threads read neighbouring
//    terms: coalesced), the block combines them by the row's tree, and
//    thread 0 stores the result (the accumulator as 8 bytes of its bits, and
//    for max, min and argmax its element's index) into the kernel's scratch
//    words (Schedule::scratch_word; runtime/executable.h's scratch region).
//    Phase 1 (launch.combine_grid blocks: one per B elements of the row, at
//    most G, at least one): thread t < G reads partial t of each block
//    reduction (the others hold the fold's identity: 0, or no element), the
//    block combines them by the same tree (a fixed tree over the G partials
//    in order: the identities change no bit), and then, exactly as the row
//    schedule after its block reductions, the threads compute the row's
//    elements (grid-stride over the blocks' threads) and store them. Every
//    combining block reads the same partials in the same order, so all hold
//    the same bits.
//  - transpose_tiles: an elementwise kernel (no reduction, scatter or
//    gather) that reads an input with the domain's last two dims swapped
//    (the load moves by one element along the second-to-last dim and by
//    more along the last; both dims at least 16): a block (32 x 8 threads)
//    per 32 x 32 tile of those dims, grid-stride over the tiles of every
//    leading index. The block first stages each such load's 32 x 32 values
//    into a shared array of 32 rows of 33 (the padding keeps both phases
//    free of bank conflicts), lane x taking the element one step further
//    along the second-to-last dim, so the transposed reads coalesce; after
//    a barrier, lane x computes the element one step further along the last
//    dim, reading the staged values from the tile and everything else as
//    the elementwise schedule does, so the writes coalesce too. Staging
//    lanes past an edge read the last element instead (in bounds); a
//    barrier ends each tile. At most 4 staged loads. The values are those
//    of the elementwise schedule: the same expression per element.
//  - scatter_rows: scatter_add's usual form (an embedding's gradient: the
//    output's last dim is the updates' last dim, and the target row depends
//    on the updates' other dims alone). A block per output row: its threads
//    write the row's initial values, then scan the updates' leading index
//    space in chunks of the block (each thread tests one index against the
//    row; the hits go through shared memory), and for every hit in order each
//    thread adds the term of its own elements. Each output element gets its
//    terms in the reference kernel's order, with no atomics. Other scatters
//    take the elementwise schedule, whose thread folds the whole update
//    space for its element.
//
// Determinism: the tree and the terms each thread folds depend only on the
// kernel and the block size (and, in two phases, G), never on timing or on
// the launch's grid; no atomics. The row, two-phase and columns schedules
// share the tree's step and its order. Sums accumulate in the kernel IR's
// accumulator (double for float sums, i64 for integers, whose wrapping sums
// are exact in any order); max, min and argmax carry the index of their
// element and so give the sequential fold's result exactly, over any split
// of the terms (the first extreme element; for max and min the last NaN, for
// argmax the first NaN). Float sums differ from the sequential fold only by
// the rounding of the double partial sums (in the row tree, the two phases'
// threads, block trees and combining tree, and the columns' parts and tree
// alike, each a sum of the n terms in some order of double additions):
// |tree - sequential| <= 2 (n - 1) u_f64 sum |x_i|, far below one f32 or
// half ulp of the result unless the sum cancels.
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

#include "compiler/kernel_ir.h"
#include "runtime/executable.h"

namespace mlc::gpu {

enum class ScheduleKind : uint8_t { elementwise, row, scatter_rows, columns, transpose_tiles };
std::string_view schedule_kind_name(ScheduleKind k);

struct Schedule {
  ScheduleKind kind = ScheduleKind::elementwise;
  rt::GpuLaunch launch;
  // row: the domain's rows (the product of its dims but the last; with
  // element_rows, its elements), one block each; columns: the tiles of
  // kColumnTile elements; transpose_tiles: the tiles of kTransposeTile x
  // kTransposeTile elements (0 for elementwise).
  int64_t rows = 0;
  // row: every element of the domain is a row of its own (its reductions
  // vary along the domain's last dim).
  bool element_rows = false;
  // row, columns: per expression, whether it is a reduction the block folds
  // together (in expression order, before the row's or tile's elements).
  std::vector<bool> block_reduce;
  // row, columns: the shared arrays (one slot per thread each) its block reductions
  // combine in: f64 and i64 sums, f32/f64/i64 values of max, min and argmax,
  // and the element indices these carry. launch.shared_bytes is their size.
  bool shared_f64 = false, shared_i64 = false, shared_f32 = false, shared_index = false;
  // elementwise: the neighbouring elements each thread takes at a time
  // (kVectorWidth where the kernel allows vector loads and stores, else 1).
  int vector_width = 1;
  // transpose_tiles: the loads staged through shared-memory tiles (expression
  // ids, ascending), one tile array each.
  std::vector<int> staged_loads;
  // scatter_rows: the leading update dims scanned (all but the last), as
  // kir::Kernel::scatter.domain's first ones; one int flag per thread in shared memory.
  std::vector<int64_t> scatter_leading;
  // row in two phases (launch.two_phase()): G, the partial results of each
  // block reduction; and per expression, the first of the 8-byte scratch
  // words a block reduction keeps them in (-1 for the others): G values
  // (f64, f32 or i64 bits, as the accumulator holds them), then for max,
  // min and argmax G element indices; the block reductions in expression
  // order, one after another. launch.scratch_bytes is 8 times their words.
  int64_t partials = 0;
  std::vector<int64_t> scratch_word;
};

// Threads per block of every schedule.
inline constexpr int kBlockSize = 256;
// elementwise: the elements of a vector load or store (16 bytes of f32 or
// i32, 8 of bf16 or f16, 4 of bool).
inline constexpr int kVectorWidth = 4;
// columns: the elements of a tile (a warp's width: one coalesced load of
// neighbouring columns per row), and so kBlockSize / kColumnTile parts.
inline constexpr int kColumnTile = 32;
// transpose_tiles: the side of a tile (its shared arrays are kTransposeTile
// rows of kTransposeTile + 1 elements).
inline constexpr int kTransposeTile = 32;
// row: a single row whose widest block reduction has at least this many
// terms takes two phases. Below it, one block's threads fold at most 16
// terms each, about what a second launch costs (a few microseconds); above
// it one block's fold grows with the terms while G blocks divide it.
inline constexpr int64_t kTwoPhaseMinTerms = 16 * int64_t{kBlockSize};
// Two phases: the fewest terms of the widest reduction each thread of the
// G partial blocks folds (so G = 2 at kTwoPhaseMinTerms, and kBlockSize
// from 8 kBlockSize^2 = 524288 terms on), enough to amortize a block's tree.
inline constexpr int64_t kTwoPhaseTermsPerThread = 8;
// The most blocks a launch has; grid-stride loops cover the rest. Within
// CUDA's grid.x limit and OpenCL's global size on every device.
inline constexpr int64_t kMaxGrid = int64_t{1} << 20;

Schedule schedule_kernel(const kir::Kernel& k);

}  // namespace mlc::gpu
