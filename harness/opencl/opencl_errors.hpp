// OpenCL error codes as names, so a failed build or launch is stored with a
// message a person can read ("CL_INVALID_WORK_GROUP_SIZE (-54)") rather than a
// bare number. Private to the harness.
#pragma once

#include <string>

namespace beast::harness {

// The symbolic name of an OpenCL status code, or "CL_UNKNOWN_ERROR".
const char* OpenCLErrorName(int code);

// "<name> (<code>)", the form used in every harness message.
std::string OpenClErrorText(int code);

}  // namespace beast::harness
