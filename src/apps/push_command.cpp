#include "apps/push_command.hpp"

#include <curl/curl.h>
#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <charconv>
#include <cmath>
#include <filesystem>
#include <memory>

#include "apps/help_format.hpp"
#include "core/errors.hpp"
#include "core/timestamp.hpp"
#include "report/escape.hpp"
#include "report/health_metrics.hpp"
#include "report/tune.hpp"
#include "store/health_file.hpp"
#include "store/results.hpp"

namespace colltune {
namespace {

// "." and ".." are plain characters but path segments libcurl resolves away, pushing into
// another group: they go base64 like any value unsafe in a path.
bool plain_label(const std::string& v) {
  return !v.empty() && v != "." && v != ".." && std::all_of(v.begin(), v.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '_' || c == '-';
  });
}

// A grouping label in the push URL: as it is where that is safe in a path, else base64url
// ("name@base64/..."), which the Pushgateway decodes.
std::string label_path(const std::string& name, const std::string& value) {
  if (plain_label(value)) return "/" + name + "/" + value;
  static const char* kAlphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
  std::string out;
  std::uint32_t bits = 0;
  int count = 0;
  for (unsigned char c : value) {
    bits = (bits << 8) | c;
    count += 8;
    while (count >= 6) {
      out += kAlphabet[(bits >> (count - 6)) & 63];
      count -= 6;
    }
  }
  if (count > 0) out += kAlphabet[(bits << (6 - count)) & 63];
  while (out.size() % 4 != 0) out += '=';
  return "/" + name + "@base64/" + out;
}

// The URL with its user:password (if any) replaced, for every message that names it.
std::string without_credentials(const std::string& url) {
  const std::size_t host_at = url.find("//");
  if (host_at == std::string::npos) return control_escaped(url);
  const std::size_t path_at = url.find('/', host_at + 2);
  const std::size_t at = url.rfind('@', path_at);
  if (at == std::string::npos || at < host_at) return control_escaped(url);
  return control_escaped(url.substr(0, host_at + 2) + "***@" + url.substr(at + 1));
}

std::string checked_gateway(std::string url) {
  const bool scheme = url.starts_with("http://") || url.starts_with("https://");
  const std::size_t host_at = url.find("//") + 2;
  const bool control = std::any_of(url.begin(), url.end(), [](char c) {
    return static_cast<unsigned char>(c) < 0x20 || c == 0x7f;
  });
  if (!scheme || control || url.size() <= host_at ||
      url.find_first_of("?# ") != std::string::npos || url[host_at] == '/' || url[host_at] == ':') {
    throw ConfigError(
        fmt::format("--gateway: '{}' is not allowed; allowed: the Pushgateway's base URL, "
                    "http[s]://host[:port][/path], like http://pushgateway:9091, without spaces "
                    "or control characters",
                    without_credentials(url)));
  }
  while (url.ends_with("/")) url.pop_back();
  return url;
}

// The gateway's answer is read up to this; the rest is dropped (the timeout bounds its time).
constexpr std::size_t kMaxAnswerBytes = 64 * 1024;

std::size_t keep_body(char* data, std::size_t size, std::size_t n, void* out) {
  auto& answer = *static_cast<std::string*>(out);
  answer.append(data,
                std::min(size * n, kMaxAnswerBytes - std::min(answer.size(), kMaxAnswerBytes)));
  return size * n;
}

}  // namespace

int push_command(const std::vector<std::string>& args) {
  CLI::App app(
      "colltune push: a results store's figures (colltune's OpenMetrics names) to a Prometheus "
      "Pushgateway, grouped by job and host, with the run's start time",
      "colltune push");
  use_colltune_help(app,
                    "Exit codes: 0 pushed; 3 not pushed (refused, timed out, or the gateway "
                    "answered an error; the store is only read); 2 bad input.");
  std::string input, gateway, job = "colltune", timeout = "10";
  app.add_option("results", input,
                 "a sweep or health store (with health.json: a gauge per node too), a run's "
                 "JSONL, nccl-tests or OSU output")
      ->required();
  app.add_option("--gateway", gateway, "the Pushgateway's URL, like http://pushgateway:9091")
      ->required()
      ->option_text("URL");
  app.add_option("--job", job, "the job label to group under (default colltune)")
      ->option_text("NAME");
  app.add_option("--timeout", timeout, "seconds to wait for the gateway (default 10)")
      ->option_text("SECONDS");
  if (parse_or_help(app, args, "push")) return 0;
  const std::string base = checked_gateway(gateway);
  double seconds = 0;
  const auto [end, ec] = std::from_chars(timeout.data(), timeout.data() + timeout.size(), seconds);
  if (ec != std::errc() || end != timeout.data() + timeout.size() || !(seconds > 0) ||
      seconds > 3600) {
    throw ConfigError(fmt::format(
        "--timeout: '{}' is not allowed; allowed: seconds above 0, at most 3600", timeout));
  }
  if (job.empty()) throw ConfigError("--job: '' is not allowed; allowed: a name");
  const Dataset d = load_dataset(input);
  const auto started = parse_utc_seconds(d.started_utc);
  if (!started) {
    throw ConfigError(fmt::format(
        "{}: start time '{}' is not allowed; allowed: a store or run file with its start time "
        "(ISO 8601 UTC)",
        input, d.started_utc));
  }
  std::vector<std::string> hosts;
  for (const auto& [point, context] : d.contexts) {
    for (const auto& h : context.value("hosts", std::vector<std::string>{}))
      if (std::find(hosts.begin(), hosts.end(), h) == hosts.end()) hosts.push_back(h);
  }
  const std::string host = hosts.empty() ? "unknown" : fmt::format("{}", fmt::join(hosts, ","));
  // The Pushgateway reads Prometheus' text format, where # UNIT and # EOF are comments; it refuses
  // samples with timestamps, so the start time is a metric of its own.
  std::string body = emit_openmetrics(d);
  if (body.ends_with("# EOF\n")) body.resize(body.size() - 6);
  body += fmt::format(
      "# TYPE colltune_run_start_time_seconds gauge\n# HELP colltune_run_start_time_seconds When "
      "the run began, in seconds since 1970.\ncolltune_run_start_time_seconds {}\n",
      *started);
  // A health store: its verdicts too, a gauge per node, beside the figures.
  const std::filesystem::path health_path = std::filesystem::path(input) / "health.json";
  const bool health = std::filesystem::is_regular_file(health_path);
  if (health) body += health_openmetrics(read_health_file(health_path.string()));
  const std::string url = base + "/metrics" + label_path("job", job) + label_path("host", host);
  curl_global_init(CURL_GLOBAL_DEFAULT);
  const std::unique_ptr<CURL, decltype(&curl_easy_cleanup)> curl(curl_easy_init(),
                                                                 &curl_easy_cleanup);
  if (!curl) throw std::runtime_error("push: libcurl could not start");
  std::string answer;
  curl_slist* headers = curl_slist_append(nullptr, "Content-Type: text/plain; version=0.0.4");
  curl_easy_setopt(curl.get(), CURLOPT_URL, url.c_str());
  curl_easy_setopt(curl.get(), CURLOPT_CUSTOMREQUEST, "PUT");  // the group replaced whole
  curl_easy_setopt(curl.get(), CURLOPT_POSTFIELDS, body.data());
  curl_easy_setopt(curl.get(), CURLOPT_POSTFIELDSIZE_LARGE, static_cast<curl_off_t>(body.size()));
  curl_easy_setopt(curl.get(), CURLOPT_HTTPHEADER, headers);
  // Rounded up to libcurl's millisecond: 0 would mean no timeout at all.
  curl_easy_setopt(curl.get(), CURLOPT_TIMEOUT_MS,
                   std::max(1L, static_cast<long>(std::ceil(seconds * 1000))));
  curl_easy_setopt(curl.get(), CURLOPT_NOSIGNAL, 1L);
  curl_easy_setopt(curl.get(), CURLOPT_WRITEFUNCTION, keep_body);
  curl_easy_setopt(curl.get(), CURLOPT_WRITEDATA, &answer);
  const CURLcode result = curl_easy_perform(curl.get());
  curl_slist_free_all(headers);
  long status = 0;
  curl_easy_getinfo(curl.get(), CURLINFO_RESPONSE_CODE, &status);
  if (result != CURLE_OK) {
    std::fprintf(stderr, "colltune: error: push: %s: %s%s; nothing was pushed\n",
                 without_credentials(url).c_str(), curl_easy_strerror(result),
                 result == CURLE_OPERATION_TIMEDOUT
                     ? fmt::format(" (after {} s; see --timeout)", timeout).c_str()
                     : "");
    return 3;
  }
  if (status < 200 || status >= 300) {
    std::fprintf(stderr, "colltune: error: push: %s answered HTTP %ld: %s; nothing was pushed\n",
                 without_credentials(url).c_str(), status,
                 control_escaped(answer.substr(0, 300)).c_str());
    return 3;
  }
  std::size_t figures = 0;  // sample lines: every line but the # comments
  for (std::size_t at = 0; at < body.size(); at = body.find('\n', at) + 1)
    figures += body[at] != '#';
  fmt::print("push: {} figures{} of {} to {} (job {}, host {})\n", figures,
             health ? " and health verdicts" : "", control_escaped(d.source),
             without_credentials(base), control_escaped(job), control_escaped(host));
  return 0;
}

}  // namespace colltune
