// SPDX-License-Identifier: MIT
#include "common/tool_main.hpp"

#include <csignal>
#include <cstdio>
#include <iostream>
#include <new>

#include "fastpsr/backends.hpp"
#include "fastpsr/error.hpp"
#include "fastpsr/log.hpp"
#include "fastpsr/version.hpp"

namespace fastpsr::app {
namespace {

std::string g_tool;  // NOLINT(cert-err58-cpp)

void print_error(const std::string& path, const std::string& what) {
  if (path.empty()) {
    std::fprintf(stderr, "%s: error: %s\n", g_tool.c_str(), what.c_str());
  } else {
    std::fprintf(stderr, "%s: error: %s: %s\n", g_tool.c_str(), path.c_str(), what.c_str());
  }
}

}  // namespace

int run_tool(std::string_view tool, int argc, char** argv, const std::function<int(int, char**)>& body) {
  g_tool = std::string(tool);
  set_log_prefix(tool);
  // Writes to a closed pipe then fail with EPIPE, which ends the tool quietly (like `yes | head`).
  std::signal(SIGPIPE, SIG_IGN);
  try {
    const int code = body(argc, argv);
    std::fflush(stdout);
    return code;
  } catch (const ParseExit& e) {
    return e.code;
  } catch (const BrokenPipe&) {
    return kExitOk;
  } catch (const Error& e) {
    print_error(e.path(), e.what());
    return e.code() == ErrorCode::invalid_argument ? kExitUsage : kExitRuntime;
  } catch (const std::bad_alloc&) {
    print_error("", "out of host memory");
    return kExitRuntime;
  } catch (const std::exception& e) {
    print_error("", e.what());
    return kExitRuntime;
  }
}

void parse(CLI::App& app, std::vector<std::string> args) {
  try {
    std::reverse(args.begin(), args.end());  // CLI11 takes a reversed vector
    app.parse(args);
  } catch (const CLI::CallForHelp& e) {
    app.exit(e, std::cout, std::cerr);
    throw ParseExit{kExitOk};
  } catch (const CLI::CallForAllHelp& e) {
    app.exit(e, std::cout, std::cerr);
    throw ParseExit{kExitOk};
  } catch (const CLI::CallForVersion&) {
    std::cout << g_tool << " (fastpsr) " << version_string << '\n';
    throw ParseExit{kExitOk};
  } catch (const CLI::Success&) {
    throw ParseExit{kExitOk};
  } catch (const CLI::ParseError& e) {
    print_error("", e.what());
    std::fprintf(stderr, "Run '%s --help' for the options.\n", g_tool.c_str());
    throw ParseExit{kExitUsage};
  }
}

void parse(CLI::App& app, int argc, char** argv) {
  std::vector<std::string> args;
  for (int i = 1; i < argc; ++i) args.emplace_back(argv[i]);
  parse(app, std::move(args));
}

std::vector<std::string> normalize_single_dash(int argc, char** argv, const std::vector<std::string>& names) {
  std::vector<std::string> out;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a.size() > 2 && a[0] == '-' && a[1] != '-') {
      const std::string body = a.substr(1, a.find('=') == std::string::npos ? std::string::npos : a.find('=') - 1);
      for (const auto& n : names) {
        if (body == n) {
          a = "-" + a;
          break;
        }
      }
    }
    out.push_back(std::move(a));
  }
  return out;
}

void add_common_options(CLI::App& app, CommonOptions& opts, bool with_device) {
  app.add_flag("-q,--quiet", opts.quiet, "Print errors only");
  app.add_flag("-v,--verbose", opts.verbose,
               "Print the plan, memory, kernel configuration and speed (repeat for more)");
  app.set_version_flag("--version", std::string(version_string));
  if (with_device) {
    app.add_option("--device", opts.device, "Where to compute: auto (a GPU if there is one), cpu, gpu or gpu:N")
        ->capture_default_str();
  }
}

void apply_common_options(const CommonOptions& opts) {
  if (opts.quiet) {
    set_verbosity(Verbosity::quiet);
  } else if (opts.verbose >= 2) {
    set_verbosity(Verbosity::debug);
  } else if (opts.verbose == 1) {
    set_verbosity(Verbosity::verbose);
  }
}

void usage_error(const std::string& message) { throw Error(ErrorCode::invalid_argument, message); }

}  // namespace fastpsr::app
