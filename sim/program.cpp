// Running a lesson (program.h). PLACEHOLDER until the program helper lands it.
#include "sim/errors.h"
#include "sim/program.h"
namespace collsim {
ProgramResult prepare_program(const Scenario&) { throw InputError("prepare_program: not implemented yet"); }
void execute_program(ProgramResult&, Backend&, const ProgramProgress&, bool) { throw InputError("execute_program: not implemented yet"); }
void predict_program(ProgramResult&, const Scenario&, const TopologyConfig&) { throw InputError("predict_program: not implemented yet"); }
}  // namespace collsim
