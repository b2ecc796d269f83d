// Which fields of a run request and its topology a user set over a scenario file's values
// (the CLI's flags, the app's run editor), as data: sim/ applies them (apply_scenario_overrides,
// adopt_schedule_spec) without knowing how a front end spells them.
//
// Messages about a field name it by the flag that sets it (field_flag, "--ranks"): the
// CLI's words, which docs/cli.md and the app's run editor use too. That table, here, is the
// one place those spellings live below app/.
#pragma once
#include <bitset>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <initializer_list>
#include <string_view>
#include <vector>

namespace collsim {

enum class RequestField : std::uint8_t {
  // the collective (RunRequest)
  collective, algorithm, schedule, ranks, count, dtype, op, inputs, root, in_place, slices, servers, colocated,
  ranks_per_node, seed,
  // the topology (TopologyConfig)
  topology, link, bandwidth, latency, uplink, uplink_bandwidth, uplink_latency, group_size, nic, reduce_rate,
  copy_rate, link_override, protocol, latency_rule, arrange, stragglers,
};
inline constexpr std::size_t kRequestFieldCount = static_cast<std::size_t>(RequestField::stragglers) + 1;

// A set of fields: the ones given.
class GivenFields {
 public:
  GivenFields() = default;
  GivenFields(std::initializer_list<RequestField> fields) {
    for (const RequestField f : fields) add(f);
  }
  bool operator()(RequestField f) const { return bits_.test(static_cast<std::size_t>(f)); }
  GivenFields& add(RequestField f) {
    bits_.set(static_cast<std::size_t>(f));
    return *this;
  }
  bool any() const { return bits_.any(); }

 private:
  std::bitset<kRequestFieldCount> bits_;
};

// The flag that sets `field`, as messages name it: "--ranks", "--link-override"; the
// stragglers are "--late" or "--slow" ("--late/--slow").
std::string_view field_flag(RequestField field);
// The flags that set `field` as a command line types them: its one flag, or the
// stragglers' two ("--late", "--slow").
std::vector<std::string_view> field_flags(RequestField field);
// The fields whose flags `flag_given` reports as typed: how a command line's flags
// (`collsim`'s, `collsim-gui`'s, the tests') become what sim/ is told.
GivenFields fields_given_by_flags(const std::function<bool(std::string_view flag)>& flag_given);

}  // namespace collsim
