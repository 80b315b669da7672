"""Placeholder: being written."""
def probabilistic_index(*args, **kwargs):
    raise NotImplementedError


def tweedie_select(*args, **kwargs):
    raise NotImplementedError
