#include "backends/nccl/nccl_config.hpp"

#include <gtest/gtest.h>

#include <map>
#include <string>

namespace colltune {
namespace {

NcclEffectiveConfig with(const BackendOptions& options,
                         const std::map<std::string, std::string>& environment) {
  return effective_nccl_config(options, [&](const char* name) -> const char* {
    const auto it = environment.find(name);
    return it == environment.end() ? nullptr : it->second.c_str();
  });
}

// The oracle is NCCL 2.28.9's init.cc envConfigOverride, read line by line: the environment
// wins over ncclConfig_t; NCCL_COMM_BLOCKING only as 0 or 1; CTAs only above 0, capped at 64
// channels, min never above max; the CGA cluster size capped at 8.
TEST(NcclConfig, TheEnvironmentWinsAsInNcclsInit) {
  BackendOptions o;  // --nccl-blocking 1 is colltune's default
  o.min_ctas = 4;
  const auto plain = with(o, {});
  EXPECT_TRUE(plain.blocking);
  EXPECT_TRUE(plain.from_environment.empty());
  EXPECT_EQ(plain.settings.at("min_ctas"), "4");
  EXPECT_EQ(plain.settings.at("max_ctas"), "default");

  const auto env = with(o, {{"NCCL_COMM_BLOCKING", "0"},
                            {"NCCL_MIN_CTAS", "16"},
                            {"NCCL_MAX_CTAS", "8"},
                            {"NCCL_CGA_CLUSTER_SIZE", "12"},
                            {"NCCL_NET", "IB"}});
  EXPECT_FALSE(env.blocking);
  EXPECT_EQ(env.settings.at("nccl_blocking"), "0");
  EXPECT_EQ(env.settings.at("min_ctas"), "8");  // 16 > max 8: NCCL lowers min to max
  EXPECT_EQ(env.settings.at("max_ctas"), "8");
  EXPECT_EQ(env.settings.at("cga_cluster_size"), "8");
  EXPECT_EQ(env.settings.at("net_name"), "IB");
  ASSERT_EQ(env.from_environment.size(), 5u);
  EXPECT_EQ(env.from_environment[0], "NCCL_COMM_BLOCKING=0 (over --nccl-blocking 1)");
  EXPECT_EQ(env.from_environment[1], "NCCL_CGA_CLUSTER_SIZE=12 (over NCCL's default)");
  EXPECT_EQ(env.from_environment[2], "NCCL_MIN_CTAS=16 (over --min-ctas 4)");

  // Values NCCL ignores: blocking 2, CTAs 0 or below, an empty variable.
  const auto ignored = with(o, {{"NCCL_COMM_BLOCKING", "2"},
                                {"NCCL_MIN_CTAS", "0"},
                                {"NCCL_MAX_CTAS", "-3"},
                                {"NCCL_CGA_CLUSTER_SIZE", ""}});
  EXPECT_TRUE(ignored.blocking);
  EXPECT_TRUE(ignored.from_environment.empty());
  EXPECT_EQ(ignored.settings.at("min_ctas"), "4");
  // NCCL reads with strtoll base 0: hex is a number, and 100 CTAs are capped at 64.
  EXPECT_EQ(with(o, {{"NCCL_MAX_CTAS", "0x10"}}).settings.at("max_ctas"), "16");
  EXPECT_EQ(with(o, {{"NCCL_MAX_CTAS", "100"}}).settings.at("max_ctas"), "64");
  // NCCL narrows to int: 2^32 is 0 there. An empty NCCL_NET is an empty name, as NCCL takes it.
  EXPECT_EQ(with(o, {{"NCCL_COMM_BLOCKING", "4294967296"}}).settings.at("nccl_blocking"), "0");
  EXPECT_EQ(with(o, {{"NCCL_NET", ""}}).settings.at("net_name"), "\"\"");
}

}  // namespace
}  // namespace colltune
