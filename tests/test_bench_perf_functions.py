"""bench/perf_functions.py: the names it gives perf's samples."""

from __future__ import annotations

from bench_scripts import load_bench_script

perf_functions = load_bench_script("perf_functions.py", "perf_functions")


def test_a_kernel_function_is_named_by_its_module_and_name():
    mangled = "_ZN7gin_sim7kernels9decisions7live_nbB4v100B54c8tJTC_2fWwGaMLSgd6CjA4xXKR0tsqKIYSQ"
    assert perf_functions.readable(mangled) == "decisions.live_nb"
    wrapper = "_ZN7cpython7gin_sim7kernels6search9search_nbB3v19B66c8tJTC_2fWw"
    assert perf_functions.readable(wrapper) == "search.search_nb"


def test_a_name_that_is_not_numba_mangled_is_kept():
    assert perf_functions.readable("cfunc.something") == "cfunc.something"
