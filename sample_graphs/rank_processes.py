"""What the multi-rank capture scripts share: a process per rank on this machine, each rank with
its own Inductor cache folder, so that its cache hits and misses do not depend on which rank
compiled first."""
import argparse
import contextlib
import os
import tempfile


def rank_parser(description, port):
    """A parser with --world (ranks, default 2) and --port (the rendezvous port)."""
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("--world", type=int, default=2)
    parser.add_argument("--port", type=int, default=port)
    return parser


def enter_rank(rank, args):
    """Sets the rendezvous address and RANK's own Inductor cache folder in this process."""
    os.environ.setdefault("MASTER_ADDR", "127.0.0.1")
    os.environ.setdefault("MASTER_PORT", str(args.port))
    os.environ["TORCHINDUCTOR_CACHE_DIR"] = os.path.join(args.cache_root, f"rank{rank}")


@contextlib.contextmanager
def process_group(rank, world, args, backend):
    """RANK in the process group (its rendezvous and cache set by enter_rank); on leaving, the
    ranks meet at a barrier and the group is destroyed, whatever went wrong."""
    import torch.distributed as dist

    enter_rank(rank, args)
    dist.init_process_group(backend, rank=rank, world_size=world)
    try:
        yield
        dist.barrier()
    finally:
        dist.destroy_process_group()


def spawn_ranks(worker, parser, cache_prefix):
    """Parses the command line and runs worker(rank, world, args) in a process per rank."""
    import torch.multiprocessing as mp

    args = parser.parse_args()
    args.cache_root = tempfile.mkdtemp(prefix=cache_prefix)
    mp.spawn(worker, args=(args.world, args), nprocs=args.world, join=True)
