// The RLE / bit-packing hybrid encoder and LSB-first bit packing (Encodings.md).
#include "floe/parquet/rle_encoder.h"

namespace floe::parquet {

namespace {
template <typename T>
void PackImpl(const T* values, size_t count, int bit_width, Buffer* out) {
  if (bit_width == 0 || count == 0) return;
  size_t nbytes = (count * bit_width + 7) / 8;
  size_t start = out->size();
  out->Resize(start + nbytes);
  uint8_t* dst = out->data() + start;
  unsigned __int128 acc = 0;
  int bits = 0;
  const unsigned __int128 mask =
      bit_width == 64 ? ~static_cast<uint64_t>(0) : ((static_cast<uint64_t>(1) << bit_width) - 1);
  for (size_t i = 0; i < count; ++i) {
    acc |= (static_cast<unsigned __int128>(values[i]) & mask) << bits;
    bits += bit_width;
    while (bits >= 64) {
      uint64_t w = static_cast<uint64_t>(acc);
      std::memcpy(dst, &w, 8);
      dst += 8;
      acc >>= 64;
      bits -= 64;
    }
  }
  while (bits > 0) {
    *dst++ = static_cast<uint8_t>(acc);
    acc >>= 8;
    bits -= 8;
  }
}
}  // namespace

void BitPackAppend(const uint64_t* values, size_t count, int bit_width, Buffer* out) {
  PackImpl(values, count, bit_width, out);
}
void BitPackAppend(const uint32_t* values, size_t count, int bit_width, Buffer* out) {
  // Widths up to 32 fit a 64-bit accumulator: emit 32 bits whenever they are complete.
  if (bit_width == 0 || count == 0) return;
  size_t nbytes = (count * static_cast<size_t>(bit_width) + 7) / 8;
  size_t start = out->size();
  out->Resize(start + nbytes + 4);  // room for the last 4-byte store
  uint8_t* dst = out->data() + start;
  const uint64_t mask = bit_width == 32 ? 0xFFFFFFFFULL : ((uint64_t{1} << bit_width) - 1);
  uint64_t acc = 0;
  int bits = 0;
  for (size_t i = 0; i < count; ++i) {
    acc |= (static_cast<uint64_t>(values[i]) & mask) << bits;
    bits += bit_width;
    if (bits >= 32) {
      uint32_t w = static_cast<uint32_t>(acc);
      std::memcpy(dst, &w, 4);
      dst += 4;
      acc >>= 32;
      bits -= 32;
    }
  }
  if (bits > 0) {
    uint32_t w = static_cast<uint32_t>(acc);
    std::memcpy(dst, &w, 4);
  }
  out->Resize(start + nbytes);
}

void RleBitPackedEncoder::PutRepeated(uint32_t value, size_t count) {
  // Fill the current group value by value until it is full or an RLE run is open,
  // then account for the rest in one step.
  while (count > 0 && !(value == current_ && repeat_count_ >= 8)) {
    Put(value);
    --count;
  }
  repeat_count_ += static_cast<int64_t>(count);
}

void RleBitPackedEncoder::FlushBuffered(bool done) {
  if (repeat_count_ >= 8) {
    // The whole group is one value: it becomes (the start of) an RLE run.
    num_buffered_ = 0;
    if (literal_count_ != 0) FlushLiteralRun(true);
    return;
  }
  literal_count_ += num_buffered_;
  int groups = literal_count_ / 8;
  FlushLiteralRun(done || groups + 1 >= 64);
  repeat_count_ = 0;
}

void RleBitPackedEncoder::FlushLiteralRun(bool close) {
  if (literal_header_pos_ < 0) {
    literal_header_pos_ = static_cast<int64_t>(out_->size());
    uint8_t placeholder = 0;
    out_->Append(&placeholder, 1);
  }
  if (num_buffered_ > 0) {
    BitPackAppend(buffered_, static_cast<size_t>(num_buffered_), bit_width_, out_);
    num_buffered_ = 0;
  }
  if (close) {
    int groups = (literal_count_ + 7) / 8;
    out_->data()[literal_header_pos_] = static_cast<uint8_t>((groups << 1) | 1);
    literal_header_pos_ = -1;
    literal_count_ = 0;
  }
}

void RleBitPackedEncoder::FlushRepeatedRun() {
  PutUVarint(static_cast<uint64_t>(repeat_count_) << 1, out_);
  int nbytes = (bit_width_ + 7) / 8;
  uint32_t v = current_;
  for (int i = 0; i < nbytes; ++i) {
    uint8_t b = static_cast<uint8_t>(v >> (8 * i));
    out_->Append(&b, 1);
  }
  repeat_count_ = 0;
  num_buffered_ = 0;
}

void RleBitPackedEncoder::Finish() {
  if (literal_count_ == 0 && num_buffered_ == 0 && repeat_count_ == 0) return;
  bool all_repeat = literal_count_ == 0 && (repeat_count_ == num_buffered_ || num_buffered_ == 0);
  if (repeat_count_ > 0 && all_repeat) {
    FlushRepeatedRun();
  } else {
    // Pad the open group with zeros; the reader knows how many values there are.
    while (num_buffered_ > 0 && num_buffered_ < 8) buffered_[num_buffered_++] = 0;
    literal_count_ += num_buffered_;
    FlushLiteralRun(true);
    repeat_count_ = 0;
  }
}

}  // namespace floe::parquet
