#include "sweep/spec_redact.hpp"

#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include "core/environment.hpp"
#include "core/errors.hpp"
#include "core/hash.hpp"

namespace colltune {
namespace {

constexpr std::string_view kHeader = "# colltune: secret values redacted; spec hash ";

// Redacts in place; true when anything changed. A secret-named key hides every scalar under it
// (a value, an axis' list); any scalar "NAME=VALUE" word is redacted as launch words are.
bool redact(YAML::Node node, bool secret) {
  bool changed = false;
  if (node.IsScalar()) {
    if (secret) {
      node = "<redacted>";
      return true;
    }
    const std::string word = node.Scalar();
    const std::string shown = redact_words({word}).front();
    if (shown != word) {
      node = shown;
      changed = true;
    }
    return changed;
  }
  if (node.IsSequence()) {
    for (std::size_t i = 0; i < node.size(); ++i) changed = redact(node[i], secret) || changed;
    return changed;
  }
  if (node.IsMap()) {
    for (auto entry : node) {
      const bool key_secret =
          secret || (entry.first.IsScalar() && is_secret_variable(entry.first.Scalar()));
      changed = redact(entry.second, key_secret) || changed;
    }
  }
  return changed;
}

}  // namespace

std::string spec_hash(const std::string& text) {
  // Stretched: any stored verifier lets a guessed secret be confirmed offline, so each guess
  // should cost milliseconds rather than nanoseconds.
  constexpr int kRounds = 4096;
  std::uint64_t hash = kFnvOffsetBasis;
  for (int round = 0; round < kRounds; ++round)
    hash = fnv1a64(fmt::format("{}", round), fnv1a64(text, hash));
  return fmt::format("{:016x}", hash);
}

std::string redacted_spec_text(const std::string& text) {
  YAML::Node root;
  try {
    root = YAML::Load(text);
  } catch (const YAML::Exception& e) {
    throw ConfigError(fmt::format("spec: does not parse as YAML: {}", e.what()));
  }
  if (!redact(root, false)) return text;
  YAML::Emitter out;
  out << root;
  return fmt::format("{}{}\n{}\n", kHeader, spec_hash(text), out.c_str());
}

std::optional<std::string> redacted_spec_hash(const std::string& stored_text) {
  if (stored_text.compare(0, kHeader.size(), kHeader) != 0) return std::nullopt;
  const auto end = stored_text.find('\n');
  return stored_text.substr(kHeader.size(), end - kHeader.size());
}

}  // namespace colltune
