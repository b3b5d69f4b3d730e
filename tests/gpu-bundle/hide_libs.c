/* hide_libs: an rtld-audit module (LD_AUDIT, see rtld-audit(7)) that makes
 * this machine look like the bare GPU image to the programs of a GPU
 * bundle. LD_LIBRARY_PATH cannot do that: the loader still searches its
 * cache and the system folders after it, so a library the bundle forgot
 * would be found here and missed there.
 *
 * In a process whose executable lies under BP_HIDE_ROOT, every place the
 * loader tries for a library (and every path given to dlopen) is refused
 * unless it lies under BP_HIDE_ROOT or its file name matches one of the
 * colon-separated glob patterns of BP_HIDE_ALLOW (the libraries the image
 * has: glibc, libstdc++, the CUDA libraries). Any other process (the shell
 * and tools running the bundle inherit LD_AUDIT too) is left alone.
 * BP_HIDE_LOG=1 prints each refused path on standard error. */
#define _GNU_SOURCE
#include <fnmatch.h>
#include <link.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char root[4096]; /* BP_HIDE_ROOT with a trailing '/'; empty: not a bundled process */
static const char *allow = "";
static int log_refusals = 0;

static int under_root(const char *path) { return strncmp(path, root, strlen(root)) == 0; }

static int allowed_name(const char *path) {
  const char *slash = strrchr(path, '/');
  const char *file = slash ? slash + 1 : path;
  const char *p = allow;
  while (*p) {
    const char *end = strchr(p, ':');
    size_t n = end ? (size_t)(end - p) : strlen(p);
    char pattern[256];
    if (n > 0 && n < sizeof pattern) {
      memcpy(pattern, p, n);
      pattern[n] = '\0';
      if (fnmatch(pattern, file, 0) == 0) return 1;
    }
    p += n + (end ? 1 : 0);
  }
  return 0;
}

unsigned int la_version(unsigned int version) {
  const char *r = getenv("BP_HIDE_ROOT");
  char want[4096], exe[4096];
  ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
  if (r && *r && realpath(r, want) && n > 0 && strlen(want) + 2 < sizeof root) {
    exe[n] = '\0';
    strcat(want, "/");
    if (strncmp(exe, want, strlen(want)) == 0) strcpy(root, want);
  }
  const char *a = getenv("BP_HIDE_ALLOW");
  if (a) allow = a;
  const char *l = getenv("BP_HIDE_LOG");
  log_refusals = l && strcmp(l, "1") == 0;
  return version < LAV_CURRENT ? version : LAV_CURRENT;
}

char *la_objsearch(const char *name, uintptr_t *cookie, unsigned int flag) {
  (void)cookie;
  if (!root[0]) return (char *)name;
  /* A bare soname is the start of a search: judged at each place tried. */
  if (flag == LA_SER_ORIG && !strchr(name, '/')) return (char *)name;
  if (under_root(name) || allowed_name(name)) return (char *)name;
  if (log_refusals) fprintf(stderr, "hide_libs: refused %s\n", name);
  return NULL;
}
