// The manifest and every store file are replaced atomically: a write that dies half way leaves the
// previous version whole. The failure is real: a child process whose file-size limit (RLIMIT_FSIZE)
// stops the write after 64 bytes, as a full disk would.
#include <gtest/gtest.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <csignal>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "store/manifest.hpp"

namespace colltune {
namespace {

std::string contents(const std::string& path) {
  std::ifstream in(path);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

TEST(AtomicWrite, AWriteThatDiesHalfWayLeavesThePreviousFileWhole) {
  const auto dir =
      std::filesystem::temp_directory_path() / ("colltune-atomic-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  const std::string path = (dir / "manifest.json").string();
  const std::string old_text = "{\"version\": 1}\n";
  write_file_atomic(path, old_text);
  const std::string new_text(4096, 'x');
  const pid_t child = ::fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    std::signal(SIGXFSZ, SIG_IGN);  // the write then fails with EFBIG instead of killing us
    const rlimit limit{64, 64};
    ::setrlimit(RLIMIT_FSIZE, &limit);
    try {
      write_file_atomic(path, new_text);
    } catch (const std::exception&) {
      ::_exit(3);  // failed, as it should
    }
    ::_exit(0);
  }
  int status = 0;
  ASSERT_EQ(::waitpid(child, &status, 0), child);
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 3) << "the limited write did not fail";
  EXPECT_EQ(contents(path), old_text);
  write_file_atomic(path, new_text);  // without the limit it goes through
  EXPECT_EQ(contents(path), new_text);
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace colltune
