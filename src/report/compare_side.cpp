#include "report/compare_side.hpp"

#include <algorithm>
#include <tuple>

namespace colltune {

bool operator<(const CompareSide::Key& a, const CompareSide::Key& b) {
  return std::tie(*a.point_id, *a.collective, *a.dtype, *a.op, a.in_place, a.root, a.bytes) <
         std::tie(*b.point_id, *b.collective, *b.dtype, *b.op, b.in_place, b.root, b.bytes);
}

const std::string* CompareSide::intern(const std::string& name) {
  return &*names_.insert(name).first;
}

void CompareSide::add(const Record& r) {
  const Key key{intern(r.point_id),
                intern(r.collective),
                intern(r.dtype),
                intern(r.op),
                r.in_place,
                r.root,
                r.bytes};
  const auto [at, fresh] = series_.try_emplace(key);
  Series& s = at->second;
  s.wrong += r.wrong.value_or(0);
  if (fresh) {
    s.nranks = r.nranks;
  } else if (r.nranks != s.nranks && std::find(s.other_nranks.begin(), s.other_nranks.end(),
                                               r.nranks) == s.other_nranks.end()) {
    s.other_nranks.push_back(r.nranks);
  }
  if (r.skipped) {
    if (s.skipped == nullptr) s.skipped = intern(*r.skipped);
    return;
  }
  // Rounds arrive in order from a store or a list of files; any other order is kept sorted.
  Launch* launch = nullptr;
  if (!s.first.present || s.first.round == r.round) {
    launch = &s.first;
  } else if (r.round < s.first.round) {
    s.later.insert(s.later.begin(), std::move(s.first));
    s.first = Launch{};
    launch = &s.first;
  } else {
    auto place = std::lower_bound(s.later.begin(), s.later.end(), r.round,
                                  [](const Launch& l, int round) { return l.round < round; });
    if (place == s.later.end() || place->round != r.round) place = s.later.insert(place, Launch{});
    launch = &*place;
  }
  launch->present = true;
  launch->round = r.round;
  launch->samples.insert(launch->samples.end(), r.samples_seconds.begin(), r.samples_seconds.end());
}

LaunchSamples CompareSide::Series::launches() const {
  LaunchSamples out;
  if (!first.present) return out;
  out.push_back(first.samples);
  for (const Launch& l : later) out.push_back(l.samples);
  return out;
}

std::vector<int> rank_counts(const CompareSide::Series& s) {
  std::vector<int> out = s.other_nranks;
  out.push_back(s.nranks);
  std::sort(out.begin(), out.end());
  return out;
}

CompareSide compare_side(const Dataset& d) {
  CompareSide side;
  for (const Record& r : d.records) side.add(r);
  return side;
}

}  // namespace colltune
