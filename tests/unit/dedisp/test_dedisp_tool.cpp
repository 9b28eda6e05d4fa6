// SPDX-License-Identifier: MIT
// The dedisp tool end to end on fresh random filterbanks: every output format and option is
// compared with the double-precision reference, and bad input gives a message and exit code.
#include <doctest/doctest.h>
#include <fmt/format.h>

#include <cmath>
#include <cstring>
#include <fstream>
#include <random>
#include <string>
#include <vector>

#include "fastpsr/backends.hpp"
#include "fastpsr/baseline.hpp"
#include "fastpsr/byte_stream.hpp"
#include "fastpsr/dedisp.hpp"
#include "fastpsr/dm_plan.hpp"
#include "fastpsr/filterbank.hpp"
#include "fastpsr/presto_inf.hpp"
#include "fastpsr/quantize.hpp"
#include "fastpsr/tim_stream.hpp"
#include "fastpsr/timeseries.hpp"
#include "fastpsr/zero_dm.hpp"
#include "support/reference_dedisp.hpp"
#include "support/test_support.hpp"

using namespace fastpsr;

namespace {

std::string dedisp_cmd() { return (test::bin_dir() / "dedisp").string(); }

struct Fil {
  SigprocHeader header;
  std::vector<std::uint8_t> packed;
  std::size_t nsamples = 0;
};

// A random filterbank file at `path`.
Fil write_random_fil(const std::filesystem::path& path, std::uint64_t seed, int nchans, int nbits, std::size_t nsamples,
                     double tsamp = 256e-6, double foff = -1.0) {
  Fil f;
  f.header.source_name = "random";
  f.header.telescope_id = 4;
  f.header.machine_id = 10;
  f.header.data_type = 1;
  f.header.fch1 = 1500.0;
  f.header.foff = foff;
  f.header.nchans = nchans;
  f.header.nbits = nbits;
  f.header.tstart = 60000.25;
  f.header.tsamp = tsamp;
  f.header.nifs = 1;
  f.header.keys = sigproc_filterbank_keys(f.header);
  f.nsamples = nsamples;
  std::mt19937_64 rng(seed);
  f.packed.resize(nsamples * f.header.bytes_per_sample());
  for (auto& b : f.packed) b = static_cast<std::uint8_t>(rng());
  auto w = FilterbankWriter::open(path.string(), f.header);
  w->write_packed(f.packed.data(), nsamples);
  w->commit();
  return f;
}

DedispPlan plan_for(const Fil& f, std::vector<double> dms, DelayModel model, int downsample = 1,
                    std::vector<std::uint8_t> keep = {}) {
  DedispProblem p;
  p.input = DedispInput::from_header(f.header);
  p.dms = std::move(dms);
  p.model = model;
  p.downsample = downsample;
  p.keep = std::move(keep);
  return make_dedisp_plan(p);
}

// Reference output of DM i, its samples with full data only.
std::vector<float> reference_series(const DedispPlan& plan, const std::vector<std::uint8_t>& packed, std::size_t nin,
                                    std::size_t i) {
  std::size_t nout = 0;
  const auto all = test::reference_dedisperse(plan, packed, nin, nout, true);
  const auto valid = static_cast<std::size_t>(plan.valid_samples(i, nin));
  return {all.begin() + static_cast<long>(i * nout), all.begin() + static_cast<long>(i * nout + valid)};
}

std::vector<float> floats_of(const std::vector<std::uint8_t>& bytes, std::size_t offset = 0) {
  std::vector<float> v((bytes.size() - offset) / 4);
  std::memcpy(v.data(), bytes.data() + offset, v.size() * 4);
  return v;
}

bool same_bits(const std::vector<float>& a, const std::vector<float>& b) {
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * 4) == 0;
}

test::CommandResult run(const std::string& args) { return test::run_command(dedisp_cmd() + " " + args); }

// Records of a tim-stream, read back with the library's reader.
std::vector<TimeSeries> parse_tim_stream(const std::vector<std::uint8_t>& bytes) {
  TimStreamReader reader(memory_source(bytes, "tim-stream"));
  std::vector<TimeSeries> out;
  while (auto r = reader.next()) {
    REQUIRE(r->sigproc.has_value());
    REQUIRE(r->sigproc->has("nsamples"));
    out.push_back(std::move(*r));
  }
  return out;
}

}  // namespace

TEST_CASE("dedisp tool: .dat per DM equals the reference, whatever the gulp, stdin equals the file") {
  const std::uint64_t seed = test::fresh_seed();
  INFO("seed " << seed);
  test::TempDir tmp;
  const auto fil = tmp / "in.fil";
  const Fil f = write_random_fil(fil, seed, 37, 8, 3001);
  const std::vector<double> dms{0.0, 20.0, 45.5, 80.0};
  const DedispPlan plan = plan_for(f, dms, DelayModel::presto);
  std::ofstream(tmp / "dms.txt") << "0 20 45.5 80\n";
  std::vector<std::vector<float>> first;
  for (const std::string& gulp :
       std::vector<std::string>{"", "--gulp " + std::to_string(plan.max_delay + 1), "--gulp 97", "--gulp 3001"}) {
    CAPTURE(gulp);
    const auto r =
        run(fil.string() + " --dm-list " + (tmp / "dms.txt").string() + " -o " + (tmp / "g").string() + " " + gulp);
    INFO(r.err);
    REQUIRE(r.exit_code == 0);
    std::vector<std::vector<float>> got;
    for (std::size_t i = 0; i < dms.size(); ++i) {
      const std::string root = (tmp / ("g_DM" + fmt::format("{:.2f}", dms[i]))).string();
      got.push_back(floats_of(test::read_file(root + ".dat")));
      const PrestoInf inf = read_inf(root + ".inf");
      CHECK(inf.N == static_cast<double>(plan.valid_samples(i, 3001)));
      CHECK(inf.dm == dms[i]);
      CHECK(same_bits(got.back(), reference_series(plan, f.packed, 3001, i)));
    }
    if (first.empty()) {
      first = got;
    } else {
      CHECK(got == first);
    }
  }
  const auto r = test::run_command("cat " + fil.string() + " | " + dedisp_cmd() + " - --dm-list " +
                                   (tmp / "dms.txt").string() + " -o " + (tmp / "pipe").string());
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  for (std::size_t i = 0; i < dms.size(); ++i) {
    CHECK(floats_of(test::read_file((tmp / fmt::format("pipe_DM{:.2f}.dat", dms[i])).string())) == first[i]);
  }
}

TEST_CASE("dedisp tool: .tim and tim-stream (sigproc delays) equal the reference, records carry nsamples") {
  const std::uint64_t seed = test::fresh_seed();
  INFO("seed " << seed);
  test::TempDir tmp;
  const auto fil = tmp / "in.fil";
  const Fil f = write_random_fil(fil, seed, 16, 4, 2000);
  const DedispPlan plan = plan_for(f, {0.0, 5.0, 10.0, 15.0, 20.0, 25.0}, DelayModel::sigproc);

  // One DM to stdout, SIGPROC dedisperse style.
  const auto one = test::run_command(dedisp_cmd() + " " + fil.string() + " -d 10 > " + (tmp / "one.tim").string());
  INFO(one.err);
  REQUIRE(one.exit_code == 0);
  auto reader = FilterbankReader::open((tmp / "one.tim").string());
  CHECK(reader->header().refdm == 10.0);
  CHECK(reader->header().data_type == 2);
  CHECK(reader->header().tsamp == f.header.tsamp);
  std::vector<float> x(static_cast<std::size_t>(*reader->nsamples()));
  reader->read_float(x.data(), x.size());
  CHECK(same_bits(x, reference_series(plan, f.packed, 2000, 2)));

  // Several DMs as a stream of records, through a pipe in and out.
  const auto r = test::run_command("cat " + fil.string() + " | " + dedisp_cmd() +
                                   " - --dm 0:25:5 --format tim-stream | cat > " + (tmp / "s.tims").string());
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  const auto records = parse_tim_stream(test::read_file(tmp / "s.tims"));
  REQUIRE(records.size() == 6);
  for (std::size_t i = 0; i < records.size(); ++i) {
    CAPTURE(i);
    CHECK(records[i].dm == plan.problem.dms[i]);
    CHECK(same_bits(records[i].samples, reference_series(plan, f.packed, 2000, i)));
  }
  // Several DMs to .tim files, one per DM.
  const auto files = run(fil.string() + " --dm 0:25:5 --format tim -o " + (tmp / "t").string());
  REQUIRE(files.exit_code == 0);
  auto r3 = FilterbankReader::open((tmp / "t_DM25.00.tim").string());
  std::vector<float> y(static_cast<std::size_t>(*r3->nsamples()));
  r3->read_float(y.data(), y.size());
  CHECK(same_bits(y, reference_series(plan, f.packed, 2000, 5)));
}

TEST_CASE("dedisp tool: DM-time filterbank and 8/16-bit outputs follow the stated scaling") {
  const std::uint64_t seed = test::fresh_seed();
  INFO("seed " << seed);
  test::TempDir tmp;
  const auto fil = tmp / "in.fil";
  const Fil f = write_random_fil(fil, seed, 24, 8, 20000);
  const DedispPlan plan = plan_for(f, {0.0, 10.0, 20.0, 30.0}, DelayModel::presto);
  const auto r = run(fil.string() + " --dm 0:30:10 --format fil -o " + (tmp / "dmt.fil").string());
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  auto reader = FilterbankReader::open((tmp / "dmt.fil").string());
  CHECK(reader->header().nchans == 4);
  CHECK(reader->header().fch1 == 0.0);
  CHECK(reader->header().foff == 10.0);
  const auto common = static_cast<std::size_t>(plan.valid_samples(3, 20000));  // the shortest series
  REQUIRE(*reader->nsamples() == common);
  std::vector<float> rows(common * 4);
  reader->read_float(rows.data(), common);
  for (std::size_t i = 0; i < 4; ++i) {
    const auto ref = reference_series(plan, f.packed, 20000, i);
    std::size_t bad = 0;
    for (std::size_t t = 0; t < common; ++t) bad += rows[t * 4 + i] == ref[t] ? 0 : 1;
    CHECK(bad == 0);
  }
  for (int nbits : {8, 16}) {
    CAPTURE(nbits);
    const auto path = tmp / fmt::format("q{}.tim", nbits);
    const auto rq =
        run(fil.string() + " -d 20 --delay-model presto -B " + std::to_string(nbits) + " -o " + path.string());
    INFO(rq.err);
    REQUIRE(rq.exit_code == 0);
    auto rd = FilterbankReader::open(path.string());
    CHECK(rd->header().nbits == nbits);
    CHECK_FALSE(rd->header().has("signed"));
    std::vector<float> q(static_cast<std::size_t>(*rd->nsamples()));
    rd->read_float(q.data(), q.size());
    const auto ref = reference_series(plan, f.packed, 20000, 2);
    REQUIRE(q.size() == ref.size());
    SeriesQuantizer expect(nbits);
    std::vector<float> want;
    auto keep = [&](const std::uint8_t* b, std::size_t n) {
      for (std::size_t k = 0; k < n; ++k) {
        if (nbits == 8) {
          want.push_back(b[k]);
        } else {
          std::uint16_t v;
          std::memcpy(&v, b + 2 * k, 2);
          want.push_back(v);
        }
      }
    };
    expect.push(ref.data(), ref.size(), keep);
    expect.finish(keep);
    CHECK(q == want);
    // The stated scale: median at mid-range, 16 sigma across the range.
    const double mid = std::ldexp(1.0, nbits - 1);
    double sum = 0;
    for (float v : q) sum += static_cast<double>(v);
    CHECK(std::fabs(sum / static_cast<double>(q.size()) - mid) < std::ldexp(1.0, nbits) / 16.0);
  }
}

TEST_CASE("dedisp tool: a DM-time filterbank of many DMs (tiles of the transposition and their edges)") {
  const std::uint64_t seed = test::fresh_seed();
  INFO("seed " << seed);
  test::TempDir tmp;
  const auto fil = tmp / "in.fil";
  const Fil f = write_random_fil(fil, seed, 16, 8, 3001);
  std::vector<double> dms;
  for (int i = 0; i < 70; ++i) dms.push_back(0.5 * i);  // 70 = 2 tiles of 32 DMs and 6 more
  const DedispPlan plan = plan_for(f, dms, DelayModel::presto);
  // --gulp 1000: several drains, none of them a whole number of 64-sample tiles
  const auto r = run(fil.string() + " --dm 0:34.5:0.5 --gulp 1000 --format fil -o " + (tmp / "dmt.fil").string());
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  auto reader = FilterbankReader::open((tmp / "dmt.fil").string());
  REQUIRE(reader->header().nchans == 70);
  const auto common = static_cast<std::size_t>(plan.valid_samples(69, 3001));
  REQUIRE(*reader->nsamples() == common);
  std::vector<float> rows(common * 70);
  reader->read_float(rows.data(), common);
  std::size_t bad = 0;
  for (std::size_t i = 0; i < 70; ++i) {
    const auto ref = reference_series(plan, f.packed, 3001, i);
    for (std::size_t t = 0; t < common; ++t) bad += rows[t * 70 + i] == ref[t] ? 0 : 1;
  }
  CHECK(bad == 0);
  // 16-bit: every column equals the 16-bit .tim of its DM, sample for sample
  const auto r16 = run(fil.string() + " --dm 0:34.5:0.5 --gulp 1000 --format fil -B 16 -o " + (tmp / "q.fil").string());
  INFO(r16.err);
  REQUIRE(r16.exit_code == 0);
  const auto rt =
      run(fil.string() + " --dm 0:34.5:0.5 --delay-model presto --format tim -B 16 -o " + (tmp / "q").string());
  INFO(rt.err);
  REQUIRE(rt.exit_code == 0);
  auto q = FilterbankReader::open((tmp / "q.fil").string());
  REQUIRE(q->header().nbits == 16);
  std::vector<std::uint8_t> packed(common * 70 * 2);
  REQUIRE(q->read_packed(packed.data(), common) == common);
  bad = 0;
  for (std::size_t i = 0; i < 70; i += 23) {
    auto tim = FilterbankReader::open((tmp / fmt::format("q_DM{:.2f}.tim", dms[i])).string());
    std::vector<std::uint8_t> col(common * 2);
    REQUIRE(tim->read_packed(col.data(), common) == common);
    for (std::size_t t = 0; t < common; ++t) bad += std::memcmp(&packed[(t * 70 + i) * 2], &col[t * 2], 2) == 0 ? 0 : 1;
  }
  CHECK(bad == 0);
}

TEST_CASE("dedisp tool: kill lists, --start/--nsamps, downsampling, zero-DM, baselines, automatic plan") {
  const std::uint64_t seed = test::fresh_seed();
  INFO("seed " << seed);
  test::TempDir tmp;
  const auto fil = tmp / "in.fil";
  const int nchans = 32;
  const Fil f = write_random_fil(fil, seed, nchans, 8, 4000);

  SUBCASE("kill lists in every form give the masked reference") {
    std::vector<std::uint8_t> keep(nchans, 1);
    for (int c : {0, 1, 2, 3, 17, 30, 31}) keep[static_cast<std::size_t>(c)] = 0;
    const DedispPlan plan = plan_for(f, {12.0}, DelayModel::presto, 1, keep);
    const auto ref = reference_series(plan, f.packed, 4000, 0);
    std::ofstream(tmp / "list.txt") << "# bad channels\n0:3\n17, 30:31\n";
    {
      std::ofstream kf(tmp / "killfile");
      for (int c = 0; c < nchans; ++c) kf << static_cast<int>(keep[static_cast<std::size_t>(c)]) << "\n";
    }
    std::ofstream(tmp / "ign.txt") << "1 2 3 4 18 31 32\n";  // SIGPROC -i: counted from 1
    for (const std::string& spec : std::vector<std::string>{
             "--kill-chans 0:3,17,30:31", "-ignorechan 0:3,17,30:31", "--kill-chans " + (tmp / "list.txt").string(),
             "--kill-chans " + (tmp / "killfile").string(), "-i " + (tmp / "ign.txt").string()}) {
      CAPTURE(spec);
      const auto r = run(fil.string() + " -d 12 -o " + (tmp / "k").string() + " " + spec);
      INFO(r.err);
      REQUIRE(r.exit_code == 0);
      CHECK(same_bits(floats_of(test::read_file(tmp / "k_DM12.00.dat")), ref));
    }
    CHECK(run(fil.string() + " -d 12 -o " + (tmp / "k").string() + " --kill-chans 5:99").exit_code == 2);
  }

  SUBCASE("--start and --nsamps cut the input; the .inf epoch moves with --start") {
    const std::size_t start = 333;
    const std::size_t n = 2500;
    const std::vector<std::uint8_t> cut(f.packed.begin() + static_cast<long>(start * nchans),
                                        f.packed.begin() + static_cast<long>((start + n) * nchans));
    const DedispPlan plan = plan_for(f, {7.0}, DelayModel::presto);
    const auto r = run(fil.string() + " -d 7 --start 333 --nsamps 2500 -o " + (tmp / "s").string());
    INFO(r.err);
    REQUIRE(r.exit_code == 0);
    CHECK(same_bits(floats_of(test::read_file(tmp / "s_DM7.00.dat")), reference_series(plan, cut, n, 0)));
    const PrestoInf inf = read_inf((tmp / "s_DM7.00.inf").string());
    CHECK(inf.mjd_i == 60000);
    CHECK(inf.mjd_f == doctest::Approx(0.25 + 333 * 256e-6 / 86400.0).epsilon(1e-12));
  }

  SUBCASE("--downsample sums groups of input samples; the .inf has the new sample time") {
    const DedispPlan plan = plan_for(f, {0.0, 9.0}, DelayModel::presto, 3);
    const auto r = run(fil.string() + " --dm 0:9:9 --downsample 3 -o " + (tmp / "d").string());
    INFO(r.err);
    REQUIRE(r.exit_code == 0);
    CHECK(same_bits(floats_of(test::read_file(tmp / "d_DM9.00.dat")), reference_series(plan, f.packed, 4000, 1)));
    CHECK(read_inf((tmp / "d_DM9.00.inf").string()).dt == 3 * 256e-6);
    // --downsample-mean: each sum divided by 3 once, as PRESTO's prepsubband writes means.
    const auto m = run(fil.string() + " --dm 0:9:9 --downsample 3 --downsample-mean -o " + (tmp / "m").string());
    REQUIRE(m.exit_code == 0);
    std::vector<float> means = reference_series(plan, f.packed, 4000, 1);
    for (auto& v : means) v /= 3.0F;
    CHECK(same_bits(floats_of(test::read_file(tmp / "m_DM9.00.dat")), means));
  }

  SUBCASE("--zero-dm removes each spectrum's mean first") {
    std::vector<float> filtered(4000 * nchans);
    zero_dm_filter(f.packed.data(), 4000, nchans, 8, false, {}, filtered.data());
    DedispProblem p;
    p.input = DedispInput::from_header(f.header);
    p.input.nbits = 32;
    p.dms = {15.0};
    const DedispPlan plan = make_dedisp_plan(p);
    std::vector<std::uint8_t> bytes(filtered.size() * 4);
    std::memcpy(bytes.data(), filtered.data(), bytes.size());
    const auto ref = reference_series(plan, bytes, 4000, 0);
    const auto r = run(fil.string() + " -d 15 --zero-dm -o " + (tmp / "z").string());
    INFO(r.err);
    REQUIRE(r.exit_code == 0);
    const auto got = floats_of(test::read_file(tmp / "z_DM15.00.dat"));
    REQUIRE(got.size() == ref.size());
    double worst = 0;
    for (std::size_t t = 0; t < got.size(); ++t) {
      worst = std::max(worst, std::fabs(static_cast<double>(got[t]) - static_cast<double>(ref[t])));
    }
    CHECK(worst <= 1e-6 * 255.0 * nchans);  // float input: 1e-6 of the sum of |terms|
  }

  SUBCASE("--baseline median:N subtracts block medians from the plain sum") {
    const DedispPlan plan = plan_for(f, {3.0}, DelayModel::presto);
    const auto ref = reference_series(plan, f.packed, 4000, 0);
    BlockMedianBaseline b(500, false);
    std::vector<float> want;
    auto keep = [&](const float* x, std::size_t n) { want.insert(want.end(), x, x + n); };
    b.push(ref.data(), ref.size(), keep);
    b.finish(keep);
    const auto r = run(fil.string() + " -d 3 --baseline median:500 -o " + (tmp / "b").string());
    REQUIRE(r.exit_code == 0);
    CHECK(same_bits(floats_of(test::read_file(tmp / "b_DM3.00.dat")), want));
  }

  SUBCASE("--dm-plan auto writes every range of the plan at its own downsampling") {
    // A wide band (256 MHz in 8 MHz channels), where channel smearing soon dominates.
    const auto wide = tmp / "wide.fil";
    const Fil w = write_random_fil(wide, seed + 1, nchans, 8, 4000, 256e-6, -8.0);
    const auto r = run(wide.string() + " --dm-plan auto --dm-max 400 -o " + (tmp / "a").string());
    INFO(r.err);
    REQUIRE(r.exit_code == 0);
    DdplanOptions o;
    o.hi_dm = 400;
    const DmPlan dp = make_ddplan(DmPlanObservation::from_header(w.header), o);
    REQUIRE(dp.steps.size() >= 4);
    for (const auto& step : dp.steps) {
      const DedispPlan plan = plan_for(w, step.dms(), DelayModel::presto, step.downsample);
      for (const std::size_t i : {std::size_t{0}, plan.ndms() - 1}) {
        const std::string root = (tmp / fmt::format("a_DM{:.2f}", plan.problem.dms[i])).string();
        CHECK(read_inf(root + ".inf").dt == doctest::Approx(step.downsample * 256e-6).epsilon(1e-14));  // %.15g
        CHECK(same_bits(floats_of(test::read_file(root + ".dat")), reference_series(plan, w.packed, 4000, i)));
      }
    }
  }
}

TEST_CASE("dedisp tool: bad input gives a message and exit status") {
  test::TempDir tmp;
  const auto fil = tmp / "in.fil";
  write_random_fil(fil, 1, 16, 8, 500, 1e-3);
  const auto flat = tmp / "nofoff.fil";  // foff 0 (or missing) with 16 channels
  write_random_fil(flat, 1, 16, 8, 500, 1e-3, 0.0);
  const auto uneven = tmp / "uneven.txt";
  {
    std::ofstream(uneven) << "0 1 2 5 10\n";
  }
  const auto rising = tmp / "rising.fil";  // foff > 0: channel 0 the lowest
  write_random_fil(rising, 1, 16, 8, 500, 1e-3, 1.0);
  struct Case {
    std::string args;
    int code;
    std::string says;
  };
  const std::vector<Case> cases = {
      {fil.string() + " --dm 10:0:1 -o " + (tmp / "x").string(), 2, "is empty"},
      {fil.string() + " --dm 0:10:-1 -o " + (tmp / "x").string(), 2, "must be positive"},
      {fil.string() + " --dm 0:40000:20000 -o " + (tmp / "x").string(), 2, "DM 20000 needs more than"},
      {fil.string() + " -d 5 -o /proc/no-such-dir/x", 1, "/proc/no-such-dir"},
      {(tmp / "missing.fil").string() + " -d 5 -o " + (tmp / "x").string(), 1, "missing.fil"},
      {fil.string() + " --dm 0:5:1 -d 3", 2, "give the DM trials once"},
      {fil.string() + " -o " + (tmp / "x").string(), 2, "give the DM trials: --dm lo:hi:step"},
      {fil.string() + " -d 5 --format dat -B 8 -o " + (tmp / "x").string(), 2, "float32"},
      {fil.string() + " -d 5 --baseline mean:3 -o " + (tmp / "x").string(), 2, "--baseline"},
      {fil.string() + " -d 5 --device cpu --cpu-config isa=sse9 -o " + (tmp / "x").string(), 2, "isa=sse9"},
      // On the default device too (a GPU where there is one: checked there before any CUDA call).
      {fil.string() + " -d 5 --cpu-config isa=sse9 -o " + (tmp / "x").string(), 2, "isa=sse9"},
      // Many files are opened by several threads: the error still names the path.
      {fil.string() + " --dm 0:30:1 -o /proc/no-such-dir/x", 1, "/proc/no-such-dir"},
      {fil.string() + " --dm 0:1:0.001 --dm-prec 2 -o " + (tmp / "x").string(), 2, "--dm-prec"},
      // A root name is not stdout: no files named "-_DM*" in the working directory.
      {fil.string() + " -d 5 --format dat -o -", 2, "stdout"},
      {fil.string() + " --dm 0:2:1 --format tim -o -", 2, "--format tim with several DMs"},
      {fil.string() + " -d 5 --downsample 1000 -o " + (tmp / "x").string(), 2, "downsampling by 1000"},
      {flat.string() + " -d 5 -o " + (tmp / "x").string(), 1, "foff is 0"},
      // SIGPROC dedisperse's -headerless, and any one-dash word starting with h: not the help
      // (CLI11 alone would read "-h -e -a ..." and print the help to stdout with status 0).
      {fil.string() + " -d 5 -headerless", 2, "unknown option '-headerless'"},
      // A DM-time filterbank labels its channels fch1 + i x foff: an uneven list cannot be.
      {fil.string() + " --dm-list " + uneven.string() + " --format fil -o " + (tmp / "l.fil").string(), 2,
       "not evenly spaced"},
      // The sigproc model (.tim's default where foff < 0; asked for here) wants the highest channel
      // first: the file and the way out.
      {rising.string() + " -d 500 --delay-model sigproc --format tim -o " + (tmp / "r.tim").string(), 2,
       "rising.fil: channel 1"},
      {rising.string() + " -d 500 --delay-model sigproc --format tim -o " + (tmp / "r.tim").string(), 2,
       "--delay-model presto takes either order"},
  };
  // --device gpu where there is none: which message depends on whether CUDA was built.
  std::vector<Case> all = cases;
  if (gpu_count() == 0) {
    all.push_back({fil.string() + " -d 5 --device gpu -o " + (tmp / "x").string(), 1,
                   built_with_cuda() ? "GPU 0 does not exist" : "no CUDA backend"});
  }
  for (const auto& c : all) {
    CAPTURE(c.args);
    const auto r = run(c.args);
    CAPTURE(r.err);
    CHECK(r.exit_code == c.code);
    CHECK(r.err.find("dedisp: error:") != std::string::npos);
    CHECK(r.err.find(c.says) != std::string::npos);
    if (c.code == 2) CHECK(r.out.empty());  // nothing on stdout: no help in a .tim redirect
  }
  // A pipe whose data end before the delay is filled fails after reading, writing nothing.
  const auto r = test::run_command("cat " + fil.string() + " | " + dedisp_cmd() + " - --dm 0:40000:20000 -o " +
                                   (tmp / "p").string());
  CHECK(r.exit_code == 2);
  CHECK(r.err.find("DM 20000 needs more than") != std::string::npos);
  CHECK_FALSE(std::filesystem::exists(tmp / "p_DM0.00.dat"));
  // A time series is not a filterbank.
  const auto t = test::run_command(dedisp_cmd() + " " + fil.string() + " -d 0 > " + (tmp / "a.tim").string());
  REQUIRE(t.exit_code == 0);
  const auto ts = run((tmp / "a.tim").string() + " -d 1 -o " + (tmp / "y").string());
  CHECK(ts.exit_code == 1);  // the file's content, not the command line
  CHECK(ts.err.find("time series") != std::string::npos);
}
