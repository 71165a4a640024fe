/* beast_program_cache.c: OpenCL program binaries kept on disk, so that a
 * process (or context) after the first loads the kernels instead of
 * compiling them again. An entry is named by a 128-bit hash of the source,
 * the build options, and the device's name, driver and platform versions
 * (another driver gets other entries), and holds that hash again and a
 * checksum of the binary: a damaged, truncated or foreign entry reads as
 * absent, is rebuilt from source and replaced, never trusted. Entries are
 * written to a temporary file and renamed into place, so a reader sees a
 * whole entry or none. It is a cache: a folder that cannot be made, read or
 * written only means compiling every time, and so does one that another user
 * owns or that others may write to (they could plant kernels there). POSIX. */
#define _POSIX_C_SOURCE 200809L /* mkstemp, fdopen */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "beast_runtime.h"

static const char kMagic[8] = {'B', 'E', 'A', 'S', 'T', 'P', 'B', '1'};
#define HEADER_BYTES 40 /* magic, key (2 x 8), binary size, binary checksum */
#define MAX_BINARY_BYTES ((uint64_t)1 << 30)

/* FNV-1a 64 continued over data, then a NUL so that fields cannot run together. */
static uint64_t Fnv(uint64_t h, const void* data, size_t n) {
  const unsigned char* p = (const unsigned char*)data;
  for (size_t i = 0; i < n; ++i) h = (h ^ p[i]) * 0x100000001b3ULL;
  return (h ^ 0) * 0x100000001b3ULL;
}

static void Key(const beast_context* ctx, const char* source, const char* options,
                uint64_t key[2]) {
  const char* fields[5] = {source, options, ctx->device_name, ctx->device_driver,
                           ctx->platform_version};
  /* Two FNV-1a streams from different offsets: 128 bits against collisions. */
  key[0] = 0xcbf29ce484222325ULL;
  key[1] = 0x84222325cbf29ce4ULL;
  for (int i = 0; i < 5; ++i) {
    key[0] = Fnv(key[0], fields[i], strlen(fields[i]));
    key[1] = Fnv(key[1] ^ (uint64_t)(i + 1), fields[i], strlen(fields[i]));
  }
}

static void EntryPath(const beast_context* ctx, const uint64_t key[2], char* path, size_t len) {
  snprintf(path, len, "%s/%016llx%016llx.bin", ctx->cache_dir, (unsigned long long)key[0],
           (unsigned long long)key[1]);
}

/* The entry's binary when the file is whole and is the entry for key; NULL
 * otherwise (*existed says whether there was a file to read at all). */
static unsigned char* ReadEntry(const char* path, const uint64_t key[2], size_t* size,
                                int* existed) {
  FILE* file = fopen(path, "rb");
  *existed = file != NULL;
  if (!file) return NULL;
  unsigned char header[HEADER_BYTES];
  uint64_t fields[4];
  unsigned char* binary = NULL;
  if (fread(header, 1, sizeof header, file) == sizeof header &&
      memcmp(header, kMagic, sizeof kMagic) == 0) {
    memcpy(fields, header + 8, sizeof fields);
    if (fields[0] == key[0] && fields[1] == key[1] && fields[2] > 0 &&
        fields[2] <= MAX_BINARY_BYTES) {
      binary = (unsigned char*)malloc((size_t)fields[2] + 1);
      int extra = 0;
      if (!binary || fread(binary, 1, (size_t)fields[2], file) != (size_t)fields[2] ||
          fread(&extra, 1, 1, file) != 0 ||
          Fnv(0xcbf29ce484222325ULL, binary, (size_t)fields[2]) != fields[3]) {
        free(binary); /* short, long or changed: not this entry */
        binary = NULL;
      } else {
        *size = (size_t)fields[2];
      }
    }
  }
  fclose(file);
  return binary;
}

/* mkdir -p, private to the user: a shared folder would let others swap kernels. */
static int MakeFolder(const char* dir) {
  char path[sizeof(((beast_context*)0)->cache_dir)];
  snprintf(path, sizeof path, "%s", dir);
  for (char* p = path + 1; *p; ++p) {
    if (*p != '/') continue;
    *p = '\0';
    if (mkdir(path, 0700) != 0 && errno != EEXIST) return 0;
    *p = '/';
  }
  return mkdir(path, 0700) == 0 || errno == EEXIST;
}

/* Whether dir is a folder of this user's that nobody else may write to. */
static int FolderIsPrivate(const char* dir) {
  struct stat st;
  return stat(dir, &st) == 0 && S_ISDIR(st.st_mode) && st.st_uid == geteuid() &&
         (st.st_mode & (S_IWGRP | S_IWOTH)) == 0;
}

/* ctx->device's binary of program, which may be built for several devices of
 * a caller's context (beast_context_create_opencl); NULL when there is none. */
static unsigned char* DeviceBinary(const beast_context* ctx, cl_program program, size_t* size) {
  cl_uint count = 0;
  if (clGetProgramInfo(program, CL_PROGRAM_NUM_DEVICES, sizeof count, &count, NULL) != CL_SUCCESS ||
      count == 0) {
    return NULL;
  }
  cl_device_id* devices = (cl_device_id*)calloc(count, sizeof(cl_device_id));
  size_t* sizes = (size_t*)calloc(count, sizeof(size_t));
  unsigned char** binaries = (unsigned char**)calloc(count, sizeof(unsigned char*));
  unsigned char* binary = NULL;
  cl_uint at = count;
  if (devices && sizes && binaries &&
      clGetProgramInfo(program, CL_PROGRAM_DEVICES, count * sizeof(cl_device_id), devices, NULL) ==
          CL_SUCCESS &&
      clGetProgramInfo(program, CL_PROGRAM_BINARY_SIZES, count * sizeof(size_t), sizes, NULL) ==
          CL_SUCCESS) {
    for (cl_uint i = 0; i < count; ++i) {
      if (devices[i] == ctx->device) at = i;
    }
  }
  if (at < count && sizes[at] > 0 && sizes[at] <= MAX_BINARY_BYTES) {
    /* NULL entries are skipped: only this device's binary is copied. */
    binaries[at] = binary = (unsigned char*)malloc(sizes[at]);
    if (binary && clGetProgramInfo(program, CL_PROGRAM_BINARIES, count * sizeof(unsigned char*),
                                   binaries, NULL) == CL_SUCCESS) {
      *size = sizes[at];
    } else {
      free(binary);
      binary = NULL;
    }
  }
  free(devices);
  free(sizes);
  free(binaries);
  return binary;
}

static void WriteEntry(const beast_context* ctx, const char* path, const uint64_t key[2],
                       cl_program program) {
  if (!MakeFolder(ctx->cache_dir) || !FolderIsPrivate(ctx->cache_dir)) return;
  size_t size = 0;
  unsigned char* binary = DeviceBinary(ctx, program, &size);
  if (binary) {
    unsigned char header[HEADER_BYTES];
    const uint64_t fields[4] = {key[0], key[1], (uint64_t)size,
                                Fnv(0xcbf29ce484222325ULL, binary, size)};
    memcpy(header, kMagic, sizeof kMagic);
    memcpy(header + 8, fields, sizeof fields);
    char temp[sizeof(((beast_context*)0)->cache_dir) + 32];
    snprintf(temp, sizeof temp, "%s/.entry-XXXXXX", ctx->cache_dir);
    int fd = mkstemp(temp);
    FILE* file = fd >= 0 ? fdopen(fd, "wb") : NULL;
    int ok = file && fwrite(header, 1, sizeof header, file) == sizeof header &&
             fwrite(binary, 1, size, file) == size;
    if (file)
      ok = fclose(file) == 0 && ok;
    else if (fd >= 0)
      close(fd);
    if (fd >= 0 && !(ok && rename(temp, path) == 0)) unlink(temp);
  }
  free(binary);
}

/* The build log's first line, for a one-line error. */
static void FirstLogLine(cl_program program, cl_device_id device, char* line, size_t len) {
  line[0] = '\0';
  size_t size = 0;
  if (clGetProgramBuildInfo(program, device, CL_PROGRAM_BUILD_LOG, 0, NULL, &size) != CL_SUCCESS ||
      size == 0) {
    return;
  }
  char* log = (char*)malloc(size + 1);
  if (!log) return;
  if (clGetProgramBuildInfo(program, device, CL_PROGRAM_BUILD_LOG, size, log, NULL) == CL_SUCCESS) {
    log[size] = '\0';
    const char* start = log;
    while (*start == '\n' || *start == ' ') ++start;
    size_t n = strcspn(start, "\n");
    if (n >= len) n = len - 1;
    memcpy(line, start, n);
    line[n] = '\0';
  }
  free(log);
}

/* The program built from a cached binary, or NULL. */
static cl_program LoadEntry(beast_context* ctx, const char* path, const uint64_t key[2],
                            const char* options) {
  size_t size = 0;
  int existed = 0;
  unsigned char* binary = ReadEntry(path, key, &size, &existed);
  cl_program program = NULL;
  if (binary) {
    const unsigned char* binaries[1] = {binary};
    cl_int status = CL_SUCCESS, err = CL_SUCCESS;
    program =
        clCreateProgramWithBinary(ctx->context, 1, &ctx->device, &size, binaries, &status, &err);
    if (err == CL_SUCCESS && status == CL_SUCCESS) {
      err = clBuildProgram(program, 1, &ctx->device, options, NULL, NULL);
    }
    if (err != CL_SUCCESS || status != CL_SUCCESS) {
      if (program) clReleaseProgram(program);
      program = NULL;
    }
    free(binary);
  }
  if (program) {
    ++ctx->cache.programs_loaded;
  } else if (existed) {
    ++ctx->cache.entries_rejected; /* rebuilt below, and replaced */
  }
  return program;
}

/* Whether ctx's cache folder is used: named, and private, or not made yet (a
 * folder that exists and others may write to is not used at all). */
static int CacheUsable(const beast_context* ctx) {
  struct stat st;
  return ctx->cache_dir[0] && (stat(ctx->cache_dir, &st) != 0 || FolderIsPrivate(ctx->cache_dir));
}

cl_int beast_build_program(beast_context* ctx, const char* source, const char* options,
                           cl_program* program, char* log, size_t log_len) {
  log[0] = '\0';
  *program = NULL;
  uint64_t key[2];
  char path[sizeof ctx->cache_dir + 48];
  const int use_cache = CacheUsable(ctx);
  if (use_cache) {
    Key(ctx, source, options, key);
    EntryPath(ctx, key, path, sizeof path);
    *program = LoadEntry(ctx, path, key, options);
    if (*program) return CL_SUCCESS;
  }
  cl_int err = CL_SUCCESS;
  cl_program built = clCreateProgramWithSource(ctx->context, 1, &source, NULL, &err);
  if (err == CL_SUCCESS) err = clBuildProgram(built, 1, &ctx->device, options, NULL, NULL);
  if (err != CL_SUCCESS) {
    if (built) {
      FirstLogLine(built, ctx->device, log, log_len);
      clReleaseProgram(built);
    }
    return err;
  }
  ++ctx->cache.programs_built;
  if (use_cache) WriteEntry(ctx, path, key, built);
  *program = built;
  return CL_SUCCESS;
}

void beast_cache_folder(char* dir, size_t len) {
  const char* env = getenv("BEAST_TUNED_CACHE_DIR");
  const char* xdg = getenv("XDG_CACHE_HOME");
  const char* home = getenv("HOME");
  dir[0] = '\0';
  if (env) {
    snprintf(dir, len, "%s", env); /* set but empty: no cache */
  } else if (xdg && xdg[0] == '/') {
    snprintf(dir, len, "%s/beast_tuned", xdg);
  } else if (home && home[0]) {
    snprintf(dir, len, "%s/.cache/beast_tuned", home);
  }
  size_t n = strlen(dir);
  while (n > 1 && dir[n - 1] == '/') dir[--n] = '\0';
  if (n + 48 >= len) dir[0] = '\0'; /* no room for an entry's name: no cache */
}

beast_status beast_cache_stats(beast_context* ctx, beast_cache_info* info) {
  beast_clear_error();
  if (!ctx || !info) return beast_fail(BEAST_ERROR_INVALID_ARGUMENT, "beast_cache_stats: NULL");
  pthread_mutex_lock(&ctx->mutex);
  *info = ctx->cache;
  pthread_mutex_unlock(&ctx->mutex);
  /* The folder in use: there and private ("" when none is named, it could
   * not be made, or others may write to it). */
  info->directory = ctx->cache_dir[0] && FolderIsPrivate(ctx->cache_dir) ? ctx->cache_dir : "";
  return BEAST_OK;
}
