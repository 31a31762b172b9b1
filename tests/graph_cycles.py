"""One circle in a dependency graph, for the layout tests of src/
(tests/integration/test_source_layout.py) and of the gpcnet package
(tests/python/test_module_layout.py)."""


def find_cycle(graph):
    """One circle of {node: set of nodes it depends on} as a list that
    starts and ends with the same node, or None."""
    state, stack = {}, []

    def visit(m):
        state[m] = "open"
        stack.append(m)
        for d in sorted(graph.get(m, ())):
            if state.get(d) == "open":
                return stack[stack.index(d):] + [d]
            if d not in state and (found := visit(d)):
                return found
        stack.pop()
        state[m] = "done"
        return None

    for m in sorted(graph):
        if m not in state and (found := visit(m)):
            return found
    return None
