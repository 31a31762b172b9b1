/* network_load_test (load_suite.c). */
#ifndef GPCNET_LOAD_SUITE_H
#define GPCNET_LOAD_SUITE_H

int network_load_test_main(int argc, char **argv);

#endif
