# Helpers that keep the top-level CMakeLists short: one static library per
# module (src/floe/<module>/*.cc), one test executable per module
# (tests/<module>/*.cc, linking that module only), one benchmark executable per
# *_benchmark.cc and one fuzzer per *_fuzz.cc.

set(FLOE_ALL_MODULES "")

# Unity builds of the modules (and of the commands, floe_cli): a module's
# files compile in batches of FLOE_UNITY_BATCH as one translation unit, so the
# headers they share (the standard library, fmt, nlohmann::json, simdjson) are
# parsed once per batch and each inline function and template they
# instantiate is generated once per batch, not once per file: four
# nlohmann-heavy files of iceberg/ under ASan + UBSan took 64 CPU s one by one
# and 43 s as one batch. A batch shares one anonymous namespace, so a module's
# file-local names must be distinct across the module's files (FLOE_UNITY=OFF
# compiles each file alone: both ways must compile).
option(FLOE_UNITY "Compile the modules' files in unity batches" ON)
set(FLOE_UNITY_BATCH 8 CACHE STRING "Source files per unity batch")
function(floe_unity target)
  if(FLOE_UNITY)
    set_target_properties(${target} PROPERTIES UNITY_BUILD ON UNITY_BUILD_BATCH_SIZE ${FLOE_UNITY_BATCH})
    if(CMAKE_CXX_COMPILER_ID STREQUAL "GNU")
      # GCC warns of a class with a member of an anonymous namespace's type
      # when the class is not in the main file, as a batch's .cc files are
      # not; each is still used by one translation unit only.
      target_compile_options(${target} PRIVATE -Wno-subobject-linkage)
    endif()
  endif()
endfunction()

# floe_module(NAME [DEPS module...] [LIBS lib...] [THRIFT_IDL file.thrift])
function(floe_module name)
  cmake_parse_arguments(M "" "THRIFT_IDL" "DEPS;LIBS" ${ARGN})
  file(GLOB srcs CONFIGURE_DEPENDS ${CMAKE_SOURCE_DIR}/src/floe/${name}/*.cc)
  list(FILTER srcs EXCLUDE REGEX "_(benchmark|fuzz)\\.cc$")
  set(gen_dir ${CMAKE_BINARY_DIR}/gen)
  if(M_THRIFT_IDL)
    get_filename_component(idl_name ${M_THRIFT_IDL} NAME_WE)
    set(out ${gen_dir}/floe/${name}/thrift)
    set(gen ${out}/${idl_name}_types.cpp ${out}/${idl_name}_types.h)
    add_custom_command(
      OUTPUT ${gen}
      COMMAND ${CMAKE_COMMAND} -E make_directory ${out}
      COMMAND ${THRIFT_COMPILER} --gen cpp:no_skeleton -out ${out} ${CMAKE_SOURCE_DIR}/${M_THRIFT_IDL}
      DEPENDS ${CMAKE_SOURCE_DIR}/${M_THRIFT_IDL}
      COMMENT "thrift: generating ${idl_name} (C++)")
    list(APPEND srcs ${gen})
  endif()
  add_library(floe_${name} STATIC ${srcs})
  floe_unity(floe_${name})
  set_property(GLOBAL PROPERTY FLOE_DEPS_${name} ${M_DEPS})
  target_include_directories(floe_${name} PUBLIC ${CMAKE_SOURCE_DIR}/src PRIVATE ${gen_dir})
  foreach(dep ${M_DEPS})
    target_link_libraries(floe_${name} PUBLIC floe_${dep})
  endforeach()
  target_link_libraries(floe_${name} PUBLIC ${M_LIBS})
  set(FLOE_ALL_MODULES ${FLOE_ALL_MODULES} floe_${name} PARENT_SCOPE)
endfunction()

# floe_testing: the test support library (tests/testing/*.cc, included as
# "testing/..."): shared-folder lookup, files, hex, the two-process race and
# the Result matchers. It uses floe_util only, so linking it pulls no module
# into a test that does not test it.
function(floe_add_test_support)
  file(GLOB srcs CONFIGURE_DEPENDS ${CMAKE_SOURCE_DIR}/tests/testing/*.cc)
  add_library(floe_testing STATIC ${srcs})
  target_include_directories(floe_testing PUBLIC ${CMAKE_SOURCE_DIR}/tests)
  target_link_libraries(floe_testing PUBLIC floe_util GTest::gtest GTest::gmock)
  target_compile_definitions(floe_testing PRIVATE FLOE_SOURCE_DIR="${CMAKE_SOURCE_DIR}")
endfunction()

# The test executables' precompiled header (tests/testing/pch.h): a test
# file's compile is mostly gtest, gmock, nlohmann::json and the standard
# library, parsed and instantiated again for each of ~160 files in each build
# (release, asan, tsan); with the header precompiled a cold build of the tests
# costs about a third less. It is compiled once per build, by the target
# floe_test_pch_donor, and every test executable reuses it (REUSE_FROM): the test
# targets compile with the same options; the definitions some add
# (FLOE_BIN, SIMDJSON_THREADS_ENABLED, CPPHTTPLIB_*) appear in no header of
# pch.h, which both compilers accept. FLOE_TEST_PCH=OFF builds without it (to
# check that every test file includes what it uses).
option(FLOE_TEST_PCH "Precompile tests/testing/pch.h for the test executables" ON)
function(floe_test_pch target)
  if(NOT FLOE_TEST_PCH)
    return()
  endif()
  if(NOT TARGET floe_test_pch_donor)
    set(src ${CMAKE_BINARY_DIR}/floe_test_pch_donor.cc)
    if(NOT EXISTS ${src})
      file(WRITE ${src} "// The donor of the tests' precompiled header (cmake/modules.cmake).\n")
    endif()
    add_library(floe_test_pch_donor OBJECT ${src})
    target_link_libraries(floe_test_pch_donor PRIVATE floe_util GTest::gtest GTest::gmock)
    target_include_directories(floe_test_pch_donor PRIVATE ${CMAKE_SOURCE_DIR}/tests)
    target_compile_definitions(floe_test_pch_donor PRIVATE
      FLOE_SOURCE_DIR="${CMAKE_SOURCE_DIR}" FLOE_BINARY_DIR="${CMAKE_BINARY_DIR}")
    target_precompile_headers(floe_test_pch_donor PRIVATE ${CMAKE_SOURCE_DIR}/tests/testing/pch.h)
    floe_test_pch_flags(floe_test_pch_donor)
  endif()
  target_precompile_headers(${target} REUSE_FROM floe_test_pch_donor)
  floe_test_pch_flags(${target})
endfunction()
function(floe_test_pch_flags target)
  if(CMAKE_CXX_COMPILER_ID STREQUAL "GNU")
    # ccache caches a GCC compile that uses a precompiled header only
    # with this flag.
    target_compile_options(${target} PRIVATE -fpch-preprocess)
  elseif(CMAKE_CXX_COMPILER_ID STREQUAL "Clang")
    # ... and a clang one only when the header has no time stamp.
    target_compile_options(${target} PRIVATE -Xclang -fno-pch-timestamp)
  endif()
endfunction()

# Unity builds of the test executables: a test file's compile is mostly the
# code generated for the templates it instantiates (gtest's and gmock's, the
# matchers, floe's headers), the same in every file of an executable; batches
# of FLOE_TEST_UNITY_BATCH files compile as one translation unit, so each
# instantiation is generated once per batch (table_test's 20 files under ASan:
# 94 CPU s one by one, 43 s in batches of 16). A batch shares one anonymous
# namespace, so every test file puts its file-local names in a namespace named
# after the file (an anonymous one would let a helper of one file be found by
# another, or collide with it). FLOE_TEST_UNITY=OFF compiles each file alone:
# both ways must compile.
option(FLOE_TEST_UNITY "Compile the test executables' files in unity batches" ON)
set(FLOE_TEST_UNITY_BATCH 16 CACHE STRING "Test files per unity batch")
function(floe_test_unity target)
  if(FLOE_TEST_UNITY)
    set_target_properties(${target} PROPERTIES UNITY_BUILD ON UNITY_BUILD_BATCH_SIZE ${FLOE_TEST_UNITY_BATCH})
  endif()
endfunction()

function(floe_add_module_tests)
  foreach(lib ${FLOE_ALL_MODULES})
    string(REPLACE "floe_" "" name ${lib})
    file(GLOB srcs CONFIGURE_DEPENDS ${CMAKE_SOURCE_DIR}/tests/${name}/*.cc)
    if(srcs)
      add_executable(${name}_test ${srcs})
      # Only the module under test (its declared dependencies come with it)
      # and the test support library: a test that uses a higher module does
      # not link, so it belongs with that module's tests or in tests/cli.
      target_link_libraries(${name}_test PRIVATE floe_${name} floe_testing GTest::gtest GTest::gmock GTest::gtest_main)
      target_include_directories(${name}_test PRIVATE ${CMAKE_SOURCE_DIR}/tests ${CMAKE_BINARY_DIR}/gen)
      target_compile_definitions(${name}_test PRIVATE
        FLOE_SOURCE_DIR="${CMAKE_SOURCE_DIR}" FLOE_BINARY_DIR="${CMAKE_BINARY_DIR}")
      floe_test_pch(${name}_test)
      floe_test_unity(${name}_test)
      add_test(NAME ${name} COMMAND ${name}_test WORKING_DIRECTORY ${CMAKE_BINARY_DIR})
    endif()
  endforeach()
endfunction()

function(floe_add_benchmarks)
  file(GLOB_RECURSE srcs CONFIGURE_DEPENDS ${CMAKE_SOURCE_DIR}/src/floe/*_benchmark.cc)
  foreach(src ${srcs})
    get_filename_component(name ${src} NAME_WE)
    add_executable(${name} ${src})
    target_link_libraries(${name} PRIVATE ${FLOE_ALL_MODULES} benchmark::benchmark)
    target_include_directories(${name} PRIVATE ${CMAKE_BINARY_DIR}/gen)
  endforeach()
endfunction()

# The modules a module uses, itself included, lowest first (DEPS, followed).
function(floe_module_closure out)
  set(seen "")
  set(todo ${ARGN})
  while(todo)
    list(POP_FRONT todo m)
    if(NOT m IN_LIST seen)
      list(APPEND seen ${m})
      get_property(deps GLOBAL PROPERTY FLOE_DEPS_${m})
      list(APPEND todo ${deps})
    endif()
  endwhile()
  set(${out} ${seen} PARENT_SCOPE)
endfunction()

function(floe_add_fuzzers)
  # A fuzzer links only the module it lives in (and what that module uses),
  # so the clang build compiles no more than the fuzzed code. libFuzzer's
  # coverage instrumentation (fuzzer-no-link: edge counters and comparison
  # traces) goes on those modules only: the others, the commands and the
  # tests, which share the asan build, are never fuzzed, and the
  # instrumentation costs about a tenth of an ASan compile and slows every
  # instrumented comparison the asan part's tests run.
  file(GLOB_RECURSE srcs CONFIGURE_DEPENDS ${CMAKE_SOURCE_DIR}/src/floe/*_fuzz.cc)
  set(fuzzed "")
  foreach(src ${srcs})
    get_filename_component(dir ${src} DIRECTORY)
    get_filename_component(module ${dir} NAME)
    list(APPEND fuzzed ${module})
  endforeach()
  floe_module_closure(covered ${fuzzed})
  foreach(m ${covered})
    target_compile_options(floe_${m} PRIVATE -fsanitize=fuzzer-no-link)
  endforeach()
  add_custom_target(fuzzers)
  foreach(src ${srcs})
    get_filename_component(name ${src} NAME_WE)
    get_filename_component(dir ${src} DIRECTORY)
    get_filename_component(module ${dir} NAME)
    add_executable(${name} ${src})
    target_link_libraries(${name} PRIVATE floe_${module})
    target_include_directories(${name} PRIVATE ${CMAKE_BINARY_DIR}/gen)
    target_compile_options(${name} PRIVATE -fsanitize=fuzzer)
    target_link_options(${name} PRIVATE -fsanitize=fuzzer)
    add_dependencies(fuzzers ${name})
  endforeach()
endfunction()
