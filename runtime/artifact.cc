// What artifacts' writer and reader share (runtime/artifact.h): the version,
// lookup, and loading the code an artifact carries.
#include "runtime/artifact.h"

#include "runtime/target.h"

namespace mlc::rt {

std::string_view mlc_version() { return "0.7.0"; }

const CompiledFunction* Artifact::find(std::string_view name, int64_t batch, bool sharded) const {
  for (const CompiledFunction& f : functions)
    if (f.name == name && f.batch == batch && f.sharded == sharded) return &f;
  return nullptr;
}

Expected<std::shared_ptr<const void>> load_artifact_code(const Artifact& a) {
  MLC_TRY(std::shared_ptr<const LoadedCode> code, load_code(a.code));
  return std::shared_ptr<const void>(std::move(code));
}

}  // namespace mlc::rt
