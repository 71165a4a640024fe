// harness::Renderer: round trips through the real render.py (exact text,
// escapes and non-ASCII included), template errors as kBadInput, a broken
// environment as kEnvironment, restart after the child died, and concurrent
// use from several threads.
#include "harness/render/renderer.hpp"

#include <gtest/gtest.h>
#include <signal.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <string>
#include <thread>
#include <vector>

#include "beast/core/error.hpp"
#include "support/test_dir.hpp"

namespace beast::harness {
namespace {

namespace fs = std::filesystem;

const std::string kPython = BEAST_DEFAULT_PYTHON;
const std::string kScript = std::string(BEAST_TEST_SOURCE_DIR) + "/harness/render/render.py";
const std::string kTemplates = std::string(BEAST_TEST_SOURCE_DIR) + "/kernel_templates";

// Variables written as JSON text.
nlohmann::ordered_json Vars(const std::string& text) { return nlohmann::ordered_json::parse(text); }

// A templates folder of its own, removed at the end of the test (the
// counter tells apart several in one test).
class TempDir {
 public:
  TempDir() { path_ = testing::FreshTestDir("renderer_test_" + std::to_string(counter_++)); }
  ~TempDir() { fs::remove_all(path_); }
  void Write(const std::string& name, const std::string& text) const {
    fs::create_directories((path_ / name).parent_path());
    std::ofstream(path_ / name, std::ios::binary) << text;
  }
  std::string path() const { return path_.string(); }

 private:
  fs::path path_;
  static inline int counter_ = 0;
};

ErrorCode CodeOf(const std::function<void()>& f, std::string* message) {
  try {
    f();
  } catch (const Error& e) {
    *message = e.what();
    return e.code();
  }
  ADD_FAILURE() << "no beast::Error thrown";
  return ErrorCode::kInternal;
}

TEST(RendererTest, RoundTripIsByteExact) {
  TempDir dir;
  // Quotes, backslashes, a tab, a control character, 2-, 3- and 4-byte UTF-8.
  dir.Write("t/exact.j2",
            "A={{ A }} S={{ S }}\n\"q\" \\ \t\x01 \xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80\n");
  Renderer r(kPython, kScript, dir.path());
  EXPECT_EQ(r.Render("t/exact.j2", Vars("{\"A\": 32,\n \"S\": \"x\\\"y\"}")),
            "A=32 S=x\"y\n\"q\" \\ \t\x01 \xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80\n");
  EXPECT_EQ(r.Render("t/exact.j2", nlohmann::ordered_json{{"A", 1}, {"S", "\xc3\xa9"}}),
            "A=1 S=\xc3\xa9\n\"q\" \\ \t\x01 \xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80\n");
  EXPECT_EQ(r.Version().rfind("jinja2 ", 0), 0u) << r.Version();
}

TEST(RendererTest, RendersTheGemmTemplate) {
  Renderer r(kPython, kScript, kTemplates);
  std::string vars =
      "{\"M\": 64, \"N\": 64, \"K\": 64, \"trans_a\": 0, \"trans_b\": 0, \"col_major\": 0, "
      "\"MWG\": 32, \"NWG\": 32,"
      " \"MDIMC\": 8, \"NDIMC\": 8, \"SA\": 1, \"SB\": 1, \"VWM\": 1, \"VWN\": 4, \"STRM\": 0,"
      " \"STRN\": 0, \"KWI\": 4, \"KWG\": 16,"
      " \"MWI\": 4, \"NWI\": 4, \"LAYOUT\": \"ROW_MAJOR\", \"KERNEL_NAME\": \"gemm_tiled\","
      " \"BACKEND\": \"opencl\", \"DTYPE\": \"float\"}";
  std::string source = r.Render("gemm/tiled.cl.j2", Vars(vars));
  EXPECT_NE(source.find("__kernel __attribute__((reqd_work_group_size(8, 8, 1))) void gemm_tiled("),
            std::string::npos);
  EXPECT_NE(source.find("__local float As[512];"), std::string::npos);
  EXPECT_NE(source.find("vstore4(acc3_0, 0, C + m * 64 + n);"), std::string::npos);
}

TEST(RendererTest, TemplateErrorsAreBadInput) {
  TempDir dir;
  dir.Write("t/missing.j2", "line one\n{{ PRESENT }} {{ MISSING }}\n");
  dir.Write("t/syntax.j2", "ok\n{% if %}\n");
  Renderer r(kPython, kScript, dir.path());
  std::string message;
  EXPECT_EQ(CodeOf([&] { r.Render("t/missing.j2", Vars("{\"PRESENT\": 1}")); }, &message),
            ErrorCode::kBadInput);
  EXPECT_EQ(message, "t/missing.j2:2: 'MISSING' is undefined");
  EXPECT_EQ(CodeOf([&] { r.Render("t/syntax.j2", Vars("{}")); }, &message), ErrorCode::kBadInput);
  EXPECT_EQ(message,
            "t/syntax.j2:2: TemplateSyntaxError: Expected an expression, got 'end of "
            "statement block'");
  EXPECT_EQ(CodeOf([&] { r.Render("t/none.j2", Vars("{}")); }, &message), ErrorCode::kBadInput);
  EXPECT_EQ(message, "template not found: t/none.j2 (under " + dir.path() + ")");
  EXPECT_EQ(CodeOf([&] { r.Render("t/missing.j2", Vars("[1, 2]")); }, &message),
            ErrorCode::kBadInput);
  EXPECT_EQ(message, "bad request: \"vars\" must be a JSON object");
  // The child survives errors: the next request is served.
  EXPECT_EQ(r.Render("t/missing.j2", Vars("{\"PRESENT\": 1, \"MISSING\": 2}")), "line one\n1 2\n");
}

TEST(RendererTest, MissingPythonIsAnEnvironmentError) {
  std::string message;
  EXPECT_EQ(CodeOf([&] { Renderer r("/nonexistent/python3", kScript, kTemplates); }, &message),
            ErrorCode::kEnvironment);
  EXPECT_EQ(message,
            "cannot start Python \"/nonexistent/python3\" for the renderer: No such file or "
            "directory: run ./run to install");
}

TEST(RendererTest, PythonWithoutJinja2IsAnEnvironmentError) {
  // A jinja2 package that fails to import stands in for a missing one.
  TempDir fake;
  fake.Write("jinja2/__init__.py", "raise ImportError('No module named jinja2')\n");
  const char* old = std::getenv("PYTHONPATH");
  std::string saved = old ? old : "";
  setenv("PYTHONPATH", fake.path().c_str(), 1);
  std::string message;
  ErrorCode code = CodeOf([&] { Renderer r(kPython, kScript, kTemplates); }, &message);
  if (old)
    setenv("PYTHONPATH", saved.c_str(), 1);
  else
    unsetenv("PYTHONPATH");
  EXPECT_EQ(code, ErrorCode::kEnvironment);
  EXPECT_EQ(message,
            "renderer: Python package jinja2 is missing (No module named jinja2): run ./run to "
            "install");
}

TEST(RendererTest, NotAPythonIsAnEnvironmentError) {
  std::string message;
  EXPECT_EQ(CodeOf([&] { Renderer r("/bin/false", kScript, kTemplates); }, &message),
            ErrorCode::kEnvironment);
  EXPECT_EQ(message, "the renderer (/bin/false " + kScript +
                         ") did not start: exit status 1: run ./run to install");
}

TEST(RendererTest, MissingPathsAreNotFound) {
  std::string message;
  EXPECT_EQ(CodeOf([&] { Renderer r(kPython, "/nonexistent/render.py", kTemplates); }, &message),
            ErrorCode::kNotFound);
  EXPECT_EQ(message, "renderer script /nonexistent/render.py does not exist");
  EXPECT_EQ(CodeOf([&] { Renderer r(kPython, kScript, "/nonexistent/templates"); }, &message),
            ErrorCode::kNotFound);
  EXPECT_EQ(message, "templates directory /nonexistent/templates does not exist");
}

TEST(RendererTest, RestartsAChildThatDied) {
  TempDir dir;
  dir.Write("t/a.j2", "a={{ a }}");
  Renderer r(kPython, kScript, dir.path());
  EXPECT_EQ(r.Render("t/a.j2", Vars("{\"a\": 1}")), "a=1");
  pid_t first = r.ChildPid();
  ASSERT_GT(first, 0);
  ASSERT_EQ(kill(first, SIGKILL), 0);
  EXPECT_EQ(r.Render("t/a.j2", Vars("{\"a\": 2}")), "a=2");
  EXPECT_NE(r.ChildPid(), first);
}

TEST(RendererTest, AnEndlessRenderTimesOutAndTheNextOneWorks) {
  TempDir dir;
  dir.Write("t/loop.j2", "{% if forever %}{% for i in range(10 ** 15) %}{% endfor %}{% endif %}x");
  Renderer r(kPython, kScript, dir.path());
  r.SetLimits(0.5, nullptr);
  const pid_t first = r.ChildPid();
  try {
    r.Render("t/loop.j2", Vars("{\"forever\": true}"));
    FAIL() << "an endless render returned";
  } catch (const RenderTimeout& e) {
    EXPECT_EQ(std::string(e.what()),
              "the template did not render within 0.5 s (t/loop.j2); the renderer was stopped");
  }
  EXPECT_EQ(r.ChildPid(), -1);  // killed at once, not left looping
  EXPECT_FALSE(kill(first, 0) == 0);
  EXPECT_EQ(r.Render("t/loop.j2", Vars("{\"forever\": false}")), "x");
}

TEST(RendererTest, AStopEndsARenderAtOnce) {
  TempDir dir;
  dir.Write("t/loop.j2", "{% for i in range(10 ** 15) %}{% endfor %}");
  Renderer r(kPython, kScript, dir.path());
  std::atomic<bool> stop{false};
  r.SetLimits(60, &stop);
  std::thread stopper([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
    stop = true;
  });
  const auto start = std::chrono::steady_clock::now();
  EXPECT_THROW(r.Render("t/loop.j2", Vars("{}")), RenderInterrupted);
  stopper.join();
  EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(), 1.5);
}

TEST(RendererTest, ServesConcurrentCallers) {
  TempDir dir;
  dir.Write("t/echo.j2", "{{ who }}:{{ n }}");
  Renderer r(kPython, kScript, dir.path());
  std::vector<std::thread> threads;
  std::vector<int> wrong(4, 0);
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&, t] {
      for (int n = 0; n < 25; ++n) {
        std::string vars = "{\"who\": " + std::to_string(t) + ", \"n\": " + std::to_string(n) + "}";
        if (r.Render("t/echo.j2", Vars(vars)) != std::to_string(t) + ":" + std::to_string(n))
          ++wrong[t];
      }
    });
  }
  for (auto& th : threads) th.join();
  EXPECT_EQ(wrong, std::vector<int>(4, 0));
}

}  // namespace
}  // namespace beast::harness
