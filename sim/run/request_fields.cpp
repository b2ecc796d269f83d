#include "sim/run/request_fields.h"

namespace collsim {

std::string_view field_flag(RequestField field) {
  switch (field) {
    case RequestField::collective: return "--collective";
    case RequestField::algorithm: return "--algorithm";
    case RequestField::schedule: return "--schedule";
    case RequestField::ranks: return "--ranks";
    case RequestField::count: return "--count";
    case RequestField::dtype: return "--dtype";
    case RequestField::op: return "--op";
    case RequestField::inputs: return "--inputs";
    case RequestField::root: return "--root";
    case RequestField::in_place: return "--in-place";
    case RequestField::slices: return "--slices";
    case RequestField::servers: return "--servers";
    case RequestField::colocated: return "--colocated";
    case RequestField::ranks_per_node: return "--ranks-per-node";
    case RequestField::seed: return "--seed";
    case RequestField::topology: return "--topology";
    case RequestField::link: return "--link";
    case RequestField::bandwidth: return "--bandwidth";
    case RequestField::latency: return "--latency";
    case RequestField::uplink: return "--uplink";
    case RequestField::uplink_bandwidth: return "--uplink-bandwidth";
    case RequestField::uplink_latency: return "--uplink-latency";
    case RequestField::group_size: return "--group-size";
    case RequestField::nic: return "--nic";
    case RequestField::reduce_rate: return "--reduce-rate";
    case RequestField::copy_rate: return "--copy-rate";
    case RequestField::link_override: return "--link-override";
    case RequestField::protocol: return "--protocol";
    case RequestField::latency_rule: return "--latency-rule";
    case RequestField::arrange: return "--arrange";
    case RequestField::stragglers: return "--late/--slow";
  }
  return "?";
}

std::vector<std::string_view> field_flags(RequestField field) {
  if (field == RequestField::stragglers) return {"--late", "--slow"};
  return {field_flag(field)};
}

GivenFields fields_given_by_flags(const std::function<bool(std::string_view flag)>& flag_given) {
  GivenFields fields;
  for (std::size_t i = 0; i < kRequestFieldCount; ++i) {
    const auto field = static_cast<RequestField>(i);
    for (const std::string_view flag : field_flags(field))
      if (flag_given(flag)) fields.add(field);
  }
  return fields;
}

}  // namespace collsim
