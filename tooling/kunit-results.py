#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""KUnit results of one boot, from its console, one line per test case.

    kunit-results.py LINUX CONSOLE SUITES

Parses CONSOLE with the kernel's own KTAP parser (LINUX/tools/testing/kunit,
what `kunit.py parse` uses; its report goes to stderr) and prints, for every
leaf test (a case, or each parameter of a parameterised case):

    result: PASS|FAIL|SKIP|MEASURE kunit/<suite>/<case>[/<param>][ # why]

A case whose name ends in "_cost" is a measurement: if it passes it is a
MEASURE, not a PASS. Also a FAIL for: a parse error (what kunit.py counts as
"errors:"), a suite of SUITES (one name per line) that did not run, a suite
that ran but is not in SUITES, a case or suite that failed or crashed while
its parameters passed, and a console without any KTAP. Exit status 0.
"""
import os
import re
import sys


def main():
    linux, console, suites_file = sys.argv[1:4]
    sys.path.insert(0, os.path.join(linux, 'tools/testing/kunit'))
    import kunit_parser
    import kunit_printer
    from kunit_parser import TestStatus

    def result(status, name, why=''):
        print(f'result: {status} {name}' + (f' # {why}' if why else ''))

    with open(suites_file) as f:
        expected = [l.strip() for l in f
                    if l.strip() and not l.startswith('#')]
    # Stack-depth reports of exiting tasks (DEBUG_STACK_USAGE) can land
    # inside the KTAP output and break its nesting.
    with open(console, errors='replace') as f:
        lines = [l for l in f if 'used greatest stack depth' not in l]

    report = kunit_printer.Printer(output=sys.stderr)
    root = kunit_parser.parse_run_tests(lines, report)
    kunit_parser.print_summary_line(root, report)

    if root.status == TestStatus.FAILURE_TO_PARSE_TESTS:
        result('FAIL', 'kunit', 'no KTAP output on the console')
        return
    if root.counts.errors:
        result('FAIL', 'kunit', f'kunit.py parse: {root.counts.errors} errors')

    ok = (TestStatus.SUCCESS, TestStatus.SKIPPED)

    def walk(test, path):
        name = f'{path}/{test.name}'
        if not test.subtests:
            if test.status == TestStatus.SUCCESS:
                measure = any(p.endswith('_cost') for p in name.split('/'))
                result('MEASURE' if measure else 'PASS', name)
            elif test.status == TestStatus.SKIPPED:
                result('SKIP', name, test.skip_reason.strip())
            elif test.status == TestStatus.NO_TESTS:
                result('FAIL', name, 'no test cases')
            else:
                result('FAIL', name, test.status.name.lower())
            return
        for sub in test.subtests:
            walk(sub, name)
        if test.status not in ok and all(s.status in ok for s in test.subtests):
            result('FAIL', name, f'{test.status.name.lower()} after its cases')

    seen = []
    for suite in root.subtests:
        seen.append(suite.name)
        if suite.name not in expected:
            result('FAIL', f'kunit/{suite.name}',
                   f'suite not listed in {os.path.basename(suites_file)}')
        walk(suite, 'kunit')
    for name in expected:
        if name not in seen:
            result('FAIL', f'kunit/{name}', 'suite did not run in this boot')


if __name__ == '__main__':
    main()
