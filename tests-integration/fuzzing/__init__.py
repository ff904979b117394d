"""Fuzzing helpers for ``test_fuzz.py``: a corpus of small valid programs and real
linkable inputs (:mod:`.corpus`), Hypothesis strategies that mutate them
(:mod:`.strategies`), a child process that runs cases and reports each outcome
(:mod:`.child`) and the parent side that batches cases, attributes crashes and
hangs to one input, and classifies outcomes (:mod:`.runner`)."""
