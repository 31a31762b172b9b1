/* network_test: isolated network tests on all nodes at once (SPEC A.3). */
#include "suite/suites.h"

int main(int argc, char **argv) { return network_test_main(argc, argv); }
