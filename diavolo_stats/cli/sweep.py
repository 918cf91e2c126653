"""`diavolo sweep`: tie odds of every variant of a grid, here or on a Dask cluster."""

from __future__ import annotations

import argparse

from diavolo_stats.cli.common import (
    SEED,
    add_format_argument,
    path_type,
    print_result,
    progress_bar,
    read_type,
    value_type,
)
from diavolo_stats.core.simulate import MAX_ROUNDS, MAX_WORKERS
from diavolo_stats.core.table_model import MAX_TOLERANCE, TableModel
from diavolo_stats.core.variant_file import variant_named
from diavolo_stats.errors import InputError
from diavolo_stats.sweep.grid import AXES, MAX_VARIANTS, PALETTE, SweepGrid, parse_values
from diavolo_stats.validation import Whole, declared


def register(subparsers) -> None:
    parser = subparsers.add_parser(
        "sweep", handler=run, help="tie odds of every variant in a grid (exact, and closest simulated)",
        description="Answer every combination of the listed values: value commands exactly, closest by "
                    "simulation seeded from --seed and the variant itself. Values are lists (4,6,8), "
                    "inclusive ranges (2..6), ranges with a step (0.05..0.2:0.05), or a mix (2..4,8).")
    lists = declared(SweepGrid, ("colors", "commands"))[0]
    grid = parser.add_argument_group("grid (a flag left out keeps the base variant's value)")
    grid.add_argument("--variant", default="standard", metavar="NAME|FILE",
                      help="the game the grid varies: a preset (standard or kids) or a variant file (.toml)")
    grid.add_argument("--colors-count", metavar="LIST",
                      help=f"numbers of colors, 2 to 8, named in order {','.join(PALETTE)} (default 3)")
    grid.add_argument("--colors", type=value_type(lists["colors"]), metavar="C1,C2,...",
                      help="one fixed set of color names instead")
    grid.add_argument("--dice-per-color", metavar="LIST", help="dice in each color (default 3)")
    grid.add_argument("--sides", metavar="LIST", help="faces per die, valued 1..sides, in place of a file's faces "
                                                       "(default 6)")
    grid.add_argument("--commands", type=read_type(lists["commands"]), metavar="CMD,...",
                      help="commands to report, comma-separated (default: all six, or the file's)")
    defaults = TableModel()
    grid.add_argument("--tolerance", metavar="LIST",
                      help=f"closest: perception tolerance, 0 to {MAX_TOLERANCE:g} (default {defaults.tolerance:g})")
    grid.add_argument("--scatter-mm", metavar="LIST",
                      help=f"closest: side of the square the dice land in, mm (default {defaults.scatter_mm:g})")
    grid.add_argument("--die-mm", metavar="LIST",
                      help=f"closest: edge of a die, mm (default {defaults.die_mm:g})")
    grid.add_argument("--rounds", type=value_type(Whole(1, MAX_ROUNDS)), default=1_000_000, metavar="N",
                      help=f"closest: rounds simulated per variant, 1 to {MAX_ROUNDS:,} (default 1,000,000)")
    grid.add_argument("--seed", type=value_type(SEED), default=0, metavar="S",
                      help="sweep seed; each variant's simulation is seeded from it and the variant (default 0)")
    running = parser.add_argument_group("running")
    running.add_argument("--workers", type=value_type(Whole(1, MAX_WORKERS)), default=1, metavar="W",
                         help=f"local processes simulating at once, 1 to {MAX_WORKERS} here (4 per CPU; default 1)")
    running.add_argument("--scheduler", metavar="ADDRESS",
                         help="run on Dask distributed: a scheduler address (tcp://host:8786) or local:N "
                              "for N local worker processes (needs pip install -e '.[cluster]')")
    running.add_argument("--out", type=path_type(), metavar="FILE",
                         help="save every row as it is answered, .csv or .parquet (by the suffix)")
    running.add_argument("--resume", action="store_true",
                         help="continue the sweep saved in --out, skipping the variants it holds")
    found = parser.add_argument_group("what to show")
    found.add_argument("--target", metavar="CMD=LOW..HIGH,...",
                       help="show only variants whose every listed command (or overall, the grey rate over the "
                            "command die) ties within its range (e.g. overall=0.15..0.18,closest=..0.15), "
                            "nearest the centers first")
    found.add_argument("--nearest", type=value_type(Whole(1, MAX_VARIANTS)), metavar="K",
                       help="when no variant meets --target, show the K nearest, with their distance")
    found.add_argument("--plot", type=path_type("folder"), metavar="DIR",
                       help="write one heatmap PNG per command into DIR")
    found.add_argument("--plot-axes", metavar="X,Y[,FACET]",
                       help=f"heatmap parameters among {', '.join(AXES)} (default: the first that vary)")
    add_format_argument(parser)


def grid_from_args(args: argparse.Namespace) -> SweepGrid:
    """The SweepGrid the grid flags describe; InputError naming the field if it is not allowed."""
    base = variant_named(args.variant)
    values = {name: parse_values(getattr(args, name), name, integer=name in ("colors_count", "dice_per_color",
                                                                               "sides"))
              for name in ("colors_count", "dice_per_color", "sides", "tolerance", "scatter_mm", "die_mm")
              if getattr(args, name) is not None}
    if args.colors is not None:
        values["colors"] = args.colors
        values.pop("colors_count", None)
    if args.commands is not None:
        values["commands"] = base.commands_named(args.commands)
    return SweepGrid(**values, rounds=args.rounds, seed=args.seed, base=base)


def run(args: argparse.Namespace) -> int:
    # Imported here, not for the parser: the results need pandas and the heatmaps matplotlib.
    from diavolo_stats.sweep.heatmaps import check_plot_folder, choose_axes, write_heatmaps
    from diavolo_stats.sweep.run import sweep
    from diavolo_stats.sweep.targets import Target

    grid = grid_from_args(args)
    # Everything checked before any work or any file.
    target = Target.parse(args.target, grid.commands) if args.target is not None else None
    if args.nearest is not None and target is None:
        raise InputError("needs a target to be near (--target)", field="nearest")
    axes = None
    if args.plot is not None:
        check_plot_folder(args.plot)
        axes = choose_axes(grid, args.plot_axes.split(",") if args.plot_axes is not None else None)
    bar: dict = {}

    def progress(done: int, total: int) -> None:
        if not bar:
            bar["update"], bar["close"] = progress_bar(total, "variants")
        if bar["update"] is not None:
            bar["update"](done)

    try:
        result = sweep(grid, workers=args.workers, scheduler=args.scheduler, out=args.out, resume=args.resume,
                       progress=progress)
    finally:
        if bar:
            bar["close"]()
    if axes is not None:
        write_heatmaps(result.frame(), axes, args.plot)  # every variant, whatever the target keeps
    shown = result.meeting(target, nearest=args.nearest or 0) if target is not None else result
    print_result(shown, args.format)
    return 0
