// SPDX-License-Identifier: MIT
#include "common/tool_main.hpp"

#include <pthread.h>
#include <signal.h>
#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <csignal>
#include <cstddef>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <new>

#include "fastpsr/backends.hpp"
#include "fastpsr/error.hpp"
#include "fastpsr/flag_names.hpp"
#include "fastpsr/host_memory.hpp"
#include "fastpsr/log.hpp"
#include "fastpsr/temp_registry.hpp"
#include "fastpsr/version.hpp"

namespace fastpsr::app {
namespace {

std::string g_tool;        // NOLINT(cert-err58-cpp)
std::string g_command;     // NOLINT(cert-err58-cpp): the command the user ran (a shim's name), else g_tool
std::string g_prefix;      // NOLINT(cert-err58-cpp): in front of messages
std::string g_error_file;  // NOLINT(cert-err58-cpp)

void print_error(const std::string& path, const std::string& text) {
  const std::string what = with_log_flag_names(text);
  if (path.empty()) {
    std::fprintf(stderr, "%s: error: %s\n", g_prefix.c_str(), what.c_str());
  } else {
    std::fprintf(stderr, "%s: error: %s: %s\n", g_prefix.c_str(), path.c_str(), what.c_str());
  }
}

// A PRESTO/SIGPROC compatibility shim (tools/presto-compat: prepsubband, prepdata, dedisperse,
// fake) runs a tool with FASTPSR_COMMAND set to its own name: messages then name the command
// the user ran, as the shim's own do ("prepsubband (fastpsr): error: ..."), not the tool it
// runs. Only a plain command name is taken (letters, digits, '.', '_', '+', '-'; 64 at most),
// and the variable is unset so that it reaches no other program.
std::string command_from_environment() {
  const char* env = std::getenv("FASTPSR_COMMAND");
  if (env == nullptr) return {};
  std::string name(env);
  ::unsetenv("FASTPSR_COMMAND");
  const bool plain =
      !name.empty() && name.size() <= 64 && name.front() != '-' && std::all_of(name.begin(), name.end(), [](char c) {
        return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '.' || c == '_' || c == '+' || c == '-';
      });
  return plain ? name : std::string();
}

// With FASTPSR_COMMAND, a shim may also say how it spells the tool's flags it translates
// (FASTPSR_FLAG_NAMES="--nsub=-nsub --numout=-numout ...": flag_names.hpp), so that errors and
// warnings name the flags the user typed. Unset, like FASTPSR_COMMAND.
std::vector<FlagAlias> flag_aliases_from_environment() {
  const char* env = std::getenv("FASTPSR_FLAG_NAMES");
  if (env == nullptr) return {};
  std::vector<FlagAlias> aliases = parse_flag_aliases(env);
  ::unsetenv("FASTPSR_FLAG_NAMES");
  return aliases;
}

// The signals whose handler below cleans up, each with the line it writes, made before the
// handler is installed (a handler may only write(2) it). On a terminal the line starts with a
// newline, which ends a progress line. An interrupted run otherwise ended with no word (QA pass 21).
struct HandledSignal {
  int sig;
  const char* name;
  char line[256];
  std::size_t length;
};
HandledSignal g_handled[] = {{SIGINT, "SIGINT", {}, 0}, {SIGTERM, "SIGTERM", {}, 0}, {SIGHUP, "SIGHUP", {}, 0}};

void make_signal_line(HandledSignal& s, bool terminal) {
  const std::string line =
      fmt::format("{}{}: stopped by {}; unfinished outputs removed\n", terminal ? "\n" : "", g_prefix, s.name);
  const std::size_t n = std::min(line.size(), sizeof(s.line) - 1);
  std::copy_n(line.data(), n, s.line);
  if (n < line.size()) s.line[n - 1] = '\n';  // a very long command name, cut
  s.length = n;
}

// SIGINT, SIGTERM, SIGHUP: removes the temporary outputs still open (an interrupted run would
// leave thousands of hidden .NAME.tmp.PID.SERIAL files), says so, then dies of the signal so that
// the shell sees 128+N. Async-signal-safe: atomics, unlink(2), write(2), sigaction, raise,
// pthread_sigmask.
void remove_temporaries_and_die(int sig) {
  if (!temp_files::remove_all_for_exit()) {
    // Another thread's handler is sweeping and ends the process when done: wait for that.
    for (;;) ::pause();
  }
  for (const HandledSignal& s : g_handled) {
    if (s.sig == sig && s.length > 0) {
      [[maybe_unused]] const ssize_t written = ::write(STDERR_FILENO, s.line, s.length);
    }
  }
  struct sigaction dfl {};
  dfl.sa_handler = SIG_DFL;
  sigemptyset(&dfl.sa_mask);
  ::sigaction(sig, &dfl, nullptr);
  ::raise(sig);  // pending while the handler blocks it; unblocked at once below
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, sig);
  ::pthread_sigmask(SIG_UNBLOCK, &set, nullptr);
}

// What a failed allocation can still say: how much the process held at its peak and how much
// it may use. Called after the stack has unwound, so the buffers of the run are free again.
std::string out_of_memory_message() {
  std::string usage;
  try {
    rusage ru{};
    const std::size_t peak =
        ::getrusage(RUSAGE_SELF, &ru) == 0 ? static_cast<std::size_t>(ru.ru_maxrss) * 1024 : std::size_t{0};
    const HostMemoryLimit limit = host_memory_limit();
    usage = fmt::format(" (the process held up to {} and may use {}: {})", format_bytes(peak),
                        format_bytes(limit.bytes), limit.source);
  } catch (...) {  // NOLINT(bugprone-empty-catch): the message goes out without the numbers
  }
  return "out of host memory: a buffer could not be allocated" + usage + "; -v shows the memory a run plans to use";
}

void install_signal_cleanup() {
  const bool terminal = ::isatty(STDERR_FILENO) == 1;
  for (HandledSignal& s : g_handled) make_signal_line(s, terminal);
  struct sigaction sa {};
  sa.sa_handler = remove_temporaries_and_die;
  // While one of them is handled, the others wait on this thread (another thread may still take
  // one: remove_all_for_exit lets the first do the work).
  sigemptyset(&sa.sa_mask);
  for (const HandledSignal& s : g_handled) sigaddset(&sa.sa_mask, s.sig);
  sa.sa_flags = SA_RESTART;
  for (const HandledSignal& s : g_handled) {
    struct sigaction old {};
    // An ignored signal stays ignored: nohup's SIGHUP, SIGINT of a background job in a script.
    if (::sigaction(s.sig, nullptr, &old) != 0 || old.sa_handler == SIG_IGN) continue;
    ::sigaction(s.sig, &sa, nullptr);
  }
}

}  // namespace

int run_tool(std::string_view tool, int argc, char** argv, const std::function<int(int, char**)>& body) {
  g_tool = std::string(tool);
  g_command = command_from_environment();
  if (g_command.empty() || g_command == g_tool) {
    g_command = g_tool;
    g_prefix = g_tool;
  } else {
    g_prefix = g_command + " (fastpsr)";
  }
  std::vector<FlagAlias> aliases = flag_aliases_from_environment();
  if (g_command != g_tool) set_log_flag_aliases(std::move(aliases));
  set_log_prefix(g_prefix);
  // Writes to a closed pipe then fail with EPIPE, which ends the tool quietly (like `yes | head`).
  std::signal(SIGPIPE, SIG_IGN);
  install_signal_cleanup();
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
    print_error(g_error_file, out_of_memory_message());
    return kExitRuntime;
  } catch (const std::exception& e) {
    print_error("", e.what());
    return kExitRuntime;
  }
}

namespace {

// The first of the arguments a parse left over that reads as an option: "--word" or "-x...",
// not a number (-1, -inf) and not "-" (stdin) or "--".
std::string first_unknown_option(const std::vector<std::string>& left) {
  for (const std::string& a : left) {
    if (a.size() < 2 || a[0] != '-' || a == "--") continue;
    char* end = nullptr;
    (void)std::strtod(a.c_str(), &end);
    if (end != nullptr && *end == '\0') continue;
    const std::size_t eq = a.find('=');
    return a.starts_with("--") && eq != std::string::npos ? a.substr(0, eq) : a;
  }
  return {};
}

// The options of `app` and of its subcommands (and option groups) that take one value, once:
// CLI11 refuses such an option given twice ("At Most 1 required but received 2").
void single_value_options(CLI::App& app, std::vector<CLI::Option*>& out) {
  for (CLI::Option* opt : app.get_options()) {
    if (!opt->get_positional() && opt->get_expected_max() == 1 && opt->get_type_size_min() >= 1 &&
        opt->get_multi_option_policy() == CLI::MultiOptionPolicy::Throw &&
        std::find(out.begin(), out.end(), opt) == out.end()) {
      out.push_back(opt);
    }
  }
  for (CLI::App* sub : app.get_subcommands([](const CLI::App*) { return true; })) single_value_options(*sub, out);
}

// After a parse: "--tsamp given 2 times; the last (64) is used, ..." for each option of one value
// given more than once (unless -q).
void warn_repeated(const CLI::App& app, const std::vector<CLI::Option*>& options) {
  const CLI::Option* quiet = app.get_option_no_throw("--quiet");
  if (quiet != nullptr && quiet->count() > 0) return;
  for (const CLI::Option* opt : options) {
    const auto per = static_cast<std::size_t>(opt->get_type_size_min());
    const std::size_t times = opt->count() / per;
    if (times < 2) continue;
    const CLI::results_t& given = opt->results();
    std::string last;
    for (auto it = given.end() - static_cast<std::ptrdiff_t>(per); it != given.end(); ++it) {
      last += (last.empty() ? "" : " ") + *it;
    }
    log_warning("{} given {} times; the last ({}) is used, as SIGPROC and PRESTO do", opt->get_name(), times, last);
  }
}

// CLI11's message, but for a missing positional argument or subcommand ("input is required",
// "A subcommand is required") one that says what to give.
std::string plain_message(const CLI::App& app, const CLI::ParseError& e) {
  const std::string what = e.what();
  if (dynamic_cast<const CLI::RequiredError*>(&e) == nullptr) return what;
  if (what == "A subcommand is required") {
    std::string names;
    for (const CLI::App* sub : app.get_subcommands([](const CLI::App*) { return true; })) {
      names += (names.empty() ? "" : ", ") + sub->get_name();
    }
    return fmt::format("no subcommand given: one of {}", names);
  }
  constexpr std::string_view kRequired = " is required";
  if (!what.ends_with(kRequired)) return what;
  const std::string name = what.substr(0, what.size() - kRequired.size());
  const CLI::Option* opt = name.starts_with("-") ? nullptr : app.get_option_no_throw(name);
  if (opt == nullptr || !opt->get_positional()) return what;
  std::string description = opt->get_description();
  // "Input ..." reads "input ..." after the colon; "SIGPROC ..." stays.
  if (description.size() > 1 && std::islower(static_cast<unsigned char>(description[1])) != 0) {
    description[0] = static_cast<char>(std::tolower(static_cast<unsigned char>(description[0])));
  }
  return fmt::format("no {} given: {}", name, description);
}

}  // namespace

void parse(CLI::App& app, std::vector<std::string> args) {
  // CLI11 reads "-headerless" as the cluster "-h -e -a ..." and answers its "-h" with the help on
  // stdout and status 0, so a SIGPROC or PRESTO option we do not know (dedisperse -headerless,
  // accelsearch -harmpolish) would end a script's step "successfully" with the help as its
  // output. No tool has another one-letter option h: such an argument is an unknown option.
  // Likewise a one-dash word that normalize_single_dash() did not know is read by CLI11 as a
  // one-letter option with the rest glued on as its value: SIGPROC's `header f.fil -obsdb` wrote
  // a copy of the file named "bsdb" (-o bsdb), `dedisperse f.fil -old` wrote its series to "ld"
  // (QA pass 18). A glued value that starts with a letter is taken for such a word and refused;
  // numbers (-d56.7, -B8, and values such as -inf) and -vv still work.
  auto is_letter = [](char c) { return std::isalpha(static_cast<unsigned char>(c)) != 0; };
  for (const std::string& a : args) {
    if (a == "--") break;
    if (a.size() <= 2 || a[0] != '-' || !is_letter(a[1])) continue;
    char* end = nullptr;
    (void)std::strtod(a.c_str(), &end);
    if (end != nullptr && *end == '\0') continue;  // a value: -inf, -nan
    const bool verbosity = a.find_first_not_of("vq", 1) == std::string::npos;
    if (a[1] == 'h' || (is_letter(a[2]) && !verbosity)) {
      print_error("", fmt::format("unknown option '{}' ({})", a,
                                  a[1] == 'h' ? "-h alone asks for the help"
                                              : "a one-letter option takes its value after a space"));
      std::fprintf(stderr, "Run '%s --help' for the options.\n", g_command.c_str());
      throw ParseExit{kExitUsage};
    }
  }
  // An option of one value given more than once takes the last, with a warning, as SIGPROC's
  // fake/dedisperse and PRESTO's clig parsers do: scripts append overrides to a default option
  // string (`fake $DEFAULTS -nbits 8`). Options of many values (--set, --psr, inputs) keep all.
  std::vector<CLI::Option*> single;
  single_value_options(app, single);
  for (CLI::Option* opt : single) {
    opt->multi_option_policy(CLI::MultiOptionPolicy::TakeLast);
    // Only the value used is checked: one given before it is dropped unchecked, as SIGPROC and
    // PRESTO drop it (`-d nan -d 5` is -d 5). CLI11 checks every value with a validator of
    // index -1; under TakeLast the values before the last have negative indices.
    if (opt->get_type_size_max() != 1) continue;
    for (int i = 0;; ++i) {
      CLI::Validator* v = nullptr;
      try {
        v = opt->get_validator(i);
      } catch (const CLI::OptionNotFound&) {
        break;
      }
      if (v->get_application_index() == -1) v->application_index(0);
    }
  }
  try {
    std::reverse(args.begin(), args.end());  // CLI11 takes a reversed vector
    app.parse(args);
    warn_repeated(app, single);
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
    // An option CLI11 did not know is left over among the arguments; its own message then says
    // "The following argument was not expected: --bogus", or for a tool with subcommands
    // (tune) "A subcommand is required" (QA pass 19). Name the option instead.
    const std::string unknown = first_unknown_option(app.remaining(true));
    print_error("", !unknown.empty() ? fmt::format("unknown option '{}'", unknown) : plain_message(app, e));
    std::fprintf(stderr, "Run '%s --help' for the options.\n", g_command.c_str());
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

void set_error_file(std::string path) { g_error_file = std::move(path); }

CLI::Validator not_negative() {
  return CLI::Validator(
      [](std::string& s) -> std::string {
        const auto first = s.find_first_not_of(" \t");
        if (first != std::string::npos && s[first] == '-') return s + " is negative: give a whole number, 0 or more";
        return {};
      },
      "");
}

std::string format_bytes(std::size_t bytes) {
  const auto b = static_cast<double>(bytes);
  if (b >= 1024.0 * 1048576.0) return fmt::format("{:.2f} GiB", b / (1024.0 * 1048576.0));
  if (b >= 1048576.0) return fmt::format("{:.1f} MiB", b / 1048576.0);
  return fmt::format("{:.0f} KiB", std::ceil(b / 1024.0));
}

void check_host_memory(std::size_t needed, const std::string& parts, const std::string& hint, const std::string& path) {
  const HostMemoryLimit limit = host_memory_limit();
  if (needed <= limit.bytes) return;
  throw Error(ErrorCode::resource,
              fmt::format("needs about {} of host memory ({}), but this process may use {} ({}): {}",
                          format_bytes(needed), parts, format_bytes(limit.bytes), limit.source, hint),
              path);
}

}  // namespace fastpsr::app
