#include "floe/catalog/identifier.h"

#include "floe/catalog/hadoop_files.h"

namespace floe::catalog {

std::string Namespace::ToString() const {
  std::string out;
  for (const auto& l : levels) out += (out.empty() ? "" : ".") + l;
  return out;
}

std::string TableIdentifier::ToString() const {
  return ns.empty() ? name : ns.ToString() + "." + name;
}

namespace {

// Splits `text` at dots and checks every part. An empty part (".t", "a..t",
// "a.") is refused here, before ValidateName: an empty namespace level would
// put a table at the warehouse root, beside the namespaces. `what` names the
// whole text in errors ("namespace", "table identifier").
Result<std::vector<std::string>> SplitParts(std::string_view text, std::string_view what) {
  std::vector<std::string> parts;
  size_t start = 0;
  while (true) {
    size_t dot = text.find('.', start);
    std::string_view part =
        text.substr(start, dot == std::string_view::npos ? text.npos : dot - start);
    if (part.empty()) {
      return InvalidArgument(
          "{} '{}' has an empty part (a dot at the start or end, or two dots in a row)", what,
          text);
    }
    parts.emplace_back(part);
    if (dot == std::string_view::npos) break;
    start = dot + 1;
  }
  return parts;
}

}  // namespace

Result<Namespace> ParseNamespace(std::string_view text) {
  Namespace ns;
  if (text.empty()) return ns;  // the top level (`floe tables` with no namespace)
  FLOE_ASSIGN_OR_RETURN(ns.levels, SplitParts(text, "namespace"));
  for (const auto& level : ns.levels) {
    if (Status st = ValidateName(level, "namespace"); !st) {
      return InvalidArgument("namespace '{}': {}", text, st.error().message);
    }
  }
  return ns;
}

Result<TableIdentifier> ParseTableIdentifier(std::string_view text) {
  if (text.find('.') == std::string_view::npos) {
    return InvalidArgument("table identifier '{}' needs a namespace: write it as NAMESPACE.TABLE",
                           text);
  }
  FLOE_ASSIGN_OR_RETURN(auto parts, SplitParts(text, "table identifier"));
  TableIdentifier id;
  id.name = std::move(parts.back());
  parts.pop_back();
  id.ns.levels = std::move(parts);
  for (size_t i = 0; i < id.ns.levels.size(); ++i) {
    if (Status st = ValidateName(id.ns.levels[i], "namespace"); !st) {
      return InvalidArgument("table identifier '{}': {}", text, st.error().message);
    }
  }
  if (Status st = ValidateName(id.name, "table"); !st) {
    return InvalidArgument("table identifier '{}': {}", text, st.error().message);
  }
  return id;
}

}  // namespace floe::catalog
