# Example ReFrame configuration for a Slurm cluster: copy it, set the names,
# partition, cores per node and NICs, and how GPCNeT gets on PATH (here the
# module of `spack install gpcnet`). Then
#   reframe -C slurm_example.py -c packaging/reframe/gpcnet_check.py -r
# runs both programs at PPN 1, mid and all on every node of the partition.
site_configuration = {
    'systems': [
        {
            'name': 'mycluster',
            'descr': 'example Slurm cluster',
            'hostnames': [r'login\d+'],
            'modules_system': 'lmod',
            'partitions': [
                {
                    'name': 'compute',
                    'scheduler': 'slurm',
                    'launcher': 'srun',
                    'access': ['--partition=compute', '--exclusive'],
                    'environs': ['gpcnet'],
                    # 'all' PPN = num_cpus; 'mid' = a quarter unless -S mid_ppn=N
                    'processor': {'num_cpus': 64},
                    'max_jobs': 1,
                    # A full-system load test takes about 15-30 minutes.
                    'time_limit': '1h',
                },
            ],
        },
    ],
    'environments': [
        {
            'name': 'gpcnet',
            'modules': ['gpcnet'],
            'target_systems': ['mycluster'],
        },
    ],
}
