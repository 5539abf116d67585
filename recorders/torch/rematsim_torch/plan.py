"""plan.py: placeholder replaced below."""


def add_parser(sub, parser_class):
    pass
