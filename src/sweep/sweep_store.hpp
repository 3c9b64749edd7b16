#pragma once
// What a sweep keeps in its store around each launch: the manifest it starts from (fresh or
// resumed), stale files cleared, warnings read back, a shared launch's records split per point.
// The driver's thread only.

#include <string>
#include <vector>

#include "store/manifest.hpp"
#include "sweep/driver.hpp"

namespace colltune {

// Every point x round pending, in rounds (A B C, A B C).
Manifest fresh_manifest(const SweepPlan& plan);

// The stored manifest, checked against the plan's points; a launch a killed driver left running
// is stopped (only if its pid still has the recorded start time) and set pending again.
// A done launch whose records file is missing, torn, or not what the manifest recorded (count,
// hash) is set pending again and named in `damaged` ("point P round R: why").
Manifest resumed_manifest(const SweepPlan& plan, const std::string& manifest_path,
                          std::vector<std::string>& damaged);

// A launch's records file as the manifest should know it: every line a sound record.
struct RecordsDigest {
  std::uint64_t count = 0;
  std::string hash;    // 16 hex digits of FNV-1a 64 over the file's bytes
  std::string damage;  // empty when sound; else what is wrong ("missing", "line 3: ...")
};
RecordsDigest digest_records(const std::string& path);

// Removes the records (and their .partial) a previous try of this launch left.
void remove_stale(const std::string& store, const LaunchEntry& e);

// What the ranks reported about their placement and health, held against what the point asked.
std::vector<std::string> launch_warnings(const Point& point, const std::string& records);

// A group's launch wrote every member's records to the first member's file, each tagged with
// its in_process_knobs: gives each member its own file (complete or absent) and a copy of the
// log. Returns, per member, whether it got records.
std::vector<bool> split_group_records(const SweepSpec& spec,
                                      const std::vector<const Point*>& members,
                                      const std::string& records, const std::string& log,
                                      const std::string& store, int round);

}  // namespace colltune
