// SPDX-License-Identifier: MIT
// header: prints the header of SIGPROC, PRESTO, PSRFITS and DADA files like SIGPROC's `header`,
// single values for scripts, or everything as JSON; and rewrites SIGPROC headers.
#include <unistd.h>

#include <cstdio>
#include <string>
#include <vector>

#include "common/tool_main.hpp"
#include "describe.hpp"
#include "edit.hpp"
#include "fastpsr/error.hpp"
#include "print.hpp"

namespace fastpsr::app {
namespace {

constexpr const char* kExamples = R"(Examples:
  header obs.fil                       SIGPROC's listing
  header obs.fil -tsamp -nchans        single values, one per line (-tsamp in microseconds, as SIGPROC)
  header *.fil --nsamples              one line per file: name, tab, value
  header --json obs.fil x_DM10.00.dat  everything, as JSON (an array for several files)
  cat obs.fil | header -               read stdin
  header obs.fil --set source_name=J0534+2200 --unset nsamples -o fixed.fil
                                       copy with a changed header
  header obs.fil --set tsamp=64us -o fixed.fil
                                       tsamp with its unit (SIGPROC stores seconds)

Reads SIGPROC .fil/.tim, PRESTO .inf/.dat/.sdat/.fft (through the .inf), search-mode PSRFITS
(.sf/.fits), PSRDADA (.dada) and GUPPI RAW (.raw, as ppf reads it). The single values print as SIGPROC's header prints them.
Exit status: 0 success, 1 a file could not be read (the others are still printed), 2 usage error.)";

void print_file_error(const Error& e, const std::string& path) {
  std::fprintf(stderr, "header: error: %s: %s\n", e.path().empty() ? path.c_str() : e.path().c_str(), e.what());
}

int run(int argc, char** argv) {
  CLI::App app{"Print the header of pulsar data files (SIGPROC, PRESTO, PSRFITS, PSRDADA, GUPPI RAW)", "header"};
  app.footer(kExamples);
  CommonOptions common;
  add_common_options(app, common, false);
  std::vector<std::string> files;
  bool json = false;
  std::vector<std::string> sets;
  std::vector<std::string> unsets;
  std::string output;
  std::vector<std::string> wanted;  // value flags in the order given
  app.add_option("files", files, "Files to read ('-' or none for stdin, as SIGPROC's header)");
  app.add_flag("--json", json, "Print everything as JSON");
  app.add_option("--set", sets,
                 "Set a SIGPROC keyword (key=value) in the copy written with -o, in SIGPROC's stored units (fch1, "
                 "foff MHz; tstart MJD; src_raj hhmmss.s); tsamp takes a unit (tsamp=64us, 0.064ms, 6.4e-5s; a bare "
                 "number is seconds and must be below 1)")
      ->type_name("KEY=VALUE");
  app.add_option("--unset", unsets, "Remove a SIGPROC keyword in the copy written with -o")->type_name("KEY");
  app.add_option("-o,--output", output, "Write a copy of the (one, SIGPROC) input with --set/--unset applied");
  for (const auto& name : value_names()) {
    app.add_flag_callback(
           "--" + name, [&wanted, name] { wanted.push_back(name); }, value_description(name))
        ->trigger_on_parse()
        ->group("Single values (SIGPROC's flags; one dash works too)");
  }
  parse(app, normalize_single_dash(argc, argv, value_names()));
  apply_common_options(common);
  if (files.empty()) {
    // SIGPROC's `header -tsamp < obs.fil` reads stdin; on a terminal that would wait for typing.
    if (::isatty(STDIN_FILENO) != 0) usage_error("give the files to read (- or a redirection for stdin)");
    files.push_back("-");
  }

  if (!output.empty() || !sets.empty() || !unsets.empty()) {
    if (output.empty()) usage_error("--set and --unset need -o FILE (the input is never changed in place)");
    if (files.size() != 1) usage_error("-o copies exactly one input file");
    if (json || !wanted.empty()) usage_error("-o cannot be combined with --json or single values");
    rewrite_sigproc(files.front(), output, sets, unsets);
    return kExitOk;
  }
  if (json && !wanted.empty()) usage_error("give either --json (everything) or single values, not both");

  auto out = open_sink("-");
  int status = kExitOk;
  const bool several = files.size() > 1;
  nlohmann::ordered_json all = nlohmann::ordered_json::array();
  bool first = true;
  for (const auto& path : files) {
    FileDescription d;
    try {
      d = describe_file(path);
    } catch (const BrokenPipe&) {
      throw;
    } catch (const Error& e) {
      if (e.code() == ErrorCode::invalid_argument) throw;
      print_file_error(e, path);
      status = kExitRuntime;
      continue;
    }
    std::string text;
    if (json) {
      all.push_back(to_json(d));
      continue;
    }
    if (!wanted.empty()) {
      if (several) {
        text = d.shown_name;
        for (const auto& name : wanted) {
          std::string v = value_text(d, name);
          v.pop_back();
          for (char& c : v) {
            if (c == '\n') c = '\t';
          }
          text += '\t' + v;
        }
        text += '\n';
      } else {
        for (const auto& name : wanted) text += value_text(d, name);
      }
      out->write(text.data(), text.size());
      continue;
    }
    if (!first) out->write("\n", 1);
    first = false;
    print_listing(*out, d);
  }
  if (json) {
    const std::string text = (several ? all.dump(2) : (all.empty() ? std::string("null") : all.front().dump(2))) + "\n";
    out->write(text.data(), text.size());
  }
  out->commit();
  return status;
}

}  // namespace
}  // namespace fastpsr::app

int main(int argc, char** argv) { return fastpsr::app::run_tool("header", argc, argv, fastpsr::app::run); }
