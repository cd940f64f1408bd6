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

Result<Namespace> ParseNamespace(std::string_view text) {
  Namespace ns;
  if (text.empty()) return ns;
  size_t start = 0;
  while (true) {
    size_t dot = text.find('.', start);
    std::string_view level = text.substr(start, dot == std::string_view::npos ? text.npos : dot - start);
    FLOE_RETURN_IF_ERROR(ValidateName(level, "namespace"));
    ns.levels.emplace_back(level);
    if (dot == std::string_view::npos) break;
    start = dot + 1;
  }
  return ns;
}

Result<TableIdentifier> ParseTableIdentifier(std::string_view text) {
  size_t dot = text.rfind('.');
  if (dot == std::string_view::npos) {
    return InvalidArgument("table identifier '{}' needs a namespace: write it as NAMESPACE.TABLE", text);
  }
  TableIdentifier id;
  FLOE_ASSIGN_OR_RETURN(id.ns, ParseNamespace(text.substr(0, dot)));
  id.name = std::string(text.substr(dot + 1));
  FLOE_RETURN_IF_ERROR(ValidateName(id.name, "table"));
  return id;
}

}  // namespace floe::catalog
