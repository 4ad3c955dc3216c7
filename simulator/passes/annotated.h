// The passes' reading of clang's `annotate` attribute: the globals (the
// functions `__global__` marks, the variables `__constant__` marks:
// cudalab/kernel_language.h) that carry one annotation, from the module's
// llvm.global.annotations. Not a public header.
#pragma once

#include <llvm/IR/Constants.h>
#include <llvm/IR/GlobalVariable.h>
#include <llvm/IR/Module.h>

#include <vector>

namespace cudalab::passes {

// The module's globals of type T (llvm::Function, llvm::GlobalVariable)
// annotated `text`, in the order of the annotations.
template <class T>
std::vector<T*> annotated(llvm::Module& m, llvm::StringRef text) {
  std::vector<T*> found;
  llvm::GlobalVariable* annotations = m.getNamedGlobal("llvm.global.annotations");
  if (!annotations || !annotations->hasInitializer()) return found;
  auto* list = llvm::dyn_cast<llvm::ConstantArray>(annotations->getInitializer());
  if (!list) return found;
  for (llvm::Use& entry : list->operands()) {
    auto* fields = llvm::dyn_cast<llvm::ConstantStruct>(entry.get());
    if (!fields || fields->getNumOperands() < 2) continue;
    auto* g = llvm::dyn_cast<T>(fields->getOperand(0)->stripPointerCasts());
    auto* name = llvm::dyn_cast<llvm::GlobalVariable>(fields->getOperand(1)->stripPointerCasts());
    if (!g || !name || !name->hasInitializer()) continue;
    auto* data = llvm::dyn_cast<llvm::ConstantDataSequential>(name->getInitializer());
    if (data && data->isCString() && data->getAsCString() == text) found.push_back(g);
  }
  return found;
}

}  // namespace cudalab::passes
