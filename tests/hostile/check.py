#!/usr/bin/env python3
"""Grades the hostile corpus as a class and checks every record.

usage: check.py CUDALAB OUTDIR [TIMEOUT] [JOBS]

Each file's header says the most points it may earn (`expect-max-points`);
files marked `hostile: none` and sleep_under_limit.cu must earn exactly that.
Every failed test must say why; nothing may leak (the solution's or the hidden
tests' text, a file found, a connection made), escape (marker files outside
the sandbox, processes left running) or change the repository; and a
submission's tests together, with the waits for a program that answered but
did not end, stay within twice the per-test limit.
A file whose header says `graded-with-limit: N` is graded with N seconds,
apart from the rest: it computes until a limit stops it, so each of its
tests costs the limit's length in CPU, and how long the limit is is not what
it tests. The others are graded with TIMEOUT seconds (default 10).
JOBS submissions are graded at once (default 3: much of the corpus waits for
its limits, a sleep or a stopped process, rather than computing).
"""
import fcntl, glob, hashlib, json, os, re, shutil, subprocess, sys, time

cudalab, out = sys.argv[1], sys.argv[2]
limit = float(sys.argv[3]) if len(sys.argv) > 3 else 10
jobs = int(sys.argv[4]) if len(sys.argv) > 4 else 3
here = os.path.dirname(os.path.abspath(__file__))
root = os.path.dirname(os.path.dirname(here))
guarded = [os.path.join(root, 'lessons/vector_add', f) for f in ('solution.cu', 'hidden.cu', 'grade.cu')]
guarded = [g for g in guarded if os.path.exists(g)]
digest = lambda: [hashlib.sha256(open(g, 'rb').read()).hexdigest() for g in guarded]
before = digest()
secret_lines = []
for g in guarded[:2]:
    secret_lines += [l.strip() for l in open(g) if len(l.strip()) > 30 and not l.strip().startswith('//')
                     and '#include' not in l]

# The probes aim at this clone: @REPOSITORY@ becomes its path.
corpus = out + '-corpus'
shutil.rmtree(corpus, ignore_errors=True)
# Graded afresh each run: `cudalab grade` keeps the records of unchanged
# submissions, and a change to cudalab itself (its sandbox) must be tested.
shutil.rmtree(out, ignore_errors=True)
# Each limit's files are a class of their own: LIMIT -> names.
classes = {}
limit_of = {}
for src in glob.glob(os.path.join(here, '*.cu')):
    text = open(src).read()
    m = re.search(r'^// graded-with-limit:\s*([0-9.]+)\s*$', text[:2000], re.M)
    name = os.path.basename(src)[:-3]
    limit_of[name] = float(m.group(1)) if m else limit
    classes.setdefault(limit_of[name], []).append(name)
    text = text.replace('@REPOSITORY_PARENT@', os.path.dirname(root)).replace('@REPOSITORY@', root)
    folder = os.path.join(corpus, f'limit-{limit_of[name]:g}')
    os.makedirs(folder, exist_ok=True)
    with open(os.path.join(folder, name + '.cu'), 'w') as f:
        f.write(text)

start = time.time()
graded = {}  # limit -> its class's output folder
for class_limit in sorted(classes):
    graded[class_limit] = os.path.join(out, f'limit-{class_limit:g}')
    print(f'== {len(classes[class_limit])} files with a limit of {class_limit:g} s')
    p = subprocess.run([cudalab, 'grade', 'vector_add', os.path.join(corpus, f'limit-{class_limit:g}'),
                        '-o', graded[class_limit], f'-j{jobs}', '--timeout', str(class_limit)],
                       capture_output=True, text=True)
    print(p.stdout[-3000:])
    if p.returncode not in (0, 1):
        print(p.stderr[-3000:])
        sys.exit('cudalab grade failed')
problems = []
for src in sorted(glob.glob(os.path.join(here, '*.cu'))):
    name = os.path.basename(src)[:-3]
    file_limit = limit_of[name]
    head = open(os.path.join(corpus, f'limit-{file_limit:g}', name + '.cu')).read(2000)
    want = float(re.search(r'expect-max-points:\s*([0-9.]+)', head).group(1))
    exact = 'hostile: none' in head or name == 'sleep_under_limit'
    try:
        r = json.load(open(os.path.join(graded[file_limit], 'records', name + '.json')))
    except OSError:
        problems.append(f'{name}: no record')
        continue
    text = json.dumps(r)
    if r['score'] > want or (exact and r['score'] != want):
        problems.append(f"{name}: {r['score']} points, expected {'' if exact else 'at most '}{want}")
    if r['status'] == 'error':
        problems.append(f"{name}: grading error: {r['error']}")
    for t in r['tests']:
        if t['status'] != 'passed' and not t['output'].strip():
            problems.append(f"{name}: {t['name']} failed without a reason")
        if t['score'] > t['max_score']:
            problems.append(f"{name}: {t['name']} scored above its points")
    for marker in ('HOSTILE-FOUND', 'HOSTILE-EXISTS', 'HOSTILE-NETWORK-OK', 'HOSTILE-PTRACE-OK', 'HOSTILE-ESCAPED'):
        if marker in text:
            problems.append(f'{name}: printed {marker}')
    for line in secret_lines:
        if line in r.get('compiler_output', '') or any(line in t['output'] for t in r['tests']):
            problems.append(f'{name}: its report quotes the solution or hidden tests: {line!r}')
    # The tests' runs, and the waits for a program that answered but did not end.
    spent = sum(t['seconds'] for t in r['tests']) + r.get('exit_seconds', 0)
    if spent > 2 * file_limit + 2:
        problems.append(f'{name}: its tests ran {spent:.1f} s (of which {r.get("exit_seconds", 0):.1f} s '
                        f'waiting for a program that did not end), more than twice the {file_limit:g} s limit')
    print(f"{name:38s} {r['score']:4g}/{want:<4g} {spent:5.1f} s  {r['status']}")
# This run's sandbox users (another grading at the same time has others).
# Once the grading has ended, its range is free for the next grading on
# this machine: hold the range's lock (the one cudalab takes) while looking,
# so that a grading started since is not taken for this one's leftovers.
def left_running(low, high):
    """Processes of sandbox users LOW..HIGH still alive (None: another
    grading holds that range now, so they cannot be told apart)."""
    lock = open(f'/tmp/cudalab-sandbox-users-{low}.lock', 'a')
    for _ in range(100):
        try:
            fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
            break
        except OSError:
            time.sleep(0.1)
    else:
        return None
    time.sleep(1)
    ps = subprocess.run(['ps', '-eo', 'uid=,stat=,pid=,args='], capture_output=True, text=True).stdout
    found = []
    for line in ps.splitlines():
        uid, stat = int(line.split()[0]), line.split()[1]
        if low <= uid <= high and not stat.startswith('Z'):  # a zombie is already dead
            found.append(line.strip())
    lock.close()
    return found


ranges = {tuple(json.load(open(os.path.join(folder, 'grading.json'))).get('sandbox_users', [60000, 60999]))
          for folder in graded.values()}
for low, high in sorted(ranges):
    found = left_running(low, high)
    if found is None:
        print(f'note: another grading took sandbox users {low}-{high}; processes left running not checked')
    else:
        problems += ['left running: ' + line for line in found]
for f in glob.glob('/tmp/cudalab-hostile-*') + glob.glob(os.path.join(root, '**/cudalab-hostile-*'), recursive=True):
    problems.append('escaped: ' + f)
if digest() != before:
    problems.append('the repository changed: ' + ', '.join(guarded))
print(f'graded the corpus in {time.time() - start:.0f} s')
if problems:
    print('\n'.join('PROBLEM ' + p for p in problems))
    sys.exit(1)
print('hostile corpus: all as expected')
