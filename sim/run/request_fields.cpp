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
    case RequestField::stragglers: return "--late/--slow";
  }
  return "?";
}

}  // namespace collsim
