"""Progress reports of long compile stages (cudalite.core.progress), GPU-less."""

from __future__ import annotations

import logging
import threading
import time

from cudalite.core.progress import reporting


def test_no_thread_and_no_record_when_info_is_off(caplog):
    logger = logging.getLogger("cudalite.test.progress.off")
    logger.setLevel(logging.WARNING)
    before = threading.active_count()
    with reporting(logger, "k(float32)", "nvvm", after=0.0, every=0.01):
        assert threading.active_count() == before
        time.sleep(0.05)
    assert caplog.records == []


def test_a_slow_stage_reports_while_it_runs_and_when_it_ends(caplog):
    logger = logging.getLogger("cudalite.test.progress.on")
    with caplog.at_level(logging.INFO, logger=logger.name):
        with reporting(logger, "big_kernel(array(float32, 1d, C))", "nvvm", after=0.05, every=0.05):
            time.sleep(0.18)
    messages = [r.getMessage() for r in caplog.records]
    assert len(messages) >= 3
    assert all(m.startswith("still compiling big_kernel(array(float32, 1d, C)): nvvm stage, ")
               and m.endswith(" s so far") for m in messages[:-1])
    assert messages[-1].startswith("compiled big_kernel(array(float32, 1d, C)): nvvm stage took ")
    assert not any(t.name == "cudalite-progress" for t in threading.enumerate())  # the watcher ended


def test_a_fast_stage_says_nothing(caplog):
    logger = logging.getLogger("cudalite.test.progress.fast")
    with caplog.at_level(logging.INFO, logger=logger.name):
        with reporting(logger, "k", "lower", after=5.0):
            pass
    assert caplog.records == []
