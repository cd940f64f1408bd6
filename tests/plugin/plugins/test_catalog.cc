// The test catalog plugin: class test.FileCatalog, a pointer store kept in
// one JSON file, `<warehouse>/test_catalog.json` (rewritten through a
// rename), so that separate floe processes (write, then scan) see the same
// tables. It never reads table metadata: floe writes the metadata files
// and this catalog swaps pointers (the floe_catalog_vtable contract).
// Requests and responses are the REST shapes of <floe/plugin.h>.

#include <floe/plugin.h>

#include <cstdio>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>

FLOE_PLUGIN_MANIFEST("floe-test-catalog", "1.0");

namespace {

using Json = nlohmann::json;
const floe_host_api* g_host = nullptr;

struct Catalog {
  std::string name;
  std::string file;
};

floe_status Err(floe_error* err, floe_status st, const std::string& msg) {
  g_host->set_error(err, msg.data(), msg.size());
  return st;
}

floe_status Reply(floe_bytes_out* out, const Json& j) {
  std::string s = j.dump();
  g_host->set_output(out, s.data(), s.size());
  return FLOE_OK;
}

Json Load(const Catalog* c) {
  std::ifstream in(c->file);
  if (!in) return Json{{"namespaces", Json::object()}, {"tables", Json::object()}};
  std::stringstream ss;
  ss << in.rdbuf();
  return Json::parse(ss.str());
}

bool Save(const Catalog* c, const Json& state) {
  std::string tmp = c->file + ".tmp";
  {
    std::ofstream out(tmp, std::ios::trunc);
    out << state.dump(1);
    if (!out) return false;
  }
  return std::rename(tmp.c_str(), c->file.c_str()) == 0;
}

std::string NsKey(const Json& ns) { return ns.dump(); }
std::string TableKey(const Json& id) {
  return Json::array({id.at("namespace"), id.at("name")}).dump();
}

// Runs `body` on the parsed request and the catalog state; catches what
// nlohmann throws (nothing may unwind into floe).
template <typename F>
floe_status Op(void* state, const char* req, size_t len, floe_bytes_out* out, floe_error* err,
               F body) {
  try {
    auto* c = static_cast<Catalog*>(state);
    Json r = Json::parse(std::string(req, len));
    Json s = Load(c);
    return body(c, r, s, out, err);
  } catch (const std::exception& e) {
    return Err(err, FLOE_FATAL, std::string("test catalog: ") + e.what());
  }
}

floe_status Create(const char* name, const floe_kv* props, size_t n, void** state,
                   floe_error* err) {
  auto* c = new Catalog;
  c->name = name;
  for (size_t i = 0; i < n; ++i) {
    if (std::string(props[i].key) == "warehouse") {
      std::string w = props[i].value;
      if (w.rfind("file:", 0) == 0) w = w.substr(5);
      c->file = w + "/test_catalog.json";
    }
  }
  if (c->file.empty()) {
    delete c;
    return Err(err, FLOE_INVALID_ARGUMENT, "test.FileCatalog needs the option warehouse");
  }
  *state = c;
  return FLOE_OK;
}

void Destroy(void* state) { delete static_cast<Catalog*>(state); }

floe_status ListNamespaces(void* st, const char* q, size_t n, floe_bytes_out* o, floe_error* e) {
  return Op(st, q, n, o, e, [](Catalog*, const Json& r, Json& s, floe_bytes_out* out, floe_error*) {
    Json parent = r.value("parent", Json::array());
    Json list = Json::array();
    for (auto& [k, v] : s["namespaces"].items()) {
      Json ns = Json::parse(k);
      if (ns.size() != parent.size() + 1) continue;
      bool under = true;
      for (size_t i = 0; i < parent.size(); ++i) under = under && ns[i] == parent[i];
      if (under) list.push_back(ns);
    }
    return Reply(out, {{"namespaces", list}});
  });
}

floe_status CreateNamespace(void* st, const char* q, size_t n, floe_bytes_out* o, floe_error* e) {
  return Op(st, q, n, o, e,
            [](Catalog* c, const Json& r, Json& s, floe_bytes_out* out, floe_error* err) {
              std::string key = NsKey(r.at("namespace"));
              if (s["namespaces"].contains(key))
                return Err(err, FLOE_ALREADY_EXISTS, "namespace exists: " + key);
              s["namespaces"][key] = r.value("properties", Json::object());
              if (!Save(c, s)) return Err(err, FLOE_RETRYABLE, "cannot write " + c->file);
              return Reply(out, {{"namespace", r.at("namespace")}});
            });
}

floe_status LoadNamespace(void* st, const char* q, size_t n, floe_bytes_out* o, floe_error* e) {
  return Op(
      st, q, n, o, e, [](Catalog*, const Json& r, Json& s, floe_bytes_out* out, floe_error* err) {
        std::string key = NsKey(r.at("namespace"));
        if (!s["namespaces"].contains(key)) return Err(err, FLOE_NOT_FOUND, "no namespace " + key);
        return Reply(out, {{"namespace", r.at("namespace")}, {"properties", s["namespaces"][key]}});
      });
}

floe_status DropNamespace(void* st, const char* q, size_t n, floe_bytes_out* o, floe_error* e) {
  return Op(st, q, n, o, e,
            [](Catalog* c, const Json& r, Json& s, floe_bytes_out*, floe_error* err) {
              std::string key = NsKey(r.at("namespace"));
              if (!s["namespaces"].contains(key))
                return Err(err, FLOE_NOT_FOUND, "no namespace " + key);
              for (auto& [k, v] : s["tables"].items()) {
                if (Json::parse(k)[0] == r.at("namespace"))
                  return Err(err, FLOE_INVALID_ARGUMENT, "namespace not empty");
              }
              s["namespaces"].erase(key);
              return Save(c, s) ? FLOE_OK : Err(err, FLOE_RETRYABLE, "cannot write " + c->file);
            });
}

floe_status UpdateNamespace(void* st, const char* q, size_t n, floe_bytes_out* o, floe_error* e) {
  return Op(st, q, n, o, e,
            [](Catalog* c, const Json& r, Json& s, floe_bytes_out* out, floe_error* err) {
              std::string key = NsKey(r.at("namespace"));
              if (!s["namespaces"].contains(key))
                return Err(err, FLOE_NOT_FOUND, "no namespace " + key);
              Json& props = s["namespaces"][key];
              Json updated = Json::array(), removed = Json::array(), missing = Json::array();
              for (const auto& k : r.value("removals", Json::array())) {
                if (props.contains(k.get<std::string>())) {
                  props.erase(k.get<std::string>());
                  removed.push_back(k);
                } else {
                  missing.push_back(k);
                }
              }
              for (auto& [k, v] : r.value("updates", Json::object()).items()) {
                props[k] = v;
                updated.push_back(k);
              }
              if (!Save(c, s)) return Err(err, FLOE_RETRYABLE, "cannot write " + c->file);
              return Reply(out, {{"updated", updated}, {"removed", removed}, {"missing", missing}});
            });
}

floe_status ListTables(void* st, const char* q, size_t n, floe_bytes_out* o, floe_error* e) {
  return Op(st, q, n, o, e,
            [](Catalog*, const Json& r, Json& s, floe_bytes_out* out, floe_error* err) {
              if (!s["namespaces"].contains(NsKey(r.at("namespace"))))
                return Err(err, FLOE_NOT_FOUND, "no namespace");
              Json ids = Json::array();
              for (auto& [k, v] : s["tables"].items()) {
                Json key = Json::parse(k);
                if (key[0] == r.at("namespace"))
                  ids.push_back({{"namespace", key[0]}, {"name", key[1]}});
              }
              return Reply(out, {{"identifiers", ids}});
            });
}

floe_status LoadTable(void* st, const char* q, size_t n, floe_bytes_out* o, floe_error* e) {
  return Op(st, q, n, o, e,
            [](Catalog*, const Json& r, Json& s, floe_bytes_out* out, floe_error* err) {
              std::string key = TableKey(r.at("identifier"));
              if (!s["tables"].contains(key)) return Err(err, FLOE_NOT_FOUND, "no table " + key);
              return Reply(out, {{"metadata-location", s["tables"][key]}});
            });
}

floe_status CreateTable(void* st, const char* q, size_t n, floe_bytes_out* o, floe_error* e) {
  return Op(
      st, q, n, o, e, [](Catalog* c, const Json& r, Json& s, floe_bytes_out* out, floe_error* err) {
        if (!s["namespaces"].contains(NsKey(r.at("namespace"))))
          return Err(err, FLOE_NOT_FOUND, "no namespace");
        std::string key = TableKey(Json{{"namespace", r.at("namespace")}, {"name", r.at("name")}});
        if (s["tables"].contains(key)) return Err(err, FLOE_ALREADY_EXISTS, "table exists: " + key);
        s["tables"][key] = r.at("metadata-location");
        if (!Save(c, s)) return Err(err, FLOE_RETRYABLE, "cannot write " + c->file);
        return Reply(out, {{"metadata-location", r.at("metadata-location")}});
      });
}

floe_status CommitTable(void* st, const char* q, size_t n, floe_bytes_out* o, floe_error* e) {
  return Op(st, q, n, o, e,
            [](Catalog* c, const Json& r, Json& s, floe_bytes_out* out, floe_error* err) {
              std::string key = TableKey(r.at("identifier"));
              if (!s["tables"].contains(key)) return Err(err, FLOE_NOT_FOUND, "no table " + key);
              if (s["tables"][key] != r.at("base-metadata-location")) {
                return Err(err, FLOE_COMMIT_FAILED,
                           "the table moved on to " + s["tables"][key].get<std::string>());
              }
              if (!r.contains("updates") || !r["updates"].is_array())
                return Err(err, FLOE_INVALID_ARGUMENT, "no updates");
              s["tables"][key] = r.at("metadata-location");
              if (!Save(c, s))
                return Err(err, FLOE_COMMIT_STATE_UNKNOWN, "cannot write " + c->file);
              return Reply(out, {{"metadata-location", r.at("metadata-location")}});
            });
}

floe_status DropTable(void* st, const char* q, size_t n, floe_bytes_out* o, floe_error* e) {
  return Op(st, q, n, o, e,
            [](Catalog* c, const Json& r, Json& s, floe_bytes_out*, floe_error* err) {
              std::string key = TableKey(r.at("identifier"));
              if (!s["tables"].contains(key)) return Err(err, FLOE_NOT_FOUND, "no table " + key);
              s["tables"].erase(key);
              return Save(c, s) ? FLOE_OK : Err(err, FLOE_RETRYABLE, "cannot write " + c->file);
            });
}

floe_status RenameTable(void* st, const char* q, size_t n, floe_bytes_out* o, floe_error* e) {
  return Op(st, q, n, o, e,
            [](Catalog* c, const Json& r, Json& s, floe_bytes_out*, floe_error* err) {
              std::string from = TableKey(r.at("source")), to = TableKey(r.at("destination"));
              if (!s["tables"].contains(from)) return Err(err, FLOE_NOT_FOUND, "no table " + from);
              if (s["tables"].contains(to))
                return Err(err, FLOE_ALREADY_EXISTS, "table exists: " + to);
              s["tables"][to] = s["tables"][from];
              s["tables"].erase(from);
              return Save(c, s) ? FLOE_OK : Err(err, FLOE_RETRYABLE, "cannot write " + c->file);
            });
}

const floe_catalog_vtable kCatalog = {sizeof(floe_catalog_vtable),
                                      0,
                                      Create,
                                      ListNamespaces,
                                      CreateNamespace,
                                      LoadNamespace,
                                      DropNamespace,
                                      UpdateNamespace,
                                      ListTables,
                                      LoadTable,
                                      CreateTable,
                                      CommitTable,
                                      DropTable,
                                      RenameTable,
                                      nullptr /* register_table: FLOE_UNSUPPORTED */,
                                      Destroy};

}  // namespace

FLOE_PLUGIN_INIT(host, reg, err) {
  g_host = host;
  return host->register_catalog(reg, "test.FileCatalog", &kCatalog);
}
