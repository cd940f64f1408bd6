// TEMPORARY placeholder until the deletes branch brings the real TableTemplate.
#pragma once
#include <string>
#include <string_view>
#include <vector>
#include "floe/types/column_vector.h"
#include "floe/util/status.h"
namespace floe::sink {
class TableTemplate {
 public:
  static Result<TableTemplate> Parse(std::string_view text) {
    if (text.find('{') != std::string_view::npos) return Unsupported("table templates: not yet");
    return TableTemplate();
  }
  bool is_template() const { return false; }
  Status Bind(const Schema&) { return Ok(); }
  Result<std::string> Evaluate(const Batch&, int64_t) const { return Internal("no template"); }
};
}  // namespace floe::sink
