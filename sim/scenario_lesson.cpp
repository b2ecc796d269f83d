// Format 2 of the scenario loader: phases, training, captions, questions. PLACEHOLDER until
// the parser helper lands it.
#include "sim/scenario.h"
namespace collsim {
bool Scenario::single_collective() const { return true; }
}  // namespace collsim
