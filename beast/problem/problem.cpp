// Problem parsing, validation and canonical keys (see problem.hpp).
#include "beast/problem/problem.hpp"

#include <cerrno>
#include <cstdlib>
#include <limits>
#include <set>
#include <sstream>
#include <utility>
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

const char* DTypeName(DType dtype) {
  switch (dtype) {
    case DType::kF32:
      return "f32";
    case DType::kF64:
      return "f64";
    case DType::kF16:
      return "f16";
    case DType::kBF16:
      return "bf16";
  }
  return "f32";
}

std::optional<DType> ParseDType(const std::string& name) {
  for (DType d : {DType::kF32, DType::kF64, DType::kF16, DType::kBF16})
    if (name == DTypeName(d)) return d;
  return std::nullopt;
}

int ComputeBytes(DType dtype) { return dtype == DType::kF64 ? 8 : 4; }

int DTypeBytes(DType dtype) {
  switch (dtype) {
    case DType::kF64:
      return 8;
    case DType::kF16:
    case DType::kBF16:
      return 2;
    case DType::kF32:
      break;
  }
  return 4;
}

namespace {

// One KEY=VALUE of a problem's text, and how to read its value.
struct Item {
  const std::string& text;  // the whole problem, for messages
  std::string key, value;
  int64_t Int() const { return ParseInt(text, key, value); }
  bool Flag() const { return ParseFlag(text, key, value); }
  [[noreturn]] void Fail(const std::string& why) const { ::beast::Fail(text, why); }
};

// A key an op takes: whether it must be given, and where its value goes.
template <typename Shape>
struct KeyRule {
  const char* name;
  bool required;
  void (*set)(const Item& item, Shape* shape);
};

template <typename Shape>
void SetDtype(const Item& item, Shape*) {
  // Only checked here: Parse reads the dtype into the problem itself.
  if (!ParseDType(item.value))
    item.Fail("dtype \"" + item.value + "\" is not one of f32, f64, f16, bf16");
}

template <typename Shape>
void SetMath(const Item& item, Shape*) {
  // Only checked here: Parse reads the math mode into the problem itself.
  if (item.value != "fp32" && item.value != "tf32")
    item.Fail("math \"" + item.value + "\" is not fp32 or tf32");
}

// The VALUE of `key`=VALUE in a problem's KEY=VALUE list; "" when absent.
// (The problem-wide keys, dtype and math, are read here once the rules have
// checked them.)
std::string ValueOfBody(const std::string& body, const std::string& key) {
  std::stringstream items(body);
  std::string part;
  while (std::getline(items, part, ',')) {
    if (part.rfind(key + "=", 0) == 0) return part.substr(key.size() + 1);
  }
  return "";
}

const KeyRule<Conv2dShape> kConvKeys[] = {
    {"N", true, [](const Item& i, Conv2dShape* c) { c->n = i.Int(); }},
    {"C", true, [](const Item& i, Conv2dShape* c) { c->c = i.Int(); }},
    {"H", true, [](const Item& i, Conv2dShape* c) { c->h = i.Int(); }},
    {"W", true, [](const Item& i, Conv2dShape* c) { c->w = i.Int(); }},
    {"K", true, [](const Item& i, Conv2dShape* c) { c->k = i.Int(); }},
    {"R", true, [](const Item& i, Conv2dShape* c) { c->r = i.Int(); }},
    {"S", true, [](const Item& i, Conv2dShape* c) { c->s = i.Int(); }},
    {"stride", false, [](const Item& i, Conv2dShape* c) { c->stride_h = c->stride_w = i.Int(); }},
    {"stride_h", false, [](const Item& i, Conv2dShape* c) { c->stride_h = i.Int(); }},
    {"stride_w", false, [](const Item& i, Conv2dShape* c) { c->stride_w = i.Int(); }},
    {"pad", false, [](const Item& i, Conv2dShape* c) { c->pad_h = c->pad_w = i.Int(); }},
    {"pad_h", false, [](const Item& i, Conv2dShape* c) { c->pad_h = i.Int(); }},
    {"pad_w", false, [](const Item& i, Conv2dShape* c) { c->pad_w = i.Int(); }},
    {"dilation", false,
     [](const Item& i, Conv2dShape* c) { c->dilation_h = c->dilation_w = i.Int(); }},
    {"dilation_h", false, [](const Item& i, Conv2dShape* c) { c->dilation_h = i.Int(); }},
    {"dilation_w", false, [](const Item& i, Conv2dShape* c) { c->dilation_w = i.Int(); }},
    {"groups", false, [](const Item& i, Conv2dShape* c) { c->groups = i.Int(); }},
    {"bias", false, [](const Item& i, Conv2dShape* c) { c->bias = i.Flag(); }},
    {"layout", false,
     [](const Item& i, Conv2dShape* c) {
       if (i.value == "NCHW") {
         c->layout = Layout::kNCHW;
       } else if (i.value == "NHWC") {
         c->layout = Layout::kNHWC;
       } else {
         i.Fail("layout \"" + i.value + "\" is not NCHW or NHWC");
       }
     }},
    {"dtype", false, SetDtype<Conv2dShape>},
    {"math", false, SetMath<Conv2dShape>},
};

const KeyRule<GemmShape> kGemmKeys[] = {
    {"M", true, [](const Item& i, GemmShape* g) { g->m = i.Int(); }},
    {"N", true, [](const Item& i, GemmShape* g) { g->n = i.Int(); }},
    {"K", true, [](const Item& i, GemmShape* g) { g->k = i.Int(); }},
    {"transA", false, [](const Item& i, GemmShape* g) { g->trans_a = i.Flag(); }},
    {"transB", false, [](const Item& i, GemmShape* g) { g->trans_b = i.Flag(); }},
    {"trans_a", false, [](const Item& i, GemmShape* g) { g->trans_a = i.Flag(); }},
    {"trans_b", false, [](const Item& i, GemmShape* g) { g->trans_b = i.Flag(); }},
    {"layout", false,
     [](const Item& i, GemmShape* g) {
       if (i.value == "row") {
         g->col_major = false;
       } else if (i.value == "col") {
         g->col_major = true;
       } else {
         i.Fail("layout \"" + i.value + "\" is not row or col");
       }
     }},
    {"dtype", false, SetDtype<GemmShape>},
    {"math", false, SetMath<GemmShape>},
};

// Reads the KEY=VALUE list `body` of op `op` into *shape by `rules`; every
// key once, every required key given.
template <typename Shape, size_t N>
void ReadKeys(const std::string& text, const std::string& op, const std::string& body,
              const KeyRule<Shape> (&rules)[N], Shape* shape) {
  std::set<std::string> seen;
  std::stringstream items(body);
  std::string part;
  while (std::getline(items, part, ',')) {
    auto eq = part.find('=');
    if (eq == std::string::npos || eq == 0) Fail(text, "expected KEY=VALUE, got \"" + part + "\"");
    const Item item{text, part.substr(0, eq), part.substr(eq + 1)};
    const KeyRule<Shape>* rule = nullptr;
    for (const auto& r : rules) rule = item.key == r.name ? &r : rule;
    if (!rule) {
      std::vector<std::string> known;
      for (const auto& r : rules) known.push_back(r.name);
      Fail(text, "unknown key \"" + item.key + "\" for " + op + " (known: " + Join(known) + ")");
    }
    if (!seen.insert(item.key).second) Fail(text, "key \"" + item.key + "\" given twice");
    rule->set(item, shape);
  }
  for (const auto& r : rules) {
    if (r.required && !seen.count(r.name)) Fail(text, std::string("missing ") + r.name);
  }
  // Synonyms (GEMM's transA and trans_a) name one value.
  if (seen.count("transA") && seen.count("trans_a")) Fail(text, "transA and trans_a both given");
  if (seen.count("transB") && seen.count("trans_b")) Fail(text, "transB and trans_b both given");
  // A convolution's stride, pad or dilation for both axes and for one: which
  // one won would depend on their order.
  for (const char* both : {"stride", "pad", "dilation"}) {
    for (const char* axis : {"_h", "_w"}) {
      const std::string one = std::string(both) + axis;
      if (seen.count(both) && seen.count(one))
        Fail(text, std::string(both) + " and " + one + " both given (give " + both + "_h and " +
                       both + "_w)");
    }
  }
}

}  // namespace

std::string ProblemFilterKey(const std::string& text) {
  if (text.rfind("kt:", 0) == 0) return text;  // imported: its key names it as recorded
  return Problem::Parse(text).Key();
}

Problem Problem::Parse(const std::string& text) {
  auto colon = text.find(':');
  if (colon == std::string::npos) {
    Fail(text, "expected OP:KEY=VALUE,... with OP conv2d or gemm");
  }
  const std::string op = text.substr(0, colon), body = text.substr(colon + 1);
  Problem p;
  if (op == "conv2d") {
    p.op_ = OpKind::kConv2d;
    ReadKeys(text, op, body, kConvKeys, &p.conv_);
  } else if (op == "gemm") {
    p.op_ = OpKind::kGemm;
    ReadKeys(text, op, body, kGemmKeys, &p.gemm_);
  } else {
    Fail(text, "unknown op \"" + op + "\" (known: conv2d gemm)");
  }
  p.dtype_ = ParseDType(ValueOfBody(body, "dtype")).value_or(DType::kF32);
  p.tf32_ = ValueOfBody(body, "math") == "tf32";
  try {
    p.Validate();
  } catch (const Error& e) {
    Fail(text, e.what());
  }
  return p;
}

Problem Problem::Conv2d(const Conv2dShape& shape, DType dtype, bool tf32) {
  Problem p;
  p.op_ = OpKind::kConv2d;
  p.dtype_ = dtype;
  p.tf32_ = tf32;
  p.conv_ = shape;
  p.Validate();
  return p;
}

Problem Problem::Gemm(const GemmShape& shape, DType dtype, bool tf32) {
  Problem p;
  p.op_ = OpKind::kGemm;
  p.dtype_ = dtype;
  p.tf32_ = tf32;
  p.gemm_ = shape;
  p.Validate();
  return p;
}

void Problem::Validate() const {
  if (tf32_ && dtype_ != DType::kF32)
    throw Error(ErrorCode::kBadArgument, std::string("math=tf32 is for f32 problems, not ") +
                                             DTypeName(dtype_) +
                                             " (f16 and bf16 run on tensor cores as they are)");
  auto positive = [](int64_t v, const char* name) {
    if (v <= 0)
      throw Error(ErrorCode::kBadArgument,
                  std::string(name) + " must be positive, not " + std::to_string(v));
  };
  // Every size, stride, pad and dilation fits an int, as kernels index with
  // ints; and so the output extent below cannot overflow.
  auto fits = [](int64_t v, const char* name) {
    if (v > std::numeric_limits<int32_t>::max())
      throw Error(ErrorCode::kBadArgument, std::string(name) + "=" + std::to_string(v) +
                                               " is more than " +
                                               std::to_string(std::numeric_limits<int32_t>::max()));
  };
  if (op_ == OpKind::kGemm) {
    positive(gemm_.m, "M");
    positive(gemm_.n, "N");
    positive(gemm_.k, "K");
    const std::pair<int64_t, const char*> sizes[] = {
        {gemm_.m, "M"}, {gemm_.n, "N"}, {gemm_.k, "K"}};
    for (const auto& [v, name] : sizes) fits(v, name);
    return;
  }
  const Conv2dShape& c = conv_;
  const std::pair<int64_t, const char*> sizes[] = {{c.n, "N"},
                                                   {c.c, "C"},
                                                   {c.h, "H"},
                                                   {c.w, "W"},
                                                   {c.k, "K"},
                                                   {c.r, "R"},
                                                   {c.s, "S"},
                                                   {c.stride_h, "stride_h"},
                                                   {c.stride_w, "stride_w"},
                                                   {c.pad_h, "pad_h"},
                                                   {c.pad_w, "pad_w"},
                                                   {c.dilation_h, "dilation_h"},
                                                   {c.dilation_w, "dilation_w"},
                                                   {c.groups, "groups"}};
  for (const auto& [v, name] : sizes) fits(v, name);
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
  if (c.pad_h < 0 || c.pad_w < 0)
    throw Error(ErrorCode::kBadArgument, "padding must not be negative");
  if (c.c % c.groups != 0 || c.k % c.groups != 0) {
    throw Error(ErrorCode::kBadArgument, "groups=" + std::to_string(c.groups) + " must divide C=" +
                                             std::to_string(c.c) + " and K=" + std::to_string(c.k));
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
    o << "gemm:M=" << gemm_.m << ",N=" << gemm_.n << ",K=" << gemm_.k << ",transA=" << gemm_.trans_a
      << ",transB=" << gemm_.trans_b;
    if (gemm_.col_major) o << ",layout=col";  // row-major keys stay as they always were
    o << ",dtype=" << DTypeName(dtype_);
    if (tf32_) o << ",math=tf32";  // exact-FP32 keys stay as they always were
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
  o << ",layout=" << LayoutName(c.layout) << ",dtype=" << DTypeName(dtype_);
  if (tf32_) o << ",math=tf32";
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
      return {{"M", g.n},
              {"N", g.m},
              {"K", g.k},
              {"trans_a", g.trans_b},
              {"trans_b", g.trans_a},
              {"col_major", 1},
              {"dtype_bytes", DTypeBytes(dtype_)},
              {"compute_bytes", ComputeBytes(dtype_)},
              {"tf32", tf32_ ? 1 : 0}};
    }
    return {{"M", g.m},
            {"N", g.n},
            {"K", g.k},
            {"trans_a", g.trans_a},
            {"trans_b", g.trans_b},
            {"col_major", 0},
            {"dtype_bytes", DTypeBytes(dtype_)},
            {"compute_bytes", ComputeBytes(dtype_)},
            {"tf32", tf32_ ? 1 : 0}};
  }
  const Conv2dShape& c = conv_;
  return {{"N", c.n},
          {"C", c.c},
          {"H", c.h},
          {"W", c.w},
          {"K", c.k},
          {"R", c.r},
          {"S", c.s},
          {"P", c.OutH()},
          {"Q", c.OutW()},
          {"stride_h", c.stride_h},
          {"stride_w", c.stride_w},
          {"pad_h", c.pad_h},
          {"pad_w", c.pad_w},
          {"dilation_h", c.dilation_h},
          {"dilation_w", c.dilation_w},
          {"groups", c.groups},
          {"bias", c.bias ? 1 : 0},
          {"nhwc", c.layout == Layout::kNHWC ? 1 : 0},
          {"dtype_bytes", DTypeBytes(dtype_)},
          {"compute_bytes", ComputeBytes(dtype_)},
          {"tf32", tf32_ ? 1 : 0}};
}

std::string Problem::OpName() const { return op_ == OpKind::kConv2d ? "conv2d" : "gemm"; }

}  // namespace beast
