"""`diavolo minodice`: not built yet."""


def register(subparsers) -> None:
    parser = subparsers.add_parser("minodice", help="(not built yet)")
    parser.set_defaults(handler=lambda args: 1)
