// Output files (sim/core/output_files.h): whole or not at all, and never destroying what
// they should not — the temporaries go on a signal too.
#include <doctest/doctest.h>

#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <csignal>
#include <filesystem>
#include <fstream>
#include <string>

#include "sim/core/errors.h"
#include "sim/core/output_files.h"

namespace fs = std::filesystem;
using collsim::InputError;
using collsim::OutputFileSet;


TEST_CASE("output files: a SIGTERM while a set is staged removes its temporaries") {
  const fs::path dir = fs::temp_directory_path() / ("collsim-output-signal-" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  const pid_t child = ::fork();
  REQUIRE(child >= 0);
  if (child == 0) {
    for (int sig : {SIGTERM, SIGINT}) std::signal(sig, SIG_DFL);  // doctest's crash handlers off, as in the CLI
    OutputFileSet files;
    files.stage(dir / "a.json", std::string(1 << 20, 'x'));
    files.stage(dir / "b.csv", std::string("y"));
    std::raise(SIGTERM);  // killed here, before the commit
    std::_Exit(3);
  }
  int status = 0;
  ::waitpid(child, &status, 0);
  CHECK(WIFSIGNALED(status));
  CHECK(WTERMSIG(status) == SIGTERM);
  CHECK(fs::is_empty(dir));  // neither the files nor their temporaries
  fs::remove_all(dir);
}

TEST_CASE("output files: refused paths name the flag and why") {
  CHECK_THROWS_WITH_AS(collsim::check_output_path("--trace", ""), "--trace: the file name is empty", InputError);
  CHECK_THROWS_WITH_AS(collsim::check_output_path("--trace", "/dev/null"),
                       "--trace /dev/null: that is a device, not a file: collsim writes regular files only", InputError);
  CHECK_THROWS_WITH_AS(collsim::check_output_path("--csv", "/"), "--csv /: that is a folder; give a file name", InputError);
  CHECK_NOTHROW(collsim::check_output_path("--trace", (fs::temp_directory_path() / "new-file.json").string()));
}

TEST_CASE("output files: one file under two names is the same output") {
  const fs::path dir = fs::temp_directory_path() / ("collsim-output-same-" + std::to_string(::getpid()));
  fs::create_directories(dir);
  CHECK(collsim::same_output_file(dir / "a.json", dir / "." / "a.json"));
  CHECK(collsim::same_output_file(dir / "a.json", dir / ".." / dir.filename() / "a.json"));
  std::ofstream(dir / "t.json") << "x";
  fs::create_symlink("t.json", dir / "l.json");
  CHECK(collsim::same_output_file(dir / "l.json", dir / "t.json"));
  CHECK_FALSE(collsim::same_output_file(dir / "a.json", dir / "b.json"));
  fs::remove_all(dir);
}
