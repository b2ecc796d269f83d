// kernels/nccl_api.h for builds without NCCL.
#include <stdexcept>

#include "kernels/nccl_api.h"

namespace collsim::nccl {

bool available() noexcept { return false; }

AllReduceTime time_all_reduce(int, std::size_t, DataType, ReduceOp, int, int) {
  throw NcclError("collsim::nccl::time_all_reduce: collsim was built without NCCL", "collsim::nccl::time_all_reduce", "");
}

}  // namespace collsim::nccl
