#include "runtime/index_check.h"

#include <cstdint>
#include <cstring>
#include <string>

#include "ir/diagnostics.h"

namespace mlc::rt {

Error index_out_of_range(const KernelInfo& k, const std::byte* const* buffers) {
  for (const IndexCheck& c : k.index_checks) {
    const TensorType& t = k.types[static_cast<size_t>(c.input)];
    const std::byte* p = buffers[c.input];
    const int64_t n = t.num_elements();
    for (int64_t i = 0; i < n; ++i) {
      int64_t v;
      if (t.dtype == DType::i32) {
        int32_t x;
        std::memcpy(&x, p + i * 4, 4);
        v = x;
      } else {
        std::memcpy(&v, p + i * 8, 8);
      }
      if (v < 0 || v >= c.bound)
        return error_at(c.loc, c.op + ": index " + std::to_string(v) + " out of range [0, " + std::to_string(c.bound) +
                                   ") along axis " + std::to_string(c.axis));
    }
  }
  return make_error("mlc internal error: kernel " + k.name + " reported an index out of range, and its indices are in range");
}

}  // namespace mlc::rt
