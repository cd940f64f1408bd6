/// \file
/// An allocator for large, randomly accessed tables (the change sink's key
/// states and hash indexes): blocks of 2 MiB and more are mapped on their
/// own and advised to use transparent huge pages (MADV_HUGEPAGE), so random
/// lookups over hundreds of megabytes do not pay a page walk each. Smaller
/// blocks come from operator new. Memory is given back on deallocate.
#pragma once

#include <sys/mman.h>

#include <cstddef>
#include <new>

namespace floe {

template <typename T>
struct HugePageAllocator {
  using value_type = T;
  static constexpr size_t kHuge = size_t{2} << 20;

  HugePageAllocator() = default;
  template <typename U>
  HugePageAllocator(const HugePageAllocator<U>&) {}

  T* allocate(size_t n) {
    const size_t bytes = n * sizeof(T);
    if (bytes < kHuge) return static_cast<T*>(::operator new(bytes));
    void* p = ::mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) throw std::bad_alloc();
    (void)::madvise(p, bytes, MADV_HUGEPAGE);
    return static_cast<T*>(p);
  }
  void deallocate(T* p, size_t n) {
    const size_t bytes = n * sizeof(T);
    if (bytes < kHuge) {
      ::operator delete(p);
    } else {
      ::munmap(p, bytes);
    }
  }
  template <typename U>
  bool operator==(const HugePageAllocator<U>&) const {
    return true;
  }
};

}  // namespace floe
