"""Turns a source into a module file on disk (apps/runtime/src/load/function-source.ts): exactly one of
inline text, a local file, an http(s) URL, or a built package folder (`dir`, its module `main`,
default main.py: docs/packages.md). Inline and downloaded code is written into the work dir
under a content-addressed, read-only name (`function-<sha256[:16]>.py`), so the same code is written
once and new code never meets the old module's cache."""
import hashlib
import os
import urllib.error
import urllib.parse
import urllib.request

from .load_error import LoadError

DEFAULT_MAX_SOURCE_BYTES = 8 * 1024 * 1024


def materialize_source(source, work_dir, max_bytes=DEFAULT_MAX_SOURCE_BYTES, fetch_timeout=30.0, opener=urllib.request.urlopen):
    given = [k for k in ("inline", "file", "url", "dir") if (source or {}).get(k) is not None]
    if len(given) != 1:
        raise LoadError("source_invalid", "give exactly one of source inline, file, url or dir (got %s)" % (", ".join(given) if given else "none"))
    if source.get("main") is not None and source.get("dir") is None:
        raise LoadError("source_invalid", "source main goes with source dir (a package folder)")
    if source.get("dir") is not None:
        return package_module_path(source["dir"], source.get("main"))
    if source.get("file") is not None:
        path = os.path.abspath(source["file"])
        if not os.path.isfile(path):
            raise LoadError("source_not_found", "source file %s does not exist or is not a file" % path)
        return path
    if source.get("inline") is not None:
        data = source["inline"].encode("utf-8")
        if len(data) == 0:
            raise LoadError("source_invalid", "inline source is empty")
        if len(data) > max_bytes:
            raise LoadError("source_too_large", "inline source is %d bytes, over the %d-byte limit" % (len(data), max_bytes))
        return write_content_addressed(work_dir, data)
    return write_content_addressed(work_dir, download(source["url"], max_bytes, fetch_timeout, opener))


def package_module_path(folder, main=None):
    """The package's module, never a file outside the folder (a main of "../x" or a symlink out is refused)."""
    root = os.path.realpath(folder)
    if not os.path.isdir(root):
        raise LoadError("source_not_found", "package folder %s does not exist" % folder)
    chosen = main or "main.py"
    path = os.path.realpath(os.path.join(root, chosen))
    if os.path.commonpath([root, path]) != root or path == root or not os.path.isfile(path):
        raise LoadError("source_not_found", "package folder %s has no module %s inside it; set package.main to the module to load" % (folder, chosen))
    return path


def download(text, max_bytes, timeout, opener):
    try:
        url = urllib.parse.urlsplit(text)
    except ValueError:
        raise LoadError("source_invalid", 'source url "%s" is not a valid URL' % text) from None
    if url.scheme not in ("http", "https") or not url.netloc:
        raise LoadError("source_invalid", "source url must be http(s), got %s" % ((url.scheme + ":") if url.scheme else repr(text)))
    # Never echo query strings: presigned URLs carry credentials there.
    shown = "%s://%s%s" % (url.scheme, url.netloc.rpartition("@")[2], url.path)
    try:
        res = opener(text, timeout=timeout)
    except urllib.error.HTTPError as e:
        e.close()
        raise LoadError("source_fetch_failed", "fetching source %s answered HTTP %d" % (shown, e.code)) from None
    except Exception as e:
        raise LoadError("source_fetch_failed", "cannot fetch source %s: %s" % (shown, getattr(e, "reason", None) or type(e).__name__)) from None
    with res:
        declared = res.headers.get("content-length")
        if declared is not None and declared.isdigit() and int(declared) > max_bytes:
            raise LoadError("source_too_large", "source %s is %s bytes, over the %d-byte limit" % (shown, declared, max_bytes))
        chunks, size = [], 0
        try:
            while True:
                chunk = res.read(65536)
                if not chunk:
                    break
                size += len(chunk)
                if size > max_bytes:
                    raise LoadError("source_too_large", "source %s exceeds the %d-byte limit" % (shown, max_bytes))
                chunks.append(chunk)
        except LoadError:
            raise
        except Exception as e:
            raise LoadError("source_fetch_failed", "reading source %s failed: %s" % (shown, type(e).__name__)) from None
    if size == 0:
        raise LoadError("source_invalid", "source %s is empty" % shown)
    return b"".join(chunks)


def write_content_addressed(directory, data):
    os.makedirs(directory, exist_ok=True)
    path = os.path.join(directory, "function-%s.py" % hashlib.sha256(data).hexdigest()[:16])
    # Written read-only; an existing file with this name already holds these bytes.
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o444)
    except FileExistsError:
        return path
    with os.fdopen(fd, "wb") as f:
        f.write(data)
    return path
