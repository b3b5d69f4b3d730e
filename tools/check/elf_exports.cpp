#include "elf_exports.hpp"

#include <elf.h>

#include <cstring>
#include <fstream>
#include <iterator>

#include "backplane/plugin.h"

namespace bpcheck {

std::vector<std::string> extra_exports(const std::string &path, std::string *error) {
  std::vector<std::string> out;
  std::ifstream in(path, std::ios::binary);
  std::vector<char> file((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (file.size() < sizeof(Elf64_Ehdr) || std::memcmp(file.data(), ELFMAG, SELFMAG) != 0 ||
      file[EI_CLASS] != ELFCLASS64) {
    *error = "not an ELF64 file";
    return out;
  }
  Elf64_Ehdr eh;
  std::memcpy(&eh, file.data(), sizeof eh);
  if (eh.e_shoff == 0 || eh.e_shentsize != sizeof(Elf64_Shdr) ||
      eh.e_shoff + uint64_t(eh.e_shnum) * sizeof(Elf64_Shdr) > file.size()) {
    *error = "no section headers";
    return out;
  }
  std::vector<Elf64_Shdr> sections(eh.e_shnum);
  std::memcpy(sections.data(), file.data() + eh.e_shoff, sizeof(Elf64_Shdr) * eh.e_shnum);
  for (const Elf64_Shdr &sh : sections) {
    if (sh.sh_type != SHT_DYNSYM || sh.sh_link >= sections.size()) continue;
    const Elf64_Shdr &strtab = sections[sh.sh_link];
    if (sh.sh_offset + sh.sh_size > file.size() || strtab.sh_offset + strtab.sh_size > file.size()) break;
    for (uint64_t off = 0; off + sizeof(Elf64_Sym) <= sh.sh_size; off += sizeof(Elf64_Sym)) {
      Elf64_Sym sym;
      std::memcpy(&sym, file.data() + sh.sh_offset + off, sizeof sym);
      const int bind = ELF64_ST_BIND(sym.st_info), type = ELF64_ST_TYPE(sym.st_info);
      if (sym.st_shndx == SHN_UNDEF || sym.st_shndx == SHN_ABS) continue;  // imports, version nodes
      if (bind != STB_GLOBAL && bind != STB_WEAK && bind != STB_GNU_UNIQUE) continue;
      if (ELF64_ST_VISIBILITY(sym.st_other) != STV_DEFAULT && ELF64_ST_VISIBILITY(sym.st_other) != STV_PROTECTED)
        continue;
      if (type == STT_SECTION || type == STT_FILE) continue;
      if (sym.st_name >= strtab.sh_size) continue;
      std::string name(file.data() + strtab.sh_offset + sym.st_name);
      if (name == BP_PLUGIN_ENTRY_SYMBOL || name == "_init" || name == "_fini" || name == "_edata" || name == "_end" ||
          name == "__bss_start")
        continue;
      out.push_back(name);
    }
  }
  return out;
}


}  // namespace bpcheck
