/* network_test: isolated network tests on all nodes at once (docs/method.md#network-test). */
#include "suite/network_test/isolated_suite.h"

int main(int argc, char **argv) { return network_test_main(argc, argv); }
