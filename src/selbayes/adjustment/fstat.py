"""Placeholder: being written."""
def fstat_log_omit_prob(*args, **kwargs):
    raise NotImplementedError
