/* network_load_test: canaries in isolation and under congestion (SPEC A.4). */
#include "suite/suites.h"

int main(int argc, char **argv) { return network_load_test_main(argc, argv); }
