// SPDX-License-Identifier: MIT
// The tuning database (lib/tune): round trip, the exact four-part key, stale builds ignored,
// merging writers, and a corrupt file reported with its name while the tools fall back.
#include <doctest/doctest.h>
#include <stdlib.h>

#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include "fastpsr/error.hpp"
#include "fastpsr/tuning.hpp"
#include "support/test_support.hpp"

using namespace fastpsr;

namespace {

TuningEntry entry(std::string shape, std::string build = tuning_build_id()) {
  TuningEntry e;
  e.algorithm = "dedisp";
  e.shape = std::move(shape);
  e.device = "NVIDIA H100 80GB HBM3, sm_90, 132 SMs";
  e.build = std::move(build);
  e.config = {{"threads_time", "64"}, {"items_dm", "4"}};
  e.time_ms = 1.5;
  e.default_ms = 2.0;
  e.date = "2026-11-26T10:00:00Z";
  return e;
}

void write_text(const std::filesystem::path& p, const std::string& text) { std::ofstream(p, std::ios::binary) << text; }

// Points $FASTPSR_TUNING at `path` for the life of the object.
struct TuningEnv {
  explicit TuningEnv(const std::filesystem::path& path) { ::setenv("FASTPSR_TUNING", path.c_str(), 1); }
  ~TuningEnv() { ::unsetenv("FASTPSR_TUNING"); }
  TuningEnv(const TuningEnv&) = delete;
  TuningEnv& operator=(const TuningEnv&) = delete;
};

}  // namespace

TEST_CASE("tuning database: path from FASTPSR_TUNING, else XDG_CACHE_HOME, else HOME") {
  {
    const TuningEnv env("/x/t.json");
    CHECK(tuning_database_path() == "/x/t.json");
  }
  const char* xdg = std::getenv("XDG_CACHE_HOME");
  const std::string saved = xdg != nullptr ? xdg : "";
  ::setenv("XDG_CACHE_HOME", "/cache", 1);
  CHECK(tuning_database_path() == "/cache/fastpsr/tuning.json");
  ::unsetenv("XDG_CACHE_HOME");
  CHECK(tuning_database_path().string().ends_with("/.cache/fastpsr/tuning.json"));
  if (xdg != nullptr) ::setenv("XDG_CACHE_HOME", saved.c_str(), 1);
}

TEST_CASE("tuning database: a missing file is empty, store, load, find round trip") {
  test::TempDir dir;
  const auto path = dir.path() / "sub" / "tuning.json";
  CHECK(TuningDatabase::load(path).entries().empty());
  const TuningEntry e = entry("nchans=1024,nbits=8,ndms=2048,span=2^12,ds=1");
  TuningDatabase::store(path, e);
  const auto db = TuningDatabase::load(path);
  REQUIRE(db.entries().size() == 1);
  const auto found = db.find(e.algorithm, e.shape, e.device, e.build);
  REQUIRE(found.entry);
  CHECK(found.entry->config == e.config);
  CHECK(found.entry->time_ms == doctest::Approx(1.5));
  CHECK(found.entry->default_ms == doctest::Approx(2.0));
  CHECK(found.entry->date == e.date);
  CHECK(found.other_builds == 0);
  // Each key part must match exactly.
  CHECK_FALSE(db.find("accel", e.shape, e.device, e.build).entry);
  CHECK_FALSE(db.find(e.algorithm, e.shape + "x", e.device, e.build).entry);
  CHECK_FALSE(db.find(e.algorithm, e.shape, "NVIDIA H200, sm_90, 132 SMs", e.build).entry);
  // Storing the same key again replaces the entry.
  TuningEntry again = e;
  again.config = {};
  TuningDatabase::store(path, again);
  const auto db2 = TuningDatabase::load(path);
  REQUIRE(db2.entries().size() == 1);
  CHECK(db2.entries()[0].config.empty());
}

TEST_CASE("tuning database: entries of another build are ignored and counted") {
  test::TempDir dir;
  const auto path = dir.path() / "tuning.json";
  const TuningEntry old = entry("s", "0.0.1+abc");
  TuningDatabase::store(path, old);
  const auto found = TuningDatabase::load(path).find(old.algorithm, old.shape, old.device, tuning_build_id());
  CHECK_FALSE(found.entry);
  CHECK(found.other_builds == 1);

  const TuningEnv env(path);
  const auto t = tuned_gpu_config("dedisp", "s", old.device, {}, true);
  CHECK(t.config.empty());
  CHECK(t.note.find("1 of other builds ignored") != std::string::npos);
}

TEST_CASE("tuning database: the user's keys override the tuned ones key by key, --no-tuning ignores it") {
  test::TempDir dir;
  const auto path = dir.path() / "tuning.json";
  const TuningEntry e = entry("s");
  TuningDatabase::store(path, e);
  const TuningEnv env(path);
  const auto t = tuned_gpu_config("dedisp", "s", e.device, {{"items_dm", "8"}, {"stages", "3"}}, true);
  CHECK(t.config == GpuConfig{{"threads_time", "64"}, {"items_dm", "8"}, {"stages", "3"}});
  CHECK(
      t.describe().starts_with("GPU configuration: items_dm=8,stages=3,threads_time=64 (tuned 2026-11-26T10:00:00Z, "));
  const auto off = tuned_gpu_config("dedisp", "s", e.device, {{"stages", "3"}}, false);
  CHECK(off.config == GpuConfig{{"stages", "3"}});
  const auto none = tuned_gpu_config("dedisp", "other", e.device, {}, true);
  CHECK(none.config.empty());
  CHECK(none.describe().find("(defaults: no tuning entry for dedisp other on ") != std::string::npos);
}

TEST_CASE("tuning database: a corrupt file is an error naming it, the tools fall back to the defaults") {
  test::TempDir dir;
  const auto path = dir.path() / "tuning.json";
  for (const char* text : {"{not json", "[]", R"({"format": "fastpsr-tuning", "version": 99, "entries": []})",
                           R"({"format": "fastpsr-tuning", "version": 1, "entries": [{"algorithm": "dedisp"}]})"}) {
    CAPTURE(text);
    write_text(path, text);
    try {
      (void)TuningDatabase::load(path);
      FAIL("no error");
    } catch (const Error& e) {
      CHECK(e.code() == ErrorCode::format);
      CHECK(e.path() == path.string());
    }
    const TuningEnv env(path);
    const auto t = tuned_gpu_config("dedisp", "s", "d", {{"stages", "3"}}, true);
    CHECK(t.config == GpuConfig{{"stages", "3"}});
    CHECK(t.note.find("cannot be read") != std::string::npos);
    // A store does not overwrite what it cannot read.
    CHECK_THROWS_AS(TuningDatabase::store(path, entry("s")), Error);
  }
}

TEST_CASE("tuning database: concurrent writers merge, none is lost") {
  test::TempDir dir;
  const auto path = dir.path() / "tuning.json";
  std::vector<std::thread> writers;
  for (int i = 0; i < 8; ++i) {
    writers.emplace_back([&path, i] {
      for (int k = 0; k < 5; ++k) TuningDatabase::store(path, entry("shape" + std::to_string(i * 5 + k)));
    });
  }
  for (auto& w : writers) w.join();
  CHECK(TuningDatabase::load(path).entries().size() == 40);
}
