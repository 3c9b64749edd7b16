#include "report/csv_report.hpp"

#include <fmt/format.h>

#include "core/exchange.hpp"
#include "core/stats.hpp"
#include "report/analysis.hpp"
#include "report/escape.hpp"

namespace colltune {

const char* csv_columns() {
  return "source,point_id,label,baseline,round,backend,collective,dtype,op,in_place,nranks,bytes,"
         "count,timing,cache,samples,median_us,min_us,mean_us,p95_us,max_us,median_ci_low_us,"
         "median_ci_high_us,algbw_gbps,busbw_gbps,wrong,skipped,exchange,imbalance";
}

void render_csv(const Dataset& d, const TextSink& out) {
  out(std::string(csv_columns()) + "\n");
  for (const Record& r : d.records) {
    const PointInfo* p = find_point(d, r.point_id);
    const Summary s = summarize(r.samples_seconds);
    const double algbw = s.median > 0 ? r.algbw_bytes / s.median / 1e9 : 0;
    const bool measured = !r.skipped && s.n > 0;
    const bool alltoallv = r.kind == CollKind::kAlltoallv;  // the pattern and what skew it makes
    const auto us = [&](double seconds) {
      return measured ? fmt::format("{:.4f}", seconds * 1e6) : "";
    };
    out(fmt::format(
        "{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{}\n",
        csv_field(d.source), csv_field(r.point_id), csv_field(p ? p->label : ""),
        p && p->baseline ? "true" : "false", r.round, csv_field(r.backend), csv_field(r.collective),
        csv_field(r.dtype), csv_field(r.op), r.in_place ? "true" : "false", r.nranks, r.bytes,
        r.count, csv_field(r.timing), csv_field(r.cache), s.n, us(s.median), us(s.min), us(s.mean),
        us(s.p95), us(s.max), us(s.ci_low), us(s.ci_high),
        measured ? fmt::format("{:.6f}", algbw) : "",
        measured ? fmt::format("{:.6f}", algbw * r.bus_factor) : "",
        r.wrong ? fmt::format("{}", *r.wrong) : "", csv_field(r.skipped.value_or("")),
        alltoallv ? csv_field(exchange_name(r.exchange)) : "",
        alltoallv ? fmt::format("{:.4f}", r.imbalance) : ""));
  }
}

}  // namespace colltune
