/* network_congestor: congestor kernels on their own, beside another job. */
#include "suite/network_congestor/congestor_suite.h"

int main(int argc, char **argv) { return network_congestor_main(argc, argv); }
