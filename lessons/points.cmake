# Checks that a lesson's lesson.json gives its graded tests the points they
# have: the sum of the points the judge lists (grade.cu and hidden.cu) must
# be "test_points", and that of its extra-credit tests "extra_credit_points"
# (0 when absent). The totals the tests expect come from lesson.json.
#   cmake -DJUDGE=path/to/LESSON_judge -DLESSON_JSON=path/to/lesson.json -P points.cmake
execute_process(COMMAND ${JUDGE} --list OUTPUT_VARIABLE listing RESULT_VARIABLE status)
if(NOT status EQUAL 0)
  message(FATAL_ERROR "${JUDGE} --list failed (${status})")
endif()
include(${CMAKE_CURRENT_LIST_DIR}/lesson_points.cmake)
file(READ ${LESSON_JSON} json)
cudalab_lesson_json_points("${json}" want_tests want_extra)
# One test a line, as JSON; the last line names the functions they call.
# (A semicolon in a test's description would split a CMake list: kept
# aside while the listing becomes a list of lines.)
string(REPLACE ";" "<semicolon>" listing "${listing}")
string(REPLACE "\n" ";" lines "${listing}")
set(tests 0)
set(extra 0)
foreach(line IN LISTS lines)
  string(REPLACE "<semicolon>" ";" line "${line}")
  string(JSON name ERROR_VARIABLE not_a_test GET "${line}" name)
  if(not_a_test)
    continue()
  endif()
  string(JSON points GET "${line}" points)
  string(JSON extra_credit GET "${line}" extra_credit)
  string(REGEX REPLACE "\\.0+$" "" points "${points}")  # 2.0 is 2
  if(NOT points MATCHES "^[0-9]+$")
    message(FATAL_ERROR "test ${name} is worth ${points} points: whole numbers only")
  endif()
  if(extra_credit)
    math(EXPR extra "${extra} + ${points}")
  else()
    math(EXPR tests "${tests} + ${points}")
  endif()
endforeach()
if(NOT tests EQUAL want_tests OR NOT extra EQUAL want_extra)
  message(FATAL_ERROR
    "the graded tests give ${tests} points and ${extra} of extra credit, but "
    "${LESSON_JSON} says test_points ${want_tests} and extra_credit_points ${want_extra}: "
    "correct lesson.json (the totals the tests expect come from it)")
endif()
message("points: ${tests} for the graded tests and ${extra} of extra credit, as lesson.json says")
