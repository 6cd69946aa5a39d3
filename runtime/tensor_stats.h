// A statistic of rt::Tensor (runtime/tensor.h): how many buffers tensors have
// allocated in this process (owned ones, std::aligned_alloc; views allocate
// none). Tests read it around a loop's steps to assert they allocate no
// tensor (tests/tools/train_loop_test.cc), beside a counting operator new.
#pragma once

#include <cstdint>

namespace mlc::rt {

int64_t tensor_buffers_allocated();

}  // namespace mlc::rt
