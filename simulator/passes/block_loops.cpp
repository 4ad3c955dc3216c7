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
// same frames, run as warp loops (build_warp_body): the warps take turns,
// each running its lanes in order to their next wait; a warp operation that
// every live lane of the warp reached at one call, with one mask naming
// them, is completed by the body itself (shuffles, ballots, __syncwarp) or
// by one call of the runtime (the other kinds); anything else is settled by
// the runtime as the fibers meet the lanes (warp_loops.cpp). That order is
// not the fibers' (docs/simulator.md says where it differs); only plain runs
// have it.
//
// At run time the kernel's entry asks the runtime whether the block may run
// so (cudalab_block_loops_offered: the plain build, in-order schedule, no
// trace, not cooperative, CUDALAB_BLOCK_LOOPS not off); if not, each thread
// runs the original body on its fiber as before. Device functions that wait
// are inlined into their kernels (KeepKernels, below). A kernel that waits
// inside a function the program marks noinline, calls tile or grid syncs,
// calls through a pointer, unwinds (a call guarded only by a landing pad
// that ends the program is a call), or sizes a local array at run time
// keeps the fibers only. PTX's exit (cudalab_exit_thread) in the kernel's own
// body is a return in its block body; reached through a call it keeps the fibers.
//
// Where every thread of a phase, or every lane of a warp's turn, goes on
// from one place (nearly always), a copy of the code that follows that
// place runs as a loop of its own over them (copy_region), without asking
// each where it stands; the order is the same.
//
// In warp loops, those loops are made for the vectorizer: a warp's frames
// are laid out by field (into_frames), a copy that calls nothing runs the
// lanes together without entering each (needs_no_lane), the fields are
// marked apart from each other (mark_columns), and the vectorizer runs on
// the body, also on a copy for AVX2 (wide_copy) that the kernel's entry
// takes where the processor has it.
#include <llvm/ADT/SmallPtrSet.h>
#include <llvm/ADT/Triple.h>
#include <llvm/Analysis/TargetLibraryInfo.h>
#include <llvm/Analysis/ValueTracking.h>
#include <llvm/IR/Constants.h>
#include <llvm/IR/DebugInfoMetadata.h>
#include <llvm/IR/Dominators.h>
#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/InlineAsm.h>
#include <llvm/IR/InstIterator.h>
#include <llvm/IR/Instructions.h>
#include <llvm/IR/IntrinsicInst.h>
#include <llvm/IR/MDBuilder.h>
#include <llvm/IR/Module.h>
#include <llvm/IR/PassManager.h>
#include <llvm/IR/Verifier.h>
#include <llvm/Passes/PassBuilder.h>
#include <llvm/Passes/PassPlugin.h>
#include <llvm/Transforms/InstCombine/InstCombine.h>
#include <llvm/Transforms/Scalar/EarlyCSE.h>
#include <llvm/Transforms/Scalar/SimplifyCFG.h>
#include <llvm/Transforms/Utils/BasicBlockUtils.h>
#include <llvm/Transforms/Utils/Cloning.h>
#include <llvm/Transforms/Utils/Local.h>
#include <llvm/Transforms/Vectorize/LoopVectorize.h>

#include <functional>
#include <map>
#include <optional>
#include <vector>

#include "annotated.h"

using namespace llvm;

namespace {

constexpr const char* kBarrier = "_Z13__syncthreadsv";

// The functions that `__global__` marks (cudalab/kernel_language.h).
std::vector<Function*> kernels(Module& m) {
  return cudalab::passes::annotated<Function>(m, "cudalab_kernel");
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
  const auto* call = dyn_cast<CallBase>(&i);  // (a guarded invoke too: mode_of)
  return call ? wait_of(call->getCalledFunction()) : Wait::kNone;
}

// Whether `bb` is a landing pad that only ends the program: what a
// noexcept function's calls unwind to (it calls terminate).
bool ends_program(const BasicBlock& bb) {
  if (!bb.isLandingPad()) return false;
  for (const Instruction& j : bb)
    if (const auto* call = dyn_cast<CallInst>(&j))
      if (const Function* callee = call->getCalledFunction())
        return callee->getName() == "__clang_call_terminate";
  return false;
}

// Whether invoke `i` only guards against its callee throwing, so that as a
// plain call it ends the program as well if it throws.
bool terminates_on_unwind(const InvokeInst& i) { return ends_program(*i.getUnwindDest()); }

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
  // over threads cannot follow). A call the compiler guards against
  // throwing (an invoke whose unwinding ends the program) is a call.
  bool calls_waiting(Instruction& i, bool waits_allowed) {
    if (ends_program(*i.getParent())) return false;  // (such a pad goes: clone_for_block)
    if (auto* invoke = dyn_cast<InvokeInst>(&i); invoke && !terminates_on_unwind(*invoke))
      return true;
    if (isa<CallBrInst>(i) || isa<LandingPadInst>(i) || isa<ResumeInst>(i)) return true;
    auto* call = dyn_cast<CallBase>(&i);
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
// calls, or as warp loops (it also calls warp operations or barrier votes
// itself). Either way it waits at nothing else and keeps its locals in
// fixed-size stack slots.
enum class Mode { kNone, kLoop, kPhases, kWarpLoops };

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
    if (w != Wait::kNone && w != Wait::kBarrier) mode = Mode::kWarpLoops;
    if (e.calls_waiting(i, /*waits_allowed=*/true)) return Mode::kNone;
  }
  return mode;
}

struct Runtime {
  FunctionCallee offered, wide, frame, threads;
  // What entering a thread sets (block_fibers.cpp's enter_thread): the
  // runtime's running thread and `threadIdx`, thread-local variables.
  GlobalVariable *running, *thread_index;
  // How many lanes of a warp run together from the running thread on (0:
  // the running thread alone), for reports of faults and timeouts.
  GlobalVariable* lanes;
  // Warp loops (warp_loops.cpp), and what a barrier vote returns.
  FunctionCallee warp_frames, warp_complete, warp_settle, warp_barrier, warp_uniform, vote;
};

Runtime runtime_of(Module& m) {
  LLVMContext& c = m.getContext();
  Type* i8p = Type::getInt8PtrTy(c);
  Type* i32 = Type::getInt32Ty(c);
  Type* i64 = Type::getInt64Ty(c);
  Runtime r;
  r.offered = m.getOrInsertFunction("cudalab_block_loops_offered", Type::getInt1Ty(c));
  r.wide = m.getOrInsertFunction("cudalab_block_loops_wide", Type::getInt1Ty(c));
  r.frame = m.getOrInsertFunction("cudalab_block_loops_frame", i8p, i64, PointerType::get(i32, 0));
  r.threads = m.getOrInsertFunction("cudalab_block_loops_threads", i8p, PointerType::get(i64, 0));
  auto tls = [&](const char* name, Type* type) {
    if (GlobalVariable* v = m.getNamedGlobal(name)) return v;
    return new GlobalVariable(m, type, false, GlobalValue::ExternalLinkage, nullptr, name, nullptr,
                              GlobalValue::GeneralDynamicTLSModel);
  };
  r.running = tls("_ZN7cudalab2rt9tl_threadE", i8p);
  r.thread_index = tls("threadIdx", ArrayType::get(i32, 3));
  r.lanes = tls("_ZN7cudalab2rt8tl_lanesE", i32);
  r.vote = m.getOrInsertFunction("cudalab_block_loops_vote", i32, i32, i64);
  r.warp_frames =
      m.getOrInsertFunction("cudalab_warp_loops_frames", i8p, i64, PointerType::get(i32, 0));
  r.warp_complete =
      m.getOrInsertFunction("cudalab_warp_loops_complete", Type::getVoidTy(c), i32, i8p, i32);
  r.warp_settle = m.getOrInsertFunction("cudalab_warp_loops_settle", i32, i32);
  r.warp_barrier = m.getOrInsertFunction("cudalab_warp_loops_barrier", Type::getInt1Ty(c));
  r.warp_uniform = m.getOrInsertFunction("cudalab_warp_loops_uniform", i32);
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
  // Calls guarded against throwing (the kernel is eligible: they wait at
  // nothing, and their landing pads end the program) are plain calls here;
  // their landing pads go.
  std::vector<InvokeInst*> guarded;
  for (Instruction& i : instructions(*g))
    if (auto* invoke = dyn_cast<InvokeInst>(&i)) guarded.push_back(invoke);
  for (InvokeInst* invoke : guarded) changeToCall(invoke);
  if (!guarded.empty()) removeUnreachableBlocks(*g);
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

// Whether `f` is a function of the C library (expf, printf, ...), which
// knows nothing of the simulator's variables.
bool is_c_library(const Function& f) {
  static const TargetLibraryInfoImpl known{Triple(f.getParent()->getTargetTriple())};
  LibFunc which;
  return f.isDeclaration() && known.getLibFunc(f.getName(), which);
}

// Whether `g` (a kernel's fresh clone) calls something that may read the
// thread-local `threadIdx` itself: a function that reads memory other than
// its arguments' (printf, the runtime, a device function kept out of line).
// Its waits become the loops' own code.
bool calls_may_read_thread_index(Function& g) {
  for (Instruction& i : instructions(g)) {
    auto* call = dyn_cast<CallBase>(&i);
    if (!call || isa<DbgInfoIntrinsic>(i) || i.isLifetimeStartOrEnd()) continue;
    if (call->doesNotAccessMemory() || call->onlyAccessesArgMemory()) continue;
    Function* callee = call->getCalledFunction();
    if (callee &&
        (callee->isIntrinsic() || wait_of(callee) != Wait::kNone || callee->getName() == kExit ||
         callee->getName().startswith("cudalab_fast_") || is_c_library(*callee)))
      continue;
    return true;
  }
  return false;
}

// Whether constant `c` is global `v` or is made from it.
bool made_from(const Constant* c, const GlobalVariable* v) {
  if (c == v) return true;
  if (isa<GlobalValue>(c)) return false;  // (its operands are its contents)
  for (const Use& op : c->operands())
    if (const auto* k = dyn_cast<Constant>(op.get()); k && made_from(k, v)) return true;
  return false;
}

// `c` as instructions before `before` where it is an expression made from
// `v` (a field's address, say), so that `v` itself becomes an operand.
Value* unfold(Constant* c, const GlobalVariable* v, Instruction* before) {
  auto* e = dyn_cast<ConstantExpr>(c);
  if (!e || !made_from(e, v)) return c;
  Instruction* i = e->getAsInstruction(before);
  for (Use& op : i->operands())
    if (auto* k = dyn_cast<Constant>(op.get())) op.set(unfold(k, v, i));
  return i;
}

// Every address `g` makes from `threadIdx` made from the variable itself by
// instructions, so that its uses can be given another address.
void unfold_thread_index(Function& g, const GlobalVariable* index) {
  for (Instruction& i : instructions(g)) {
    // A PHI takes one value from each block, however many edges it has.
    std::map<BasicBlock*, Value*> from_block;
    for (Use& op : i.operands()) {
      auto* k = dyn_cast<Constant>(op.get());
      if (!k || k == index || !isa<ConstantExpr>(k) || !made_from(k, index)) continue;
      auto* phi = dyn_cast<PHINode>(&i);
      if (!phi) {
        op.set(unfold(k, index, &i));
        continue;
      }
      BasicBlock* from = phi->getIncomingBlock(op);
      auto [at, fresh] = from_block.try_emplace(from, nullptr);
      if (fresh) at->second = unfold(k, index, from->getTerminator());
      op.set(at->second);
    }
  }
}

// Whether `g` may write `threadIdx`, or use its address otherwise than to
// read it: then the loops keep the thread-local copy (a write to it would
// otherwise change the runtime's table).
bool thread_index_escapes(Function& g, const GlobalVariable* index) {
  std::vector<const Value*> work = {index};
  SmallPtrSet<const Value*, 16> seen;
  while (!work.empty()) {
    const Value* v = work.back();
    work.pop_back();
    if (!seen.insert(v).second) continue;
    for (const User* u : v->users()) {
      if (const auto* i = dyn_cast<Instruction>(u)) {
        if (i->getFunction() != &g) continue;
        if (const auto* load = dyn_cast<LoadInst>(i); load && load->getPointerOperand() == v)
          continue;
        if (!isa<GetElementPtrInst>(i) && !isa<BitCastInst>(i)) return true;
        work.push_back(i);
      } else if (isa<ConstantExpr>(u)) {
        work.push_back(u);
      } else {
        return true;  // held in a constant aggregate or a variable's contents
      }
    }
  }
  return false;
}

// How a block body enters a thread. Where nothing the kernel calls may read
// `threadIdx` itself, the kernel's own reads of it read the thread's entry
// in the table instead (its first 12 bytes are the same three numbers), so
// that entering a thread only names it the running one: a lane's turn in a
// warp loop costs about a third less so.
struct Entering {
  explicit Entering(Function& g, const Runtime& rt)
      : copy(calls_may_read_thread_index(g) || thread_index_escapes(g, rt.thread_index)) {
    if (!copy) unfold_thread_index(g, rt.thread_index);
  }
  bool copy;
};

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
  Body(Function& kernel, const Runtime& rt, std::vector<Instruction*>& waits,
       std::vector<Instruction*>& returns, bool frames = true)
      : g(clone_for_block(kernel, waits, returns, frames)),
        c(g->getContext()),
        start(&g->getEntryBlock()),
        setup(BasicBlock::Create(c, "setup", g, start)),
        b(setup),
        entering(*g, rt) {
    b.SetCurrentDebugLocation(function_line(*g));
  }
  Function* g;
  LLVMContext& c;
  BasicBlock* start;
  BasicBlock* setup;
  IRBuilder<> b;
  Entering entering;  // read from the clone before the loops' own code is added
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
// bytes (a call here cost a tenth of the tiled matmul's time); without a
// copy (Entering), the kernel's reads of `threadIdx` in `g` read the entry.
void enter_thread(IRBuilder<>& b, const Runtime& rt, const ThreadTable& t, Value* tid,
                  const Entering& how, Function& g) {
  LLVMContext& c = b.getContext();
  Type* i8 = Type::getInt8Ty(c);
  Value* entry =
      b.CreateGEP(i8, t.base, b.CreateMul(b.CreateZExt(tid, Type::getInt64Ty(c)), t.stride));
  b.CreateStore(entry, rt.running);
  if (how.copy) {
    b.CreateMemCpy(rt.thread_index, Align(4), entry, Align(4), 12);
    return;
  }
  Value* at = b.CreateBitCast(entry, rt.thread_index->getType(), "thread_index");
  std::vector<Use*> uses;
  for (Use& u : rt.thread_index->uses())
    if (auto* i = dyn_cast<Instruction>(u.getUser()); i && i->getFunction() == &g)
      uses.push_back(&u);
  for (Use* u : uses) u->set(at);
}

// Lane `lane`'s element (of type `t`) of the field at byte `offset` of a
// thread's frame, in a warp's frames laid out by field (from `warp_frames`,
// as the runtime's WarpLoopFrame reads them): an array of 32 a field.
Value* lane_field(IRBuilder<>& b, Value* warp_frames, uint64_t offset, Value* lane, Type* t) {
  Value* column = b.CreateGEP(b.getInt8Ty(), warp_frames, b.getInt64(32 * offset));
  return b.CreateGEP(t, b.CreateBitCast(column, PointerType::get(t, 0)), lane);
}

// `a`, or where it holds an i1 that only plain loads and stores use, a byte
// in its place that holds it (the loads and stores changed to match).
AllocaInst* bytes_for_truth(AllocaInst* a) {
  Type* i1 = Type::getInt1Ty(a->getContext());
  if (a->getAllocatedType() != i1 || a->isArrayAllocation()) return a;
  for (User* u : a->users()) {
    const auto* store = dyn_cast<StoreInst>(u);
    if (!(isa<LoadInst>(u) && !cast<LoadInst>(u)->isVolatile()) &&
        !(store && !store->isVolatile() && store->getPointerOperand() == a))
      return a;
  }
  Type* i8 = Type::getInt8Ty(a->getContext());
  auto* byte = new AllocaInst(i8, a->getType()->getAddressSpace(), nullptr, a->getAlign(),
                              a->getName() + ".byte", a);
  for (User* u : make_early_inc_range(a->users())) {
    auto* i = cast<Instruction>(u);
    IRBuilder<> y(i);
    if (auto* load = dyn_cast<LoadInst>(i)) {
      load->replaceAllUsesWith(y.CreateTrunc(y.CreateLoad(i8, byte), i1));
    } else {
      y.CreateStore(y.CreateZExt(cast<StoreInst>(i)->getValueOperand(), i8), byte);
    }
    i->eraseFromParent();
  }
  a->eraseFromParent();
  return byte;
}

// Values a wait separates from their uses now go through the frame: first
// onto the stack (as slots at `slot_point`), then every slot into the
// frame, addressed from `frame` before `before`. A PHI stays a PHI and
// stores its value where it is: a slot written by the PHI's incoming edges
// and read at a later use would read what a later loop step had stored
// there (NVIDIA's FDTD3d came out wrong so). The frame holds `header` bytes
// (the thread's state word first), then each slot; `offset` (tid x 1, if
// any) and `frames` (asked for 0 bytes a thread) are given the stride.
// Without `lane`, a slot at byte o of the frame is at `frame` + o; with it
// (warp loops: `frame` is the warp's first), a warp's frames are laid out by
// field, as the runtime's WarpLoopFrame says: lane l's slot of s bytes at
// `frame` + 32 x o + l x s, so that a loop over lanes reads it as an array.
void into_frames(Function& g, const SmallPtrSetImpl<BasicBlock*>& ours,
                 const SmallPtrSetImpl<AllocaInst*>& loop_variables, Instruction* slot_point,
                 Instruction* before, Value* frame, Instruction* offset, CallInst* frames,
                 uint64_t header, Value* lane = nullptr) {
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
  // Laid out by field, a truth value is kept as a byte (a vector loop
  // cannot load or store an array of i1, whose bits are packed).
  if (lane)
    for (AllocaInst*& a : slots) a = bytes_for_truth(a);
  for (AllocaInst* a : slots) {
    const uint64_t a_align = a->getAlign().value();
    uint64_t a_size = dl.getTypeAllocSize(a->getAllocatedType()) *
                      cast<ConstantInt>(a->getArraySize())->getZExtValue();
    size = alignTo(size, a_align);
    Value* typed = nullptr;
    if (lane) {
      a_size = alignTo(a_size, a_align);  // (each lane's aligned)
      Value* at = lane_field(f, frame, size, lane, ArrayType::get(i8, a_size));
      typed = f.CreateBitCast(at, a->getType());
    } else {
      typed = f.CreateBitCast(f.CreateGEP(i8, frame, ConstantInt::get(i64, size)), a->getType());
    }
    a->replaceAllUsesWith(typed);
    a->eraseFromParent();
    size += a_size;
    align = std::max(align, a_align);
  }
  const uint64_t stride = alignTo(size, align);
  if (offset) offset->setOperand(1, ConstantInt::get(i64, stride));
  frames->setArgOperand(0, ConstantInt::get(i64, stride));
}

// Copies the code a thread runs from `entry` to where it stops (the blocks
// reachable from it outside `ours`) for a loop of one place's own: a new
// block `head` repeats the instructions of `prologue` (before their
// terminators: the thread's entry, its frame and the frame's slots, as the
// general loop makes them), then runs the copy, whose exits to `next` go to
// `latch` instead; a PHI's edge from `prologue_end` comes from `head`.
// Returns `head`, or null where the copy would take more than `budget`
// instructions (what it takes is subtracted). Made once the frames are in
// place, so that the copy reads and writes the same slots.
BasicBlock* copy_region(Function& g, BasicBlock* entry, const SmallPtrSetImpl<BasicBlock*>& ours,
                        ArrayRef<BasicBlock*> prologue, BasicBlock* prologue_end, BasicBlock* next,
                        BasicBlock* latch, size_t& budget,
                        std::vector<BasicBlock*>* copied = nullptr) {
  std::vector<BasicBlock*> region;
  SmallPtrSet<BasicBlock*, 32> seen;
  std::vector<BasicBlock*> work = {entry};
  size_t size = 0;
  while (!work.empty()) {
    BasicBlock* bb = work.back();
    work.pop_back();
    if (ours.count(bb) || !seen.insert(bb).second) continue;
    region.push_back(bb);
    size += bb->size();
    for (BasicBlock* following : successors(bb)) work.push_back(following);
  }
  if (size > budget) return nullptr;
  budget -= size;
  ValueToValueMapTy map;
  BasicBlock* head = BasicBlock::Create(g.getContext(), "fast", &g);
  IRBuilder<> h(head);
  h.SetCurrentDebugLocation(function_line(g));
  for (BasicBlock* from : prologue)
    for (Instruction& i : *from) {
      if (i.isTerminator()) break;
      Instruction* copy = i.clone();
      copy->setName(i.getName());
      h.Insert(copy);
      map[&i] = copy;
      RemapInstruction(copy, map, RF_IgnoreMissingLocals | RF_NoModuleLevelChanges);
    }
  map[prologue_end] = head;
  map[next] = latch;
  std::vector<BasicBlock*> copies;
  for (BasicBlock* bb : region) {
    BasicBlock* copy = CloneBasicBlock(bb, map, ".fast", &g);
    map[bb] = copy;
    copies.push_back(copy);
  }
  for (BasicBlock* copy : copies)
    for (Instruction& i : *copy)
      RemapInstruction(&i, map, RF_IgnoreMissingLocals | RF_NoModuleLevelChanges);
  // A copied block is entered only from the head and the other copies.
  SmallPtrSet<BasicBlock*, 32> inside(copies.begin(), copies.end());
  inside.insert(head);
  for (BasicBlock* copy : copies)
    for (PHINode& phi : make_early_inc_range(copy->phis()))
      for (unsigned n = phi.getNumIncomingValues(); n-- > 0;)
        if (!inside.count(phi.getIncomingBlock(n))) phi.removeIncomingValue(n, false);
  h.CreateBr(cast<BasicBlock>(map[entry]));
  if (copied) *copied = std::move(copies);
  return head;
}

// Whether the code of `blocks` (a fast turn's copy) may run with no lane
// entered: it calls nothing (the runtime's calls read the running thread;
// the kernel's reads of `threadIdx` read each lane's entry, Entering). A
// fault or a timeout there names the lanes that ran together (tl_lanes).
bool needs_no_lane(ArrayRef<BasicBlock*> blocks) {
  for (const BasicBlock* bb : blocks)
    for (const Instruction& i : *bb)
      if (const auto* call = dyn_cast<CallBase>(&i)) {
        const Function* f = call->getCalledFunction();
        if (isa<DbgInfoIntrinsic>(call) || call->isLifetimeStartOrEnd()) continue;
        if (!f || !f->isIntrinsic() || !f->doesNotAccessMemory() || !f->willReturn()) return false;
      }
  return true;
}

// What the copies of a body (copy_region) may add: as much again as it
// has, or 4,000 instructions.
size_t copy_budget(Function& g) {
  size_t size = 0;
  for (BasicBlock& bb : g) size += bb.size();
  return std::max<size_t>(size, 4000);
}

// Builds the body of `kernel`, which waits at nothing, as one loop over the
// block's threads, each from the kernel's start to its return; returns it.
// Its locals stay on the stack (the next thread reuses them): no frames.
Function* build_thread_loop(Function& kernel, const Runtime& rt) {
  std::vector<Instruction*> waits, returns;
  Body body(kernel, rt, waits, returns, /*frames=*/false);
  auto& [g, c, start, setup, b, entering] = body;
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
  enter_thread(b, rt, table, b.CreateLoad(i32, tid_slot, "tid"), entering, *g);
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
Function* build_block_body(Function& kernel, const Runtime& rt, bool copies) {
  std::vector<Instruction*> barriers, returns;
  Body body(kernel, rt, barriers, returns);
  auto& [g, c, start, setup, b, entering] = body;
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
  // Where the threads stopped in this phase (the AND and OR of the
  // barriers' numbers), whether any thread has returned, and the barrier
  // all threads go on from in a fast phase.
  AllocaInst* site_and = b.CreateAlloca(i32, nullptr, "site_and");
  AllocaInst* site_or = b.CreateAlloca(i32, nullptr, "site_or");
  AllocaInst* ended = b.CreateAlloca(i1, nullptr, "ended");
  AllocaInst* fast_state = b.CreateAlloca(i32, nullptr, "fast_state");
  SmallPtrSet<AllocaInst*, 16> loop_variables = {
      step_slot,   first_slot, last_slot, last_waits_slot, any_slot,  threads_slot,
      stride_slot, site_and,   site_or,   ended,           fast_state};
  ConstantInt* placeholder = ConstantInt::get(cast<IntegerType>(i64), 0);
  CallInst* frames = b.CreateCall(rt.frame, {placeholder, threads_slot}, "frames");
  Value* threads = b.CreateLoad(i32, threads_slot, "threads");
  const ThreadTable table = thread_table(b, rt, stride_slot);
  for (AllocaInst* zeroed : {step_slot, first_slot, last_slot})
    b.CreateStore(ConstantInt::get(i32, 0), zeroed);
  b.CreateStore(ConstantInt::getFalse(c), last_waits_slot);
  b.CreateStore(ConstantInt::getFalse(c), any_slot);
  b.CreateStore(ConstantInt::get(i32, uint32_t(-1)), site_and);
  b.CreateStore(ConstantInt::get(i32, 0), site_or);
  b.CreateStore(ConstantInt::getFalse(c), ended);
  b.CreateStore(ConstantInt::get(i32, 0), fast_state);  // every thread at the start
  BasicBlock* fast = BasicBlock::Create(c, "fast_phase", g, start);
  b.CreateBr(fast);

  // dispatch: enter thread `tid` (`step` places after the phase's first,
  // around the block) and go to where it stands.
  b.SetInsertPoint(dispatch);
  Value* at = b.CreateAdd(b.CreateLoad(i32, first_slot), b.CreateLoad(i32, step_slot));
  Value* tid = b.CreateSelect(b.CreateICmpUGE(at, threads), b.CreateSub(at, threads), at, "tid");
  auto* offset = cast<Instruction>(
      b.CreateMul(b.CreateZExt(tid, i64), ConstantInt::get(i64, 1), "frame.offset"));
  Value* frame = b.CreateGEP(i8, frames, offset, "frame");
  enter_thread(b, rt, table, tid, entering, *g);
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
    y.CreateStore(y.CreateAnd(y.CreateLoad(i32, site_and), uint64_t(k) + 1), site_and);
    y.CreateStore(y.CreateOr(y.CreateLoad(i32, site_or), uint64_t(k) + 1), site_or);
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
    y.CreateStore(ConstantInt::getTrue(c), ended);
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
  // Every thread stopped at one barrier, and none has returned: a fast
  // phase may run them all from there.
  Value* stopped = b.CreateLoad(i32, site_and);
  Value* same = b.CreateAnd(b.CreateNot(b.CreateLoad(i1, ended)),
                            b.CreateICmpEQ(stopped, b.CreateLoad(i32, site_or)));
  b.CreateStore(b.CreateSelect(same, stopped, ConstantInt::get(i32, uint32_t(-1))), fast_state);
  b.CreateStore(ConstantInt::get(i32, uint32_t(-1)), site_and);
  b.CreateStore(ConstantInt::get(i32, 0), site_or);
  b.CreateCondBr(waiting, fast, done);
  b.SetInsertPoint(done);
  b.CreateRetVoid();
  // fast_phase: the place every thread goes on from, if one (else the
  // general phase; filled in below).
  b.SetInsertPoint(fast);
  SwitchInst* fast_to = b.CreateSwitch(b.CreateLoad(i32, fast_state), dispatch);

  SmallPtrSet<BasicBlock*, 8> ours = {setup, dispatch, next, phase_end, done, fast};
  into_frames(*g, ours, loop_variables, setup->getFirstNonPHI(), to, frame, offset, frames,
              /*header=*/4);
  // Fast phases: a loop over the threads, in the general phase's order,
  // through a copy of the code that follows the barrier (copy_region),
  // without asking each thread where it stands.
  size_t budget = copies ? copy_budget(*g) : 0;
  for (auto& kase : to->cases()) {
    BasicBlock* latch = BasicBlock::Create(c, "fast_next", g);
    BasicBlock* head =
        copy_region(*g, kase.getCaseSuccessor(), ours, {dispatch}, dispatch, next, latch, budget);
    if (!head) {
      latch->eraseFromParent();
      continue;
    }
    count_on(b, latch, step_slot, threads, head, phase_end);
    fast_to->addCase(kase.getCaseValue(), head);
  }
  return g;
}

// The header of a thread's frame in warp loops (the runtime's WarpLoopFrame,
// simulator/src/grid/block.h): where it goes on, what it waits at, and the
// operands of that wait.
namespace warp_frame {
constexpr uint64_t kState = 0, kFlags = 4, kResult = 8, kValue = 16, kOp = 24, kMask = 28,
                   kArg = 32, kWidth = 36, kPc = 40, kHeader = 48;
enum Flags : uint32_t { kRunnable, kArrived, kPending, kAtBarrier, kExited };
constexpr uint32_t kActiveMaskOp = 16;  // detail::WarpOp::kActiveMask
}  // namespace warp_frame

// The runtime's detail::WarpOp (cudalab/detail/sync.h), as far as the pass
// completes operations itself.
enum class WarpOpKind : uint64_t { kSync, kShflIdx, kShflUp, kShflDown, kShflXor, kBallot };

// Whether the body completes warp operation `call` itself (complete_inline)
// when every live lane arrived at it: shuffles of a constant width that is a
// power of two, ballots and __syncwarp, their kind a constant.
bool completes_in_body(const CallInst& call) {
  const auto* kind = dyn_cast<ConstantInt>(call.getArgOperand(0));
  if (!kind) return false;
  const auto op = WarpOpKind(kind->getZExtValue());
  if (op == WarpOpKind::kSync || op == WarpOpKind::kBallot) return true;
  const auto* width = dyn_cast<ConstantInt>(call.getArgOperand(4));
  const int64_t w = width ? width->getSExtValue() : 0;
  return op >= WarpOpKind::kShflIdx && op <= WarpOpKind::kShflXor && w > 0 && w <= 32 &&
         (w & (w - 1)) == 0;
}

// The address of the code where it stands (just after it): what a call's
// return address would be, for the runtime's reports. Null where the target
// has no such instruction here.
Value* code_address(IRBuilder<>& b, Module& m) {
  Type* i8p = b.getInt8PtrTy();
  const Triple triple(m.getTargetTriple());
  const char* text = triple.getArch() == Triple::x86_64    ? "leaq 0(%rip), $0"
                     : triple.getArch() == Triple::aarch64 ? "adr $0, ."
                                                           : nullptr;
  if (!text) return ConstantPointerNull::get(cast<PointerType>(i8p));
  // With side effects: kept where it stands, not merged with another wait's.
  InlineAsm* a = InlineAsm::get(FunctionType::get(i8p, false), text, "=r", true);
  return b.CreateCall(a, {});
}

bool vector_sized(const Function& body);

// Builds a kernel's body as warp loops (it calls warp operations or barrier
// votes): phases between block barriers; in each, the warps take turns, each
// running its lanes that can go on, in order, from where each stands to its
// next wait or its return. After a turn in which every live lane reached one
// warp operation with one mask, the operation is completed at once (results
// into the frames); otherwise the runtime settles the warp's arrivals as the
// fibers meet them. A warp none of whose lanes can go on waits for the block
// barrier; when no warp can go on, the runtime releases the barrier
// (another phase), or the block is over.
class WarpBody {
 public:
  WarpBody(Function& kernel, const Runtime& rt, bool fast)
      : fast_turns_(fast),
        rt_(rt),
        body_(kernel, rt, waits_, returns_),
        g_(body_.g),
        c_(body_.c),
        b_(body_.b),
        i1_(Type::getInt1Ty(c_)),
        i8_(Type::getInt8Ty(c_)),
        i32_(Type::getInt32Ty(c_)),
        i64_(Type::getInt64Ty(c_)) {}

  Function* build() {
    build_turns();
    for (size_t k = 0; k < waits_.size(); ++k)
      build_wait(uint32_t(k) + 1, cast<CallInst>(waits_[k]));
    build_deferred();
    // A return ends the lane.
    for (Instruction* ret : returns_) {
      IRBuilder<> y(ret);
      y.CreateStore(c32(warp_frame::kExited), field(y, warp_frame::kFlags, i32_));
      y.CreateStore(y.CreateAdd(y.CreateLoad(i32_, exits_), c32(1)), exits_);
      y.CreateBr(next_);
      ret->eraseFromParent();
    }
    into_frames(*g_, ours_, loop_variables_, body_.setup->getFirstNonPHI(), to_, warp_frames_,
                nullptr, frames_, warp_frame::kHeader, lane_index_);
    // The stride into_frames chose, for where each warp's frames start.
    warp_offset_->setOperand(1, frames_->getArgOperand(0));
    if (fast_turns_) build_fast_turns();
    if (vector_sized(*g_)) mark_columns();
    return g_;
  }

 private:
  ConstantInt* c32(uint64_t v) const { return ConstantInt::get(cast<IntegerType>(i32_), v); }
  ConstantInt* c64(uint64_t v) const { return ConstantInt::get(cast<IntegerType>(i64_), v); }
  // A block of the loops' own (not the kernel's: into_frames leaves it).
  BasicBlock* own(const char* name, BasicBlock* before = nullptr) {
    BasicBlock* bb = BasicBlock::Create(c_, name, g_, before);
    ours_.insert(bb);
    return bb;
  }
  AllocaInst* variable(const char* name, Type* t) {
    AllocaInst* a = b_.CreateAlloca(t, nullptr, name);
    loop_variables_.insert(a);
    return a;
  }
  // Field `at` (of type `t`) of lane `l`'s frame (the warp's laid out by
  // field: into_frames).
  Value* field_of(IRBuilder<>& y, Value* l, uint64_t at, Type* t) const {
    return lane_field(y, warp_frames_, at, l, t);
  }
  Value* field(IRBuilder<>& y, uint64_t at, Type* t) const {
    return field_of(y, lane_index_, at, t);
  }
  void add_bit(IRBuilder<>& y, AllocaInst* slot, Value* bits) const {
    y.CreateStore(y.CreateOr(y.CreateLoad(i32_, slot), bits), slot);
  }

  // A constant table of the 32 lanes' bits (1 << lane), as i32*.
  Value* lane_bits() {
    Module& m = *g_->getParent();
    const char* name = "cudalab.lane_bits";
    GlobalVariable* table = m.getNamedGlobal(name);
    if (!table) {
      std::vector<Constant*> bits;
      for (uint64_t l = 0; l < 32; ++l) bits.push_back(c32(uint64_t(1) << l));
      auto* type = ArrayType::get(i32_, 32);
      table = new GlobalVariable(m, type, true, GlobalValue::PrivateLinkage,
                                 ConstantArray::get(type, bits), name);
      table->setUnnamedAddr(GlobalValue::UnnamedAddr::Global);
      table->setAlignment(Align(64));
    }
    return ConstantExpr::getBitCast(table, PointerType::get(i32_, 0));
  }
  void build_turns();
  void build_sweep_end();
  void mark_columns();
  void build_deferred();
  void build_wait(uint32_t site, CallInst* call);
  void build_completion(uint32_t site, CallInst& call);
  void complete_inline(IRBuilder<>& z, CallInst& call);
  Value* ballot_of(IRBuilder<>& z, BasicBlock*& from);
  Value* lanes_to_last(IRBuilder<>& z);
  Value* shuffled(IRBuilder<>& z, CallInst& call, Value* l, bool all);

  bool fast_turns_;  // with build_fast_turns' copies
  const Runtime& rt_;
  std::vector<Instruction*> waits_, returns_;
  Body body_;
  Function* g_;
  LLVMContext& c_;
  IRBuilder<>& b_;
  Type *i1_, *i8_, *i32_, *i64_;
  SmallPtrSet<BasicBlock*, 32> ours_;
  SmallPtrSet<AllocaInst*, 16> loop_variables_;
  // What a lane's arrival at an operation the body completes leaves out of
  // its frame: the constant fields (and the code's address where the call
  // gives none), written where the runtime settles the warp.
  struct Deferred {
    uint32_t site;
    DebugLoc line;
    std::vector<std::pair<uint64_t, Constant*>> fields;
    bool pc;
  };
  std::vector<Deferred> deferred_;
  // Set by build_turns.
  CallInst* frames_ = nullptr;
  Value *warp_ = nullptr, *warp_frames_ = nullptr, *bit_ = nullptr;
  Value* lane_index_ = nullptr;         // the lane at hand, from 0 (i64)
  Instruction* warp_offset_ = nullptr;  // warp_frames_ - frames_
  ThreadTable table_{};
  Value* arrived_ = nullptr;
  SwitchInst *to_ = nullptr, *complete_at_ = nullptr;
  BasicBlock *next_ = nullptr, *slow_ = nullptr, *warp_next_ = nullptr;
  // The loops' variables: the warps that may still go on in this phase (a
  // bit each), the warp and lane at hand; what a turn saw: the AND and OR of
  // the calls the arrivals reached (equal: they all reached one), the lanes
  // that arrived at a warp operation, those that wait elsewhere (the
  // barrier, an operation met before, __activemask), and the AND and OR of
  // the masks passed where a call's mask is not a constant.
  AllocaInst *active_ = nullptr, *warp_slot_ = nullptr, *lane_slot_ = nullptr;
  AllocaInst *site_and_ = nullptr, *site_or_ = nullptr, *arrived_slot_ = nullptr;
  AllocaInst *other_ = nullptr, *mask_and_ = nullptr, *mask_or_ = nullptr;
  // The lanes that wait at an operation the runtime met before: what other
  // lanes did since (reached the barrier, returned) may complete it.
  AllocaInst* pending_ = nullptr;
  // The warps (a bit each) whose 32 lanes all go on from one wait, which
  // the body completed for all of them; and the blocks where a turn
  // starts: the general one, and the test for a fast one.
  AllocaInst* uniform_ = nullptr;
  AllocaInst* exits_ = nullptr;  // the lanes that have returned
  BasicBlock *lane_ = nullptr, *run_ = nullptr, *fast_ = nullptr, *sweep_end_ = nullptr;
  Value* end_ = nullptr;   // the warp's lanes end before this thread
  Value* full_ = nullptr;  // the warp's lanes, a bit each
  void build_fast_turns();
  void mark_uniform(IRBuilder<>& z);
};

// The loops themselves: phases, turns, lanes.
void WarpBody::build_turns() {
  using namespace warp_frame;
  BasicBlock* start = body_.start;
  ours_.insert(body_.setup);
  BasicBlock* phase = own("phase", start);
  BasicBlock* warp_start = own("warp", start);
  BasicBlock* lane = own("lane", start);
  BasicBlock* skip = own("skip", start);
  BasicBlock* run = own("run", start);
  next_ = own("next_lane");
  BasicBlock* sweep_end = own("sweep_end");
  sweep_end_ = sweep_end;
  slow_ = own("settle");
  warp_next_ = own("next_warp");
  BasicBlock* phase_end = own("phase_end");
  BasicBlock* done = own("done");

  // setup: the block's frames and the loops' own variables.
  AllocaInst* threads_slot = variable("threads.slot", i32_);
  AllocaInst* stride_slot = variable("stride.slot", i64_);
  active_ = variable("active.slot", i32_);
  warp_slot_ = variable("warp.slot", i32_);
  lane_slot_ = variable("lane.slot", i32_);
  site_and_ = variable("site_and.slot", i32_);
  site_or_ = variable("site_or.slot", i32_);
  arrived_slot_ = variable("arrived.slot", i32_);
  other_ = variable("other.slot", i32_);
  mask_and_ = variable("mask_and.slot", i32_);
  mask_or_ = variable("mask_or.slot", i32_);
  pending_ = variable("pending.slot", i32_);
  uniform_ = variable("uniform.slot", i32_);
  exits_ = variable("exits.slot", i32_);
  frames_ = b_.CreateCall(rt_.warp_frames, {c64(0), threads_slot}, "frames");
  Value* threads = b_.CreateLoad(i32_, threads_slot, "threads");
  table_ = thread_table(b_, rt_, stride_slot);
  Value* warps = b_.CreateLShr(b_.CreateAdd(threads, c32(31)), c32(5), "warps");
  b_.CreateStore(c32(0), exits_);
  b_.CreateBr(phase);

  // phase: every warp may go on; warp 0 starts.
  b_.SetInsertPoint(phase);
  b_.CreateStore(b_.CreateSelect(b_.CreateICmpUGE(warps, c32(32)), c32(uint32_t(-1)),
                                 b_.CreateSub(b_.CreateShl(c32(1), warps), c32(1))),
                 active_);
  b_.CreateStore(c32(0), warp_slot_);
  b_.CreateStore(b_.CreateCall(rt_.warp_uniform, {}), uniform_);
  b_.CreateBr(warp_start);

  // warp: its turn over its lanes [base, end), whose frames start here.
  b_.SetInsertPoint(warp_start);
  warp_ = b_.CreateLoad(i32_, warp_slot_, "warp");
  Value* base = b_.CreateShl(warp_, c32(5), "base");
  Value* end = b_.CreateIntrinsic(Intrinsic::umin, {i32_}, {threads, b_.CreateAdd(base, c32(32))},
                                  nullptr, "end");
  // (base x the stride of a frame, patched in once into_frames has chosen it)
  warp_offset_ = cast<Instruction>(b_.CreateMul(b_.CreateZExt(base, i64_), c64(1)));
  warp_frames_ = b_.CreateGEP(i8_, frames_, warp_offset_, "warp.frames");
  end_ = end;
  // Its lanes, a bit each (the last warp of a block may have fewer).
  Value* lanes = b_.CreateSub(end, base, "lanes");
  full_ = b_.CreateSelect(b_.CreateICmpUGE(lanes, c32(32)), c32(0xffffffffu),
                          b_.CreateSub(b_.CreateShl(c32(1), lanes), c32(1)), "full");
  b_.CreateStore(base, lane_slot_);
  for (AllocaInst* zeroed : {arrived_slot_, other_, mask_or_, site_or_, pending_})
    b_.CreateStore(c32(0), zeroed);
  for (AllocaInst* ones : {mask_and_, site_and_}) b_.CreateStore(c32(uint32_t(-1)), ones);
  // A warp whose lanes all go on from one wait may take a fast turn.
  Value* was_uniform = b_.CreateLoad(i32_, uniform_);
  Value* warp_bit = b_.CreateShl(c32(1), warp_);
  b_.CreateStore(b_.CreateAnd(was_uniform, b_.CreateNot(warp_bit)), uniform_);
  fast_ = own("fast_turn", start);
  b_.CreateCondBr(b_.CreateICmpNE(b_.CreateAnd(was_uniform, warp_bit), c32(0)), fast_, lane);

  // lane: thread `tid`, if it can go on.
  lane_ = lane;
  run_ = run;
  b_.SetInsertPoint(fast_);
  b_.CreateBr(lane);  // until build_fast_turns
  b_.SetInsertPoint(lane);
  Value* tid = b_.CreateLoad(i32_, lane_slot_, "tid");
  lane_index_ = b_.CreateZExt(b_.CreateSub(tid, base), i64_, "lane.index");
  // (Read from a table: a vector loop over lanes then loads them.)
  bit_ = b_.CreateLoad(i32_, b_.CreateGEP(i32_, lane_bits(), lane_index_), "bit");
  Value* flags = b_.CreateLoad(i32_, field(b_, kFlags, i32_), "flags");
  b_.CreateCondBr(b_.CreateICmpEQ(flags, c32(kRunnable)), run, skip);
  // skip: it returned, or waits elsewhere.
  b_.SetInsertPoint(skip);
  add_bit(b_, other_, b_.CreateSelect(b_.CreateICmpEQ(flags, c32(kExited)), c32(0), bit_));
  add_bit(b_, pending_, b_.CreateSelect(b_.CreateICmpEQ(flags, c32(kPending)), bit_, c32(0)));
  b_.CreateBr(next_);
  // run: enter it and go to where it stands.
  b_.SetInsertPoint(run);
  enter_thread(b_, rt_, table_, tid, body_.entering, *g_);
  Value* state = b_.CreateLoad(i32_, field(b_, kState, i32_), "state");
  to_ = b_.CreateSwitch(state, next_, unsigned(waits_.size()) + 1);
  to_->addCase(c32(0), start);
  // next_lane: the following lane, or the end of the turn.
  count_on(b_, next_, lane_slot_, end, lane, sweep_end);

  b_.SetInsertPoint(sweep_end);
  build_sweep_end();

  // next_warp: the next warp that may go on, in turn; when none can, the
  // barrier: another phase, or the block is done.
  b_.SetInsertPoint(warp_next_);
  Value* act = b_.CreateLoad(i32_, active_, "active");
  Value* up_to_this = b_.CreateSub(b_.CreateShl(c64(2), b_.CreateZExt(warp_, i64_)), c64(1));
  Value* later =
      b_.CreateTrunc(b_.CreateAnd(b_.CreateZExt(act, i64_), b_.CreateNot(up_to_this)), i32_);
  Value* pick = b_.CreateSelect(b_.CreateICmpNE(later, c32(0)), later, act);
  b_.CreateStore(b_.CreateIntrinsic(Intrinsic::cttz, {i32_}, {pick, b_.getTrue()}), warp_slot_);
  b_.CreateCondBr(b_.CreateICmpNE(act, c32(0)), warp_start, phase_end);
  // (Once every lane has returned, the block is done: no need to ask.)
  b_.SetInsertPoint(phase_end);
  BasicBlock* barrier = own("barrier");
  b_.CreateCondBr(b_.CreateICmpEQ(b_.CreateLoad(i32_, exits_), threads), done, barrier);
  b_.SetInsertPoint(barrier);
  b_.CreateCondBr(b_.CreateCall(rt_.warp_barrier, {}), phase, done);
  b_.SetInsertPoint(done);
  b_.CreateRetVoid();
}

// Fast turns. A warp whose lanes all go on from wait k (the body
// completed it for all of them: nearly always) runs them in a loop of its
// own over a copy of the code that follows wait k, up to the waits and
// returns where the lanes stop: the lanes' order and what each does are the
// general turn's, without asking each lane whether and where it goes on.
// The copies are made once the frames are in place (the copy of each lane's
// entry gives the copied code its frame); a kernel too large to copy whole
// keeps the general turns for the waits past the budget.
void WarpBody::build_fast_turns() {
  using namespace warp_frame;
  fast_->getTerminator()->eraseFromParent();
  IRBuilder<> y(fast_);
  y.SetCurrentDebugLocation(function_line(*g_));
  Value* state = y.CreateLoad(i32_, field_of(y, c64(0), kState, i32_), "fast.state");
  SwitchInst* to = y.CreateSwitch(state, lane_);
  size_t budget = copy_budget(*g_);
  for (auto& kase : to_->cases()) {
    BasicBlock* latch = BasicBlock::Create(c_, "fast_next", g_);
    std::vector<BasicBlock*> copies;
    BasicBlock* head = copy_region(*g_, kase.getCaseSuccessor(), ours_, {lane_, run_}, run_, next_,
                                   latch, budget, &copies);
    if (!head) {
      latch->eraseFromParent();
      continue;
    }
    ours_.insert(head);
    ours_.insert(latch);
    IRBuilder<> h(latch);
    BasicBlock* after = sweep_end_;
    BasicBlock* before = head;
    // A copy that calls nothing enters no lane (where the kernel reads
    // `threadIdx` from each lane's entry, not from a copy): it runs the
    // warp's lanes together (tl_lanes says so to a fault), and the last is
    // entered once the loop is over. It may then run as a vector loop.
    if (!body_.entering.copy && needs_no_lane(copies)) {
      for (Instruction& i : make_early_inc_range(*head))
        if (auto* store = dyn_cast<StoreInst>(&i);
            store && store->getPointerOperand() == rt_.running)
          store->eraseFromParent();
      before = BasicBlock::Create(c_, "lanes_together", g_);
      after = BasicBlock::Create(c_, "lanes_apart", g_);
      ours_.insert(before);
      ours_.insert(after);
      IRBuilder<> t(before);
      t.SetCurrentDebugLocation(function_line(*g_));
      Value* first = t.CreateShl(warp_, c32(5));
      enter_thread(t, rt_, table_, first, body_.entering, *g_);
      t.CreateStore(t.CreateSub(end_, first), rt_.lanes);
      t.CreateBr(head);
      IRBuilder<> d(after);
      d.SetCurrentDebugLocation(function_line(*g_));
      d.CreateStore(c32(0), rt_.lanes);
      enter_thread(d, rt_, table_, d.CreateSub(end_, c32(1)), body_.entering, *g_);
      d.CreateBr(sweep_end_);
    }
    count_on(h, latch, lane_slot_, end_, head, after);
    to->addCase(kase.getCaseValue(), before);
  }
}

// The end of a warp's turn. Nothing arrived at a warp operation and no lane
// waits at one (every lane waits at the barrier or returned): the warp is
// done for this phase. Every live lane at one call: completed here
// (build_completion). Else the runtime settles the arrivals (and what the
// lanes that reached the barrier or returned complete); the warp goes on at
// its next turn if a lane can.
void WarpBody::build_sweep_end() {
  arrived_ = b_.CreateLoad(i32_, arrived_slot_, "arrived");
  Value* site_and = b_.CreateLoad(i32_, site_and_, "site");
  Value* one = b_.CreateAnd(b_.CreateICmpEQ(b_.CreateLoad(i32_, other_), c32(0)),
                            b_.CreateICmpEQ(site_and, b_.CreateLoad(i32_, site_or_)));
  BasicBlock* any = own("arrivals");
  BasicBlock* uniform = own("one_operation");
  BasicBlock* blocked = own("warp_blocked");
  Value* quiet = b_.CreateICmpEQ(b_.CreateOr(arrived_, b_.CreateLoad(i32_, pending_)), c32(0));
  b_.CreateCondBr(quiet, blocked, any);
  b_.SetInsertPoint(any);
  b_.CreateCondBr(one, uniform, slow_);
  b_.SetInsertPoint(uniform);
  complete_at_ = b_.CreateSwitch(site_and, slow_);
  b_.SetInsertPoint(slow_);
  Value* released = b_.CreateCall(rt_.warp_settle, {warp_}, "released");
  b_.CreateCondBr(b_.CreateICmpNE(released, c32(0)), warp_next_, blocked);
  // warp_blocked: no lane of the warp can go on before the barrier.
  b_.SetInsertPoint(blocked);
  b_.CreateStore(
      b_.CreateAnd(b_.CreateLoad(i32_, active_), b_.CreateNot(b_.CreateShl(c32(1), warp_))),
      active_);
  b_.CreateBr(warp_next_);
}

// Before the runtime settles a warp: each lane that arrived in this turn at
// an operation the body completes gets the fields its arrival left out
// (build_wait), so that the runtime sees every arrival as the general one
// leaves it.
void WarpBody::build_deferred() {
  using namespace warp_frame;
  if (deferred_.empty()) return;
  BasicBlock* settle = SplitBlock(slow_, &slow_->front(), static_cast<DominatorTree*>(nullptr),
                                  nullptr, nullptr, "settle_warp");
  ours_.insert(settle);
  slow_->getTerminator()->eraseFromParent();
  BasicBlock* loop = own("fill", settle);
  BasicBlock* lane = own("fill_lane", settle);
  BasicBlock* next = own("fill_next", settle);
  IRBuilder<> z(slow_);
  z.SetCurrentDebugLocation(function_line(*g_));
  z.CreateBr(loop);
  z.SetInsertPoint(loop);
  PHINode* l = z.CreatePHI(i32_, 2, "l");
  l->addIncoming(c32(0), slow_);
  z.CreateCondBr(z.CreateTrunc(z.CreateLShr(arrived_, l), i1_), lane, next);
  z.SetInsertPoint(lane);
  SwitchInst* at = z.CreateSwitch(z.CreateLoad(i32_, field_of(z, l, kState, i32_)), next);
  for (const Deferred& d : deferred_) {
    BasicBlock* fill = own("fill_site", settle);
    IRBuilder<> w(fill);
    w.SetCurrentDebugLocation(d.line);  // (the code's address: the call's line)
    for (const auto& [offset, value] : d.fields)
      w.CreateStore(value, field_of(w, l, offset, value->getType()));
    if (d.pc)
      w.CreateStore(w.CreatePtrToInt(code_address(w, *g_->getParent()), i64_),
                    field_of(w, l, kPc, i64_));
    w.CreateBr(next);
    at->addCase(c32(d.site), fill);
  }
  z.SetInsertPoint(next);
  Value* l2 = z.CreateAdd(l, c32(1));
  l->addIncoming(l2, next);
  z.CreateCondBr(z.CreateICmpULT(l2, c32(32)), loop, settle);
}

// Wait `site`: the lane leaves what it waits at in its frame and the turn
// goes on to the next lane; it resumes where it waited, with the result from
// its frame.
void WarpBody::build_wait(uint32_t site, CallInst* call) {
  using namespace warp_frame;
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
  y.CreateStore(c32(site), field(y, kState, i32_));
  // An operation the body completes itself leaves in the frame only what
  // the completion reads (and what is not a constant); the rest, and its
  // arrival, are written for the runtime only where it settles the warp
  // (build_deferred).
  const bool lazy = kind == Wait::kWarpOp && completes_in_body(*call);
  Deferred later{site, call->getDebugLoc(), {}, false};
  auto put = [&](uint64_t at, Value* v, Type* t) {
    if (lazy && isa<Constant>(v))
      later.fields.emplace_back(at, cast<Constant>(v));
    else
      y.CreateStore(v, field(y, at, t));
  };
  Value* given = kind == Wait::kWarpOp ? arg(5, y.getInt8PtrTy()) : nullptr;
  if (lazy && isa<ConstantPointerNull>(given)) {
    later.pc = true;
  } else {
    // Taken once, in the body's setup, at the call's line (the runtime's
    // reports read the line of the byte before): a lane's arrival then
    // calls nothing, and a loop over lanes through it may be a vector loop.
    IRBuilder<> once(body_.setup->getTerminator());
    once.SetCurrentDebugLocation(call->getDebugLoc());
    Value* pc = code_address(once, *g_->getParent());
    if (given) pc = y.CreateSelect(y.CreateIsNull(given), pc, given);
    y.CreateStore(y.CreatePtrToInt(pc, i64_), field(y, kPc, i64_));
  }
  Value* vote = nullptr;
  if (kind == Wait::kBarrier || kind == Wait::kBarrierVote) {
    y.CreateStore(c32(kAtBarrier), field(y, kFlags, i32_));
    y.CreateStore(kind == Wait::kBarrier ? c64(0) : arg(1, i64_), field(y, kValue, i64_));
    add_bit(y, other_, bit_);
    if (kind == Wait::kBarrierVote) vote = arg(0, i32_);
  } else {
    const bool warp_op = kind == Wait::kWarpOp;
    Value* mask = warp_op ? arg(1, i32_) : c32(0);
    put(kFlags, c32(kArrived), i32_);
    put(kOp, warp_op ? arg(0, i32_) : c32(kActiveMaskOp), i32_);
    put(kMask, mask, i32_);
    // (The value always: the completion reads it, a constant too.)
    y.CreateStore(warp_op ? arg(2, i64_) : c64(0), field(y, kValue, i64_));
    put(kArg, warp_op ? arg(3, i32_) : c32(0), i32_);
    put(kWidth, warp_op ? arg(4, i32_) : c32(32), i32_);
    if (lazy) deferred_.push_back(std::move(later));
    y.CreateStore(y.CreateAnd(y.CreateLoad(i32_, site_and_), c32(site)), site_and_);
    add_bit(y, site_or_, c32(site));
    add_bit(y, arrived_slot_, bit_);
    // __activemask() is always the runtime's: it depends on where the other
    // lanes wait.
    if (!warp_op) add_bit(y, other_, bit_);
    if (warp_op && !isa<ConstantInt>(call->getArgOperand(1))) {
      y.CreateStore(y.CreateAnd(y.CreateLoad(i32_, mask_and_), mask), mask_and_);
      add_bit(y, mask_or_, mask);
    }
    if (warp_op && isa<ConstantInt>(call->getArgOperand(0))) build_completion(site, *call);
  }
  y.CreateBr(next_);
  br->eraseFromParent();
  BasicBlock* resume = BasicBlock::Create(c_, "resume", g_, after);
  IRBuilder<> z(resume);
  z.SetCurrentDebugLocation(call->getDebugLoc());
  Value* result = z.CreateLoad(i64_, field(z, kResult, i64_), "result");
  z.CreateBr(after);
  to_->addCase(c32(site), resume);
  if (!call->getType()->isVoidTy()) {
    IRBuilder<> r(call);
    r.SetCurrentDebugLocation(call->getDebugLoc());
    Value* value = vote ? r.CreateCall(rt_.vote, {vote, result}) : result;
    call->replaceAllUsesWith(r.CreateZExtOrTrunc(value, call->getType()));
  }
  call->eraseFromParent();
}

// Completes warp operation `call` (its kind a constant) at the end of a turn
// in which every live lane arrived at it alone, where its mask names every
// lane that arrived; else the runtime settles it.
void WarpBody::build_completion(uint32_t site, CallInst& call) {
  BasicBlock* complete = own("complete", slow_);
  IRBuilder<> z(complete);
  z.SetCurrentDebugLocation(call.getDebugLoc());
  Value* named = nullptr;
  if (auto* constant = dyn_cast<ConstantInt>(call.getArgOperand(1))) {
    Value* mask = c32(constant->getZExtValue() & 0xffffffffu);
    named = z.CreateICmpEQ(z.CreateAnd(mask, arrived_), arrived_);
  } else {
    Value* mask = z.CreateLoad(i32_, mask_and_);
    named = z.CreateAnd(z.CreateICmpEQ(mask, z.CreateLoad(i32_, mask_or_)),
                        z.CreateICmpEQ(z.CreateAnd(mask, arrived_), arrived_));
  }
  BasicBlock* completes = own("completes", slow_);
  z.CreateCondBr(named, completes, slow_);
  z.SetInsertPoint(completes);
  complete_inline(z, call);
  complete_at_->addCase(c32(site), complete);
}

// The lanes `arrived_` get their results: shuffles (of a constant width
// that is a power of two), ballots and __syncwarp here, lane by lane, as the
// runtime's shuffle_all computes them; other kinds by the runtime. Then the
// next warp's turn.
void WarpBody::complete_inline(IRBuilder<>& z, CallInst& call) {
  using namespace warp_frame;
  const auto op = WarpOpKind(cast<ConstantInt>(call.getArgOperand(0))->getZExtValue());
  const bool shuffle = op != WarpOpKind::kSync && op != WarpOpKind::kBallot;
  if (!completes_in_body(call)) {
    z.CreateCall(rt_.warp_complete, {c32(uint64_t(op)), warp_frames_, arrived_});
    mark_uniform(z);
    z.CreateBr(warp_next_);
    return;
  }
  BasicBlock* from = z.GetInsertBlock();
  Value* ballot = op == WarpOpKind::kBallot ? ballot_of(z, from) : nullptr;
  // A loop over the warp's 32 lanes, each taking part or not; for a
  // shuffle, one without those tests where all 32 arrived (nearly always).
  auto lanes = [&](bool all) {
    BasicBlock* loop = own("lanes", slow_);
    BasicBlock* take = all ? loop : own("lane_result", slow_);
    BasicBlock* latch = all ? loop : own("lanes_next", slow_);
    // (Past the last lane that arrived, none takes part: a short warp's
    // loop stops at its own end.)
    Value* end = all ? c32(32) : lanes_to_last(z);
    z.CreateBr(loop);
    z.SetInsertPoint(loop);
    PHINode* l = z.CreatePHI(i32_, 2, "l");
    l->addIncoming(c32(0), from);
    if (!all) {
      z.CreateCondBr(z.CreateTrunc(z.CreateLShr(arrived_, l), i1_), take, latch);
      z.SetInsertPoint(take);
    }
    // (Their flags still say runnable: build_wait left them.)
    if (shuffle)
      z.CreateStore(shuffled(z, call, l, all), field_of(z, l, kResult, i64_));
    else if (ballot)
      z.CreateStore(ballot, field_of(z, l, kResult, i64_));
    if (!all) {
      z.CreateBr(latch);
      z.SetInsertPoint(latch);
    }
    Value* l2 = z.CreateAdd(l, c32(1));
    l->addIncoming(l2, latch);
    z.CreateCondBr(z.CreateICmpULT(l2, end), loop, warp_next_);
  };
  // Where all its lanes arrived (all 32, or all a short warp has), they
  // all go on from this wait at the warp's next turn: a fast turn
  // (build_fast_turns) may run them.
  mark_uniform(z);
  BasicBlock* whole = own("whole_warp", slow_);
  BasicBlock* some = own("some_lanes", slow_);
  z.CreateCondBr(z.CreateICmpEQ(arrived_, c32(0xffffffffu)), whole, some);
  z.SetInsertPoint(whole);
  from = whole;
  lanes(true);
  z.SetInsertPoint(some);
  from = some;
  lanes(false);
}

// The lanes up to the last of `arrived_` (none if none): where a loop over the
// lanes that arrived may stop.
Value* WarpBody::lanes_to_last(IRBuilder<>& z) {
  Function* ctlz = Intrinsic::getDeclaration(g_->getParent(), Intrinsic::ctlz, {i32_});
  return z.CreateSub(c32(32), z.CreateCall(ctlz, {arrived_, z.getFalse()}));
}

// The warp is uniform (its next turn may be fast) where every lane it has
// arrived at the operation being completed.
void WarpBody::mark_uniform(IRBuilder<>& z) {
  Value* whole = z.CreateICmpEQ(arrived_, full_);
  add_bit(z, uniform_, z.CreateSelect(whole, z.CreateShl(c32(1), warp_), c32(0)));
}

// The ballot of the lanes `arrived_`: a bit for each whose value is not
// zero. `from` becomes the block the builder ends in.
Value* WarpBody::ballot_of(IRBuilder<>& z, BasicBlock*& from) {
  BasicBlock* vote = own("vote", slow_);
  BasicBlock* voted = own("voted", slow_);
  Value* end = lanes_to_last(z);
  z.CreateBr(vote);
  z.SetInsertPoint(vote);
  PHINode* l = z.CreatePHI(i32_, 2, "l");
  PHINode* acc = z.CreatePHI(i32_, 2, "ballot");
  l->addIncoming(c32(0), from);
  acc->addIncoming(c32(0), from);
  // A lane that did not arrive reads the first lane's frame instead (past a
  // partial warp's end there is no frame).
  Value* takes = z.CreateTrunc(z.CreateLShr(arrived_, l), i1_);
  Value* v =
      z.CreateLoad(i64_, field_of(z, z.CreateSelect(takes, l, c32(0)), warp_frame::kValue, i64_));
  Value* yes = z.CreateAnd(takes, z.CreateICmpNE(v, c64(0)));
  Value* acc2 = z.CreateOr(acc, z.CreateSelect(yes, z.CreateShl(c32(1), l), c32(0)));
  Value* l2 = z.CreateAdd(l, c32(1));
  l->addIncoming(l2, vote);
  acc->addIncoming(acc2, vote);
  z.CreateCondBr(z.CreateICmpULT(l2, end), vote, voted);
  z.SetInsertPoint(voted);
  from = voted;
  return z.CreateZExt(acc2, i64_);
}

// Lane `l`'s result of shuffle `call`: its source lane's value,
// or its own where the source is outside its segment or the warp, or did
// not arrive (the runtime's source_of, for a width that is a power of two);
// `all`: every lane of the warp arrived.
Value* WarpBody::shuffled(IRBuilder<>& z, CallInst& call, Value* l, bool all) {
  using namespace warp_frame;
  const auto op = WarpOpKind(cast<ConstantInt>(call.getArgOperand(0))->getZExtValue());
  const int64_t width = cast<ConstantInt>(call.getArgOperand(4))->getSExtValue();
  Value* a = call.getArgOperand(3);
  a = isa<Constant>(a) ? z.CreateZExtOrTrunc(a, i32_)
                       : z.CreateLoad(i32_, field_of(z, l, kArg, i32_));
  a = z.CreateAnd(a, c32(31));
  // (l is below 32: a segment of 32 lanes is the warp.)
  Value* seg = width == 32 ? c32(0) : z.CreateAnd(l, c32(uint64_t(-width)));
  Value* seg_end = z.CreateAdd(seg, c32(uint64_t(width)));
  Value* src = nullptr;
  Value* inside = ConstantInt::getTrue(c_);
  switch (op) {
    case WarpOpKind::kShflIdx:
      src = z.CreateAdd(seg, z.CreateAnd(a, c32(uint64_t(width - 1))));
      break;
    case WarpOpKind::kShflUp:
      src = z.CreateSub(l, a);
      inside = z.CreateICmpSGE(src, seg);
      break;
    case WarpOpKind::kShflDown:
      src = z.CreateAdd(l, a);
      inside = z.CreateICmpSLT(src, seg_end);
      break;
    default:
      src = z.CreateXor(l, a);
      inside = z.CreateICmpSLT(src, seg_end);
      break;
  }
  Value* in_warp = z.CreateICmpULT(src, c32(32));
  Value* takes = all ? ConstantInt::getTrue(c_)
                     : z.CreateTrunc(z.CreateLShr(arrived_, z.CreateAnd(src, c32(31))), i1_);
  Value* keeps_own = z.CreateNot(z.CreateAnd({inside, in_warp, takes}));
  if (all && isa<Constant>(call.getArgOperand(3)) &&
      (op == WarpOpKind::kShflUp || op == WarpOpKind::kShflDown)) {
    // Lane l - a (or l + a) as an array's element, which a vector loop
    // reads as one; where that lane is past the warp's 32, the read is of
    // the next or the previous field of the frames and is not used.
    Value* theirs = z.CreateLoad(i64_, field_of(z, z.CreateSExt(src, i64_), kValue, i64_));
    Value* own = z.CreateLoad(i64_, field_of(z, l, kValue, i64_));
    return z.CreateSelect(keeps_own, own, theirs);
  }
  Value* from_lane = z.CreateSelect(keeps_own, l, src);
  return z.CreateLoad(i64_, field_of(z, from_lane, kValue, i64_));
}

// Tells the optimizer that the columns of a warp's frames (a field or slot
// each, into_frames) are apart: each load and store of a column gets the
// column's scope and is no alias of the others; a load or store of memory
// that is not a column (the kernel's) is no alias of any column whose
// address the code never lets out (no pointer of the kernel's can reach it).
// A vector loop over lanes then needs no checks between them.
void WarpBody::mark_columns() {
  // The column at the root of `pointer`: its offset in the warp's frames.
  auto column_of = [&](Value* pointer) -> std::optional<uint64_t> {
    for (Value* v = pointer;;) {
      if (auto* cast = dyn_cast<BitCastInst>(v)) {
        v = cast->getOperand(0);
      } else if (auto* gep = dyn_cast<GetElementPtrInst>(v)) {
        if (gep->getPointerOperand() == warp_frames_) {
          auto* at = dyn_cast<ConstantInt>(gep->getOperand(1));
          if (gep->getNumIndices() != 1 || !at) return std::nullopt;
          return at->getZExtValue();
        }
        v = gep->getPointerOperand();
      } else {
        return std::nullopt;
      }
    }
  };
  // Whether the address `v` (of a column) is only read and written through.
  std::function<bool(Value*)> kept = [&](Value* v) {
    for (User* u : v->users()) {
      if (isa<BitCastInst>(u) || isa<GetElementPtrInst>(u)) {
        if (!kept(u)) return false;
      } else if (auto* store = dyn_cast<StoreInst>(u)) {
        if (store->getValueOperand() == v) return false;
      } else if (!isa<LoadInst>(u)) {
        return false;
      }
    }
    return true;
  };
  std::map<uint64_t, bool> columns;  // offset: never let out
  for (User* u : warp_frames_->users())
    if (auto* gep = dyn_cast<GetElementPtrInst>(u)) {
      const std::optional<uint64_t> at = column_of(gep);
      if (!at) continue;
      auto [it, fresh] = columns.try_emplace(*at, true);
      it->second = it->second && kept(gep);
    }
  if (columns.size() < 2) return;
  MDBuilder md(c_);
  MDNode* domain = md.createAnonymousAliasScopeDomain("warp frames");
  std::map<uint64_t, MDNode*> scope;
  for (const auto& [at, closed] : columns) scope[at] = md.createAnonymousAliasScope(domain);
  auto list = [&](auto keep) {
    std::vector<Metadata*> scopes;
    for (const auto& [at, closed] : columns)
      if (keep(at, closed)) scopes.push_back(scope[at]);
    return MDNode::get(c_, scopes);
  };
  MDNode* closed_columns = list([](uint64_t, bool closed) { return closed; });
  std::map<uint64_t, std::pair<MDNode*, MDNode*>> marks;  // own scope, the others
  for (const auto& column : columns) {
    const uint64_t at = column.first;
    marks[at] = {MDNode::get(c_, {scope[at]}), list([at](uint64_t o, bool) { return o != at; })};
  }
  for (Instruction& i : instructions(*g_)) {
    Value* pointer = getLoadStorePointerOperand(&i);
    if (!pointer) continue;
    if (const std::optional<uint64_t> at = column_of(pointer)) {
      i.setMetadata(LLVMContext::MD_alias_scope, marks[*at].first);
      i.setMetadata(LLVMContext::MD_noalias, marks[*at].second);
    } else if (!closed_columns->operands().empty() &&
               !isa<AllocaInst>(getUnderlyingObject(pointer, 0))) {
      i.setMetadata(LLVMContext::MD_noalias, closed_columns);
    }
  }
}

// Whether block body `body` is small enough to be made for the vectorizer
// (mark_columns, wide_copy, vector_passes). Every kernel of the lessons is,
// by far; a kernel unrolled into hundreds of warp operations (HeCBench's
// segsort: bodies of up to 1.3 million instructions) is not: the column
// marks make each alias query of the optimizer walk a list as long as the
// columns, and the copy and the vectorizer double and lengthen the rest. Its
// compile took 71 s before those and 513 s with them.
bool vector_sized(const Function& body) {
  constexpr size_t kLimit = 20000;  // instructions
  size_t n = 0;
  for (const BasicBlock& b : body)
    if ((n += b.size()) > kLimit) return false;
  return true;
}

// The kernel's entry: the whole block through `body` when the runtime offers
// it, else this thread alone as before.
void offer_block_body(Function& kernel, Function* body, Function* wide, const Runtime& rt) {
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
  if (wide) {
    BasicBlock* with_wide = BasicBlock::Create(c, "wide_vectors", &kernel, rest);
    BasicBlock* narrow = BasicBlock::Create(c, "narrow_vectors", &kernel, rest);
    b.CreateCondBr(b.CreateCall(rt.wide), with_wide, narrow);
    b.SetInsertPoint(with_wide);
    b.CreateCall(wide, args);
    b.CreateRetVoid();
    b.SetInsertPoint(narrow);
  }
  b.CreateCall(body, args);
  b.CreateRetVoid();
}

// A copy of block body `body` for processors with wide vectors (x86-64's
// AVX2: eight 32-bit lanes of a warp at once, where the plain target has
// four, and with the comparisons and shifts of every width), or null where
// the target has none. Fused multiply-adds stay off: a float sum comes out
// as in the plain body.
Function* wide_copy(Function& body) {
  if (Triple(body.getParent()->getTargetTriple()).getArch() != Triple::x86_64) return nullptr;
  ValueToValueMapTy map;
  Function* wide = CloneFunction(&body, map);
  wide->setName(body.getName() + ".wide");
  std::string features = body.getFnAttribute("target-features").getValueAsString().str();
  features += features.empty() ? "+avx2" : ",+avx2";
  wide->addFnAttr("target-features", features);
  return wide;
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
  explicit BlockLoops(FunctionPassManager cleanup, FunctionPassManager vectors)
      : cleanup_(std::move(cleanup)), vectors_(std::move(vectors)) {}
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
      // Built with fast copies first; a body that does not verify is built
      // again without them, then given up (the kernel keeps its fibers).
      Function* body = nullptr;
      for (const bool fast : {true, false}) {
        body = mode == Mode::kLoop     ? build_thread_loop(*f, rt)
               : mode == Mode::kPhases ? build_block_body(*f, rt, fast)
                                       : WarpBody(*f, rt, fast).build();
        if (!verifyFunction(*body)) break;
        body->eraseFromParent();
        body = nullptr;
        if (mode == Mode::kLoop) break;
      }
      if (!body) continue;
      const bool vectors = mode == Mode::kWarpLoops && vector_sized(*body);
      Function* wide = vectors ? wide_copy(*body) : nullptr;
      offer_block_body(*f, body, wide, rt);
      fam.invalidate(*f, PreservedAnalyses::none());
      for (Function* made : {body, wide})
        if (made) {
          cleanup_.run(*made, fam);
          if (vectors) vectors_.run(*made, fam);
        }
    }
    return PreservedAnalyses::none();
  }
  FunctionPassManager cleanup_;
  // The loops over lanes as vector loops, where the vectorizer can (made
  // after the pipeline's own vectorizer ran).
  FunctionPassManager vectors_;
};

// What runs the loops over lanes as vector loops: the vectorizer and what
// tidies up after it, as the optimizing pipeline has them.
FunctionPassManager vector_passes() {
  FunctionPassManager f;
  f.addPass(LoopVectorizePass());
  f.addPass(EarlyCSEPass());
  f.addPass(InstCombinePass());
  f.addPass(SimplifyCFGPass());
  return f;
}

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
              BlockLoops(pb.buildFunctionSimplificationPipeline(level, ThinOrFullLTOPhase::None),
                         vector_passes()));
        });
      }};
}
