/* Plugins that the loader must refuse or accept, one per build of this file
 * (tests/plugin/plugins/CMakeLists.txt sets the macros):
 *   ABI_MAJOR / ABI_MINOR  the versions the manifest claims
 *   BAD_MAGIC              a manifest with the wrong magic
 *   FAIL_INIT              floe_plugin_init fails with a message
 *   CLASS_NAME             the sink class it registers (a taken name: refused)
 *   NO_INIT                no floe_plugin_init at all
 *   LOAD_TRAP              a static constructor that, as FLOE_TEST_LOAD_TRAP says,
 *                          crashes (SIGSEGV: "crash") or ends the process ("exit");
 *                          without the variable the library loads as any other */
#include <floe/plugin.h>
#include <stdlib.h>
#include <string.h>

#ifdef LOAD_TRAP
__attribute__((constructor)) static void LoadTrap(void) {
  const char* what = getenv("FLOE_TEST_LOAD_TRAP");
  if (what != NULL && strcmp(what, "crash") == 0) {
    volatile int* p = NULL;
    *p = 1;
  }
  if (what != NULL && strcmp(what, "exit") == 0) exit(0);
}
#endif

#ifndef ABI_MAJOR
#define ABI_MAJOR FLOE_PLUGIN_ABI_MAJOR
#endif
#ifndef ABI_MINOR
#define ABI_MINOR FLOE_PLUGIN_ABI_MINOR
#endif
#ifdef BAD_MAGIC
#define MAGIC 0x1234ULL
#else
#define MAGIC FLOE_PLUGIN_MAGIC
#endif
#ifndef CLASS_NAME
#define CLASS_NAME "test.AbiSink"
#endif

FLOE_PLUGIN_EXPORT extern const floe_manifest floe_plugin_manifest;
const floe_manifest floe_plugin_manifest = {sizeof(floe_manifest), ABI_MAJOR, MAGIC, ABI_MINOR, 0,
                                            "floe-test-abi",       "0"};

static floe_status Create(const floe_sink_context* ctx, void** state, floe_error* err) {
  (void)ctx;
  (void)err;
  *state = NULL;
  return FLOE_OK;
}
static floe_status Invoke(void* state, bool flag, const floe_row* row, floe_error* err) {
  (void)state;
  (void)flag;
  (void)row;
  (void)err;
  return FLOE_OK;
}
static void Destroy(void* state) { (void)state; }

__attribute__((unused)) static const floe_sink_vtable kVtable = {
    sizeof(floe_sink_vtable), 0, Create, NULL, Invoke, NULL, NULL, NULL, NULL, NULL, NULL, Destroy};

#ifndef NO_INIT
FLOE_PLUGIN_INIT(host, reg, err) {
#ifdef FAIL_INIT
  static const char kMsg[] = "the license file is missing";
  host->set_error(err, kMsg, strlen(kMsg));
  return FLOE_FATAL;
#else
  (void)err;
  return host->register_sink(reg, CLASS_NAME, &kVtable);
#endif
}
#endif
