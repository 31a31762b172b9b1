/* network_load_test: canaries in isolation and under congestion (docs/method.md#load-test). */
#include "suite/load_test/load_suite.h"

int main(int argc, char **argv) { return network_load_test_main(argc, argv); }
