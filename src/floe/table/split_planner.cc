#include "floe/table/split_planner.h"

#include <algorithm>
#include <deque>

namespace floe::table {

Status SplitOptions::Validate() const {
  namespace k = config::keys;
  if (split_size <= 0) return InvalidArgument("{} must be positive, got {}", k::kSplitSize.name, split_size);
  if (lookback <= 0) return InvalidArgument("{} must be positive, got {}", k::kSplitLookback.name, lookback);
  if (open_file_cost < 0) {
    return InvalidArgument("{} must not be negative, got {}", k::kSplitFileOpenCost.name, open_file_cost);
  }
  return Ok();
}

std::vector<FileRange> SplitFile(int64_t file, int64_t file_size, std::span<const int64_t> offsets,
                                 int64_t extra_weight, const SplitOptions& o) {
  std::vector<int64_t> starts;
  bool valid = !offsets.empty() && offsets[0] >= 0;
  for (size_t i = 0; valid && i < offsets.size(); ++i) {
    if (offsets[i] >= file_size || (i > 0 && offsets[i] <= offsets[i - 1])) valid = false;
  }
  if (valid) {
    // Merge consecutive row groups while the range stays within split_size.
    int64_t range_start = offsets[0] > 0 ? 0 : offsets[0];
    starts.push_back(range_start);
    for (size_t i = 1; i < offsets.size(); ++i) {
      if (offsets[i] - starts.back() >= o.split_size) starts.push_back(offsets[i]);
    }
  } else {
    for (int64_t s = 0; s < std::max<int64_t>(file_size, 1); s += o.split_size) starts.push_back(s);
  }
  std::vector<FileRange> out;
  for (size_t i = 0; i < starts.size(); ++i) {
    int64_t end = i + 1 < starts.size() ? starts[i + 1] : file_size;
    FileRange r{file, starts[i], std::max<int64_t>(end - starts[i], 0), 0};
    int64_t share = extra_weight / static_cast<int64_t>(starts.size());
    r.weight = std::max(r.length + share, o.open_file_cost);
    out.push_back(r);
  }
  return out;
}

std::vector<std::vector<FileRange>> PackSplits(std::span<const FileRange> ranges, const SplitOptions& o) {
  struct Bin {
    std::vector<FileRange> items;
    int64_t weight = 0;
  };
  std::deque<Bin> open;
  std::vector<std::vector<FileRange>> out;
  for (const auto& r : ranges) {
    auto it = std::find_if(open.begin(), open.end(),
                           [&](const Bin& b) { return b.weight + r.weight <= o.split_size; });
    if (it == open.end()) {
      open.emplace_back();
      it = open.end() - 1;
      if (static_cast<int32_t>(open.size()) > o.lookback) {
        out.push_back(std::move(open.front().items));
        open.pop_front();
        it = open.end() - 1;
      }
    }
    it->items.push_back(r);
    it->weight += r.weight;
  }
  for (auto& b : open) out.push_back(std::move(b.items));
  return out;
}

}  // namespace floe::table
