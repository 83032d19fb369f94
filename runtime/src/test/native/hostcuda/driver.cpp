// A host-executed CUDA driver for the tests of OnDevice's CUDA backend on machines without a GPU:
// a libcuda.so.1 that implements the part of the driver API the backend calls, with the driver's
// semantics (one in-order worker thread per stream, events, asynchronous copies, sticky errors),
// and that runs the backend's own kernels, compiled for the host from the same CUDA C sources
// (hostcuda.h), when a launch names them. Module loading checks that the PTX declares the kernel
// with the argument size of the host build, so the shipped PTX, the sources and the Java side's
// argument packing are checked against each other.
//
// It is not a GPU: it proves the backend's logic (launch plans, argument layouts, copies, events,
// the allocator, the kernels' arithmetic), not its speed or the device's memory model.
//
// Configuration: ONDEVICE_HOSTCUDA_DEVICES (default 2), ONDEVICE_HOSTCUDA_MEMORY_MIB (per device,
// default 1024). Functions the backend does not use return CUDA_ERROR_NOT_SUPPORTED (stubs.inc).
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <chrono>
#include <condition_variable>
#include <deque>
#include <functional>
#include <map>
#include <mutex>
#include <string>
#include <thread>
#include <unordered_map>
#include <vector>

#include "hostcuda.h"

thread_local dim3 threadIdx;
thread_local dim3 blockIdx;
thread_local dim3 blockDim;
thread_local dim3 gridDim;

typedef int CUresult;
typedef int CUdevice;
typedef unsigned long long CUdeviceptr;

enum {
  CUDA_SUCCESS = 0,
  CUDA_ERROR_INVALID_VALUE = 1,
  CUDA_ERROR_OUT_OF_MEMORY = 2,
  CUDA_ERROR_NOT_INITIALIZED = 3,
  CUDA_ERROR_INVALID_DEVICE = 101,
  CUDA_ERROR_INVALID_IMAGE = 200,
  CUDA_ERROR_INVALID_CONTEXT = 201,
  CUDA_ERROR_NOT_FOUND = 500,
  CUDA_ERROR_NOT_READY = 600,
  CUDA_ERROR_ILLEGAL_ADDRESS = 700,
  CUDA_ERROR_NOT_SUPPORTED = 801,
};

// ---------------------------------------------------------------- kernels of the host build

namespace hostcuda {
static std::unordered_map<std::string, Kernel>& registry() {
  static std::unordered_map<std::string, Kernel> r;
  return r;
}
void registerKernel(const Kernel& k) { registry()[k.name] = k; }
void threadfence() { std::atomic_thread_fence(std::memory_order_seq_cst); }
}  // namespace hostcuda

// ---------------------------------------------------------------- fibers for block-synchronous kernels

extern "C" void hostcuda_switch(void** save, void* to);
asm(R"(
.text
.globl hostcuda_switch
.hidden hostcuda_switch
.type hostcuda_switch,@function
hostcuda_switch:
  pushq %rbp
  pushq %rbx
  pushq %r12
  pushq %r13
  pushq %r14
  pushq %r15
  movq %rsp, (%rdi)
  movq %rsi, %rsp
  popq %r15
  popq %r14
  popq %r13
  popq %r12
  popq %rbx
  popq %rbp
  ret
.size hostcuda_switch,.-hostcuda_switch
)");

namespace {

const size_t FIBER_STACK = 256 * 1024;

enum FiberState { READY, AT_BARRIER, DONE };

// Runs the CUDA threads of one block as fibers on the calling thread.
struct BlockScheduler {
  std::vector<char*> stacks;
  std::vector<void*> sp;
  std::vector<FiberState> state;
  std::vector<dim3> index;
  void* schedulerSp = nullptr;
  int current = -1;
  void (*run)(void**) = nullptr;
  void** params = nullptr;
};

thread_local BlockScheduler* activeScheduler = nullptr;

extern "C" void hostcuda_fiber_entry() {
  BlockScheduler* s = activeScheduler;
  int me = s->current;
  s->run(s->params);
  s->state[me] = DONE;
  hostcuda_switch(&s->sp[me], s->schedulerSp);
  abort();  // a finished fiber is never resumed
}

void* initialStack(char* base) {
  uintptr_t top = (reinterpret_cast<uintptr_t>(base) + FIBER_STACK) & ~static_cast<uintptr_t>(15);
  void** p = reinterpret_cast<void**>(top);
  p[-1] = nullptr;                                                     // the entry's return address
  p[-2] = reinterpret_cast<void*>(&hostcuda_fiber_entry);               // where the first switch returns
  for (int i = 3; i <= 8; i++) p[-i] = nullptr;                         // rbp, rbx, r12-r15
  return &p[-8];
}

std::mutex blockKernelLock;  // __shared__ arrays are static: one block-synchronous kernel at a time

void runBlockSync(BlockScheduler& s, const dim3& grid, const dim3& block, void (*run)(void**), void** params) {
  int n = block.x * block.y * block.z;
  while ((int)s.stacks.size() < n) s.stacks.push_back(static_cast<char*>(malloc(FIBER_STACK)));
  s.sp.resize(n);
  s.state.resize(n);
  s.index.resize(n);
  s.run = run;
  s.params = params;
  for (int t = 0; t < n; t++) {
    s.index[t] = dim3{(unsigned)(t % block.x), (unsigned)(t / block.x % block.y), (unsigned)(t / (block.x * block.y))};
  }
  activeScheduler = &s;
  for (unsigned bz = 0; bz < grid.z; bz++)
    for (unsigned by = 0; by < grid.y; by++)
      for (unsigned bx = 0; bx < grid.x; bx++) {
        blockIdx = dim3{bx, by, bz};
        for (int t = 0; t < n; t++) {
          s.sp[t] = initialStack(s.stacks[t]);
          s.state[t] = READY;
        }
        for (;;) {
          bool waiting = false;
          for (int t = 0; t < n; t++) {
            if (s.state[t] != READY) continue;
            threadIdx = s.index[t];
            s.current = t;
            hostcuda_switch(&s.schedulerSp, s.sp[t]);
          }
          for (int t = 0; t < n; t++) {
            if (s.state[t] == AT_BARRIER) {
              s.state[t] = READY;
              waiting = true;
            }
          }
          if (!waiting) break;
        }
      }
  activeScheduler = nullptr;
}

void runSimple(const dim3& grid, const dim3& block, void (*run)(void**), void** params) {
  for (unsigned bz = 0; bz < grid.z; bz++)
    for (unsigned by = 0; by < grid.y; by++)
      for (unsigned bx = 0; bx < grid.x; bx++) {
        blockIdx = dim3{bx, by, bz};
        for (unsigned tz = 0; tz < block.z; tz++)
          for (unsigned ty = 0; ty < block.y; ty++)
            for (unsigned tx = 0; tx < block.x; tx++) {
              threadIdx = dim3{tx, ty, tz};
              run(params);
            }
      }
}

}  // namespace

void hostcuda::syncthreads() {
  BlockScheduler* s = activeScheduler;
  if (s == nullptr) {
    fprintf(stderr, "hostcuda: __syncthreads() in a kernel registered without blockSync\n");
    abort();
  }
  int me = s->current;
  s->state[me] = AT_BARRIER;
  hostcuda_switch(&s->sp[me], s->schedulerSp);
}

// ---------------------------------------------------------------- driver objects

namespace {

struct Context;

struct Event {
  std::mutex m;
  std::condition_variable cv;
  unsigned long long recorded = 0;   // records so far
  unsigned long long completed = 0;  // records whose work has run
  std::chrono::steady_clock::time_point when = std::chrono::steady_clock::now();
};

struct Stream {
  Context* ctx;
  std::mutex m;
  std::condition_variable cv;
  std::deque<std::function<CUresult()>> queue;
  bool busy = false;
  bool stop = false;
  CUresult error = CUDA_SUCCESS;  // sticky, as a CUDA context's error after a failed kernel
  std::thread worker;
  BlockScheduler scheduler;

  explicit Stream(Context* c) : ctx(c) { worker = std::thread([this] { loop(); }); }

  void loop() {
    for (;;) {
      std::function<CUresult()> op;
      {
        std::unique_lock<std::mutex> l(m);
        cv.wait(l, [this] { return stop || !queue.empty(); });
        if (queue.empty()) return;
        op = std::move(queue.front());
        queue.pop_front();
        busy = true;
      }
      CUresult r = error == CUDA_SUCCESS ? op() : CUDA_SUCCESS;
      {
        std::lock_guard<std::mutex> l(m);
        if (r != CUDA_SUCCESS && error == CUDA_SUCCESS) error = r;
        busy = false;
      }
      cv.notify_all();
    }
  }

  void submit(std::function<CUresult()> op) {
    {
      std::lock_guard<std::mutex> l(m);
      queue.push_back(std::move(op));
    }
    cv.notify_all();
  }

  CUresult drain() {
    std::unique_lock<std::mutex> l(m);
    cv.wait(l, [this] { return queue.empty() && !busy; });
    return error;
  }
};

struct Context {
  int device;
  std::vector<Stream*> streams;
};

struct Module {
  std::string image;
};

struct Function {
  hostcuda::Kernel kernel;
};

struct Memory {
  std::mutex m;
  std::map<uintptr_t, size_t> device;  // allocations by start
  std::map<uintptr_t, size_t> mapped;  // page-locked host allocations (device-accessible)
  std::vector<size_t> used;            // device bytes in use, per device
  std::unordered_map<uintptr_t, int> owner;
};

Memory memory;
std::vector<Context*> contexts;
thread_local Context* current = nullptr;
int deviceCount = 0;
size_t deviceMemory = 0;
bool initialized = false;

int envInt(const char* name, int fallback) {
  const char* v = getenv(name);
  return v ? atoi(v) : fallback;
}

// Whether [p, p + n) lies in one device allocation or one mapped host allocation.
bool accessible(uintptr_t p, size_t n) {
  std::lock_guard<std::mutex> l(memory.m);
  for (auto* map : {&memory.device, &memory.mapped}) {
    auto it = map->upper_bound(p);
    if (it == map->begin()) continue;
    --it;
    if (p >= it->first && p + n <= it->first + it->second) return true;
  }
  return false;
}

CUresult checkRange(CUdeviceptr p, size_t n, const char* what) {
  if (n == 0 || accessible(static_cast<uintptr_t>(p), n)) return CUDA_SUCCESS;
  fprintf(stderr, "hostcuda: %s: %zu bytes at 0x%llx are outside any device allocation\n", what, n, p);
  return CUDA_ERROR_ILLEGAL_ADDRESS;
}

Stream* streamOf(void* s) { return static_cast<Stream*>(s); }

// The size of the struct argument of `name` as the PTX declares it, or -1.
long ptxParamSize(const std::string& image, const std::string& name) {
  std::string key = ".entry " + name + "(";
  size_t at = image.find(key);
  if (at == std::string::npos) return -1;
  size_t open = image.find('[', at);
  size_t close = image.find(']', at);
  size_t body = image.find('{', at);
  if (open == std::string::npos || close == std::string::npos || open > body) return -1;
  return atol(image.substr(open + 1, close - open - 1).c_str());
}

}  // namespace

// ---------------------------------------------------------------- the driver API

#define API extern "C" __attribute__((visibility("default")))

API CUresult cuInit(unsigned int) {
  if (!initialized) {
    deviceCount = envInt("ONDEVICE_HOSTCUDA_DEVICES", 2);
    deviceMemory = static_cast<size_t>(envInt("ONDEVICE_HOSTCUDA_MEMORY_MIB", 1024)) << 20;
    memory.used.assign(deviceCount, 0);
    for (int i = 0; i < deviceCount; i++) contexts.push_back(new Context{i, {}});
    initialized = true;
  }
  return CUDA_SUCCESS;
}

API CUresult cuDriverGetVersion(int* v) {
  *v = 12000;
  return CUDA_SUCCESS;
}

API CUresult cuDeviceGetCount(int* n) {
  if (!initialized) return CUDA_ERROR_NOT_INITIALIZED;
  *n = deviceCount;
  return CUDA_SUCCESS;
}

API CUresult cuDeviceGet(CUdevice* d, int ordinal) {
  if (ordinal < 0 || ordinal >= deviceCount) return CUDA_ERROR_INVALID_DEVICE;
  *d = ordinal;
  return CUDA_SUCCESS;
}

API CUresult cuDeviceGetName(char* name, int len, CUdevice d) {
  snprintf(name, len, "OnDevice host-executed CUDA %d (not a GPU)", d);
  return CUDA_SUCCESS;
}

API CUresult cuDeviceGetAttribute(int* v, int attribute, CUdevice) {
  switch (attribute) {
    case 1: *v = 1024; break;   // MAX_THREADS_PER_BLOCK
    case 8: *v = 49152; break;  // MAX_SHARED_MEMORY_PER_BLOCK
    case 10: *v = 32; break;    // WARP_SIZE
    case 16: *v = 4; break;     // MULTIPROCESSOR_COUNT
    case 19: *v = 1; break;     // CAN_MAP_HOST_MEMORY
    case 41: *v = 1; break;     // UNIFIED_ADDRESSING
    case 75: *v = 9; break;     // COMPUTE_CAPABILITY_MAJOR
    case 76: *v = 0; break;     // COMPUTE_CAPABILITY_MINOR
    default: *v = 0;
  }
  return CUDA_SUCCESS;
}

API CUresult cuDeviceTotalMem_v2(size_t* bytes, CUdevice) {
  *bytes = deviceMemory;
  return CUDA_SUCCESS;
}

API CUresult cuDevicePrimaryCtxRetain(void** ctx, CUdevice d) {
  if (d < 0 || d >= deviceCount) return CUDA_ERROR_INVALID_DEVICE;
  *ctx = contexts[d];
  return CUDA_SUCCESS;
}

API CUresult cuDevicePrimaryCtxRelease_v2(CUdevice) { return CUDA_SUCCESS; }

API CUresult cuCtxSetCurrent(void* ctx) {
  current = static_cast<Context*>(ctx);
  return CUDA_SUCCESS;
}

API CUresult cuCtxGetCurrent(void** ctx) {
  *ctx = current;
  return CUDA_SUCCESS;
}

API CUresult cuCtxSynchronize() {
  if (current == nullptr) return CUDA_ERROR_INVALID_CONTEXT;
  CUresult r = CUDA_SUCCESS;
  for (Stream* s : current->streams) {
    CUresult e = s->drain();
    if (r == CUDA_SUCCESS) r = e;
  }
  return r;
}

API CUresult cuStreamCreate(void** stream, unsigned int) {
  if (current == nullptr) return CUDA_ERROR_INVALID_CONTEXT;
  Stream* s = new Stream(current);
  current->streams.push_back(s);
  *stream = s;
  return CUDA_SUCCESS;
}

API CUresult cuStreamDestroy_v2(void* stream) {
  Stream* s = streamOf(stream);
  s->drain();
  return CUDA_SUCCESS;  // the worker lives on with the process
}

API CUresult cuStreamSynchronize(void* stream) { return streamOf(stream)->drain(); }

API CUresult cuStreamQuery(void* stream) {
  Stream* s = streamOf(stream);
  std::lock_guard<std::mutex> l(s->m);
  if (s->error != CUDA_SUCCESS) return s->error;
  return s->queue.empty() && !s->busy ? CUDA_SUCCESS : CUDA_ERROR_NOT_READY;
}

API CUresult cuEventCreate(void** event, unsigned int) {
  *event = new Event();
  return CUDA_SUCCESS;
}

API CUresult cuEventDestroy_v2(void* event) {
  Event* e = static_cast<Event*>(event);
  std::unique_lock<std::mutex> l(e->m);
  e->cv.wait(l, [e] { return e->completed == e->recorded; });
  l.unlock();
  delete e;
  return CUDA_SUCCESS;
}

API CUresult cuEventRecord(void* event, void* stream) {
  Event* e = static_cast<Event*>(event);
  unsigned long long n;
  {
    std::lock_guard<std::mutex> l(e->m);
    n = ++e->recorded;
  }
  streamOf(stream)->submit([e, n] {
    {
      std::lock_guard<std::mutex> l(e->m);
      if (e->completed < n) e->completed = n;
      e->when = std::chrono::steady_clock::now();
    }
    e->cv.notify_all();
    return CUDA_SUCCESS;
  });
  return CUDA_SUCCESS;
}

API CUresult cuEventQuery(void* event) {
  Event* e = static_cast<Event*>(event);
  std::lock_guard<std::mutex> l(e->m);
  return e->completed == e->recorded ? CUDA_SUCCESS : CUDA_ERROR_NOT_READY;
}

API CUresult cuEventSynchronize(void* event) {
  Event* e = static_cast<Event*>(event);
  std::unique_lock<std::mutex> l(e->m);
  unsigned long long n = e->recorded;
  e->cv.wait(l, [e, n] { return e->completed >= n; });
  return CUDA_SUCCESS;
}

API CUresult cuEventElapsedTime(float* ms, void* start, void* end) {
  Event* a = static_cast<Event*>(start);
  Event* b = static_cast<Event*>(end);
  *ms = std::chrono::duration<float, std::milli>(b->when - a->when).count();
  return CUDA_SUCCESS;
}

API CUresult cuStreamWaitEvent(void* stream, void* event, unsigned int) {
  Event* e = static_cast<Event*>(event);
  unsigned long long n;
  {
    std::lock_guard<std::mutex> l(e->m);
    n = e->recorded;
  }
  streamOf(stream)->submit([e, n] {
    std::unique_lock<std::mutex> l(e->m);
    e->cv.wait(l, [e, n] { return e->completed >= n; });
    return CUDA_SUCCESS;
  });
  return CUDA_SUCCESS;
}

API CUresult cuMemAlloc_v2(CUdeviceptr* p, size_t bytes) {
  if (current == nullptr) return CUDA_ERROR_INVALID_CONTEXT;
  if (bytes == 0) return CUDA_ERROR_INVALID_VALUE;
  int d = current->device;
  {
    std::lock_guard<std::mutex> l(memory.m);
    if (memory.used[d] + bytes > deviceMemory) return CUDA_ERROR_OUT_OF_MEMORY;
    memory.used[d] += bytes;
  }
  size_t rounded = (bytes + 255) / 256 * 256;
  void* m = aligned_alloc(256, rounded);
  if (m == nullptr) return CUDA_ERROR_OUT_OF_MEMORY;
  memset(m, 0xFF, rounded);  // fresh memory reads as NaN or -1: uninitialised reads show
  std::lock_guard<std::mutex> l(memory.m);
  memory.device[reinterpret_cast<uintptr_t>(m)] = bytes;
  memory.owner[reinterpret_cast<uintptr_t>(m)] = d;
  *p = reinterpret_cast<CUdeviceptr>(m);
  return CUDA_SUCCESS;
}

API CUresult cuMemFree_v2(CUdeviceptr p) {
  std::lock_guard<std::mutex> l(memory.m);
  auto it = memory.device.find(static_cast<uintptr_t>(p));
  if (it == memory.device.end()) return CUDA_ERROR_INVALID_VALUE;
  memory.used[memory.owner[it->first]] -= it->second;
  memory.owner.erase(it->first);
  memory.device.erase(it);
  free(reinterpret_cast<void*>(p));
  return CUDA_SUCCESS;
}

API CUresult cuMemGetInfo_v2(size_t* freeBytes, size_t* total) {
  if (current == nullptr) return CUDA_ERROR_INVALID_CONTEXT;
  std::lock_guard<std::mutex> l(memory.m);
  *total = deviceMemory;
  *freeBytes = deviceMemory - memory.used[current->device];
  return CUDA_SUCCESS;
}

API CUresult cuMemHostAlloc(void** p, size_t bytes, unsigned int) {
  size_t rounded = (bytes + 4095) / 4096 * 4096;
  void* m = aligned_alloc(4096, rounded == 0 ? 4096 : rounded);
  if (m == nullptr) return CUDA_ERROR_OUT_OF_MEMORY;
  std::lock_guard<std::mutex> l(memory.m);
  memory.mapped[reinterpret_cast<uintptr_t>(m)] = bytes;
  *p = m;
  return CUDA_SUCCESS;
}

API CUresult cuMemAllocHost_v2(void** p, size_t bytes) { return cuMemHostAlloc(p, bytes, 0); }

API CUresult cuMemFreeHost(void* p) {
  std::lock_guard<std::mutex> l(memory.m);
  if (memory.mapped.erase(reinterpret_cast<uintptr_t>(p)) == 0) return CUDA_ERROR_INVALID_VALUE;
  free(p);
  return CUDA_SUCCESS;
}

API CUresult cuMemHostGetDevicePointer_v2(CUdeviceptr* d, void* p, unsigned int) {
  *d = reinterpret_cast<CUdeviceptr>(p);
  return CUDA_SUCCESS;
}

API CUresult cuMemcpyHtoDAsync_v2(CUdeviceptr dst, const void* src, size_t n, void* stream) {
  CUresult r = checkRange(dst, n, "cuMemcpyHtoDAsync");
  if (r != CUDA_SUCCESS) return r;
  streamOf(stream)->submit([=] {
    memcpy(reinterpret_cast<void*>(dst), src, n);
    return CUDA_SUCCESS;
  });
  return CUDA_SUCCESS;
}

API CUresult cuMemcpyDtoHAsync_v2(void* dst, CUdeviceptr src, size_t n, void* stream) {
  CUresult r = checkRange(src, n, "cuMemcpyDtoHAsync");
  if (r != CUDA_SUCCESS) return r;
  bool mapped;
  {
    std::lock_guard<std::mutex> l(memory.m);
    auto it = memory.mapped.upper_bound(reinterpret_cast<uintptr_t>(dst));
    mapped = it != memory.mapped.begin() && reinterpret_cast<uintptr_t>(dst) < std::prev(it)->first + std::prev(it)->second;
  }
  Stream* s = streamOf(stream);
  s->submit([=] {
    memcpy(dst, reinterpret_cast<const void*>(src), n);
    return CUDA_SUCCESS;
  });
  // As the real driver, a copy into pageable memory returns only once it is done.
  return mapped ? CUDA_SUCCESS : s->drain();
}

API CUresult cuMemcpyDtoDAsync_v2(CUdeviceptr dst, CUdeviceptr src, size_t n, void* stream) {
  CUresult r = checkRange(dst, n, "cuMemcpyDtoDAsync");
  if (r == CUDA_SUCCESS) r = checkRange(src, n, "cuMemcpyDtoDAsync");
  if (r != CUDA_SUCCESS) return r;
  streamOf(stream)->submit([=] {
    memmove(reinterpret_cast<void*>(dst), reinterpret_cast<const void*>(src), n);
    return CUDA_SUCCESS;
  });
  return CUDA_SUCCESS;
}

API CUresult cuMemcpyPeerAsync(CUdeviceptr dst, void*, CUdeviceptr src, void*, size_t n, void* stream) {
  return cuMemcpyDtoDAsync_v2(dst, src, n, stream);
}

API CUresult cuMemsetD8Async(CUdeviceptr dst, unsigned char v, size_t n, void* stream) {
  CUresult r = checkRange(dst, n, "cuMemsetD8Async");
  if (r != CUDA_SUCCESS) return r;
  streamOf(stream)->submit([=] {
    memset(reinterpret_cast<void*>(dst), v, n);
    return CUDA_SUCCESS;
  });
  return CUDA_SUCCESS;
}

API CUresult cuMemsetD32Async(CUdeviceptr dst, unsigned int v, size_t n, void* stream) {
  CUresult r = checkRange(dst, n * 4, "cuMemsetD32Async");
  if (r != CUDA_SUCCESS) return r;
  streamOf(stream)->submit([=] {
    unsigned int* p = reinterpret_cast<unsigned int*>(dst);
    for (size_t i = 0; i < n; i++) p[i] = v;
    return CUDA_SUCCESS;
  });
  return CUDA_SUCCESS;
}

API CUresult cuModuleLoadData(void** module, const void* image) {
  *module = new Module{std::string(static_cast<const char*>(image))};
  return CUDA_SUCCESS;
}

API CUresult cuModuleLoadDataEx(void** module, const void* image, unsigned int, void*, void**) {
  return cuModuleLoadData(module, image);
}

API CUresult cuModuleUnload(void* module) {
  delete static_cast<Module*>(module);
  return CUDA_SUCCESS;
}

API CUresult cuModuleGetFunction(void** f, void* module, const char* name) {
  Module* m = static_cast<Module*>(module);
  auto it = hostcuda::registry().find(name);
  long declared = ptxParamSize(m->image, name);
  if (it == hostcuda::registry().end() || declared < 0) {
    fprintf(stderr, "hostcuda: kernel %s is %s\n", name, declared < 0 ? "not in the module's PTX" : "not in the host build");
    return CUDA_ERROR_NOT_FOUND;
  }
  if (declared != static_cast<long>(it->second.argSize)) {
    fprintf(stderr, "hostcuda: kernel %s takes %ld bytes in the PTX but %u in the host build\n", name, declared,
            it->second.argSize);
    return CUDA_ERROR_INVALID_IMAGE;
  }
  *f = new Function{it->second};
  return CUDA_SUCCESS;
}

API CUresult cuFuncGetAttribute(int* v, int, void*) {
  *v = 0;
  return CUDA_SUCCESS;
}

API CUresult cuLaunchKernel(void* f, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by, unsigned bz,
                            unsigned shared, void* stream, void** params, void** extra) {
  Function* fn = static_cast<Function*>(f);
  if (gx == 0 || gy == 0 || gz == 0 || gy > 65535 || gz > 65535 || bx * by * bz == 0 || bx * by * bz > 1024
      || shared != 0 || extra != nullptr || params == nullptr) {
    fprintf(stderr, "hostcuda: invalid launch of %s: grid %ux%ux%u, block %ux%ux%u\n", fn->kernel.name, gx, gy, gz,
            bx, by, bz);
    return CUDA_ERROR_INVALID_VALUE;
  }
  std::vector<char> args(static_cast<const char*>(params[0]), static_cast<const char*>(params[0]) + fn->kernel.argSize);
  hostcuda::Kernel k = fn->kernel;
  Stream* s = streamOf(stream);
  s->submit([k, args, gx, gy, gz, bx, by, bz, s]() mutable {
    void* p[1] = {args.data()};
    dim3 grid{gx, gy, gz};
    dim3 block{bx, by, bz};
    gridDim = grid;
    blockDim = block;
    if (k.blockSync) {
      std::lock_guard<std::mutex> l(blockKernelLock);
      runBlockSync(s->scheduler, grid, block, k.run, p);
    } else {
      runSimple(grid, block, k.run, p);
    }
    return CUDA_SUCCESS;
  });
  return CUDA_SUCCESS;
}

API CUresult cuDeviceCanAccessPeer(int* can, CUdevice, CUdevice) {
  *can = 1;
  return CUDA_SUCCESS;
}

API CUresult cuCtxEnablePeerAccess(void*, unsigned int) { return CUDA_SUCCESS; }

API CUresult cuGetErrorName(CUresult r, const char** s) {
  *s = r == CUDA_SUCCESS ? "CUDA_SUCCESS" : "CUDA_ERROR";
  return CUDA_SUCCESS;
}

API CUresult cuGetErrorString(CUresult r, const char** s) { return cuGetErrorName(r, s); }

#include "stubs.inc"
