"""`diavolo synth-log`: not built yet."""


def register(subparsers) -> None:
    parser = subparsers.add_parser("synth-log", help="(not built yet)")
    parser.set_defaults(handler=lambda args: 1)
