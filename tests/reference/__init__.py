"""Independent reference implementations used only by the tests."""
