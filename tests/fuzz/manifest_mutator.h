// Well-formed but wrong manifests for fuzz_artifact: one to three edits of an
// artifact manifest's parsed values, written back as JSON. Most edit a
// function's executable and keep its indices in range (an arena slot moved to
// another multiple of 64 inside the arena, an operand or result naming another
// slot, most often one of its type, two instructions swapped, the arena
// resized, a gemm's transpose or b_shared flag flipped); the others edit any
// integer, boolean or list (its order or length). Byte mutations of the text
// mostly break its JSON or a field's type; these reach the checks of what the
// values mean (runtime/verify_executable.h).
//
// Deterministic: the same text and seed give the same edits. Empty when the
// text is not a JSON object, or an edit meets a value of another type than it
// expects.
#pragma once

#include <algorithm>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <random>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "ir/dtype.h"

namespace mlc::fuzz {

namespace manifest_mutator_detail {

using Json = nlohmann::ordered_json;

struct Leaves {
  std::vector<Json*> integers, booleans, lists;
};

// An integer leaf's value (unsigned ones past int64_t wrap).
inline int64_t integer(const Json& j) {
  return j.is_number_unsigned() ? static_cast<int64_t>(j.get<uint64_t>()) : j.get<int64_t>();
}

inline void collect(Json& j, Leaves& out) {
  if (j.is_number_integer()) out.integers.push_back(&j);
  if (j.is_boolean()) out.booleans.push_back(&j);
  if (j.is_array() && !j.empty()) out.lists.push_back(&j);
  if (j.is_structured())
    for (Json& child : j) collect(child, out);
}

// A slot's bytes from its type, or -1 where it has none.
inline int64_t slot_bytes(const Json& slot) {
  if (!slot.is_object() || !slot.contains("type") || !slot["type"].is_object()) return -1;
  const Json& t = slot["type"];
  if (!t.contains("dtype") || !t["dtype"].is_string() || !t.contains("shape") || !t["shape"].is_array()) return -1;
  const auto dtype = parse_dtype(t["dtype"].get<std::string>());
  if (!dtype) return -1;
  int64_t elements = 1;
  for (const Json& d : t["shape"]) {
    if (!d.is_number_integer() || integer(d) < 0 || integer(d) > (int64_t{1} << 40)) return -1;
    elements *= integer(d);
    if (elements > (int64_t{1} << 40)) return -1;
  }
  return elements * dtype_size(*dtype);
}

// Another integer of the kind a wrong manifest holds: a neighbour, a
// 64-byte step (arena offsets), 0, a power of two, or another integer of it
// (wrapping, as unsigned arithmetic does, at the ends of int64_t).
inline int64_t other_integer(int64_t v, const Leaves& leaves, std::mt19937_64& rng) {
  const uint64_t u = static_cast<uint64_t>(v);
  switch (rng() % 9) {
    case 0: return 0;
    case 1: return static_cast<int64_t>(u + 1);
    case 2: return static_cast<int64_t>(u - 1);
    case 3: return static_cast<int64_t>(u + 64);
    case 4: return static_cast<int64_t>(u - 64);
    case 5: return static_cast<int64_t>(u * 2);
    case 6: return v / 2;
    case 7: return int64_t{1} << (rng() % 41);
    default: return integer(*leaves.integers[rng() % leaves.integers.size()]);
  }
}

// One edit of an executable `e` that keeps every index in range: a slot
// moved to another slot's offset or another multiple of 64 inside the arena,
// an operand or result naming another slot, two instructions swapped, the
// arena resized. False where `e` has nothing to edit.
inline bool mutate_executable(Json& e, std::mt19937_64& rng) {
  if (!e.is_object() || !e.contains("slots") || !e.contains("instructions") || !e.contains("arena_bytes")) return false;
  Json& slots = e["slots"];
  Json& instructions = e["instructions"];
  if (!slots.is_array() || slots.empty() || !instructions.is_array()) return false;
  const int64_t arena_bytes =
      e["arena_bytes"].is_number_integer() ? std::max<int64_t>(0, integer(e["arena_bytes"])) : 0;
  const uint64_t arena = static_cast<uint64_t>(arena_bytes);
  switch (rng() % 5) {
    case 0: {  // an arena slot at another multiple of 64 where it fits in the arena
      Json& slot = slots[rng() % slots.size()];
      const int64_t bytes = slot_bytes(slot);
      if (bytes < 0 || bytes > arena_bytes || !slot.contains("arg") || slot["arg"] != -1) return false;
      slot["offset"] = static_cast<int64_t>(rng() % ((arena - static_cast<uint64_t>(bytes)) / 64 + 1) * 64);
      return true;
    }
    case 1: {  // an operand or a result naming another slot, most often one of the same type
      if (instructions.empty()) return false;
      Json& ins = instructions[rng() % instructions.size()];
      if (!ins.is_object() || !ins.contains("operands") || !ins.contains("result")) return false;
      Json& operands = ins["operands"];
      Json& target =
          rng() % 2 && operands.is_array() && !operands.empty() ? operands[rng() % operands.size()] : ins["result"];
      int64_t slot = static_cast<int64_t>(rng() % slots.size());
      if (rng() % 4 && target.is_number_integer() && integer(target) >= 0 &&
          integer(target) < static_cast<int64_t>(slots.size()))
        for (size_t tries = 0; tries < 8; ++tries) {
          const size_t s = rng() % slots.size();
          if (slots[s].is_object() && slots[integer(target)].is_object() &&
              slots[s].value("type", Json()) == slots[integer(target)].value("type", Json())) {
            slot = static_cast<int64_t>(s);
            break;
          }
        }
      target = slot;
      return true;
    }
    case 2: {  // another order of two instructions
      if (instructions.size() < 2) return false;
      std::swap(instructions[rng() % instructions.size()], instructions[rng() % instructions.size()]);
      return true;
    }
    case 3:  // another arena: 64 bytes more or less, twice, 3 GiB
      e["arena_bytes"] = std::vector<int64_t>{static_cast<int64_t>(arena + 64), arena_bytes - 64,
                                              static_cast<int64_t>(arena * 2), int64_t{3} << 30}[rng() % 4];
      return true;
    default: {  // a gemm's flag flipped
      for (size_t tries = 0; tries < instructions.size(); ++tries) {
        Json& ins = instructions[rng() % instructions.size()];
        if (!ins.is_object() || !ins.contains("gemm") || !ins["gemm"].is_object()) continue;
        Json& g = ins["gemm"];
        for (const char* flag : {"trans_a", "trans_b", "b_shared"})
          if (rng() % 2 && g.contains(flag) && g[flag].is_boolean()) g[flag] = !g[flag].get<bool>();
        return true;
      }
      return false;
    }
  }
}

// One edit anywhere: an integer, a boolean, or a list's order or length.
inline void mutate_value(Json& m, std::mt19937_64& rng) {
  Leaves leaves;
  collect(m, leaves);
  const uint64_t what = rng() % 8;
  if (what < 5 && !leaves.integers.empty()) {
    Json* v = leaves.integers[rng() % leaves.integers.size()];
    *v = other_integer(integer(*v), leaves, rng);
  } else if (what == 5 && !leaves.booleans.empty()) {
    Json* b = leaves.booleans[rng() % leaves.booleans.size()];
    *b = !b->get<bool>();
  } else if (!leaves.lists.empty()) {
    Json& list = *leaves.lists[rng() % leaves.lists.size()];
    const size_t i = rng() % list.size(), j = rng() % list.size();
    switch (rng() % 3) {
      case 0: std::swap(list[i], list[j]); break;     // another order
      case 1: list.erase(i); break;                    // one fewer
      default: list.push_back(Json(list[i])); break;  // one more, a copy
    }
  }
}

}  // namespace manifest_mutator_detail

// One to three edits, each of a function's executable (most of the time) or
// of any value of the manifest.
inline std::string mutate_manifest(std::string_view text, uint64_t seed) try {
  using namespace manifest_mutator_detail;
  Json m = Json::parse(text.begin(), text.end(), nullptr, false);
  if (m.is_discarded() || !m.is_object()) return {};
  std::mt19937_64 rng(seed);
  const int edits = 1 + static_cast<int>(rng() % 3);
  for (int e = 0; e < edits; ++e) {
    Json* functions = m.contains("functions") ? &m["functions"] : nullptr;
    bool done = false;
    if (rng() % 4 && functions && functions->is_array() && !functions->empty()) {
      Json& f = (*functions)[rng() % functions->size()];
      done = f.is_object() && f.contains("executable") && mutate_executable(f["executable"], rng);
    }
    if (!done) mutate_value(m, rng);
  }
  return m.dump();
} catch (const nlohmann::json::exception&) {  // a value of another type than the edit expects
  return {};
}

}  // namespace mlc::fuzz
