// Problem parsing, validation and canonical keys (see problem.hpp).
#include "beast/problem/problem.hpp"

#include <cerrno>
#include <cstdlib>
#include <set>
#include <sstream>
#include <vector>

#include "beast/core/error.hpp"

namespace beast {
namespace {

[[noreturn]] void Fail(const std::string& text, const std::string& why) {
  throw Error(ErrorCode::kBadArgument, "problem \"" + text + "\": " + why);
}

int64_t ParseInt(const std::string& text, const std::string& key, const std::string& value) {
  errno = 0;
  char* end = nullptr;
  long long v = std::strtoll(value.c_str(), &end, 10);
  if (value.empty() || *end != '\0' || errno != 0) {
    Fail(text, "value of " + key + " is not an integer: \"" + value + "\"");
  }
  return v;
}

bool ParseFlag(const std::string& text, const std::string& key, const std::string& value) {
  int64_t v = ParseInt(text, key, value);
  if (v != 0 && v != 1) Fail(text, key + " must be 0 or 1, not " + value);
  return v == 1;
}

std::string Join(const std::vector<std::string>& items) {
  std::string out;
  for (const auto& item : items) out += (out.empty() ? "" : " ") + item;
  return out;
}

}  // namespace

namespace {
// Output extent with floor division, so a filter larger than the padded input
// gives a size <= 0 instead of C++'s truncation toward zero rounding it up.
int64_t OutExtent(int64_t in, int64_t pad, int64_t dilation, int64_t filter, int64_t stride) {
  int64_t span = in + 2 * pad - dilation * (filter - 1) - 1;
  int64_t q = span / stride;
  if (span % stride != 0 && span < 0) --q;
  return q + 1;
}
}  // namespace

int64_t Conv2dShape::OutH() const { return OutExtent(h, pad_h, dilation_h, r, stride_h); }
int64_t Conv2dShape::OutW() const { return OutExtent(w, pad_w, dilation_w, s, stride_w); }

const char* LayoutName(Layout layout) { return layout == Layout::kNCHW ? "NCHW" : "NHWC"; }

Problem Problem::Parse(const std::string& text) {
  auto colon = text.find(':');
  if (colon == std::string::npos) {
    Fail(text, "expected OP:KEY=VALUE,... with OP conv2d or gemm");
  }
  std::string op = text.substr(0, colon);
  Problem p;
  if (op == "conv2d") {
    p.op_ = OpKind::kConv2d;
  } else if (op == "gemm") {
    p.op_ = OpKind::kGemm;
  } else {
    Fail(text, "unknown op \"" + op + "\" (known: conv2d gemm)");
  }
  const std::vector<std::string> conv_keys = {
      "N", "C", "H", "W", "K", "R", "S", "stride", "stride_h", "stride_w", "pad", "pad_h",
      "pad_w", "dilation", "dilation_h", "dilation_w", "groups", "bias", "layout", "dtype"};
  const std::vector<std::string> gemm_keys = {"M", "N", "K", "transA", "transB",
                                              "trans_a", "trans_b", "layout", "dtype"};
  const auto& known = p.op_ == OpKind::kConv2d ? conv_keys : gemm_keys;
  std::set<std::string> seen;
  std::stringstream items(text.substr(colon + 1));
  std::string item;
  while (std::getline(items, item, ',')) {
    auto eq = item.find('=');
    if (eq == std::string::npos || eq == 0) Fail(text, "expected KEY=VALUE, got \"" + item + "\"");
    std::string key = item.substr(0, eq), value = item.substr(eq + 1);
    bool is_known = false;
    for (const auto& k : known) is_known = is_known || k == key;
    if (!is_known) Fail(text, "unknown key \"" + key + "\" for " + op + " (known: " + Join(known) + ")");
    if (!seen.insert(key).second) Fail(text, "key \"" + key + "\" given twice");
    if (key == "dtype") {
      if (value != "f32") Fail(text, "dtype \"" + value + "\" is not supported (supported: f32)");
      continue;
    }
    if (p.op_ == OpKind::kConv2d) {
      Conv2dShape& c = p.conv_;
      if (key == "layout") {
        if (value == "NCHW") c.layout = Layout::kNCHW;
        else if (value == "NHWC") c.layout = Layout::kNHWC;
        else Fail(text, "layout \"" + value + "\" is not NCHW or NHWC");
        continue;
      }
      if (key == "bias") {
        c.bias = ParseFlag(text, key, value);
        continue;
      }
      int64_t v = ParseInt(text, key, value);
      if (key == "N") c.n = v;
      else if (key == "C") c.c = v;
      else if (key == "H") c.h = v;
      else if (key == "W") c.w = v;
      else if (key == "K") c.k = v;
      else if (key == "R") c.r = v;
      else if (key == "S") c.s = v;
      else if (key == "stride") c.stride_h = c.stride_w = v;
      else if (key == "stride_h") c.stride_h = v;
      else if (key == "stride_w") c.stride_w = v;
      else if (key == "pad") c.pad_h = c.pad_w = v;
      else if (key == "pad_h") c.pad_h = v;
      else if (key == "pad_w") c.pad_w = v;
      else if (key == "dilation") c.dilation_h = c.dilation_w = v;
      else if (key == "dilation_h") c.dilation_h = v;
      else if (key == "dilation_w") c.dilation_w = v;
      else if (key == "groups") c.groups = v;
    } else {
      GemmShape& g = p.gemm_;
      if (key == "M") g.m = ParseInt(text, key, value);
      else if (key == "N") g.n = ParseInt(text, key, value);
      else if (key == "K") g.k = ParseInt(text, key, value);
      else if (key == "transA" || key == "trans_a") g.trans_a = ParseFlag(text, key, value);
      else if (key == "transB" || key == "trans_b") g.trans_b = ParseFlag(text, key, value);
      else if (key == "layout") {
        if (value == "row") g.col_major = false;
        else if (value == "col") g.col_major = true;
        else Fail(text, "layout \"" + value + "\" is not row or col");
      }
    }
  }
  const std::vector<std::string> required = p.op_ == OpKind::kConv2d
      ? std::vector<std::string>{"N", "C", "H", "W", "K", "R", "S"}
      : std::vector<std::string>{"M", "N", "K"};
  for (const auto& key : required) {
    if (!seen.count(key)) Fail(text, "missing " + key);
  }
  if (seen.count("transA") && seen.count("trans_a")) Fail(text, "transA and trans_a both given");
  if (seen.count("transB") && seen.count("trans_b")) Fail(text, "transB and trans_b both given");
  try {
    p.Validate();
  } catch (const Error& e) {
    Fail(text, e.what());
  }
  return p;
}

Problem Problem::Conv2d(const Conv2dShape& shape, DType dtype) {
  Problem p;
  p.op_ = OpKind::kConv2d;
  p.dtype_ = dtype;
  p.conv_ = shape;
  p.Validate();
  return p;
}

Problem Problem::Gemm(const GemmShape& shape, DType dtype) {
  Problem p;
  p.op_ = OpKind::kGemm;
  p.dtype_ = dtype;
  p.gemm_ = shape;
  p.Validate();
  return p;
}

void Problem::Validate() const {
  auto positive = [](int64_t v, const char* name) {
    if (v <= 0) throw Error(ErrorCode::kBadArgument, std::string(name) + " must be positive, not " + std::to_string(v));
  };
  if (op_ == OpKind::kGemm) {
    positive(gemm_.m, "M");
    positive(gemm_.n, "N");
    positive(gemm_.k, "K");
    return;
  }
  const Conv2dShape& c = conv_;
  positive(c.n, "N");
  positive(c.c, "C");
  positive(c.h, "H");
  positive(c.w, "W");
  positive(c.k, "K");
  positive(c.r, "R");
  positive(c.s, "S");
  positive(c.stride_h, "stride_h");
  positive(c.stride_w, "stride_w");
  positive(c.dilation_h, "dilation_h");
  positive(c.dilation_w, "dilation_w");
  positive(c.groups, "groups");
  if (c.pad_h < 0 || c.pad_w < 0) throw Error(ErrorCode::kBadArgument, "padding must not be negative");
  if (c.c % c.groups != 0 || c.k % c.groups != 0) {
    throw Error(ErrorCode::kBadArgument, "groups=" + std::to_string(c.groups) +
                                             " must divide C=" + std::to_string(c.c) +
                                             " and K=" + std::to_string(c.k));
  }
  if (c.OutH() <= 0 || c.OutW() <= 0) {
    throw Error(ErrorCode::kBadArgument,
                "the dilated filter is larger than the padded input (output would be " +
                    std::to_string(c.OutH()) + "x" + std::to_string(c.OutW()) + ")");
  }
}

std::string Problem::Key() const {
  std::ostringstream o;
  if (op_ == OpKind::kGemm) {
    o << "gemm:M=" << gemm_.m << ",N=" << gemm_.n << ",K=" << gemm_.k
      << ",transA=" << gemm_.trans_a << ",transB=" << gemm_.trans_b;
    if (gemm_.col_major) o << ",layout=col";  // row-major keys stay as they always were
    o << ",dtype=f32";
    return o.str();
  }
  const Conv2dShape& c = conv_;
  o << "conv2d:N=" << c.n << ",C=" << c.c << ",H=" << c.h << ",W=" << c.w << ",K=" << c.k
    << ",R=" << c.r << ",S=" << c.s << ",stride_h=" << c.stride_h << ",stride_w=" << c.stride_w
    << ",pad_h=" << c.pad_h << ",pad_w=" << c.pad_w << ",dilation_h=" << c.dilation_h
    << ",dilation_w=" << c.dilation_w << ",groups=" << c.groups;
  // Listed only when present, so the keys of problems without bias stay as
  // they were before bias existed (and as databases recorded them).
  if (c.bias) o << ",bias=1";
  o << ",layout=" << LayoutName(c.layout) << ",dtype=f32";
  return o.str();
}

double Problem::Flops() const {
  if (op_ == OpKind::kGemm) return 2.0 * gemm_.m * gemm_.n * gemm_.k;
  const Conv2dShape& c = conv_;
  return 2.0 * c.n * c.k * c.OutH() * c.OutW() * (c.c / c.groups) * c.r * c.s;
}

std::map<std::string, int64_t> Problem::Variables() const {
  if (op_ == OpKind::kGemm) {
    const GemmShape& g = gemm_;
    if (g.col_major) {
      // Templates are written row-major. A column-major C = op(A) op(B) is,
      // read row-major, C^T = op(B)^T op(A)^T: an N x M product whose first
      // operand is the B buffer, with the transpositions swapped. `col_major`
      // tells the template to take its (A, B, C) arguments in that role.
      return {{"M", g.n}, {"N", g.m}, {"K", g.k}, {"trans_a", g.trans_b},
              {"trans_b", g.trans_a}, {"col_major", 1}};
    }
    return {{"M", g.m}, {"N", g.n}, {"K", g.k},
            {"trans_a", g.trans_a}, {"trans_b", g.trans_b}, {"col_major", 0}};
  }
  const Conv2dShape& c = conv_;
  return {{"N", c.n}, {"C", c.c}, {"H", c.h}, {"W", c.w}, {"K", c.k}, {"R", c.r}, {"S", c.s},
          {"P", c.OutH()}, {"Q", c.OutW()}, {"stride_h", c.stride_h}, {"stride_w", c.stride_w},
          {"pad_h", c.pad_h}, {"pad_w", c.pad_w}, {"dilation_h", c.dilation_h},
          {"dilation_w", c.dilation_w}, {"groups", c.groups}, {"bias", c.bias ? 1 : 0}};
}

std::string Problem::OpName() const { return op_ == OpKind::kConv2d ? "conv2d" : "gemm"; }

}  // namespace beast
