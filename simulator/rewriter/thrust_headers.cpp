// The public Thrust headers that each public Thrust header brings with it
// when nvcc builds a program: its CUDA system's algorithms include many of
// the others (thrust/sort.h brings thrust/sequence.h and
// thrust/execution_policy.h, with thrust::device), and programs come to rely
// on that. The simulator's Thrust runs its algorithms on the CPP system,
// whose headers include far fewer; the rewriter adds the rest after a
// file's last Thrust include (rewrite.cpp). Taken from the preprocessed
// output of each header under nvcc (CUDA 13), restricted to the headers
// Debian's Thrust has.
#include "rewriter/thrust_headers.h"

#include <map>
#include <sstream>

namespace cudalab::rewriter {

std::vector<std::string> thrust_headers_with(const std::string& header) {
  static const std::map<std::string, const char*> kWith = {
      // Any of CUB's headers ("cub"): the iterators CUDA 13's CUB includes
      // (its device-wide algorithms use them).
      {"cub",
       "iterator/constant_iterator iterator/counting_iterator iterator/discard_iterator "
       "iterator/reverse_iterator"},
      {"adjacent_difference",
       "advance distance fill for_each functional generate memory pair swap system_error transform "
       "tuple uninitialized_fill zip_function"},
      {"binary_search",
       "advance distance fill for_each functional generate memory pair swap system_error transform "
       "tuple uninitialized_fill zip_function"},
      {"copy",
       "advance distance fill for_each functional generate memory pair replace scan scatter swap "
       "system_error transform tuple uninitialized_fill zip_function"},
      {"count",
       "advance copy distance fill for_each functional generate memory pair reduce replace scan "
       "scatter swap system_error transform transform_reduce tuple uninitialized_fill "
       "zip_function"},
      {"device_allocator",
       "advance device_ptr device_reference distance fill for_each functional generate memory pair "
       "swap system_error transform tuple uninitialized_fill zip_function"},
      {"device_delete",
       "advance device_free device_ptr device_reference distance fill for_each functional generate "
       "memory pair swap system_error transform tuple uninitialized_fill zip_function"},
      {"device_free",
       "advance device_ptr device_reference distance fill for_each functional generate memory pair "
       "swap system_error transform tuple uninitialized_fill zip_function"},
      {"device_make_unique",
       "advance allocate_unique device_allocator device_malloc device_new device_ptr "
       "device_reference distance fill for_each functional generate memory pair swap system_error "
       "transform tuple uninitialized_fill zip_function"},
      {"device_malloc",
       "advance device_ptr device_reference distance fill for_each functional generate memory pair "
       "swap system_error transform tuple uninitialized_fill zip_function"},
      {"device_malloc_allocator",
       "advance device_free device_malloc device_ptr device_reference distance fill for_each "
       "functional generate memory pair swap system_error transform tuple uninitialized_fill "
       "zip_function"},
      {"device_new",
       "advance device_malloc device_ptr device_reference distance fill for_each functional "
       "generate memory pair swap system_error transform tuple uninitialized_fill zip_function"},
      {"device_new_allocator",
       "advance device_delete device_free device_malloc device_new device_ptr device_reference "
       "distance fill for_each functional generate memory pair swap system_error transform tuple "
       "uninitialized_fill zip_function"},
      {"device_ptr",
       "advance device_reference distance fill for_each functional generate memory pair swap "
       "system_error transform tuple uninitialized_fill zip_function"},
      {"device_reference",
       "advance device_ptr distance fill for_each functional generate memory pair swap "
       "system_error transform tuple uninitialized_fill zip_function"},
      {"device_vector",
       "advance copy device_allocator device_ptr device_reference distance equal fill find "
       "for_each functional generate memory mismatch pair reduce replace scan scatter swap "
       "system_error transform tuple uninitialized_fill zip_function"},
      {"distance", "advance"},
      {"equal",
       "advance copy distance fill find for_each functional generate memory mismatch pair reduce "
       "replace scan scatter swap system_error transform tuple uninitialized_fill zip_function"},
      {"event",
       "addressof advance allocate_unique copy distance execution_policy fill for_each functional "
       "future generate memory merge optional pair replace reverse scan scatter swap system_error "
       "transform tuple uninitialized_fill zip_function"},
      {"execution_policy",
       "advance copy distance fill for_each functional generate memory merge pair replace reverse "
       "scan scatter swap system_error transform tuple uninitialized_fill zip_function"},
      {"extrema",
       "advance copy distance execution_policy fill for_each functional generate memory merge pair "
       "reduce replace reverse scan scatter swap system_error transform transform_reduce tuple "
       "uninitialized_fill zip_function"},
      {"fill", "advance distance for_each functional generate pair system_error tuple"},
      {"find",
       "advance copy distance fill for_each functional generate memory pair reduce replace scan "
       "scatter swap system_error transform tuple uninitialized_fill zip_function"},
      {"for_each", "advance distance functional system_error tuple"},
      {"functional", "tuple"},
      {"future",
       "addressof advance allocate_unique copy distance execution_policy fill for_each functional "
       "generate memory merge optional pair replace reverse scan scatter swap system_error "
       "transform tuple uninitialized_fill zip_function"},
      {"gather",
       "advance distance for_each functional pair system_error transform tuple zip_function"},
      {"generate", "advance distance for_each functional system_error tuple"},
      {"host_vector",
       "advance copy distance equal fill find for_each functional generate memory mismatch pair "
       "reduce replace scan scatter swap system_error transform tuple uninitialized_fill "
       "zip_function"},
      {"inner_product",
       "advance copy distance fill for_each functional generate memory pair reduce replace scan "
       "scatter swap system_error transform transform_reduce tuple uninitialized_fill "
       "zip_function"},
      {"logical",
       "advance copy distance fill find for_each functional generate memory pair reduce replace "
       "scan scatter swap system_error transform tuple uninitialized_fill zip_function"},
      {"memory",
       "advance distance fill for_each functional generate pair swap system_error transform tuple "
       "uninitialized_fill zip_function"},
      {"merge",
       "advance distance fill for_each functional generate memory pair swap system_error transform "
       "tuple uninitialized_fill zip_function"},
      {"mismatch",
       "advance copy distance fill find for_each functional generate memory pair reduce replace "
       "scan scatter swap system_error transform tuple uninitialized_fill zip_function"},
      {"optional",
       "addressof advance distance for_each functional pair swap system_error tuple zip_function"},
      {"partition",
       "advance copy count distance execution_policy extrema fill find for_each functional "
       "generate memory merge pair reduce remove replace reverse scan scatter sequence sort swap "
       "system_error tabulate transform transform_reduce tuple uninitialized_fill zip_function"},
      {"per_device_resource", "functional system_error tuple"},
      {"random", "pair"},
      {"reduce",
       "advance copy distance fill for_each functional generate memory pair replace scan scatter "
       "swap system_error transform tuple uninitialized_fill zip_function"},
      {"remove",
       "advance copy distance fill for_each functional generate memory pair replace scan scatter "
       "swap system_error transform tuple uninitialized_fill zip_function"},
      {"replace",
       "advance distance for_each functional pair system_error transform tuple zip_function"},
      {"reverse",
       "advance distance fill for_each functional generate memory pair swap system_error transform "
       "tuple uninitialized_fill zip_function"},
      {"scan",
       "advance distance fill for_each functional generate memory pair replace swap system_error "
       "transform tuple uninitialized_fill zip_function"},
      {"scatter",
       "advance copy distance fill for_each functional generate memory pair replace scan swap "
       "system_error transform tuple uninitialized_fill zip_function"},
      {"sequence",
       "advance distance for_each functional pair system_error tabulate transform tuple "
       "zip_function"},
      {"set_operations",
       "advance copy distance execution_policy extrema fill for_each functional generate memory "
       "merge pair reduce replace reverse scan scatter swap system_error transform "
       "transform_reduce tuple uninitialized_fill zip_function"},
      {"shuffle",
       "advance distance fill for_each functional generate memory pair random replace scan swap "
       "system_error transform tuple uninitialized_fill zip_function"},
      {"sort",
       "advance copy distance execution_policy extrema fill find for_each functional generate "
       "memory merge pair reduce replace reverse scan scatter sequence swap system_error tabulate "
       "transform transform_reduce tuple uninitialized_fill zip_function"},
      {"swap", "advance distance for_each functional pair system_error tuple zip_function"},
      {"system_error", "functional tuple"},
      {"tabulate",
       "advance distance for_each functional pair system_error transform tuple zip_function"},
      {"transform", "advance distance for_each functional pair system_error tuple zip_function"},
      {"transform_reduce",
       "advance copy distance fill for_each functional generate memory pair reduce replace scan "
       "scatter swap system_error transform tuple uninitialized_fill zip_function"},
      {"transform_scan",
       "advance distance fill for_each functional generate memory pair replace scan swap "
       "system_error transform tuple uninitialized_fill zip_function"},
      {"uninitialized_copy",
       "advance copy distance fill for_each functional generate memory pair replace scan scatter "
       "swap system_error transform tuple uninitialized_fill zip_function"},
      {"uninitialized_fill",
       "advance distance fill for_each functional generate pair system_error tuple"},
      {"unique",
       "advance copy count distance fill for_each functional generate memory pair reduce replace "
       "scan scatter swap system_error transform transform_reduce tuple uninitialized_fill "
       "zip_function"},
      {"universal_allocator",
       "advance distance fill for_each functional generate memory pair swap system_error transform "
       "tuple uninitialized_fill zip_function"},
      {"universal_ptr",
       "advance distance fill for_each functional generate memory pair swap system_error transform "
       "tuple uninitialized_fill universal_allocator zip_function"},
      {"universal_vector",
       "advance copy distance equal fill find for_each functional generate memory mismatch pair "
       "reduce replace scan scatter swap system_error transform tuple uninitialized_fill "
       "universal_allocator zip_function"},
      {"zip_function", "tuple"},
  };
  std::vector<std::string> with;
  const auto it = kWith.find(header);
  if (it == kWith.end()) return with;
  std::istringstream names(it->second);
  for (std::string name; names >> name;) with.push_back(name);
  return with;
}

}  // namespace cudalab::rewriter
