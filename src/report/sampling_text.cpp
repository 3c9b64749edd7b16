#include "report/sampling_text.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <nlohmann/json.hpp>
#include <set>

namespace colltune {
namespace {

std::string count_or_na(const std::optional<int>& value) {
  return value ? std::to_string(*value) : "n/a";
}

std::optional<int> int_field(const nlohmann::json& context, const char* key) {
  const auto it = context.find(key);
  if (it == context.end() || !it->is_number_integer()) return std::nullopt;
  return it->get<int>();
}

}  // namespace

SamplingPlan sampling_plan(const RunContext& context) {
  return {context.iters, context.repetitions, context.warmup_iters, context.race,
          context.min_sample_seconds};
}

SamplingPlan sampling_plan(const nlohmann::json& context) {
  SamplingPlan plan;
  if (!context.is_object()) return plan;
  plan.iters = int_field(context, "iters");
  plan.repetitions = int_field(context, "repetitions");
  plan.warmup_iters = int_field(context, "warmup_iters");
  // Checked, not value(): a hand-edited or foreign file's odd type reads as not raced, not a throw.
  const auto race = context.find("race");
  plan.race = race != context.end() && race->is_boolean() && race->get<bool>();
  const auto seconds = context.find("min_sample_seconds");
  if (seconds != context.end() && seconds->is_number()) {
    plan.min_sample_seconds = seconds->get<double>();
  }
  return plan;
}

std::string sampling_text(const SamplingPlan& plan) {
  const bool grown = plan.min_sample_seconds > 0;
  const std::string ops =
      grown ? fmt::format(
                  "ops per sample grown per size until a sample lasts {:g} us (1 warm-up "
                  "op, then batches of 1, 2, 4 ... ops)",
                  plan.min_sample_seconds * 1e6)
            : count_or_na(plan.iters) + " ops per sample";
  const std::string samples =
      plan.race ? fmt::format("up to {} turns per size, raced: a setting stops once decided",
                              count_or_na(plan.repetitions))
                : count_or_na(plan.repetitions) + " samples per size";
  const std::string warmup = grown ? "" : ", " + count_or_na(plan.warmup_iters) + " warm-up ops";
  return ops + ", " + samples + warmup;
}

std::string sampling_texts(const std::map<std::string, nlohmann::json>& contexts) {
  std::set<std::string> texts;
  for (const auto& [id, context] : contexts) texts.insert(sampling_text(sampling_plan(context)));
  if (texts.empty()) texts.insert(sampling_text(SamplingPlan{}));
  return fmt::format("{}", fmt::join(texts, "; "));
}

}  // namespace colltune
