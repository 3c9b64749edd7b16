#include "core/validation.hpp"

#include <gtest/gtest.h>

#include <cstring>

#include "core/exchange.hpp"

namespace colltune {
namespace {

// A host model of each collective over n ranks, independent of the layouts under test: given
// every rank's buffers after fill_for, produce every rank's output.
struct Ranks {
  std::vector<std::vector<float>> send, recv;
};

Ranks filled(const Collective& c, int n, const Pattern& p) {
  Ranks r;
  const BufferCounts counts = buffer_counts(c, n);
  for (int k = 0; k < n; ++k) {
    r.send.emplace_back(counts.send);
    r.recv.emplace_back(std::max(counts.send, counts.recv));
    fill_for(c, n, k, p, r.send.back().data(), r.recv.back().data());
  }
  return r;
}

float reduce(ReduceOp op, float a, float b) {
  switch (op) {
    case ReduceOp::kSum:
      return a + b;
    case ReduceOp::kProd:
      return a * b;
    case ReduceOp::kMax:
      return std::max(a, b);
    default:
      return std::min(a, b);
  }
}

void simulate(const Collective& c, int n, Ranks& r) {
  const std::size_t cnt = c.count;
  auto input = [&](int k) -> const std::vector<float>& {
    return c.in_place ? r.recv[k] : r.send[k];
  };
  std::vector<std::vector<float>> out = r.recv;
  for (int k = 0; k < n; ++k) {
    for (std::size_t i = 0; i < cnt; ++i) {
      switch (c.kind) {
        case CollKind::kAllreduce:
        case CollKind::kReduce:
        case CollKind::kReduceScatter: {
          const std::size_t at = c.kind == CollKind::kReduceScatter ? k * cnt + i : i;
          float acc = input(0)[at];
          for (int s = 1; s < n; ++s) acc = reduce(c.op, acc, input(s)[at]);
          if (c.kind != CollKind::kReduce || k == c.root) out[k][i] = acc;
          break;
        }
        case CollKind::kBroadcast:
          out[k][i] = input(c.root)[i];
          break;
        case CollKind::kSendrecv:
          out[k][i] = input((k + n - 1) % n)[i];
          break;
        case CollKind::kAllgather:
          for (int s = 0; s < n; ++s) {
            out[k][s * cnt + i] = c.in_place ? r.recv[s][s * cnt + i] : r.send[s][i];
          }
          break;
        case CollKind::kAlltoall:
          for (int s = 0; s < n; ++s) out[k][s * cnt + i] = input(s)[k * cnt + i];
          break;
        case CollKind::kGather:
          for (int s = 0; k == c.root && s < n; ++s) {
            out[k][s * cnt + i] = !c.in_place   ? r.send[s][i]
                                  : s == c.root ? r.recv[s][s * cnt + i]
                                                : r.recv[s][i];
          }
          break;
        case CollKind::kScatter:
          out[k][(c.in_place && k == c.root ? k * cnt : 0) + i] = input(c.root)[k * cnt + i];
          break;
        case CollKind::kAlltoallv:  // below
          break;
        default:
          out[k][i] = input(p2p_peer(k, n))[i];
      }
    }
  }
  if (c.kind == CollKind::kAlltoallv) {
    // Rank s's row, laid out back to back in its send buffer; rank k's receive buffer holds
    // the blocks addressed to it in source order.
    std::vector<std::size_t> written(n, 0);
    for (int s = 0; s < n; ++s) {
      const auto row = exchange_row(c.exchange, cnt, n, s);
      std::size_t from = 0;
      for (int k = 0; k < n; ++k) {
        for (std::size_t j = 0; j < row[k]; ++j) out[k][written[k] + j] = r.send[s][from + j];
        written[k] += row[k];
        from += row[k];
      }
    }
  }
  r.recv = out;
}

TEST(Validation, CorrectResultsPassAndOneFlippedElementFails) {
  for (int n : {2, 3, 4, 5, 8}) {
    for (CollKind kind : all_coll_kinds()) {
      if (is_point_to_point(kind) && n % 2 != 0) continue;
      for (bool in_place : {false, true}) {
        if (is_point_to_point(kind) && in_place) continue;
        Collective c;
        c.kind = kind;
        c.count = moves_data(kind) ? 13 : 0;
        c.exchange = {ExchangeKind::kZipf, 1.0, 7};
        c.in_place = in_place;
        if (layout_unsupported(c)) continue;
        c.root = has_root(kind) ? n - 1 : -1;
        c.op = is_reduction(kind) ? ReduceOp::kMax : ReduceOp::kNone;
        const Pattern p(99, DType::kFloat, c.op, n);
        Ranks r = filled(c, n, p);
        simulate(c, n, r);
        std::uint64_t wrong = 0;
        for (int k = 0; k < n; ++k) wrong += count_wrong_for(c, n, k, p, r.recv[k].data());
        EXPECT_EQ(wrong, 0u) << name(kind) << " n=" << n << " in_place=" << in_place;

        const int checked_rank =
            kind == CollKind::kReduce || kind == CollKind::kGather ? c.root : n - 1;
        const auto at = first_checked_element(c, n, checked_rank);
        if (!moves_data(kind)) {
          EXPECT_FALSE(at) << "a barrier has no output to check";
          continue;
        }
        ASSERT_TRUE(at) << name(kind);
        r.recv[checked_rank][*at] += 1.0f;
        EXPECT_EQ(count_wrong_for(c, n, checked_rank, p, r.recv[checked_rank].data()), 1u)
            << name(kind) << " n=" << n;
      }
    }
  }
}

TEST(Validation, UntouchedOutputIsWrong) {
  Collective c;
  c.kind = CollKind::kAllgather;
  c.count = 4;
  const Pattern p(1, DType::kFloat, ReduceOp::kNone, 4);
  Ranks r = filled(c, 4, p);  // no collective ran
  EXPECT_EQ(count_wrong_for(c, 4, 0, p, r.recv[0].data()), 16u);
}

TEST(Validation, UntouchedSignedOutputIsWrongEverywhere) {
  // 0xFF bytes are -1 in a signed integer, a value the patterns hold (int8 spans -127..127): an
  // element never written would then pass wherever -1 was expected. Every one must count.
  for (const DType dtype : {DType::kInt8, DType::kInt32, DType::kInt64}) {
    Collective c;
    c.kind = CollKind::kAllgather;
    c.dtype = dtype;
    c.count = 4096;
    const Pattern p(1, dtype, ReduceOp::kNone, 4);
    const BufferCounts counts = buffer_counts(c, 4);
    std::vector<char> send(counts.send * element_bytes(dtype)),
        recv(counts.recv * element_bytes(dtype));
    fill_for(c, 4, 0, p, send.data(), recv.data());  // no collective ran
    EXPECT_EQ(count_wrong_for(c, 4, 0, p, recv.data()), 4u * 4096) << name(dtype);
  }
}

TEST(Validation, BufferCounts) {
  Collective c;
  c.kind = CollKind::kReduceScatter;
  c.count = 10;
  EXPECT_EQ(buffer_counts(c, 4).send, 40u);
  EXPECT_EQ(buffer_counts(c, 4).recv, 10u);
  c.in_place = true;
  EXPECT_EQ(buffer_counts(c, 4).send, 0u);
  EXPECT_EQ(buffer_counts(c, 4).recv, 40u);
  c.kind = CollKind::kAllgather;
  c.in_place = false;
  EXPECT_EQ(buffer_counts(c, 4).send, 10u);
  EXPECT_EQ(buffer_counts(c, 4).recv, 40u);
}

TEST(Validation, PeersPairAcrossHalves) {
  EXPECT_EQ(p2p_peer(0, 4), 2);
  EXPECT_EQ(p2p_peer(3, 4), 1);
  EXPECT_EQ(p2p_peer(0, 2), 1);
  EXPECT_EQ(p2p_peer(0, 3), -1);
}

}  // namespace
}  // namespace colltune
