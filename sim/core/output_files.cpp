#include "sim/core/output_files.h"

#include <sys/stat.h>
#include <unistd.h>

#include <array>
#include <atomic>
#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <system_error>

#include <fmt/format.h>

#include "sim/core/errors.h"

namespace collsim {
namespace {

// The temporaries being written, for the signal handler to remove: fixed slots of owned
// C strings, so that the handler only reads atomics and calls unlink (async-signal-safe).
constexpr std::size_t kSlots = 256;
std::array<std::atomic<char*>, kSlots> g_temporaries{};

extern "C" void remove_temporaries_and_die(int signal) {
  for (std::atomic<char*>& slot : g_temporaries)
    if (char* path = slot.load()) ::unlink(path);
  std::signal(signal, SIG_DFL);
  std::raise(signal);
}

void install_signal_cleanup() {
  static const bool installed = [] {
    for (int sig : {SIGINT, SIGTERM, SIGHUP}) {
      struct sigaction current {};
      sigaction(sig, nullptr, &current);
      if (current.sa_handler == SIG_DFL) std::signal(sig, remove_temporaries_and_die);  // leave a caller's own handler alone
    }
    return true;
  }();
  (void)installed;
}

void remember_temporary(const std::filesystem::path& p) {
  install_signal_cleanup();
  char* copy = ::strdup(p.c_str());
  for (std::atomic<char*>& slot : g_temporaries) {
    char* expected = nullptr;
    if (slot.compare_exchange_strong(expected, copy)) return;
  }
  std::free(copy);  // more than kSlots at once: still removed on every failure, only not on a signal
}

void forget_temporary(const std::filesystem::path& p) {
  for (std::atomic<char*>& slot : g_temporaries) {
    char* held = slot.load();
    if (held && p == held && slot.compare_exchange_strong(held, nullptr)) {
      std::free(held);
      return;
    }
  }
}

// The file an output path names: a symlink's target (the link itself stays).
std::filesystem::path resolved(const std::filesystem::path& path) {
  std::error_code ec;
  const std::filesystem::path r = std::filesystem::weakly_canonical(std::filesystem::absolute(path), ec);
  return ec ? path : r;
}

// What is at `path` now, as a reason to refuse it ("" : nothing there, or a writable regular file).
std::string refusal(const std::filesystem::path& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) return "";  // nothing there (a dangling link writes its target)
  if (S_ISDIR(st.st_mode)) return "that is a folder; give a file name";
  if (!S_ISREG(st.st_mode))
    return S_ISCHR(st.st_mode) || S_ISBLK(st.st_mode) ? "that is a device, not a file: collsim writes regular files only"
           : S_ISFIFO(st.st_mode)                       ? "that is a FIFO, not a file: collsim writes regular files only"
                                                        : "that is not a regular file: collsim writes regular files only";
  // Root passes access(W_OK) on any file: a file without a write bit is read-only to us too.
  if (::access(path.c_str(), W_OK) != 0 || (st.st_mode & (S_IWUSR | S_IWGRP | S_IWOTH)) == 0)
    return "the file is read-only: collsim does not replace it";
  return "";
}

}  // namespace

void check_output_path(std::string_view flag, const std::string& path) {
  if (path.empty()) throw InputError(fmt::format("{}: the file name is empty", flag));
  const std::filesystem::path target = resolved(path);
  if (const std::string why = refusal(target); !why.empty()) throw InputError(fmt::format("{} {}: {}", flag, path, why));
  std::filesystem::path folder = target.parent_path();
  if (folder.empty()) folder = ".";
  std::error_code ec;
  if (!std::filesystem::is_directory(folder, ec))
    throw InputError(fmt::format("{} {}: the folder {} does not exist", flag, path, folder.string()));
  if (::access(folder.c_str(), W_OK) != 0)
    throw InputError(fmt::format("{} {}: the folder {} is not writable", flag, path, folder.string()));
  // access() does not know every file system (/proc, a read-only mount as root): create a
  // file there, the way the output will be, and remove it.
  std::string probe = (folder / ".collsim-probe-XXXXXX").string();
  const int fd = ::mkstemp(probe.data());
  if (fd < 0)
    throw InputError(fmt::format("{} {}: cannot create a file in {}: {}", flag, path, folder.string(), std::strerror(errno)));
  ::close(fd);
  ::unlink(probe.c_str());
}

bool same_output_file(const std::filesystem::path& a, const std::filesystem::path& b) {
  std::error_code ec;
  if (std::filesystem::equivalent(a, b, ec) && !ec) return true;
  return resolved(a) == resolved(b);
}

OutputFileSet::~OutputFileSet() {
  std::error_code ignored;
  for (const Staged& s : staged_) {
    std::filesystem::remove(s.temporary, ignored);
    forget_temporary(s.temporary);
  }
}

void OutputFileSet::stage(const std::filesystem::path& path, std::string_view text) {
  stage(path, std::as_bytes(std::span(text.data(), text.size())));
}

void OutputFileSet::stage(const std::filesystem::path& path, std::span<const std::byte> bytes) {
  const std::filesystem::path target = resolved(path);  // a symlink: its target, next to which the temporary goes
  if (const std::string why = refusal(target); !why.empty())
    throw InputError(fmt::format("cannot write {}: {}", path.string(), why));
  std::filesystem::path temporary = target;
  temporary += fmt::format(".tmp-{}-{}", ::getpid(), staged_.size());
  remember_temporary(temporary);
  std::FILE* f = std::fopen(temporary.c_str(), "wb");
  if (!f) {
    const int open_errno = errno;
    forget_temporary(temporary);
    throw InputError(fmt::format("cannot write {}: {}", path.string(), std::strerror(open_errno)));
  }
  staged_.push_back({temporary, target});
  const bool written = std::fwrite(bytes.data(), 1, bytes.size(), f) == bytes.size();
  const int write_errno = errno;
  if (std::fclose(f) != 0 || !written)
    throw InputError(fmt::format("cannot write {}: {}", path.string(), std::strerror(written ? errno : write_errno)));
  struct stat existing {};
  if (::stat(target.c_str(), &existing) == 0) ::chmod(temporary.c_str(), existing.st_mode & 07777);  // keep its mode
}

void OutputFileSet::commit() {
  // Refuse before the first rename whatever would make a later one fail, so that a set
  // lands whole or not at all.
  for (const Staged& s : staged_)
    if (std::filesystem::is_directory(s.final))
      throw InputError(fmt::format("cannot write {}: a folder of that name exists", s.final.string()));
  for (const Staged& s : staged_) {
    std::error_code ec;
    std::filesystem::rename(s.temporary, s.final, ec);
    if (ec) throw InputError(fmt::format("cannot write {}: {}", s.final.string(), ec.message()));
    forget_temporary(s.temporary);
  }
  staged_.clear();
}

void ensure_writable_folder(const std::filesystem::path& folder, std::string_view flag) {
  std::error_code ec;
  std::filesystem::create_directories(folder, ec);
  if (ec || !std::filesystem::is_directory(folder))
    throw InputError(fmt::format("{} {}: cannot create the folder: {}", flag, folder.string(),
                                 ec ? ec.message() : "a file of that name exists"));
  if (::access(folder.c_str(), W_OK) != 0)
    throw InputError(fmt::format("{} {}: the folder is not writable", flag, folder.string()));
}

}  // namespace collsim
