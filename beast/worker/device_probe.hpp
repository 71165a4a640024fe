// Whether a device context still answers, OpenCL's or CUDA's: a fresh
// allocation, fill and read. A lost context (a kernel's fault on a GPU)
// fails them; a problem too large for the device's memory does not.
#pragma once

#include <exception>

namespace beast {

template <class Context>
bool ContextAnswers(Context& context) {
  try {
    auto probe = context.Allocate(sizeof(float));
    float value = 0;
    context.Fill(probe, 0xFF);
    context.Read(probe, &value, sizeof value);
    return true;
  } catch (const std::exception&) {
    return false;
  }
}

}  // namespace beast
