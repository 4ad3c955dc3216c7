#!/usr/bin/env python3
"""The top README's course table is the course, in its order.

usage: course_table.py README.md LESSONS.json

LESSONS.json is what `cudalab list --json` prints. The README's table under
its "## The course" heading must have one row per lesson, in course order:
| N | [`name`](lessons/name/) | title |. Prints the first difference and
exits 1, or prints "course table: N lessons, as cudalab list" and exits 0.
"""
import json
import re
import sys


def main(argv):
    if len(argv) != 3:
        sys.stderr.write(__doc__)
        return 2
    text = open(argv[1], encoding="utf-8").read()
    lessons = json.load(open(argv[2], encoding="utf-8"))
    m = re.search(r"^## The course\n(.*?)(?=^## )", text, re.M | re.S)
    if not m:
        print("README.md has no '## The course' section")
        return 1
    rows = [l for l in m.group(1).splitlines() if re.match(r"^\| *\d", l)]
    for i, lesson in enumerate(lessons):
        if i >= len(rows):
            print(f"the table has {len(rows)} rows; cudalab list has {len(lessons)} lessons "
                  f"(missing: {lesson['name']})")
            return 1
        cells = [c.strip() for c in rows[i].strip().strip("|").split("|")]
        want = [str(i + 1), f"[`{lesson['name']}`](lessons/{lesson['name']}/)", lesson["title"]]
        if cells[:3] != want:
            print(f"row {i + 1} is {cells[:3]}, cudalab list says {want}")
            return 1
    if len(rows) > len(lessons):
        print(f"the table has {len(rows)} rows; cudalab list has {len(lessons)} lessons")
        return 1
    print(f"course table: {len(lessons)} lessons, as cudalab list")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
