// Paths: where beast finds its data at run time — kernel templates,
// constraint sets, the renderer script and the Python that runs it. Defaults
// point into the source tree the binary was built from; environment variables
// (BEAST_HOME, BEAST_PYTHON) and CLI options override them.
#pragma once

#include <string>

namespace beast {

struct Paths {
  std::string root;             // the beast source (or install) tree
  std::string templates_dir;    // ROOT/kernel_templates
  std::string constraints_dir;  // ROOT/constraints
  std::string render_script;    // ROOT/harness/render.py
  std::string python;           // Python with Jinja2

  static Paths Default();
};

}  // namespace beast
