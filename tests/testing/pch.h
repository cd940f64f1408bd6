/// \file
/// The precompiled header of every test executable (FLOE_TEST_PCH, on by
/// default): the headers nearly every test file includes, parsed and
/// instantiated once per executable instead of once per file. A test file
/// still includes what it uses; this list only saves compile time (about a
/// third of a test file's cost under clang, most of it gtest, gmock and
/// nlohmann::json).
#pragma once

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <random>
#include <set>
#include <sstream>
#include <string>
#include <string_view>
#include <thread>
#include <variant>
#include <vector>

#include "testing/files.h"
#include "testing/matchers.h"
