"""Placeholder: being written."""
def obf(*args, **kwargs):
    raise NotImplementedError


def obf_select(*args, **kwargs):
    raise NotImplementedError
