"""Session-wide behaviour of the test suite (shared helpers for test modules are in ``helpers``).

Optional tools.  A test that needs an optional tool (Chromium, the TeX toolchain, Java and
pyspark, Sphinx, pandas, Polars, matplotlib) skips with a reason when the tool is missing;
``-rs`` prints the reasons in the summary (``helpers.TOOLS`` says how each is found).  CI sets
the ``OPENDP_DUFF_REQUIRE_*`` variables of ``helpers.REQUIRE`` (``.ci/run``): then a missing tool
stops the session before any test runs, so nothing CI is meant to check can pass by skipping.

The cost of the quick loop.  The convention is that a test over about half a second is marked
``slow`` (``pytest -m "not slow"`` is the quick loop).  :class:`UnmarkedCpuBudget` holds every
test without that mark to it, in every run, CI's included: it measures the CPU time of the
test's setup and call (this process's and that of the subprocesses it waited for) and fails the
test when it exceeds ``OPENDP_DUFF_TEST_CPU_LIMIT`` seconds (default 1.0; 0 turns the check off,
e.g. under a coverage tracer or a debugger).  CPU time, unlike wall time, barely moves when other
jobs load the machine.  The limit is twice the convention's half second: that margin absorbs a
CPU slower than this project's machines and the cache contention of a loaded machine, so a test
that keeps the convention does not fail by chance, while a test at twice the line always does.
Unmarked tests between half the limit and the limit are listed at the end of the run, to be
marked before they cross it.  The libraries that the package imports lazily are imported once
per process when collection ends, so that their import is not charged to the first test that
happens to need them.
"""
from __future__ import annotations

import importlib
import os
import resource
import time

import pytest
from helpers import REQUIRE, missing, missing_libraries

LIMIT_ENV = "OPENDP_DUFF_TEST_CPU_LIMIT"
DEFAULT_LIMIT = 1.0
WARM_UP = ("scipy.special", "scipy.stats", "scipy.optimize", "scipy.integrate", "pandas", "polars")


def pytest_configure(config: pytest.Config) -> None:
    required = [(var, tools) for var, tools in REQUIRE.items() if os.environ.get(var, "0") not in ("", "0")]
    absent = [f"{variable} is set: the test suite {missing(*tools)}, not installed here"
              for variable, tools in required if missing(*tools)]
    if absent:
        raise pytest.UsageError("\n".join(absent))
    # Registered as plugins, not written as hooks of this file: a conftest's test hooks reach only
    # the tests below it, and these must also reach the package's doctests.
    if not config.pluginmanager.has_plugin("opendp-duff-doctest-libraries"):
        config.pluginmanager.register(DoctestLibraries(), "opendp-duff-doctest-libraries")
    limit = float(os.environ.get(LIMIT_ENV, DEFAULT_LIMIT))
    if limit > 0 and not config.pluginmanager.has_plugin("opendp-duff-cpu-budget"):
        config.pluginmanager.register(UnmarkedCpuBudget(limit), "opendp-duff-cpu-budget")


class DoctestLibraries:
    """A doctest of the package that imports a missing optional library is skipped, with the
    reason (the test modules skip by themselves).  The skip is raised when the doctest is set up:
    a skip mark would need the doctest's line number, which a docstring copied onto a then_x
    does not have."""

    def __init__(self) -> None:
        self._reason = pytest.StashKey[str]()

    def pytest_collection_modifyitems(self, items: list[pytest.Item]) -> None:
        for item in items:
            test = getattr(item, "dtest", None)
            if test is not None:
                reason = missing_libraries("\n".join(example.source for example in test.examples))
                if reason:
                    item.stash[self._reason] = f"this doctest {reason}"

    @pytest.hookimpl(tryfirst=True)
    def pytest_runtest_setup(self, item: pytest.Item) -> None:
        if self._reason in item.stash:
            pytest.skip(item.stash[self._reason])


def cpu_seconds() -> float:
    """CPU seconds of this process and of the subprocesses it has waited for."""
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    return time.process_time() + children.ru_utime + children.ru_stime


class UnmarkedCpuBudget:
    """Fails an unmarked test whose setup and call take more than ``limit`` CPU seconds.

    The measurement travels with the test's report (``user_properties``), so that under
    pytest-xdist the controlling process can list the tests near the limit.
    """

    KEY = "cpu_seconds"

    def __init__(self, limit: float) -> None:
        self.limit = limit
        self.near: list[tuple[float, str]] = []
        self._spent = pytest.StashKey[float]()

    @staticmethod
    def _measured(item: pytest.Item) -> bool:
        return item.get_closest_marker("slow") is None

    def pytest_collection_finish(self, session: pytest.Session) -> None:
        for name in WARM_UP:
            try:
                importlib.import_module(name)
            except ImportError:
                pass

    def _charge(self, item: pytest.Item):
        start = cpu_seconds()
        yield
        item.stash[self._spent] = item.stash.get(self._spent, 0.0) + cpu_seconds() - start

    @pytest.hookimpl(hookwrapper=True)
    def pytest_runtest_setup(self, item: pytest.Item):
        yield from self._charge(item)

    @pytest.hookimpl(hookwrapper=True)
    def pytest_runtest_call(self, item: pytest.Item):
        yield from self._charge(item)

    @pytest.hookimpl(hookwrapper=True)
    def pytest_runtest_makereport(self, item: pytest.Item, call: pytest.CallInfo):
        outcome = yield
        report = outcome.get_result()
        if report.when != "call" or not self._measured(item):
            return
        spent = item.stash.get(self._spent, 0.0)
        report.user_properties.append((self.KEY, spent))
        if report.passed and spent > self.limit:
            report.outcome = "failed"
            report.longrepr = (f"{item.nodeid} took {spent:.2f} s of CPU time (setup and call), over the "
                               f"limit of {self.limit:g} s for a test not marked slow: mark it "
                               f"@pytest.mark.slow or make it faster ({LIMIT_ENV}, tests/conftest.py)")

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        for key, value in report.user_properties:
            if key == self.KEY and self.limit / 2 < value <= self.limit:
                self.near.append((value, report.nodeid))

    def pytest_terminal_summary(self, terminalreporter) -> None:
        if self.near:
            terminalreporter.section("unmarked tests near the CPU limit")
            terminalreporter.write_line(f"over {self.limit / 2:g} s of CPU without the slow mark (the limit is "
                                        f"{self.limit:g} s): mark them slow")
            for value, nodeid in sorted(self.near, reverse=True):
                terminalreporter.write_line(f"  {value:5.2f} s  {nodeid}")
