#include "driver/profile.h"

#include <algorithm>
#include <array>
#include <cstdio>
#include <numeric>

namespace mlc {

namespace {

constexpr size_t kKinds = rt::kInstrKinds;

double ms(int64_t ns) { return static_cast<double>(ns) / 1e6; }

double percent(int64_t part, int64_t whole) {
  return whole > 0 ? 100.0 * static_cast<double>(part) / static_cast<double>(whole) : 0.0;
}

// Instruction indices, slowest first (ties in program order).
std::vector<size_t> by_total_time(const rt::ExecutionProfile& t) {
  std::vector<size_t> order(t.ns.size());
  std::iota(order.begin(), order.end(), size_t{0});
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return t.ns[a] > t.ns[b]; });
  return order;
}

struct KindTotal {
  int count = 0;
  int64_t ns = 0;
  double flop = 0;  // gemm: multiply-adds times 2, summed over calls
};

// Floating-point operations of one run of a gemm instruction: 2 * batch * m * n * k.
double gemm_flop(const rt::GemmParams& g) {
  const rt::blas::DotShape& d = g.shape;
  return 2.0 * static_cast<double>(d.batch) * static_cast<double>(d.m) * static_cast<double>(d.n) *
         static_cast<double>(d.k);
}

double gflops(double flop, int64_t ns) { return ns > 0 ? flop / static_cast<double>(ns) : 0.0; }

std::array<KindTotal, kKinds> totals_by_kind(const FunctionProfile& p) {
  std::array<KindTotal, kKinds> by_kind{};
  const std::vector<rt::Instruction>& list = p.executable->instructions;
  for (size_t i = 0; i < list.size(); ++i) {
    KindTotal& k = by_kind[static_cast<size_t>(list[i].kind)];
    ++k.count;
    k.ns += p.timings.ns[i];
    if (list[i].kind == rt::InstrKind::gemm) k.flop += gemm_flop(list[i].gemm) * static_cast<double>(p.timings.calls[i]);
  }
  return by_kind;
}

std::string format(const char* fmt, auto... args) {
  std::string s(static_cast<size_t>(std::snprintf(nullptr, 0, fmt, args...)), '\0');
  std::snprintf(s.data(), s.size() + 1, fmt, args...);
  return s;
}

std::string cut(const std::string& s, size_t width) {
  return s.size() <= width ? s : s.substr(0, width > 3 ? width - 3 : 0) + "...";
}

}  // namespace

std::optional<FunctionProfile> function_profile(const StepFunction& f, int64_t batch) {
  const rt::ExecutionProfile* t = f.profile();
  if (!t || t->runs == 0) return std::nullopt;
  return FunctionProfile{f.signature().name, batch, f.executable(), *t};
}

std::string profile_table(const FunctionProfile& p, size_t origin_width) {
  const rt::ExecutionProfile& t = p.timings;
  const std::vector<rt::Instruction>& list = p.executable->instructions;
  std::string s = format("profile of @%s (batch %lld): %lld runs, %.3f ms, %.3f ms per run\n", p.function.c_str(),
                         static_cast<long long>(p.batch), static_cast<long long>(t.runs), ms(t.run_ns),
                         t.runs ? ms(t.run_ns) / static_cast<double>(t.runs) : 0.0);
  size_t name_width = 4;
  for (const rt::Instruction& ins : list) name_width = std::max(name_width, ins.name.size());
  const int nw = static_cast<int>(name_width);
  s += format("%4s %5s  %-9s  %-*s %7s %10s %10s %6s  %s\n", "rank", "#", "kind", nw, "name", "calls", "total ms",
              "mean us", "% run", "origin");
  int rank = 0;
  for (size_t i : by_total_time(t)) {
    const rt::Instruction& ins = list[i];
    const double mean_us = t.calls[i] ? static_cast<double>(t.ns[i]) / 1e3 / static_cast<double>(t.calls[i]) : 0.0;
    s += format("%4d %5zu  %-9s  %-*s %7lld %10.3f %10.2f %5.1f%%  ", ++rank, i,
                std::string(rt::instr_kind_name(ins.kind)).c_str(), nw, ins.name.c_str(),
                static_cast<long long>(t.calls[i]), ms(t.ns[i]), mean_us, percent(t.ns[i], t.run_ns));
    s += cut(ins.origin, origin_width) + "\n";
  }
  s += "by kind:\n";
  const std::array<KindTotal, kKinds> by_kind = totals_by_kind(p);
  int64_t sum_ns = 0;
  for (size_t k = 0; k < kKinds; ++k) {
    if (!by_kind[k].count) continue;
    sum_ns += by_kind[k].ns;
    s += format("  %-9s %5d instructions %10.3f ms %5.1f%%",
                std::string(rt::instr_kind_name(static_cast<rt::InstrKind>(k))).c_str(), by_kind[k].count,
                ms(by_kind[k].ns), percent(by_kind[k].ns, t.run_ns));
    if (by_kind[k].flop > 0) s += format("  %.1f GFLOP/s", gflops(by_kind[k].flop, by_kind[k].ns));
    s += "\n";
  }
  s += format("  %-9s %5zu instructions %10.3f ms %5.1f%%\n", "all", list.size(), ms(sum_ns), percent(sum_ns, t.run_ns));
  return s;
}

nlohmann::ordered_json profile_json(const std::vector<FunctionProfile>& profiles) {
  nlohmann::ordered_json functions = nlohmann::ordered_json::array();
  for (const FunctionProfile& p : profiles) {
    const rt::ExecutionProfile& t = p.timings;
    const std::vector<rt::Instruction>& list = p.executable->instructions;
    nlohmann::ordered_json rows = nlohmann::ordered_json::array();
    for (size_t i : by_total_time(t)) {
      const rt::Instruction& ins = list[i];
      nlohmann::ordered_json row = {
          {"index", i},
          {"kind", std::string(rt::instr_kind_name(ins.kind))},
          {"name", ins.name},
          {"calls", t.calls[i]},
          {"total_ms", ms(t.ns[i])},
          {"mean_us", t.calls[i] ? static_cast<double>(t.ns[i]) / 1e3 / static_cast<double>(t.calls[i]) : 0.0},
          {"percent", percent(t.ns[i], t.run_ns)},
          {"origin", ins.origin}};
      if (ins.kind == rt::InstrKind::gemm) {
        const rt::blas::DotShape& d = ins.gemm.shape;
        const double flop = gemm_flop(ins.gemm);
        row["gemm"] = {{"dtype", std::string(dtype_name(ins.gemm.dtype))},
                       {"batch", d.batch}, {"m", d.m}, {"n", d.n}, {"k", d.k},
                       {"transpose_a", d.trans_a}, {"transpose_b", d.trans_b}, {"b_shared", d.b_shared},
                       {"alpha", ins.gemm.alpha}, {"beta", ins.gemm.beta}, {"flop", flop},
                       {"gflops", gflops(flop * static_cast<double>(t.calls[i]), t.ns[i])}};
      }
      rows.push_back(std::move(row));
    }
    nlohmann::ordered_json kinds = nlohmann::ordered_json::object();
    const std::array<KindTotal, kKinds> by_kind = totals_by_kind(p);
    for (size_t k = 0; k < kKinds; ++k)
      if (by_kind[k].count)
      {
        nlohmann::ordered_json& kind = kinds[std::string(rt::instr_kind_name(static_cast<rt::InstrKind>(k)))];
        kind = {{"count", by_kind[k].count}, {"total_ms", ms(by_kind[k].ns)}, {"percent", percent(by_kind[k].ns, t.run_ns)}};
        if (by_kind[k].flop > 0) kind["gflops"] = gflops(by_kind[k].flop, by_kind[k].ns);
      }
    functions.push_back({{"function", p.function},
                         {"batch", p.batch},
                         {"runs", t.runs},
                         {"run_ms", ms(t.run_ns)},
                         {"instructions", rows},
                         {"by_kind", kinds}});
  }
  return {{"functions", functions}};
}

}  // namespace mlc
