/// \file
/// Test support: a one-line maker for schema fields, so a test schema reads
/// as its columns. Header-only on purpose: floe_testing links floe_util
/// alone, and only tests of modules above types include this.
#pragma once

#include <string>
#include <utility>

#include "floe/types/type.h"

namespace floe::test {

/// Field `id` named `name` of type `type`; optional unless `required`.
inline NestedField Field(int id, std::string name, TypePtr type, bool required = false) {
  return NestedField{id, std::move(name), required, std::move(type), ""};
}

}  // namespace floe::test
