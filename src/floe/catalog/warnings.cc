#include "floe/catalog/warnings.h"

#include <mutex>

namespace floe::catalog {
namespace {

struct Handler {
  std::mutex mu;
  WarningHandler fn;
};

Handler& GetHandler() {
  static Handler h;
  return h;
}

}  // namespace

void SetWarningHandler(WarningHandler handler) {
  auto& h = GetHandler();
  std::lock_guard lock(h.mu);
  h.fn = std::move(handler);
}

void Warn(const std::string& warning) {
  auto& h = GetHandler();
  std::lock_guard lock(h.mu);  // one warning at a time: lines never interleave
  if (h.fn) h.fn(warning);
}

}  // namespace floe::catalog
