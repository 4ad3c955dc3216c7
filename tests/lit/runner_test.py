#!/usr/bin/env python3
"""Tests of lit.py: what passes, what fails and what it says then, what is
skipped, and the files it refuses. Its inputs are in inputs/.
Run it with `python3 tests/lit/runner_test.py` (CTest: unit.lit_runner)."""

import os
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
LIT = os.path.join(HERE, "lit.py")
INPUTS = os.path.join(HERE, "inputs")


def lit(name, *args, env=None):
    """Runs lit.py on inputs/NAME; returns (exit status, its output). The
    scratch folders go to a temporary folder, unless args name one."""
    path = os.path.join(INPUTS, name)
    with tempfile.TemporaryDirectory() as scratch:
        if "--scratch" not in args:
            args += ("--scratch", scratch)
        r = subprocess.run([sys.executable, LIT, path, "--set", f"python={sys.executable}",
                            *args], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                           env=dict(os.environ, **(env or {})))
    return r.returncode, r.stdout


def line_of(name, text):
    """The line number of the first line of inputs/NAME that holds text."""
    with open(os.path.join(INPUTS, name)) as f:
        for number, line in enumerate(f, 1):
            if text in line:
                return number
    raise AssertionError(f"{text!r} is not in {name}")


class Passes(unittest.TestCase):
    def test_every_test_of_the_file(self):
        status, out = lit("pass.test", "--set", "n=12")
        self.assertEqual(status, 0, out)
        for name in ("checks_in_order", "blanks_match_blanks", "substitutions",
                     "continued_lines", "expected_exit", "fresh_scratch_folder",
                     "only_output_of_its_run"):
            self.assertIn(f"{name}: passed", out)

    def test_one_test_by_name(self):
        status, out = lit("pass.test", "--test", "continued_lines")
        self.assertEqual(status, 0, out)
        self.assertIn("echo one two three", out)  # the command as run
        self.assertNotIn("checks_in_order", out)

    def test_scratch_folder_made_afresh_and_kept(self):
        with tempfile.TemporaryDirectory() as root:
            for _ in range(2):  # the second run finds the folder empty again
                status, out = lit("pass.test", "--test", "fresh_scratch_folder",
                                  "--scratch", root)
                self.assertEqual(status, 0, out)
            self.assertTrue(os.path.exists(os.path.join(root, "fresh_scratch_folder",
                                                        "left_here")))

    def test_template(self):
        status, out = lit("template.test", "--set", "lesson=heat", "--test", "gpu.heat.program")
        self.assertEqual(status, 0, out)
        self.assertIn("echo running heat_gpu", out)
        self.assertIn("gpu.heat.program: passed", out)

    def test_list(self):
        status, out = lit("pass.test", "--list")
        self.assertEqual(status, 0, out)
        self.assertEqual(out.split()[:2], ["checks_in_order", "blanks_match_blanks"])


class Fails(unittest.TestCase):
    def fails(self, test, *wanted):
        status, out = lit("fail.test", "--test", test)
        self.assertEqual(status, 1, out)
        self.assertIn(f"FAIL: {test}", out)
        for w in wanted:
            self.assertIn(w, out)
        return out

    def test_nonzero_exit_after_the_expected_output(self):
        where = f"fail.test:{line_of('fail.test', 'echo all as expected; exit 1')}"
        self.fails("exit_after_output", where, "the RUN exited with 1, where it must exit with 0",
                   "command: echo all as expected; exit 1", "all as expected")

    def test_death_by_a_signal_after_the_expected_output(self):
        self.fails("segv_after_output", "was killed by SIGSEGV (signal 11)")

    def test_death_by_a_signal_in_a_pipeline(self):
        self.fails("abort_in_a_pipeline", "exited with 134, the shell's status for a death by SIGABRT (signal 6)")

    def test_missing_check_line_named(self):
        line = line_of("fail.test", "CHECK: three")
        out = self.fails("missing_check", f"fail.test:{line}: CHECK: three",
                         "no line of the output after the previous match (on output line 1) matches it",
                         "printf 'one\\ntwo\\n'")
        self.assertIn("|", out)  # the end of the output, line by line
        self.assertIn("two", out.split("the end of its output")[1])

    def test_checks_match_in_order(self):
        line = line_of("fail.test", "// CHECK: two")  # the first: in checks_out_of_order
        self.fails("checks_out_of_order", f"fail.test:{line}: CHECK: two",
                   "after the previous match (on output line 2)")

    def test_check_not_names_the_line_that_matched(self):
        line = line_of("fail.test", "CHECK-NOT: DIFFERS")
        self.fails("check_not_matches", f"fail.test:{line}: CHECK-NOT: DIFFERS",
                   "output line 2 matches it", "it DIFFERS here")

    def test_check_not_after_the_last_check(self):
        self.fails("check_not_at_the_end", "CHECK-NOT: DIFFERS", "output line 2 matches it")

    def test_check_next(self):
        self.fails("check_next_not_next", "CHECK-NEXT: two",
                   "output line 2, the next after the previous match, does not match it")

    def test_regex_in_check(self):
        self.fails("regex_mismatch", "CHECK: total: {{[0-9]+}} / 10 points")

    def test_wrong_exit(self):
        self.fails("wrong_exit", "the RUN exited with 0, where it must exit with 3 (EXIT at line")

    def test_first_failing_run_stops_the_test(self):
        with tempfile.TemporaryDirectory() as root:
            status, out = lit("fail.test", "--test", "second_run_fails", "--scratch", root)
            self.assertEqual(status, 1, out)
            self.assertIn("second", out)
            self.assertFalse(os.path.exists(os.path.join(root, "second_run_fails", "third_ran")))
            self.assertNotIn("touch third_ran", out)


class Skips(unittest.TestCase):
    def skips(self, test, why, file="skip.test", env=None):
        status, out = lit(file, "--test", test, "--no-feature",
                          "thrust:libthrust-dev is not installed", "--feature", "cub",
                          "--feature", "nvcc", env=env)
        self.assertEqual(status, 77, out)
        self.assertIn(f"{test}: skipped: {why}", out)
        self.assertNotIn("it ran", out)

    def test_missing_feature(self):
        self.skips("needs_a_missing_feature", "needs thrust: libthrust-dev is not installed")

    def test_negated_feature(self):
        self.skips("not_with_a_present_feature", "not in a build with cub")

    def test_environment_variable(self):
        self.skips("needs_an_environment_variable", "needs env:CUDALAB_LIT_TEST_UNSET: "
                   "CUDALAB_LIT_TEST_UNSET is not set", env={"CUDALAB_LIT_TEST_UNSET": ""})

    def test_gpu(self):
        self.skips("needs_a_gpu", "needs gpu", env={"CUDALAB_LIT_GPU": "no"})

    def test_skip_exit(self):
        self.skips("skipped_by_its_command", "the RUN exited with 77 (SKIP-EXIT): no cluster here")

    def test_file_level_requires(self):
        self.skips("first", "needs thrust", file="skip_file.test")

    def test_all_skipped_is_skipped(self):
        status, out = lit("skip_file.test", "--no-feature", "thrust")
        self.assertEqual(status, 77, out)
        self.assertIn("second: skipped: needs thrust: this build has no thrust", out)

    def test_unknown_feature_is_an_error(self):
        status, out = lit("skip.test", "--test", "unknown_feature", "--feature", "cub")
        self.assertEqual(status, 2, out)
        self.assertIn("unknown feature no-such-feature", out)


class Malformed(unittest.TestCase):
    cases = {
        "unknown_directive.test": ":3: unknown directive CHEKC: (did you mean CHECK:?)",
        "check_before_run.test": ":2: CHECK before any RUN of a",
        "test_without_name.test": ":1: TEST needs a name",
        "run_before_test.test": ":1: RUN before the first TEST line",
        "check_next_first.test": ":3: CHECK-NEXT needs a CHECK before it",
        "exit_above_128.test": ":3: EXIT takes a status from 0 to 128",
        "bad_regex.test": ":3: the regex of CHECK does not compile",
        "two_tests_one_name.test": ":3: a second test named a",
        "backslash_then_no_run.test": ":2: the RUN line ends in a backslash, but line 3",
        "misspelt_directive.test": ":3: '//CHECK: x' is not a directive",
        "unknown_substitution.test": ":2: unknown substitution %nosuch",
        "lone_percent.test": ":2: '%' is no substitution (write %% for a percent sign)",
        "no_test.test": "no TEST line",
        "test_without_run.test": ":1: test a has no RUN line",
        "build_after_test.test": ":2: BUILD concerns the file",
    }

    def test_each_is_refused_with_its_line(self):
        for name, wanted in self.cases.items():
            with self.subTest(name):
                status, out = lit(os.path.join("malformed", name))
                self.assertEqual(status, 2, out)
                self.assertIn(f"lit.py: error: {os.path.join(INPUTS, 'malformed', name)}", out)
                self.assertIn(wanted, out)

    def test_every_input_has_a_case(self):
        self.assertEqual(sorted(os.listdir(os.path.join(INPUTS, "malformed"))),
                         sorted(self.cases))

    def test_unknown_test_name(self):
        status, out = lit("pass.test", "--test", "no_such_test")
        self.assertEqual(status, 2, out)
        self.assertIn("has no test no_such_test", out)


if __name__ == "__main__":
    unittest.main()
