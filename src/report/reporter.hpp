#pragma once
// Reporters turn measurements into output; they never measure (DESIGN.md section 2).

#include "core/measurement.hpp"

namespace colltune {

class Reporter {
 public:
  virtual ~Reporter() = default;
  virtual void begin(const RunContext& context) = 0;
  virtual void add(const Measurement& m) = 0;  // in plan order
  virtual void end() = 0;                      // after the last add, on success only
};

}  // namespace colltune
