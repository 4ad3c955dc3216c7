#!/usr/bin/env python3
"""Every source file of the code's folders is named in its folder's README.

usage: readmes_name_every_file.py PROJECT_DIR

A folder's README says what each of its files does, so that someone who has
not seen the code finds the file for a change from the names alone. For each
file git tracks under support/, simulator/, framework/, trace/, visualizer/,
cmake/ and bench/ (C++, CUDA, Python, shell, CMake and templates), the
nearest README.md above it must name it: by its name (`rewrite.cpp`), its
path from the README's folder (`src/grid/grid.h`), `name.*`, or, for a .cpp
or .h, its pair (`views.h` names views.cpp too). A file named nowhere fails
the test with its README. A path the README gives (`src/x.cpp`) that is not there fails too.
"""
import os
import re
import subprocess
import sys

root = sys.argv[1]
tops = ('support', 'simulator', 'framework', 'trace', 'visualizer', 'cmake', 'bench')
listed = subprocess.run(['git', '-C', root, 'ls-files', *tops], capture_output=True, text=True)
files = [f for f in listed.stdout.split('\n') if f]
if listed.returncode != 0 or not files:
    print(f'skipped: {root} is not a git checkout (the test reads what git tracks)')
    sys.exit(77)
readmes = {os.path.dirname(f) for f in files if os.path.basename(f) == 'README.md'}
source_ends = ('.cpp', '.h', '.cu', '.py', '.sh', '.cmake', '.cuh', '.hpp', '.in')


def owner_of(path):
    d = os.path.dirname(path)
    while d not in readmes:
        if d in ('', '.'):
            return None
        d = os.path.dirname(d)
    return d


def named(text, names):
    return any(re.search(r'(?<![\w.])' + re.escape(n) + r'(?!\w)', text) for n in names)


unnamed = {}
texts = {}
for f in files:
    if not f.endswith(source_ends):
        continue
    owner = owner_of(f)
    if owner is None:
        continue
    text = texts.setdefault(owner, open(os.path.join(root, owner, 'README.md')).read())
    rel = os.path.relpath(f, owner)
    base = os.path.basename(f)
    stem, ext = os.path.splitext(base)
    names = {base, rel, stem + '.*', os.path.splitext(rel)[0] + '.*'}
    if ext in ('.cpp', '.h'):
        names |= {stem + '.h', stem + '.cpp'}
    if not named(text, names):
        unnamed.setdefault(owner, []).append(rel)

# The other way: a file path a README gives in backticks that is not there.
tracked = set(f for f in subprocess.run(['git', '-C', root, 'ls-files'], capture_output=True,
                                         text=True, check=True).stdout.split('\n') if f)
gone = {}
for owner, text in texts.items():
    for m in re.finditer(r'`((?:[\w.-]+/)*[\w.-]+\.(?:cpp|h|cu|py|sh|cmake))`', text):
        rel = m.group(1)
        if '/' not in rel:
            continue  # a bare name may be a header of CUDA's, not a file here
        # From the README's folder, from the project, or from a folder the
        # README's sentence is about (`views/x.h` in visualizer/src/).
        here = any(f == os.path.normpath(os.path.join(owner, rel)) or f == rel or
                   (f.startswith(owner + '/') and f.endswith('/' + rel)) for f in tracked)
        if not here:
            gone.setdefault(owner, []).append(rel)

for owner, rels in sorted(unnamed.items()):
    print(f'{owner}/README.md does not name: {", ".join(sorted(rels))}')
for owner, rels in sorted(gone.items()):
    print(f'{owner}/README.md names files that are not there: {", ".join(sorted(rels))}')
if unnamed or gone:
    sys.exit(1)
print(f'READMEs: all {sum(1 for f in files if f.endswith(source_ends))} files named in '
      f'{len(texts)} READMEs')
