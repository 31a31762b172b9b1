#include "suite/options/options.h"

const char *program_name(program_t program)
{
    switch (program) {
    case PROGRAM_NETWORK_TEST:
        return "network_test";
    case PROGRAM_NETWORK_LOAD_TEST:
        return "network_load_test";
    default:
        return "network_congestor";
    }
}
