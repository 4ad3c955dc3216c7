#!/usr/bin/env python3
"""Each generated file in the repository is what its generator writes today.

usage: generated_files_up_to_date.py PROJECT_DIR

simulator/include/cudalab/vector_types.h is written by
simulator/tools/gen_vector_types.py (then laid out by clang-format): a change
to the generator that was not run again, or a hand edit of the header, fails
here with the first line that differs. The comparison ignores layout
(spaces and line breaks), so that it needs no clang-format.
"""
import difflib
import os
import re
import subprocess
import sys

root = sys.argv[1]
generated = [('simulator/tools/gen_vector_types.py', 'simulator/include/cudalab/vector_types.h')]


def tokens(text):
    # The text without its layout: one token per line, for a readable diff.
    return re.findall(r'[A-Za-z_0-9.]+|"[^"\n]*"|//[^\n]*|[^\sA-Za-z_0-9]', text)


stale = 0
for generator, output in generated:
    made = subprocess.run([sys.executable, os.path.join(root, generator)], capture_output=True,
                          text=True)
    if made.returncode != 0:
        print(f'{generator} failed:\n{made.stderr}')
        stale += 1
        continue
    kept = open(os.path.join(root, output)).read()
    want, have = tokens(made.stdout), tokens(kept)
    if want != have:
        stale += 1
        diff = list(difflib.unified_diff(have, want, output, generator + ' now', n=2, lineterm=''))
        print(f'{output} is not what {generator} writes: run the generator again (its header '
              'says how). The first difference, token by token:')
        print('\n'.join(diff[:20]))
if stale:
    sys.exit(1)
print(f'generated files: all {len(generated)} up to date')
