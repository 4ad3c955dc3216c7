// A clang pass plugin for the instrumented twin: the checks see every load
// the source makes, also those the optimizer moves or removes.
//
// The twin's loads and stores are instrumented after the optimizer has run
// (-fsanitize-coverage=trace-loads,trace-stores), so that what it counts is
// what a GPU's optimized code does. But the optimizer may move a load under
// a branch (`float s = a[i]; if (i < n) c[i] = s;` reads a[i] only when
// i < n once optimized) or drop one whose value is never used: the code as
// written reads past the array, and a GPU's unoptimized (-G) build does, but
// the late instrumentation never sees it. (Stores stay where they run: one
// is dropped only when another store to the same place follows it.)
//
// So, before the optimizer, each load that the optimizer could move or drop
// through a pointer that is not one of the function's own variables gets a
// probe: a call to __cudalab_source_load<N> with its address. Those are the
// loads stored into a variable nothing reads (probed before SROA, which
// drops such variables), and, after SROA has turned the function's scalar
// variables into values, the loads not pinned where they are (see
// `pinned`). A probe touches no memory of the program's (its only effects
// are on memory the program cannot reach), so the optimizer moves and
// removes loads around it as before. After the optimizer, a probe whose
// load is still in its basic block is removed: the late instrumentation
// sees that load. The probes left stand where the source made a load that
// the optimized code no longer makes there; the runtime checks their
// addresses (memcheck) and counts nothing.
#include <llvm/ADT/SmallPtrSet.h>
#include <llvm/ADT/SmallVector.h>
#include <llvm/Analysis/ValueTracking.h>
#include <llvm/IR/DebugInfoMetadata.h>
#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/InstIterator.h>
#include <llvm/IR/Instructions.h>
#include <llvm/IR/IntrinsicInst.h>
#include <llvm/IR/Module.h>
#include <llvm/IR/PassManager.h>
#include <llvm/Passes/PassBuilder.h>
#include <llvm/Passes/PassPlugin.h>
#include <llvm/Transforms/Scalar/SROA.h>
#include <llvm/Transforms/Utils/ModuleUtils.h>

#include <algorithm>
#include <string>
#include <vector>

#include "annotated.h"

using namespace llvm;

namespace {

constexpr const char* kLoadProbe = "__cudalab_source_load";
constexpr const char* kProbedMark = "cudalab.probed";  // a load that has its probe

// The probe for a load of `bytes` bytes (1, 2, 4, 8 or 16), declared so
// that the optimizer knows it touches none of the program's memory.
FunctionCallee probe_for(Module& m, uint64_t bytes) {
  LLVMContext& c = m.getContext();
  const std::string name = kLoadProbe + std::to_string(bytes);
  auto* type = FunctionType::get(Type::getVoidTy(c), {Type::getInt8PtrTy(c)}, false);
  FunctionCallee callee = m.getOrInsertFunction(name, type);
  if (auto* f = dyn_cast<Function>(callee.getCallee())) {
    f->setOnlyAccessesInaccessibleMemory();
    f->setDoesNotThrow();
    f->addFnAttr(Attribute::WillReturn);
#if LLVM_VERSION_MAJOR < 21
    f->addParamAttr(0, Attribute::NoCapture);
#endif
    f->addParamAttr(0, Attribute::ReadNone);
  }
  return callee;
}

bool probed_size(uint64_t bytes) {
  return bytes == 1 || bytes == 2 || bytes == 4 || bytes == 8 || bytes == 16;
}

// Whether an access through `ptr` may touch memory the checks watch: not a
// variable of the function's own (an alloca) nor a global variable of the
// program's (their accesses are not the checks' business).
bool watched(const Value* ptr) {
  const Value* base = getUnderlyingObject(ptr, 0);
  return !isa<AllocaInst>(base) && !isa<GlobalVariable>(base);
}

// The blocks that run whenever `block` runs and only then: it, and the
// chain of blocks after it that each follow the one before alone (a loop's
// body and its increment, before the optimizer merges them).
SmallPtrSet<const BasicBlock*, 8> straight_line_from(const BasicBlock* block) {
  SmallPtrSet<const BasicBlock*, 8> chain = {block};
  for (const BasicBlock* b = block; chain.size() < 8;) {
    const BasicBlock* next = b->getUniqueSuccessor();
    if (!next || next->getUniquePredecessor() != b || !chain.insert(next).second) break;
    b = next;
  }
  return chain;
}

// Whether the optimizer must keep `load` where it is: its value reaches,
// through pure computation in the blocks that run with its own, something
// there that stays (a store, a call of another file's function, a branch or
// a return) or a phi that takes it from there (a loop's running sum). A load whose value is used
// only in other blocks, or not at all, may be moved there or dropped: it
// gets a probe.
bool pinned(const LoadInst* load) {
  const auto chain = straight_line_from(load->getParent());
  SmallPtrSet<const Value*, 16> seen;
  SmallVector<const Value*, 16> work = {load};
  while (!work.empty()) {
    const Value* v = work.pop_back_val();
    for (const User* u : v->users()) {
      const auto* i = dyn_cast<Instruction>(u);
      if (!i || !seen.insert(i).second) continue;
      if (const auto* phi = dyn_cast<PHINode>(i)) {
        for (unsigned k = 0; k < phi->getNumIncomingValues(); ++k)
          if (phi->getIncomingValue(k) == v && chain.count(phi->getIncomingBlock(k))) return true;
        continue;
      }
      if (!chain.count(i->getParent())) continue;
      // A call to a function of this file may be inlined, and the load
      // then moved to where the inlined code uses it: not a place that stays.
      if (const auto* call = dyn_cast<CallBase>(i);
          call && call->getCalledFunction() && !call->getCalledFunction()->isDeclaration())
        continue;
      if (i->mayHaveSideEffects() || i->isTerminator()) return true;
      work.push_back(i);
    }
  }
  return false;
}

// Whether `f` is the program's own code: not the simulator's headers
// (cuRAND's, CUB's, Thrust's shims), nor the system's. Their loads are the
// library's, not the student's; and a probe adds to a function's cost when
// the inliner weighs it, so probing them would change which of them are
// inlined, and so the lines the checks name.
bool programs_own(const Function& f) {
  const DISubprogram* sp = f.getSubprogram();
  if (!sp) return true;
  std::string file = sp->getFilename().str();
  if (file.empty() || file[0] != '/') file = sp->getDirectory().str() + "/" + file;
  for (const char* library : {CUDALAB_LIBRARY_HEADER_DIRS})
    if (file.rfind(library, 0) == 0) return false;
  return true;
}

bool probed_function(const Function& f) {
  return !f.isDeclaration() && !f.hasFnAttribute(Attribute::NoSanitizeCoverage) &&
         !f.getName().startswith("__cudalab_source_") && programs_own(f);
}

// Whether a use of a variable is only a lifetime marker or debug
// information (directly, or through a cast used only so).
bool marker_use(const User* u) {
  if (const auto* i = dyn_cast<IntrinsicInst>(u))
    return i->isLifetimeStartOrEnd() || isa<DbgInfoIntrinsic>(i);
  return isa<BitCastInst>(u) && std::all_of(u->user_begin(), u->user_end(), marker_use);
}

// Whether `load`'s value is only stored into a variable of the function's
// own that nothing ever reads (`float next = a[i + 1];`, never used): SROA
// drops the variable, and the load with it, before any other pass.
bool stored_into_unread_variable(const LoadInst* load) {
  if (!load->hasOneUse()) return false;
  const auto* store = dyn_cast<StoreInst>(*load->user_begin());
  if (!store || store->getValueOperand() != load) return false;
  const auto* variable = dyn_cast<AllocaInst>(store->getPointerOperand()->stripPointerCasts());
  if (!variable) return false;
  return std::all_of(variable->user_begin(), variable->user_end(), [&](const User* u) {
    const auto* s = dyn_cast<StoreInst>(u);
    return (s && s->getPointerOperand() == variable) || marker_use(u);
  });
}

// A probe before each load the optimizer may move or drop: before SROA, the
// loads into variables never read (marked, so that the second round leaves
// them); after it, the loads not pinned where they are.
struct AddProbes : PassInfoMixin<AddProbes> {
  explicit AddProbes(bool before_sroa) : before_sroa_(before_sroa) {}
  PreservedAnalyses run(Function& f, FunctionAnalysisManager&) {
    if (!probed_function(f)) return PreservedAnalyses::all();
    Module& m = *f.getParent();
    const DataLayout& layout = m.getDataLayout();
    std::vector<Instruction*> accesses;
    for (Instruction& i : instructions(f)) {
      auto* l = dyn_cast<LoadInst>(&i);
      if (!l || l->isVolatile() || l->isAtomic() || !watched(l->getPointerOperand()) ||
          l->getMetadata(kProbedMark))
        continue;
      if (before_sroa_ ? stored_into_unread_variable(l) : !pinned(l)) accesses.push_back(l);
    }
    bool changed = false;
    for (Instruction* i : accesses) {
      Value* ptr = cast<LoadInst>(i)->getPointerOperand();
      if (!i->getType()->isSized()) continue;
      const uint64_t bytes = layout.getTypeStoreSize(i->getType()).getFixedSize();
      if (!probed_size(bytes)) continue;
      IRBuilder<> b(i);  // at the access, with its line
      b.CreateCall(probe_for(m, bytes),
                   {b.CreatePointerCast(ptr, Type::getInt8PtrTy(m.getContext()))});
      i->setMetadata(kProbedMark, MDNode::get(m.getContext(), {}));
      changed = true;
    }
    return changed ? PreservedAnalyses::none() : PreservedAnalyses::all();
  }

 private:
  bool before_sroa_;
};

// The probe's size from its name, or false if `call` is none.
bool probe_of(const CallInst* call, uint64_t* bytes) {
  const Function* f = call->getCalledFunction();
  if (!f || !f->getName().startswith(kLoadProbe)) return false;
  return !f->getName().drop_front(std::strlen(kLoadProbe)).getAsInteger(10, *bytes);
}

// After the optimizer: a probe whose load is still beside it goes.
struct DropProbesOfKeptLoads : PassInfoMixin<DropProbesOfKeptLoads> {
  PreservedAnalyses run(Function& f, FunctionAnalysisManager&) {
    if (f.isDeclaration()) return PreservedAnalyses::all();
    const DataLayout& layout = f.getParent()->getDataLayout();
    std::vector<Instruction*> kept;
    for (BasicBlock& block : f) {
      for (Instruction& i : block) {
        auto* call = dyn_cast<CallInst>(&i);
        uint64_t bytes = 0;
        if (!call || !probe_of(call, &bytes)) continue;
        const Value* address = call->getArgOperand(0)->stripPointerCasts();
        for (Instruction& other : block) {
          const auto* l = dyn_cast<LoadInst>(&other);
          if (l && l->getPointerOperand()->stripPointerCasts() == address &&
              layout.getTypeStoreSize(l->getType()).getFixedSize() == bytes) {
            kept.push_back(call);
            break;
          }
        }
      }
    }
    for (Instruction* i : kept) i->eraseFromParent();
    return kept.empty() ? PreservedAnalyses::all() : PreservedAnalyses::none();
  }
};

// Copies and fills of memory in one call (llvm.memcpy, memmove, memset: a
// struct or a float4 assigned whole, a loop the optimizer made one copy)
// are no loads or stores to the late instrumentation, which would not see
// them: each gets a call of __cudalab_access_span before it for the memory
// it reads and for what it writes, unless that is one of the function's own
// variables. The span is reported as the accesses a GPU makes for it:
// pieces of its alignment, up to 16 bytes (a float4's one 16-byte load, a
// struct of five floats' five 4-byte ones), or, where its fields
// (tbaa.struct) leave padding between them, one access a field (nvcc
// copies such a struct field by field, never its padding).
struct ProbeCopies : PassInfoMixin<ProbeCopies> {
  struct Field {
    uint64_t at, size;
  };
  // The fields of a copy of `length` bytes (tbaa.struct: offset, size and
  // type of each) when they leave padding between them and are few enough
  // to report one by one; else none.
  static std::vector<Field> padded_fields(const MemIntrinsic& copy) {
    const MDNode* md = copy.getMetadata(LLVMContext::MD_tbaa_struct);
    const auto* length = dyn_cast<ConstantInt>(copy.getLength());
    if (!md || !length || md->getNumOperands() % 3 != 0 || md->getNumOperands() > 3 * 16) return {};
    std::vector<Field> fields;
    bool padding = false;
    uint64_t end = 0;
    for (unsigned k = 0; k < md->getNumOperands(); k += 3) {
      const Field f{mdconst::extract<ConstantInt>(md->getOperand(k))->getZExtValue(),
                    mdconst::extract<ConstantInt>(md->getOperand(k + 1))->getZExtValue()};
      padding |= f.at != end;
      end = f.at + f.size;
      if (probed_size(f.size) && end <= length->getZExtValue()) fields.push_back(f);
    }
    return padding || end != length->getZExtValue() ? fields : std::vector<Field>{};
  }

  PreservedAnalyses run(Function& f, FunctionAnalysisManager&) {
    std::vector<MemIntrinsic*> copies;
    for (Instruction& i : instructions(f))
      if (auto* m = dyn_cast<MemIntrinsic>(&i)) copies.push_back(m);
    if (copies.empty()) return PreservedAnalyses::all();
    Module& m = *f.getParent();
    LLVMContext& c = m.getContext();
    FunctionCallee span =
        m.getOrInsertFunction("__cudalab_access_span", Type::getVoidTy(c), Type::getInt8PtrTy(c),
                              Type::getInt64Ty(c), Type::getInt32Ty(c), Type::getInt1Ty(c));
    for (MemIntrinsic* copy : copies) {
      IRBuilder<> b(copy);
      const auto* from = dyn_cast<MemTransferInst>(copy);
      const uint64_t align =
          std::min<uint64_t>({copy->getDestAlign().valueOrOne().value(),
                              from ? from->getSourceAlign().valueOrOne().value() : 16, 16});
      const std::vector<Field> fields = padded_fields(*copy);
      auto report = [&](Value* ptr, bool write) {
        if (!watched(ptr)) return;
        Value* p = b.CreatePointerCast(ptr, b.getInt8PtrTy());
        for (const Field& field : fields)
          b.CreateCall(span,
                       {b.CreateConstGEP1_64(b.getInt8Ty(), p, field.at), b.getInt64(field.size),
                        b.getInt32(uint32_t(field.size)), b.getInt1(write)});
        if (fields.empty())
          b.CreateCall(span, {p, b.CreateZExtOrTrunc(copy->getLength(), b.getInt64Ty()),
                              b.getInt32(uint32_t(align)), b.getInt1(write)});
      };
      if (from) report(from->getRawSource(), false);
      report(copy->getRawDest(), true);
    }
    return PreservedAnalyses::none();
  }
};

// The program's global variables: a constructor tells the runtime where each
// lies (__cudalab_device_global), so that a trace records a kernel's
// accesses to them (a GPU's kernel reaches only __device__, __constant__
// and __managed__ variables among them) and counts reads of the
// __constant__ ones (kernel_language.h marks those with an annotation) for
// the constant cache.
struct RegisterGlobals : PassInfoMixin<RegisterGlobals> {
  PreservedAnalyses run(Module& m, ModuleAnalysisManager&) {
    SmallPtrSet<GlobalVariable*, 16> constants;
    for (GlobalVariable* v : cudalab::passes::annotated<GlobalVariable>(m, "cudalab_constant"))
      constants.insert(v);
    std::vector<GlobalVariable*> globals;
    for (GlobalVariable& v : m.globals()) {
      const bool constant = constants.count(&v) != 0;
      if (v.isDeclaration() || v.isThreadLocal() || v.hasSection() ||
          v.getName().startswith("llvm.") || v.getName().startswith("__cudalab") ||
          (v.isConstant() && !constant) || v.hasPrivateLinkage())
        continue;
      globals.push_back(&v);
    }
    if (globals.empty()) return PreservedAnalyses::all();
    LLVMContext& c = m.getContext();
    Function* ctor = Function::Create(FunctionType::get(Type::getVoidTy(c), false),
                                      GlobalValue::InternalLinkage, "cudalab.globals", m);
    IRBuilder<> b(BasicBlock::Create(c, "", ctor));
    FunctionCallee mark =
        m.getOrInsertFunction("__cudalab_device_global", Type::getVoidTy(c), Type::getInt8PtrTy(c),
                              Type::getInt64Ty(c), Type::getInt8PtrTy(c), Type::getInt32Ty(c));
    for (GlobalVariable* v : globals)
      b.CreateCall(mark, {b.CreatePointerCast(v, Type::getInt8PtrTy(c)),
                          b.getInt64(m.getDataLayout().getTypeAllocSize(v->getValueType())),
                          b.CreateGlobalStringPtr(v->getName(), "cudalab.name"),
                          b.getInt32(constants.count(v) ? 1 : 0)});
    b.CreateRetVoid();
    appendToGlobalCtors(m, ctor, 0);
    return PreservedAnalyses::none();
  }
};

}  // namespace

extern "C" LLVM_ATTRIBUTE_WEAK PassPluginLibraryInfo llvmGetPassPluginInfo() {
  return {LLVM_PLUGIN_API_VERSION, "cudalab-source-accesses", "1", [](PassBuilder& pb) {
            pb.registerPipelineStartEPCallback([](ModulePassManager& mpm, OptimizationLevel level) {
              mpm.addPass(RegisterGlobals());
              if (level == OptimizationLevel::O0) return;  // nothing moves: the late calls see all
              FunctionPassManager fpm;
              fpm.addPass(AddProbes(true));
              fpm.addPass(SROAPass());
              fpm.addPass(AddProbes(false));
              mpm.addPass(createModuleToFunctionPassAdaptor(std::move(fpm)));
            });
            pb.registerOptimizerLastEPCallback([](ModulePassManager& mpm, OptimizationLevel level) {
              mpm.addPass(createModuleToFunctionPassAdaptor(ProbeCopies()));
              if (level == OptimizationLevel::O0) return;
              mpm.addPass(createModuleToFunctionPassAdaptor(DropProbesOfKeptLoads()));
            });
          }};
}
