#include "core/env_switch.hpp"

#include <gtest/gtest.h>
#include <pwd.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>

namespace colltune {
namespace {

std::optional<std::string> get(const char* name) {
  const char* value = std::getenv(name);
  return value == nullptr ? std::nullopt : std::optional<std::string>(value);
}

TEST(ScopedEnvironment, SetsForItsLifetimeAndRestoresSetAndUnsetAlike) {
  setenv("COLLTUNE_TEST_SET", "launch", 1);
  unsetenv("COLLTUNE_TEST_UNSET");
  setenv("COLLTUNE_TEST_DEFAULT", "kept", 1);
  {
    const ScopedEnvironment scoped({{"COLLTUNE_TEST_SET", "Tree"},
                                    {"COLLTUNE_TEST_UNSET", "LL128"},
                                    {"COLLTUNE_TEST_DEFAULT", "default"}});
    EXPECT_EQ(get("COLLTUNE_TEST_SET"), "Tree");
    EXPECT_EQ(get("COLLTUNE_TEST_UNSET"), "LL128");
    EXPECT_EQ(get("COLLTUNE_TEST_DEFAULT"), "kept");
  }
  EXPECT_EQ(get("COLLTUNE_TEST_SET"), "launch");
  EXPECT_EQ(get("COLLTUNE_TEST_UNSET"), std::nullopt);
  EXPECT_EQ(get("COLLTUNE_TEST_DEFAULT"), "kept");
  unsetenv("COLLTUNE_TEST_SET");
  unsetenv("COLLTUNE_TEST_DEFAULT");
}

TEST(NcclEnvSwitch, ARefusalNamesTheConfigFileOrPluginThatWouldDefeatIt) {
  const auto dir =
      std::filesystem::temp_directory_path() / ("colltune-env-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  const std::string conf = (dir / "nccl.conf").string();
  std::ofstream(conf) << "# NCCL_PROTO=LL\nNCCL_DEBUG=WARN\n  NCCL_ALGO = Tree\n";
  setenv("NCCL_CONF_FILE", conf.c_str(), 1);
  unsetenv("NCCL_ALGO");
  unsetenv("NCCL_PROTO");
  unsetenv("NCCL_ENV_PLUGIN");
  EXPECT_EQ(nccl_env_switch_error({{"NCCL_ALGO", "Ring"}}),
            "--interleave: NCCL_ALGO is set in " + conf +
                ", which NCCL applies at its first init only, so 'default' would differ between "
                "settings; allowed: NCCL_ALGO exported at launch (then default is that value)");
  setenv("NCCL_ALGO", "Ring", 1);  // exported: a config file no longer matters
  EXPECT_EQ(nccl_env_switch_error({{"NCCL_ALGO", "Tree"}}), std::nullopt);
  setenv("NCCL_ENV_PLUGIN", "libnccl-env-custom.so", 1);
  EXPECT_EQ(nccl_env_switch_error({{"NCCL_ALGO", "Tree"}}).value_or("").substr(0, 48),
            "--interleave: NCCL_ENV_PLUGIN=libnccl-env-custom");
  EXPECT_EQ(nccl_env_switch_error({}), std::nullopt);  // nothing interleaved, nothing to refuse
  unsetenv("NCCL_ENV_PLUGIN");
  unsetenv("NCCL_ALGO");
  unsetenv("NCCL_CONF_FILE");
  std::filesystem::remove_all(dir);
}

// NCCL 2.28.9 enqueue.cc ~1950: with NCCL_CTA_POLICY the enqueue itself reads NCCL_ALGO.
TEST(NcclEnvSwitch, ACtaPolicyIsRefused) {
  setenv("NCCL_CTA_POLICY", "2", 1);
  const auto why = nccl_env_switch_error({{"NCCL_ALGO", "Ring"}});
  unsetenv("NCCL_CTA_POLICY");
  ASSERT_TRUE(why.has_value());
  EXPECT_EQ(why->substr(0, 40), "--interleave: NCCL_CTA_POLICY=2 makes NC");
  EXPECT_EQ(nccl_env_switch_error({{"NCCL_ALGO", "Ring"}}), std::nullopt);
}

TEST(NcclEnvSwitch, ACommentedOutKnobIsNotASetting) {
  // /etc/nccl.conf, which NCCL always reads too, may set the knob on some host: then this check
  // cannot be made here, and says so.
  if (std::filesystem::exists("/etc/nccl.conf")) {
    GTEST_SKIP() << "/etc/nccl.conf exists on this host and may set NCCL_PROTO";
  }
  const auto dir =
      std::filesystem::temp_directory_path() / ("colltune-env2-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  const std::string conf = (dir / "nccl.conf").string();
  std::ofstream(conf) << "# NCCL_PROTO=LL\nNCCL_DEBUG=WARN\n";
  setenv("NCCL_CONF_FILE", conf.c_str(), 1);
  unsetenv("NCCL_PROTO");
  unsetenv("NCCL_ENV_PLUGIN");
  EXPECT_EQ(nccl_env_switch_error({{"NCCL_PROTO", "LL"}}), std::nullopt);
  unsetenv("NCCL_CONF_FILE");
  std::filesystem::remove_all(dir);
}

TEST(NcclEnvSwitch, TheHomeIsThePasswordDatabasesNotHomeVariable) {
  // NCCL looks for ~/.nccl.conf under getpwuid's home; a $HOME pointing elsewhere is not read,
  // so a knob set only there must not be refused.
  const passwd* user = getpwuid(getuid());
  if (user == nullptr || std::filesystem::exists(std::string(user->pw_dir) + "/.nccl.conf") ||
      std::filesystem::exists("/etc/nccl.conf")) {
    GTEST_SKIP() << "this user's ~/.nccl.conf or /etc/nccl.conf exists and may set NCCL_ALGO";
  }
  const auto dir =
      std::filesystem::temp_directory_path() / ("colltune-home-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  std::ofstream((dir / ".nccl.conf").string()) << "NCCL_ALGO=Tree\n";
  const char* home_before = std::getenv("HOME");
  const std::string saved_home = home_before ? home_before : "";
  setenv("HOME", dir.c_str(), 1);
  unsetenv("NCCL_CONF_FILE");
  unsetenv("NCCL_ALGO");
  unsetenv("NCCL_ENV_PLUGIN");
  EXPECT_EQ(nccl_env_switch_error({{"NCCL_ALGO", "Ring"}}), std::nullopt);
  home_before ? setenv("HOME", saved_home.c_str(), 1) : unsetenv("HOME");
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace colltune
