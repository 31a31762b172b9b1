/* network_congestor (congestor_suite.c). */
#ifndef GPCNET_CONGESTOR_SUITE_H
#define GPCNET_CONGESTOR_SUITE_H

int network_congestor_main(int argc, char **argv);

#endif
