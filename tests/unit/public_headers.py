#!/usr/bin/env python3
"""Each public header compiles on its own, included twice; so does each of
the simulator's own headers (simulator/src/*/*.h, simulator/rewriter/*.h).

usage: public_headers.py CXX CUDALAB_CC PROJECT_DIR

The libraries' C++ headers (support/, trace/, framework/include) are
compiled by the host compiler (-fsyntax-only); the simulator's headers that
a CUDA file includes by name (simulator/include/*.h) by cudalab-cc, as a
.cu file that includes only that header (nvcc includes cuda_runtime.h
first, and so does cudalab-cc). A header that needs another one included
before it fails here, with the compiler's first lines. The simulator's own
headers are compiled as its files include them ("grid/grid.h",
"rewriter/rewrite.h"), so that a file can include just the ones whose names
it uses.
"""
import glob, os, subprocess, sys, tempfile

cxx, cudalab_cc, root = sys.argv[1:4]
includes = [os.path.join(root, d) for d in
            ('support/include', 'trace/include', 'framework/include', 'simulator/include')]
cpp_headers = []
for d in ('support/include', 'trace/include', 'framework/include'):
    base = os.path.join(root, d)
    cpp_headers += sorted(os.path.relpath(h, base) for h in glob.glob(base + '/cudalab/**/*.h', recursive=True))
own_includes = includes + [os.path.join(root, 'simulator/src'), os.path.join(root, 'simulator')]
own_headers = sorted(os.path.relpath(h, os.path.join(root, 'simulator/src'))
                     for h in glob.glob(os.path.join(root, 'simulator/src/*/*.h')))
own_headers += sorted(os.path.relpath(h, os.path.join(root, 'simulator'))
                      for h in glob.glob(os.path.join(root, 'simulator/rewriter/*.h')))
cuda_headers = sorted(os.path.basename(h) for h in glob.glob(os.path.join(root, 'simulator/include/*.h')))

failed = []
with tempfile.TemporaryDirectory() as tmp:
    def compile(header, cmd, path):
        with open(path, 'w') as f:
            f.write(f'#include <{header}>\n#include <{header}>\n')
        r = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
        if r.returncode != 0:
            failed.append(header)
            print(f'{header}: does not compile on its own:')
            print('\n'.join('  ' + l for l in (r.stdout + r.stderr).splitlines()[:12]))
    for h in cpp_headers:
        src = os.path.join(tmp, 'one.cpp')
        compile(h, [cxx, '-std=c++20', '-fsyntax-only', *('-I' + i for i in includes), src], src)
    for h in own_headers:
        src = os.path.join(tmp, 'one.cpp')
        compile(h, [cxx, '-std=c++20', '-fsyntax-only', *('-I' + i for i in own_includes), src], src)
    for h in cuda_headers:
        src = os.path.join(tmp, 'one.cu')
        compile(h, [cudalab_cc, '--fast', '-c', src, '-o', os.path.join(tmp, 'one.o')], src)
total = len(cpp_headers) + len(own_headers) + len(cuda_headers)
if failed:
    sys.exit(f'{len(failed)} of {total} headers do not compile on their own')
print(f'headers: all {total} compile on their own ({len(own_headers)} of them the simulator\'s own)')
