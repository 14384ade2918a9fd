"""``voxelworld play``: serve a world (the demo world or a world file) to the browser until Ctrl+C."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TextIO

from ..errors import ParameterError, check_integer
from ..files import write_target
from ..viewer.page_seats import DEFAULT_PLAYERS, MAX_PLAYERS
from .common import Commands, add_command

__all__ = ["add_play", "run_play"]


def add_play(commands: Commands) -> None:
    """``voxelworld play`` and its options, into the subparsers ``commands``."""
    play = add_command(
        commands, "play", "serve a world to the browser and play it (Ctrl+C stops)",
        "Serve a world (the demo world, or the one --world names) to the browser: print the URL of\n"
        "the page, step the world at 60 frames a second and stream it to every page that connects;\n"
        "every page plays a player of its own, up to --players; the others watch (voxelworld.viewer.server,\n"
        "docs/play.md). Ctrl+C stops it.",
        "voxelworld play --seed 3 --port 9000")
    play.add_argument("--world", help="a world file to play, read with voxelworld.io.load_world "
                                      "(default: the demo world)")
    play.add_argument("--save", help="the file the save key writes (default: the --world file, else world.vwd "
                                     "in the current folder)")
    play.add_argument("--seed", type=int, default=0, help="the demo world's seed")
    play.add_argument("--host", default="127.0.0.1", help="the address to listen on (127.0.0.1: this machine only)")
    play.add_argument("--port", type=int, default=8765, help="the port to listen on (0: any free port)")
    play.add_argument("--lan", action="store_true",
                      help="a LAN game: listen on this machine's address on its network (instead of --host) and "
                           "print a join code; pages without it are refused")
    play.add_argument("--players", type=int, default=DEFAULT_PLAYERS,
                      help=f"how many pages play at once, each its own player (1 to {MAX_PLAYERS}; default "
                           f"{DEFAULT_PLAYERS}); the pages beyond them watch")


def run_play(args: argparse.Namespace, out: TextIO | None = None) -> None:
    """``voxelworld play``: serve a world to the browser until Ctrl+C (see ``--help``)."""
    from ..game.world import World, freeze_startup_objects
    from ..io import load_world
    from ..viewer.handshake import new_join_code
    from ..viewer.server import bind_socket, lan_address, serve
    from ..warmup import load_compiled_kernels

    out = out if out is not None else sys.stdout
    if args.world is not None:
        path = Path(args.world)
        if not path.is_file():
            raise ParameterError("--world", args.world, "an existing world file")
    check_integer("--players", args.players, minimum=1, maximum=MAX_PLAYERS, unit="players")
    save = args.save if args.save is not None else (args.world if args.world is not None else "world.vwd")
    write_target(save, "--save")  # a FIFO or a device (/dev/null) refused now, not replaced by the save key
    if args.lan:
        args.host = lan_address()
    try:
        sock = bind_socket(args.host, args.port)  # a port in use fails now, not after the world is built
    except ParameterError as error:
        raise ParameterError(f"--{error.parameter}", error.value, error.legal) from None
    try:
        if args.world is not None:
            print(f"voxelworld play: loading {path} ...", file=out, flush=True)
            world = load_world(path)
        else:
            print(f"voxelworld play: building the demo world (seed {args.seed}) ...", file=out, flush=True)
            world = World.demo(seed=args.seed)
        # Every other kernel's machine code now (1-2 s), not in the frame that first calls it (a stall of up to
        # 0.1 s); after the world, so that a file that is refused is refused at once.
        print("voxelworld play: loading the compiled kernels ...", file=out, flush=True)
        load_compiled_kernels()
        print(f"voxelworld play: the save key (K or Ctrl+S) writes {save}", file=out, flush=True)
        freeze_startup_objects()  # no full garbage collection stalls a frame scanning the world just made
        serve(world, args.host, args.port, save, out=out, sock=sock, players=args.players,
              join=new_join_code() if args.lan else None)
    except ParameterError as error:  # name the option the user typed
        if error.parameter != "seed":
            raise
        raise ParameterError("--seed", error.value, error.legal) from None
    except KeyboardInterrupt:  # Ctrl+C, while the world is built or served
        pass
    finally:
        sock.close()
    print("voxelworld play: stopped", file=out, flush=True)
