/* network_test (isolated_suite.c). */
#ifndef GPCNET_ISOLATED_SUITE_H
#define GPCNET_ISOLATED_SUITE_H

int network_test_main(int argc, char **argv);

#endif
