// The device model of emu.hpp and main() of an emulated launch: built once
// per test session and linked with each rewritten kernel. main() loads the
// kernel's buffers, runs each of kLaunches' grids in turn, one block after
// another in a seeded shuffled order, each block as its threads' fibers
// (ucontext) switched at barriers, writes the outputs,
// prints the first errors of each kind ("ERROR ..."), each kind's count
// ("KIND count message") and "RESULT errors=N". What it checks and what it
// does not (registers, performance, the hardware's summation order): emu.hpp.
//
// Usage: KERNEL INPUT OUTPUT. INPUT: the buffers in argument order, each as
// int64 size in bytes, int32 kind (0 input, 1 output, 2 workspace), then its
// bytes (inputs only); OUTPUT receives the outputs' bytes in order. Status 0
// without errors, 1 with errors, 2 on bad input.
//
// One concept, the emulated device, in one file of about 500 lines: the
// state main() sets up (buffers, fibers, launches) is the state the models
// of shared memory, cp.async and the warp collectives check.
#include "emu.hpp"

#include <ucontext.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <random>
#include <utility>
#include <vector>

namespace emu {

EmuDim3 thread_idx, block_idx, block_dim, grid_dim;
unsigned char* shared_bytes = nullptr;
long shared_size = 0;

namespace {

// Kernels keep their fragments in arrays of at most a few KiB; the
// collectives put theirs in the warp, not on the stack.
constexpr long kStackBytes = 128 * 1024;

struct Copy {
  long dst;
  const unsigned char* src;  // nullptr: zero fill
  int bytes;
};

struct Fiber {
  ucontext_t context;
  std::unique_ptr<char[]> stack;  // not zeroed: 1024 threads' stacks stay cheap
  EmuDim3 thread_idx;
  int epoch = 0;                          // barrier intervals passed
  std::vector<std::vector<Copy>> groups;  // committed cp.async groups, oldest first
  std::vector<Copy> open;                 // issued since the last commit
  bool done = false;
};

Fiber* current = nullptr;
ucontext_t scheduler;
long progress = 0;  // barrier arrivals and exits: a round without any is a deadlock
long errors = 0;
// Each kind of error (its message) with its count: the first three of a kind
// are printed, the count of every kind at the end.
std::vector<std::pair<const char*, long>> error_kinds;

int Me() { return (int)current->thread_idx.x; }

void Yield() { swapcontext(&current->context, &scheduler); }

struct Barrier {
  int expected = 0, arrived = 0;
  long generation = 0;
};

// Arrives at b; the last thread to arrive runs `last` (a collective's work)
// before it releases the others, so a collective needs a single barrier.
template <class F>
void ArriveAndWait(Barrier& b, F last) {
  const long generation = b.generation;
  ++progress;
  if (++b.arrived == b.expected) {
    last();
    b.arrived = 0;
    ++b.generation;
    return;
  }
  while (b.generation == generation) Yield();
}

// Shadow state of a 2-byte unit of shared memory.
struct Shadow {
  int copy_in_flight = 0;
  int written_epoch = -1;  // -1: never written
  int writer = -1;         // thread of the last store, or the thread that issued the copy
  int read_epoch = -1;
  int reader = -1;  // -2: several threads read it in read_epoch
};
std::vector<Shadow> shadow;

struct Buffer {
  unsigned char* bytes;
  long size;
  bool output;              // an output or a workspace: the kernels write it
  std::vector<int> writes;  // per element of an output; empty for a workspace
};
std::vector<Buffer> buffers;

struct Warp {
  Barrier barrier;
  int op[32];
  unsigned addr[32];
  uint32_t a[32][4], b[32][2];
  uint32_t fragment[32][4];  // ldmatrix results per lane
  float d[32][4];            // mma results per lane
};
std::vector<Warp> warps;
Barrier block_barrier;

Warp& MyWarp() { return warps[Me() / 32]; }
int Lane() { return Me() % 32; }

bool InRange(long byte, long n, const char* what) {
  if (byte < 0 || byte + n > shared_size) {
    Error(what, byte, n);
    return false;
  }
  return true;
}

// Runs a warp collective: the last lane to arrive checks that all 32 are in
// the same collective and runs `work` for all of them.
template <class F>
void Collective(int op, F work) {
  Warp& w = MyWarp();
  w.op[Lane()] = op;
  ArriveAndWait(w.barrier, [&] {
    for (int l = 0; l < 32; ++l)
      if (w.op[l] != op) {
        Error("lanes of a warp in different collectives", op, w.op[l]);
        break;
      }
    work(w);
  });
}

double F16ToDouble(uint16_t h) {
  const int exponent = (h >> 10) & 0x1f, mantissa = h & 0x3ff;
  double v;
  if (exponent == 0x1f)
    v = mantissa ? NAN : INFINITY;
  else if (exponent == 0)
    v = std::ldexp((double)mantissa, -24);
  else
    v = std::ldexp((double)(mantissa | 0x400), exponent - 25);
  return h >> 15 ? -v : v;
}

double Decode16(uint16_t h) {
  return kProgram.storage == kBf16 ? (double)__uint_as_float((uint32_t)h << 16) : F16ToDouble(h);
}

double DecodeTf32(uint32_t u) {
  if (u & 0x1fffu) Error("mma tf32 operand with nonzero low 13 bits (not rounded by cvt)", u);
  return (double)__uint_as_float(u);
}

void Ldmatrix(unsigned r[4], unsigned addr, bool trans) {
  if (addr % 16) Error("ldmatrix row address misaligned", addr);
  CheckRead(addr, 16, "ldmatrix row past the shared memory");
  const int lane = Lane();
  MyWarp().addr[lane] = addr;
  // Lane l gives the address of row l % 8 of matrix l / 8; register m of
  // lane l receives matrix m's row l / 4, columns 2 (l % 4) and the next
  // (.trans: of the transposed matrix).
  Collective(trans ? 2 : 1, [&](Warp& w) {
    for (int l = 0; l < 32; ++l)
      for (int m = 0; m < 4; ++m) {
        uint16_t e[2];
        for (int h = 0; h < 2; ++h) {
          const int row = trans ? 2 * (l % 4) + h : l / 4, col = trans ? l / 4 : 2 * (l % 4) + h;
          const long at = (long)w.addr[m * 8 + row] + 2 * col;
          e[h] = at >= 0 && at + 2 <= shared_size ? *(uint16_t*)(shared_bytes + at) : 0xffff;
        }
        w.fragment[l][m] = e[0] | ((uint32_t)e[1] << 16);
      }
  });
  for (int m = 0; m < 4; ++m) r[m] = MyWarp().fragment[lane][m];
}

// D = A B + C on a 16 x 8 x K fragment, g = lane / 4, t = lane % 4.
template <bool kTf32>
void Mma(Warp& w) {
  constexpr int kK = kTf32 ? 8 : 16;
  double A[16][kK], B[kK][8];
  for (int l = 0; l < 32; ++l) {
    const int g = l / 4, t = l % 4;
    if constexpr (kTf32) {
      // a0 (g, t) a1 (g+8, t) a2 (g, t+4) a3 (g+8, t+4); b0 (k t, n g) b1 (k t+4, n g)
      A[g][t] = DecodeTf32(w.a[l][0]);
      A[g + 8][t] = DecodeTf32(w.a[l][1]);
      A[g][t + 4] = DecodeTf32(w.a[l][2]);
      A[g + 8][t + 4] = DecodeTf32(w.a[l][3]);
      B[t][g] = DecodeTf32(w.b[l][0]);
      B[t + 4][g] = DecodeTf32(w.b[l][1]);
    } else {
      // a0 (g, 2t..2t+1) a1 (g+8, 2t..) a2 (g, 2t+8..) a3 (g+8, 2t+8..);
      // b0 (k 2t..2t+1, n g) b1 (k 2t+8.., n g); the lower half first
      for (int h = 0; h < 2; ++h) {
        auto half = [&](uint32_t r) { return Decode16((uint16_t)(r >> (16 * h))); };
        A[g][2 * t + h] = half(w.a[l][0]);
        A[g + 8][2 * t + h] = half(w.a[l][1]);
        A[g][2 * t + 8 + h] = half(w.a[l][2]);
        A[g + 8][2 * t + 8 + h] = half(w.a[l][3]);
        B[2 * t + h][g] = half(w.b[l][0]);
        B[2 * t + 8 + h][g] = half(w.b[l][1]);
      }
    }
  }
  // c0 c1 (row g, cols 2t, 2t+1), c2 c3 (row g+8, same cols)
  for (int l = 0; l < 32; ++l)
    for (int e = 0; e < 4; ++e) {
      const int row = l / 4 + (e >> 1) * 8, col = 2 * (l % 4) + (e & 1);
      double sum = 0;
      for (int k = 0; k < kK; ++k) sum += A[row][k] * B[k][col];
      w.d[l][e] = (float)((double)w.d[l][e] + sum);
    }
}

int launch_now = 0;  // the index of the launch running

void RunFiber() {
  EmuLaunch(launch_now);
  for (const auto& group : current->groups)
    if (!group.empty()) Error("cp.async copies never waited for");
  if (!current->open.empty()) Error("cp.async copies never committed");
  ++progress;
  current->done = true;
}

bool ReadBuffers(const char* path) {
  FILE* f = std::fopen(path, "rb");
  if (!f) return false;
  int64_t size;
  int32_t output;
  while (std::fread(&size, 8, 1, f) == 1) {
    if (std::fread(&output, 4, 1, f) != 1) return false;
    Buffer b;
    b.size = size;
    b.output = output != 0;
    if (output < 0 || output > 2) return false;
    // 64-byte aligned (cudaMalloc's are at least 256), so that cp.async's
    // alignment check sees the offsets the kernel computes.
    b.bytes = (unsigned char*)std::aligned_alloc(64, (size + 63) / 64 * 64 + 64);
    if (b.output) {
      std::memset(b.bytes, 0xff, size);  // NaN in every storage type
      if (output == 1) b.writes.assign(size / kProgram.out_elem_bytes, 0);
    } else if (std::fread(b.bytes, 1, size, f) != (size_t)size) {
      return false;
    }
    buffers.push_back(std::move(b));
  }
  std::fclose(f);
  return true;
}

// Runs block block_idx; false after a deadlock.
bool RunBlock(std::vector<Fiber>& fibers) {
  std::memset(shared_bytes, 0xff, shared_size);  // NaN in every storage type
  shadow.assign(shared_size / 2, Shadow{});
  block_barrier = Barrier{};
  const int threads = kLaunches[launch_now].threads;
  block_barrier.expected = threads;
  warps.assign(threads / 32, Warp{});
  for (Warp& w : warps) w.barrier.expected = 32;
  for (int t = 0; t < threads; ++t) {
    Fiber& fiber = fibers[t];
    fiber.thread_idx = EmuDim3{(unsigned)t, 0, 0};
    fiber.epoch = 0;
    fiber.groups.clear();
    fiber.open.clear();
    fiber.done = false;
    getcontext(&fiber.context);
    fiber.context.uc_stack.ss_sp = fiber.stack.get();
    fiber.context.uc_stack.ss_size = kStackBytes;
    fiber.context.uc_link = &scheduler;
    makecontext(&fiber.context, RunFiber, 0);
  }
  for (int running = threads; running;) {
    const long before = progress;
    running = 0;
    for (int t = 0; t < threads; ++t) {
      Fiber& fiber = fibers[t];
      if (fiber.done) continue;
      current = &fiber;
      thread_idx = fiber.thread_idx;
      swapcontext(&scheduler, &fiber.context);
      running += !fiber.done;
    }
    current = nullptr;
    if (running && progress == before) {
      Error("deadlock: threads wait at a barrier the others never reach", running);
      return false;
    }
  }
  return true;
}

}  // namespace

void Error(const char* what, long a, long b) {
  ++errors;
  long* count = nullptr;
  for (auto& kind : error_kinds)
    if (kind.first == what) count = &kind.second;
  if (!count) count = &error_kinds.emplace_back(what, 0).second;
  if (++*count > 3) return;
  if (current)
    std::printf("ERROR %s (%ld, %ld) launch %d block (%u,%u,%u) thread %d\n", what, a, b,
                launch_now, block_idx.x, block_idx.y, block_idx.z, Me());
  else
    std::printf("ERROR %s (%ld, %ld) after the launch\n", what, a, b);
}

void CheckRead(long byte, long n, const char* what) {
  if (byte % n) Error("shared read misaligned", byte, n);
  if (!InRange(byte, n, what)) return;
  const int epoch = current->epoch, me = Me();
  for (long u = byte / 2; u < (byte + n) / 2; ++u) {
    Shadow& s = shadow[u];
    if (s.copy_in_flight)
      Error("RAW race: read of an element with a copy in flight", u, epoch);
    else if (s.written_epoch < 0)
      Error("read of a never-written shared element", u);
    else if (s.written_epoch == epoch && s.writer != me)
      Error("RAW race: no barrier between another thread's write and this read", u, epoch);
    if (s.read_epoch != epoch) {
      s.read_epoch = epoch;
      s.reader = me;
    } else if (s.reader != me) {
      s.reader = -2;
    }
  }
}

void CheckWrite(long byte, long n, bool async) {
  if (byte % n) Error(async ? "cp.async dst misaligned" : "shared write misaligned", byte, n);
  if (!InRange(byte, n, async ? "cp.async dst out of range" : "shared write out of range")) return;
  const int epoch = current->epoch, me = Me();
  for (long u = byte / 2; u < (byte + n) / 2; ++u) {
    Shadow& s = shadow[u];
    if (s.copy_in_flight) Error("WAW race: write to an element with a copy in flight", u, epoch);
    if (s.read_epoch == epoch && s.reader != me)
      Error("WAR race: write to an element another thread read in this barrier interval", u, epoch);
    if (s.written_epoch == epoch && s.writer != me)
      Error("WAW race: two threads write one element between barriers", u, epoch);
    s.written_epoch = epoch;
    s.writer = me;
    if (async) s.copy_in_flight = 1;
  }
}

void SyncThreads() {
  ArriveAndWait(block_barrier, [] {});
  ++current->epoch;
}

void Commit() {
  current->groups.push_back(std::move(current->open));
  current->open.clear();
}

void Wait(int n) {
  if (!current->open.empty() && n == 0) Error("wait_group 0 with copies never committed");
  while ((int)current->groups.size() > n) {
    for (const Copy& c : current->groups.front()) {
      if (c.src)
        std::memcpy(shared_bytes + c.dst, c.src, c.bytes);
      else
        std::memset(shared_bytes + c.dst, 0, c.bytes);
      for (long u = c.dst / 2; u < (c.dst + c.bytes) / 2; ++u) {
        shadow[u].copy_in_flight = 0;
        shadow[u].written_epoch = current->epoch;
        shadow[u].writer = Me();
      }
    }
    current->groups.erase(current->groups.begin());
  }
}

void CpAsync(unsigned dst, int buffer, long byte_offset, int src_bytes) {
  const int bytes = kProgram.copy_bytes;
  if (bytes == 0) Error("cp.async called, but the source defines no cp.async helper");
  if (src_bytes != 0 && src_bytes != bytes)
    Error("cp.async src size neither 0 nor the copy's", src_bytes, bytes);
  const unsigned char* from = nullptr;
  if (src_bytes) {
    const Buffer& b = buffers[buffer];
    if (byte_offset % bytes) Error("cp.async src misaligned", byte_offset, bytes);
    if (byte_offset < 0 || byte_offset + bytes > b.size)
      Error("cp.async src outside its buffer", byte_offset, b.size);
    else
      from = b.bytes + byte_offset;
  }
  if (bytes == 0) return;
  CheckWrite(dst, bytes, true);
  if ((long)dst + bytes <= shared_size) current->open.push_back({(long)dst, from, bytes});
}

unsigned char* BufferBytes(int id, long* size, bool* output) {
  if (id < 0 || id >= (int)buffers.size()) {
    std::printf("ERROR the kernel takes more arguments than the driver passed (%d)\n", id);
    std::exit(2);
  }
  *size = buffers[id].size;
  *output = buffers[id].output;
  return buffers[id].bytes;
}

int* WriteCount(int id, long element) {
  return buffers[id].writes.empty() ? nullptr : &buffers[id].writes[element];
}

}  // namespace emu

float beast_f16_to_float(unsigned short h) { return (float)emu::F16ToDouble(h); }

// Round to nearest even, as cvt.rn.f16.f32.
unsigned short beast_float_to_f16(float f) {
  const uint32_t u = __float_as_uint(f);
  const uint16_t sign = (u >> 16) & 0x8000;
  const uint32_t magnitude = u & 0x7fffffffu;
  if (magnitude > 0x7f800000u) return sign | 0x7e00;   // NaN
  if (magnitude >= 0x477ff000u) return sign | 0x7c00;  // rounds to infinity
  if (magnitude < 0x38800000u)                         // subnormal or zero in f16: units of 2^-24
    return sign | (uint16_t)std::nearbyint((double)__uint_as_float(magnitude) * 16777216.0);
  const uint32_t rounded = magnitude + 0xfffu + ((magnitude >> 13) & 1u);
  return sign | (uint16_t)((rounded >> 13) - (112u << 10));
}

// Nearest, ties away from zero, to 10 mantissa bits; the low 13 bits cleared.
unsigned beast_tf32(unsigned x) {
  if ((x & 0x7f800000u) == 0x7f800000u) return x;
  return (x + 0x1000u) & 0xffffe000u;
}

void beast_ldmatrix_x4(unsigned r[4], unsigned addr) { emu::Ldmatrix(r, addr, false); }
void beast_ldmatrix_x4_trans(unsigned r[4], unsigned addr) { emu::Ldmatrix(r, addr, true); }

// mma.sync.aligned.m16n8k16.row.col.f32.{f16|bf16} or m16n8k8 .tf32.
void beast_mma(float c[4], const unsigned a[4], unsigned b0, unsigned b1) {
  using namespace emu;
  const int lane = Lane();
  Warp& mine = MyWarp();
  for (int i = 0; i < 4; ++i) mine.a[lane][i] = a[i];
  mine.b[lane][0] = b0;
  mine.b[lane][1] = b1;
  for (int e = 0; e < 4; ++e) mine.d[lane][e] = c[e];
  Collective(3, [](Warp& w) { kProgram.storage == kTf32 ? Mma<true>(w) : Mma<false>(w); });
  for (int e = 0; e < 4; ++e) c[e] = mine.d[lane][e];
}

int main(int argc, char** argv) {
  using namespace emu;
  if (argc != 3 || !ReadBuffers(argv[1])) {
    std::printf("usage: %s INPUT OUTPUT (the buffers as emulation.py writes them)\n", argv[0]);
    return 2;
  }
  long max_threads = 0, max_shared = 0;
  for (int i = 0; i < kLaunchCount; ++i) {
    if (kLaunches[i].threads % 32) {
      std::printf("ERROR %d threads in launch %d: not whole warps\n", kLaunches[i].threads, i);
      return 2;
    }
    max_threads = std::max<long>(max_threads, kLaunches[i].threads);
    max_shared = std::max(max_shared, kLaunches[i].shared_bytes);
  }
  std::vector<unsigned char> shared(max_shared + 16);
  shared_bytes = shared.data();
  std::vector<Fiber> fibers(max_threads);
  for (Fiber& fiber : fibers) fiber.stack.reset(new char[kStackBytes]);
  // A deadlock leaves fibers mid-kernel; past 10000 errors the rest says nothing new.
  bool go_on = true;
  for (launch_now = 0; launch_now < kLaunchCount && go_on; ++launch_now) {
    const Launch& l = kLaunches[launch_now];
    shared_size = l.shared_bytes;
    block_dim = EmuDim3{(unsigned)l.threads, 1, 1};
    grid_dim = EmuDim3{(unsigned)l.grid_x, (unsigned)l.grid_y, (unsigned)l.grid_z};
    // The hardware runs a grid's blocks in any order: a seeded shuffle, so
    // that a kernel relying on an order (split-K's last block to arrive
    // being the last split) fails here, the same way on every run.
    std::vector<EmuDim3> blocks;
    for (long z = 0; z < l.grid_z; ++z)
      for (long y = 0; y < l.grid_y; ++y)
        for (long x = 0; x < l.grid_x; ++x)
          blocks.push_back(EmuDim3{(unsigned)x, (unsigned)y, (unsigned)z});
    std::shuffle(blocks.begin(), blocks.end(), std::mt19937(1 + launch_now));
    for (size_t b = 0; b < blocks.size() && go_on; ++b) {
      block_idx = blocks[b];
      go_on = RunBlock(fibers) && errors <= 10000;
    }
  }
  long unwritten = 0;
  FILE* out = std::fopen(argv[2], "wb");
  for (const Buffer& b : buffers)
    if (!b.writes.empty()) {  // an output
      for (int w : b.writes) unwritten += w == 0;
      std::fwrite(b.bytes, 1, b.size, out);
    }
  std::fclose(out);
  if (unwritten) Error("output elements never written", unwritten);
  for (const auto& [what, count] : error_kinds) std::printf("KIND %ld %s\n", count, what);
  std::printf("RESULT errors=%ld\n", errors);
  return errors ? 1 : 0;
}
