// SPDX-License-Identifier: MIT
#include "support/test_support.hpp"

#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <stdexcept>

#include "fastpsr/error.hpp"

namespace fastpsr::test {

std::optional<std::filesystem::path> shared_data_dir() {
  static const std::optional<std::filesystem::path> dir = [] {
    std::filesystem::path p = std::filesystem::path(FASTPSR_SHARED_DIR) / "data";
    if (const char* env = std::getenv("FASTPSR_SHARED")) p = std::filesystem::path(env) / "data";
    if (std::filesystem::is_directory(p)) return std::optional<std::filesystem::path>(p);
    std::fprintf(stderr, "note: shared data not found at %s: the tests that need them are skipped\n",
                 p.string().c_str());
    return std::optional<std::filesystem::path>();
  }();
  return dir;
}

bool have_shared_data() { return shared_data_dir().has_value(); }
std::filesystem::path source_dir() { return FASTPSR_SOURCE_DIR; }
std::filesystem::path bin_dir() { return FASTPSR_BIN_DIR; }

TempDir::TempDir() {
  std::string tmpl = (std::filesystem::temp_directory_path() / "fastpsr-test-XXXXXX").string();
  if (::mkdtemp(tmpl.data()) == nullptr) throw std::runtime_error("mkdtemp failed");
  path_ = tmpl;
}

TempDir::~TempDir() {
  std::error_code ec;
  std::filesystem::remove_all(path_, ec);
}

std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const Error& e) {
    return std::string(e.what()) + " [" + e.path() + "]";
  }
  return "(no error)";
}

std::uint64_t fresh_seed() {
  if (const char* env = std::getenv("FASTPSR_TEST_SEED")) return std::strtoull(env, nullptr, 10);
  static std::random_device rd;
  return (static_cast<std::uint64_t>(rd()) << 32) ^ rd();
}

CommandResult run_command(const std::string& command) {
  TempDir tmp;
  const auto out = tmp / "out";
  const auto err = tmp / "err";
  const std::string full = "(" + command + ") >'" + out.string() + "' 2>'" + err.string() + "'";
  const int status = std::system(full.c_str());
  CommandResult r;
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  auto slurp = [](const std::filesystem::path& p) {
    std::ifstream in(p, std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(in), {});
  };
  r.out = slurp(out);
  r.err = slurp(err);
  return r;
}

std::vector<std::uint8_t> read_file(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  if (!in) throw std::runtime_error("cannot read " + p.string());
  return {std::istreambuf_iterator<char>(in), {}};
}

void write_file(const std::filesystem::path& p, const std::vector<std::uint8_t>& bytes) {
  std::ofstream out(p, std::ios::binary);
  out.write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
  if (!out) throw std::runtime_error("cannot write " + p.string());
}

}  // namespace fastpsr::test
