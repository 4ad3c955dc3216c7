#!/usr/bin/env python3
"""A small class graded twice, and its reports checked against their formats.

usage: class_and_formats.py CUDALAB PROJECT OUTDIR

The class: the vector-add solution (as a file and as a folder with
exercise.cu), the exercise, every known-wrong change and a file that does not
compile. Checks: every gradebook row adds up and matches the expected score
class; a second run grades nothing and writes the same gradebook; a regrade
from scratch with the same seed gives the same gradebook; Gradescope's,
PrairieLearn's and JUnit's files have what those formats require; hidden
tests never show their inputs; with --pictures, the first failing visible
test of each student who has one is drawn, and the picture goes with that
test in PrairieLearn's file (which stays under its 1 MB).
"""
import base64, csv, glob, json, os, shutil, subprocess, sys
import xml.etree.ElementTree as ET

cudalab, project, out = sys.argv[1:4]
lesson = os.path.join(project, 'lessons', 'vector_add')
cls = out + '-class'
shutil.rmtree(cls, ignore_errors=True)
shutil.rmtree(out, ignore_errors=True)
os.makedirs(os.path.join(cls, 'folder_student'))
shutil.copy(os.path.join(lesson, 'solution.cu'), os.path.join(cls, 'solution_file.cu'))
shutil.copy(os.path.join(lesson, 'solution.cu'), os.path.join(cls, 'folder_student', 'exercise.cu'))
shutil.copy(os.path.join(lesson, 'exercise.cu'), os.path.join(cls, 'untouched_exercise.cu'))
for d in glob.glob(os.path.join(lesson, 'wrong', '*.diff')):
    shutil.copy(d, cls)
with open(os.path.join(cls, 'broken.cu'), 'w') as f:
    f.write('#include "lesson.h"\nvoid launch_vector_add(const float*, const float*, float*, int, int, int) { nope; }\n')

def grade(dest, *extra):
    p = subprocess.run([cudalab, 'grade', 'vector_add', cls, '-o', dest, '-j2', '--seed', '42', *extra],
                       capture_output=True, text=True)
    if p.returncode not in (0, 1):
        sys.exit(f'cudalab grade failed ({p.returncode}): {p.stderr[-2000:]}')
    return p

def book(dest):
    return open(os.path.join(dest, 'gradebook.csv')).read()

grade(out)
first = book(out)
rows = {r['student']: r for r in csv.DictReader(first.splitlines())}
assert len(rows) == 4 + len(glob.glob(os.path.join(lesson, 'wrong', '*.diff'))), rows.keys()
for s, r in rows.items():
    tests = [k for k in r if k not in ('student', 'total', 'max', 'status')]
    assert abs(sum(float(r[t] or 0) for t in tests) - float(r['total'])) < 1e-9, r
    assert float(r['total']) <= float(r['max']), r
assert rows['solution_file']['total'] == rows['folder_student']['total'] == '12', rows
assert rows['untouched_exercise']['total'] == '0', rows['untouched_exercise']
assert rows['broken']['status'] == 'did_not_compile' and rows['broken']['total'] == '0'
for s in rows:
    if s not in ('solution_file', 'folder_student'):
        assert float(rows[s]['total']) < 12, (s, rows[s])

again = grade(out)
assert 'grading 0 submissions' in again.stderr, again.stderr
assert book(out) == first, 'a second run changed the gradebook'
fresh = out + '-again'
shutil.rmtree(fresh, ignore_errors=True)
# The regrade also draws pictures of failing tests (where it can): they
# change no score.
pictures = shutil.which('xvfb-run') and os.path.exists(os.path.join(os.path.dirname(cudalab), 'cudalab-viz'))
grade(fresh, *(['--pictures'] if pictures else []))
assert book(fresh) == first, 'a regrade with the same seed gave another gradebook'
if not pictures:
    print('pictures not checked: xvfb-run or cudalab-viz is missing')
else:
    def png_size(data):
        assert data[:8] == b'\x89PNG\r\n\x1a\n' and data[12:16] == b'IHDR', 'not a PNG'
        return int.from_bytes(data[16:20], 'big'), int.from_bytes(data[20:24], 'big')
    drawn = 0
    for f in glob.glob(os.path.join(fresh, 'records', '*.json')):
        r = json.load(open(f))
        student = os.path.basename(f)[:-5]
        png = os.path.join(fresh, 'pictures', student + '.png')
        wrong = [t for t in r['tests'] if t['kind'] == 'test' and t['visibility'] == 'visible'
                 and t['verdict'] == 'wrong results']
        if wrong:  # the first visible test with wrong results is drawn
            assert r['picture_test'] == wrong[0]['name'], (student, r['picture_test'], r['picture_note'])
        if r['score'] == r['max_score'] or r['status'] != 'graded':
            assert not r['picture_test'] and not os.path.exists(png), student
        if not r['picture_test']:
            continue
        drawn += 1
        data = open(png, 'rb').read()
        assert png_size(data) == (1024, 640) and len(data) > 10000, (student, len(data))
        pl = open(os.path.join(fresh, 'prairielearn', student + '.json')).read()
        assert len(pl) < 1000000, 'PrairieLearn takes results of at most 1 MB'
        with_images = [t for t in json.loads(pl)['tests'] if t.get('images')]
        assert [t['name'] for t in with_images] == [r['picture_test']], student
        im = with_images[0]['images'][0]
        assert im['label'] and im['url'] == 'data:image/png;base64,' + base64.b64encode(data).decode()
        assert 'A picture of test' in open(os.path.join(fresh, 'feedback', student + '.txt')).read()
    assert drawn >= 3, f'only {drawn} pictures drawn'
    print(f'{drawn} pictures of failing tests checked')
    # PrairieLearn's grader runs check on one submission: the same score as
    # the class command's, and the picture with the failing test.
    results = os.path.join(fresh, 'pl-results.json')
    p = subprocess.run([cudalab, 'check', 'vector_add', '--file',
                        os.path.join(cls, 'no_grid_stride.diff'), '--seed', '42',
                        '--prairielearn', results], capture_output=True, text=True)
    assert p.returncode == 1 and 'PrairieLearn results written' in p.stdout, p.stdout + p.stderr
    pl = json.load(open(results))
    assert abs(pl['score'] * 12 - float(rows['no_grid_stride']['total'])) < 1e-9, pl['score']
    assert [t['name'] for t in pl['tests'] if t.get('images')] == ['GridStride'], pl['tests']

for f in glob.glob(os.path.join(out, 'gradescope', '*.json')):
    g = json.load(open(f))
    assert isinstance(g['score'], (int, float)) and isinstance(g['tests'], list), f
    for t in g['tests']:
        assert {'name', 'score', 'max_score', 'status', 'output', 'visibility'} <= t.keys(), t
        assert t['status'] in ('passed', 'failed'), t
        assert t['visibility'] in ('hidden', 'after_due_date', 'after_published', 'visible'), t
        assert t['score'] <= t['max_score'], t
        if t['visibility'] == 'after_due_date':
            assert 'n = ' not in t['output'], ('a hidden test shows its inputs', t)
for f in glob.glob(os.path.join(out, 'prairielearn', '*.json')):
    p = json.load(open(f))
    assert isinstance(p['gradable'], bool) and 0 <= p['score'] <= 1, f
    for t in p['tests']:
        assert {'name', 'points', 'max_points'} <= t.keys() and t['points'] <= t['max_points'], t
    for im in p.get('images', []):
        assert im['url'].startswith('data:image/png;base64,'), im
root = ET.parse(os.path.join(out, 'junit.xml')).getroot()
assert root.tag == 'testsuites'
for suite in root.findall('testsuite'):
    for a in ('name', 'tests', 'failures', 'errors'):  # required by junit-10.xsd
        assert a in suite.attrib, (a, suite.attrib)
    cases = suite.findall('testcase')
    assert int(suite.get('tests')) == len(cases)
    assert int(suite.get('failures')) + int(suite.get('errors')) == \
        sum(1 for c in cases if c.find('failure') is not None or c.find('error') is not None)
    for c in cases:
        assert c.get('name') and c.get('classname'), c.attrib
for f in glob.glob(os.path.join(out, 'feedback', '*.txt')):
    assert 'n = ' not in ''.join(l for l in open(f) if 'Hidden' in l)
assert os.path.getsize(os.path.join(out, 'summary.png')) > 1000
print('class and formats: ok')
