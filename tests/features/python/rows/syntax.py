"""A row that does not parse: line 5."""


def run(args)
    pass
