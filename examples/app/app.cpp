// A Backplane application: tensors on the first accelerator (else the CPU),
// arithmetic where they live, the result printed and read back.
#include <backplane.hpp>

#include <iostream>

int main() {
  try {
    bp::Tensor x = bp::ones({2, 3}, bp::f32, bp::try_gpu());
    bp::Tensor y = x * 2.0 + x;
    std::cout << y << "\n";
    std::cout << "sum " << y.sum().item<float>() << "\n";
    if (y.sum() == 18.0) std::cout << "every element is 3\n";
  } catch (const bp::Error &e) {
    std::cerr << "backplane: " << e.what() << "\n";
    return 1;
  }
  return 0;
}
