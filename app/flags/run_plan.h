// What a command line's run flags make of a scenario file, or of nothing (`collsim run`,
// `explain`, `storyboard`, `html` and `collsim-gui`): only the flags the user gave override
// the file's values, as sim/ applies them (apply_scenario_overrides, adopt_schedule_spec).
// No CLI11 here: the flags come as typed values and a FlagGiven (run_flags.h fills both).
#pragma once
#include <optional>
#include <string>
#include <string_view>

#include "app/flags/topology_flags.h"
#include "sim/lesson/scenario.h"
#include "sim/model/topology.h"
#include "sim/run/request_fields.h"
#include "sim/run/run.h"

namespace collsim::flags {

// The first flag given that sets a field of the run (the collective's, --seed, the
// topology's), as typed ("--ranks", "--late"); empty when none is. A JSON trace refuses
// them (`collsim storyboard`, `collsim html`, `collsim-gui`): it records its own run.
std::string_view run_flag_given(const FlagGiven& given);

// The flags over a scenario file, or alone.
struct FlagPlan {
  RunRequest request;               // the run (a lesson of several phases: its first request, as the file's)
  TopologyConfig topology;          // what the timing model predicts on: [topology] under the flags given
  std::optional<Scenario> scenario; // the file with the flags applied; none without a file
};

// `from_flags` is the request the flags describe (defaults included), `topology_flags` the
// topology (topology_flags.h). Throws InputError for an unreadable or invalid scenario file
// (file:line:column and key), for a flag that changes one collective given with a lesson of
// several phases (apply_scenario_overrides), and for a topology flag the topology lacks
// (check_topology_flags).
FlagPlan plan_flags(const std::string& scenario_path, const RunRequest& from_flags, const FlagGiven& given,
                    const TopologyConfig& topology_flags = {});

// Where a run's schedule is an MSCCL file and --protocol was not given: the timing model
// predicts under the file's proto (Simple, LL, LL128), as MSCCL's runtime would run it.
TopologyConfig adopt_schedule_protocol(const RunRequest& request, TopologyConfig topology, const FlagGiven& given);

}  // namespace collsim::flags
