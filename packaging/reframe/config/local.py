# ReFrame configuration for one host: the local scheduler and mpirun, with
# the GPCNeT checks run on emulated nodes (-S emulate_nodes=true). For a
# laptop, a workstation or CI; measurements belong on a real cluster
# (see slurm_example.py).
import os

site_configuration = {
    'systems': [
        {
            'name': 'gpcnet_local',
            'descr': 'one host, nodes emulated by GPCNeT',
            'hostnames': ['.*'],
            'modules_system': 'nomod',
            'partitions': [
                {
                    'name': 'default',
                    'scheduler': 'local',
                    'launcher': 'mpirun',
                    'environs': ['system_mpi'],
                    'processor': {'num_cpus': os.cpu_count()},
                    'max_jobs': 1,
                },
            ],
        },
    ],
    'environments': [
        {'name': 'system_mpi'},
    ],
}
