#pragma once
// One side of compare, merged as its records are read (a load_datasets sink): per series (point,
// collective, dtype, op, buffers, root, size), each launch's samples, its rank counts, wrong
// elements and skip reason. Its records need not be kept: 10^6 of them took 1.1 GB a side.

#include <cstdint>
#include <map>
#include <string>
#include <unordered_set>
#include <utility>
#include <vector>

#include "core/decision.hpp"
#include "store/results.hpp"

namespace colltune {

class CompareSide {
 public:
  struct Key {
    // Interned in the side that made the key; ordered by value, so both sides' keys meet.
    const std::string* point_id = nullptr;
    const std::string* collective = nullptr;
    const std::string* dtype = nullptr;
    const std::string* op = nullptr;
    bool in_place = false;
    int root = 0;
    std::uint64_t bytes = 0;
    friend bool operator<(const Key& a, const Key& b);
  };
  struct Launch {
    bool present = false;  // `first` is unset until a measured record comes
    int round = 0;
    std::vector<double> samples;
  };
  struct Series {
    // By round. The first inline: most series have one launch a side, and a vector of them would
    // cost a second allocation each (0.1 GB over 10^6 series and two sides).
    Launch first;
    std::vector<Launch> later;
    std::size_t launch_count() const { return first.present ? 1 + later.size() : 0; }
    LaunchSamples launches() const;        // each launch's samples, by round
    int nranks = 0;                        // the first record's rank count
    std::vector<int> other_nranks;         // any other a record of it had (rarely any)
    std::uint64_t wrong = 0;               // wrong elements over its records
    const std::string* skipped = nullptr;  // why, where a record of it was skipped
  };

  CompareSide() = default;
  // Its keys point into its own names: a copy's would point into the original's.
  CompareSide(const CompareSide&) = delete;
  CompareSide& operator=(const CompareSide&) = delete;
  CompareSide(CompareSide&&) = default;
  CompareSide& operator=(CompareSide&&) = default;

  // Skipped records count too: their key tells "skipped in the candidate" from "not in it", and
  // a skipped record that found wrong results is still a failure.
  void add(const Record& r);
  // In key order; compare() takes them out as it goes.
  std::map<Key, Series>& series() { return series_; }

 private:
  const std::string* intern(const std::string& name);
  std::unordered_set<std::string> names_;  // nodes: their addresses outlive rehashing and moves
  std::map<Key, Series> series_;
};

// Every rank count the series' records had, ascending.
std::vector<int> rank_counts(const CompareSide::Series& s);

// A side from records already read (tests, and callers that keep them).
CompareSide compare_side(const Dataset& d);

}  // namespace colltune
