// Encoding and decoding of the compile worker's messages (compile_protocol.hpp).
#include "beast/compile/compile_protocol.hpp"

#include "beast/core/error.hpp"
#include "beast/worker/launch_wire.hpp"
#include "beast/worker/worker_wire.hpp"

namespace beast {
namespace {

WireReader Open(const std::string& payload, CompileMessage expected) {
  if (payload.empty() || static_cast<uint8_t>(payload[0]) != static_cast<uint8_t>(expected)) {
    throw Error(ErrorCode::kInternal,
                "compile protocol: message " +
                    (payload.empty() ? std::string("(empty)")
                                     : std::to_string(static_cast<uint8_t>(payload[0]))) +
                    " where " + std::to_string(static_cast<int>(expected)) + " was expected");
  }
  WireReader r(payload);
  r.U8();
  return r;
}

}  // namespace

std::string EncodeCompile(const CompileRequest& q) {
  WireWriter w;
  w.U8(static_cast<uint8_t>(CompileMessage::kCompile));
  w.Str(q.problem_key);
  w.Str(q.source);
  w.Str(q.kernel_name);
  WriteGeometry(w, q.geometry);
  WriteSequence(w, q.stages);
  w.U8(q.warm);
  return w.bytes();
}

CompileRequest DecodeCompile(const std::string& payload) {
  WireReader r = Open(payload, CompileMessage::kCompile);
  CompileRequest q;
  q.problem_key = r.Str();
  q.source = r.Str();
  q.kernel_name = r.Str();
  q.geometry = ReadGeometry(r);
  q.stages = ReadSequence(r);
  q.warm = r.U8() != 0;
  r.ExpectEnd();
  return q;
}

std::string EncodeCompiled(const CompileReply& reply) {
  WireWriter w;
  w.U8(static_cast<uint8_t>(CompileMessage::kCompiled));
  w.U8(static_cast<uint8_t>(reply.result));
  w.U8(reply.built);
  w.F64(reply.compile_ms);
  w.F64(reply.warm_ms);
  return w.bytes();
}

CompileReply DecodeCompiled(const std::string& payload) {
  WireReader r = Open(payload, CompileMessage::kCompiled);
  CompileReply reply;
  uint8_t result = r.U8();
  if (result > static_cast<uint8_t>(CompileReply::Result::kNotStored)) {
    throw Error(ErrorCode::kInternal, "compile protocol: unknown result " + std::to_string(result));
  }
  reply.result = static_cast<CompileReply::Result>(result);
  reply.built = r.U8() != 0;
  reply.compile_ms = r.F64();
  reply.warm_ms = r.F64();
  r.ExpectEnd();
  return reply;
}

}  // namespace beast
