// What artifacts' writer and reader share (runtime/artifact.h): the version,
// lookup, and linking the kernels an artifact carries.
#include "runtime/artifact.h"

#include "runtime/native_code.h"

namespace mlc::rt {

std::string_view mlc_version() { return "0.7.0"; }

const CompiledFunction* Artifact::find(std::string_view name, int64_t batch, bool sharded) const {
  for (const CompiledFunction& f : functions)
    if (f.name == name && f.batch == batch && f.sharded == sharded) return &f;
  return nullptr;
}

Status link_artifact(Artifact& a) {
  MLC_TRY(LinkedCode linked, link_native_code(a.code));
  for (CompiledFunction& f : a.functions) {
    for (KernelInfo& k : f.executable->kernels) k.fn = linked.fns[static_cast<size_t>(k.object)];
    f.executable->code = linked.owner;
  }
  return {};
}

}  // namespace mlc::rt
