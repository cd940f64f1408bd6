// FileIO: the local file system (over the free functions of floe/io/file.h),
// the prefix-mapping decorator and the scheme registry.
#include "floe/io/file_io.h"

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <mutex>

namespace floe::io {

namespace fs = std::filesystem;

namespace {

std::string ErrnoText(int err) { return std::strerror(err); }

std::string_view TrimSlashes(std::string_view s) {
  while (s.size() > 1 && s.back() == '/') s.remove_suffix(1);
  return s;
}

// The folder of a local path, as CreateLocalFolders walks it.
std::string ParentOf(const std::string& path) {
  auto slash = path.rfind('/');
  if (slash == std::string::npos) return ".";
  if (slash == 0) return "/";
  return path.substr(0, slash);
}

int64_t MillisOf(const struct stat& st) {
  return int64_t{st.st_mtim.tv_sec} * 1000 + st.st_mtim.tv_nsec / 1000000;
}

EntryKind KindOf(mode_t mode) {
  if (S_ISREG(mode)) return EntryKind::kFile;
  if (S_ISDIR(mode)) return EntryKind::kFolder;
  return EntryKind::kOther;
}

// `below` spelled under `location` instead of under `root` (a listing of a
// folder reports locations in the caller's spelling).
std::string Respell(std::string_view location, std::string_view root, std::string_view below) {
  std::string_view rel = below.substr(std::min(root.size(), below.size()));
  while (rel.starts_with("/")) rel.remove_prefix(1);
  std::string out(TrimSlashes(location));
  if (rel.empty()) return out;
  if (!out.ends_with("/")) out += "/";
  out += rel;
  return out;
}

// ------------------------------------------------------------------ local

class LocalFileIOImpl final : public FileIO {
 public:
  std::string_view name() const override { return "local"; }

  Result<std::unique_ptr<InputFile>> NewInput(std::string_view location) override {
    FLOE_ASSIGN_OR_RETURN(std::string path, LocalPathOfUri(location));
    return OpenLocalInput(std::move(path));
  }

  Result<std::unique_ptr<OutputFile>> NewOutput(std::string_view location,
                                                const OutputOptions& o) override {
    FLOE_ASSIGN_OR_RETURN(std::string path, LocalPathOfUri(location));
    if (!o.create_parents) return OpenLocalOutput(std::move(path), o.overwrite, o.sync);
    const std::string dir = ParentOf(path);
    for (int attempt = 0;; ++attempt) {
      FLOE_RETURN_IF_ERROR(CreateLocalFolders(dir, o.created_folders));
      auto out = OpenLocalOutput(path, o.overwrite, o.sync);
      // Another write that failed removed the empty folder it had made,
      // between our check and our open: make it again (a few times at most).
      if (out || out.error().kind != ErrorKind::kNotFound || attempt >= 8) return out;
    }
  }

  Status Delete(std::string_view location) override {
    FLOE_ASSIGN_OR_RETURN(std::string path, LocalPathOfUri(location));
    struct stat st {};
    if (::lstat(path.c_str(), &st) != 0) {
      if (errno == ENOENT || errno == ENOTDIR) return Ok();
      return IoError("cannot delete {}: {}", location, ErrnoText(errno));
    }
    if (S_ISDIR(st.st_mode)) return InvalidArgument("cannot delete {}: it is a folder, not a file", location);
    if (::unlink(path.c_str()) != 0 && errno != ENOENT) {
      return IoError("cannot delete {}: {}", location, ErrnoText(errno));
    }
    return Ok();
  }

  Result<bool> Exists(std::string_view location) override {
    FLOE_ASSIGN_OR_RETURN(std::string path, LocalPathOfUri(location));
    struct stat st {};
    if (::stat(path.c_str(), &st) == 0) return true;
    if (errno == ENOENT || errno == ENOTDIR) return false;
    return IoError("cannot look at {}: {}", location, ErrnoText(errno));
  }

  Result<FileInfo> Stat(std::string_view location) override {
    FLOE_ASSIGN_OR_RETURN(std::string path, LocalPathOfUri(location));
    struct stat st {};
    if (::lstat(path.c_str(), &st) != 0) {
      if (errno == ENOENT || errno == ENOTDIR) return NotFound("{} does not exist", location);
      return IoError("cannot look at {}: {}", location, ErrnoText(errno));
    }
    return FileInfo{std::string(location), KindOf(st.st_mode), static_cast<int64_t>(st.st_size),
                    MillisOf(st)};
  }

  Status ListFiles(std::string_view location,
                   const std::function<Status(const FileInfo&)>& visit) override {
    FLOE_ASSIGN_OR_RETURN(std::string path, LocalPathOfUri(location));
    const std::string root(TrimSlashes(path));
    std::error_code ec;
    if (!fs::is_directory(root, ec)) return Ok();
    // directory_options::none: folders behind symbolic links are not entered.
    fs::recursive_directory_iterator it(root, fs::directory_options::none, ec);
    if (ec) return IoError("cannot list {}: {}", location, ec.message());
    for (; it != fs::recursive_directory_iterator(); it.increment(ec)) {
      if (ec) return IoError("cannot list {}: {}", location, ec.message());
      const std::string p = it->path().string();
      struct stat st {};
      if (::lstat(p.c_str(), &st) != 0) continue;  // gone meanwhile
      if (!S_ISREG(st.st_mode)) continue;
      FLOE_RETURN_IF_ERROR(visit(FileInfo{Respell(location, root, p), EntryKind::kFile,
                                          static_cast<int64_t>(st.st_size), MillisOf(st)}));
    }
    if (ec) return IoError("cannot list {}: {}", location, ec.message());
    return Ok();
  }

  Result<std::vector<FileInfo>> ListFolder(std::string_view location) override {
    FLOE_ASSIGN_OR_RETURN(std::string path, LocalPathOfUri(location));
    const std::string root(TrimSlashes(path));
    std::error_code ec;
    if (!fs::is_directory(root, ec)) return NotFound("folder {} does not exist", location);
    std::vector<FileInfo> out;
    for (fs::directory_iterator it(root, ec); !ec && it != fs::directory_iterator(); it.increment(ec)) {
      const std::string p = it->path().string();
      struct stat st {};
      // A symbolic link is listed as what it points to (a namespace folder
      // may be a link); a dangling one is kOther.
      if (::stat(p.c_str(), &st) != 0 && ::lstat(p.c_str(), &st) != 0) continue;
      out.push_back(FileInfo{Respell(location, root, p), KindOf(st.st_mode),
                             static_cast<int64_t>(st.st_size), MillisOf(st)});
    }
    if (ec) return IoError("cannot list {}: {}", location, ec.message());
    std::sort(out.begin(), out.end(),
              [](const FileInfo& a, const FileInfo& b) { return a.location < b.location; });
    return out;
  }

  Status CreateFolders(std::string_view location, std::vector<std::string>* created) override {
    FLOE_ASSIGN_OR_RETURN(std::string path, LocalPathOfUri(location));
    return CreateLocalFolders(path, created);
  }

  Result<bool> RemoveFolderIfEmpty(std::string_view location) override {
    FLOE_ASSIGN_OR_RETURN(std::string path, LocalPathOfUri(location));
    if (::rmdir(path.c_str()) == 0 || errno == ENOENT) return true;
    if (errno == ENOTEMPTY || errno == EEXIST) return false;
    return IoError("cannot remove folder {}: {}", location, ErrnoText(errno));
  }

  Status DeletePrefix(std::string_view location) override {
    FLOE_ASSIGN_OR_RETURN(std::string path, LocalPathOfUri(location));
    std::error_code ec;
    fs::remove_all(path, ec);
    if (ec) return IoError("cannot remove {}: {}", location, ec.message());
    return Ok();
  }

  void ReleaseFolders(std::string_view location, std::set<std::string>* created) override {
    auto path = LocalPathOfUri(location);
    if (!path || !created) return;
    // Walk up, removing the folders this writer made; stop at the first
    // folder that is not empty or not ours (its parents hold it, so they are
    // not empty either). A folder already gone (removed by an earlier call)
    // is passed.
    fs::path dir = fs::path(*path).parent_path();
    while (!dir.empty()) {
      auto it = created->find(dir.string());
      if (it == created->end()) {
        std::error_code ec;
        if (fs::exists(dir, ec) || ec) break;
      } else if (::rmdir(it->c_str()) == 0 || errno == ENOENT) {
        created->erase(it);
      } else {
        break;
      }
      if (dir == dir.parent_path()) break;
      dir = dir.parent_path();
    }
  }

  Result<std::string> Canonical(std::string_view location) override {
    FLOE_ASSIGN_OR_RETURN(std::string path, LocalPathOfUri(location));
    return AbsolutePath(path);
  }

  Result<std::string> Resolve(std::string_view location) override {
    FLOE_ASSIGN_OR_RETURN(std::string path, Canonical(location));
    std::error_code ec;
    fs::path r = fs::weakly_canonical(path, ec);
    return ec ? path : AbsolutePath(r.string());
  }

  Result<std::string> LocalPath(std::string_view location) override { return LocalPathOfUri(location); }
};

// ------------------------------------------------------------------ mapped

class MappedFileIOImpl final : public FileIO {
 public:
  MappedFileIOImpl(LocationMapper mapper, FileIOPtr inner)
      : mapper_(std::move(mapper)), inner_(std::move(inner)) {}

  std::string_view name() const override { return "mapped"; }

  Result<std::unique_ptr<InputFile>> NewInput(std::string_view location) override {
    Mapped m = Map(location);
    return m.Wrap(inner_->NewInput(m.target));
  }
  Result<std::unique_ptr<OutputFile>> NewOutput(std::string_view location,
                                                const OutputOptions& o) override {
    Mapped m = Map(location);
    return m.Wrap(inner_->NewOutput(m.target, o));
  }
  Status PublishIfAbsent(std::string_view location, std::string_view data, bool sync) override {
    Mapped m = Map(location);
    return m.Wrap(inner_->PublishIfAbsent(m.target, data, sync));
  }
  Status Delete(std::string_view location) override {
    Mapped m = Map(location);
    return m.Wrap(inner_->Delete(m.target));
  }
  Result<bool> Exists(std::string_view location) override {
    Mapped m = Map(location);
    return m.Wrap(inner_->Exists(m.target));
  }
  Result<FileInfo> Stat(std::string_view location) override {
    Mapped m = Map(location);
    FLOE_ASSIGN_OR_RETURN(FileInfo info, m.Wrap(inner_->Stat(m.target)));
    info.location = std::string(location);
    return info;
  }
  Status ListFiles(std::string_view location,
                   const std::function<Status(const FileInfo&)>& visit) override {
    Mapped m = Map(location);
    const std::string root(TrimSlashes(m.target));
    return m.Wrap(inner_->ListFiles(m.target, [&](const FileInfo& f) {
      FileInfo out = f;
      out.location = Respell(location, root, f.location);
      return visit(out);
    }));
  }
  Result<std::vector<FileInfo>> ListFolder(std::string_view location) override {
    Mapped m = Map(location);
    const std::string root(TrimSlashes(m.target));
    FLOE_ASSIGN_OR_RETURN(auto entries, m.Wrap(inner_->ListFolder(m.target)));
    for (auto& e : entries) e.location = Respell(location, root, e.location);
    return entries;
  }
  Status CreateFolders(std::string_view location, std::vector<std::string>* created) override {
    Mapped m = Map(location);
    return m.Wrap(inner_->CreateFolders(m.target, created));
  }
  Result<bool> RemoveFolderIfEmpty(std::string_view location) override {
    Mapped m = Map(location);
    return m.Wrap(inner_->RemoveFolderIfEmpty(m.target));
  }
  Status DeletePrefix(std::string_view location) override {
    Mapped m = Map(location);
    return m.Wrap(inner_->DeletePrefix(m.target));
  }
  void ReleaseFolders(std::string_view location, std::set<std::string>* created) override {
    // `created` holds the inner FileIO's folder names: passed through as they are.
    inner_->ReleaseFolders(Map(location).target, created);
  }
  Result<std::string> Canonical(std::string_view location) override {
    Mapped m = Map(location);
    return m.Wrap(inner_->Canonical(m.target));
  }
  Result<std::string> Resolve(std::string_view location) override {
    Mapped m = Map(location);
    return m.Wrap(inner_->Resolve(m.target));
  }
  Result<std::string> LocalPath(std::string_view location) override {
    Mapped m = Map(location);
    return m.Wrap(inner_->LocalPath(m.target));
  }

 private:
  struct Mapped {
    std::string location;
    std::string target;
    bool mapped = false;  ///< a prefix rule applied (not just a file: URI made a path)

    // Errors of a mapped location name the location as well as the path.
    template <typename T>
    T Wrap(T r) const {
      if (r || !mapped) return r;
      return Fail(std::move(r).error().WithContext(fmt::format("location {}", location)));
    }
  };

  Mapped Map(std::string_view location) const {
    Mapped m{std::string(location), std::string(location), false};
    auto local = mapper_.ToLocal(location);
    if (!local) return m;  // not ours: the inner FileIO decides (and names the scheme)
    auto plain = LocalPathOfUri(location);
    m.mapped = !plain || *plain != *local;
    m.target = std::move(*local);
    return m;
  }

  LocationMapper mapper_;
  FileIOPtr inner_;
};

// ---------------------------------------------------------------- registry

struct Registry {
  std::mutex mu;
  std::map<std::string, FileIOFactory> factories;
};

Registry& GetRegistry() {
  static Registry* r = [] {
    auto* reg = new Registry;
    reg->factories["file"] = [](const std::map<std::string, std::string>&) -> Result<FileIOPtr> {
      return LocalFileIO();
    };
    return reg;
  }();
  return *r;
}

}  // namespace

Status FileIO::PublishIfAbsent(std::string_view location, std::string_view data, bool sync) {
  // The folders made for the file are removed again when nothing was
  // published (a failed first commit of a table leaves no empty table folder
  // that would list as a namespace).
  std::vector<std::string> made;
  auto release = [&] {
    std::set<std::string> created(made.begin(), made.end());
    ReleaseFolders(location, &created);
  };
  OutputOptions o;
  o.overwrite = false;
  o.sync = sync;
  o.create_parents = true;
  o.created_folders = &made;
  auto out = NewOutput(location, o);
  if (!out) {
    release();
    return Fail(std::move(out).error());
  }
  if (Status st = (*out)->Write(data.data(), data.size()); !st) {
    (*out)->Abort();
    release();
    return st;
  }
  Status st = (*out)->Commit();
  if (st) return st;
  if (st.error().kind != ErrorKind::kAlreadyExists) {
    // The file may have been published before a later step (a folder sync)
    // failed: then nobody can tell whether it counts, and nothing is removed.
    auto there = Exists(location);
    if (!there || *there) {
      return CommitStateUnknown("{} may have been published: {}", location, st.error().message);
    }
  }
  release();
  return st;
}

Result<std::string> ReadFile(FileIO& io, std::string_view location) {
  FLOE_ASSIGN_OR_RETURN(auto in, io.NewInput(location));
  std::string out(static_cast<size_t>(in->Size()), '\0');
  FLOE_RETURN_IF_ERROR(in->ReadAt(0, out.size(), reinterpret_cast<uint8_t*>(out.data())));
  return out;
}

Status WriteFile(FileIO& io, std::string_view location, std::string_view data, bool overwrite) {
  OutputOptions o;
  o.overwrite = overwrite;
  FLOE_ASSIGN_OR_RETURN(auto out, io.NewOutput(location, o));
  FLOE_RETURN_IF_ERROR(out->Write(data.data(), data.size()));
  return out->Commit();
}

FileIOPtr LocalFileIO() {
  static const FileIOPtr local = std::make_shared<LocalFileIOImpl>();
  return local;
}

FileIOPtr MappedFileIO(LocationMapper mapper, FileIOPtr inner) {
  return std::make_shared<MappedFileIOImpl>(std::move(mapper), std::move(inner));
}

std::string SchemeOf(std::string_view location) {
  // RFC 3986: ALPHA *( ALPHA / DIGIT / "+" / "-" / "." ) ":". One letter
  // before a colon is taken for a path, not a scheme.
  size_t colon = location.find(':');
  if (colon == std::string_view::npos || colon < 2) return "file";
  std::string scheme;
  for (size_t i = 0; i < colon; ++i) {
    const auto c = static_cast<unsigned char>(location[i]);
    const bool ok = std::isalpha(c) || (i > 0 && (std::isdigit(c) || c == '+' || c == '-' || c == '.'));
    if (!ok) return "file";
    scheme.push_back(static_cast<char>(std::tolower(c)));
  }
  return scheme;
}

Result<std::string> LocalPathOfUri(std::string_view location) {
  if (location.empty()) return InvalidArgument("empty location");
  const std::string scheme = SchemeOf(location);
  if (scheme != "file") {
    return Unsupported(
        "location '{}' uses the scheme '{}', which is not on the local file system: reach it through its "
        "own FileIO (an s3:// warehouse with the s3.* catalog properties), or map its prefix to a local "
        "folder with --map PREFIX=DIR",
        location, scheme);
  }
  if (location.find(':') != 4) return std::string(location);  // a plain path
  // A `file:` URI (any letter case): file:/p, file:///p, file://localhost/p.
  return LocationMapper().ToLocal(std::string("file:") + std::string(location.substr(5)));
}

void RegisterFileIO(const std::string& scheme, FileIOFactory factory) {
  auto& r = GetRegistry();
  std::lock_guard lock(r.mu);
  r.factories[scheme] = std::move(factory);
}

Result<FileIOPtr> OpenFileIO(std::string_view location, const std::map<std::string, std::string>& properties) {
  const std::string scheme = SchemeOf(location);
  auto& r = GetRegistry();
  FileIOFactory factory;
  std::string known;
  {
    std::lock_guard lock(r.mu);
    if (auto it = r.factories.find(scheme); it != r.factories.end()) factory = it->second;
    for (const auto& [k, v] : r.factories) known += (known.empty() ? "" : ", ") + k;
  }
  if (!factory) {
    return Unsupported(
        "location '{}': no FileIO for the scheme '{}' (available here: {}; S3's s3, s3a and s3n are "
        "registered by floe's catalogs and command line)",
        location, scheme, known);
  }
  auto io = factory(properties);
  if (!io) return Fail(std::move(io).error().WithContext(fmt::format("FileIO for {}", location)));
  return io;
}

}  // namespace floe::io
