// The Emitter's loops of each GPU schedule (compiler/gpu/gpu_schedule.h)
// over the kernel's domain: elementwise (and its vector form), row (and in
// two phases), columns, transpose_tiles, scatter_rows.
#include "compiler/gpu/kernel_emitter.h"

namespace mlc::gpu::emit {

std::string Emitter::vector_type(DType t) {
  const std::string m = memory_type(t);
  return (m == "u16" ? "ushort" : m == "u8" ? "uchar" : m) + std::to_string(kVectorWidth);
}

std::vector<bool> Emitter::loaded_inputs() const {
  std::vector<bool> loaded(static_cast<size_t>(k_.num_inputs()), false);
  std::vector<int> roots = {k_.root};
  roots.insert(roots.end(), k_.more_roots.begin(), k_.more_roots.end());
  kir::for_each_reachable(k_, roots, [&](int, const kir::Expr& e) {
    if (e.kind == kir::ExprKind::load) loaded[static_cast<size_t>(e.i)] = true;
  });
  return loaded;
}

void Emitter::emit_vector_groups(int64_t groups) {
  const int block = s_.launch.block;
  const int out = k_.num_inputs();
  const std::vector<bool> loaded = loaded_inputs();
  scoped("for (i64 vec = MLC_BLOCK * " + std::to_string(block) + " + MLC_THREAD; vec < " + i64_literal(groups) +
             "; vec += MLC_BLOCKS * " + std::to_string(block) + ")",
         [&] {
           for (int p = 0; p < out; ++p)
             if (loaded[static_cast<size_t>(p)])
               line(vector_type(k_.params[static_cast<size_t>(p)]) + " mlc_v" + std::to_string(p) + " = MLC_LOAD4(" +
                    vector_type(k_.params[static_cast<size_t>(p)]) + ", p" + std::to_string(p) + ", vec);");
           std::vector<std::vector<std::string>> lanes(static_cast<size_t>(k_.num_outputs()));
           for (int o = 0; o < k_.num_outputs(); ++o)
             for (int j = 0; j < kVectorWidth; ++j) {
               lanes[static_cast<size_t>(o)].push_back("mlc_r" + std::to_string(o) + "_" + std::to_string(j));
               line(std::string(memory_type(k_.params[static_cast<size_t>(out + o)])) + " " + lanes[static_cast<size_t>(o)].back() + ";");
             }
           for (int j = 0; j < kVectorWidth; ++j) {
             lane_ = j;
             scoped("", [&] {
               line("const i64 lin = vec * " + std::to_string(kVectorWidth) + " + " + std::to_string(j) + ";");
               split_index("lin", 0, k_.domain);
               const std::vector<std::string> v = output_values();
               for (size_t o = 0; o < v.size(); ++o) line(lanes[o][static_cast<size_t>(j)] + " = " + v[o] + ";");
             });
           }
           lane_ = -1;
           for (int o = 0; o < k_.num_outputs(); ++o) {
             const std::string vt = vector_type(k_.params[static_cast<size_t>(out + o)]);
             std::string all;
             for (const std::string& l : lanes[static_cast<size_t>(o)]) all += ", " + l;
             line("MLC_STORE4(" + vt + ", p" + std::to_string(store_param_[static_cast<size_t>(o)]) + ", vec, MLC_VEC4(" + vt +
                  all + "));");
           }
         });
}

void Emitter::emit_elementwise_schedule() {
  const int64_t n = domain_elements();
  // The vector form's groups, then a thread per element of the rest.
  const int64_t groups = s_.vector_width > 1 ? n / s_.vector_width : 0;
  if (groups > 0) emit_vector_groups(groups);
  const std::string first = groups > 0 ? i64_literal(groups * s_.vector_width) + " + " : "";
  scoped("for (i64 lin = " + first + "MLC_BLOCK * " + std::to_string(s_.launch.block) + " + MLC_THREAD; lin < " + i64_literal(n) +
             "; lin += MLC_BLOCKS * " + std::to_string(s_.launch.block) + ")",
         [&] {
           split_index("lin", 0, k_.domain);
           if (k_.scatters()) store_outputs("lin", [&](std::string v) { return scatter_into(v); });
           else store_outputs("lin");
         });
}

void Emitter::declare_shared_arrays(int block) {
  if (s_.shared_f64) line("MLC_SHARED double mlc_sf64[" + std::to_string(block) + "];");
  if (s_.shared_i64) line("MLC_SHARED i64 mlc_si64[" + std::to_string(block) + "];");
  if (s_.shared_f32) line("MLC_SHARED float mlc_sf32[" + std::to_string(block) + "];");
  if (s_.shared_index) line("MLC_SHARED i64 mlc_sidx[" + std::to_string(block) + "];");
}

void Emitter::block_reductions() {
  for (size_t id = 0; id < k_.exprs.size(); ++id)
    if (s_.block_reduce[id]) value(static_cast<int>(id));
}

void Emitter::emit_row_schedule(int block) {
  declare_shared_arrays(block);
  line("const i64 tid = MLC_THREAD;");
  fold_ = {"tid", std::to_string(block), true, "0", false};
  scoped("for (i64 row = MLC_BLOCK; row < " + i64_literal(s_.rows) + "; row += MLC_BLOCKS)", [&] {
    set_row_variables();
    block_reductions();
    store_row_elements("tid", std::to_string(block));
  });
}

void Emitter::emit_two_phase_row_schedule(int block) {
  const std::string b = std::to_string(block);
  declare_shared_arrays(block);
  line("const i64 tid = MLC_THREAD;");
  line("const i64 row = 0;");
  scoped("if (mlc_phase == 0)", [&] {
    scoped("for (i64 partial = MLC_BLOCK; partial < " + i64_literal(s_.partials) + "; partial += MLC_BLOCKS)", [&] {
      set_row_variables();
      fold_ = {"partial * " + b + " + tid", i64_literal(s_.partials * block), true, "0", false};
      for (size_t id = 0; id < k_.exprs.size(); ++id)
        if (s_.block_reduce[id]) store_partial(static_cast<int>(id));
    });
  });
  scoped("if (mlc_phase == 1)", [&] {
    set_row_variables();
    fold_ = {"", "", true, "0", true};
    block_reductions();
    store_row_elements("MLC_BLOCK * " + b + " + tid", "MLC_BLOCKS * " + b);
  });
}

void Emitter::set_row_variables() {
  const size_t rank = k_.domain.size();
  if (s_.element_rows) split_index("row", 0, k_.domain);
  else if (rank > 1) split_index("row", 0, std::vector<int64_t>(k_.domain.begin(), k_.domain.end() - 1));
}

void Emitter::store_row_elements(const std::string& first, const std::string& stride) {
  const size_t rank = k_.domain.size();
  if (rank == 0 || s_.element_rows) {
    scoped("if (" + first + " == 0)", [&] { store_outputs("row"); });
    return;
  }
  const int64_t inner = k_.domain.back();
  scoped("for (i64 inner = " + first + "; inner < " + i64_literal(inner) + "; inner += " + stride + ")", [&] {
    line("const i64 v" + std::to_string(rank - 1) + " = inner;");
    vars_[rank - 1] = "v" + std::to_string(rank - 1);
    store_outputs("row * " + i64_literal(inner) + " + inner");
  });
}

void Emitter::emit_columns_schedule(int block) {
  const int64_t n = domain_elements();
  const std::string tile = std::to_string(kColumnTile);
  declare_shared_arrays(block);
  line("const i64 tid = MLC_THREAD;");
  line("const i64 lane = tid % " + tile + ";");
  line("const i64 part = tid / " + tile + ";");
  fold_ = {"part", std::to_string(block / kColumnTile), false, "lane", false};
  scoped("for (i64 tile = MLC_BLOCK; tile < " + i64_literal(s_.rows) + "; tile += MLC_BLOCKS)", [&] {
    line("const i64 col = tile * " + tile + " + lane;");
    line("const i64 lin = col < " + i64_literal(n) + " ? col : " + i64_literal(n - 1) + ";");
    split_index("lin", 0, k_.domain);
    block_reductions();
    scoped("if (part == 0 && col < " + i64_literal(n) + ")", [&] { store_outputs("lin"); });
  });
}

void Emitter::emit_transpose_tiles_schedule() {
  const size_t rank = k_.domain.size();
  const int64_t rows = k_.domain[rank - 2], cols = k_.domain[rank - 1];
  const std::string side = std::to_string(kTransposeTile), pitch = std::to_string(kTransposeTile + 1);
  const std::string steps = std::to_string(s_.launch.block / kTransposeTile);
  const int64_t col_tiles = (cols + kTransposeTile - 1) / kTransposeTile;
  const int64_t row_tiles = (rows + kTransposeTile - 1) / kTransposeTile;
  for (size_t t = 0; t < s_.staged_loads.size(); ++t)
    line("MLC_SHARED " + std::string(memory_type(staged_param_type(t))) + " mlc_tile" + std::to_string(t) + "[" +
         std::to_string(kTransposeTile * (kTransposeTile + 1)) + "];");
  line("const i64 tid = MLC_THREAD;");
  line("const i64 tx = tid % " + side + ";");
  line("const i64 ty = tid / " + side + ";");
  const std::vector<int64_t> leading(k_.domain.begin(), k_.domain.end() - 2);
  // The element (lead, row, col) of the domain: its variables.
  auto set_element = [&](const std::string& row, const std::string& col) {
    if (!leading.empty()) split_index("lead", 0, leading);
    line("const i64 v" + std::to_string(rank - 2) + " = " + row + ";");
    line("const i64 v" + std::to_string(rank - 1) + " = " + col + ";");
    vars_[rank - 2] = "v" + std::to_string(rank - 2);
    vars_[rank - 1] = "v" + std::to_string(rank - 1);
  };
  scoped("for (i64 tile = MLC_BLOCK; tile < " + i64_literal(s_.rows) + "; tile += MLC_BLOCKS)", [&] {
    line("const i64 col0 = (tile % " + i64_literal(col_tiles) + ") * " + side + ";");
    line("const i64 row0 = ((tile / " + i64_literal(col_tiles) + ") % " + i64_literal(row_tiles) + ") * " + side + ";");
    line("const i64 lead = tile / " + i64_literal(col_tiles * row_tiles) + ";");
    scoped("for (int k = 0; k < " + side + "; k += " + steps + ")", [&] {
      // Past an edge: the last row or column (in bounds, never used).
      line("const i64 srow = row0 + tx < " + i64_literal(rows) + " ? row0 + tx : " + i64_literal(rows - 1) + ";");
      line("const i64 scol = col0 + ty + k < " + i64_literal(cols) + " ? col0 + ty + k : " + i64_literal(cols - 1) + ";");
      set_element("srow", "scol");
      for (size_t t = 0; t < s_.staged_loads.size(); ++t) {
        const kir::Expr& load = k_.exprs[static_cast<size_t>(s_.staged_loads[t])];
        line("mlc_tile" + std::to_string(t) + "[(ty + k) * " + pitch + " + tx] = p" + std::to_string(load.i) + "[" +
             value(load.a) + "];");
      }
    });
    line("MLC_BARRIER();");
    staged_tiles_ = true;
    scoped("for (int k = 0; k < " + side + "; k += " + steps + ")", [&] {
      line("const i64 row = row0 + ty + k;");
      line("const i64 col = col0 + tx;");
      scoped("if (row < " + i64_literal(rows) + " && col < " + i64_literal(cols) + ")", [&] {
        set_element("row", "col");
        store_outputs("(lead * " + i64_literal(rows) + " + row) * " + i64_literal(cols) + " + col");
      });
    });
    staged_tiles_ = false;
    line("MLC_BARRIER();");  // before the next tile's staging
  });
}

DType Emitter::staged_param_type(size_t t) const {
  return k_.params[static_cast<size_t>(k_.exprs[static_cast<size_t>(s_.staged_loads[t])].i)];
}

void Emitter::emit_scatter_rows_schedule(int block) {
  const kir::Kernel::Scatter& sc = k_.scatter;
  const size_t rank = k_.domain.size();
  const int64_t inner = k_.domain.back();
  const DType t = k_.params[static_cast<size_t>(k_.num_inputs())];
  const std::string out = "p" + std::to_string(store_param_[0]);
  int64_t leading = 1;
  for (int64_t d : s_.scatter_leading) leading *= d;
  const std::string b = std::to_string(block);
  const int last = sc.var0 + static_cast<int>(sc.domain.size()) - 1;
  line("MLC_SHARED int mlc_sflag[" + b + "];");
  line("const i64 tid = MLC_THREAD;");
  scoped("for (i64 row = MLC_BLOCK; row < " + i64_literal(s_.rows) + "; row += MLC_BLOCKS)", [&] {
    if (rank > 1) split_index("row", 0, std::vector<int64_t>(k_.domain.begin(), k_.domain.end() - 1));
    const std::string v_inner = "v" + std::to_string(rank - 1);
    scoped("for (i64 inner = tid; inner < " + i64_literal(inner) + "; inner += " + b + ")", [&] {
      line("const i64 " + v_inner + " = inner;");
      vars_[rank - 1] = v_inner;
      store_outputs("row * " + i64_literal(inner) + " + inner");
    });
    scoped("for (i64 sbase = 0; sbase < " + i64_literal(leading) + "; sbase += " + b + ")", [&] {
      scoped("", [&] {
        line("const i64 sj = sbase + tid;");
        line("int hit = 0;");
        scoped("if (sj < " + i64_literal(leading) + ")", [&] {
          split_index("sj", sc.var0, s_.scatter_leading);
          line("hit = " + value(sc.row) + " == row;");
        });
        line("mlc_sflag[tid] = hit;");
      });
      line("MLC_BARRIER();");
      scoped("for (int st = 0; st < " + b + "; ++st)", [&] {
        scoped("if (mlc_sflag[st])", [&] {
          line("const i64 sj = sbase + st;");
          split_index("sj", sc.var0, s_.scatter_leading);
          scoped("for (i64 inner = tid; inner < " + i64_literal(inner) + "; inner += " + b + ")", [&] {
            line("const i64 v" + std::to_string(last) + " = inner;");
            vars_[static_cast<size_t>(last)] = "v" + std::to_string(last);
            const std::string x = value(sc.value);
            const std::string at = out + "[row * " + i64_literal(inner) + " + inner]";
            if (is_float(t)) line(at + " = " + at + " + " + x + ";");
            else line(at + " = (" + std::string(value_type(t)) + ")((u64)" + at + " + (u64)" + x + ");");
          });
        });
      });
      line("MLC_BARRIER();");
    });
  });
}

std::string Emitter::scatter_into(const std::string& v) {
  const kir::Kernel::Scatter& sc = k_.scatter;
  const DType t = k_.params[static_cast<size_t>(k_.num_inputs())];
  const int64_t inner = k_.domain.empty() ? 1 : k_.domain.back();
  const std::string acc = fresh(value_type(t), v);
  int64_t n = 1;
  for (int64_t d : sc.domain) n *= d;
  scoped("for (i64 sj = 0; sj < " + i64_literal(n) + "; ++sj)", [&] {
    split_index("sj", sc.var0, sc.domain);
    scoped("if (" + value(sc.row) + " == lin / " + i64_literal(inner) + " && " + value(sc.at) + " == lin)", [&] {
      const std::string x = value(sc.value);
      if (is_float(t)) line(acc + " = " + acc + " + " + x + ";");
      else line(acc + " = (" + value_type(t) + ")((u64)" + acc + " + (u64)" + x + ");");
    });
  });
  return acc;
}

}  // namespace mlc::gpu::emit
