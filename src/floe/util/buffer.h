/// \file
/// Buffer: a growable byte buffer that does not zero-fill when it grows.
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <memory>

namespace floe {

/// A growable, untyped byte buffer with typed views. Unlike std::vector<T>,
/// growing it does not zero-fill, so appending is a memcpy.
class Buffer {
 public:
  Buffer() = default;
  Buffer(const Buffer& other) { Assign(other.data_.get(), other.size_); }
  Buffer& operator=(const Buffer& other) {
    if (this != &other) {
      size_ = 0;
      Assign(other.data_.get(), other.size_);
    }
    return *this;
  }
  Buffer(Buffer&& other) noexcept
      : data_(std::move(other.data_)), size_(other.size_), capacity_(other.capacity_) {
    other.size_ = other.capacity_ = 0;
  }
  Buffer& operator=(Buffer&& other) noexcept {
    data_ = std::move(other.data_);
    size_ = other.size_;
    capacity_ = other.capacity_;
    other.size_ = other.capacity_ = 0;
    return *this;
  }

  uint8_t* data() { return data_.get(); }
  const uint8_t* data() const { return data_.get(); }
  size_t size() const { return size_; }
  size_t capacity() const { return capacity_; }
  bool empty() const { return size_ == 0; }

  template <typename T>
  T* as() { return reinterpret_cast<T*>(data_.get()); }
  template <typename T>
  const T* as() const { return reinterpret_cast<const T*>(data_.get()); }

  /// The check is all that is inlined (the growing is out of line): callers
  /// in hot loops (the JSONL scanner appends every value through it) get a
  /// compare and a branch whatever the compiler decides about the rest.
  void Reserve(size_t n) {
    if (n > capacity_) [[unlikely]] Grow(n);
  }
  /// Resizes without initializing new bytes.
  void Resize(size_t n) {
    Reserve(n);
    size_ = n;
  }
  void Clear() { size_ = 0; }
  void Append(const void* src, size_t n) {
    Reserve(size_ + n);
    if (n) std::memcpy(data_.get() + size_, src, n);
    size_ += n;
  }
  template <typename T>
  void Push(const T& v) { Append(&v, sizeof(T)); }

 private:
  [[gnu::noinline]] void Grow(size_t n) {
    size_t cap = std::max<size_t>(n, capacity_ * 2);
    cap = std::max<size_t>(cap, 64);
    std::unique_ptr<uint8_t[]> grown(new uint8_t[cap]);
    if (size_) std::memcpy(grown.get(), data_.get(), size_);
    data_ = std::move(grown);
    capacity_ = cap;
  }
  void Assign(const uint8_t* src, size_t n) {
    Reserve(n);
    if (n) std::memcpy(data_.get(), src, n);
    size_ = n;
  }
  std::unique_ptr<uint8_t[]> data_;
  size_t size_ = 0;
  size_t capacity_ = 0;
};

}  // namespace floe
