// The manifest and every store file are replaced atomically: a write that dies half way leaves the
// previous version whole. The failure is real: a child process whose file-size limit (RLIMIT_FSIZE)
// stops the write after 64 bytes, as a full disk would.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <unistd.h>

#include <csignal>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "core/errors.hpp"
#include "store/atomic_file.hpp"

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
  EXPECT_FALSE(std::filesystem::exists(path + ".tmp")) << "the failed write left its temporary";
  write_file_atomic(path, new_text);  // without the limit it goes through
  EXPECT_EQ(contents(path), new_text);
  std::filesystem::remove_all(dir);
}

class OutputPath : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() /
           ("colltune-output-" + std::to_string(::getpid()) + "-" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::remove_all(dir_);
    std::filesystem::create_directories(dir_);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  std::string at(const std::string& name) const { return (dir_ / name).string(); }
  std::filesystem::path dir_;
};

TEST_F(OutputPath, ASymlinkIsFollowedAndItsTargetReplacedNotTheLink) {
  write_file_atomic(at("target.json"), "old\n");
  std::filesystem::create_symlink("target.json", at("link.json"));
  write_file_atomic(at("link.json"), "new\n");
  EXPECT_TRUE(std::filesystem::is_symlink(at("link.json")));
  EXPECT_EQ(contents(at("target.json")), "new\n");
  // A dangling link is made real at its target.
  std::filesystem::create_symlink("later.json", at("dangling.json"));
  write_file_atomic(at("dangling.json"), "made\n");
  EXPECT_TRUE(std::filesystem::is_symlink(at("dangling.json")));
  EXPECT_EQ(contents(at("later.json")), "made\n");
}

TEST_F(OutputPath, AFifoIsWrittenThroughNotReplaced) {
  ASSERT_EQ(::mkfifo(at("pipe").c_str(), 0600), 0);
  const pid_t reader = ::fork();
  ASSERT_GE(reader, 0);
  if (reader == 0) {
    // A writer that replaces the FIFO never opens it: the reader must not wait for ever.
    ::alarm(10);
    const std::string got = contents(at("pipe"));
    ::_exit(got == "through\n" ? 0 : 1);
  }
  EXPECT_TRUE(check_output_path("--junit", at("pipe")).write_through);
  write_file_atomic(at("pipe"), "through\n");
  int status = 0;
  ASSERT_EQ(::waitpid(reader, &status, 0), reader);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << "the reader got other bytes";
  struct stat st {};
  ASSERT_EQ(::stat(at("pipe").c_str(), &st), 0);
  EXPECT_TRUE(S_ISFIFO(st.st_mode)) << "the FIFO was replaced by a file";
}

TEST_F(OutputPath, AFullDeviceIsAnErrorAndStaysADevice) {
  // A full device of the test's own (the kernel's 1:7, as /dev/full), so that a bug here
  // replaces this node and never the system's /dev/full.
  const std::string full = at("full");
  if (::mknod(full.c_str(), S_IFCHR | 0666, ::makedev(1, 7)) != 0) {
    GTEST_SKIP() << "mknod needs root: no device node of the test's own to write to";
  }
  EXPECT_TRUE(check_output_path("--json", full).write_through);
  EXPECT_THROW(write_file_atomic(full, "records\n"), std::runtime_error);
  LineFile lines(full);
  if (!lines.open_error().empty()) GTEST_SKIP() << "device nodes refused here (nodev mount)";
  EXPECT_THROW(lines.append_line(std::string(8192, 'x')), std::runtime_error);
  struct stat st {};
  ASSERT_EQ(::stat(full.c_str(), &st), 0);
  EXPECT_TRUE(S_ISCHR(st.st_mode));
  EXPECT_FALSE(std::filesystem::exists(full + ".partial"));
}

TEST_F(OutputPath, StdoutThroughProcIsWrittenInPlaceEvenWhenItIsARegularFile) {
  // fd 1 of a child redirected to a regular file: /dev/stdout resolves to that file, which the
  // shell still writes; replacing it would cut the log off. Appending keeps what was there.
  const pid_t child = ::fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    const int fd = ::open(at("log").c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    ::dup2(fd, 1);
    ::write(1, "before\n", 7);
    try {
      if (!check_output_path("--junit", "/dev/stdout").write_through) ::_exit(2);
      write_file_atomic("/dev/stdout", "junit\n");
    } catch (...) {
      ::_exit(3);
    }
    ::write(1, "after\n", 6);
    ::_exit(0);
  }
  int status = 0;
  ASSERT_EQ(::waitpid(child, &status, 0), child);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << WEXITSTATUS(status);
  EXPECT_EQ(contents(at("log")), "before\njunit\nafter\n");
}

TEST_F(OutputPath, DirectoriesAndMissingParentsAreRefusedNamingTheFlag) {
  try {
    check_output_path("--junit", dir_.string());
    FAIL() << "a directory was accepted";
  } catch (const ConfigError& e) {
    EXPECT_EQ(std::string(e.what()).rfind("--junit: '" + dir_.string() + "' is a directory", 0), 0u)
        << e.what();
  }
  EXPECT_THROW(check_output_path("--out", at("no/such/dir/noise.json")), ConfigError);
  write_file_atomic(at("plain"), "x");
  EXPECT_THROW(check_output_path("--out", at("plain/noise.json")), ConfigError);
  EXPECT_THROW(check_output_directory("--out", at("plain")), ConfigError);
  EXPECT_NO_THROW(check_output_directory("--out", at("new/deeper")));
  EXPECT_FALSE(check_output_path("--json", at("new.jsonl")).write_through);
}

}  // namespace
}  // namespace colltune
