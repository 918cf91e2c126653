"""`diavolo simulate`: not built yet."""


def register(subparsers) -> None:
    parser = subparsers.add_parser("simulate", help="(not built yet)")
    parser.set_defaults(handler=lambda args: 1)
