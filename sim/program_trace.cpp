// Lesson exports (program.h). PLACEHOLDER until the program helper lands it.
#include "sim/errors.h"
#include "sim/program.h"
namespace collsim {
std::string program_to_chrome(const Scenario&, const ProgramResult&) { throw InputError("program_to_chrome: not implemented yet"); }
std::string program_to_csv(const Scenario&, const ProgramResult&) { throw InputError("program_to_csv: not implemented yet"); }
std::string program_to_json(const Scenario&, const ProgramResult&) { throw InputError("program_to_json: not implemented yet"); }
}  // namespace collsim
