#pragma once
// The store's copy of a sweep spec without its secrets: the values of secret-named keys (and of
// "NAME=VALUE" words with a secret NAME) anywhere in the YAML are redacted, and a hash of the
// spec as given is kept so that a resume can tell the same spec from a changed secret.

#include <optional>
#include <string>

namespace colltune {

// `text` itself when it holds no secret; otherwise the YAML re-emitted with every secret value
// "<redacted>" under a first line "# colltune: secret values redacted; spec hash HEX". Comments
// of such a spec are not kept. Throws ConfigError only for YAML that does not parse (the spec
// parser has read it already).
std::string redacted_spec_text(const std::string& text);

// The hash the first line of a redacted copy names; nullopt for a verbatim copy.
std::optional<std::string> redacted_spec_hash(const std::string& stored_text);

// 16 hex digits of a stretched FNV-1a 64 over `text`: a change detector, not a secret keeper.
std::string spec_hash(const std::string& text);

}  // namespace colltune
