"""Finding the two native pieces: the extension module backplane._C and
libbackplane.so (which _C dlopen()s; it is not linked against it).

libbackplane.so, first match wins:
  1. $BACKPLANE_LIB (a file, or a directory holding libbackplane.so); when
     set, nothing else is tried: an explicit choice never falls back;
  2. next to this package (a wheel: `pip install ./bindings/python`), or next
     to backplane._C when that was found elsewhere (an editable install);
  3. the CMake build tree this package was copied into (<build>/python/backplane
     -> <build>/lib), also relative to where backplane._C was found;
  4. the repository's build tree (<repo>/bindings/python/backplane ->
     <repo>/build/lib);
  5. the dynamic linker's search path (LD_LIBRARY_PATH, ldconfig: a library
     installed with `cmake --install`, whose plugins sit beside it).
The ImportError raised when all fail lists every place tried and why.
"""
import os
import sys

LIBRARY_NAME = "libbackplane.so"
_PACKAGE_DIR = os.path.dirname(os.path.abspath(__file__))


def library_candidates(extension_dir=None):
    """(where, path) pairs in search order; see the module docstring.
    extension_dir: where backplane._C was found, when not in this package."""
    env = os.environ.get("BACKPLANE_LIB")
    if env:
        path = os.path.join(env, LIBRARY_NAME) if os.path.isdir(env) else env
        return [("BACKPLANE_LIB", path)]
    found = [("next to the package", os.path.join(_PACKAGE_DIR, LIBRARY_NAME))]
    for d in [_PACKAGE_DIR] + ([extension_dir] if extension_dir else []):
        if d != _PACKAGE_DIR:
            found.append(("next to backplane._C", os.path.join(d, LIBRARY_NAME)))
        found.append(("build tree", os.path.normpath(
            os.path.join(d, "..", "..", "lib", LIBRARY_NAME))))
    found.append(("repository build tree", os.path.normpath(
        os.path.join(_PACKAGE_DIR, "..", "..", "..", "build", "lib", LIBRARY_NAME))))
    found += [
        ("dynamic linker search path", LIBRARY_NAME + ".0"),
        ("dynamic linker search path", LIBRARY_NAME),
    ]
    return found


def _extension_candidates():
    """Directories that may hold a built backplane/_C*.so when this package is
    imported from the source tree (bindings/python)."""
    dirs = []
    env = os.environ.get("BACKPLANE_LIB")
    if env:
        lib_dir = env if os.path.isdir(env) else os.path.dirname(env)
        dirs.append(os.path.join(lib_dir, "..", "python", "backplane"))
    dirs.append(os.path.join(_PACKAGE_DIR, "..", "..", "..", "build", "python", "backplane"))
    # a package built elsewhere but shadowed by this one on sys.path
    dirs.extend(os.path.join(p or os.curdir, "backplane") for p in sys.path)
    seen, out = set(), []
    for d in dirs:
        d = os.path.normpath(os.path.abspath(d))
        if d != _PACKAGE_DIR and d not in seen and os.path.isdir(d):
            seen.add(d)
            out.append(d)
    return out


def import_extension():
    """backplane._C: built in place (pip, CMake build tree), or else found in a
    build tree when the package is used straight from the source tree."""
    try:
        from . import _C
        return _C
    except ImportError:
        pass
    import importlib.machinery
    import importlib.util
    tried = [os.path.join(_PACKAGE_DIR, "_C*.so")]
    for d in _extension_candidates():
        for suffix in importlib.machinery.EXTENSION_SUFFIXES:
            path = os.path.join(d, "_C" + suffix)
            tried.append(path)
            if os.path.isfile(path):
                spec = importlib.util.spec_from_file_location("backplane._C", path)
                module = importlib.util.module_from_spec(spec)
                sys.modules["backplane._C"] = module
                spec.loader.exec_module(module)
                return module
    raise ImportError(
        "backplane: the extension module backplane._C is not built.\n"
        "Looked for:\n  {}\n"
        "Build it with CMake (it lands in <build>/python/backplane; put <build>/python "
        "on PYTHONPATH) or install the package: pip install ./bindings/python "
        "(builds the project with CMake; needs the packages of scripts/install-deps.sh)".format("\n  ".join(tried))
    ) from None


def load(ext):
    """dlopen()s libbackplane.so through the extension; returns its path."""
    ext_dir = os.path.dirname(os.path.abspath(getattr(ext, "__file__", "") or _PACKAGE_DIR))
    attempts = []
    for where, path in library_candidates(ext_dir if ext_dir != _PACKAGE_DIR else None):
        is_file_path = os.sep in path
        if is_file_path and not os.path.exists(path):
            attempts.append("{}: {} (no such file)".format(where, path))
            continue
        try:
            return ext.load(path)
        except OSError as e:
            attempts.append("{}: {} ({})".format(where, path, e))
    raise ImportError(
        "backplane: cannot load {}. Looked in:\n  {}\n"
        "Set BACKPLANE_LIB to the library (e.g. <build>/lib/libbackplane.so) or to its "
        "directory.".format(LIBRARY_NAME, "\n  ".join(attempts)))
