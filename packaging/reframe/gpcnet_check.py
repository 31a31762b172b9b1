# ReFrame checks for GPCNeT's network_test and network_load_test. The
# figures of merit come from the results JSON the programs write (see
# docs/results-json.md), never from the text tables. Usage: docs/reframe.md.
import json
import os

import reframe as rfm
import reframe.utility.sanity as sn
from reframe.core.builtins import (parameter, performance_function, run_after,
                                   run_before, sanity_function, variable)

# Published GPCNeT numbers (SC'19 paper, Table 2: Crystal, Cray Aries
# dragonfly, 64 nodes at 1, 8 and 32 ranks per NIC) as an example of
# per-system references. Replace the system name and values with a baseline
# of your own system; a system without an entry is measured, not judged.
# Tolerances are fractions: latencies and impacts may not grow by more than
# the upper bound, bandwidths may not fall by more than the lower bound.
_LAT, _BW, _CI = 0.25, 0.25, 0.5


def _lat(v):
    return (v, None, _LAT, 'usec')


def _bw(v):
    return (v, -_BW, None, 'MiB/s/rank')


def _ci(v):
    return (v, None, _CI, 'x')


REFERENCES = {
    'network_load_test': {
        'one': {'crystal:compute': {
            'isolated_rr_two_sided_lat_avg': _lat(1.8), 'isolated_rr_two_sided_lat_p99': _lat(6.3),
            'isolated_rr_two_sided_bw_sync_avg': _bw(4764.5),
            'loaded_rr_two_sided_lat_avg': _lat(1.9), 'loaded_rr_two_sided_lat_p99': _lat(5.4),
            'loaded_multiple_allreduce_avg': _lat(9.8),
            'impact_rr_two_sided_lat_avg': _ci(1.1)}},
        'mid': {'crystal:compute': {
            'isolated_rr_two_sided_lat_avg': _lat(1.9), 'isolated_rr_two_sided_lat_p99': _lat(7.5),
            'isolated_rr_two_sided_bw_sync_avg': _bw(606.0),
            'loaded_rr_two_sided_lat_avg': _lat(9.5), 'loaded_rr_two_sided_lat_p99': _lat(25.6),
            'loaded_multiple_allreduce_avg': _lat(33.7),
            'impact_rr_two_sided_lat_avg': _ci(5.0)}},
        'all': {'crystal:compute': {
            'isolated_rr_two_sided_lat_avg': _lat(5.1), 'isolated_rr_two_sided_lat_p99': _lat(20.8),
            'isolated_rr_two_sided_bw_sync_avg': _bw(133.9),
            'loaded_rr_two_sided_lat_avg': _lat(38.0), 'loaded_rr_two_sided_lat_p99': _lat(113.2),
            'loaded_multiple_allreduce_avg': _lat(153.5),
            'impact_rr_two_sided_lat_avg': _ci(7.5)}},
    },
}


class GpcnetBase(rfm.RunOnlyRegressionTest):
    '''One GPCNeT program at one of the three PPN values the reference
    recommends: 1, an intermediate value representative of the system's
    workloads, and (nearly) all cores of a node.'''

    ppn_level = parameter(['one', 'mid', 'all'])

    #: Nodes to run on; 0 = every node of the partition (flexible
    #: allocation), as an official network_load_test run wants.
    num_nodes = variable(int, value=0)
    #: Cores per node for the 'all' level; 0 = the partition's processor
    #: info (`processor.num_cpus` in the ReFrame configuration).
    cores_per_node = variable(int, value=0)
    #: Ranks per node for the 'mid' level; 0 = a quarter of the cores
    #: (at least 2). Set it to what your applications use (e.g. ranks per GPU).
    mid_ppn = variable(int, value=0)
    #: NICs per node: GPCNeT reports per port (PPort = PPN / NICs).
    nics_per_node = variable(int, value=1)
    #: Emulate the nodes on one host (every PPN consecutive ranks are a
    #: node): for a laptop, a login node or CI, never for measurements.
    emulate_nodes = variable(bool, value=False)
    #: Short loops for a smoke test (not an official run).
    quick = variable(bool, value=False)
    #: Where network_test and network_load_test are; '' = on PATH
    #: (e.g. through `modules = ['gpcnet']` or `spack load gpcnet`).
    bin_dir = variable(str, value='')

    valid_systems = ['*']
    valid_prog_environs = ['*']
    program = ''
    maintainers = ['GPCNeT']
    tags = {'network', 'congestion'}

    @run_after('init')
    def set_references(self):
        self.descr = f'GPCNeT {self.program} at PPN={self.ppn_level}'
        self.reference = REFERENCES.get(self.program, {}).get(self.ppn_level, {})

    def _ppn(self):
        cores = self.cores_per_node
        if not cores:
            cores = self.current_partition.processor.num_cpus or 0
        if self.ppn_level == 'one':
            return 1
        if not cores:
            self.skip(f'PPN={self.ppn_level} needs the cores per node: set '
                      f'processor.num_cpus in the configuration or -S cores_per_node=N')
        if self.ppn_level == 'all':
            return cores
        return self.mid_ppn or max(2, cores // 4)

    @run_before('run')
    def set_job(self):
        ppn = self._ppn()
        self.ppn = ppn
        self.num_tasks_per_node = ppn
        self.num_tasks = self.num_nodes * ppn   # 0: flexible, all nodes
        self.executable = os.path.join(self.bin_dir, self.program) if self.bin_dir else self.program
        opts = ['--quiet', '--json', self.json_name, '--nics-per-node', str(self.nics_per_node)]
        if self.emulate_nodes:
            opts += ['--emulate-nodes', str(ppn)]
        if self.quick:
            opts += ['--time-limit', '2', '--measurements', '5']
            if self.program == 'network_load_test':
                opts += ['--congestor-measurements', '8']
        self.executable_opts = opts
        # Archived with the job's output, also when the check passes.
        self.keep_files = [self.json_name]

    @property
    def json_name(self):
        return f'{self.program}.json'

    def _results(self):
        # Read once, after the run: sanity and performance share it.
        if not hasattr(self, '_doc'):
            with open(os.path.join(self.stagedir, self.json_name)) as f:
                self._doc = json.load(f)
        return self._doc

    @sanity_function
    def validate_run(self):
        doc = self._results()
        env = doc['environment']
        checks = [
            sn.assert_eq(doc['schema'], 'gpcnet-results'),
            sn.assert_eq(doc['program'], self.program),
            sn.assert_eq(doc['status'], 'complete',
                         msg=f'run {{0}}: {doc.get("abort_reason")}'),
            sn.assert_eq(env['ppn_max'], self.ppn, msg='ran at PPN {0}, wanted {1}'),
        ]
        if self.num_nodes:
            checks.append(sn.assert_eq(env['nodes'], self.num_nodes,
                                       msg='ran on {0} nodes, wanted {1}'))
        return sn.all(checks)

    def _value(self, *path):
        # path: table id, test id, key  or  'impact', test id, key
        doc = self._results()
        kind, test, key = path
        rows = doc['impact'] if kind == 'impact' else next(
            t['rows'] for t in doc['tables'] if t['id'] == kind)
        value = next(r[key] for r in rows if r['test'] == test)
        if value is None:
            raise ValueError(f'{kind}:{test}:{key} has no value in {self.json_name}')
        return value

    @run_before('performance')
    def set_figures_of_merit(self):
        '''Avg and 99% of every test in the tables the program prints, and
        for the load test the Congestion Impact per canary, named
        <table>_<test>_<avg|p99> (table: isolated, loaded) and
        impact_<test>_<avg|p99>; units as in the JSON ('x' for impacts).'''
        doc = self._results()
        fom = {}
        for table in doc['tables']:
            if table['id'] not in ('isolated', 'loaded'):
                continue
            for row in table['rows']:
                for key in ('avg', 'p99'):
                    fom[f'{table["id"]}_{row["test"]}_{key}'] = sn.make_performance_function(
                        self._value, row['unit'], table['id'], row['test'], key)
        for row in doc['impact']:
            for key in ('avg', 'p99'):
                fom[f'impact_{row["test"]}_{key}'] = sn.make_performance_function(
                    self._value, 'x', 'impact', row['test'], key)
        self.perf_variables = fom


@rfm.simple_test
class GpcnetNetworkTest(GpcnetBase):
    '''network_test: the 8 isolated tests on all nodes at once.'''
    program = 'network_test'


@rfm.simple_test
class GpcnetNetworkLoadTest(GpcnetBase):
    '''network_load_test: 3 canaries alone and under 4 congestors; reports
    the Congestion Impact. Official runs use (nearly) every node.'''
    program = 'network_load_test'
