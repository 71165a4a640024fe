// CPU model of the CUDA device features the tensor-core templates use
// (gemm/mma.cu.j2, conv2d/implicit_gemm_mma.cu.j2, _common/mma.j2): what a
// rendered kernel, rewritten by cuda_to_cpp.py, compiles against. emu.cpp
// implements it (built once, linked with each kernel) and runs the launch:
//  - one fiber per CUDA thread, run in turn and switched only at barriers:
//    __syncthreads, and the warp collectives (ldmatrix .x4 [.trans],
//    mma.sync m16n8k16 f16/bf16 or m16n8k8 tf32), which all 32 lanes must
//    reach together; a barrier that nobody can pass is a deadlock;
//  - cp.async lands at the cp.async.wait_group that must complete it, not
//    before, so a read the hardware might serve before the copy is a race;
//  - shared memory only through emu::SharedPtr, with shadow state per 2-byte
//    unit: reading a unit a copy is still filling or nobody wrote, a read and
//    a write (or two writes) by different threads in one barrier interval,
//    misaligned or out-of-range accesses are errors;
//  - global memory only through emu::GlobalPtr: out-of-bounds accesses are
//    errors, and each output element must be written exactly once; a
//    workspace (split-K's partials and arrival counters) starts as NaN in
//    every byte, as uninitialised device memory may, so a kernel that relies
//    on it being zero fails; atomicAdd is a plain read-modify-write and
//    __threadfence does nothing, since blocks run one after another;
//  - fragments follow the PTX ISA's layouts (9.7.14.5.7: m16n8k16 .f16/.bf16,
//    m16n8k8 .tf32); a TF32 operand whose low 13 bits are not zero did not go
//    through cvt.rna and is an error.
// It does not check register pressure, occupancy or performance (bank
// conflicts, coalescing), nor the hardware's real accumulation order: each
// mma sums its products in double and rounds once to f32, so results are
// compared with a tolerance for f32, and exactly only where every partial
// sum is an integer (the f16/bf16 test data). Memory ordering is modelled at
// barrier granularity within a block; blocks run one after another, in a
// seeded shuffled order (the hardware promises none).
//
// The kernel's translation unit (emulation.py writes it) defines
// emu::kProgram, emu::kLaunches and EmuLaunch(i), launch i's kernel called
// with emu::Arg<T>(argument).
#ifndef BEAST_TESTS_TENSOR_CORE_EMULATOR_EMU_HPP_
#define BEAST_TESTS_TENSOR_CORE_EMULATOR_EMU_HPP_

#include <cstdint>
#include <cstring>
#include <type_traits>

// CUDA's declaration keywords mean nothing on the CPU.
#define __global__
#define __device__
#define __forceinline__ inline
#define __launch_bounds__(...)
#define __restrict__
#define __align__(x)

struct EmuDim3 {
  unsigned x = 0, y = 0, z = 0;
};
inline int min(int a, int b) { return a < b ? a : b; }
inline int max(int a, int b) { return a > b ? a : b; }
inline unsigned __float_as_uint(float f) {
  unsigned u;
  std::memcpy(&u, &f, 4);
  return u;
}
inline float __uint_as_float(unsigned u) {
  float f;
  std::memcpy(&f, &u, 4);
  return f;
}

void EmuLaunch(int launch);  // the kernel's translation unit: launch's kernel with its arguments

namespace emu {

// The mma's input type (the problem's storage: f32 means math=tf32).
enum MmaInput { kF16, kBf16, kTf32 };

// What the rendered source's PTX says, and its output's element size.
struct Program {
  MmaInput storage;
  int copy_bytes;  // of one cp.async; 0 when the source has no cp.async helper
  int out_elem_bytes;
};
extern const Program kProgram;

// One launch as the space computes it (the stages `launch: before:` runs
// for the config, then the main kernel): EmuLaunch(i) calls launch i's
// kernel with its arguments.
struct Launch {
  long shared_bytes, grid_x, grid_y, grid_z;
  int threads;
};
extern const Launch kLaunches[];
extern const int kLaunchCount;

extern EmuDim3 thread_idx, block_idx, block_dim, grid_dim;
extern unsigned char* shared_bytes;
extern long shared_size;

void Error(const char* what, long a = 0, long b = 0);
void CheckRead(long byte, long n, const char* what);
// A store, or the issue of a cp.async (async: the unit is in flight until the
// issuing thread's wait_group).
void CheckWrite(long byte, long n, bool async);
void SyncThreads();
void Commit();
void Wait(int n);  // cp.async.wait_group n
void CpAsync(unsigned dst, int buffer, long byte_offset, int src_bytes);
unsigned char* BufferBytes(int id, long* size, bool* output);
int* WriteCount(int id, long element);  // nullptr for a workspace

template <class T>
struct SharedRef {
  long byte;
  bool Inside() const { return byte >= 0 && byte + (long)sizeof(T) <= shared_size; }
  operator T() const {
    CheckRead(byte, sizeof(T), "shared read out of range");
    T v{};
    if (Inside()) std::memcpy(&v, shared_bytes + byte, sizeof(T));
    return v;
  }
  const SharedRef& operator=(T v) const {
    CheckWrite(byte, sizeof(T), false);
    if (Inside()) std::memcpy(shared_bytes + byte, &v, sizeof(T));
    return *this;
  }
};

// A pointer into the dynamic shared memory (a byte offset).
template <class T>
struct SharedPtr {
  long byte;
  SharedPtr operator+(long i) const { return SharedPtr{byte + i * (long)sizeof(T)}; }
  SharedPtr operator-(long i) const { return SharedPtr{byte - i * (long)sizeof(T)}; }
  SharedRef<T> operator[](long i) const { return SharedRef<T>{byte + i * (long)sizeof(T)}; }
  SharedRef<T> operator*() const { return SharedRef<T>{byte}; }
};

// A shared pointer read as another element type (a table of 8-byte entries
// after the rings): it must be aligned to the new element.
template <class U, class T>
SharedPtr<U> SharedCast(SharedPtr<T> p) {
  if (p.byte % (long)sizeof(U)) Error("shared pointer cast to a wider element, misaligned", p.byte);
  return SharedPtr<U>{p.byte};
}

template <class T>
struct GlobalRef {
  T* p;         // nullptr: an out-of-bounds access, already reported
  int* writes;  // the output element's store count; nullptr: not an output
  const GlobalRef& operator=(T v) const {
    if (!p) return *this;
    if (writes && ++*writes > 1) Error("global element written twice", 0, *writes);
    *p = v;
    return *this;
  }
  operator T() const { return p ? *p : T{}; }
};

// A pointer into kernel argument `id`: element `offset` of its n.
template <class T>
struct GlobalPtr {
  using U = std::remove_const_t<T>;
  int id;
  T* base;
  long n, offset;
  GlobalPtr operator+(long i) const { return GlobalPtr{id, base, n, offset + i}; }
  GlobalPtr operator-(long i) const { return GlobalPtr{id, base, n, offset - i}; }
  auto operator[](long i) const {
    const long at = offset + i;
    if (at < 0 || at >= n) {
      Error("global access out of bounds", at, n);
      if constexpr (std::is_const_v<T>)
        return U{};
      else
        return GlobalRef<U>{nullptr, nullptr};
    }
    if constexpr (std::is_const_v<T>)
      return base[at];
    else
      return GlobalRef<U>{base + at, WriteCount(id, at)};
  }
  auto operator*() const { return (*this)[0]; }
};

// Kernel argument `id` as the driver passed it (inputs const, outputs not).
template <class T>
GlobalPtr<T> Arg(int id) {
  long size;
  bool output;
  unsigned char* bytes = BufferBytes(id, &size, &output);
  if (output == std::is_const_v<T>) Error("an argument's const-ness is not the driver's", id);
  return GlobalPtr<T>{id, (T*)bytes, size / (long)sizeof(T), 0};
}

}  // namespace emu

#define threadIdx (emu::thread_idx)
#define blockIdx (emu::block_idx)
#define blockDim (emu::block_dim)
#define gridDim (emu::grid_dim)
#define __syncthreads() emu::SyncThreads()

// One block runs at a time: every store is visible to the next block.
inline void __threadfence() {}
template <class T>
std::remove_const_t<T> __ldcg(emu::GlobalPtr<T> p) {
  return p[0];
}
inline float atomicAdd(emu::GlobalPtr<float> p, float v) {
  const float old = p[0];
  p[0] = old + v;
  return old;
}

// ---- the helpers whose PTX cuda_to_cpp.py checks and replaces ----

float beast_f16_to_float(unsigned short h);  // cvt.f32.f16
unsigned short beast_float_to_f16(float f);  // cvt.rn.f16.f32
unsigned beast_tf32(unsigned x);             // cvt.rna.tf32.f32
void beast_ldmatrix_x4(unsigned r[4], unsigned addr);
void beast_ldmatrix_x4_trans(unsigned r[4], unsigned addr);
void beast_mma(float c[4], const unsigned a[4], unsigned b0, unsigned b1);

template <class T>
unsigned beast_smem_addr(emu::SharedPtr<T> p) {
  if (p.byte < 0 || p.byte > emu::shared_size)
    emu::Error("smem address outside the dynamic shared memory", p.byte);
  return (unsigned)p.byte;
}

// st.global.b32 of two 16-bit outputs, st.global.v2.f32 of two f32 ones: one
// store of both, which the hardware requires aligned to its size.
template <class T>
void beast_st_pair(emu::GlobalPtr<T> p, T lo, T hi) {
  static_assert(!std::is_const_v<T>, "a store writes an output");
  if (p.offset % 2 != 0) emu::Error("a pair store not aligned to its size", p.offset);
  p[0] = lo;
  p[1] = hi;
}

// cp.async.{ca|cg}.shared.global [dst], [src], kProgram.copy_bytes, src_bytes.
template <class T>
void beast_cp_async(unsigned dst, emu::GlobalPtr<T> src, int src_bytes) {
  static_assert(std::is_const_v<T>, "cp.async reads an input");
  emu::CpAsync(dst, src.id, src.offset * (long)sizeof(T), src_bytes);
}

#endif  // BEAST_TESTS_TENSOR_CORE_EMULATOR_EMU_HPP_
