// Training patterns (lesson.h). PLACEHOLDER until the training helper lands it.
#include "sim/errors.h"
#include "sim/lesson.h"
namespace collsim {
std::vector<Phase> training_phases(const TrainingSpec&, int) { throw InputError("training_phases: not implemented yet"); }
}  // namespace collsim
