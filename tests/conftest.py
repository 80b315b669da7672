"""Shared pytest options. Keep minimal: other test files must not depend on anything here."""


def pytest_addoption(parser):
    parser.addoption(
        "--run-notebooks", action="store_true", default=False,
        help="execute every notebook in notebooks/ top to bottom (slow; `make notebooks`)",
    )
