#include "floe/io/location.h"

#include <unistd.h>

#include <algorithm>
#include <climits>
#include <optional>

namespace floe {

namespace {

// Strips a `file:` scheme: file:/p, file://p (host form with empty host), file:///p.
std::optional<std::string_view> StripFileScheme(std::string_view loc) {
  if (!loc.starts_with("file:")) return std::nullopt;
  std::string_view rest = loc.substr(5);
  if (rest.starts_with("///")) return rest.substr(2);
  if (rest.starts_with("//")) {
    // file://host/p: only an empty host or localhost refer to this machine.
    rest = rest.substr(2);
    if (rest.starts_with("localhost/")) return rest.substr(9);
    return rest.starts_with("/") ? rest : std::string_view();
  }
  return rest;
}

std::string_view TrimSlash(std::string_view s) {
  while (s.size() > 1 && s.back() == '/') s.remove_suffix(1);
  return s;
}

}  // namespace

std::string FileUri(std::string_view absolute_path) { return "file:" + std::string(absolute_path); }

std::string AbsolutePath(std::string_view path) {
  std::string full;
  if (!path.starts_with("/")) {
    char buf[PATH_MAX];
    if (::getcwd(buf, sizeof buf)) full = buf;
    full += "/";
  }
  full += path;
  std::vector<std::string> parts;
  size_t i = 0;
  while (i <= full.size()) {
    size_t j = full.find('/', i);
    if (j == std::string::npos) j = full.size();
    std::string part = full.substr(i, j - i);
    if (part == "..") {
      if (!parts.empty()) parts.pop_back();
    } else if (!part.empty() && part != ".") {
      parts.push_back(part);
    }
    i = j + 1;
  }
  std::string out;
  for (const auto& p : parts) out += "/" + p;
  return out.empty() ? "/" : out;
}

void LocationMapper::AddMapping(std::string prefix, std::string local_dir) {
  mappings_.emplace_back(std::string(TrimSlash(prefix)), std::string(TrimSlash(local_dir)));
  std::stable_sort(mappings_.begin(), mappings_.end(),
                   [](const auto& a, const auto& b) { return a.first.size() > b.first.size(); });
}

void LocationMapper::AddTableLocation(std::string_view stored, std::string local_dir) {
  std::string_view loc = TrimSlash(stored);
  AddMapping(std::string(loc), local_dir);
  // The same path under the other spellings of its scheme.
  std::string_view path;
  if (auto p = StripFileScheme(loc)) {
    path = *p;
  } else if (auto pos = loc.find("://"); pos != std::string_view::npos) {
    std::string_view scheme = loc.substr(0, pos);
    std::string_view rest = loc.substr(pos + 3);
    for (std::string_view alt : {"s3", "s3a", "s3n"}) {
      if ((scheme == "s3" || scheme == "s3a" || scheme == "s3n") && alt != scheme) {
        AddMapping(std::string(alt) + "://" + std::string(rest), local_dir);
      }
    }
    return;
  } else {
    path = loc;
  }
  if (path.starts_with("/")) {
    AddMapping(std::string(path), local_dir);
    AddMapping("file:" + std::string(path), local_dir);
    AddMapping("file://" + std::string(path), local_dir);
  }
}

Result<std::string> LocationMapper::ToLocal(std::string_view location) const {
  for (const auto& [prefix, dir] : mappings_) {
    if (location.starts_with(prefix) &&
        (location.size() == prefix.size() || location[prefix.size()] == '/' || prefix.back() == '/')) {
      return dir + std::string(location.substr(prefix.size()));
    }
  }
  if (auto p = StripFileScheme(location)) {
    if (p->empty() || !p->starts_with("/")) {
      return InvalidArgument("location '{}' is not a local file URI", location);
    }
    return std::string(*p);
  }
  if (location.starts_with("/")) return std::string(location);
  if (location.find("://") != std::string_view::npos) {
    return NotFound("location '{}' is not on this machine: map its prefix to a folder with --map PREFIX=DIR",
                    location);
  }
  return std::string(location);  // relative path, as stored by some test tables
}

Result<std::pair<std::string, std::string>> ParseMapping(std::string_view text) {
  auto eq = text.find('=');
  if (eq == std::string_view::npos || eq == 0 || eq + 1 == text.size()) {
    return InvalidArgument("--map takes PREFIX=DIR, got '{}'", text);
  }
  return std::pair<std::string, std::string>(std::string(text.substr(0, eq)), std::string(text.substr(eq + 1)));
}

}  // namespace floe
