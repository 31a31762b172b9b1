# Benchpark experiment for GPCNeT (copy this directory to
# <benchpark>/experiments/gpcnet, and ../../repo/gpcnet to
# <benchpark>/repo/gpcnet). Written for Benchpark's experiment API of 2025
# (Experiment + MpiOnlyExperiment, exec_mode test/perf); see docs/benchpark.md.
from benchpark.directives import maintainers, variant
from benchpark.experiment import Experiment
from benchpark.mpi import MpiOnlyExperiment

# Fewest nodes each program accepts with its defaults: network_test pairs
# nodes; network_load_test puts canaries on 20% of the nodes and needs 2
# nodes for each of its 4 congestors.
MIN_NODES = {"network_test": 2, "network_load_test": 10}
# exec_mode=perf: a measurement worth reporting (the published runs fill
# whole nodes; congestion needs many nodes to show).
PERF_NODES = {"network_test": 16, "network_load_test": 64}
# exec_mode=test: short loops, enough to see the machinery work.
TEST_OPTIONS = {
    "network_test": "--time-limit 2 --measurements 20",
    "network_load_test": "--time-limit 2 --measurements 20 --congestor-measurements 16",
}


class Gpcnet(Experiment, MpiOnlyExperiment):
    variant(
        "workload",
        default="network_load_test",
        values=("network_test", "network_load_test"),
        description="network_test: canaries alone; network_load_test: canaries "
        "alone and under congestion, with the Congestion Impact",
    )
    variant(
        "version",
        default="main",
        description="version of the gpcnet Spack package (packaging/spack)",
    )

    maintainers("gpcnet-project")

    def compute_applications_section(self):
        workload = self.spec.variants["workload"][0]
        if self.spec.satisfies("exec_mode=test"):
            nodes = MIN_NODES[workload]
            self.add_experiment_variable("gpcnet_options", TEST_OPTIONS[workload], False)
        else:
            nodes = PERF_NODES[workload]
            # No options: the published configuration (the run says so in
            # its "Official default configuration" figure of merit).
            self.add_experiment_variable("gpcnet_options", "", False)
        self.add_experiment_variable("n_nodes", nodes, True)
        self.add_experiment_variable("n_ranks_per_node", "{sys_cores_per_node}", True)
        self.add_experiment_variable("n_ranks", "{n_nodes}*{n_ranks_per_node}", True)
        self.set_required_variables(
            n_resources="{n_ranks}", process_problem_size="", total_problem_size=""
        )

    def compute_package_section(self):
        self.add_package_spec(self.name, [f"gpcnet{self.determine_version()}"])
