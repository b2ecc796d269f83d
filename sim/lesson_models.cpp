// Models for the training patterns (lesson.h). PLACEHOLDER until the training helper lands it.
#include "sim/errors.h"
#include "sim/lesson.h"
namespace collsim {
std::uint64_t ModelLayers::total() const { throw InputError("ModelLayers::total: not implemented yet"); }
ModelLayers resnet34() { throw InputError("resnet34: not implemented yet"); }
}  // namespace collsim
