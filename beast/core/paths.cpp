// Default run-time paths (paths.hpp).
#include "beast/core/paths.hpp"

#include <cstdlib>

namespace beast {

Paths Paths::Default() {
  Paths p;
  const char* home = std::getenv("BEAST_HOME");
  p.root = home && *home ? home : BEAST_DEFAULT_SOURCE_DIR;
  p.templates_dir = p.root + "/kernel_templates";
  p.constraints_dir = p.root + "/constraints";
  p.render_script = p.root + "/harness/render/render.py";
  const char* python = std::getenv("BEAST_PYTHON");
  p.python = python && *python ? python : BEAST_DEFAULT_PYTHON;
  return p;
}

}  // namespace beast
