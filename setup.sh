#!/usr/bin/env bash
# cudalab's first command: install what is missing (Debian 12), configure,
# build what a student uses (the tools, the simulator, the lessons' programs
# and their graders), and run the vector-add lesson's solution on the CPU
# simulator. The tests' own programs are built by the second command,
# `cmake --workflow --preset default`, which then runs the tests.
# Safe to run again: it installs nothing that is there and builds only what
# changed. `./setup.sh --grader [LESSON]` builds only what grading needs (the
# cudalab command, the simulator and the judges: LESSON's alone when it is
# given; no viewer), as an autograder's image does.
set -euo pipefail
cd "$(dirname "$0")"
grader_only=0
graded=
case "${1:-}" in
  "") ;;
  --grader)
    grader_only=1
    graded=${2:-}
    if [[ -n "$graded" && ! -f "lessons/$graded/lesson.json" ]]; then
      echo "./setup.sh: no lesson '$graded' (lessons/$graded/lesson.json)" >&2
      exit 2
    fi ;;
  *) echo "usage: ./setup.sh [--grader [LESSON]]" >&2; exit 2 ;;
esac

packages=(cmake ninja-build clang g++ git pkg-config googletest libgtest-dev
          libboost-context-dev nlohmann-json3-dev libcli11-dev
          libthrust-dev libcub-dev binutils llvm llvm-dev libomp-dev python3 bubblewrap)
# The viewer's (cudalab-viz, and the pictures it draws in a virtual display):
# a grader's image builds without it.
if ((!grader_only)); then
  packages+=(libimgui-dev libglfw3-dev libgl-dev libgl1-mesa-dri libglx-mesa0 libstb-dev xvfb xauth
             xdotool)
fi
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  if [[ $(id -u) -ne 0 ]]; then
    echo "cudalab needs these Debian packages first. Run, as root:"
    echo
    echo "  apt-get install -y ${missing[*]}"
    echo
    echo "then run ./setup.sh again."
    exit 1
  fi
  echo "== installing: ${missing[*]}"
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}"
fi

echo "== configuring (build/)"
# A grader's image has no use for the viewer (cudalab-viz): its build is
# configured without it, as the no-viewer preset is, and the cudalab command
# and the judges build and grade without GLFW or Dear ImGui.
viewer=ON
if ((grader_only)); then viewer=OFF; fi
cmake --preset default -DCUDALAB_GRADED_LESSONS="$graded" -DCUDALAB_VISUALIZER="$viewer" >/dev/null
if ((grader_only)); then
  echo "== building what grading needs${graded:+ (lesson $graded)}"
  cmake --build --preset default --target cudalab
  exit 0
fi
echo "== building the tools, the simulator and the lessons"
cmake --build --preset default
echo
# The first lesson in the course's order (vector add in this course).
first=$(./build/bin/cudalab list | awk 'NR == 1 { print $2 }')
if [[ -z "$first" ]]; then
  echo "setup.sh: no lesson found in lessons/ (each is a folder with a lesson.json)" >&2
  exit 1
fi
if [[ -f lessons/$first/solution.cu ]]; then
  echo "== the first lesson ($first): its solution on the CPU simulator"
  "./build/bin/$first"
else
  # A student's copy: the program runs the student's own exercise.cu, which
  # fails its check until the TODOs are done.
  echo "== the first lesson ($first) on the CPU simulator, with your exercise.cu"
  "./build/bin/$first" || echo "(your exercise.cu does not pass yet: that is the lesson)"
fi
echo
echo "Next: read lessons/$first/README.md, edit lessons/$first/exercise.cu,"
echo "and check it with:  ./build/bin/cudalab check $first"
