"""Adding up the partitions' partial results on the cluster: a tree reduction.

The partials of P partitions are combined FAN_IN at a time, in partition order, level after
level, until one is left; only that one travels to the client. The shape of the tree depends on
P alone, never on which worker finishes first, so a fit is reproducible run to run. Each combine
is a task on the cluster: the scheduler runs it where most of its inputs are, so a worker's
partials are first added where they were made and only sums cross the network.

Bytes moved per round: each of the P - 1 combine inputs that lives on another worker crosses once,
at most (P - 1) x the size of one partial (the histogram of the round's open nodes), and the
final sum once to the client.
"""

from . import worker

FAN_IN = 4


def tree_reduce(client, futures, ops, key):
    """One future holding the combination (``worker.combine`` with ``ops``) of ``futures``."""
    level = 0
    while len(futures) > 1:
        futures = [client.submit(worker.combine, ops, *futures[i:i + FAN_IN],
                                 key=f"{key}-reduce-{level}-{i}", pure=False)
                   if len(futures[i:i + FAN_IN]) > 1 else futures[i]
                   for i in range(0, len(futures), FAN_IN)]
        level += 1
    return futures[0]
