/* A shared library that is not a floe plugin (no manifest). */
__attribute__((visibility("default"))) int not_a_plugin_answer(void) { return 42; }
