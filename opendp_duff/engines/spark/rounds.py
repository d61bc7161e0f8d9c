"""The per-key releases of a grouped Spark release, run in rounds so that the tails they open
are fetched for all keys in one shared pass per round.

The Duff sampler reads a tail's rest lazily, when its race reaches that far block
(:class:`~opendp_duff.engines.rank_window.Tail`), and which keys do so is known only as their
samplers run.  :func:`run_in_rounds` runs the per-key releases one at a time, in key order,
each in a thread of its own (taken from a small pool; only one runs at any time, so the
releases share the process as sequential code does): a release runs until it returns, raises
or asks for a tail (:func:`request`), where it waits.  When every release of the round has
returned or waits, the tails asked for are fetched together (one Spark pass per statistic,
``fetch``), and the waiting releases resume, in key order, as the next round.  The number of
rounds, hence of tail passes, is at most the largest number of tails one key opens (two: its
left and its right tail), not their sum over the keys.

Each release still reads exactly its own window and tails and draws its own fresh random
bytes; only the order in which the keys draw changes (a key that waits for a tail draws the
rest of its bytes after the next keys drew theirs), which does not change the law of the
releases, independent uniform bytes being independent in any order.
Proof: ``proofs/engines/spark/rank_windows.tex`` ("Passes per release").
"""
from __future__ import annotations

import contextvars
import threading
from collections.abc import Callable, Sequence
from typing import Any

__all__ = ["run_in_rounds", "request"]

_TASK: contextvars.ContextVar[_Task | None] = contextvars.ContextVar("opendp_duff_spark_round_task", default=None)


class _Task:
    """One per-key release: its function, and what it returned, raised or asks for."""

    def __init__(self, run: Callable[[], Any]) -> None:
        self.run = run
        self.result: Any = None
        self.error: BaseException | None = None
        self.asks: tuple[Any, Any] | None = None      # (group, request) while it waits
        self.answer: Any = None
        self.runner: _Runner | None = None


class _Runner:
    """A thread that runs tasks one after another; the coordinator hands it the baton."""

    def __init__(self, context: contextvars.Context, thread: Callable[[Callable[[], None]], threading.Thread]) -> None:
        self.go, self.done = threading.Semaphore(0), threading.Semaphore(0)
        self.task: _Task | None = None
        self._context = context
        worker = thread(self._loop)
        worker.daemon = True
        worker.start()

    def _loop(self) -> None:
        while True:
            self.go.acquire()
            task = self.task
            if task is None:
                return
            self._context.copy().run(self._run, task)
            self.done.release()

    @staticmethod
    def _run(task: _Task) -> None:
        _TASK.set(task)
        try:
            task.result = task.run()
        except BaseException as exc:  # noqa: BLE001 - handed to the coordinator, raised there
            task.error = exc

    def step(self) -> None:
        """Let the current task run until it returns, raises or waits for a tail."""
        self.go.release()
        self.done.acquire()


# [proof:request]
def request(group: Any, spec: Any, fetch: Callable[[Any, Sequence[Any]], list[Any]]) -> Any:
    """The answer to ``spec``: in a round, after the round's shared pass for ``group`` (all the
    requests of that group fetched together by ``fetch(group, specs)``); outside one, fetched
    alone at once."""
    task = _TASK.get()
    if task is None or task.runner is None:
        return fetch(group, [spec])[0]
    task.asks = (group, (spec, fetch))
    task.runner.done.release()          # hand the baton back, wait for the round's pass
    task.runner.go.acquire()
    answer, task.answer = task.answer, None
    if isinstance(answer, BaseException):
        raise answer
    return answer


def run_in_rounds(functions: Sequence[Callable[[], Any]],
                  thread: Callable[[Callable[[], None]], threading.Thread] | None = None) -> list[Any]:
    """The results of ``functions``, run in key order in rounds (see the module docstring);
    the first error, in key order, is raised once every function has stopped.  ``thread(target)``
    makes a pool thread (for Spark: one that inherits the caller's job group and properties)."""
    context = contextvars.copy_context()
    thread = thread or (lambda target: threading.Thread(target=target))
    tasks = [_Task(f) for f in functions]
    free: list[_Runner] = []
    blocked: list[_Task] = []      # tasks waiting in request(), in key order
    try:
        waiting, first = tasks, True
        while waiting:
            for task in waiting:
                if first:
                    task.runner = free.pop() if free else _Runner(context, thread)
                    task.runner.task = task
                else:
                    blocked.remove(task)
                task.asks = None
                runner = task.runner
                assert runner is not None
                runner.step()
                if task.asks is not None:
                    blocked.append(task)
                else:
                    free.append(runner)
                if task.error is not None:
                    raise task.error
            first = False
            _answer(blocked)
            waiting = list(blocked)
    finally:
        _abort(blocked, free)
        for runner in free:
            runner.task = None
            runner.go.release()
    return [t.result for t in tasks]
# [end:request]


def _answer(asked: list[_Task]) -> None:
    """One fetch per group for all the round's requests of that group; a failed fetch is the
    answer (raised in each release that asked)."""
    groups: dict[int, list[_Task]] = {}
    for task in asked:
        groups.setdefault(id(task.asks[0]), []).append(task)      # type: ignore[index]
    for members in groups.values():
        group = members[0].asks[0]                                 # type: ignore[index]
        fetch = members[0].asks[1][1]                              # type: ignore[index]
        try:
            answers = fetch(group, [t.asks[1][0] for t in members])  # type: ignore[index]
        except Exception as exc:  # noqa: BLE001 - raised in every release that asked
            answers = [exc] * len(members)
        for task, answer in zip(members, answers, strict=True):
            task.answer = answer


def _abort(blocked: list[_Task], free: list[_Runner]) -> None:
    """Stop the releases that still wait (another one failed): each gets an error as its
    answer, ends, and frees its thread."""
    for task in blocked:
        task.answer = RuntimeError("another key's release failed")
        assert task.runner is not None
        task.runner.step()
        free.append(task.runner)
