#include "app/web/live.h"

#include <nlohmann/json.hpp>

#include "app/web/page.h"
#include "app/web/player_assets.h"
#include "sim/core/errors.h"
#include "sim/schedule/algorithm.h"

namespace collsim::html {
namespace {

using nlohmann::json;

// The choices the form offers, from the registries the CLI checks against (so a choice
// the form offers is one the CLI takes).
json choices_json() {
  json collectives = json::array();
  for (Collective c : kAllCollectives) {
    json algorithms = json::array();
    for (const AlgorithmInfo& a : all_algorithms())
      if (a.collective == c) algorithms.push_back(std::string(a.name));
    collectives.push_back({{"name", std::string(to_string(c))},
                           {"default", std::string(default_algorithm(c).name)},
                           {"algorithms", std::move(algorithms)}});
  }
  json topologies = json::array(), links = json::array(), dtypes = json::array(), ops = json::array();
  for (TopologyKind k : kAllTopologyKinds) topologies.push_back(std::string(to_string(k)));
  for (const LinkPreset& p : link_presets()) links.push_back({{"name", std::string(p.name)}, {"what", std::string(p.what)}});
  for (DataType t : kAllDataTypes) dtypes.push_back(std::string(to_string(t)));
  for (ReduceOp o : kAllReduceOps) ops.push_back(std::string(to_string(o)));
  return {{"collectives", std::move(collectives)}, {"topologies", std::move(topologies)}, {"links", std::move(links)},
          {"dtypes", std::move(dtypes)}, {"ops", std::move(ops)}};
}

json input_json(const LiveInput& in) {
  json files = json::array();
  for (const LiveInput::File& f : in.files) files.push_back({{"path", f.path}, {"text", f.text}});
  const RunRequest& r = in.request;
  const json start = {{"collective", std::string(to_string(r.spec.collective))},
                      {"algorithm", r.algorithm},
                      {"ranks", r.spec.ranks},
                      {"count", r.spec.count},
                      {"dtype", std::string(to_string(r.spec.dtype))},
                      {"op", std::string(to_string(r.spec.op))},
                      {"seed", std::to_string(r.seed)},
                      {"topology", std::string(to_string(in.topology.kind))},
                      {"link", in.topology.link}};
  return {{"input", in.input}, {"files", std::move(files)}, {"lesson", in.lesson}, {"start", start},
          {"choices", choices_json()}};
}

}  // namespace

std::string add_live(const std::string& page, const LiveInput& input, std::string_view module_js) {
  const std::size_t body_end = page.rfind("</body>");
  if (body_end == std::string::npos) throw std::logic_error("add_live: the page has no </body>");
  std::string live = "<script id=\"collsim-live-input\" type=\"application/json\">" + script_safe(input_json(input).dump()) +
                     "</script>\n<script>\n" + script_safe(std::string(module_js)) + "\n</script>\n<script>\n" + std::string(kLiveJs) +
                     "</script>\n";
  return page.substr(0, body_end) + live + page.substr(body_end);
}

}  // namespace collsim::html
