"""`diavolo drill`: not built yet."""


def register(subparsers) -> None:
    parser = subparsers.add_parser("drill", help="(not built yet)")
    parser.set_defaults(handler=lambda args: 1)
