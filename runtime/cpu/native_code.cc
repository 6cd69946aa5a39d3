#include "runtime/cpu/native_code.h"

#include <mutex>

#include <llvm/ExecutionEngine/Orc/ExecutionUtils.h>
#include <llvm/ExecutionEngine/Orc/LLJIT.h>
#include <llvm/Object/ObjectFile.h>
#include <llvm/Support/DynamicLibrary.h>
#include <llvm/Support/MemoryBuffer.h>
#include <llvm/Support/TargetSelect.h>
#include <llvm/Support/raw_ostream.h>
#include <llvm/TargetParser/Host.h>

#include "runtime/kernel_imports.h"

namespace mlc::rt {

namespace {

std::string to_string(llvm::Error e) {
  std::string s;
  llvm::raw_string_ostream os(s);
  os << e;
  return s;
}

void initialize() {
  static std::once_flag once;
  std::call_once(once, [] {
    llvm::InitializeNativeTarget();
    llvm::InitializeNativeTargetAsmPrinter();
    // The vector math vectorized kernels call (_ZGVdN8v_expf, ...).
    llvm::sys::DynamicLibrary::LoadLibraryPermanently("libmvec.so.1");
  });
}

struct Linked {
  std::unique_ptr<llvm::orc::LLJIT> jit;
};

}  // namespace

// Before linking: `o` is an ELF object that defines its symbol as a function
// (and no other global symbol), and whose undefined symbols are all kernel
// imports (runtime/kernel_imports.h).
Status check_kernel_object(const ObjectFile& o) {
  const std::string name = "kernel object '" + o.symbol + "'";
  auto obj = llvm::object::ObjectFile::createObjectFile(llvm::MemoryBufferRef(o.bytes, o.symbol));
  if (!obj) return make_error(name + " is not a loadable object: " + to_string(obj.takeError()));
  if (!(*obj)->isELF()) return make_error(name + " is not a loadable object: not ELF");
  // Every problem is found before any is reported, so that the first said is
  // the most telling: the symbol missing, then a foreign reference, then a
  // further definition.
  bool defines = false;
  std::string foreign, extra;
  for (const llvm::object::SymbolRef& sym : (*obj)->symbols()) {
    auto flags = sym.getFlags();
    auto symbol = sym.getName();
    if (!flags || !symbol) {
      llvm::consumeError(flags.takeError());
      llvm::consumeError(symbol.takeError());
      return make_error(name + " is not a loadable object: a symbol cannot be read");
    }
    using Sym = llvm::object::SymbolRef;
    if ((*flags & Sym::SF_FormatSpecific) || symbol->empty()) continue;  // the null, file and section symbols
    if (*flags & Sym::SF_Undefined) {
      if (foreign.empty() && !is_kernel_import(*symbol)) foreign = symbol->substr(0, 80).str();
      continue;
    }
    if (!(*flags & Sym::SF_Global)) continue;  // the object's own
    auto type = sym.getType();
    auto section = sym.getSection();
    const bool function = type && *type == Sym::ST_Function && section && *section != (*obj)->section_end() &&
                          !(*flags & (Sym::SF_Absolute | Sym::SF_Common));
    if (!type) llvm::consumeError(type.takeError());
    if (!section) llvm::consumeError(section.takeError());
    if (*symbol == o.symbol && function) defines = true;
    else if (extra.empty()) extra = symbol->substr(0, 80).str();
  }
  if (!defines) return make_error(name + " does not define its symbol");
  if (!foreign.empty()) return make_error(name + " refers to '" + foreign + "', which kernels never call");
  if (!extra.empty()) return make_error(name + " defines '" + extra + "', which is not its kernel function");
  return {};
}

std::string host_cpu() { return llvm::sys::getHostCPUName().str(); }

std::string host_features() {
  std::string s;
  for (const auto& f : llvm::sys::getHostCPUFeatures()) s += (s.empty() ? "" : ",") + std::string(f.second ? "+" : "-") + f.first().str();
  return s;
}

std::string missing_host_features(const std::string& features) {
  const auto host = llvm::sys::getHostCPUFeatures();
  std::string missing;
  size_t pos = 0;
  while (pos <= features.size()) {
    size_t comma = features.find(',', pos);
    if (comma == std::string::npos) comma = features.size();
    std::string f = features.substr(pos, comma - pos);
    pos = comma + 1;
    if (f.size() < 2 || f[0] != '+') continue;
    auto it = host.find(f.substr(1));
    if (it == host.end() || !it->second) missing += (missing.empty() ? "" : ",") + f.substr(1);
  }
  return missing;
}

Expected<LinkedCode> link_native_code(const CodeModule& code) {
  initialize();
  LinkedCode out;
  if (code.objects.empty()) return out;
  std::string missing = missing_host_features(code.features);
  if (!missing.empty())
    return make_error("the kernels were compiled for CPU '" + code.arch + "', whose features this CPU ('" + host_cpu() +
                      "') lacks: " + missing);
  auto jit = llvm::orc::LLJITBuilder().create();
  if (!jit) return make_error("cannot start the kernel linker: " + to_string(jit.takeError()));
  for (const ObjectFile& o : code.objects) MLC_CHECK_OK(check_kernel_object(o));
  // References resolve among the objects and, for kernel imports only, in this process.
  auto gen = llvm::orc::DynamicLibrarySearchGenerator::GetForCurrentProcess(
      (*jit)->getDataLayout().getGlobalPrefix(),
      [](const llvm::orc::SymbolStringPtr& symbol) { return is_kernel_import(std::string_view(*symbol)); });
  if (!gen) return make_error("cannot start the kernel linker: " + to_string(gen.takeError()));
  (*jit)->getMainJITDylib().addGenerator(std::move(*gen));
  for (const ObjectFile& o : code.objects) {
    auto buf = llvm::MemoryBuffer::getMemBufferCopy(o.bytes, o.symbol);
    if (llvm::Error e = (*jit)->addObjectFile(std::move(buf)))
      return make_error("kernel object '" + o.symbol + "' is not a loadable object: " + to_string(std::move(e)));
  }
  for (const ObjectFile& o : code.objects) {
    auto addr = (*jit)->lookup(o.symbol);
    if (!addr) return make_error("kernel object '" + o.symbol + "' does not link: " + to_string(addr.takeError()));
    out.fns.push_back(addr->toPtr<CompiledKernelFn>());
  }
  auto owner = std::make_shared<Linked>();
  owner->jit = std::move(*jit);
  out.owner = std::move(owner);
  return out;
}

}  // namespace mlc::rt
