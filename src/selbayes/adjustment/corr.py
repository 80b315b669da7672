"""Placeholder: being written."""
def corr_log_omit_prob(*args, **kwargs):
    raise NotImplementedError
