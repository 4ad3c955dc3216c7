// A clang pass plugin for the simulator's plain build: each kernel that waits
// only at __syncthreads() gets a second body that runs all the threads of a
// block on one stack, as a loop over them, instead of one fiber per thread
// switched at every barrier.
//
// The second body is a small state machine. Each thread keeps a frame: a
// word saying where it stands (at the kernel's start, after barrier k, or
// returned) and every local variable or value that a barrier separates from
// its use. A phase runs the threads one after another, each from where it
// stands up to its next barrier or its return; phases repeat until every
// thread has returned. The order is the one the fibers give in-order: the
// first phase in thread order; each next one starts with the thread that
// arrived last at the barrier (the fibers let it go on at once) and goes on
// around the block; when the last thread of a phase returned instead, the
// next phase keeps the order.
//
// At run time the kernel's entry asks the runtime whether the block may run
// so (cudalab_block_loops_offered: the plain build, in-order schedule, no
// trace, not cooperative, CUDALAB_BLOCK_LOOPS not off); if not, each thread
// runs the original body on its fiber as before. A kernel that calls any
// other waiting operation (warp operations, votes of __syncthreads_count,
// tile or grid syncs), calls through a pointer, unwinds, or sizes a local
// array at run time keeps the fibers only.
#include <llvm/ADT/SmallPtrSet.h>
#include <llvm/IR/Constants.h>
#include <llvm/IR/DebugInfoMetadata.h>
#include <llvm/IR/Dominators.h>
#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/InstIterator.h>
#include <llvm/IR/Instructions.h>
#include <llvm/IR/IntrinsicInst.h>
#include <llvm/IR/Module.h>
#include <llvm/IR/PassManager.h>
#include <llvm/IR/Verifier.h>
#include <llvm/Passes/PassBuilder.h>
#include <llvm/Passes/PassPlugin.h>
#include <llvm/Transforms/Utils/BasicBlockUtils.h>
#include <llvm/Transforms/Utils/Cloning.h>
#include <llvm/Transforms/Utils/Local.h>

#include <map>
#include <vector>

using namespace llvm;

namespace {

constexpr const char* kBarrier = "_Z13__syncthreadsv";

// The functions that `__global__` marks (cudalab/kernel_language.h).
std::vector<Function*> kernels(Module& m) {
  std::vector<Function*> found;
  GlobalVariable* annotations = m.getNamedGlobal("llvm.global.annotations");
  if (!annotations || !annotations->hasInitializer()) return found;
  auto* list = dyn_cast<ConstantArray>(annotations->getInitializer());
  if (!list) return found;
  for (Use& entry : list->operands()) {
    auto* fields = dyn_cast<ConstantStruct>(entry.get());
    if (!fields || fields->getNumOperands() < 2) continue;
    auto* f = dyn_cast<Function>(fields->getOperand(0)->stripPointerCasts());
    auto* text = dyn_cast<GlobalVariable>(fields->getOperand(1)->stripPointerCasts());
    if (!f || !text || !text->hasInitializer()) continue;
    auto* data = dyn_cast<ConstantDataSequential>(text->getInitializer());
    if (data && data->isCString() && data->getAsCString() == "cudalab_kernel") found.push_back(f);
  }
  return found;
}

// The runtime's operations that make a thread wait for others. A kernel
// reaching one of them (other than its own __syncthreads calls) keeps the
// fibers.
bool is_waiting_operation(StringRef name) {
  for (const char* part : {"__syncthreads", "block_barrier", "warp_op", "active_mask", "tile_sync",
                           "grid_sync", "lockstep"})
    if (name.contains(part)) return true;
  return false;
}

class Eligibility {
 public:
  // Whether calling `f` may make the thread wait for another.
  bool may_wait(Function* f) {
    auto [it, fresh] = known_.try_emplace(f, true);  // assumed during recursion
    if (!fresh) return it->second;
    bool waits;
    if (f->isIntrinsic()) {
      waits = false;
    } else if (f->isDeclaration()) {
      waits = is_waiting_operation(f->getName());
    } else {
      waits = false;
      for (Instruction& i : instructions(*f))
        if (calls_waiting(i, /*barrier_allowed=*/false)) {
          waits = true;
          break;
        }
    }
    known_[f] = waits;
    return waits;
  }

  // Whether instruction `i` may wait (or leaves the kernel in a way a loop
  // over threads cannot follow).
  bool calls_waiting(Instruction& i, bool barrier_allowed) {
    if (isa<InvokeInst>(i) || isa<CallBrInst>(i) || isa<LandingPadInst>(i) || isa<ResumeInst>(i))
      return true;
    auto* call = dyn_cast<CallInst>(&i);
    if (!call) return false;
    if (call->isInlineAsm()) return false;
    Function* callee = call->getCalledFunction();
    if (!callee) return true;  // through a pointer: could be anything
    if (callee->hasFnAttribute(Attribute::ReturnsTwice)) return true;
    if (callee->getName() == kBarrier) return !barrier_allowed;
    return may_wait(callee);
  }

 private:
  std::map<Function*, bool> known_;
};

// A kernel the loops can run: it calls __syncthreads() itself, waits at
// nothing else, and keeps its locals in fixed-size stack slots.
bool eligible(Function& f, Eligibility& e) {
  if (f.isDeclaration() || f.hasFnAttribute(Attribute::OptimizeNone) || f.isVarArg() ||
      !f.getReturnType()->isVoidTy())
    return false;
  bool barrier = false;
  for (Instruction& i : instructions(f)) {
    if (auto* a = dyn_cast<AllocaInst>(&i))
      if (!a->isStaticAlloca()) return false;
    if (auto* call = dyn_cast<CallInst>(&i)) {
      if (Function* callee = call->getCalledFunction()) {
        if (callee->getName() == kBarrier) barrier = true;
        if (callee->getIntrinsicID() == Intrinsic::stacksave) return false;
      }
    }
    if (e.calls_waiting(i, /*barrier_allowed=*/true)) return false;
  }
  return barrier;
}

struct Runtime {
  FunctionCallee offered, frame, enter;
};

Runtime runtime_of(Module& m) {
  LLVMContext& c = m.getContext();
  Type* i8p = Type::getInt8PtrTy(c);
  Type* i32 = Type::getInt32Ty(c);
  Type* i64 = Type::getInt64Ty(c);
  Runtime r;
  r.offered = m.getOrInsertFunction("cudalab_block_loops_offered", Type::getInt1Ty(c));
  r.frame = m.getOrInsertFunction("cudalab_block_loops_frame", i8p, i64, PointerType::get(i32, 0));
  r.enter = m.getOrInsertFunction("cudalab_block_loops_enter", Type::getVoidTy(c), i32);
  // Not marked noalias (as a fresh allocation would be): with that, the
  // optimizer miscompiled NVIDIA's FDTD3d, and it gained nothing measurable.
  return r;
}

// Builds `kernel`'s body as loops over the block's threads; returns it.
Function* build_block_body(Function& kernel, const Runtime& rt) {
  ValueToValueMapTy map;
  Function* g = CloneFunction(&kernel, map);
  g->setName(kernel.getName() + ".cudalab_block_loops");
  g->setLinkage(GlobalValue::InternalLinkage);
  g->setComdat(nullptr);
  g->addFnAttr(Attribute::NoInline);
  LLVMContext& c = g->getContext();
  const DataLayout& dl = g->getParent()->getDataLayout();
  Type* i1 = Type::getInt1Ty(c);
  Type* i32 = Type::getInt32Ty(c);
  Type* i64 = Type::getInt64Ty(c);
  Type* i8 = Type::getInt8Ty(c);

  // Variable locations and lifetimes describe one thread's stack; the
  // frames below replace it.
  std::vector<Instruction*> barriers, returns, dropped;
  std::vector<AllocaInst*> locals;
  for (Instruction& i : instructions(*g)) {
    if (isa<DbgInfoIntrinsic>(i) || i.isLifetimeStartOrEnd()) {
      dropped.push_back(&i);
    } else if (auto* a = dyn_cast<AllocaInst>(&i)) {
      locals.push_back(a);
    } else if (auto* call = dyn_cast<CallInst>(&i)) {
      if (Function* callee = call->getCalledFunction())
        if (callee->getName() == kBarrier) barriers.push_back(&i);
    } else if (isa<ReturnInst>(i)) {
      returns.push_back(&i);
    }
  }
  for (Instruction* i : dropped) i->eraseFromParent();

  DebugLoc where;
  if (DISubprogram* sp = g->getSubprogram()) where = DILocation::get(c, sp->getLine(), 0, sp);

  BasicBlock* start = &g->getEntryBlock();
  BasicBlock* setup = BasicBlock::Create(c, "setup", g, start);
  BasicBlock* dispatch = BasicBlock::Create(c, "dispatch", g, start);
  BasicBlock* next = BasicBlock::Create(c, "next", g);
  BasicBlock* phase_end = BasicBlock::Create(c, "phase_end", g);
  BasicBlock* done = BasicBlock::Create(c, "done", g);

  // setup: the block's frames, and the loop's own variables.
  IRBuilder<> b(setup);
  b.SetCurrentDebugLocation(where);
  AllocaInst* step_slot = b.CreateAlloca(i32, nullptr, "step");    // in the phase
  AllocaInst* first_slot = b.CreateAlloca(i32, nullptr, "first");  // thread to start it
  AllocaInst* last_slot = b.CreateAlloca(i32, nullptr, "last");    // the last to run
  AllocaInst* last_waits_slot = b.CreateAlloca(i1, nullptr, "last_waits");
  AllocaInst* any_slot = b.CreateAlloca(i1, nullptr, "waiting");
  AllocaInst* threads_slot = b.CreateAlloca(i32, nullptr, "threads.slot");
  const SmallPtrSet<AllocaInst*, 8> loop_variables = {step_slot,       first_slot, last_slot,
                                                      last_waits_slot, any_slot,   threads_slot};
  ConstantInt* placeholder = ConstantInt::get(cast<IntegerType>(i64), 0);
  CallInst* frames = b.CreateCall(rt.frame, {placeholder, threads_slot}, "frames");
  Value* threads = b.CreateLoad(i32, threads_slot, "threads");
  for (AllocaInst* zeroed : {step_slot, first_slot, last_slot})
    b.CreateStore(ConstantInt::get(i32, 0), zeroed);
  b.CreateStore(ConstantInt::getFalse(c), last_waits_slot);
  b.CreateStore(ConstantInt::getFalse(c), any_slot);
  b.CreateBr(dispatch);

  // dispatch: enter thread `tid` (`step` places after the phase's first,
  // around the block) and go to where it stands.
  b.SetInsertPoint(dispatch);
  Value* at = b.CreateAdd(b.CreateLoad(i32, first_slot), b.CreateLoad(i32, step_slot));
  Value* tid = b.CreateSelect(b.CreateICmpUGE(at, threads), b.CreateSub(at, threads), at, "tid");
  auto* offset = cast<Instruction>(
      b.CreateMul(b.CreateZExt(tid, i64), ConstantInt::get(i64, 1), "frame.offset"));
  Value* frame = b.CreateGEP(i8, frames, offset, "frame");
  b.CreateCall(rt.enter, {tid});
  Value* state_ptr = b.CreateBitCast(frame, PointerType::get(i32, 0), "state.ptr");
  Value* state = b.CreateLoad(i32, state_ptr, "state");
  SwitchInst* to = b.CreateSwitch(state, next, unsigned(barriers.size()) + 1);
  to->addCase(ConstantInt::get(cast<IntegerType>(i32), 0), start);

  // Each barrier ends a thread's phase: it records where to go on.
  for (size_t k = 0; k < barriers.size(); ++k) {
    Instruction* call = barriers[k];
    BasicBlock* after =
        SplitBlock(call->getParent(), call->getNextNode(), static_cast<DominatorTree*>(nullptr),
                   nullptr, nullptr, "after_barrier");
    Instruction* br = call->getParent()->getTerminator();
    IRBuilder<> y(br);
    y.SetCurrentDebugLocation(call->getDebugLoc());
    y.CreateStore(ConstantInt::get(i32, uint64_t(k) + 1), state_ptr);
    y.CreateStore(ConstantInt::getTrue(c), any_slot);
    y.CreateStore(tid, last_slot);
    y.CreateStore(ConstantInt::getTrue(c), last_waits_slot);
    y.CreateBr(next);
    br->eraseFromParent();
    call->eraseFromParent();
    to->addCase(ConstantInt::get(cast<IntegerType>(i32), uint64_t(k) + 1), after);
  }
  // A return ends the thread.
  for (Instruction* ret : returns) {
    IRBuilder<> y(ret);
    y.CreateStore(ConstantInt::get(i32, uint32_t(-1)), state_ptr);
    y.CreateStore(tid, last_slot);
    y.CreateStore(ConstantInt::getFalse(c), last_waits_slot);
    y.CreateBr(next);
    ret->eraseFromParent();
  }

  // next: the following thread, or the end of the phase.
  b.SetInsertPoint(next);
  Value* following = b.CreateAdd(b.CreateLoad(i32, step_slot), ConstantInt::get(i32, 1));
  b.CreateStore(following, step_slot);
  b.CreateCondBr(b.CreateICmpULT(following, threads), dispatch, phase_end);
  // phase_end: another phase while any thread waits at a barrier.
  b.SetInsertPoint(phase_end);
  Value* waiting = b.CreateLoad(i1, any_slot);
  b.CreateStore(ConstantInt::getFalse(c), any_slot);
  b.CreateStore(ConstantInt::get(i32, 0), step_slot);
  b.CreateStore(b.CreateSelect(b.CreateLoad(i1, last_waits_slot), b.CreateLoad(i32, last_slot),
                               b.CreateLoad(i32, first_slot)),
                first_slot);
  b.CreateCondBr(waiting, dispatch, done);
  b.SetInsertPoint(done);
  b.CreateRetVoid();

  // Values a barrier separates from their uses now go through the frame:
  // first onto the stack (as slots), then every slot into the frame. A PHI
  // stays a PHI and stores its value where it is: a slot written by the
  // PHI's incoming edges and read at a later use would read what a later
  // loop step had stored there (NVIDIA's FDTD3d came out wrong so).
  auto ours = [&](BasicBlock* bb) {
    return bb == setup || bb == dispatch || bb == next || bb == phase_end || bb == done;
  };
  Instruction* slot_point = setup->getFirstNonPHI();
  for (bool changed = true; changed;) {
    changed = false;
    DominatorTree dt(*g);
    std::vector<Instruction*> demote;
    for (BasicBlock& bb : *g) {
      if (ours(&bb)) continue;
      for (Instruction& i : bb) {
        if (isa<AllocaInst>(i)) continue;
        for (Use& u : i.uses())
          if (!dt.dominates(&i, u)) {
            demote.push_back(&i);
            break;
          }
      }
    }
    for (Instruction* i : demote) {
      changed = true;
      DemoteRegToStack(*i, false, slot_point);
    }
  }

  // The frame: the thread's state word, then each slot.
  std::vector<AllocaInst*> slots;
  for (Instruction& i : instructions(*g))
    if (auto* a = dyn_cast<AllocaInst>(&i))
      if (!loop_variables.count(a)) slots.push_back(a);
  uint64_t size = 4;
  uint64_t align = 16;
  IRBuilder<> f(to);
  for (AllocaInst* a : slots) {
    const uint64_t a_align = a->getAlign().value();
    const uint64_t a_size = dl.getTypeAllocSize(a->getAllocatedType()) *
                            cast<ConstantInt>(a->getArraySize())->getZExtValue();
    size = alignTo(size, a_align);
    Value* at = f.CreateGEP(i8, frame, ConstantInt::get(i64, size));
    Value* typed = f.CreateBitCast(at, a->getType());
    a->replaceAllUsesWith(typed);
    a->eraseFromParent();
    size += a_size;
    align = std::max(align, a_align);
  }
  const uint64_t stride = alignTo(size, align);
  offset->setOperand(1, ConstantInt::get(i64, stride));
  frames->setArgOperand(0, ConstantInt::get(i64, stride));
  return g;
}

// The kernel's entry: the whole block through `body` when the runtime offers
// it, else this thread alone as before.
void offer_block_body(Function& kernel, Function* body, const Runtime& rt) {
  BasicBlock* entry = &kernel.getEntryBlock();
  BasicBlock::iterator first = entry->begin();
  while (isa<AllocaInst>(*first)) ++first;
  BasicBlock* rest = SplitBlock(entry, &*first, static_cast<DominatorTree*>(nullptr), nullptr,
                                nullptr, "one_thread");
  LLVMContext& c = kernel.getContext();
  BasicBlock* whole = BasicBlock::Create(c, "whole_block", &kernel, rest);
  DebugLoc where;
  if (DISubprogram* sp = kernel.getSubprogram()) where = DILocation::get(c, sp->getLine(), 0, sp);
  entry->getTerminator()->eraseFromParent();
  IRBuilder<> b(entry);
  b.SetCurrentDebugLocation(where);
  b.CreateCondBr(b.CreateCall(rt.offered), whole, rest);
  b.SetInsertPoint(whole);
  std::vector<Value*> args;
  for (Argument& a : kernel.args()) args.push_back(&a);
  b.CreateCall(body, args);
  b.CreateRetVoid();
}

// Early: kernels stay functions of their own (the launch's closure calls
// them), so that their entries can offer the loops later.
struct KeepKernels : PassInfoMixin<KeepKernels> {
  PreservedAnalyses run(Module& m, ModuleAnalysisManager&) {
    for (Function* f : kernels(m)) {
      f->removeFnAttr(Attribute::AlwaysInline);
      f->addFnAttr(Attribute::NoInline);
    }
    return PreservedAnalyses::none();
  }
};

struct BlockLoops : PassInfoMixin<BlockLoops> {
  explicit BlockLoops(FunctionPassManager cleanup) : cleanup_(std::move(cleanup)) {}
  PreservedAnalyses run(Module& m, ModuleAnalysisManager& mam) {
    Eligibility e;
    std::vector<Function*> todo;
    for (Function* f : kernels(m))
      if (eligible(*f, e)) todo.push_back(f);
    if (todo.empty()) return PreservedAnalyses::all();
    const Runtime rt = runtime_of(m);
    FunctionAnalysisManager& fam =
        mam.getResult<FunctionAnalysisManagerModuleProxy>(m).getManager();
    for (Function* f : todo) {
      Function* body = build_block_body(*f, rt);
      if (verifyFunction(*body)) {
        // A shape this pass does not handle: the kernel keeps its fibers.
        body->eraseFromParent();
        continue;
      }
      offer_block_body(*f, body, rt);
      fam.invalidate(*f, PreservedAnalyses::none());
      cleanup_.run(*body, fam);
    }
    return PreservedAnalyses::none();
  }
  FunctionPassManager cleanup_;
};

}  // namespace

extern "C" LLVM_ATTRIBUTE_WEAK PassPluginLibraryInfo llvmGetPassPluginInfo() {
  return {
      LLVM_PLUGIN_API_VERSION, "cudalab-block-loops", "1", [](PassBuilder& pb) {
        pb.registerPipelineStartEPCallback(
            [](ModulePassManager& mpm, OptimizationLevel) { mpm.addPass(KeepKernels()); });
        pb.registerOptimizerLastEPCallback([&pb](ModulePassManager& mpm, OptimizationLevel level) {
          if (level == OptimizationLevel::O0) return;
          mpm.addPass(
              BlockLoops(pb.buildFunctionSimplificationPipeline(level, ThinOrFullLTOPhase::None)));
        });
      }};
}
