"""What the tests share: the `diavolo` command in-process, drill logs, the terminal drill, the browser, reference
answers. Imported as `helpers.<module>`; tests/conftest.py turns the common ones into fixtures."""
