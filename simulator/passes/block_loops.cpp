// A clang pass plugin for the simulator's plain build: each kernel that waits
// at __syncthreads() or warp operations gets a second body that runs all the
// threads of a block on one stack, one after another, instead of one fiber
// per thread switched at every wait.
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
// A kernel that also meets warp operations (shuffles, votes, __syncwarp,
// __activemask) or barrier votes (__syncthreads_count, _and, _or) gets the
// same frames, but the runtime picks which thread runs next, from the ready
// list the fibers use: each of those calls becomes an arrival that answers
// whether the thread must wait (then the next thread runs) or goes on (the
// last lane to arrive completes the operation for all, as with fibers). So
// the order, and every result, is the fibers' own.
//
// At run time the kernel's entry asks the runtime whether the block may run
// so (cudalab_block_loops_offered: the plain build, in-order schedule, no
// trace, not cooperative, CUDALAB_BLOCK_LOOPS not off); if not, each thread
// runs the original body on its fiber as before. Device functions that wait
// are inlined into their kernels (KeepKernels, below). A kernel that waits
// inside a function the program marks noinline, calls tile or grid syncs,
// calls through a pointer, unwinds, or sizes a local array at run time
// keeps the fibers only. PTX's exit (cudalab_exit_thread) in the kernel's own body is a
// return in its block body; reached through a call it keeps the fibers.
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

// PTX's exit (cudalab/detail/ptx.h): in the kernel's own body, a return.
constexpr const char* kExit = "cudalab_exit_thread";

// The runtime's operations that make a thread wait for others. A kernel
// reaching one of them other than through its own calls of those below
// keeps the fibers.
bool is_waiting_operation(StringRef name) {
  for (const char* part : {"__syncthreads", "block_barrier", "warp_op", "active_mask", "tile_sync",
                           "grid_sync", "lockstep", "wait_on_object", kExit})
    if (name.contains(part)) return true;
  return false;
}

// The waits a kernel's body can turn into phases (cudalab/detail/sync.h).
enum class Wait { kNone, kBarrier, kBarrierVote, kWarpOp, kActiveMask };

Wait wait_of(const Function* callee) {
  if (!callee) return Wait::kNone;
  const StringRef name = callee->getName();
  if (name == kBarrier) return Wait::kBarrier;
  if (name.startswith("_ZN7cudalab6detail13block_barrierE")) return Wait::kBarrierVote;
  if (name.startswith("_ZN7cudalab6detail7warp_opE")) return Wait::kWarpOp;
  if (name == "_ZN7cudalab6detail11active_maskEv") return Wait::kActiveMask;
  return Wait::kNone;
}

Wait wait_of(const Instruction& i) {
  const auto* call = dyn_cast<CallInst>(&i);
  return call ? wait_of(call->getCalledFunction()) : Wait::kNone;
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
        if (calls_waiting(i, /*waits_allowed=*/false)) {
          waits = true;
          break;
        }
    }
    known_[f] = waits;
    return waits;
  }

  // Whether instruction `i` may wait (or leaves the kernel in a way a loop
  // over threads cannot follow).
  bool calls_waiting(Instruction& i, bool waits_allowed) {
    if (isa<InvokeInst>(i) || isa<CallBrInst>(i) || isa<LandingPadInst>(i) || isa<ResumeInst>(i))
      return true;
    auto* call = dyn_cast<CallInst>(&i);
    if (!call) return false;
    if (call->isInlineAsm()) return false;
    Function* callee = call->getCalledFunction();
    if (!callee) return true;  // through a pointer: could be anything
    if (callee->hasFnAttribute(Attribute::ReturnsTwice)) return true;
    if (wait_of(callee) != Wait::kNone || callee->getName() == kExit) return !waits_allowed;
    return may_wait(callee);
  }

 private:
  std::map<Function*, bool> known_;
};

// How the loops can run a kernel: not at all, as one loop over the block's
// threads (it waits at nothing), as phases between its own __syncthreads()
// calls, or with the runtime picking the next thread (it also calls warp
// operations or barrier votes itself). Either way it waits at nothing else
// and keeps its locals in fixed-size stack slots.
enum class Mode { kNone, kLoop, kPhases, kScheduled };

Mode mode_of(Function& f, Eligibility& e) {
  if (f.isDeclaration() || f.hasFnAttribute(Attribute::OptimizeNone) || f.isVarArg() ||
      !f.getReturnType()->isVoidTy())
    return Mode::kNone;
  Mode mode = Mode::kLoop;
  for (Instruction& i : instructions(f)) {
    if (auto* a = dyn_cast<AllocaInst>(&i))
      if (!a->isStaticAlloca()) return Mode::kNone;
    if (auto* call = dyn_cast<CallInst>(&i))
      if (Function* callee = call->getCalledFunction())
        if (callee->getIntrinsicID() == Intrinsic::stacksave) return Mode::kNone;
    const Wait w = wait_of(i);
    if (w == Wait::kBarrier && mode == Mode::kLoop) mode = Mode::kPhases;
    if (w != Wait::kNone && w != Wait::kBarrier) mode = Mode::kScheduled;
    if (e.calls_waiting(i, /*waits_allowed=*/true)) return Mode::kNone;
  }
  return mode;
}

struct Runtime {
  FunctionCallee offered, frame, threads;
  // What entering a thread sets (block_fibers.cpp's enter_thread): the
  // runtime's running thread and `threadIdx`, thread-local variables.
  GlobalVariable *running, *thread_index;
  // Scheduled by the runtime (block_fibers.cpp).
  FunctionCallee scheduled_frame, next, barrier, vote, warp_op, active_mask, exit;
};

Runtime runtime_of(Module& m) {
  LLVMContext& c = m.getContext();
  Type* i8p = Type::getInt8PtrTy(c);
  Type* i32 = Type::getInt32Ty(c);
  Type* i64 = Type::getInt64Ty(c);
  Runtime r;
  r.offered = m.getOrInsertFunction("cudalab_block_loops_offered", Type::getInt1Ty(c));
  r.frame = m.getOrInsertFunction("cudalab_block_loops_frame", i8p, i64, PointerType::get(i32, 0));
  r.threads = m.getOrInsertFunction("cudalab_block_loops_threads", i8p, PointerType::get(i64, 0));
  auto tls = [&](const char* name, Type* type) {
    if (GlobalVariable* v = m.getNamedGlobal(name)) return v;
    return new GlobalVariable(m, type, false, GlobalValue::ExternalLinkage, nullptr, name, nullptr,
                              GlobalValue::GeneralDynamicTLSModel);
  };
  r.running = tls("_ZN7cudalab2rt9tl_threadE", i8p);
  r.thread_index = tls("threadIdx", ArrayType::get(i32, 3));
  r.scheduled_frame = m.getOrInsertFunction("cudalab_block_loops_scheduled_frame", i8p, i64,
                                            PointerType::get(i32, 0));
  r.next = m.getOrInsertFunction("cudalab_block_loops_next", i32);
  // {result, waits}: two registers, as the runtime's two-field struct.
  Type* arrival = StructType::get(i64, i64);
  r.barrier = m.getOrInsertFunction("cudalab_block_loops_barrier", arrival, i32, i8p);
  r.vote = m.getOrInsertFunction("cudalab_block_loops_vote", i32, i32, i64);
  r.warp_op =
      m.getOrInsertFunction("cudalab_block_loops_warp_op", arrival, i32, i32, i64, i32, i32, i8p);
  r.active_mask = m.getOrInsertFunction("cudalab_block_loops_active_mask", arrival, i8p);
  r.exit = m.getOrInsertFunction("cudalab_block_loops_exit", i32);
  // Not marked noalias (as a fresh allocation would be): with that, the
  // optimizer miscompiled NVIDIA's FDTD3d, and it gained nothing measurable.
  return r;
}

// A copy of `kernel` to become its block body, with the places where a
// thread waits (`waits`, in order) and returns. With `frames`, variable
// locations and lifetimes describe one thread's stack, which the frames
// replace: dropped.
Function* clone_for_block(Function& kernel, std::vector<Instruction*>& waits,
                          std::vector<Instruction*>& returns, bool frames = true) {
  ValueToValueMapTy map;
  Function* g = CloneFunction(&kernel, map);
  g->setName(kernel.getName() + ".cudalab_block_loops");
  g->setLinkage(GlobalValue::InternalLinkage);
  g->setComdat(nullptr);
  g->addFnAttr(Attribute::NoInline);
  std::vector<Instruction*> dropped, exits;
  for (Instruction& i : instructions(*g)) {
    if (frames && (isa<DbgInfoIntrinsic>(i) || i.isLifetimeStartOrEnd()))
      dropped.push_back(&i);
    else if (wait_of(i) != Wait::kNone)
      waits.push_back(&i);
    else if (isa<ReturnInst>(i))
      returns.push_back(&i);
    else if (auto* call = dyn_cast<CallInst>(&i); call && call->getCalledFunction() &&
                                                  call->getCalledFunction()->getName() == kExit &&
                                                  isa<UnreachableInst>(call->getNextNode()))
      exits.push_back(call);
  }
  for (Instruction* i : dropped) i->eraseFromParent();
  // PTX's exit, where the kernel itself calls it, is its return.
  for (Instruction* call : exits) {
    BasicBlock* bb = call->getParent();
    call->getNextNode()->eraseFromParent();
    ReturnInst* r = ReturnInst::Create(g->getContext(), bb);
    r->setDebugLoc(call->getDebugLoc());
    call->eraseFromParent();
    returns.push_back(r);
  }
  return g;
}

// Where the loop's own code stands in the body: the function's line.
DebugLoc function_line(Function& g) {
  if (DISubprogram* sp = g.getSubprogram())
    return DILocation::get(g.getContext(), sp->getLine(), 0, sp);
  return {};
}

// A block body being built: the kernel's clone `g` (with its waits and
// returns listed), the clone's own entry `start`, and a new entry `setup`
// before it, where the builder `b` stands at the kernel's line.
struct Body {
  Body(Function& kernel, std::vector<Instruction*>& waits, std::vector<Instruction*>& returns,
       bool frames = true)
      : g(clone_for_block(kernel, waits, returns, frames)),
        c(g->getContext()),
        start(&g->getEntryBlock()),
        setup(BasicBlock::Create(c, "setup", g, start)),
        b(setup) {
    b.SetCurrentDebugLocation(function_line(*g));
  }
  Function* g;
  LLVMContext& c;
  BasicBlock* start;
  BasicBlock* setup;
  IRBuilder<> b;
};

// At `at`: the counter in `slot` goes one on, then to `more` while it is
// below `limit`, else to `end`.
void count_on(IRBuilder<>& b, BasicBlock* at, AllocaInst* slot, Value* limit, BasicBlock* more,
              BasicBlock* end) {
  Type* i32 = b.getInt32Ty();
  b.SetInsertPoint(at);
  Value* following = b.CreateAdd(b.CreateLoad(i32, slot), ConstantInt::get(i32, 1));
  b.CreateStore(following, slot);
  b.CreateCondBr(b.CreateICmpULT(following, limit), more, end);
}

// The block's threads as the runtime keeps them (read once, in the body's
// setup): where the first is, and the bytes from one to the next.
struct ThreadTable {
  Value* base;
  Value* stride;
};
ThreadTable thread_table(IRBuilder<>& b, const Runtime& rt, AllocaInst* stride_slot) {
  Type* i64 = Type::getInt64Ty(b.getContext());
  Value* base = b.CreateCall(rt.threads, {stride_slot}, "thread_table");
  return {base, b.CreateLoad(i64, stride_slot, "thread_stride")};
}
// Enters thread `tid`, inline, as the runtime's enter_thread does: the
// running thread is its entry in the table, and `threadIdx` its first 12
// bytes (a call here cost a tenth of the tiled matmul's time).
void enter_thread(IRBuilder<>& b, const Runtime& rt, const ThreadTable& t, Value* tid) {
  LLVMContext& c = b.getContext();
  Type* i8 = Type::getInt8Ty(c);
  Value* entry =
      b.CreateGEP(i8, t.base, b.CreateMul(b.CreateZExt(tid, Type::getInt64Ty(c)), t.stride));
  b.CreateStore(entry, rt.running);
  b.CreateMemCpy(rt.thread_index, Align(4), entry, Align(4), 12);
}

// Values a wait separates from their uses now go through the frame: first
// onto the stack (as slots at `slot_point`), then every slot into the
// frame, addressed from `frame` before `before`. A PHI stays a PHI and
// stores its value where it is: a slot written by the PHI's incoming edges
// and read at a later use would read what a later loop step had stored
// there (NVIDIA's FDTD3d came out wrong so). The frame holds `header` bytes
// (the thread's state word first), then each slot; `offset` (tid x 1) and
// `frames` (asked for 0 bytes a thread) are given the stride.
void into_frames(Function& g, const SmallPtrSetImpl<BasicBlock*>& ours,
                 const SmallPtrSetImpl<AllocaInst*>& loop_variables, Instruction* slot_point,
                 Instruction* before, Value* frame, Instruction* offset, CallInst* frames,
                 uint64_t header) {
  for (bool changed = true; changed;) {
    changed = false;
    DominatorTree dt(g);
    std::vector<Instruction*> demote;
    for (BasicBlock& bb : g) {
      if (ours.count(&bb)) continue;
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

  const DataLayout& dl = g.getParent()->getDataLayout();
  LLVMContext& c = g.getContext();
  Type* i8 = Type::getInt8Ty(c);
  Type* i64 = Type::getInt64Ty(c);
  std::vector<AllocaInst*> slots;
  for (Instruction& i : instructions(g))
    if (auto* a = dyn_cast<AllocaInst>(&i))
      if (!loop_variables.count(a)) slots.push_back(a);
  uint64_t size = header;
  uint64_t align = 16;
  IRBuilder<> f(before);
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
}

// Builds the body of `kernel`, which waits at nothing, as one loop over the
// block's threads, each from the kernel's start to its return; returns it.
// Its locals stay on the stack (the next thread reuses them): no frames.
Function* build_thread_loop(Function& kernel, const Runtime& rt) {
  std::vector<Instruction*> waits, returns;
  Body body(kernel, waits, returns, /*frames=*/false);
  auto& [g, c, start, setup, b] = body;
  Type* i32 = Type::getInt32Ty(c);
  Type* i64 = Type::getInt64Ty(c);

  BasicBlock* enter = BasicBlock::Create(c, "enter", g, start);
  BasicBlock* next = BasicBlock::Create(c, "next", g);
  BasicBlock* done = BasicBlock::Create(c, "done", g);
  // The kernel's locals, made once in the new entry (in a block the loop
  // returns to, each thread would grow the stack).
  std::vector<AllocaInst*> locals;
  for (Instruction& i : *start)
    if (auto* a = dyn_cast<AllocaInst>(&i)) locals.push_back(a);
  AllocaInst* threads_slot = b.CreateAlloca(i32, nullptr, "threads.slot");
  AllocaInst* tid_slot = b.CreateAlloca(i32, nullptr, "tid.slot");
  AllocaInst* stride_slot = b.CreateAlloca(i64, nullptr, "stride.slot");
  for (AllocaInst* a : locals) a->moveBefore(threads_slot);
  b.CreateCall(rt.frame, {ConstantInt::get(cast<IntegerType>(i64), 0), threads_slot});
  Value* threads = b.CreateLoad(i32, threads_slot, "threads");
  const ThreadTable table = thread_table(b, rt, stride_slot);
  b.CreateStore(ConstantInt::get(i32, 0), tid_slot);
  b.CreateBr(enter);
  // enter: thread `tid` starts the kernel.
  b.SetInsertPoint(enter);
  enter_thread(b, rt, table, b.CreateLoad(i32, tid_slot, "tid"));
  b.CreateBr(start);
  // A return ends the thread: the next starts, or the block is done.
  for (Instruction* ret : returns) {
    IRBuilder<> y(ret);
    y.CreateBr(next);
    ret->eraseFromParent();
  }
  count_on(b, next, tid_slot, threads, enter, done);
  b.SetInsertPoint(done);
  b.CreateRetVoid();
  return g;
}

// Builds `kernel`'s body as phases between its barriers, each a loop over
// the block's threads; returns it.
Function* build_block_body(Function& kernel, const Runtime& rt) {
  std::vector<Instruction*> barriers, returns;
  Body body(kernel, barriers, returns);
  auto& [g, c, start, setup, b] = body;
  Type* i1 = Type::getInt1Ty(c);
  Type* i32 = Type::getInt32Ty(c);
  Type* i64 = Type::getInt64Ty(c);
  Type* i8 = Type::getInt8Ty(c);

  BasicBlock* dispatch = BasicBlock::Create(c, "dispatch", g, start);
  BasicBlock* next = BasicBlock::Create(c, "next", g);
  BasicBlock* phase_end = BasicBlock::Create(c, "phase_end", g);
  BasicBlock* done = BasicBlock::Create(c, "done", g);

  // setup: the block's frames, and the loop's own variables.
  AllocaInst* step_slot = b.CreateAlloca(i32, nullptr, "step");    // in the phase
  AllocaInst* first_slot = b.CreateAlloca(i32, nullptr, "first");  // thread to start it
  AllocaInst* last_slot = b.CreateAlloca(i32, nullptr, "last");    // the last to run
  AllocaInst* last_waits_slot = b.CreateAlloca(i1, nullptr, "last_waits");
  AllocaInst* any_slot = b.CreateAlloca(i1, nullptr, "waiting");
  AllocaInst* threads_slot = b.CreateAlloca(i32, nullptr, "threads.slot");
  AllocaInst* stride_slot = b.CreateAlloca(i64, nullptr, "stride.slot");
  SmallPtrSet<AllocaInst*, 8> loop_variables = {
      step_slot, first_slot, last_slot, last_waits_slot, any_slot, threads_slot, stride_slot};
  ConstantInt* placeholder = ConstantInt::get(cast<IntegerType>(i64), 0);
  CallInst* frames = b.CreateCall(rt.frame, {placeholder, threads_slot}, "frames");
  Value* threads = b.CreateLoad(i32, threads_slot, "threads");
  const ThreadTable table = thread_table(b, rt, stride_slot);
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
  enter_thread(b, rt, table, tid);
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
  count_on(b, next, step_slot, threads, dispatch, phase_end);
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

  SmallPtrSet<BasicBlock*, 8> ours = {setup, dispatch, next, phase_end, done};
  into_frames(*g, ours, loop_variables, setup->getFirstNonPHI(), to, frame, offset, frames,
              /*header=*/4);
  return g;
}

// Builds `kernel`'s body with the runtime choosing the next thread at each
// wait; returns it.
Function* build_scheduled_body(Function& kernel, const Runtime& rt) {
  std::vector<Instruction*> waits, returns;
  Body body(kernel, waits, returns);
  auto& [g, c, start, setup, b] = body;
  Type* i32 = Type::getInt32Ty(c);
  Type* i64 = Type::getInt64Ty(c);
  Type* i8 = Type::getInt8Ty(c);
  Type* i8p = Type::getInt8PtrTy(c);

  BasicBlock* next = BasicBlock::Create(c, "next", g, start);
  BasicBlock* dispatch = BasicBlock::Create(c, "dispatch", g, start);
  BasicBlock* done = BasicBlock::Create(c, "done", g);

  // setup: the block's frames, and the first thread the runtime picks.
  AllocaInst* threads_slot = b.CreateAlloca(i32, nullptr, "threads.slot");
  SmallPtrSet<AllocaInst*, 8> loop_variables = {threads_slot};
  CallInst* frames = b.CreateCall(
      rt.scheduled_frame, {ConstantInt::get(cast<IntegerType>(i64), 0), threads_slot}, "frames");
  Value* first = b.CreateCall(rt.next, {}, "first");
  b.CreateBr(next);
  // next: the thread the runtime picked (entered): at the start, or where a
  // thread waits or returns; negative at the end of the block.
  b.SetInsertPoint(next);
  PHINode* tid = b.CreatePHI(i32, unsigned(waits.size() + returns.size()) + 1, "tid");
  tid->addIncoming(first, setup);
  b.CreateCondBr(b.CreateICmpSLT(tid, ConstantInt::get(i32, 0)), done, dispatch);
  // dispatch: to where that thread stands.
  b.SetInsertPoint(dispatch);
  auto* offset = cast<Instruction>(
      b.CreateMul(b.CreateZExt(tid, i64), ConstantInt::get(i64, 1), "frame.offset"));
  Value* frame = b.CreateGEP(i8, frames, offset, "frame");
  Value* state_ptr = b.CreateBitCast(frame, PointerType::get(i32, 0), "state.ptr");
  Value* state = b.CreateLoad(i32, state_ptr, "state");
  BasicBlock* skip = BasicBlock::Create(c, "skip", g, start);
  SwitchInst* to = b.CreateSwitch(state, skip, unsigned(waits.size()) + 1);
  to->addCase(ConstantInt::get(cast<IntegerType>(i32), 0), start);
  // skip: (a thread that has returned, which the runtime never picks) the
  // runtime's next pick.
  b.SetInsertPoint(skip);
  tid->addIncoming(b.CreateCall(rt.next, {}), skip);
  b.CreateBr(next);
  b.SetInsertPoint(done);
  b.CreateRetVoid();

  // Each wait: the thread arrives; it goes on at once with the result when
  // it completed the operation, else the thread the runtime picked next
  // (answered with the arrival, as that thread + 2) runs, and this one later
  // finds the result in its frame (offset 8) where it goes on.
  Constant* no_pc = ConstantPointerNull::get(cast<PointerType>(i8p));
  for (size_t k = 0; k < waits.size(); ++k) {
    auto* call = cast<CallInst>(waits[k]);
    const Wait kind = wait_of(*call);
    BasicBlock* arrives = call->getParent();
    BasicBlock* after = SplitBlock(arrives, call, static_cast<DominatorTree*>(nullptr), nullptr,
                                   nullptr, "after_wait");
    Instruction* br = arrives->getTerminator();
    IRBuilder<> y(br);
    y.SetCurrentDebugLocation(call->getDebugLoc());
    auto arg = [&](unsigned n, Type* t) -> Value* {
      Value* v = call->getArgOperand(n);
      return t->isPointerTy() ? y.CreatePointerCast(v, t) : y.CreateZExtOrTrunc(v, t);
    };
    Value* arrival = nullptr;
    switch (kind) {
      case Wait::kBarrier:
        arrival = y.CreateCall(rt.barrier, {ConstantInt::get(i32, 0), no_pc});
        break;
      case Wait::kBarrierVote:
        arrival = y.CreateCall(rt.barrier, {arg(1, i32), arg(2, i8p)});
        break;
      case Wait::kWarpOp:
        arrival = y.CreateCall(rt.warp_op, {arg(0, i32), arg(1, i32), arg(2, i64), arg(3, i32),
                                            arg(4, i32), arg(5, i8p)});
        break;
      case Wait::kActiveMask:
      case Wait::kNone:
        arrival = y.CreateCall(rt.active_mask, {no_pc});
        break;
    }
    Value* now = y.CreateExtractValue(arrival, 0, "result");
    Value* waiting = y.CreateExtractValue(arrival, 1, "waits");
    Value* op = kind == Wait::kBarrierVote ? arg(0, i32) : nullptr;
    y.CreateStore(ConstantInt::get(i32, uint64_t(k) + 1), state_ptr);
    tid->addIncoming(y.CreateSub(y.CreateTrunc(waiting, i32), ConstantInt::get(i32, 2)), arrives);
    y.CreateCondBr(y.CreateICmpNE(waiting, ConstantInt::get(i64, 0)), next, after);
    br->eraseFromParent();
    BasicBlock* resume = BasicBlock::Create(c, "resume", g, after);
    IRBuilder<> z(resume);
    z.SetCurrentDebugLocation(call->getDebugLoc());
    Value* slot =
        z.CreateBitCast(z.CreateGEP(i8, frame, ConstantInt::get(i64, 8)), PointerType::get(i64, 0));
    Value* later = z.CreateLoad(i64, slot, "result");
    z.CreateBr(after);
    to->addCase(ConstantInt::get(cast<IntegerType>(i32), uint64_t(k) + 1), resume);
    IRBuilder<> r(call);
    r.SetCurrentDebugLocation(call->getDebugLoc());
    PHINode* result = r.CreatePHI(i64, 2, "result");
    result->addIncoming(now, arrives);
    result->addIncoming(later, resume);
    if (!call->getType()->isVoidTy()) {
      Value* value = result;
      if (op) value = r.CreateCall(rt.vote, {op, result});
      call->replaceAllUsesWith(r.CreateZExtOrTrunc(value, call->getType()));
    }
    call->eraseFromParent();
  }
  // A return ends the thread; the runtime answers with the next.
  for (Instruction* ret : returns) {
    IRBuilder<> y(ret);
    y.CreateStore(ConstantInt::get(i32, uint32_t(-1)), state_ptr);
    tid->addIncoming(y.CreateCall(rt.exit, {}), ret->getParent());
    y.CreateBr(next);
    ret->eraseFromParent();
  }

  SmallPtrSet<BasicBlock*, 8> ours = {setup, next, dispatch, skip, done};
  into_frames(*g, ours, loop_variables, setup->getFirstNonPHI(), to, frame, offset, frames,
              /*header=*/16);
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

// Whether `f`'s body, or a function it calls that the module defines, waits
// at a barrier or a warp operation (`known` holds the answers so far).
bool contains_wait(Function& f, std::map<Function*, bool>& known) {
  auto [it, fresh] = known.try_emplace(&f, false);  // assumed during recursion
  if (!fresh) return it->second;
  bool waits = false;
  for (Instruction& i : instructions(f)) {
    auto* call = dyn_cast<CallBase>(&i);
    Function* callee = call ? call->getCalledFunction() : nullptr;
    if (!callee) continue;
    if (wait_of(callee) != Wait::kNone ||
        (!callee->isDeclaration() && contains_wait(*callee, known))) {
      waits = true;
      break;
    }
  }
  known[&f] = waits;
  return waits;
}

// Whether `f` reads its own return address (libcu++'s waits name their
// caller's line so): inlined, it would read its caller's.
bool asks_return_address(Function& f) {
  for (Instruction& i : instructions(f))
    if (auto* call = dyn_cast<CallBase>(&i))
      if (Function* callee = call->getCalledFunction();
          callee && callee->getIntrinsicID() == Intrinsic::returnaddress)
        return true;
  return false;
}

// Early: kernels stay functions of their own (the launch's closure calls
// them), so that their entries can offer the loops later. Device functions
// that wait are inlined into the kernels that call them, as nvcc inlines
// device functions: a kernel that waits inside a call it does not inline
// keeps a fiber per thread. One the program marks noinline stays a call.
struct KeepKernels : PassInfoMixin<KeepKernels> {
  explicit KeepKernels(bool inline_waits) : inline_waits_(inline_waits) {}
  PreservedAnalyses run(Module& m, ModuleAnalysisManager&) {
    const std::vector<Function*> found = kernels(m);
    for (Function* f : found) {
      f->removeFnAttr(Attribute::AlwaysInline);
      f->addFnAttr(Attribute::NoInline);
    }
    if (inline_waits_) {
      const SmallPtrSet<Function*, 16> is_kernel(found.begin(), found.end());
      std::map<Function*, bool> known;
      for (Function& f : m)
        if (!f.isDeclaration() && !is_kernel.count(&f) && !f.hasFnAttribute(Attribute::NoInline) &&
            !f.hasFnAttribute(Attribute::OptimizeNone) && !asks_return_address(f) &&
            contains_wait(f, known))
          f.addFnAttr(Attribute::AlwaysInline);
    }
    return PreservedAnalyses::none();
  }
  bool inline_waits_;
};

struct BlockLoops : PassInfoMixin<BlockLoops> {
  explicit BlockLoops(FunctionPassManager cleanup) : cleanup_(std::move(cleanup)) {}
  PreservedAnalyses run(Module& m, ModuleAnalysisManager& mam) {
    Eligibility e;
    std::vector<std::pair<Function*, Mode>> todo;
    for (Function* f : kernels(m))
      if (const Mode mode = mode_of(*f, e); mode != Mode::kNone) todo.emplace_back(f, mode);
    if (todo.empty()) return PreservedAnalyses::all();
    const Runtime rt = runtime_of(m);
    FunctionAnalysisManager& fam =
        mam.getResult<FunctionAnalysisManagerModuleProxy>(m).getManager();
    for (auto [f, mode] : todo) {
      Function* body = mode == Mode::kLoop     ? build_thread_loop(*f, rt)
                       : mode == Mode::kPhases ? build_block_body(*f, rt)
                                               : build_scheduled_body(*f, rt);
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
        pb.registerPipelineStartEPCallback([](ModulePassManager& mpm, OptimizationLevel level) {
          mpm.addPass(KeepKernels(level != OptimizationLevel::O0));
        });
        pb.registerOptimizerLastEPCallback([&pb](ModulePassManager& mpm, OptimizationLevel level) {
          if (level == OptimizationLevel::O0) return;
          mpm.addPass(
              BlockLoops(pb.buildFunctionSimplificationPipeline(level, ThinOrFullLTOPhase::None)));
        });
      }};
}
