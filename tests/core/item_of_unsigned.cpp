// Must not compile: no dtype is unsigned (see the item<T> test in CMakeLists.txt).
#include "backplane.hpp"

unsigned first(const bp::Tensor &t) { return t.item<unsigned>(); }
