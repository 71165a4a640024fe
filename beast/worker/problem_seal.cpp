// What a problem's kernels must leave as they found it (problem_seal.hpp).
#include "beast/worker/problem_seal.hpp"

#include <cstring>

namespace beast {
namespace {

// The inputs in kernel-argument order, with their names in a message.
struct Input {
  const std::vector<float>* values;
  const char* name;
};

std::vector<Input> InputsOf(const ProblemData& data) {
  const bool conv = data.problem_key.rfind("conv2d:", 0) == 0;
  std::vector<Input> out = {{&data.input0, conv ? "x" : "A"}, {&data.input1, conv ? "w" : "B"}};
  if (!data.bias.empty()) out.push_back({&data.bias, "bias"});
  return out;
}

template <typename T>
uint64_t HashOf(const std::vector<T>& values, uint64_t seed) {
  return HashBytes(values.data(), values.size() * sizeof(T)) ^ (seed * 0x9e3779b97f4a7c15ULL);
}

uint64_t HostHash(const ProblemData& d) {
  return HashOf(d.input0, 1) ^ HashOf(d.input1, 2) ^ HashOf(d.bias, 3) ^ HashOf(d.reference, 4) ^
         HashOf(d.abs_reference, 5) ^ HashOf(d.reference64, 6) ^ HashOf(d.abs_reference64, 7);
}

}  // namespace

uint64_t HashBytes(const void* data, size_t bytes) {
  // Word at a time, each mixed in by multiplies and an xor-shift: fast
  // enough to run after every config (tens of MB in milliseconds), and any
  // change of a word changes the result.
  const unsigned char* p = static_cast<const unsigned char*>(data);
  uint64_t h = 0x243f6a8885a308d3ULL ^ bytes;
  size_t i = 0;
  for (; i + 8 <= bytes; i += 8) {
    uint64_t w;
    std::memcpy(&w, p + i, 8);
    h = (h ^ (w * 0xff51afd7ed558ccdULL)) * 0xc4ceb9fe1a85ec53ULL;
    h ^= h >> 29;
  }
  uint64_t tail = 0;
  if (i < bytes) std::memcpy(&tail, p + i, bytes - i);
  h = (h ^ (tail * 0xff51afd7ed558ccdULL)) * 0xc4ceb9fe1a85ec53ULL;
  return h ^ (h >> 32);
}

ProblemSeal SealOf(const ProblemData& data, bool check_host) {
  ProblemSeal seal;
  if (check_host) seal.host = HostHash(data);
  for (const Input& input : InputsOf(data)) {
    const std::vector<unsigned char> bytes = DeviceElements(data, *input.values);
    seal.input.push_back(HashBytes(bytes.data(), bytes.size()));
  }
  return seal;
}

std::string BrokenSeal(const ProblemData& data, const ProblemSeal& seal, const ReadInput& read) {
  std::string broken;
  const std::vector<Input> inputs = InputsOf(data);
  std::vector<unsigned char> bytes;
  for (size_t i = 0; i < inputs.size() && i < seal.input.size(); ++i) {
    bytes.resize(inputs[i].values->size() * ElementBytes(data));
    read(i, bytes.data(), bytes.size());
    if (HashBytes(bytes.data(), bytes.size()) != seal.input[i])
      broken += std::string(broken.empty() ? "" : ", ") + "into its input " + inputs[i].name;
  }
  if (seal.host != 0 && HostHash(data) != seal.host)
    broken += std::string(broken.empty() ? "" : ", ") +
              "past its buffers into the worker's copy of the problem's inputs or reference";
  return broken.empty() ? "" : "it wrote " + broken;
}

std::string CheckSeal(const ProblemData& data, const ProblemSeal& seal, const ReadInput& read,
                      const std::function<void()>& drop) {
  std::string broken;
  try {
    broken = BrokenSeal(data, seal, read);
  } catch (const std::exception&) {
    drop();
    return "";
  }
  if (!broken.empty()) drop();
  return broken;
}

}  // namespace beast
