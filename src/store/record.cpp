#include "store/record.hpp"

#include "core/bandwidth.hpp"

namespace colltune {

nlohmann::json to_json(const RunContext& c) {
  nlohmann::json placement = nlohmann::json::array();
  for (const auto& p : c.placement) {
    placement.push_back({{"rank", p.rank},
                         {"host", p.host},
                         {"cpus", p.cpus},
                         {"cores", p.cores},
                         {"numa", p.numa},
                         {"host_pus", p.host_pus},
                         {"nic_numa", p.nic_numa},
                         {"gpu", p.gpu},
                         {"gpu_numa", p.gpu_numa},
                         {"gpu_model", p.gpu_model}});
  }
  return {
      {"colltune_version", c.colltune_version},
      {"git_revision", c.git_revision},
      {"backend", c.backend},
      {"start_time_utc", c.start_time_utc},
      {"command_line", c.command_line},
      {"nranks", c.nranks},
      {"gpus_per_process", c.gpus_per_process},
      {"hosts", c.hosts},
      {"ranks_per_host", c.ranks_per_host},
      {"placement", placement},
      {"library_versions", c.library_versions},
      {"backend_settings", c.backend_settings},
      {"timing", name(c.timing)},
      {"cache", name(c.cache)},
      {"warmup_iters", c.warmup_iters},
      {"iters", c.iters},
      {"repetitions", c.repetitions},
      {"check_rounds", c.check_rounds},
      {"environment", c.environment},
      {"warnings", c.warnings},
  };
}

std::vector<RankPlacement> placement_from_json(const nlohmann::json& placement) {
  std::vector<RankPlacement> out;
  for (const auto& p : placement) {
    out.push_back({p.value("rank", 0), p.value("host", ""), p.value("cpus", ""),
                   p.value("cores", ""), p.value("numa", ""), p.value("host_pus", 0),
                   p.value("nic_numa", ""), p.value("gpu", ""), p.value("gpu_numa", ""),
                   p.value("gpu_model", "")});
  }
  return out;
}

nlohmann::json to_json(const Measurement& m) {
  const Summary& s = m.summary;
  nlohmann::json j = {
      {"collective", name(m.coll.kind)},
      {"dtype", name(m.coll.dtype)},
      {"op", name(m.coll.op)},
      {"root", m.coll.root},
      {"in_place", m.coll.in_place},
      {"count", m.coll.count},
      {"bytes", m.bytes},
      {"nranks", m.nranks},
      {"window", is_point_to_point(m.coll.kind) ? nlohmann::json(m.coll.window) : nullptr},
      {"ops_per_sample", m.ops_per_sample},
      {"buffer_sets", m.buffer_sets},
      {"skipped", m.skipped ? nlohmann::json(*m.skipped) : nullptr},
      {"wrong", m.wrong ? nlohmann::json(*m.wrong) : nullptr},
      {"samples_seconds", m.samples_seconds},
      {"bus_factor", bus_factor(m.coll.kind, m.nranks)},
      {"in_process_knobs", m.in_process_knobs},
  };
  if (!m.skipped) {
    j["stats_seconds"] = {{"n", s.n},
                          {"min", s.min},
                          {"median", s.median},
                          {"mean", s.mean},
                          {"p95", s.p95},
                          {"max", s.max},
                          {"stddev", s.stddev},
                          {"median_ci_low", s.ci_low},
                          {"median_ci_high", s.ci_high},
                          {"ci_level", s.ci_level},
                          {"ci_exact", s.ci_exact}};
    j["algbw_gbps"] = m.at_median.algbw_gbps;
    j["busbw_gbps"] = m.at_median.busbw_gbps;
  } else {
    j["stats_seconds"] = nullptr;
    j["algbw_gbps"] = nullptr;
    j["busbw_gbps"] = nullptr;
  }
  return j;
}

nlohmann::json make_record(const Measurement& m, const RunContext& context) {
  nlohmann::json j = to_json(m);
  j["schema_version"] = kSchemaVersion;
  j["timing"] = name(context.timing);
  j["cache"] = name(context.cache);
  j["context"] = to_json(context);
  return j;
}

}  // namespace colltune
